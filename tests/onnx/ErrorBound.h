//===- ErrorBound.h - Worst-case error of the fixed-point path -*- C++ -*-===//
//
// The conformance runner compares the accelerator's dequantized output with
// ONNX's float results. Its tolerance is not a guess: it is a bound on how
// far the fixed-point arithmetic of docs/fixed-point.md can be from exact
// arithmetic, propagated layer by layer from the formats the quantizer
// chose. docs/onnx.md, "Conformance", states the rules.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_ONNX_ERRORBOUND_H
#define SNOW_TESTS_ONNX_ERRORBOUND_H

#include "snow/ir/Graph.h"
#include <vector>

namespace snow::onnxtest {

/// For a canonical, quantized graph G run on the float input InputChw (whose
/// exact per-layer outputs runFloat gave as FloatLayers), the largest
/// possible |fixed - exact| of each layer's output, in real units, indexed
/// like G.Layers. Assumes no tensor saturates (the runner checks that).
std::vector<double> layerErrorBounds(const ir::Graph &G, const std::vector<float> &InputChw,
                                     const std::vector<std::vector<float>> &FloatLayers);

/// The same bound carried through the host's softmax, if G has one: the
/// softmax is 1/2-Lipschitz in the max norm, so the bound only shrinks.
double outputErrorBound(const ir::Graph &G, const std::vector<double> &LayerBounds);

} // namespace snow::onnxtest

#endif
