//===- Replan.h - Layers planned again once their neighbours are known -*- C++ -*-===//
//
// Internal to snow_compiler. See Replan.cpp and docs/compiler.md.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_REPLAN_H
#define SNOW_COMPILER_REPLAN_H

#include "Plan.h"
#include "snow/ir/Graph.h"
#include <cstdint>
#include <vector>

namespace snow::compiler {

/// After fusePairs: each layer planned in parts (LayerPlan::RestTiles) that
/// feeds the fused pair right after it is planned again whole.
void planWholeBeforePairs(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                          const CompileOptions &Opts, const std::vector<unsigned> &Frames,
                          const std::vector<uint64_t> &Penalty, std::vector<LayerPlan> &Plans);

/// In program order: each conv whose first weights take the channel longer
/// than the layer before's last step (the window they load in) is planned
/// again with that window (LayerPlan::PrefetchWindow).
void planPrefetchWindows(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                         const CompileOptions &Opts, const std::vector<unsigned> &Frames,
                         const std::vector<uint64_t> &Penalty, std::vector<LayerPlan> &Plans);

/// Last: each 1x1 conv left to run alone on a map of several rows is
/// planned again on its map as one row (LayerPlan::FlatW), and taken so
/// where that is cheaper.
void planFlatPointwise(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                       const CompileOptions &Opts, const std::vector<unsigned> &Frames,
                       const std::vector<uint64_t> &Penalty, std::vector<LayerPlan> &Plans);

/// After planFlatPointwise: each conv left to run alone (one frame, no
/// residual) is planned again with its CUs splitting each tile's input
/// chunks as well (LayerPlan::Parts, cu_sum_writeback), and taken so where
/// that is cheaper.
void planCuSums(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                const CompileOptions &Opts, const std::vector<unsigned> &Frames,
                const std::vector<uint64_t> &Penalty, std::vector<LayerPlan> &Plans);

} // namespace snow::compiler

#endif
