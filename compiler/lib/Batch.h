//===- Batch.h - The batch transforms of a batch-N program ---------*- C++ -*-===//
//
// A batch-N program (docs/batch.md) is planned from a graph in which layers
// whose frames stack run as one layer over N frames of rows and the others
// run N frames each; after planning, layers with run-time weights are copied
// per frame and pools move next to the conv they read so that they run
// frame-pipelined beside it (Sequence.cpp).
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

/// Moves each whole pooling plan of a batch next to the conv it reads.
void pipelineOrder(const ir::Graph &G, std::vector<LayerPlan> &Plans);

/// Per layer: the cycles a conv's plan in two parts (or with rounds that
/// finish frames only at the end) costs beyond its estimate, because the
/// pool reading it could then not pipeline beside it.
std::vector<uint64_t> splitPenalties(const ir::Graph &G, const isa::HwConfig &Hw,
                                     const BufferMap &B, const CompileOptions &Opts,
                                     const std::vector<unsigned> &Frames,
                                     const std::vector<bool> &SlicedOut);

} // namespace snow::compiler

#endif
