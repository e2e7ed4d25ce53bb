//===- Calibrate.h - Choosing per-layer activation formats ----------*- C++ -*-===//
//
// One activation format for the whole network (Q8.8) saturates wherever the
// values outgrow ±128, as ResNet-50's residual stream does from layer3 on.
// Calibration runs the float network once on the calibration input (the
// model's default input), measures each layer's range and gives every tensor
// the most fraction bits it can afford, under the constraints of the
// hardware: layers that do not rescale (max pooling, relu, add, concat) keep
// their inputs' format, a conv cannot shift left (OutFrac <= InFrac + WFrac)
// and the graph input keeps the hardware's format. The rule is in
// docs/fixed-point.md, "Choosing formats".
//
// The call sequence is canonicalize(), then either
//   quantize(G, ActFrac)                           -- one format everywhere, or
//   F = calibrate(G, ActFrac, defaultInput(G)); quantize(G, *F)
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_CALIBRATE_H
#define SNOW_IR_CALIBRATE_H

#include "snow/ir/Graph.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace snow::ir {

/// The activation format (fraction bits) of every tensor of a graph: what
/// quantize() needs beyond the weights to fix all formats.
struct ActFormats {
  int InputFrac = 8;        ///< The graph input.
  std::vector<int> OutFrac; ///< Each layer's output, indexed like Graph::Layers.
  /// Each layer's format before its Activation (the table's input), indexed
  /// like Graph::Layers; empty: OutFrac.
  std::vector<int> PreFrac;
};

/// The same format for every tensor: what quantize(G, ActFrac) uses.
ActFormats uniformFormats(const Graph &G, int ActFrac);

/// The calibration rule (docs/fixed-point.md, "Choosing formats") applied to
/// the float outputs of every layer (LayerOutputs, indexed like G.Layers, as
/// runFloat returns them). G must be canonical. Fails, naming the layer, when
/// the constraints cannot be met (a fused residual whose format exceeds
/// InFrac + WFrac of its conv, or a conv that would have to lower the format
/// of the graph input).
/// PreActMax (as runFloat returns it; empty: no activations) gives the range
/// before each activation.
llvm::Expected<ActFormats> chooseFormats(const Graph &G, int ActFrac,
                                         const std::vector<std::vector<float>> &LayerOutputs,
                                         const std::vector<float> &PreActMax = {});

/// Runs G in float on InputChw (runFloat) and applies chooseFormats. G must be
/// canonical (checkFloatGraph; its failure is returned). If LayerOutputs is
/// given it receives the float outputs of the calibration run, so a caller
/// that also reports on this input need not run the network twice.
llvm::Expected<ActFormats> calibrate(const Graph &G, int ActFrac,
                                     const std::vector<float> &InputChw,
                                     std::vector<std::vector<float>> *LayerOutputs = nullptr);

/// Calibration frames from a float32 .npy of shape (N, C, H, W), or (C, H, W)
/// for one frame, matching G's input; one vector per frame. Refuses another
/// shape or dtype, an empty batch, and a value that is not finite (naming its
/// frame and index): a NaN would silently decide every format after it.
llvm::Expected<std::vector<std::vector<float>>> readCalibrationFrames(const Graph &G,
                                                                      const std::string &Path);

/// Calibration on the user's data (snowc / snowref --calibrate): runs G in
/// float on every frame, gives each layer the largest magnitude it reached on
/// any frame, and chooses the graph input's format from the frames' range like
/// any other tensor's (where calibrate() pins it to ActFrac). The same rule
/// otherwise (docs/fixed-point.md, "Calibrating on your data").
llvm::Expected<ActFormats> calibrateOnFrames(const Graph &G, int ActFrac,
                                             const std::vector<std::vector<float>> &Frames);

/// quantize() with the given activation formats: sets InputFrac, every
/// layer's InFrac / OutFrac / ResFrac from F, chooses WFrac / BFrac and fills
/// QWeights / QBias as the uniform quantize() does. Fails, naming the layer,
/// when F breaks a constraint of docs/fixed-point.md: a format outside 0..15,
/// a layer other than a conv (or fc) whose output format differs from its
/// inputs', a conv with OutFrac or ResFrac above InFrac + WFrac. On error G is
/// left partly quantized and should be discarded.
llvm::Error quantize(Graph &G, const ActFormats &F, FloatWeights Floats = FloatWeights::Keep);

/// The quantizer's weight format of a conv or fc layer: the largest f in
/// 0..24 with round(max|w| * 2^f) <= 32767, or 15 when every weight is 0.
/// Depends on the weights only, so calibration can bound OutFrac with it.
int weightFrac(const Layer &L);

} // namespace snow::ir

#endif
