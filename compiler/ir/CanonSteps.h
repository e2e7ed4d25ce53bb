//===- CanonSteps.h - What canonicalize()'s steps share ----------*- C++ -*-===//
//
// Private to compiler/ir: defined in Canonicalize.cpp, used by the steps that
// live in files of their own (PoolConcats.cpp, FoldSelections.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_CANONSTEPS_H
#define SNOW_IR_CANONSTEPS_H

#include "snow/ir/Graph.h"

namespace snow::ir::detail {

/// How many times each layer's output is read: as an input, as a residual,
/// and once more for the last layer, which the host reads.
std::vector<unsigned> useCounts(const Graph &G);

/// Marks a layer that stays in eraseLayers()'s replacement list.
constexpr int Keep = -2;

/// Removes every layer I with Replace[I] != Keep; whoever read I reads
/// Replace[I] instead (an earlier layer or -1, resolved transitively).
void eraseLayers(Graph &G, const std::vector<int> &Replace);

} // namespace snow::ir::detail

#endif
