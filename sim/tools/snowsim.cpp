//===- snowsim.cpp - Run a prog.bin on the cycle-accurate simulator -------===//
//
// snowsim prog.bin [--input x.npy] [--output y.npy] [--stats-json FILE]
//                  [--max-cycles N] [--timing-only] [--hw PRESET|FILE]
//
// Prints the per-layer report; every failure is one line on stderr and a
// non-zero exit, and no output file is left half-written. An input batch
// (N, ...) of N > 1 frames, as ONNX tensors carry, runs frame by frame and
// writes outputs of shape (N, C, H, W) (docs/onnx.md).
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Frames.h"
#include "snow/sim/Report.h"
#include "snow/sim/Simulator.h"
#include "snow/support/CommandLine.h"
#include "snow/support/FileIO.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <optional>

using namespace snow;
namespace cl = llvm::cl;

static cl::OptionCategory Cat("snowsim options");
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
static cl::opt<bool> TimingOnly("timing-only",
                                cl::desc("Cycle-accurate timing without computing values"),
                                cl::cat(Cat));
static cl::opt<std::string> HwCheck("hw",
                                    cl::desc("Fail unless the program was compiled for this "
                                             "hardware (preset or YAML file)"),
                                    cl::value_desc("preset|file"), cl::cat(Cat));
static cl::opt<bool> Quiet("quiet", cl::desc("Print only errors"), cl::cat(Cat));

static int fail(const llvm::Twine &Msg) { return toolError("snowsim", Msg); }

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  reclaimLlvmOption("stats-json");
  cl::opt<std::string> StatsJson("stats-json", cl::desc("Write statistics as JSON"),
                                 cl::value_desc("file"), cl::cat(Cat));
  if (!parseToolCommandLine(Argc, Argv, "snowsim", "Snowflake cycle-accurate simulator\n", Cat))
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
  if (TimingOnly && (!OutputPath.empty() || !OutputFloat.empty()))
    return fail("--timing-only computes no values: --output and --output-float need a full run");

  std::vector<std::vector<int16_t>> Frames;
  if (!InputPath.empty()) {
    auto T = sim::readInputFrames(InputPath, Prog->Input);
    if (!T)
      return fail(llvm::toString(T.takeError()));
    Frames = std::move(*T);
  } else {
    Frames.push_back(sim::defaultInputFrame(*Prog));
  }

  sim::SimOptions Opts;
  Opts.TimingOnly = TimingOnly;
  Opts.MaxCycles = MaxCycles;
  // Each frame runs on a fresh machine. Cycles do not depend on the values,
  // so the report and --stats-json show the first frame.
  std::optional<sim::SimStats> Stats;
  std::vector<int16_t> Output; // the frames' outputs, one after another
  double Secs = 0;
  for (const std::vector<int16_t> &Input : Frames) {
    auto Sim = sim::Simulator::create(*Prog, Opts);
    if (!Sim)
      return fail(ProgPath + ": " + llvm::toString(Sim.takeError()));
    if (auto Err = (*Sim)->setInput(Input))
      return fail(llvm::toString(std::move(Err)));
    auto Start = std::chrono::steady_clock::now();
    auto FrameStats = (*Sim)->run();
    Secs += std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    if (!FrameStats)
      return fail(llvm::toString(FrameStats.takeError()));
    if (!Stats)
      Stats = std::move(*FrameStats);
    std::vector<int16_t> O = (*Sim)->output();
    Output.insert(Output.end(), O.begin(), O.end());
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
    llvm::outs() << llvm::format("simulated %llu cycles in %.3f s (%.1f M cycles/s, %s)\n",
                                 (unsigned long long)Stats->Cycles, Secs,
                                 Secs > 0 ? Stats->Cycles / Secs / 1e6 : 0.0,
                                 TimingOnly ? "timing only" : "functional + timing");
    if (Frames.size() > 1)
      llvm::outs() << Frames.size() << " frames of the input batch; the report shows the first "
                   << "(every frame takes the same cycles), the time is for all\n";
  }
  return 0;
}
