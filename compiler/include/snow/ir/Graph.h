//===- Graph.h - The model graph IR shared by snowc and snowref ----*- C++ -*-===//
//
// A model as read from YAML: layers in topological order with inferred shapes,
// float weights, and the fixed-point formats chosen by the quantization rule
// (docs/fixed-point.md). Both the compiler and the reference executor start
// from this IR; nothing here knows about the hardware mapping.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_GRAPH_H
#define SNOW_IR_GRAPH_H

#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace snow::ir {

/// Where a layer (or key) came from, for messages: "models/tiny.yaml:7".
struct SourceLoc {
  std::string File;
  unsigned Line = 0;
  std::string str() const;
};

struct Shape {
  uint32_t C = 0, H = 0, W = 0;
  uint64_t elems() const { return uint64_t(C) * H * W; }
  bool operator==(const Shape &) const = default;
};

enum class LayerKind { Conv, MaxPool };
const char *kindName(LayerKind K);

struct Layer {
  std::string Name;
  LayerKind Kind = LayerKind::Conv;
  SourceLoc Loc;
  /// Index of the producing layer in Graph::Layers, or -1 for the graph input.
  int Input = -1;
  Shape In, Out;

  // Window geometry (conv and pooling). Pads are top, bottom, left, right.
  unsigned KH = 1, KW = 1, SH = 1, SW = 1;
  unsigned PadT = 0, PadB = 0, PadL = 0, PadR = 0;
  bool CeilMode = false;
  bool Relu = false;

  // Conv parameters. Weights are OIHW (PyTorch order), Bias has Out.C entries.
  std::vector<float> Weights, Bias;

  // Fixed-point formats (number of fraction bits) chosen by quantize().
  int InFrac = 8, OutFrac = 8, WFrac = 0, BFrac = 0;
  std::vector<int16_t> QWeights, QBias; ///< Same order as Weights / Bias.

  uint64_t macs() const; ///< Conv: Out.elems() * In.C * KH * KW; pooling: 0.
};

struct Graph {
  std::string Name;
  SourceLoc Loc;
  std::string InputName = "data";
  Shape Input;
  int InputFrac = 8;
  std::vector<Layer> Layers; ///< Topological order; the last one is the output.
  const Layer &output() const { return Layers.back(); }
  uint64_t macs() const;
};

/// Reads a model YAML file: validates keys and shapes, infers output shapes,
/// creates seeded or .npy weights. Errors carry file:line.
llvm::Expected<Graph> loadModel(const std::string &Path);
llvm::Expected<Graph> parseModel(const std::string &Text, const std::string &File);

/// Chooses fixed-point formats and fills QWeights / QBias (docs/fixed-point.md).
/// ActFrac is the activation format of the hardware (HwConfig::ActFracBits).
void quantize(Graph &G, int ActFrac);

/// The deterministic input used when none is given (snow::defaultInputValues).
std::vector<float> defaultInput(const Graph &G);

/// float -> int16 in Q(15-Frac).Frac: round half away from zero, saturate.
int16_t toFixed(float X, int Frac);
float fromFixed(int16_t X, int Frac);

// Building blocks of loadModel and quantize, for tests and for tools that
// build graphs in code.

/// One spatial output size by PyTorch's rule (docs/fixed-point.md), with the
/// ceil_mode rule that drops a last window starting in the end padding.
/// Returns 0 when the kernel is larger than the padded input.
unsigned windowOutSize(unsigned In, unsigned K, unsigned S, unsigned PadBegin, unsigned PadEnd,
                       bool CeilMode);

/// The quantizer's format search: the largest f in 0..24 with
/// round(MaxAbs * 2^f) <= 32767, or 0 when none fits (values then saturate).
int largestFrac(double MaxAbs);

/// Seeded initialization (docs/model-format.md): fills L.Weights (OIHW, from
/// L.In.C, L.Out.C, KH, KW) and L.Bias (zeros when HasBias is false).
void seedWeights(Layer &L, uint64_t Seed, bool HasBias);

/// Reads a float32 .npy whose shape must equal Shape exactly; errors name the
/// file and give the expected and actual shapes.
llvm::Error readTensorNpy(const std::string &Path, const std::vector<uint64_t> &Shape,
                          std::vector<float> &Out);

} // namespace snow::ir

#endif
