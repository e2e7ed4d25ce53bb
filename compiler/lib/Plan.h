//===- Plan.h - The planner's interface ----------------------------*- C++ -*-===//
//
// The workload breakdown of one layer (its types: LayerPlan.h): which
// input-channel chunk and output tile each CU works on, and in which order
// tiles, channel chunks and output-channel groups are visited. The planner
// (Plan.cpp) chooses it with a small cost model; the lowering (Lower.cpp)
// turns it into code.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_PLAN_H
#define SNOW_COMPILER_PLAN_H

#include "LayerPlan.h"
#include <algorithm>
#include <string>
#include <vector>

namespace snow::compiler {

/// Whether depthwise conv L may trace two pixels an entry (LayerPlan::PixLog
/// 1 on vdw): at most half an output group's channels, a pixel stride of
/// half a group in its region (vdw's vMAC v reads v x lanes past the
/// entry's address: the vMACs past the first half then read the next
/// pixel's channels), stride 1 (the next pixel's window one pixel over).
/// Chunked: the region holds one chunk of half a group's channels a pixel
/// (a window producer's output group), whatever L's channels.
bool dwPixelPairs(const ir::Layer &L, const isa::HwConfig &Hw, const CompileOptions &Opts,
                  bool Chunked = false);

/// Whether depthwise conv L, of stride 2, may trace two pixels an entry
/// from windows its producer writes in halves, their even columns then
/// their odd ones (LayerPlan::Halves: its vMACs past the first half then
/// read two columns over), a window producer's chunks of half a group's
/// channels a pixel.
bool dwHalves(const ir::Layer &L, const isa::HwConfig &Hw, const CompileOptions &Opts);
/// Whether its output tiles of Wt columns may read halves: at least four
/// (or the map's width). Narrower, a window row's halves are mostly
/// rounding (a 2-column tile's 5 window columns take 8 pixels of area) and
/// the tile's rows store a burst each: ShuffleNet v2 on big1024 took 7x2
/// tiles for a unit's branch and ran 5.6 k cycles slower, its store queue
/// full, which the cost model does not see.
inline bool halvesTileFits(const ir::Layer &L, unsigned Wt) { return Wt >= 4 || Wt >= L.Out.W; }
/// Whether depthwise conv L, of stride 1 and a kernel at most five columns
/// wide, may trace two pixels an entry, x and x + 4, for a projection that
/// reads four pixels a step from four banks, from windows its producer
/// writes in quarters (LayerPlan::Quarters: its vMACs past the first half
/// then read four columns over).
bool dwQuarters(const ir::Layer &L, const isa::HwConfig &Hw, const CompileOptions &Opts);
/// Whether its output tiles of Wt columns may read quarters: whole entries
/// of eight columns (x mod 8 < 4 and x + 4) in each bank's share.
inline bool quartersTileFits(unsigned Wt) { return Wt % 8 == 0; }

/// The candidates CompileOptions::PlanRank chooses among (the last kept is
/// taken): Kept holds the Keep best so far, best first. A new candidate goes
/// before the first kept one it is Ahead of (a predicate on that one), and
/// is made (Make) only where it is kept.
template <class T, class AheadOf, class MakeFn>
void keepRanked(std::vector<T> &Kept, size_t Keep, AheadOf Ahead, MakeFn Make) {
  auto At = std::find_if(Kept.begin(), Kept.end(), Ahead);
  if (Kept.size() >= Keep && At == Kept.end())
    return;
  Kept.insert(At, Make());
  if (Kept.size() > Keep)
    Kept.pop_back();
}

/// Chooses chunks, tile shape, loop order and trace mode for layer L: one
/// plan, or two parts over its output channels.
/// OutIsSlice: L's output goes into a concat's tensor, or into slices' tensors.
/// Frames: the frames of a batch the layer runs per frame (1 otherwise).
/// SplitPenalty: cycles a plan in two parts, or with rounds that complete
/// rows only at the end (Packing::Balanced), costs beyond its estimate: a
/// pooling layer runs beside a whole conv only, as its rows are stored
/// (PipelinePools.cpp).
/// PrefetchWindow: LayerPlan::PrefetchWindow of the first part.
llvm::Expected<std::vector<LayerPlan>> planLayer(const ir::Layer &L, unsigned Index,
                                                 bool OutIsSlice, const isa::HwConfig &Hw,
                                                 const BufferMap &B, const CompileOptions &Opts,
                                                 unsigned Frames = 1, uint64_t SplitPenalty = 0,
                                                 uint64_t PrefetchWindow = UINT64_MAX);

/// Pooling plan Pool again, with at least MinSteps steps (rounds x channel
/// chunks) if some tile shape has them: a pool beside a conv loads one
/// step's maps during one of the conv's steps, so its steps must be small
/// enough to hide there (PipelinePools.cpp).
llvm::Expected<LayerPlan> planPoolBeside(const LayerPlan &Pool, const isa::HwConfig &Hw,
                                         const BufferMap &B, const CompileOptions &Opts,
                                         unsigned MinSteps);

/// Which layers write channel slices of other tensors: a concat's inputs
/// (into the concat's tensor) and convs read through slices (into the
/// slices' tensors: LayerPlan::Pieces). planLayer's OutIsSlice.
std::vector<bool> slicedOutputs(const ir::Graph &G);

/// The end of the run of plans of Plans[K]'s layer (its parts) from K on.
inline size_t layerEnd(const std::vector<LayerPlan> &Plans, size_t K) {
  size_t End = K;
  while (End < Plans.size() && Plans[End].Index == Plans[K].Index)
    ++End;
  return End;
}

/// Plans layers again once the program order is known (Replan.cpp,
/// PipelinePools.cpp), in that order: Again(K, End) sees the plans
/// [K, End) of one layer and may give it new plans, which replace them.
using PlansAgain = std::function<std::optional<std::vector<LayerPlan>>(size_t K, size_t End)>;
void replanLayers(std::vector<LayerPlan> &Plans, const PlansAgain &Again);

/// planLayer for layer I of G, which planned before in other conditions
/// (an error, which none is expected to be, gives no plans).
std::optional<std::vector<LayerPlan>> planAgain(const ir::Graph &G, unsigned I,
                                                const isa::HwConfig &Hw, const BufferMap &B,
                                                const CompileOptions &Opts, unsigned Frames,
                                                uint64_t SplitPenalty = 0,
                                                uint64_t PrefetchWindow = UINT64_MAX);

/// Per layer of G: whether a pool runs beside it (LayerPlan::BesideOf).
std::vector<bool> poolsBeside(const ir::Graph &G, const std::vector<LayerPlan> &Plans);

/// Views are layers without code: a concat's inputs write into its tensor,
/// a slice's input writes into the slice's tensor.
bool isView(const ir::Layer &L);

/// Whether quantize() gives L an activation table (ir::Layer::QLut), asked
/// of the layer as written: plans are made before the formats are chosen
/// (compiler::planLayers), and their reuse key must tell such layers apart.
inline bool hasActivationTable(const ir::Layer &L) {
  return (L.Kind == ir::LayerKind::Conv || L.Kind == ir::LayerKind::Fc) &&
         L.Activation != ir::Act::None;
}

/// The side of the blocks conv L averages for the pool it hosts
/// (ir::Layer::PoolBlock; CompileOptions::HostBlockPools), 0: none.
inline unsigned hostBlock(const ir::Layer &L, const CompileOptions &Opts) {
  return Opts.HostBlockPools ? L.PoolBlock : 0;
}
/// Whether L is a pool its producer computes (hostBlock), which runs no code.
inline bool hostedPool(const ir::Layer &L, const CompileOptions &Opts) {
  return Opts.HostBlockPools && L.PoolHost >= 0;
}

/// The report form of a part's plan (--emit=plan, --emit=plan-json); G:
/// the graph it was planned on. A pool beside a conv (LayerPlan::BesideOf)
/// reports what it costs there, its windows (besideCost): its loads run
/// under the conv's steps, and its planned EstCycles, the pool alone, is
/// what the planner weighed the move against.
PlanPart describePart(const LayerPlan &P, const ir::Graph &G, const isa::HwConfig &Hw);

} // namespace snow::compiler

#endif
