//===- Reference.h - The reference executor: plain loops over the IR -*- C++ -*-===//
//
// Runs a quantized graph the slow, obvious way, straight from the contract in
// docs/fixed-point.md: one accumulator per output, every tap added, then the
// writeback rule. It is the oracle the bit-exact tests of the compiler,
// simulator and RTL compare against, so it deliberately shares no lowering or
// simulation code with them; an error copied into both sides would be invisible.
//
// The executors take a graph in canonical form (ir::canonicalize): Conv (with
// groups and an optional fused residual add), MaxPool, AvgPool, Concat, Add and
// Relu. The float path the quantization report (ErrorStats.h) measures the
// fixed path against is ir::runFloat (snow/ir/FloatEval.h): it is not the
// oracle, so it lives in the front end, shared with calibration.
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

/// The average-pooling constants of the contract for a window of K positions:
/// AvgShift = 15 + ceil(log2 K), AvgMult = round(2^AvgShift / K). Computed
/// here independently of the quantizer, which verifyGraph checks against.
struct AvgConstants {
  unsigned Mult = 0, Shift = 0;
};
AvgConstants avgPoolConstants(uint64_t K);

/// Checks everything the executors rely on, so a bad graph is a user error
/// instead of an out-of-bounds read: the graph is canonical (other kinds are
/// rejected with a hint to run ir::canonicalize), inputs are earlier layers,
/// shapes chain between layers and match the output-size rule, weight and bias
/// counts fit the groups, fixed-point formats chain between layers, shifts are
/// never negative and average-pooling constants follow the contract. Empty
/// QBias / Bias mean "no bias"; empty Weights are allowed (ir::runFloat then
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

} // namespace snow::ref

#endif
