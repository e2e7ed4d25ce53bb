//===- Schedule.h - The order in which layers run ------------------*- C++ -*-===//
//
// The machine runs one layer after another, and a layer's first maps cannot
// load before the layers it reads have stored their outputs. Run right after
// its producer, a layer waits for that producer's last stores and then for
// its own first load; run later, the wait is hidden behind the layers in
// between. Inception branches and residual blocks leave room to choose: the
// scheduler is a list scheduler over the layer graph that prefers the ready
// layer whose inputs were finished longest ago, and on a tie the one that
// starts the longest remaining chain.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_SCHEDULE_H
#define SNOW_COMPILER_SCHEDULE_H

#include "snow/ir/Graph.h"
#include <cstdint>
#include <vector>

namespace snow::compiler {

/// A topological order of G's layers. Cycles[i] is layer i's estimated run
/// time (0 for layers without code, such as concat views). A layer with
/// Late[i] (CompileOptions::LayerTweak::Late; none if empty) runs only when
/// no other layer is ready.
std::vector<unsigned> scheduleLayers(const ir::Graph &G, const std::vector<uint64_t> &Cycles,
                                     const std::vector<bool> &Late = {});

} // namespace snow::compiler

#endif
