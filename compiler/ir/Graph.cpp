//===- Graph.cpp - Small queries on the model graph IR --------------------===//
//
// The parts of the IR that every consumer needs and that do not belong to the
// YAML front end or the quantizer: printable locations, layer kind names, MAC
// and parameter counts (the compiler's and simulator's utilization figures
// divide by the MACs; docs/model-format.md states the convention) and the
// output-size rule shared by shape inference and the lowering.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Graph.h"

#include "snow/isa/Program.h"
#include "snow/support/Rng.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

using namespace snow::ir;

std::string SourceLoc::str() const { return File + ":" + std::to_string(Line); }

const char *snow::ir::kindName(LayerKind K) {
  switch (K) {
  case LayerKind::Conv:
    return "conv";
  case LayerKind::MaxPool:
    return "maxpool";
  case LayerKind::AvgPool:
    return "avgpool";
  case LayerKind::GlobalAvgPool:
    return "global_avgpool";
  case LayerKind::Fc:
    return "fc";
  case LayerKind::Concat:
    return "concat";
  case LayerKind::Add:
    return "add";
  case LayerKind::Mul:
    return "mul";
  case LayerKind::Relu:
    return "relu";
  case LayerKind::BatchNorm:
    return "batchnorm";
  case LayerKind::LayerNorm:
    return "layernorm";
  case LayerKind::Flatten:
    return "flatten";
  case LayerKind::Softmax:
    return "softmax";
  case LayerKind::Activation:
    return "activation";
  case LayerKind::Slice:
    return "slice";
  }
  assert(false && "unhandled LayerKind");
  return "?";
}

void snow::ir::makeRunTimeScale(Layer &L) {
  assert(L.Inputs.size() == 2 && "inputs {x, s}");
  L.Kind = LayerKind::Conv;
  L.Out = L.In;
  L.Groups = L.In.C;
  L.KH = L.KW = L.SH = L.SW = 1;
  L.DynamicWeights = true;
  L.HasBias = false;
  L.Weights.assign(L.In.C, 0.0f); // Shapes only: s's values replace them.
  L.Bias.assign(L.In.C, 0.0f);
}

namespace {

/// The largest group count G (dividing both channel counts) for which
/// output i, in group i / (Out / G), reads a channel of that group's input
/// block: the 0/1 matrix is then block diagonal, and the conv costs
/// Out * In / G MACs per position instead of Out * In.
uint32_t selectionGroups(const std::vector<uint32_t> &Map, uint32_t PhysC) {
  const uint32_t Out = uint32_t(Map.size());
  for (uint32_t G = std::gcd(Out, PhysC); G > 1; --G) {
    if (Out % G || PhysC % G)
      continue;
    bool Fits = true;
    for (uint32_t I = 0; Fits && I < Out; ++I)
      Fits = Map[I] / (PhysC / G) == I / (Out / G);
    if (Fits)
      return G;
  }
  return 1;
}

} // namespace

void snow::ir::makeSelection(Layer &L, const std::vector<uint32_t> &Rows) {
  const uint32_t Out = uint32_t(Rows.size());
  L.Kind = LayerKind::Conv;
  L.Out = {Out, L.In.H, L.In.W};
  L.KH = L.KW = L.SH = L.SW = 1;
  L.Groups = selectionGroups(Rows, L.In.C);
  const uint32_t PerGroup = L.In.C / L.Groups;
  L.Weights.assign(size_t(Out) * PerGroup, 0.0f);
  for (uint32_t I = 0; I < Out; ++I)
    L.Weights[size_t(I) * PerGroup + Rows[I] % PerGroup] = 1.0f;
  L.Bias.assign(Out, 0.0f);
  L.HasBias = false;
}

const char *snow::ir::actName(Act A, float P0, float P1) {
  switch (A) {
  case Act::None:
    return "none";
  case Act::Clip:
    return P0 == 0 && P1 == 6 ? "relu6" : "clip";
  case Act::Sigmoid:
    return "sigmoid";
  case Act::HardSigmoid:
    return "hardsigmoid";
  case Act::HardSwish:
    return "hardswish";
  case Act::Silu:
    return "silu";
  case Act::Gelu:
    return "gelu";
  case Act::Tanh:
    return "tanh";
  case Act::Rsqrt:
    return "rsqrt";
  }
  assert(false && "unhandled Act");
  return "?";
}

// PyTorch's definitions (torch.nn): HardSigmoid is ONNX's max(0, min(1,
// alpha x + beta)) (PyTorch's own is alpha 1/6, beta 1/2); HardSwish is x *
// relu6(x + 3) / 6; GELU the exact erf form.
double snow::ir::evalAct(Act A, float P0, float P1, double X) {
  switch (A) {
  case Act::None:
    return X;
  case Act::Clip:
    return std::clamp(X, double(P0), double(P1));
  case Act::Sigmoid:
    return 1 / (1 + std::exp(-X));
  case Act::HardSigmoid:
    return std::clamp(double(P0) * X + double(P1), 0.0, 1.0);
  case Act::HardSwish:
    return X * std::clamp(X + 3, 0.0, 6.0) / 6;
  case Act::Silu:
    return X / (1 + std::exp(-X));
  case Act::Gelu:
    return 0.5 * X * (1 + std::erf(X / std::sqrt(2.0)));
  case Act::Tanh:
    return std::tanh(X);
  case Act::Rsqrt: // Undefined at and below 0: infinite, which saturates.
    return X > 0 ? 1 / std::sqrt(X) : HUGE_VAL;
  }
  assert(false && "unhandled Act");
  return X;
}

bool snow::ir::isCanonicalKind(LayerKind K) {
  switch (K) {
  case LayerKind::Conv:
  case LayerKind::MaxPool:
  case LayerKind::AvgPool:
  case LayerKind::Concat:
  case LayerKind::Add:
  case LayerKind::Mul:
  case LayerKind::Relu:
  case LayerKind::Slice:
    return true;
  default:
    return false;
  }
}

// Both counts come from the shapes, not from Weights.size(), so they hold for
// a graph whose weights were never materialized. An fc turned into a conv has
// KH x KW = its input's H x W and Groups 1, so the conv formula gives the same
// Out.C * In.elems() as the fc formula.
uint64_t Layer::macs() const {
  switch (Kind) {
  case LayerKind::Conv:
    return Out.elems() * (In.C / Groups) * KH * KW;
  case LayerKind::Fc:
    return uint64_t(Out.C) * In.elems();
  default:
    return 0;
  }
}

bool Layer::isChannelCopy() const {
  return Kind == LayerKind::Conv && isa::isChannelCopyType(TypeName);
}

uint64_t Layer::params() const {
  uint64_t Biases = HasBias ? Out.C : 0;
  switch (Kind) {
  case LayerKind::Conv: // Run-time weights (x * s) are not parameters.
    return DynamicWeights ? Biases : uint64_t(Out.C) * (In.C / Groups) * KH * KW + Biases;
  case LayerKind::Fc:
    return uint64_t(Out.C) * In.elems() + Biases;
  case LayerKind::BatchNorm:
  case LayerKind::LayerNorm:
    return 2 * uint64_t(In.C);
  default:
    return 0;
  }
}

uint64_t Graph::macs() const {
  uint64_t N = 0;
  for (const Layer &L : Layers)
    N += L.macs();
  return N;
}

uint64_t Graph::usefulMacs() const {
  uint64_t N = 0;
  for (const Layer &L : Layers)
    N += L.usefulMacs();
  return N;
}

uint64_t Graph::usefulParams() const {
  uint64_t N = 0;
  for (const Layer &L : Layers)
    N += L.isChannelCopy() ? 0 : L.params();
  return N;
}

uint64_t Graph::params() const {
  uint64_t N = 0;
  for (const Layer &L : Layers)
    N += L.params();
  return N;
}

unsigned snow::ir::windowOutSize(unsigned In, unsigned K, unsigned S, unsigned PadBegin,
                                 unsigned PadEnd, bool CeilMode) {
  assert(S > 0 && "stride must be positive");
  uint64_t Padded = uint64_t(In) + PadBegin + PadEnd;
  if (K > Padded)
    return 0;
  uint64_t Span = Padded - K;
  uint64_t Out = (CeilMode ? (Span + S - 1) / S : Span / S) + 1;
  // Rounding up may add a window that starts in the end padding and would
  // see no real input; PyTorch drops it, and so do we.
  if (CeilMode && (Out - 1) * S >= uint64_t(In) + PadBegin)
    --Out;
  return unsigned(Out);
}

std::vector<float> snow::ir::defaultInput(const Graph &G) {
  return snow::defaultInputValues(G.Input.elems(), G.Name);
}
