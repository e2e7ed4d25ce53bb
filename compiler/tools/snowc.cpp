//===- snowc.cpp - Compile a model to a prog.bin ---------------------------===//
//
// snowc MODEL.yaml -o prog.bin [--hw PRESET|FILE] [--emit=bin|asm|plan|plan-json]
//                              [--uniform-format] [--tune] [--layer-off LAYER=switches]
// snowc MODEL.onnx -o prog.bin [--const NAME=FILE ...]   (docs/onnx.md)
// snowc MODEL.yaml --export-onnx MODEL.onnx
//
// A thin driver over snow_ir (front end) and snow_compiler (lowering); its
// --no-NAME flags are the planner's switches, compiler::compileSwitches(). Every
// failure is one line on stderr and a non-zero exit; the output file is
// written atomically, so a failed run never leaves half a program behind.
//
//===----------------------------------------------------------------------===//

#include "snow/compiler/Compiler.h"
#include "snow/compiler/PlanReport.h"
#include "snow/ir/Calibrate.h"
#include "snow/ir/Graph.h"
#include "snow/ir/Onnx.h"
#include "snow/isa/Asm.h"
#include "snow/support/CommandLine.h"
#include "snow/support/FileIO.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <csignal>
#include <deque>
#include <fmt/format.h>
#include <future>
#include <memory>

using namespace snow;
namespace cl = llvm::cl;

static cl::OptionCategory Cat("snowc options");
/// --no-NAME of each planner switch (compiler::compileSwitches(), whose
/// help they print), made before the command line is parsed.
static std::vector<std::unique_ptr<cl::opt<bool>>> &switchFlags() {
  static std::deque<std::string> Names; // cl::opt keeps a reference to its name
  static std::vector<std::unique_ptr<cl::opt<bool>>> Flags = [] {
    std::vector<std::unique_ptr<cl::opt<bool>>> F;
    for (const compiler::CompileSwitch &S : compiler::compileSwitches()) {
      Names.push_back(std::string("no-") + S.Name);
      F.push_back(std::make_unique<cl::opt<bool>>(llvm::StringRef(Names.back()), cl::desc(S.Help),
                                                  cl::cat(Cat)));
    }
    return F;
  }();
  return Flags;
}

static cl::opt<std::string> ModelPath(cl::Positional, cl::desc("<model.yaml|model.onnx>"),
                                      cl::Required, cl::cat(Cat));
static cl::opt<std::string> OutPath("o", cl::desc("Output file ('-' for stdout with --emit=asm)"),
                                    cl::value_desc("prog.bin"), cl::cat(Cat));
static cl::opt<std::string> HwName("hw", cl::desc("Hardware preset or YAML file"),
                                   cl::value_desc("preset|file"), cl::init("zc706"), cl::cat(Cat));
enum class EmitKind { Bin, Asm, Plan, PlanJson };
static cl::opt<EmitKind>
    Emit("emit", cl::desc("What to produce"), cl::init(EmitKind::Bin),
         cl::values(clEnumValN(EmitKind::Bin, "bin", "prog.bin (default)"),
                    clEnumValN(EmitKind::Asm, "asm", "assembly text"),
                    clEnumValN(EmitKind::Plan, "plan", "the per-layer tiling plan"),
                    clEnumValN(EmitKind::PlanJson, "plan-json",
                               "the plan with each layer's exact cycles, as JSON "
                               "(docs/timing.md)")),
         cl::cat(Cat));
static cl::opt<bool> Summary("summary",
                             cl::desc("Print per-layer output shapes, MACs and parameters of the "
                                      "model as written, and stop"),
                             cl::cat(Cat));

static cl::opt<bool> UniformFormat("uniform-format",
                                   cl::desc("Use the hardware's activation format (act_frac_bits) "
                                            "for every layer instead of per-layer formats "
                                            "calibrated on the default input"),
                                   cl::cat(Cat));

static cl::opt<std::string>
    CalibrateFrames("calibrate",
                    cl::desc("Choose every tensor's format, the input's too, from these float32 "
                             "frames, shape (N, C, H, W), instead of the default input "
                             "(docs/fixed-point.md); give snowref the same file"),
                    cl::value_desc("frames.npy"), cl::cat(Cat));

static cl::list<std::string>
    Consts("const",
           cl::desc("ONNX: bind graph input NAME to the constant in FILE (.npy or .pb), e.g. "
                    "weights passed as inputs; repeatable"),
           cl::value_desc("NAME=FILE"), cl::cat(Cat));
static cl::opt<std::string> ExportOnnx("export-onnx",
                                       cl::desc("Write the model as written as ONNX, and stop"),
                                       cl::value_desc("model.onnx"), cl::cat(Cat));

static cl::opt<unsigned>
    Batch("batch",
          cl::desc("Compile one program for N frames that reuses each weight tile across them "
                   "(fc layers over the stacked frames, conv layers planned over the batch's "
                   "tiles); snowsim --input then takes exactly N frames (docs/batch.md)"),
          cl::value_desc("N"), cl::init(1), cl::cat(Cat));

static cl::opt<bool> ForceBlockTriples(
    "force-block-triples",
    cl::desc("Take every block triple that fits, whatever the cost model says (for tests)"),
    cl::Hidden, cl::cat(Cat));

static cl::opt<bool> ForceDwHalves(
    "force-dw-halves",
    cl::desc("Read a stride-2 depthwise conv's windows in halves wherever it can (for tests)"),
    cl::Hidden, cl::cat(Cat));

static cl::opt<bool> ForceDwQuarters(
    "force-dw-quarters",
    cl::desc("Read a stride-1 depthwise conv's windows in quarters wherever it can (for tests)"),
    cl::Hidden, cl::cat(Cat));

static cl::list<std::string> LayerOffArgs(
    "layer-off",
    cl::desc("Options of one layer of the compiled graph: LAYER=what[,what...], each a "
             "planner switch to turn off (a --no-... flag's name without 'no-': "
             "loop-reorder, multi-pixel, fuse-depthwise, ...), rankN (its N+1-th cheapest "
             "plan, and of a pair it starts, the pair's) or late (after the layers it need not "
             "precede). Repeatable; what "
             "--tune prints (docs/compiler.md, \"Tuning\")"),
    cl::value_desc("layer=switches"), cl::cat(Cat));
static cl::opt<bool>
    Tune("tune",
         cl::desc("Search per-layer switches (--layer-off) for a faster program: candidate "
                  "programs run in the timing engine (snowsim's cycles), the fastest is kept "
                  "and written; the switches found go to stderr (docs/compiler.md, \"Tuning\")"),
         cl::cat(Cat));

static cl::opt<unsigned>
    TunePasses("tune-passes",
               cl::desc("Passes of --tune over the layers at most, each from what the last "
                        "kept (it stops after a pass that keeps nothing)"),
               cl::init(4), cl::cat(Cat));

static cl::opt<std::string> TimeTrace(
    "time-trace",
    cl::desc("Write where compile time goes (load, calibrate, plan, pack, emit, write) as "
             "a Chrome trace-event JSON file, for chrome://tracing or ui.perfetto.dev"),
    cl::value_desc("trace.json"), cl::cat(Cat));

static int fail(const llvm::Twine &Msg) { return toolError("snowc", Msg); }

static int compileModel();

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  // Past a file-size limit the output's reservation fails with EFBIG and is
  // reported like a full disk; the signal would only add LLVM's stack dump.
  std::signal(SIGXFSZ, SIG_IGN);
  switchFlags();
  if (!parseToolCommandLine(Argc, Argv, "snowc", "Snowflake compiler\n", Cat))
    return 1;
  if (TimeTrace.empty())
    return compileModel();
  // Phases on the main thread; parallel work shows as its phase's span.
  llvm::timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0, "snowc");
  int Rc;
  {
    llvm::TimeTraceScope Total("snowc", ModelPath.getValue());
    Rc = compileModel();
  }
  llvm::SmallString<0> Json;
  llvm::raw_svector_ostream OS(Json);
  llvm::timeTraceProfilerWrite(OS);
  llvm::timeTraceProfilerCleanup();
  if (auto Err = writeFileAtomic(TimeTrace, OS.str()))
    return fail(llvm::toString(std::move(Err)));
  return Rc;
}

static int compileModel() {
  auto Hw = isa::loadHwConfig(HwName);
  if (!Hw)
    return fail(llvm::toString(Hw.takeError()));
  ir::OnnxImportOptions OnnxOpts;
  for (const std::string &C : Consts)
    if (auto Err = ir::addOnnxConst(C, OnnxOpts))
      return fail(llvm::toString(std::move(Err)));
  auto G = [&] {
    llvm::TimeTraceScope Scope("load model");
    // Seeded weights are drawn where they are used (calibration, the weight
    // image): a compile never holds a model's floats or integers whole.
    return ir::loadAnyModel(ModelPath, OnnxOpts, ir::SeededValues::Deferred);
  }();
  if (!G)
    return fail(llvm::toString(G.takeError()));
  if (!ExportOnnx.empty()) {
    ir::materializeWeights(*G);
    if (auto Err = ir::writeOnnx(*G, ExportOnnx))
      return fail(llvm::toString(std::move(Err)));
    return 0;
  }
  if (Summary) {
    std::string Text = ir::summary(*G);
    // Where the compiler maps a different count (shuffles and slices folded,
    // layernorms expanded), say so: the table is the model as written. Only
    // those layers change the count, so only then is the graph copied (an
    // imported VGG-16 holds 553 MB of weights).
    const bool Changes = llvm::any_of(G->Layers, [](const ir::Layer &L) {
      return L.Kind == ir::LayerKind::LayerNorm || L.TypeName == "shuffle" || L.TypeName == "slice";
    });
    if (Changes) {
      ir::Graph Canonical = *G;
      if (auto Err = ir::canonicalize(Canonical))
        llvm::consumeError(std::move(Err)); // The compile itself reports it.
      else if (Canonical.macs() != G->macs())
        Text += fmt::format("canonical form: {:.3f} G MACs ({:.1f} M, {:.1f} M of them channel "
                            "copies), the layers the compiler maps (docs/model-format.md, "
                            "\"Canonical form\")\n",
                            double(Canonical.macs()) / 1e9, double(Canonical.macs()) / 1e6,
                            double(Canonical.macs() - Canonical.usefulMacs()) / 1e6);
    }
    if (auto Err = writeFileAtomic(OutPath.empty() ? std::string("-") : OutPath.getValue(), Text))
      return fail(llvm::toString(std::move(Err)));
    return 0;
  }
  if (auto Err = ir::canonicalize(*G, {/*OneFormat=*/UniformFormat}))
    return fail(llvm::toString(std::move(Err)));
  compiler::CompileOptions Opts;
  for (size_t K = 0; K < switchFlags().size(); ++K)
    Opts.*compiler::compileSwitches()[K].Member = !*switchFlags()[K];
  if (Batch == 0)
    return fail("--batch must be at least 1");
  Opts.Batch = Batch;
  Opts.ForceBlockTriples = ForceBlockTriples;
  Opts.ForceDwHalves = ForceDwHalves;
  Opts.ForceDwQuarters = ForceDwQuarters;
  for (const std::string &Spec : LayerOffArgs)
    if (auto Err = compiler::addLayerOff(Spec, Opts))
      return fail(llvm::toString(std::move(Err)));
  // A member kept apart renames its merged conv: the names are checked
  // once the graph is as compiled (below).
  if (!compiler::keepsApart(Opts))
    if (auto Err = compiler::checkLayerOff(*G, Opts))
      return fail(llvm::toString(std::move(Err)));
  if (Opts.AlignSlices)
    compiler::alignSlices(*G, *Hw);
  if (UniformFormat && !CalibrateFrames.empty())
    return fail("--uniform-format and --calibrate contradict each other: one format everywhere, "
                "or formats chosen from the frames");
  // Plans do not depend on the formats: a program of one frame is planned
  // on another thread while the float run below chooses them (both only
  // read G; quantize() waits for the plans). If the plans fail (null),
  // compile() plans again and reports the error where it always has.
  std::future<compiler::LayerPlansPtr> Early;
  if (Opts.Batch == 1 && Emit != EmitKind::Plan && !UniformFormat && !compiler::keepsApart(Opts))
    Early = std::async(std::launch::async, [&, &Graph = *G] {
      auto P = compiler::planLayers(Graph, *Hw, Opts);
      if (!P) {
        llvm::consumeError(P.takeError());
        return compiler::LayerPlansPtr();
      }
      return std::move(*P);
    });
  // Per-layer formats are calibrated on the default input, as snowref does,
  // so the two agree on every format (docs/fixed-point.md, "Choosing formats").
  // The compiler needs only the integers: each layer's floats go as soon as
  // it is quantized (VGG-16 would hold 552 MB of them for nothing).
  if (UniformFormat) {
    llvm::TimeTraceScope Scope("quantize");
    ir::quantize(*G, int(Hw->ActFracBits), ir::FloatWeights::Release);
  } else {
    llvm::Expected<ir::ActFormats> Formats = ir::ActFormats();
    llvm::TimeTraceScope Scope("calibrate and quantize");
    if (CalibrateFrames.empty()) {
      Formats = ir::calibrate(*G, int(Hw->ActFracBits), ir::defaultInput(*G));
    } else {
      auto Frames = ir::readCalibrationFrames(*G, CalibrateFrames);
      if (!Frames)
        return fail(llvm::toString(Frames.takeError()));
      Formats = ir::calibrateOnFrames(*G, int(Hw->ActFracBits), *Frames);
    }
    if (!Formats)
      return fail(llvm::toString(Formats.takeError()));
    if (Early.valid())
      Early.wait(); // quantize() writes the layers the planner reads.
    if (auto Err = ir::quantize(*G, *Formats, ir::FloatWeights::Release))
      return fail(llvm::toString(std::move(Err)));
  }
  compiler::LayerPlansPtr Planned = Early.valid() ? Early.get() : nullptr;
  if (Tune) {
    const auto Start = std::chrono::steady_clock::now();
    compiler::TuneSettings Settings;
    Settings.Passes = TunePasses;
    Settings.Progress = [](const std::string &Line) {
      llvm::errs() << "snowc: tune: " << Line << "\n";
    };
    auto R = compiler::tune(*G, *Hw, Opts, Settings);
    if (!R)
      return fail(llvm::toString(R.takeError()));
    const double Secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    llvm::errs() << fmt::format(
        "snowc: tune: {} -> {} cycles ({:+.2f} %), {} programs compiled, {} run, {:.1f} s\n",
        R->StartCycles, R->Cycles,
        100.0 * (double(R->Cycles) - double(R->StartCycles)) / double(R->StartCycles), R->Compiles,
        R->Runs, Secs);
    std::string Args;
    for (const std::string &Spec : compiler::layerOffSpecs(R->Opts))
      Args += " --layer-off='" + Spec + "'";
    if (!Args.empty())
      llvm::errs() << "snowc: tune: the same program without searching:" << Args << "\n";
    Opts = std::move(R->Opts);
    Planned = nullptr; // Planned with the options before.
  }
  // Members kept apart become convs of their own now that the merged
  // conv's formats are chosen: each keeps them (ir::keepApart).
  if (compiler::keepsApart(Opts)) {
    if (auto Err = compiler::applyApart(*G, Opts))
      return fail(llvm::toString(std::move(Err)));
    if (auto Err = compiler::checkLayerOff(*G, Opts))
      return fail(llvm::toString(std::move(Err)));
  }

  if (Emit == EmitKind::Plan) {
    if (auto Err = writeFileAtomic(OutPath.empty() ? std::string("-") : OutPath.getValue(),
                                   compiler::describePlan(*G, *Hw, Opts)))
      return fail(llvm::toString(std::move(Err)));
    return 0;
  }
  if (OutPath.empty())
    return fail("no output file: use -o prog.bin");
  std::vector<compiler::PlanPart> Parts;
  // A prog.bin's weight image is packed straight into the output file.
  isa::ImageFill Image;
  auto Prog = compiler::compile(*G, *Hw, Opts, &Parts, Emit == EmitKind::Bin ? &Image : nullptr,
                                Planned.get());
  if (!Prog)
    return fail(llvm::toString(Prog.takeError()));
  if (Emit == EmitKind::PlanJson) {
    auto Json = compiler::planJson(*Prog, Parts);
    if (!Json)
      return fail("internal error: the compiled program faults in the timing engine: " +
                  llvm::toString(Json.takeError()));
    if (auto Err = writeFileAtomic(OutPath, *Json))
      return fail(llvm::toString(std::move(Err)));
    return 0;
  }
  if (Emit == EmitKind::Asm) {
    std::vector<isa::Inst> Code;
    for (const isa::Word128 &W : Prog->Code) {
      auto I = isa::decode(W);
      if (!I)
        return fail("internal error: " + llvm::toString(I.takeError()));
      Code.push_back(*I);
    }
    if (auto Err = writeFileAtomic(OutPath, isa::disassembleProgram(Code)))
      return fail(llvm::toString(std::move(Err)));
    return 0;
  }
  llvm::TimeTraceScope Scope("write prog.bin");
  if (auto Err = isa::writeProgram(*Prog, OutPath, Image))
    return fail(llvm::toString(std::move(Err)));
  return 0;
}
