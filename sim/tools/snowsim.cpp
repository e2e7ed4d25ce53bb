//===- snowsim.cpp - Run a prog.bin on the cycle-accurate simulator -------===//
//
// snowsim prog.bin [--input x.npy] [--output y.npy] [--output-float y.npy]
//                  [--stats-json FILE] [--max-cycles N] [--hw PRESET|FILE]
//                  [--timing-only] [--trace out.json] [--quiet]
//
// The shared driver (snow/sim/Driver.h: options, loading, frames, outputs,
// report, exit codes) with the simulator as its engine. Its own options:
// --timing-only (same cycles, no values) and --trace, a timeline of the
// first frame for ui.perfetto.dev (docs/trace.md), kept also when the program
// faults.
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Driver.h"
#include "snow/sim/Simulator.h"
#include "snow/sim/Trace.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace snow;
namespace cl = llvm::cl;

static cl::OptionCategory Cat("snowsim options");
static cl::opt<bool> TimingOnly("timing-only",
                                cl::desc("Cycle-accurate timing without computing values"),
                                cl::cat(Cat));
static cl::opt<std::string>
    TracePath("trace",
              cl::desc("Write a timeline of the run (the first frame of a batch) as "
                       "trace-event JSON for ui.perfetto.dev (docs/trace.md)"),
              cl::value_desc("out.json"), cl::cat(Cat));
static cl::opt<size_t>
    TraceSlices("trace-slices",
                cl::desc("Merge the trace's slices more coarsely until at most this many "
                         "remain (docs/trace.md)"),
                cl::init(sim::TraceRecorder::DefaultMaxSlices), cl::cat(Cat));

namespace {

class SimEngine : public sim::Engine {
public:
  SimEngine(std::unique_ptr<sim::Simulator> Sim, std::unique_ptr<sim::TraceRecorder> Trace)
      : Sim(std::move(Sim)), Trace(std::move(Trace)) {}
  llvm::Error setInput(const std::vector<int16_t> &Chw) override { return Sim->setInput(Chw); }
  llvm::Expected<sim::SimStats> run() override {
    auto S = Sim->run();
    Cycles = S ? S->Cycles : 0;
    return S;
  }
  std::vector<int16_t> output() const override { return Sim->output(); }
  std::vector<sim::OutputFile> takeFiles() override {
    if (!Trace)
      return {};
    return {{TracePath, Trace->toJson(Cycles)}};
  }
  std::string name() const override { return TimingOnly ? "timing only" : "functional + timing"; }

private:
  std::unique_ptr<sim::Simulator> Sim;
  std::unique_ptr<sim::TraceRecorder> Trace;
  uint64_t Cycles = 0; ///< Of a finished run; 0 after a fault.
};

class SimFactory : public sim::EngineFactory {
public:
  llvm::Error checkOptions(bool WantsValues) const override {
    if (TimingOnly && WantsValues)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--timing-only computes no values: --output and --output-float need a full run");
    return llvm::Error::success();
  }
  bool readsConstantData() const override { return !TimingOnly; }
  llvm::Expected<std::unique_ptr<sim::Engine>> create(const isa::Program &P, size_t Frame,
                                                      uint64_t MaxCycles) override {
    std::unique_ptr<sim::TraceRecorder> Trace;
    if (Frame == 0 && !TracePath.empty()) // only the first frame is traced
      Trace = std::make_unique<sim::TraceRecorder>(P, TraceSlices);
    sim::SimOptions Opts;
    Opts.TimingOnly = TimingOnly;
    Opts.MaxCycles = MaxCycles;
    Opts.MaxSeconds = MaxSeconds * P.Batch; // Per frame: a batched run computes Batch.
    Opts.Trace = Trace.get();
    auto Sim = sim::Simulator::create(P, Opts);
    if (!Sim)
      return Sim.takeError();
    return std::make_unique<SimEngine>(std::move(*Sim), std::move(Trace));
  }
};

} // namespace

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  SimFactory Factory;
  return sim::runTool(Argc, Argv, {"snowsim", "Snowflake cycle-accurate simulator", &Cat}, Factory);
}
