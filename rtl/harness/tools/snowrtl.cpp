//===- snowrtl.cpp - Run a prog.bin on the Verilated RTL ------------------===//
//
// snowrtl prog.bin [--input x.npy] [--output y.npy] [--output-float y.npy]
//                  [--stats-json FILE] [--trace out.fst] [--max-cycles N]
//                  [--hw PRESET|FILE] [--quiet]
//
// snowsim's command line, report, JSON and exit codes (the shared driver,
// snow/sim/Driver.h), computed by the RTL: the engine is the Verilated
// snow_top built for the program's hardware. Its own option, --trace, writes
// an FST waveform of the first frame, kept also when the program faults.
//
//===----------------------------------------------------------------------===//

#include "snow/rtl/RtlSimulator.h"
#include "snow/sim/Driver.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace snow;
namespace cl = llvm::cl;

static cl::OptionCategory Cat("snowrtl options");
static cl::opt<std::string> TracePath("trace",
                                      cl::desc("Write an FST waveform of the run (the first "
                                               "frame of a batch)"),
                                      cl::value_desc("out.fst"), cl::cat(Cat));

namespace {

class RtlEngine : public sim::Engine {
public:
  explicit RtlEngine(std::unique_ptr<rtl::RtlSimulator> Rtl) : Rtl(std::move(Rtl)) {}
  llvm::Error setInput(const std::vector<int16_t> &Chw) override { return Rtl->setInput(Chw); }
  llvm::Expected<sim::SimStats> run() override { return Rtl->run(); }
  std::vector<int16_t> output() const override { return Rtl->output(); }
  std::string name() const override { return std::string("Verilated RTL ") + Rtl->config(); }

private:
  std::unique_ptr<rtl::RtlSimulator> Rtl;
};

class RtlFactory : public sim::EngineFactory {
public:
  llvm::Expected<std::unique_ptr<sim::Engine>> create(const isa::Program &P, size_t Frame,
                                                      uint64_t MaxCycles) override {
    rtl::RtlOptions Opts;
    Opts.MaxCycles = MaxCycles;
    if (Frame == 0) // only the first frame is traced
      Opts.TracePath = TracePath;
    auto Rtl = rtl::RtlSimulator::create(P, Opts);
    if (!Rtl)
      return Rtl.takeError();
    return std::make_unique<RtlEngine>(std::move(*Rtl));
  }
};

} // namespace

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  std::string Overview = "Snowflake RTL (Verilated) runner; models built for:";
  for (const std::string &C : rtl::builtConfigs())
    Overview += " " + C;
  RtlFactory Factory;
  return sim::runTool(Argc, Argv, {"snowrtl", Overview, &Cat}, Factory);
}
