//===- FloatEval.cpp - Floating-point evaluation of a canonical graph -----===//
//
// One function per canonical kind, each the plain meaning of the layer (the
// ideal of docs/fixed-point.md without rounding or saturation). Tensors are
// CHW vectors, as in the IR and the .npy files.
//
// The convolution, where calibration spends its time, is in FloatConv.cpp.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/FloatEval.h"

#include "FloatConv.h"
#include "snow/support/HugePages.h"

#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>

using namespace snow::ir;

namespace {

/// Index of element (C, Y, X) of a CHW tensor of shape S.
size_t at(const Shape &S, size_t C, size_t Y, size_t X) { return (C * S.H + Y) * S.W + X; }

/// Input coordinate of tap K of the window of output O along one axis;
/// outside [0, size) means the tap is in the padding (ceil-mode windows that
/// run past the padded input count as padding too).
int64_t inputCoord(unsigned O, unsigned Stride, unsigned PadBegin, unsigned K) {
  return int64_t(O) * Stride - int64_t(PadBegin) + int64_t(K);
}

bool inside(int64_t Coord, unsigned Size) { return Coord >= 0 && Coord < int64_t(Size); }

std::vector<float> conv(const Layer &L, const std::vector<float> &In,
                        const std::vector<float> *Residual) {
  std::vector<float> Out;
  snow::reserveHuge(Out, L.Out.elems()); // Fresh memory: see HugePages.h.
  Out.resize(L.Out.elems());
  detail::convFloat(L, In.data(), Residual ? Residual->data() : nullptr, Out.data());
  return Out;
}

/// Max (Average false) or mean (Average true) over each window. The mean
/// divides by the whole window, padding included as 0 (count_include_pad):
/// the value AvgMult / AvgShift approximate. Max-pooling padding is -infinity.
std::vector<float> pool(const Layer &L, const std::vector<float> &In, bool Average) {
  const double K = double(L.KH) * L.KW;
  std::vector<float> Out(L.Out.elems());
  for (unsigned C = 0; C < L.Out.C; ++C)
    for (unsigned Oy = 0; Oy < L.Out.H; ++Oy)
      for (unsigned Ox = 0; Ox < L.Out.W; ++Ox) {
        double Sum = 0;
        float Best = -std::numeric_limits<float>::infinity();
        for (unsigned Ky = 0; Ky < L.KH; ++Ky) {
          const int64_t Iy = inputCoord(Oy, L.SH, L.PadT, Ky);
          for (unsigned Kx = 0; Kx < L.KW; ++Kx) {
            const int64_t Ix = inputCoord(Ox, L.SW, L.PadL, Kx);
            if (!inside(Iy, L.In.H) || !inside(Ix, L.In.W))
              continue;
            const float X = In[at(L.In, C, Iy, Ix)];
            Sum += X;
            Best = std::max(Best, X);
          }
        }
        Out[at(L.Out, C, Oy, Ox)] = Average ? float(Sum / K) : Best;
      }
  return Out;
}

std::vector<float> add(const Layer &L, const std::vector<float> &A, const std::vector<float> &B) {
  std::vector<float> Out(A.size());
  for (size_t I = 0; I < A.size(); ++I)
    Out[I] = L.Relu ? std::max(A[I] + B[I], 0.0f) : A[I] + B[I];
  return Out;
}

std::vector<float> mul(const std::vector<float> &A, const std::vector<float> &B) {
  std::vector<float> Out(A.size());
  for (size_t I = 0; I < A.size(); ++I)
    Out[I] = A[I] * B[I];
  return Out;
}

llvm::Error layerError(const Layer &L, const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: layer '%s': %s",
                                 L.Loc.str().c_str(), L.Name.c_str(), Msg.c_str());
}

} // namespace

llvm::Error snow::ir::checkFloatGraph(const Graph &G, uint64_t InputElems) {
  if (G.Layers.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "model '%s' has no layers",
                                   G.Name.c_str());
  if (InputElems != G.Input.elems())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(), "model '%s': input has %llu values, the model expects %llu",
        G.Name.c_str(), (unsigned long long)InputElems, (unsigned long long)G.Input.elems());
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &L = G.Layers[I];
    auto Fail = [&](const std::string &Msg) { return layerError(L, Msg); };
    if (!isCanonicalKind(L.Kind))
      return Fail(fmt::format("'{}' is not a canonical kind (run ir::canonicalize first)",
                              kindName(L.Kind)));
    auto Valid = [&](int P) { return P >= -1 && P < int(I); };
    auto Elems = [&](int P) { return P < 0 ? G.Input.elems() : G.Layers[P].Out.elems(); };
    if (L.Inputs.empty())
      return Fail("has no inputs");
    for (int P : L.Inputs)
      if (!Valid(P))
        return Fail(fmt::format("input {} is not an earlier layer", P));
    const bool Multi =
        L.Kind == LayerKind::Concat || L.Kind == LayerKind::Add || L.Kind == LayerKind::Mul;
    if (L.DynamicWeights) {
      if (L.Inputs.size() != 2 || !Valid(L.Inputs[1]) || Elems(L.Inputs[1]) != L.In.C ||
          L.Groups != L.In.C || L.KH != 1 || L.KW != 1)
        return Fail("a conv with run-time weights must be depthwise 1x1 with inputs {x, s}, s "
                    "one value per channel");
    } else if (!Multi && L.Inputs.size() != 1) {
      return Fail(fmt::format("has {} inputs, expected 1", L.Inputs.size()));
    }
    if ((L.Kind == LayerKind::Add || L.Kind == LayerKind::Mul) && L.Inputs.size() != 2)
      return Fail(fmt::format("{} has {} inputs, expected 2", kindName(L.Kind), L.Inputs.size()));
    if (L.Kind == LayerKind::Concat) {
      uint64_t Sum = 0;
      for (int P : L.Inputs)
        Sum += Elems(P);
      if (Sum != L.Out.elems())
        return Fail(fmt::format("inputs hold {} values, the output {}", Sum, L.Out.elems()));
      continue;
    }
    if (L.Kind == LayerKind::Slice) {
      if (Elems(L.input()) != L.In.elems() || L.Out.H != L.In.H || L.Out.W != L.In.W ||
          uint64_t(L.SliceBegin) + L.Out.C > L.In.C)
        return Fail(fmt::format("slice of channels {}..{} does not fit its input", L.SliceBegin,
                                uint64_t(L.SliceBegin) + L.Out.C));
      continue;
    }
    if (L.Kind == LayerKind::Add || L.Kind == LayerKind::Mul) {
      for (int P : L.Inputs)
        if (Elems(P) != L.Out.elems())
          return Fail(
              fmt::format("an input holds {} values, the output {}", Elems(P), L.Out.elems()));
      continue;
    }
    if (Elems(L.input()) != L.In.elems())
      return Fail(fmt::format("input holds {} values, the layer's input shape {}", Elems(L.input()),
                              L.In.elems()));
    if (L.Kind == LayerKind::Relu && L.Out.elems() != L.In.elems())
      return Fail("relu changes the number of values");
    if ((L.Kind == LayerKind::MaxPool || L.Kind == LayerKind::AvgPool) &&
        (L.Out.C != L.In.C || L.KH * L.KW == 0))
      return Fail("pooling changes the channel count or has an empty window");
    if (L.Kind != LayerKind::Conv)
      continue;
    if (L.Groups == 0 || L.In.C % L.Groups || L.Out.C % L.Groups)
      return Fail(fmt::format("{} groups do not divide {} input and {} output channels", L.Groups,
                              L.In.C, L.Out.C));
    const uint64_t NW = uint64_t(L.Out.C) * (L.In.C / L.Groups) * L.KH * L.KW;
    if (L.heldWeights() != NW)
      return Fail(fmt::format("has {} float weights, expected {}", L.heldWeights(), NW));
    if (!L.Bias.empty() && L.Bias.size() != L.Out.C)
      return Fail(fmt::format("has {} biases, expected {}", L.Bias.size(), L.Out.C));
    if (L.HasResidual && (!Valid(L.Residual) || Elems(L.Residual) != L.Out.elems()))
      return Fail("the fused residual is not an earlier tensor of the output's size");
  }
  return llvm::Error::success();
}

namespace {

/// runFloat, and with LayerMax each layer's largest |output|; without
/// LayerOutputs each output is freed after its last reader.
std::vector<float> evaluate(const Graph &G, const std::vector<float> &InputChw,
                            std::vector<std::vector<float>> *LayerOutputs,
                            std::vector<float> *PreActMax, std::vector<float> *LayerMax) {
  // A graph that fails the check is a bug in the caller (the tools check or
  // verify first); abort with the reason rather than read out of bounds.
  if (llvm::Error E = checkFloatGraph(G, InputChw.size())) {
    llvm::errs() << "snow::ir::runFloat: " << llvm::toString(std::move(E)) << "\n";
    assert(false && "runFloat needs a graph that passes checkFloatGraph");
    std::abort();
  }
  std::vector<std::vector<float>> Outs(G.Layers.size());
  if (PreActMax)
    PreActMax->assign(G.Layers.size(), 0.0f);
  if (LayerMax)
    LayerMax->assign(G.Layers.size(), 0.0f);
  // Without LayerOutputs each output is freed after its last reader (Free[K]:
  // the outputs layer K reads last); one pass over the readers, so a chain of
  // 20,000 layers costs linear time.
  std::vector<std::vector<size_t>> Free(G.Layers.size());
  if (!LayerOutputs && !G.Layers.empty()) {
    std::vector<size_t> LastUse(G.Layers.size());
    for (size_t I = 0; I < G.Layers.size(); ++I)
      LastUse[I] = I; // Read by nothing: freed at once.
    for (size_t K = 0; K < G.Layers.size(); ++K) {
      const Layer &R = G.Layers[K];
      for (int P : R.Inputs)
        if (P >= 0)
          LastUse[size_t(P)] = std::max(LastUse[size_t(P)], K);
      if (R.HasResidual && R.Residual >= 0)
        LastUse[size_t(R.Residual)] = std::max(LastUse[size_t(R.Residual)], K);
    }
    for (size_t I = 0; I + 1 < G.Layers.size(); ++I) // The output: never freed.
      Free[LastUse[I]].push_back(I);
  }
  auto Tensor = [&](int P) -> const std::vector<float> & { return P < 0 ? InputChw : Outs[P]; };
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &L = G.Layers[I];
    llvm::TimeTraceScope Scope("float layer", L.Name); // snowc --time-trace
    const std::vector<float> &In = Tensor(L.input());
    switch (L.Kind) {
    case LayerKind::Conv:
      if (L.DynamicWeights) {
        Layer Scaled = L; // x * s: s's values are this conv's weights.
        Scaled.Weights = Tensor(L.Inputs[1]);
        Outs[I] = conv(Scaled, In, L.HasResidual ? &Tensor(L.Residual) : nullptr);
      } else {
        Outs[I] = conv(L, In, L.HasResidual ? &Tensor(L.Residual) : nullptr);
      }
      // canonicalize() never gives a conv both a relu and an activation.
      if (L.Activation != Act::None) {
        float Max = 0;
        for (float &X : Outs[I]) {
          Max = std::max(Max, std::fabs(X));
          X = float(evalAct(L.Activation, L.ActP0, L.ActP1, X));
        }
        if (PreActMax)
          (*PreActMax)[I] = Max;
      }
      break;
    case LayerKind::MaxPool:
    case LayerKind::AvgPool:
      Outs[I] = pool(L, In, L.Kind == LayerKind::AvgPool);
      break;
    case LayerKind::Concat:
      // CHW tensors stack along C by appending, in input order.
      for (int P : L.Inputs)
        Outs[I].insert(Outs[I].end(), Tensor(P).begin(), Tensor(P).end());
      break;
    case LayerKind::Slice: {
      // CHW: the channels are one run of the input.
      const size_t Plane = size_t(L.In.H) * L.In.W;
      Outs[I].assign(In.begin() + ptrdiff_t(L.SliceBegin * Plane),
                     In.begin() + ptrdiff_t((L.SliceBegin + L.Out.C) * Plane));
      break;
    }
    case LayerKind::Add:
      Outs[I] = add(L, In, Tensor(L.Inputs[1]));
      break;
    case LayerKind::Mul:
      Outs[I] = mul(In, Tensor(L.Inputs[1]));
      break;
    case LayerKind::Relu:
      Outs[I].resize(In.size());
      for (size_t J = 0; J < In.size(); ++J)
        Outs[I][J] = std::max(In[J], 0.0f);
      break;
    default:
      assert(false && "checkFloatGraph admits only canonical kinds");
      std::abort();
    }
    if (LayerMax)
      for (float X : Outs[I])
        (*LayerMax)[I] = std::max((*LayerMax)[I], std::fabs(X));
    for (size_t P : Free[I])
      std::vector<float>().swap(Outs[P]);
  }
  std::vector<float> Result = Outs.back();
  if (LayerOutputs)
    *LayerOutputs = std::move(Outs);
  return Result;
}

} // namespace

std::vector<float> snow::ir::runFloat(const Graph &G, const std::vector<float> &InputChw,
                                      std::vector<std::vector<float>> *LayerOutputs,
                                      std::vector<float> *PreActMax) {
  return evaluate(G, InputChw, LayerOutputs, PreActMax, nullptr);
}

void snow::ir::runFloatRanges(const Graph &G, const std::vector<float> &InputChw,
                              std::vector<float> &LayerMax, std::vector<float> &PreActMax) {
  evaluate(G, InputChw, nullptr, &PreActMax, &LayerMax);
}
