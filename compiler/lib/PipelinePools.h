//===- PipelinePools.h - Pools placed to run beside their convs ---*- C++ -*-===//
//
// See PipelinePools.cpp and docs/compiler.md, step 9a.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_PIPELINEPOOLS_H
#define SNOW_COMPILER_PIPELINEPOOLS_H

#include "Plan.h"
#include "snow/ir/Graph.h"
#include <cstdint>
#include <vector>

namespace snow::compiler {

/// Moves each whole pooling plan next to the conv it reads, where that conv
/// leaves the DRAM channel idle long enough to hide the pool's traffic,
/// plans it again in steps small enough to hide beside the conv's, and
/// marks it LayerPlan::BesideOf.
void pipelineOrder(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                   const CompileOptions &Opts, std::vector<LayerPlan> &Plans);

/// Per layer: the cycles a conv's plan in two parts (or with rounds packed
/// by tile size, which complete rows and frames only at the end) costs
/// beyond its estimate, because the pool reading it could then not run
/// beside it.
std::vector<uint64_t> splitPenalties(const ir::Graph &G, const isa::HwConfig &Hw,
                                     const BufferMap &B, const CompileOptions &Opts,
                                     const std::vector<unsigned> &Frames,
                                     const std::vector<bool> &SlicedOut);

/// After pipelineOrder: each conv that was planned with a penalty
/// (splitPenalties) but has no pool beside it is planned again without it
/// (the penalty kept it from plans that complete rows late, for nothing).
void dropUnusedPenalties(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                         const CompileOptions &Opts, const std::vector<unsigned> &Frames,
                         const std::vector<uint64_t> &Penalty, std::vector<LayerPlan> &Plans);

} // namespace snow::compiler

#endif
