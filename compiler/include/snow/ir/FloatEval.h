//===- FloatEval.h - Floating-point evaluation of a canonical graph -*- C++ -*-===//
//
// The ideal the fixed-point path approximates: the network run with the
// unquantized (folded) weights, accumulating in double. Two consumers need it
// and it is not the bit-exact oracle, so it lives in the front end and is
// shared: calibration (Calibrate.h) measures each layer's range with it, and
// the reference executor's quantization report measures the fixed path's
// error against it. The fixed-point path (ref::runFixed) stays in snow_ref and
// shares nothing with this file.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_FLOATEVAL_H
#define SNOW_IR_FLOATEVAL_H

#include "snow/ir/Graph.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace snow::ir {

/// Whether runFloat can run G on an input of InputElems values: every layer is
/// a canonical kind (canonicalize() first), reads only earlier layers, and
/// every tensor, weight and bias has the size its layer's shapes imply. The
/// error names the first layer that fails and its source location.
llvm::Error checkFloatGraph(const Graph &G, uint64_t InputElems);

/// Runs G in floating point with the float Weights / Bias (accumulating in
/// double). Padding is 0 for convolution and average pooling (which divides by
/// the whole window, padding included) and -infinity for max pooling; residual
/// and unfused adds are plain sums; nothing rounds or saturates; formats
/// (InFrac, OutFrac, ...) are ignored. If LayerOutputs is given it receives
/// every layer's output, indexed like G.Layers; if PreActMax is given, the
/// largest magnitude each conv with an Activation had before it (0 for other
/// layers): what that conv's PreFrac must hold. Tensors are CHW.
///
/// Precondition (asserted, and aborting with the reason even without
/// assertions): checkFloatGraph(G, InputChw.size()) succeeds.
std::vector<float> runFloat(const Graph &G, const std::vector<float> &InputChw,
                            std::vector<std::vector<float>> *LayerOutputs = nullptr,
                            std::vector<float> *PreActMax = nullptr);

/// runFloat for calibration: only each layer's largest |output| (LayerMax)
/// and PreActMax. Each output is freed after its last reader, so a network's
/// activations are not all held at once (nor all memory touched afresh).
void runFloatRanges(const Graph &G, const std::vector<float> &InputChw,
                    std::vector<float> &LayerMax, std::vector<float> &PreActMax);

} // namespace snow::ir

#endif
