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

/// The 1x1 conv plan Q (the first of its parts) as the consumer of a fused
/// pair: full depth over the area, one output group per G channels, every
/// output channel in one part.
LayerPlan consumerPlan(const LayerPlan &Q, const isa::HwConfig &Hw, const BufferMap &B);

/// Whether plan P is a 1x1 conv that can read a fused area: stride 1, no
/// padding, dense, run-time weights aside. A batch's frames are tiles like
/// any other (tiles are numbered frame first): the pair's groups of tiles
/// then run frame after frame, both layers over the same tiles.
bool fusableConsumer(const LayerPlan &P);

/// Replaces each depthwise conv or pool plan whose readers are all 1x1
/// convs planned soon after it with a fused pair (LayerPlan::ToMid,
/// FromMid), where the cost model says the pair is cheaper fused than apart.
/// Whole: the plan of a layer planned in parts (LayerPlan::RestTiles) in
/// one, if it has one; a dense producer in parts is weighed as that.
using WholePlan = std::function<std::optional<LayerPlan>(const LayerPlan &FirstPart)>;
void fusePairs(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
               const CompileOptions &Opts, std::vector<LayerPlan> &Plans,
               const WholePlan &Whole = nullptr);

/// Replaces each dense conv whose output only the pool right after it
/// reads with a fused pair (LayerPlan::Window; FuseWindows.cpp), where the
/// cost model says it is cheaper than the two apart.
void fuseConvPools(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                   const CompileOptions &Opts, std::vector<LayerPlan> &Plans,
                   const WholePlan &Whole = nullptr);

} // namespace snow::compiler

#endif
