//===- Calibrate.cpp - Per-layer activation formats from a float run ------===//
//
// The rule of docs/fixed-point.md, "Choosing formats", in three steps:
//
// 1. Groups. Max pooling, relu, add and concat do not rescale, so their output
//    and inputs must share one format. A union-find over tensors (0 is the
//    graph input, 1 + I the output of layer I) joins them; every other
//    tensor (a conv output) starts in a group of its own.
// 2. Desired formats. Each layer output wants the most fraction bits that
//    still hold 1.25x its largest calibrated magnitude (the headroom is for
//    inputs other than the calibration input); a group takes the minimum of
//    its members, so no member saturates on the calibration input. The group
//    of the graph input is pinned to the hardware's format: users feed it.
// 3. Conv bounds. A conv shifts its accumulator right by InFrac + WFrac -
//    OutFrac, never left, so its output group may hold at most InFrac + WFrac
//    bits. Lowering one group can lower the InFrac of a conv elsewhere in the
//    graph (a group spans layers far apart, e.g. the branches of a concat), so
//    the bound is applied until nothing changes. Formats only ever decrease
//    and never drop below 0 (WFrac >= 0), so this terminates.
//
// A fused residual must also satisfy ResFrac <= InFrac + WFrac. Nothing is
// lowered to meet it (that would cost the residual stream precision for one
// conv's sake); a violation is reported. With weight formats of 8 bits or
// more it does not happen in practice.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Calibrate.h"

#include "snow/ir/FloatEval.h"
#include "snow/support/Npy.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <numeric>
#include <optional>

using namespace snow::ir;

namespace {

/// Activations are Q(15-f).f with f in 0..15.
constexpr int MaxActFrac = std::numeric_limits<int16_t>::digits;

/// Calibrated ranges are widened by this factor before choosing a format, so
/// an input somewhat larger than the calibration input does not saturate.
constexpr double Headroom = 1.25;

/// Union-find over the tensors of a graph, with path halving.
class TensorGroups {
public:
  explicit TensorGroups(size_t N) : Parent(N) { std::iota(Parent.begin(), Parent.end(), 0); }
  size_t find(size_t T) {
    while (Parent[T] != T)
      T = Parent[T] = Parent[Parent[T]];
    return T;
  }
  void unite(size_t A, size_t B) { Parent[find(A)] = find(B); }

private:
  std::vector<size_t> Parent;
};

/// Tensor number of layer output P (-1 = the graph input).
size_t tensorOf(int P) { return size_t(P + 1); }

float maxAbs(const std::vector<float> &V) {
  float M = 0;
  for (float X : V)
    M = std::max(M, std::fabs(X));
  return M;
}

llvm::Error layerError(const Layer &L, const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: layer '%s': %s",
                                 L.Loc.str().c_str(), L.Name.c_str(), Msg.c_str());
}

} // namespace

namespace {

/// The rule on ranges: LayerMax[I] is the largest magnitude of layer I's
/// output; InputMax, if given, the graph input's, which then gets a format of
/// its own choosing instead of ActFrac.
/// The part of a pre-activation range the table must resolve: past the point
/// where the function is flat (within far less than an output step of its
/// limit) saturating the input changes nothing, so resolution is not spent
/// there. Unbounded functions (HardSwish, SiLU, GELU) need the whole range.
double tableRange(const Layer &L, float PreMaxF) {
  const double PreMax = PreMaxF;
  switch (L.Activation) {
  case Act::Clip:
    return std::min(PreMax, double(std::max(std::fabs(L.ActP0), std::fabs(L.ActP1))));
  case Act::HardSigmoid: // Flat where alpha x + beta leaves [0, 1].
    return std::min(
        PreMax, double(std::max(std::fabs(L.ActP1 / L.ActP0), std::fabs((1 - L.ActP1) / L.ActP0))));
  case Act::Sigmoid: // 1 - sigmoid(12) = 6e-6, a fifth of Q0.15's step.
    return std::min(PreMax, 12.0);
  case Act::Tanh: // 1 - tanh(7) = 1.7e-6.
    return std::min(PreMax, 7.0);
  default:
    return PreMax;
  }
}

llvm::Expected<ActFormats> chooseFromRanges(const Graph &G, int ActFrac,
                                            const std::vector<float> &LayerMax,
                                            const std::vector<float> &PreMax,
                                            std::optional<float> InputMax) {
  assert(ActFrac >= 0 && ActFrac <= MaxActFrac && "activation format must be Q(15-f).f");
  assert(LayerMax.size() == G.Layers.size() && "one range per layer");
  const size_t N = G.Layers.size();

  // 1. Groups of tensors that must share a format.
  TensorGroups Groups(N + 1);
  for (size_t I = 0; I < N; ++I) {
    const Layer &L = G.Layers[I];
    if (!isCanonicalKind(L.Kind))
      return layerError(L, fmt::format("'{}' is not a canonical kind (run ir::canonicalize "
                                       "before calibrating)",
                                       kindName(L.Kind)));
    // A conv and a product rescale by their shift, an average pooling by
    // its multiplier and shift: their outputs start groups of their own.
    if (L.Kind != LayerKind::Conv && L.Kind != LayerKind::AvgPool && L.Kind != LayerKind::Mul)
      for (int P : L.Inputs)
        Groups.unite(tensorOf(int(I)), tensorOf(P));
  }

  // 2. Each group's format: the least its members want; the input's is pinned.
  std::vector<int> GroupFrac(N + 1, MaxActFrac);
  for (size_t I = 0; I < N; ++I) {
    const int Want = std::min(MaxActFrac, largestFrac(Headroom * LayerMax[I]));
    int &F = GroupFrac[Groups.find(tensorOf(int(I)))];
    F = std::min(F, Want);
  }
  const size_t InputGroup = Groups.find(tensorOf(-1));
  if (InputMax)
    GroupFrac[InputGroup] =
        std::min(GroupFrac[InputGroup], std::min(MaxActFrac, largestFrac(Headroom * *InputMax)));
  else
    GroupFrac[InputGroup] = ActFrac;
  auto FracOf = [&](int P) -> int & { return GroupFrac[Groups.find(tensorOf(P))]; };

  // 3. No conv may shift left: OutFrac <= InFrac + WFrac, to a fixed point.
  std::vector<int> WFrac(N, 0);
  for (size_t I = 0; I < N; ++I)
    if (G.Layers[I].Kind == LayerKind::Conv && !G.Layers[I].DynamicWeights)
      WFrac[I] = weightFrac(G.Layers[I]);
  // A conv with run-time weights (x * s) has s's format as its weights'.
  auto WOf = [&](size_t I) {
    const Layer &L = G.Layers[I];
    return L.DynamicWeights ? FracOf(L.Inputs[1]) : WFrac[I];
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t I = 0; I < N; ++I) {
      const Layer &L = G.Layers[I];
      // After an activation the table rescales: the bound is on PreFrac.
      if ((L.Kind != LayerKind::Conv && L.Kind != LayerKind::AvgPool && L.Kind != LayerKind::Mul) ||
          L.Activation != Act::None)
        continue;
      // An average pooling's shift (avgPoolFactors: 15 + ceil(log2 K) for
      // the mean alone) shrinks by OutFrac - InFrac; it must stay >= 1.
      // A product's shift is FracA + FracB - OutFrac.
      const int Bound = L.Kind == LayerKind::AvgPool
                            ? FracOf(L.input()) + avgPoolShift(uint64_t(L.KH) * L.KW) - 1
                        : L.Kind == LayerKind::Mul ? FracOf(L.input()) + FracOf(L.Inputs[1])
                                                   : FracOf(L.input()) + WOf(I);
      int &Out = FracOf(int(I));
      if (Out <= Bound)
        continue;
      if (!InputMax && Groups.find(tensorOf(int(I))) == InputGroup)
        return layerError(L, fmt::format("its output shares the format of the graph input "
                                         "({} fraction bits), which exceeds what the conv can "
                                         "produce (input {} + weights {} fraction bits)",
                                         Out, FracOf(L.input()), WOf(I)));
      Out = Bound;
      Changed = true;
    }
  }

  for (size_t I = 0; I < N; ++I) {
    const Layer &L = G.Layers[I];
    if (L.Kind == LayerKind::Conv && L.HasResidual &&
        FracOf(L.Residual) > FracOf(L.input()) + WOf(I))
      return layerError(L, fmt::format("the fused residual's format ({} fraction bits) exceeds "
                                       "the conv's input + weight formats ({} + {}); the "
                                       "accumulator cannot align it",
                                       FracOf(L.Residual), FracOf(L.input()), WOf(I)));
  }

  ActFormats F;
  F.InputFrac = FracOf(-1);
  F.OutFrac.reserve(N);
  for (size_t I = 0; I < N; ++I)
    F.OutFrac.push_back(FracOf(int(I)));
  F.PreFrac = F.OutFrac;
  for (size_t I = 0; I < N; ++I) {
    const Layer &L = G.Layers[I];
    if (L.Kind != LayerKind::Conv || L.Activation == Act::None)
      continue;
    const int Finest = FracOf(L.input()) + WOf(I); // The accumulator shifts right only.
    F.PreFrac[I] = std::min({MaxActFrac, largestFrac(Headroom * tableRange(L, PreMax[I])), Finest});
    // A function that turns into y = x above R and flat below -R takes its
    // output's format when that reaches R: positive inputs then fit (y <= x
    // there), larger negative ones saturate where the function is flat, and
    // the table spans only [-R, R), zoomed in (buildLut).
    if (F.OutFrac[I] <= Finest && lutCover(L.Activation, F.OutFrac[I], F.OutFrac[I]).IdentityTail)
      F.PreFrac[I] = F.OutFrac[I];
  }
  return F;
}

} // namespace

llvm::Expected<ActFormats>
snow::ir::chooseFormats(const Graph &G, int ActFrac,
                        const std::vector<std::vector<float>> &LayerOutputs,
                        const std::vector<float> &PreActMax) {
  assert(LayerOutputs.size() == G.Layers.size() && "one float output per layer");
  std::vector<float> LayerMax;
  for (const std::vector<float> &Out : LayerOutputs)
    LayerMax.push_back(maxAbs(Out));
  // Without the ranges before the activations their formats would be
  // guesses: refuse rather than saturate silently.
  if (PreActMax.size() != G.Layers.size())
    for (const Layer &L : G.Layers)
      if (L.Activation != Act::None)
        return layerError(L, "has an activation, but no range before it was given (runFloat's "
                             "PreActMax)");
  std::vector<float> PreMax = PreActMax;
  PreMax.resize(G.Layers.size(), 0.0f);
  return chooseFromRanges(G, ActFrac, LayerMax, PreMax, std::nullopt);
}

llvm::Expected<ActFormats> snow::ir::calibrate(const Graph &G, int ActFrac,
                                               const std::vector<float> &InputChw,
                                               std::vector<std::vector<float>> *LayerOutputs) {
  if (llvm::Error E = checkFloatGraph(G, InputChw.size()))
    return E;
  std::vector<float> PreMax;
  if (LayerOutputs) {
    std::vector<std::vector<float>> Outs;
    runFloat(G, InputChw, &Outs, &PreMax);
    llvm::Expected<ActFormats> F = chooseFormats(G, ActFrac, Outs, PreMax);
    if (F)
      *LayerOutputs = std::move(Outs);
    return F;
  }
  // Only the ranges: each output goes once its readers have run.
  std::vector<float> LayerMax;
  runFloatRanges(G, InputChw, LayerMax, PreMax);
  return chooseFromRanges(G, ActFrac, LayerMax, PreMax, std::nullopt);
}

llvm::Expected<std::vector<std::vector<float>>>
snow::ir::readCalibrationFrames(const Graph &G, const std::string &Path) {
  auto Fail = [&](const std::string &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "calibration frames '%s': %s",
                                   Path.c_str(), Msg.c_str());
  };
  llvm::Expected<NpyArray> A = readNpy(Path);
  if (!A)
    return A.takeError();
  if (A->Type != NpyArray::DType::F32)
    return Fail("int16 values, but calibration needs the float32 frames the model sees");
  const std::vector<uint64_t> Chw = {G.Input.C, G.Input.H, G.Input.W};
  std::vector<uint64_t> Shape = A->Shape;
  if (Shape == Chw)
    Shape.insert(Shape.begin(), 1);
  if (Shape.size() != 4 || std::vector<uint64_t>(Shape.begin() + 1, Shape.end()) != Chw)
    return Fail(fmt::format("shape ({}), but model '{}' takes frames of ({}): expected (N, {})",
                            fmt::join(A->Shape, ", "), G.Name, fmt::join(Chw, ", "),
                            fmt::join(Chw, ", ")));
  if (Shape[0] == 0)
    return Fail("no frames (N = 0)");
  const size_t Elems = G.Input.elems();
  std::vector<std::vector<float>> Frames;
  for (size_t F = 0; F < Shape[0]; ++F) {
    const float *Begin = A->F32.data() + F * Elems;
    for (size_t I = 0; I < Elems; ++I)
      if (!std::isfinite(Begin[I]))
        return Fail(
            fmt::format("frame {}, element {} is '{}', not a finite number", F, I, Begin[I]));
    Frames.emplace_back(Begin, Begin + Elems);
  }
  return Frames;
}

llvm::Expected<ActFormats>
snow::ir::calibrateOnFrames(const Graph &G, int ActFrac,
                            const std::vector<std::vector<float>> &Frames) {
  assert(!Frames.empty() && "readCalibrationFrames refuses an empty batch");
  std::vector<float> LayerMax(G.Layers.size(), 0.0f), PreMax(G.Layers.size(), 0.0f);
  float InputMax = 0;
  for (const std::vector<float> &Frame : Frames) {
    if (llvm::Error E = checkFloatGraph(G, Frame.size()))
      return E;
    InputMax = std::max(InputMax, maxAbs(Frame));
    // One frame's ranges at a time, each output freed once read.
    std::vector<float> FrameMax, FramePre;
    runFloatRanges(G, Frame, FrameMax, FramePre);
    for (size_t I = 0; I < FrameMax.size(); ++I) {
      LayerMax[I] = std::max(LayerMax[I], FrameMax[I]);
      PreMax[I] = std::max(PreMax[I], FramePre[I]);
    }
  }
  return chooseFromRanges(G, ActFrac, LayerMax, PreMax, InputMax);
}
