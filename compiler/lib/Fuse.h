//===- Fuse.h - Depthwise convs fused into the 1x1 convs they feed -*- C++ -*-===//
//
// Internal to snow_compiler. See Fuse.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_FUSE_H
#define SNOW_COMPILER_FUSE_H

#include "Plan.h"

namespace snow::compiler {

/// Replaces each depthwise plan followed in program order by the 1x1 conv
/// that alone reads it with a fused pair (LayerPlan::ToMid, FromMid), where
/// the cost model says the pair is cheaper fused than apart.
void fuseDepthwise(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                   const CompileOptions &Opts, std::vector<LayerPlan> &Plans);

} // namespace snow::compiler

#endif
