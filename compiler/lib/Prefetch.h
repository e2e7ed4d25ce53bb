//===- Prefetch.h - Plans that see the layer before's prefetch window -*- C++ -*-===//
//
// See Prefetch.cpp and docs/compiler.md, step 6.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_PREFETCH_H
#define SNOW_COMPILER_PREFETCH_H

#include "Plan.h"
#include "snow/ir/Graph.h"
#include <cstdint>
#include <vector>

namespace snow::compiler {

/// In program order: each conv whose first weights take the channel longer
/// than the layer before's last step (the window they load in) is planned
/// again with that window (LayerPlan::PrefetchWindow).
void planPrefetchWindows(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                         const CompileOptions &Opts, const std::vector<unsigned> &Frames,
                         const std::vector<uint64_t> &Penalty, std::vector<LayerPlan> &Plans);

} // namespace snow::compiler

#endif
