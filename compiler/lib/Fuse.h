//===- Fuse.h - Depthwise convs and pools fused with their 1x1 convs -*- C++ -*-===//
//
// Internal to snow_compiler. See Fuse.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_FUSE_H
#define SNOW_COMPILER_FUSE_H

#include "Plan.h"
#include <functional>
#include <optional>

namespace snow::compiler {

/// How many layers read each layer's output (its inputs and residuals; the
/// graph's output once more, for the host).
std::vector<unsigned> readerCounts(const ir::Graph &G);

/// Whether L's kernel is a dense stride-1 1x1 one without padding: what
/// can read a fused pair's area (Fuse.cpp).
bool pointwise(const ir::Layer &L);

/// The cheapest fused pair (fusePairs) of depthwise conv D, planned alone,
/// and its one reader P, a 1x1 conv, if one fits and D's switches allow
/// it: its estimated cycles, and the bytes its first group of tiles loads
/// as the layer before stores them (RowSignals.cpp: startOnRows), which
/// its estimate takes as loaded under that layer (CostFused.cpp: fusedCost).
struct PairEstimate {
  uint64_t Cycles = 0, FirstLoadBytes = 0;
};
std::optional<PairEstimate> depthwisePairCycles(const LayerPlan &D, const LayerPlan &P,
                                                const isa::HwConfig &Hw, const BufferMap &B,
                                                const CompileOptions &Opts);

/// The 1x1 conv plan Q (the first of its parts) as the consumer of a fused
/// pair: full depth over the area, one output group per G channels, every
/// output channel in one part.
LayerPlan consumerPlan(const LayerPlan &Q, const isa::HwConfig &Hw, const BufferMap &B);

/// The lanes C output channels take in output groups of Gch >> Log
/// channels (2^Log pixels a trace step): C rounded up to whole groups.
inline unsigned laneSlots(unsigned C, unsigned Gch, unsigned Log) {
  const unsigned Og = Gch >> Log;
  return (C + Og - 1) / Og * Og;
}

/// Whether the machine and Opts allow a fused area of four banks, four
/// pixels a step, straddling both input regions (LayerPlan::Straddles):
/// from the first region's second bank to the bank before the second
/// region's last, a producer's maps of the second region in its last
/// bank (a concat pair's, a block triple's, a depthwise / 1x1 pair's).
bool fourBankAreas(const isa::HwConfig &Hw, const BufferMap &B, const CompileOptions &Opts);

/// Consumer plans Ps (consumerPlan) on a fused pair's tiles of R x Wt,
/// reading the area plain (BankLog 0) or banked, 2^BankLog pixels a step
/// from as many banks.
std::vector<LayerPlan> areaReaders(const std::vector<LayerPlan> &Ps, unsigned R, unsigned Wt,
                                   unsigned BankLog, const isa::HwConfig &Hw, const BufferMap &B);

/// A fused pair's plans (its producer, then its 1x1 readers) and their
/// estimate.
struct PairPlans {
  LayerPlan Dn;
  std::vector<LayerPlan> Pn;
  uint64_t Cycles = 0, Bytes = 0;
};
/// The cheapest pair of pool or depthwise conv D and its 1x1 readers Ps
/// (consumerPlan) planned in buffer map B, as fusePairs weighs one (Where
/// names B where it is a part of the machine's: the pairs weighed are
/// recalled by it); none where no tile fits.
std::optional<PairPlans> plainPairPlans(const LayerPlan &D, const std::vector<LayerPlan> &Ps,
                                        const isa::HwConfig &Hw, const BufferMap &B,
                                        const CompileOptions &DOpts, const std::string &Where);
/// Pool D (Plans[K]), beside the conv right before it (PipelinePools.cpp)
/// and the only plan beside it, fused with its 1x1 readers Ps and the pair
/// kept beside that conv (FuseBeside.cpp; docs/compiler.md, step 9b): each
/// group of tiles' pool step and 1x1 steps go between two of the conv's
/// steps, in the banks of its input region past its maps, the readers'
/// weights loaded with the conv's. Cycles: what it costs beside the conv.
struct BesidePair {
  LayerPlan Dn;
  std::vector<LayerPlan> Pn;
  uint64_t Cycles = 0;
};
std::optional<BesidePair> besidePair(const std::vector<LayerPlan> &Plans, size_t K,
                                     const LayerPlan &D, const std::vector<LayerPlan> &Ps,
                                     const isa::HwConfig &Hw, const BufferMap &B,
                                     const CompileOptions &Opts, const CompileOptions &DOpts);
/// Whether plan P is a 1x1 conv that can read a fused area: stride 1, no
/// padding, dense, run-time weights aside, not already half of a pair. A
/// batch's frames are tiles like any other (tiles are numbered frame
/// first): the pair's groups of tiles then run frame after frame, both
/// layers over the same tiles.
bool fusableConsumer(const LayerPlan &P);

/// Whether a fusion estimated at Fused cycles is taken over its layers
/// apart (Apart): by more than 2 %, the estimates' error near a close call
/// (a dense pair, a window pair, a block triple; Fuse.cpp, FuseWindows.cpp
/// and FuseBlocks.cpp say what ran slower without it).
inline bool clearlyCheaper(uint64_t Fused, uint64_t Apart) { return Fused < Apart - Apart / 50; }

/// Replaces each depthwise conv or pool plan whose readers are all 1x1
/// convs planned soon after it with a fused pair (LayerPlan::ToMid,
/// FromMid), where the cost model says the pair is cheaper fused than apart.
/// Whole: the plan of a layer planned in parts (LayerPlan::RestTiles) in
/// one, if it has one; a dense producer in parts is weighed as that.
using WholePlan = std::function<std::optional<LayerPlan>(const LayerPlan &FirstPart)>;
void fusePairs(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
               const CompileOptions &Opts, std::vector<LayerPlan> &Plans,
               const WholePlan &Whole = nullptr);

/// Replaces each dense conv whose output only one pool or depthwise conv
/// reads, planned soon after it, with a window pair (LayerPlan::Window,
/// ReadsWindow; FuseWindows.cpp): the conv computes the reader's input
/// windows on chip, where the cost model says that is cheaper than the two
/// apart (and than the pair the reader could form with its own 1x1 readers).
void fuseWindowPairs(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                     const CompileOptions &Opts, std::vector<LayerPlan> &Plans,
                     const WholePlan &Whole = nullptr);

/// Replaces each inverted residual block (a dense conv of one chunk read
/// only by a depthwise conv read only by a 1x1 conv) with a block triple
/// (LayerPlan::MidOut; FuseBlocks.cpp): the three run together, tile group
/// by tile group, and neither the expanded map nor the depthwise output
/// crosses DRAM, where the cost model says that is cheaper than the three
/// apart. Before the pairs (fuseWindowPairs, fusePairs) take them. Whole:
/// as fusePairs, an expansion planned in parts is weighed in one.
void fuseBlockTriples(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                      const CompileOptions &Opts, std::vector<LayerPlan> &Plans,
                      const WholePlan &Whole = nullptr);

/// Replaces the convs a concat joins (each a dense conv of whole output
/// groups, its own plan, read only by the concat) and the 1x1
/// convs that alone read the concat, planned right after them, with a
/// concat pair (LayerPlan::concatProducer; FuseConcat.cpp): per group of
/// tiles each conv writes its channels of the concat into the area, where
/// the 1x1 convs read them, and the concat never crosses DRAM, where the
/// cost model says that is cheaper than the layers apart.
void fuseConcatPairs(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                     const CompileOptions &Opts, std::vector<LayerPlan> &Plans);

} // namespace snow::compiler

#endif
