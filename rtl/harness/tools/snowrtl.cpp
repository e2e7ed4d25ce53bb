//===- snowrtl.cpp - Run a prog.bin on the Verilated RTL ------------------===//
//
// snowrtl prog.bin [--input x.npy] [--output y.npy] [--output-float y.npy]
//                  [--stats-json FILE] [--trace out.fst] [--max-cycles N]
//                  [--hw PRESET|FILE] [--quiet]
//
// snowsim's command line, report and JSON, computed by the RTL: the model is
// the Verilated snow_top built for the program's hardware. Every failure is
// one line on stderr and a non-zero exit, and no output file is left
// half-written. A batch input (N, ...) runs frame by frame, as in snowsim;
// --trace records the first frame.
//
//===----------------------------------------------------------------------===//

#include "snow/rtl/RtlSimulator.h"
#include "snow/sim/Frames.h"
#include "snow/sim/Report.h"
#include "snow/support/CommandLine.h"
#include "snow/support/FileIO.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <optional>

using namespace snow;
namespace cl = llvm::cl;

static cl::OptionCategory Cat("snowrtl options");
static cl::opt<std::string> ProgPath(cl::Positional, cl::desc("<prog.bin>"), cl::Required,
                                     cl::cat(Cat));
static cl::opt<std::string> InputPath("input",
                                      cl::desc("Input tensor (.npy, float32 or int16, CHW)"),
                                      cl::value_desc("x.npy"), cl::cat(Cat));
static cl::opt<std::string> OutputPath("output",
                                       cl::desc("Write the output tensor (int16 .npy, CHW)"),
                                       cl::value_desc("y.npy"), cl::cat(Cat));
static cl::opt<std::string> OutputFloat("output-float",
                                        cl::desc("Write the dequantized output (float32 .npy)"),
                                        cl::value_desc("y.npy"), cl::cat(Cat));
static cl::opt<uint64_t> MaxCycles("max-cycles", cl::desc("Fault if the program runs longer"),
                                   cl::init(1'000'000'000ULL), cl::cat(Cat));
static cl::opt<std::string> TracePath("trace",
                                      cl::desc("Write an FST waveform of the run (the first "
                                               "frame of a batch)"),
                                      cl::value_desc("out.fst"), cl::cat(Cat));
static cl::opt<std::string> HwCheck("hw",
                                    cl::desc("Fail unless the program was compiled for this "
                                             "hardware (preset or YAML file)"),
                                    cl::value_desc("preset|file"), cl::cat(Cat));
static cl::opt<bool> Quiet("quiet", cl::desc("Print only errors"), cl::cat(Cat));

static int fail(const llvm::Twine &Msg) { return toolError("snowrtl", Msg); }

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  reclaimLlvmOption("stats-json");
  cl::opt<std::string> StatsJson("stats-json", cl::desc("Write statistics as JSON"),
                                 cl::value_desc("file"), cl::cat(Cat));
  std::string Overview = "Snowflake RTL (Verilated) runner; models built for:";
  for (const std::string &C : rtl::builtConfigs())
    Overview += " " + C;
  if (!parseToolCommandLine(Argc, Argv, "snowrtl", Overview + "\n", Cat))
    return 1;

  auto Prog = isa::readProgram(ProgPath);
  if (!Prog)
    return fail(llvm::toString(Prog.takeError()));
  if (!HwCheck.empty()) {
    auto Hw = isa::loadHwConfig(HwCheck);
    if (!Hw)
      return fail(llvm::toString(Hw.takeError()));
    if (!(*Hw == Prog->Hw))
      return fail("'" + ProgPath + "' was compiled for hardware '" + Prog->Hw.Name +
                  "', not for '" + Hw->Name + "' (recompile with snowc --hw " + HwCheck + ")");
  }

  std::vector<std::vector<int16_t>> Frames;
  if (!InputPath.empty()) {
    auto T = sim::readInputFrames(InputPath, Prog->Input);
    if (!T)
      return fail(llvm::toString(T.takeError()));
    Frames = std::move(*T);
  } else {
    Frames.push_back(sim::defaultInputFrame(*Prog));
  }

  rtl::RtlOptions Opts;
  Opts.MaxCycles = MaxCycles;
  Opts.TracePath = TracePath;
  // Each frame runs on a freshly reset model. Cycles do not depend on the
  // values, so the report and --stats-json show the first frame.
  std::optional<sim::SimStats> Stats;
  std::vector<int16_t> Output; // the frames' outputs, one after another
  std::string Config;
  double Secs = 0;
  for (const std::vector<int16_t> &Input : Frames) {
    auto Rtl = rtl::RtlSimulator::create(*Prog, Opts);
    if (!Rtl)
      return fail(ProgPath + ": " + llvm::toString(Rtl.takeError()));
    Config = (*Rtl)->config();
    if (auto Err = (*Rtl)->setInput(Input))
      return fail(llvm::toString(std::move(Err)));
    auto Start = std::chrono::steady_clock::now();
    auto FrameStats = (*Rtl)->run();
    Secs += std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    if (!FrameStats)
      return fail(llvm::toString(FrameStats.takeError()));
    if (!Stats)
      Stats = std::move(*FrameStats);
    std::vector<int16_t> O = (*Rtl)->output();
    Output.insert(Output.end(), O.begin(), O.end());
    Opts.TracePath.clear(); // only the first frame is traced
  }

  // All outputs of a run are written together or not at all.
  const isa::TensorInfo &Out = Prog->Output;
  std::vector<std::pair<std::string, std::string>> Files;
  for (auto [Path, FloatFrac] : {std::pair{OutputPath.getValue(), -1},
                                 std::pair{OutputFloat.getValue(), int(Out.FracBits)}}) {
    if (Path.empty())
      continue;
    auto Bytes = sim::encodeOutputFrames(Path, Output, Frames.size(), Out, FloatFrac);
    if (!Bytes)
      return fail(llvm::toString(Bytes.takeError()));
    Files.push_back({Path, std::move(*Bytes)});
  }
  if (!StatsJson.empty())
    Files.push_back({StatsJson, sim::toJson(*Stats, *Prog)});
  if (auto Err = writeFilesAtomic(Files))
    return fail(llvm::toString(std::move(Err)));
  if (!Quiet) {
    llvm::outs() << sim::formatReport(*Stats, *Prog);
    llvm::outs() << llvm::format("simulated %llu cycles in %.3f s (%.3f M cycles/s, Verilated "
                                 "RTL %s)\n",
                                 (unsigned long long)Stats->Cycles, Secs,
                                 Secs > 0 ? Stats->Cycles / Secs / 1e6 : 0.0, Config.c_str());
    if (Frames.size() > 1)
      llvm::outs() << Frames.size() << " frames of the input batch; the report shows the first "
                   << "(every frame takes the same cycles), the time is for all\n";
  }
  return 0;
}
