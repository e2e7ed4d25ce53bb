//===- Compiler.h - Lowering a model graph to a prog.bin ------------*- C++ -*-===//
//
// The snowc pipeline: check the graph against the hardware, plan DRAM (weights
// packed in the order they are loaded, one tensor per layer output), break each
// layer into buffer-sized tiles over CUs, vMACs and lanes, choose the tile loop
// order from its DRAM traffic, and emit control code in which loads of the next
// tile overlap compute on this one (double buffering with semaphores).
// docs/compiler.md walks through each stage.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_COMPILER_H
#define SNOW_COMPILER_COMPILER_H

#include "snow/ir/Graph.h"
#include "snow/isa/HwConfig.h"
#include "snow/isa/Program.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace snow::compiler {

/// Layer plans kept across compiles of one graph for one hardware
/// (Plan.cpp: planLayer), which tune() makes: its candidates differ in a
/// layer or two, so most layers' plans are those of the compile before.
struct PlanCache;
/// An empty PlanCache, how many layers' plans one holds, and how many
/// window pairs (FuseWindows.cpp), fused pairs (Fuse.cpp) and block triples
/// (FuseBlocks.cpp) weighed.
std::shared_ptr<PlanCache> newPlanCache();
size_t cachedPlans(const PlanCache &C);
size_t cachedWindowPairs(const PlanCache &C);
size_t cachedFusedPairs(const PlanCache &C);
size_t cachedBlockTriples(const PlanCache &C);

struct CompileOptions {
  /// Overlap loads with compute (prefetch the next tile into the other bank).
  bool DoubleBuffer = true;
  /// Choose kernel- or map-stationary tile order per layer by DRAM traffic;
  /// when off, always kernel-stationary (output-channel groups outermost).
  bool LoopReorder = true;
  /// Let one-pixel-wide kernels keep all input channels of a tile on chip
  /// across weight chunks (LayerPlan::FullDepth): a 1x1 conv on a map that
  /// is one tile then loads its maps once, not once a round (ResNet-50's
  /// 512 -> 2048 convs on 7x7: 2.88 -> 2.53 MB of DRAM traffic each).
  bool FullDepthMaps = true;
  /// Plan each conv again, once the layer order is known, where its first
  /// weights take the channel longer than the layer before's last step,
  /// under which they load (Replan.cpp); when off, the planner counts
  /// every layer's first weights as prefetched.
  bool PrefetchWindows = true;
  /// 1x1 strided convs without padding load only the pixels they read.
  bool GatherStrided = true;
  /// A layer waits only for the stores of the layers it reads (and may
  /// prefetch its first maps while the previous layer computes); when off,
  /// every layer waits for the previous layer's stores.
  bool PreciseLayerDeps = true;
  /// Let the planner spread output-channel groups over CUs (one shared tile,
  /// or different tiles and groups in one round) where that balances better
  /// than spreading tiles.
  bool SplitChannels = true;
  /// Let the planner pack rounds by tile size, so that edge tiles share
  /// rounds with each other rather than with whole tiles.
  bool BalanceRounds = true;
  /// Let a conv whose output groups do not fill whole rounds of CUs run in
  /// two parts: the groups of whole rounds, then the rest on smaller tiles
  /// that give every CU of their rounds an item.
  bool RemainderTiles = true;
  /// Let convolutions with few output channels (or a remainder of channels
  /// beyond whole output groups) use multi-pixel traces (vmacp), where the
  /// vMACs of a CU compute different pixels instead of leaving lanes idle.
  bool MultiPixel = true;
  /// Let multi-pixel traces run on plain vmac with widened windows and
  /// shifted weights (LayerPlan::Wide) where vmacp steps are slow: machines
  /// with fewer maps read ports than pixels a trace computes.
  bool WideTraces = true;
  /// Let 1x1 convs of at most half an output group's channels read two
  /// pixels a step from two maps banks (LayerPlan::Banked), where each bank
  /// has its own read port (maps_ports_per_bank).
  bool BankedReads = true;
  /// Let a conv of half an output group's channels whose kernel is wider
  /// than its stride (a 32-channel stem, a 5x5 branch) trace two pixels a
  /// step from its window and a copy of it shifted one output column, in
  /// two maps banks (LayerPlan::CopyBanks), where each bank has its own
  /// read port.
  bool CopiedWindows = true;
  /// Let grouped convolutions whose groups have as many input as output
  /// channels run per group on depthwise traces (vdw, one pass per channel
  /// shift within a group) where that is cheaper than a dense conv with
  /// zero cross-group weights.
  bool GroupedVdw = true;
  /// Reorder independent layers (inception branches, residual shortcuts) so
  /// that a layer runs as long after the layers it reads as the graph allows
  /// (Schedule.h); when off, layers run in the model's order.
  bool ScheduleLayers = true;
  /// Memory-access balancing: when a step's loads would fill more than half
  /// the load queue, issue the rest half way through the previous step's
  /// traces instead of all before them (Lower.cpp, emitProgram).
  bool BalanceLoads = true;
  /// At a layer boundary through layers without weights (conv, pool, conv),
  /// load the next conv's first weights beside the last step of the layer
  /// before, not behind the pool's maps (emitProgram).
  bool EarlyWeights = true;
  /// Spread a layer's first weights over the steps of the layer before
  /// that keep one weight set (its other bank stays free), not all in its
  /// last step's prefetch (emitProgram).
  bool SpreadWeights = true;
  /// Load a layer's first weights at the top of their bank, above the
  /// blocks the layer before puts there, over that layer's steps, where
  /// its last step would leave them exposed (TopWeights.cpp).
  bool TopWeights = true;
  /// A fused 1x1 conv's step that stores into several slices, its next
  /// step its producer's, emits its stores after that step's compute
  /// (emitProgram).
  bool DeferPieceStores = true;
  /// Hardware loops for code size: a run of DMA operations whose addresses
  /// advance by constant steps (a region's rows, a tile's rows) becomes a
  /// control-core loop instead of one operation after another.
  bool DmaLoops = true;
  /// Plan each distinct layer geometry once and give layers of the same
  /// geometry copies of that plan (the same plan a search of their own would
  /// find: tests/e2e/PlanReuseTest.cpp); off only to check exactly that.
  bool ReusePlans = true;
  /// Frames per program run (snowc --batch; docs/batch.md): the input and
  /// every tensor hold Batch frames one after another; fc-like layers run
  /// once over the stacked frames (each weight tile serves every frame),
  /// other layers plan the batch's tiles as one layer's.
  unsigned Batch = 1;
  /// Run a pooling layer's steps beside the conv whose output it reads,
  /// each once the rows it reads are stored (a semaphore counts them), or
  /// beside a later conv of its block when its input is complete, so that
  /// the pool's DRAM traffic hides under the conv's traces (Sequence.cpp;
  /// docs/compiler.md, step 9a). The layer order puts such pools right
  /// after their conv where the conv leaves the DRAM channel idle long
  /// enough (PipelinePools.cpp: pipelineOrder).
  bool PipelinePools = true;
  /// A pool step between two steps of the conv it runs beside loads into
  /// the banks of the conv's input region that the conv leaves unused, not
  /// into the other region, where the conv's next step would otherwise
  /// have to wait for its own maps (Sequence.cpp: Step::SharesRegion).
  bool SharePoolRegions = true;
  /// A conv beside which a pool that does not read it runs (an inception
  /// block's branch pool) may host a second pool, one that reads it (the
  /// part of the next max pool that pools its output; PipelinePools.cpp).
  bool TwoPoolsBeside = true;
  /// Pool steps beside a conv may go between the steps of its output
  /// groups' chunks, not only after the steps that write an output group,
  /// where those are fewer than the pool steps (RowSignals.cpp:
  /// poolPlaces).
  bool PoolsBetweenChunks = true;
  /// A conv or pool that reads only the conv planned just before it starts
  /// on the rows that conv has stored (RowsDone, as a pipelined pool), not
  /// after its last stores: its first maps load while that conv's last step
  /// computes (RowSignals.cpp: startOnRows).
  bool StartOnRows = true;
  /// A step of that conv or pool (or of a pool beside a conv) that reads
  /// some channels waits only for the steps storing those channels of its
  /// rows, not for every output group's (a chunk of a depthwise conv after
  /// a 1x1 conv whose output groups are outermost loads once that group is
  /// stored); a fused depthwise producer then runs its chunks first first.
  /// The DRAM ordering rule compares bytes, so a load of some channels of
  /// pixels beside a store of others is no hazard (RowSignals.cpp: readyAt).
  bool StartOnChannels = true;
  /// A conv that reads a pool which ran beside another conv starts on the
  /// rows the pool stored before that conv's last step: its steps reading
  /// only those wait for that conv's LayerDone, not the pool's, so its
  /// first maps load while the pool's last steps run (RowSignals.cpp:
  /// startAfterHost).
  bool StartAfterHost = true;
  /// A fused pair of one group of tiles loads its depthwise producer's
  /// input full depth into one input region, chunk by chunk as the layer
  /// before stores each, and keeps its area in the other (Fuse.cpp).
  bool FullDepthPairs = true;
  /// Fuse a depthwise conv or a pool with the 1x1 convs that alone read
  /// it: its output tile stays on chip (written back into the maps buffer
  /// at the 1x1 convs' full depth), where the 1x1 convs' traces read it, so
  /// no layer moves it through DRAM (Fuse.cpp; docs/compiler.md, step 9b).
  /// Where the cost model says it pays.
  bool FuseDepthwise = true;
  /// Let a dense 1x1 conv be a fused pair's producer too (Fuse.cpp): its
  /// output groups are stored and also written into the area, which the
  /// 1x1 convs right after it read (LayerPlan::StoresToo). Needs
  /// FuseDepthwise.
  bool FuseDense = true;
  /// Fuse a dense conv with the pool that alone reads it: each CU computes
  /// the conv over a pool tile's input window (overlapping windows twice)
  /// into the maps buffer, where the pool reads it, so the conv's output
  /// never crosses DRAM (FuseWindows.cpp; docs/compiler.md, step 9c). Where
  /// the cost model says it pays.
  bool FuseConvPools = true;
  /// Fuse a 1x1 conv (an inverted residual block's expansion) with the
  /// depthwise conv that alone reads it: each round, every CU computes one
  /// of the expansion's output groups over the depthwise conv's input
  /// window of one tile (overlapping windows twice; the padding written
  /// with zeros) into the area, where the depthwise conv reads it, so the
  /// expanded map never crosses DRAM (FuseWindows.cpp; docs/compiler.md, step
  /// 9d). Any dense conv of one channel chunk may be the producer (a
  /// network's stem). Where the cost model says it pays.
  bool FuseExpansions = true;
  /// Fuse a whole inverted residual block where its expansion would compute
  /// its depthwise conv's windows (FuseExpansions) and a 1x1 conv alone
  /// reads the depthwise output: that conv (the projection) reads each
  /// output group of the depthwise conv on chip as a channel chunk, right
  /// after it, accumulating over the chunks in accumulator entries the
  /// other two leave alone, so neither the expanded map nor the depthwise
  /// output crosses DRAM (FuseBlocks.cpp; docs/compiler.md, step 9f). Where
  /// the cost model says it pays.
  bool FuseBlocks = true;
  /// Fuse the convs a concat joins with the 1x1 convs that alone read the
  /// concat (SqueezeNet's fire modules: a 1x1 and a 3x3 expand, then the
  /// next squeeze): per group of tiles each conv writes its channels of
  /// the concat into the area, where the 1x1 convs read them, so the
  /// concat never crosses DRAM (FuseConcat.cpp; docs/compiler.md, step
  /// 9g). Where the cost model says it pays.
  bool FuseConcats = true;
  /// Let the 1x1 readers of a concat pair's or a block triple's area with
  /// few output channels (a 16-channel squeeze) trace four pixels a step
  /// from an area of four banks, which straddles both input regions, so
  /// the layer after the fusion loads its maps only once the readers are
  /// done (FuseConcat.cpp, FuseBlocks.cpp; docs/compiler.md, step 9h).
  bool FourBankAreas = true;
  /// Let a block triple that pays with its projection's tile in half the
  /// accumulators take tiles in as many as the producer's bands leave: less
  /// of each window is computed twice (FuseBlocks.cpp; docs/compiler.md,
  /// step 9f).
  bool LargeTripleTiles = true;
  /// Let a block triple of a map small enough for one tile (7x7) run on
  /// every CU at once, its expansion's output groups side by side, the
  /// depthwise outputs kept in the area and the projection's input
  /// channels split over the CUs, added by the writeback across CUs
  /// (cu_sum_writeback; FuseBlocks.cpp: bestSplitTriple; docs/compiler.md,
  /// step 9f).
  bool SplitTriples = true;
  /// Let a window pair of one tile, the whole map (its CUs taking the
  /// producer's output groups side by side), lay the producer's input out
  /// in a whole input region, its area in the other, where the window with
  /// its padding does not fit the one bank a producer's input has
  /// otherwise: EfficientNet-B0's 14x14 expansions for their 5x5
  /// depthwise convs (FuseWindows.cpp; docs/compiler.md, step 9d).
  bool WholeMapWindows = true;
  /// Let a window pair's producer load its depthwise reader's weights for
  /// the round with its own, into one weights bank, where both fit: the
  /// next round's pair then loads into the other bank under both steps,
  /// not under the reader's short step only (Sequence.cpp,
  /// LayerPlan::CoWeights; docs/compiler.md, step 9d).
  bool ColocatedWeights = true;
  /// Let a plain depthwise conv's weight blocks ride with the load of the
  /// step just before it (another conv's last, in the bank that step
  /// loaded), where they fit there: the conv after the depthwise conv then
  /// loads into the other bank under both, not once that step is done
  /// (Sequence.cpp, Step::Riders; docs/compiler.md, step 8). Decided after
  /// planning: plans do not read it.
  bool WeightRiders = true;
  /// Order the output channels of a conv read only through slices so that
  /// its output groups cut the slices where storing them costs fewest DRAM
  /// bursts (ir::alignSlices, run by snowc on the graph before planning: a
  /// slice one group stores moves as one stream, a cut one as a short DMA
  /// row a pixel of each piece; docs/compiler.md, step 11).
  bool AlignSlices = true;
  /// Let a pool that runs beside a conv (PipelinePools) and the 1x1 convs
  /// that alone read it run as a fused pair beside that conv: each group
  /// of tiles' pool step and 1x1 steps between two of the conv's steps,
  /// the pool's output on chip, the 1x1 weights loaded with the conv's
  /// (FuseBeside.cpp; docs/compiler.md, step 9b). Where the cost model
  /// says it pays.
  bool BesidePairs = true;
  /// Let a 1x1 conv that runs alone be planned on its map as one row of
  /// pixels, its tiles runs of them, where that is cheaper: a small map's
  /// pixels then split evenly over the CUs (Replan.cpp: planFlatPointwise;
  /// docs/compiler.md, step 3).
  bool FlatPointwise = true;
  /// Plan every conv that runs alone with its CUs on one tile, each tracing
  /// a share of its input channels, and the writeback adding the CUs' sums
  /// (cu_sum_writeback), where such a plan fits (Replan.cpp: planCuSums;
  /// docs/compiler.md, step 3). Set per layer (LayerTweak::Sum, what
  /// --tune searches), or for all (tests): the cost model's estimates of
  /// these plans are not close enough to choose them by. Of an expansion:
  /// its split triple where one fits (FuseSplitTriple.cpp).
  bool ForceCuSums = false;
  /// Internal (planCuSums sets it on its copy): planLayer weighs those
  /// plans (LayerPlan::Parts), and with ForceCuSums only those.
  bool PartPlans = false;
  /// Take every block triple that fits, whatever the cost model says: for
  /// tests, which exercise the lowering on shapes the planner rarely fuses.
  bool ForceBlockTriples = false;
  /// Where a stride-2 depthwise conv could read its windows in halves
  /// (LayerPlan::Halves), weigh only the plans that do: for tests.
  bool ForceDwHalves = false;
  /// Where a block triple's stride-1 depthwise conv could read its windows
  /// in quarters (LayerPlan::Quarters), weigh only the triples that do: for
  /// tests.
  bool ForceDwQuarters = false;
  /// Have a depthwise conv average its output in blocks for the average
  /// pool that reads it (squeeze-and-excitation's first step,
  /// ir::Layer::PoolBlock), as it writes each tile back: its tiles are whole
  /// blocks, a vavg a block and channel group goes after the writeback, the
  /// means are stored with the tile, and the pool runs no code, so the map
  /// is not read back for its mean (docs/compiler.md, step 9e). A batch's
  /// frames are tiles like any others.
  bool HostBlockPools = true;
  /// Load a fused pair's weights once, where a depthwise producer's and its
  /// one 1x1 reader's all fit the weights buffer: the reader's kernels in
  /// one bank, the rest in the other, kept for the pair, instead of again
  /// for each group of tiles and output group (Sequence.cpp; docs/
  /// compiler.md, step 9).
  bool PinPairWeights = true;
  /// A depthwise conv of at most half an output group's channels and
  /// stride 1 traces two pixels an entry where the cost model says so (its
  /// vMACs past the first half read the next pixel), instead of leaving
  /// half its lanes idle (Plan.cpp: dwPixelPairs; docs/compiler.md, step 4).
  bool DwPixelPairs = true;
  /// A stride-2 depthwise conv whose windows its producer computes (a block
  /// triple's or a window pair's) traces two pixels an entry too where the
  /// cost model says so, the producer writing the windows' even and odd
  /// columns apart (LayerPlan::Halves; docs/compiler.md, step 9f).
  bool DwHalves = true;
  /// A stride-1 depthwise conv whose windows a block triple's copied
  /// producer computes, and whose projection reads four pixels a step from
  /// four banks, traces two pixels an entry where the cost model says so,
  /// the producer writing the windows' columns by x mod 4
  /// (LayerPlan::Quarters; docs/compiler.md, step 9f).
  bool DwQuarters = true;
  /// Row blocks of sizes within one of each other, not R rows each and a
  /// short last block, where the cost model says so on the tile chosen
  /// (LayerPlan::EvenRows; docs/compiler.md, step 3).
  bool EvenRows = true;
  /// A full-depth depthwise producer of one group of tiles lays its chunks
  /// out one after another, bank by bank, and traces a bank's chunks while
  /// the next bank's still load (LayerPlan::PerBank; docs/compiler.md,
  /// step 9b).
  bool ChunkBanks = true;
  /// A full-depth fused producer's next group of tiles loads tile by tile
  /// over the 1x1 steps of the group before, from the first after its
  /// region is free, not at once two steps ahead (EmitProgram.cpp;
  /// docs/compiler.md, step 9b).
  bool SpreadGroupLoads = true;
  /// A conv step's new maps, where its input region is free several steps
  /// earlier (a round's output groups on the maps of the round before),
  /// load tile by tile over those steps, not all one step ahead, where the
  /// channel would leave the compute unit waiting (EmitProgram.cpp).
  bool SpreadMapLoads = true;
  /// A fused 1x1 conv's residual (a block triple's projection's) loads
  /// half way through its group of tiles' steps, where the channel idles,
  /// not one step ahead of its writeback, where it queues the next layer's
  /// first maps behind it (EmitProgram.cpp).
  bool EarlyResiduals = true;
  /// A block triple started on the rows of the triple before it loads its
  /// first windows over that triple's last steps, where the channel idles,
  /// not one step ahead of its own first step (EmitProgram.cpp).
  bool EarlyBlockWindows = true;
  /// A 1x1 conv on the tiles of the conv before it, each CU's the same,
  /// reads that conv's output where its writeback wrote it again, output
  /// group by output group, into the input region of the 1x1 conv's first
  /// step, not through DRAM (FeedNext.cpp).
  bool FeedNext = true;
  /// Give a tensor whose pixels are not a whole number of DRAM bursts a
  /// pixel stride of whole bursts where the layers that move it then move
  /// fewer bursts: each group of channels' DMA row starts on a burst
  /// (Tensors.cpp: placeTensors; docs/compiler.md, step 11).
  bool PadPixels = true;
  /// Lay a concat out input by input, each a tensor of its own channels,
  /// where its inputs' runs of a pixel would start or end inside DRAM
  /// bursts and every layer reading it loads it as a conv's region (ShuffleNet
  /// v2's halves of 29 to 116 channels): the inputs store whole bursts, the
  /// readers load each input's channels from its tensor (Tensors.cpp;
  /// docs/compiler.md, step 11).
  bool BlockedConcats = true;
  /// Let a round of a window pair (a 1x1 conv computing its depthwise
  /// reader's windows, FuseWindows.cpp) give its CUs windows of different
  /// padding, one extent: each traced whole, its padding zeroed by a vwb
  /// that the other CUs skip (docs/compiler.md, step 9d).
  bool MixedWindows = true;
  /// In such a round, have each CU trace only its window's pixels inside
  /// the map (the padding zeroed, not computed), where every CU's window
  /// has room for the round's largest (Round::Clipped).
  bool ClippedWindows = true;
  /// Which of a layer's candidate plans the planner takes: 0 the cheapest
  /// by its estimate, N the N+1-th (or the last, with fewer), in each part
  /// and pixel mode it weighs. Set per layer (LayerTweak::Rank).
  unsigned PlanRank = 0;
  /// Options of single layers (snowc --layer-off, and what snowc --tune
  /// finds; docs/compiler.md, "Tuning"): a layer of the canonical graph, by
  /// name. Where a decision takes two layers (a fused pair, a pool beside a
  /// conv), the producer's or the pool's options decide.
  struct LayerTweak {
    uint32_t Off = 0;  ///< Bits of layerSwitches() turned off.
    unsigned Rank = 0; ///< Its PlanRank.
    /// The layer scheduler runs it only when no other layer is ready
    /// (Schedule.h): after the independent layers it would go before.
    bool Late = false;
    /// A member of a merged conv (canonicalize(), step 8) is computed as a
    /// conv of its own (ir::keepApart; applyApart does it to the graph).
    bool Apart = false;
    /// Its CUs split each tile's input channels (ForceCuSums for it); of
    /// an expansion, its block runs as a split triple where one fits
    /// (FuseSplitTriple.cpp), whatever the estimate.
    bool Sum = false;
    bool operator==(const LayerTweak &) const = default;
  };
  std::map<std::string, LayerTweak> LayerOff;
  /// Set by tune() only: the layers' plans of earlier compiles of the same
  /// graph for the same hardware, looked up by all that planLayer reads.
  std::shared_ptr<PlanCache> Cache;

  /// Whether switch M is on for layer L: on here, and not off for L.
  bool on(const ir::Layer &L, bool CompileOptions::*M) const;
  /// These options as layer L is planned with them: its switches off, its
  /// rank (and no LayerOff of their own).
  CompileOptions forLayer(const ir::Layer &L) const;
  /// forLayer(L) kept in Own where L has options of its own; these
  /// options themselves where it has none (no copy).
  const CompileOptions &forLayer(const ir::Layer &L, std::optional<CompileOptions> &Own) const {
    return tweaked(L) ? Own.emplace(forLayer(L)) : *this;
  }
  /// Whether L has a LayerTweak other than none.
  bool tweaked(const ir::Layer &L) const;
  /// L's LayerTweak as text for a plan's key ("" for none).
  std::string tweakKey(const ir::Layer &L) const;
  /// What of these options planning a layer may read, as text for a key:
  /// every switch, the rank and the batch (not LayerOff, Cache).
  std::string planningKey() const;
};

/// A switch of CompileOptions that may be turned off for one layer: one the
/// planner consults for that layer (Plan.cpp) or for the pair or pool it
/// heads (Fuse.cpp, FuseWindows.cpp, PipelinePools.cpp).
struct LayerSwitch {
  const char *Name; ///< snowc's flag without "no-": "loop-reorder".
  bool CompileOptions::*Member;
};
/// Every such switch; bit K of CompileOptions::LayerOff is element K.
const std::vector<LayerSwitch> &layerSwitches();
/// A planner switch that snowc turns off with --no-NAME.
struct CompileSwitch {
  const char *Name; ///< The flag without "no-": "loop-reorder".
  bool CompileOptions::*Member;
  const char *Help; ///< What the program does without it (snowc --help).
};
/// Every such switch (CompileSwitches.cpp): snowc's flags, planningKey's
/// bits and layerSwitches' names and members come from it.
const std::vector<CompileSwitch> &compileSwitches();
/// Adds "LAYER=switch,switch..." (snowc --layer-off; the layer's name is
/// what precedes the last '='; "rankN" among the switches sets its
/// PlanRank, "late" its Late, "apart" its Apart) to Opts.LayerOff.
llvm::Error addLayerOff(const std::string &Spec, CompileOptions &Opts);
/// Opts.LayerOff as addLayerOff's arguments, one a layer, in name order.
std::vector<std::string> layerOffSpecs(const CompileOptions &Opts);
/// One layer's options as addLayerOff reads them after the '=' ("" for none).
std::string tweakSpec(const CompileOptions::LayerTweak &T);
/// An error naming the first layer of Opts.LayerOff that canonical graph G
/// does not have, or keeps apart and G does not (compile() checks it too).
llvm::Error checkLayerOff(const ir::Graph &G, const CompileOptions &Opts);
/// Makes each member of a merged conv that Opts.LayerOff keeps apart a conv
/// of its own in G (ir::keepApart), before G is compiled with Opts: after
/// quantize(), so that it keeps the merged conv's formats. The error of a
/// layer that is no such member.
llvm::Error applyApart(ir::Graph &G, const CompileOptions &Opts);
/// Whether Opts keeps some member of a merged conv apart.
bool keepsApart(const CompileOptions &Opts);

/// What the planner chose for one part of a layer (a conv is planned whole,
/// or as whole output groups and then the remaining channels) and what its
/// cost model estimated (--emit=plan, --emit=plan-json).
struct PlanPart {
  std::string Layer; ///< The layer's name.
  std::string Name;  ///< The part: the layer's name, or name[lo:hi] of output channels.
  std::string Type;
  unsigned Chunks = 0, ChunkChannels = 0; ///< Input-channel chunks and their size.
  unsigned TileRows = 0, TileCols = 0;    ///< Output tile.
  unsigned Rounds = 0, OutputGroups = 0;
  std::string Order; ///< kernel|maps stationary, then +split +balance +pixN +fulldepth +gather +dw.
  /// A pool placed to run between the steps of a conv (docs/compiler.md,
  /// step 9a): that conv's name.
  std::string Beside;
  uint64_t EstCycles = 0, EstDramBytes = 0;
  /// Planned again for the channel cycles the layer before leaves for its
  /// first weights (docs/compiler.md, step 6, prefetch windows): those
  /// cycles; none where it was planned alone.
  std::optional<uint64_t> PrefetchWindow;
  /// Channels a pixel of the tensor the part writes: its layer's channels,
  /// or more where the tensor is padded to whole DRAM bursts (a concat's
  /// inputs: the concat's; docs/compiler.md, step 11). 0 where it writes
  /// none of its own (a fused producer, a merged conv storing into slices).
  unsigned OutPixelStride = 0;
  /// A conv averaging the blocks of the pool after it (docs/compiler.md,
  /// step 9e): that pool's name and the part of EstCycles its means take
  /// (reported as the pool's, whose cycle span they run in).
  std::string Hosted;
  uint64_t HostedEstCycles = 0;
  /// The layer's own options (CompileOptions::LayerOff, as --layer-off
  /// writes them after the '='): "" for none.
  std::string LayerOff;
};

/// Every layer's plan, before the program order (compile()'s first steps,
/// docs/compiler.md). Plans depend on shapes, the hardware and the options,
/// not on the activation formats, so snowc makes them beside calibration,
/// on a graph that is canonical but not yet quantized.
struct LayerPlans;
using LayerPlansPtr = std::shared_ptr<const LayerPlans>;
/// The plans of G's layers for a program of one frame (Opts.Batch 1);
/// compile() then takes them instead of planning again. G must be canonical
/// and stay where it is (the plans point at its layers); quantizing it in
/// between is what they are for. A layer that cannot be planned gives its
/// error here, as compile() would.
llvm::Expected<LayerPlansPtr> planLayers(const ir::Graph &G, const isa::HwConfig &Hw,
                                         const CompileOptions &Opts);

/// ir::alignSlices for Hw's output groups (vMACs x lanes) and DRAM bursts:
/// what snowc does to a canonical graph before planning where
/// CompileOptions::AlignSlices (tests that compile as snowc does call it
/// too). Returns how many convs it reordered.
unsigned alignSlices(ir::Graph &G, const isa::HwConfig &Hw);

/// Compiles a quantized graph (ir::quantize already applied) for Hw. With
/// Parts, also lists the plan of every part in program order. With
/// DeferredImage, the weight image is not built: the program has only its
/// size (Program::SkippedDataBytes) and *DeferredImage packs it, for
/// isa::writeProgram to fill the output file in place; it reads G's layers,
/// so G must outlive it. With Planned (planLayers of this G, Hw and Opts),
/// the layers are not planned again.
llvm::Expected<isa::Program> compile(const ir::Graph &G, const isa::HwConfig &Hw,
                                     const CompileOptions &Opts = {},
                                     std::vector<PlanPart> *Parts = nullptr,
                                     isa::ImageFill *DeferredImage = nullptr,
                                     const LayerPlans *Planned = nullptr);

/// A one-line-per-layer description of the chosen tiling (for --emit=plan).
std::string describePlan(const ir::Graph &G, const isa::HwConfig &Hw,
                         const CompileOptions &Opts = {});

/// What tune() found and what it took.
struct TuneResult {
  CompileOptions Opts;          ///< The options given, with LayerOff found.
  uint64_t StartCycles = 0;     ///< The program of the options given.
  uint64_t Cycles = 0;          ///< The program of Opts.
  unsigned Compiles = 0;        ///< Programs compiled (including the first).
  unsigned Runs = 0;            ///< Of them, run (the others repeated a program run).
  std::vector<std::string> Log; ///< One line a change kept.
};

/// How tune() searches.
struct TuneSettings {
  /// Passes over the layers at most (a later pass starts from what the
  /// last kept; the search stops after a pass that keeps nothing).
  unsigned Passes = 4;
  /// Called with a line for each change kept.
  std::function<void(const std::string &)> Progress;
};

/// Searches per-layer options (CompileOptions::LayerOff: a switch off, a
/// later-ranked plan, a later place in the layer order, a merged conv's
/// member apart) for a faster
/// program, kept where the timing engine (the simulator's: the cycles
/// snowsim reports) runs the whole program in fewer cycles; Tune.cpp says
/// how. Greedy, deterministic, and never slower than Opts. G as for
/// compile().
llvm::Expected<TuneResult> tune(const ir::Graph &G, const isa::HwConfig &Hw,
                                const CompileOptions &Opts, const TuneSettings &S = {});

} // namespace snow::compiler

#endif
