//===- snowc.cpp - Compile a model to a prog.bin ---------------------------===//
//
// snowc MODEL.yaml -o prog.bin [--hw PRESET|FILE] [--emit=bin|asm|plan|plan-json]
//                              [--uniform-format] [--tune] [--layer-off LAYER=switches]
// snowc MODEL.onnx -o prog.bin [--const NAME=FILE ...]   (docs/onnx.md)
// snowc MODEL.yaml --export-onnx MODEL.onnx
//
// A thin driver over snow_ir (front end) and snow_compiler (lowering). Every
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
#include <fmt/format.h>
#include <future>

using namespace snow;
namespace cl = llvm::cl;

static cl::OptionCategory Cat("snowc options");
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
static cl::opt<bool> NoDoubleBuffer("no-double-buffer",
                                    cl::desc("Do not overlap loads with compute"), cl::cat(Cat));
static cl::opt<bool> NoLoopReorder("no-loop-reorder", cl::desc("Always keep kernels stationary"),
                                   cl::cat(Cat));
static cl::opt<bool> NoFullDepth("no-full-depth",
                                 cl::desc("Reload a 1-wide kernel's tile chunk by chunk for each "
                                          "weight chunk, not keep all its channels on chip"),
                                 cl::cat(Cat));
static cl::opt<bool> NoPrefetchWindows(
    "no-prefetch-windows",
    cl::desc("Plan every conv as if its first weights were prefetched under the layer before, "
             "however long that layer's last step"),
    cl::cat(Cat));
static cl::opt<bool> NoRemainderTiles(
    "no-remainder-tiles",
    cl::desc("Plan a conv's output groups beyond whole rounds of CUs on the tiles of the others, "
             "not on smaller tiles of their own"),
    cl::cat(Cat));
static cl::opt<bool> NoGather("no-gather", cl::desc("Load whole regions for 1x1 strided convs"),
                              cl::cat(Cat));
static cl::opt<bool> NoSplit("no-split-channels",
                             cl::desc("CUs always take different tiles, never different output "
                                      "channels of one tile"),
                             cl::cat(Cat));
static cl::opt<bool> NoBalance("no-balance", cl::desc("Do not pack rounds of CU work by tile size"),
                               cl::cat(Cat));
static cl::opt<bool> NoGroupedVdw("no-grouped-vdw",
                                  cl::desc("Run grouped convolutions as dense ones with zero "
                                           "cross-group weights, never per group on vdw"),
                                  cl::cat(Cat));
static cl::opt<bool> NoMultiPixel("no-multi-pixel",
                                  cl::desc("Never give the vMACs of a CU different pixels "
                                           "(vmacp), even where lanes would idle"),
                                  cl::cat(Cat));
static cl::opt<bool> NoWideTraces("no-wide-traces",
                                  cl::desc("Never run multi-pixel traces as widened vmac traces "
                                           "with shifted weights (vmacp only)"),
                                  cl::cat(Cat));
static cl::opt<bool> NoCopiedWindows("no-copied-windows",
                                     cl::desc("Never trace two pixels a step from a conv's window "
                                              "and a shifted copy of it in another bank"),
                                     cl::cat(Cat));
static cl::opt<bool> NoBankedReads("no-banked-reads",
                                   cl::desc("Never split a 1x1 conv's maps over two banks to "
                                            "read two pixels a step (vmacp in one bank only)"),
                                   cl::cat(Cat));
static cl::opt<bool> NoSchedule("no-schedule", cl::desc("Run layers in the model's order"),
                                cl::cat(Cat));
static cl::opt<bool> NoBalanceLoads("no-balance-loads",
                                    cl::desc("Issue each step's loads all at once, before the "
                                             "previous step's traces"),
                                    cl::cat(Cat));
static cl::opt<bool> NoEarlyWeights("no-early-weights",
                                    cl::desc("Load a conv's first weights after the maps of the "
                                             "pool before it, not before them"),
                                    cl::cat(Cat));
static cl::opt<bool> NoSpreadWeights(
    "no-spread-weights",
    cl::desc("Load a layer's first weights in the last step of the layer before, not spread "
             "over its steps that keep one weight set"),
    cl::cat(Cat));
static cl::opt<bool> NoDmaLoops("no-dma-loops",
                                cl::desc("Unroll every DMA operation (larger code)"), cl::cat(Cat));
static cl::opt<bool> NoPreciseDeps("no-precise-deps",
                                   cl::desc("Every layer waits for the previous layer's stores"),
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

static cl::opt<bool> NoSharePoolRegions(
    "no-shared-pool-regions",
    cl::desc("Load a pipelined pool's maps into an input region of their own, not into the "
             "banks the conv beside it leaves unused"),
    cl::cat(Cat));
static cl::opt<bool> NoTwoPoolsBeside(
    "no-two-pools-beside",
    cl::desc("Run at most one pool beside a conv (not also a pool of its output beside a conv "
             "that hosts a pool of older layers)"),
    cl::cat(Cat));
static cl::opt<bool> NoPoolsBetweenChunks(
    "no-pools-between-chunks",
    cl::desc("Run a pipelined pool's steps only after the steps of the conv beside it that write "
             "an output group, not between its chunks"),
    cl::cat(Cat));
static cl::opt<bool> NoStartOnRows(
    "no-start-on-rows",
    cl::desc("A layer that reads the conv before it waits for all of that conv's stores, not "
             "only for the rows it reads"),
    cl::cat(Cat));
static cl::opt<bool> NoStartOnChannels(
    "no-start-on-channels",
    cl::desc("A layer that reads some channels of the conv before it waits for the rows of all "
             "its output groups, not only of those channels"),
    cl::cat(Cat));
static cl::opt<bool> NoStartAfterHost(
    "no-start-after-host",
    cl::desc("A conv that reads a pool run beside another conv waits for the pool's last stores, "
             "not only for that conv's"),
    cl::cat(Cat));
static cl::opt<bool> NoFullDepthPairs(
    "no-full-depth-pairs",
    cl::desc("A fused depthwise producer of one group of tiles loads its input chunk by chunk "
             "into the first bank of either input region, not full depth into one region"),
    cl::cat(Cat));
static cl::opt<bool> NoPipelinePools(
    "no-pipeline-pools",
    cl::desc("Run each pooling layer after the conv it reads, not beside it as the conv "
             "stores the rows it reads"),
    cl::cat(Cat));

static cl::opt<bool> NoMixedWindows(
    "no-mixed-windows",
    cl::desc("Give a round of a 1x1 conv computing its depthwise reader's windows only windows "
             "of one padding shape (no zeroing of one CU's padding while the others skip it)"),
    cl::cat(Cat));
static cl::opt<bool> NoClippedWindows(
    "no-clipped-windows",
    cl::desc("In such a round of windows of different padding, have every CU trace its whole "
             "window, padding included, rather than its pixels inside the map"),
    cl::cat(Cat));
static cl::opt<bool> NoPadPixels(
    "no-pad-pixels",
    cl::desc("Store every tensor with a pixel stride of its channels, even where its pixels "
             "are not whole DRAM bursts and layers move it in channel groups"),
    cl::cat(Cat));
static cl::opt<bool> NoBlockedConcats(
    "no-blocked-concats",
    cl::desc("Lay every concat out as one tensor, its inputs' channels side by side in each "
             "pixel, even where their runs start or end inside DRAM bursts"),
    cl::cat(Cat));
static cl::opt<bool> NoFuseConvPools(
    "no-fuse-conv-pools",
    cl::desc("Do not fuse a conv with the pool that alone reads it (the conv stores its "
             "output and the pool loads it)"),
    cl::cat(Cat));
static cl::opt<bool> NoFuseExpansions(
    "no-fuse-expansions",
    cl::desc("Do not fuse a 1x1 conv with the depthwise conv that alone reads it (the 1x1 conv "
             "stores its output and the depthwise conv loads it)"),
    cl::cat(Cat));
static cl::opt<bool> NoFuseBlocks(
    "no-fuse-blocks",
    cl::desc("Do not fuse an inverted residual block's projection with the expansion / "
             "depthwise window pair before it (the depthwise conv stores its output and the "
             "projection loads it)"),
    cl::cat(Cat));
static cl::opt<bool> ForceBlockTriples(
    "force-block-triples",
    cl::desc("Take every block triple that fits, whatever the cost model says (for tests)"),
    cl::Hidden, cl::cat(Cat));
static cl::opt<bool> NoHostBlockPools(
    "no-host-block-pools",
    cl::desc("Do not have a depthwise conv average its output in blocks for the average pool "
             "that reads it (the pool loads the map back)"),
    cl::cat(Cat));
static cl::opt<bool> NoPinPairWeights(
    "no-pin-pair-weights",
    cl::desc("Load a fused depthwise / 1x1 pair's weights for each group of tiles and output "
             "group, even where they all fit the weights buffer at once"),
    cl::cat(Cat));
static cl::opt<bool> NoDwPixelPairs(
    "no-dw-pixel-pairs",
    cl::desc("Trace one pixel an entry in a depthwise conv of half an output group's channels "
             "or fewer (half its lanes idle)"),
    cl::cat(Cat));
static cl::opt<bool> NoEvenRows(
    "no-even-rows",
    cl::desc("Tile rows in blocks of the tile's height and a shorter last one, never in blocks "
             "of even sizes"),
    cl::cat(Cat));
static cl::opt<bool> NoChunkBanks(
    "no-chunk-banks",
    cl::desc("Interleave a full-depth depthwise producer's chunks in every pixel of its region "
             "(its traces wait for all of them)"),
    cl::cat(Cat));
static cl::opt<bool> NoSpreadMapLoads(
    "no-spread-map-loads",
    cl::desc("Load a conv step's new maps one step ahead, not tile by tile over the steps "
             "since its input region was freed"),
    cl::cat(Cat));
static cl::opt<bool> NoSpreadGroupLoads(
    "no-spread-group-loads",
    cl::desc("Load a full-depth fused producer's next group of tiles at once, two steps ahead"),
    cl::cat(Cat));
static cl::opt<bool> NoFuseDense(
    "no-fuse-dense",
    cl::desc("Do not fuse a dense 1x1 conv with the 1x1 convs right after it (the producer "
             "stores its output and writes it on chip for them)"),
    cl::cat(Cat));
static cl::opt<bool> NoFuseConcats(
    "no-fuse-concats",
    cl::desc("Store the convs a concat joins and read the concat back, never computing them "
             "on chip for the 1x1 convs that read it"),
    cl::cat(Cat));
static cl::opt<bool> NoFourBankAreas(
    "no-four-bank-areas",
    cl::desc("Read a concat pair's area at most two pixels a step from two banks, never four "
             "from four banks across both input regions"),
    cl::cat(Cat));
static cl::opt<bool> NoSplitTriples(
    "no-split-triples",
    cl::desc("Never run a block triple of a one-tile map on every CU at once (its projection's "
             "input channels split over the CUs)"),
    cl::cat(Cat));
static cl::opt<bool> NoLargeTripleTiles(
    "no-large-triple-tiles",
    cl::desc("Keep a block triple's projection tile in half the accumulators (its windows then "
             "overlap more)"),
    cl::cat(Cat));
static cl::opt<bool> NoWholeMapWindows(
    "no-whole-map-windows",
    cl::desc("Never give a window pair's producer a whole input region for a whole-map window "
             "that does not fit one bank (its expansion then stores its output for the "
             "depthwise conv)"),
    cl::cat(Cat));
static cl::opt<bool> NoColocatedWeights(
    "no-colocated-weights",
    cl::desc("Load a window pair's depthwise reader's weights into the weights bank its "
             "producer does not use, never beside the producer's in one bank"),
    cl::cat(Cat));
static cl::opt<bool> NoWeightRiders(
    "no-weight-riders",
    cl::desc("Load a depthwise conv's weights into a bank of their own, never with the load of "
             "the conv step before it"),
    cl::cat(Cat));
static cl::opt<bool> NoFlatPointwise(
    "no-flat-pointwise",
    cl::desc("Plan every 1x1 conv on its map's rows, never on the map as one row of pixels"),
    cl::cat(Cat));
static cl::opt<bool> NoBesidePairs(
    "no-beside-pairs",
    cl::desc("Never run a pool beside a conv fused with the 1x1 convs that read it: the pool "
             "stores its output and they load it after the conv"),
    cl::cat(Cat));
static cl::opt<bool> NoFuseDepthwise(
    "no-fuse-depthwise",
    cl::desc("Run each depthwise conv or pool and the 1x1 convs that read it as separate "
             "layers through DRAM, never fused on chip"),
    cl::cat(Cat));

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
  Opts.DoubleBuffer = !NoDoubleBuffer;
  Opts.LoopReorder = !NoLoopReorder;
  Opts.FullDepthMaps = !NoFullDepth;
  Opts.PrefetchWindows = !NoPrefetchWindows;
  Opts.RemainderTiles = !NoRemainderTiles;
  Opts.GatherStrided = !NoGather;
  Opts.PreciseLayerDeps = !NoPreciseDeps;
  Opts.SplitChannels = !NoSplit;
  Opts.BalanceRounds = !NoBalance;
  Opts.MultiPixel = !NoMultiPixel;
  Opts.WideTraces = !NoWideTraces;
  Opts.BankedReads = !NoBankedReads;
  Opts.CopiedWindows = !NoCopiedWindows;
  Opts.GroupedVdw = !NoGroupedVdw;
  Opts.ScheduleLayers = !NoSchedule;
  Opts.BalanceLoads = !NoBalanceLoads;
  Opts.EarlyWeights = !NoEarlyWeights;
  Opts.SpreadWeights = !NoSpreadWeights;
  Opts.DmaLoops = !NoDmaLoops;
  if (Batch == 0)
    return fail("--batch must be at least 1");
  Opts.Batch = Batch;
  Opts.PipelinePools = !NoPipelinePools;
  Opts.SharePoolRegions = !NoSharePoolRegions;
  Opts.TwoPoolsBeside = !NoTwoPoolsBeside;
  Opts.PoolsBetweenChunks = !NoPoolsBetweenChunks;
  Opts.StartOnRows = !NoStartOnRows;
  Opts.StartOnChannels = !NoStartOnChannels;
  Opts.StartAfterHost = !NoStartAfterHost;
  Opts.FullDepthPairs = !NoFullDepthPairs;
  Opts.FuseDepthwise = !NoFuseDepthwise;
  Opts.BesidePairs = !NoBesidePairs;
  Opts.FuseDense = !NoFuseDense;
  Opts.FuseConvPools = !NoFuseConvPools;
  Opts.FuseExpansions = !NoFuseExpansions;
  Opts.FuseBlocks = !NoFuseBlocks;
  Opts.FuseConcats = !NoFuseConcats;
  Opts.FourBankAreas = !NoFourBankAreas;
  Opts.LargeTripleTiles = !NoLargeTripleTiles;
  Opts.SplitTriples = !NoSplitTriples;
  Opts.WholeMapWindows = !NoWholeMapWindows;
  Opts.ColocatedWeights = !NoColocatedWeights;
  Opts.WeightRiders = !NoWeightRiders;
  Opts.FlatPointwise = !NoFlatPointwise;
  Opts.ForceBlockTriples = ForceBlockTriples;
  Opts.HostBlockPools = !NoHostBlockPools;
  Opts.PinPairWeights = !NoPinPairWeights;
  Opts.DwPixelPairs = !NoDwPixelPairs;
  Opts.EvenRows = !NoEvenRows;
  Opts.ChunkBanks = !NoChunkBanks;
  Opts.SpreadGroupLoads = !NoSpreadGroupLoads;
  Opts.SpreadMapLoads = !NoSpreadMapLoads;
  Opts.PadPixels = !NoPadPixels;
  Opts.BlockedConcats = !NoBlockedConcats;
  Opts.MixedWindows = !NoMixedWindows;
  Opts.ClippedWindows = !NoClippedWindows;
  for (const std::string &Spec : LayerOffArgs)
    if (auto Err = compiler::addLayerOff(Spec, Opts))
      return fail(llvm::toString(std::move(Err)));
  // A member kept apart renames its merged conv: the names are checked
  // once the graph is as compiled (below).
  if (!compiler::keepsApart(Opts))
    if (auto Err = compiler::checkLayerOff(*G, Opts))
      return fail(llvm::toString(std::move(Err)));
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
