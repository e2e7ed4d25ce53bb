//===- Batch.h - The batch transforms of a batch-N program ---------*- C++ -*-===//
//
// A batch-N program (docs/batch.md) is planned from a graph in which layers
// whose frames stack run as one layer over N frames of rows and the others
// run N frames each; after planning, layers with run-time weights are copied
// per frame.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_BATCH_H
#define SNOW_COMPILER_BATCH_H

#include "Plan.h"
#include "snow/ir/Graph.h"
#include <cstdint>
#include <vector>

namespace snow::compiler {

/// The graph a batch-N program is planned from, and in Frames the frames
/// each layer's plan runs per frame (see Batch.cpp).
ir::Graph batchGraph(const ir::Graph &G, unsigned N, std::vector<unsigned> &Frames);

/// Copies every plan of a layer with run-time weights once per frame.
void splitDynamicByFrame(std::vector<LayerPlan> &Plans, unsigned N);

} // namespace snow::compiler

#endif
