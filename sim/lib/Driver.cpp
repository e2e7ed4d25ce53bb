//===- Driver.cpp - The command-line driver shared by snowsim and snowrtl -===//
//
// One main for two engines (snow/sim/Driver.h). The order of the checks is
// the contract the tools tests pin: every input is read and checked before
// the first frame runs, the outputs of a run are written together or not at
// all, and a program fault is reported after any trace of it was written.
// An input batch (N, ...) of N > 1 frames runs frame by frame, each on a
// fresh engine; the report and --stats-json show the first frame (cycles do
// not depend on the values). A batched program (snowc --batch N) takes
// exactly its N frames in one run (docs/batch.md).
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Driver.h"
#include "snow/sim/DramImage.h"
#include "snow/sim/Frames.h"
#include "snow/sim/Report.h"
#include "snow/support/CommandLine.h"
#include "snow/support/FileIO.h"
#include "snow/support/Limits.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <optional>

using namespace snow;
using namespace snow::sim;
namespace cl = llvm::cl;

Engine::~Engine() = default;
EngineFactory::~EngineFactory() = default;

namespace {

/// cl::desc keeps a reference: the text must outlive the option.
const std::string &maxCyclesDesc() {
  static const std::string Desc =
      "Fault if the program runs longer (default " + std::to_string(DefaultMaxCycles) + ")";
  return Desc;
}

/// The options every engine shares. Built at run time, after the tool's own
/// static options, so that --stats-json can first be taken back from LLVM.
struct CommonOptions {
  explicit CommonOptions(cl::OptionCategory &Cat)
      : ProgPath(cl::Positional, cl::desc("<prog.bin>"), cl::Required, cl::cat(Cat)),
        InputPath("input",
                  cl::desc("Input tensor (.npy, float32 or int16, CHW; a batch "
                           "(N, C, H, W) runs frame by frame, or in one run of a program "
                           "compiled with snowc --batch N)"),
                  cl::value_desc("x.npy"), cl::cat(Cat)),
        OutputPath("output", cl::desc("Write the output tensor (int16 .npy, CHW)"),
                   cl::value_desc("y.npy"), cl::cat(Cat)),
        OutputFloat("output-float", cl::desc("Write the dequantized output (float32 .npy)"),
                    cl::value_desc("y.npy"), cl::cat(Cat)),
        StatsJson((reclaimLlvmOption("stats-json"), "stats-json"),
                  cl::desc("Write statistics as JSON"), cl::value_desc("file"), cl::cat(Cat)),
        MaxCycles("max-cycles", cl::desc(maxCyclesDesc()), cl::init(DefaultMaxCycles),
                  cl::cat(Cat)),
        MaxSeconds("max-seconds",
                   cl::desc("Fault if one frame runs longer than this many seconds of wall-clock "
                            "time (default 10, times the batch of a batched program; 0 = no "
                            "limit)"),
                   cl::init(snow::DefaultMaxSeconds), cl::cat(Cat)),
        HwCheck("hw",
                cl::desc("Fail unless the program was compiled for this hardware (preset or "
                         "YAML file)"),
                cl::value_desc("preset|file"), cl::cat(Cat)),
        Quiet("quiet", cl::desc("Print only errors"), cl::cat(Cat)),
        EnergyTable("energy",
                    cl::desc("Energy table for the energy and power figures (YAML file or "
                             "built-in name; default: the built-in table named like the "
                             "program's hardware, if there is one; docs/energy.md)"),
                    cl::value_desc("file|name"), cl::cat(Cat)) {}

  cl::opt<std::string> ProgPath, InputPath, OutputPath, OutputFloat, StatsJson;
  cl::opt<uint64_t> MaxCycles;
  cl::opt<double> MaxSeconds;
  cl::opt<std::string> HwCheck;
  cl::opt<bool> Quiet;
  cl::opt<std::string> EnergyTable;
};

/// What the frames of a run produced.
struct RunResult {
  /// The first frame's, but for the rail counts: summed over every frame.
  std::optional<SimStats> Stats;
  std::vector<int16_t> Output; ///< The frames' outputs, one after another.
  std::vector<OutputFile> EngineFiles;
  std::string EngineName;
  double Secs = 0;
};

} // namespace

/// One line on stderr, --quiet or not, when some layer stored values at the
/// int16 rails (functional runs count them): its formats were chosen for
/// other data and the answer is likely wrong (docs/fixed-point.md).
static void reportSaturation(const std::string &Tool, const SimStats &S, const isa::Program &P) {
  std::vector<double> Fractions;
  for (size_t I = 0; I < S.Layers.size() && I < P.Layers.size(); ++I)
    Fractions.push_back(saturatedFraction(S, P, I));
  // The program does not record how its formats were chosen: always hint.
  snow::warnSaturation(
      Tool, Fractions, [&](size_t I) { return P.Layers[I].Name; }, /*Calibrated=*/false);
}

/// Runs every frame. A program fault comes back as the error, with the
/// faulting engine's files in R.EngineFiles.
static llvm::Error runFrames(const isa::Program &Prog, const std::string &ProgPath,
                             const std::vector<std::vector<int16_t>> &Frames, uint64_t MaxCycles,
                             EngineFactory &Factory, RunResult &R) {
  for (size_t F = 0; F < Frames.size(); ++F) {
    auto E = Factory.create(Prog, F, MaxCycles);
    if (!E)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s", ProgPath.c_str(),
                                     llvm::toString(E.takeError()).c_str());
    R.EngineName = (*E)->name();
    if (auto Err = (*E)->setInput(Frames[F]))
      return Err;
    auto Start = std::chrono::steady_clock::now();
    auto FrameStats = (*E)->run();
    if (FrameStats)
      FrameStats->RailFrames *= Prog.Batch; // Saturation counts cover every frame of the run.
    R.Secs += std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    for (OutputFile &File : (*E)->takeFiles())
      R.EngineFiles.push_back(std::move(File));
    if (!FrameStats)
      return FrameStats.takeError();
    if (!R.Stats) {
      R.Stats = std::move(*FrameStats);
    } else if (R.Stats->RailsCounted && FrameStats->RailsCounted) {
      // Saturation in any frame matters, not only in the first.
      for (size_t L = 0; L < R.Stats->Layers.size(); ++L)
        R.Stats->Layers[L].RailValues += FrameStats->Layers[L].RailValues;
      R.Stats->RailFrames += FrameStats->RailFrames;
    }
    std::vector<int16_t> O = (*E)->output();
    R.Output.insert(R.Output.end(), O.begin(), O.end());
  }
  return llvm::Error::success();
}

int snow::sim::runTool(int Argc, char **Argv, const ToolInfo &Info, EngineFactory &Factory) {
  CommonOptions O(*Info.Cat);
  if (!parseToolCommandLine(Argc, Argv, Info.Name, Info.Overview + "\n", *Info.Cat))
    return ExitBadInput;
  auto Fail = [&](const llvm::Twine &Msg) {
    toolError(Info.Name, Msg);
    return ExitBadInput;
  };

  auto Prog =
      isa::readProgram(O.ProgPath, Factory.readsConstantData() ? isa::ProgramData::Read
                                                               : isa::ProgramData::SizeOnly);
  if (!Prog)
    return Fail(llvm::toString(Prog.takeError()));
  if (!(O.MaxSeconds >= 0))
    return Fail("--max-seconds must be a number of seconds >= 0 (0 = no limit), got '" +
                std::to_string(O.MaxSeconds.getValue()) + "'");
  Factory.MaxSeconds = O.MaxSeconds;
  if (auto Err = checkSimMemory(*Prog, Factory.readsConstantData(), O.ProgPath))
    return Fail(llvm::toString(std::move(Err)));
  if (!O.HwCheck.empty()) {
    auto Hw = isa::loadHwConfig(O.HwCheck);
    if (!Hw)
      return Fail(llvm::toString(Hw.takeError()));
    if (!(*Hw == Prog->Hw))
      return Fail("'" + O.ProgPath + "' was compiled for hardware '" + Prog->Hw.Name +
                  "', not for '" + Hw->Name + "' (recompile with snowc --hw " + O.HwCheck + ")");
  }
  if (auto Err = Factory.checkOptions(!O.OutputPath.empty() || !O.OutputFloat.empty()))
    return Fail(llvm::toString(std::move(Err)));
  std::optional<EnergyModel> Energy;
  if (!O.EnergyTable.empty()) {
    auto E = loadEnergyModel(O.EnergyTable);
    if (!E)
      return Fail(llvm::toString(E.takeError()));
    Energy = *E;
  } else {
    Energy = builtinEnergyModel(Prog->Hw.Name);
  }
  const EnergyModel *En = Energy ? &*Energy : nullptr;

  std::vector<std::vector<int16_t>> Frames;
  if (!O.InputPath.empty()) {
    auto T = readInputFrames(O.InputPath, Prog->Input);
    if (!T)
      return Fail(llvm::toString(T.takeError()));
    Frames = std::move(*T);
  } else if (!Factory.readsConstantData()) {
    // A timing-only run never reads a value (the cycles do not depend on
    // them): zeros, without drawing the default frame.
    Frames.assign(Prog->Batch, std::vector<int16_t>(Prog->Input.bytes() / 2));
  } else {
    // A batched program without --input: the default frame, Batch times.
    Frames.assign(Prog->Batch, defaultInputFrame(*Prog));
  }
  const size_t NumFrames = Frames.size();
  if (Prog->Batch > 1) {
    if (NumFrames != Prog->Batch)
      return Fail("'" + O.InputPath + "' holds " + std::to_string(NumFrames) + " frame" +
                  (NumFrames == 1 ? "" : "s") + ", but '" + O.ProgPath +
                  "' was compiled for a batch of " + std::to_string(Prog->Batch) +
                  " (snowc --batch " + std::to_string(Prog->Batch) + "): give exactly " +
                  std::to_string(Prog->Batch) + " frames, shape (" + std::to_string(Prog->Batch) +
                  ", C, H, W), or recompile with --batch " + std::to_string(NumFrames));
    // One run for the whole batch: its frames one after another.
    std::vector<int16_t> All;
    for (const std::vector<int16_t> &F : Frames)
      All.insert(All.end(), F.begin(), F.end());
    Frames.assign(1, std::move(All));
  }

  RunResult R;
  if (auto Err = runFrames(*Prog, O.ProgPath, Frames, O.MaxCycles, Factory, R)) {
    if (!Err.isA<SimFault>())
      return Fail(llvm::toString(std::move(Err)));
    // The trace of a faulting run is what explains the fault: keep it, and
    // say so if it could not be written.
    std::string Msg = llvm::toString(std::move(Err));
    if (auto WErr = writeFilesAtomic(R.EngineFiles))
      Msg += " (and " + llvm::toString(std::move(WErr)) + ")";
    toolError(Info.Name, Msg);
    return ExitFault;
  }

  // All outputs of a run are written together or not at all.
  const isa::TensorInfo &Out = Prog->Output;
  std::vector<OutputFile> Files;
  for (auto [Path, FloatFrac] : {std::pair{O.OutputPath.getValue(), -1},
                                 std::pair{O.OutputFloat.getValue(), int(Out.FracBits)}}) {
    if (Path.empty())
      continue;
    auto Bytes = encodeOutputFrames(Path, R.Output, NumFrames, Out, FloatFrac);
    if (!Bytes)
      return Fail(llvm::toString(Bytes.takeError()));
    Files.push_back({Path, std::move(*Bytes)});
  }
  if (!O.StatsJson.empty())
    Files.push_back({O.StatsJson, toJson(*R.Stats, *Prog, En)});
  for (OutputFile &F : R.EngineFiles)
    Files.push_back(std::move(F));
  if (auto Err = writeFilesAtomic(Files))
    return Fail(llvm::toString(std::move(Err)));

  reportSaturation(Info.Name, *R.Stats, *Prog);
  if (!O.Quiet) {
    const SimStats &S = *R.Stats;
    llvm::outs() << formatReport(S, *Prog, En);
    llvm::outs() << llvm::format("simulated %llu cycles in %.3f s (%.3g M cycles/s, %s)\n",
                                 (unsigned long long)S.Cycles, R.Secs,
                                 R.Secs > 0 ? S.Cycles / R.Secs / 1e6 : 0.0, R.EngineName.c_str());
    if (Frames.size() > 1)
      llvm::outs() << Frames.size() << " frames of the input batch; the report shows the first "
                   << "(every frame takes the same cycles), the time is for all\n";
    else if (Prog->Batch > 1)
      llvm::outs() << Prog->Batch << " frames in one run of the batched program\n";
  }
  return ExitSuccess;
}
