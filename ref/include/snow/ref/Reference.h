//===- Reference.h - The reference executor: plain loops over the IR -*- C++ -*-===//
//
// Runs a quantized graph the slow, obvious way, straight from the contract in
// docs/fixed-point.md: one accumulator per output, every tap added, then the
// writeback rule. It is the oracle the bit-exact tests of the compiler,
// simulator and RTL compare against, so it deliberately shares no lowering or
// simulation code with them; an error copied into both sides would be invisible.
//
// runFloat executes the same network with the unquantized weights, which is
// what the quantization report (ErrorStats.h) measures the fixed path against.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_REF_REFERENCE_H
#define SNOW_REF_REFERENCE_H

#include "snow/ir/Graph.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <vector>

namespace snow::ref {

/// PyTorch's output size along one axis (docs/fixed-point.md, "Output sizes"):
/// floor or, with CeilMode, ceil of (In + PadBegin + PadEnd - K) / S, plus one,
/// dropping a last window that would start in the end padding. Returns 0 when
/// the padded input is smaller than the window.
unsigned windowOutputSize(unsigned In, unsigned K, unsigned S, unsigned PadBegin, unsigned PadEnd,
                          bool CeilMode);

/// Checks everything the executors rely on, so a bad graph is a user error
/// instead of an out-of-bounds read: topological inputs, shapes chained between
/// layers and matching the output-size rule, weight and bias counts, fixed-point
/// formats chained between layers and shifts that are never negative. Empty
/// QBias / Bias mean "no bias"; empty Weights are allowed (runFloat then
/// refuses the graph). Messages name the layer and its source location.
llvm::Error verifyGraph(const ir::Graph &G);

/// Runs the quantized network bit-exactly per docs/fixed-point.md.
/// InputChw holds G.Input.elems() values in the G.InputFrac format; AccBits is
/// the accumulator width (HwConfig::AccBits), 1 to 64. If LayerOutputs is given
/// it receives every layer's output, indexed like G.Layers.
///
/// Preconditions (asserted, with the verifier's message): verifyGraph(G)
/// succeeds, the input size matches, AccBits is in range.
std::vector<int16_t> runFixed(const ir::Graph &G, const std::vector<int16_t> &InputChw,
                              unsigned AccBits,
                              std::vector<std::vector<int16_t>> *LayerOutputs = nullptr);

/// Runs the network in floating point with the unquantized Weights / Bias
/// (accumulating in double): the ideal the fixed path approximates. Padding is
/// 0 for convolution and -infinity for max pooling; nothing saturates.
/// Preconditions as for runFixed, plus every conv layer has its float Weights.
std::vector<float> runFloat(const ir::Graph &G, const std::vector<float> &InputChw,
                            std::vector<std::vector<float>> *LayerOutputs = nullptr);

} // namespace snow::ref

#endif
