//===- ErrorBound.cpp - Worst-case error of the fixed-point path ----------===//
//
// Each layer's bound E follows from its inputs' bounds and from what the
// layer itself rounds (docs/fixed-point.md; real units, 2^-f per LSB):
//
//   input     E = max |x - dequant(quant(x))|            (at most 2^-(f+1))
//   conv      E = max over output channels o of
//                   E_in * sum|w^_o| + X_in * sum|w^_o - w_o| + |b^_o - b_o|
//                   + E_residual + 2^-(OutFrac+1) if the writeback shifts
//             (w^ quantized weights, X_in = max |exact input|; from
//              x^w^ - xw = (x^ - x) w^ + x (w^ - w))
//   avgpool   E = E_in + (X_in + E_in) * |AvgMult * K / 2^AvgShift - 1|
//                   + 2^-(OutFrac+1)
//   conv with an activation f: the conv's bound above at PreFrac (E_pre),
//             then E = Lip(f) * E_pre + the table's own error (lutErrorLsb
//             LSBs of OutFrac, measured over every input)
//   maxpool, relu, concat   E = E_in (max and max(., 0) are 1-Lipschitz)
//   add       E = E_a + E_b (the integer sum is exact)
//
// The bound assumes no value saturates; the runner checks that separately.
//
//===----------------------------------------------------------------------===//

#include "ErrorBound.h"

#include <algorithm>
#include <cmath>

using namespace snow;
using namespace snow::ir;

namespace {

double maxAbs(const std::vector<float> &V) {
  double M = 0;
  for (float X : V)
    M = std::max(M, double(std::fabs(X)));
  return M;
}

double lsbHalf(int Frac) { return std::ldexp(0.5, -Frac); }

/// The largest slope of a layer's activation: how much an input error grows.
double lipschitz(const Layer &L) {
  switch (L.Activation) {
  case Act::Sigmoid:
    return 0.25;
  case Act::HardSigmoid:
    return std::fabs(L.ActP0);
  case Act::HardSwish: // (2x + 3) / 6 at x = 3.
    return 1.5;
  case Act::Silu: // silu' peaks at 1.0998 (x = 2.40).
    return 1.1;
  case Act::Gelu: // gelu' peaks at 1.129 (x = 1.41).
    return 1.13;
  default: // Clip, Tanh.
    return 1;
  }
}

double convBound(const Layer &L, double EIn, double XIn, double ERes) {
  const size_t PerOut = L.Weights.size() / L.Out.C;
  double Worst = 0;
  for (uint32_t O = 0; O < L.Out.C; ++O) {
    double SumQ = 0, SumDiff = 0;
    for (size_t K = O * PerOut; K < (O + 1) * PerOut; ++K) {
      double Q = std::ldexp(double(L.QWeights[K]), -L.WFrac);
      SumQ += std::fabs(Q);
      SumDiff += std::fabs(Q - double(L.Weights[K]));
    }
    double DB = std::fabs(std::ldexp(double(L.QBias[O]), -L.BFrac) - double(L.Bias[O]));
    Worst = std::max(Worst, EIn * SumQ + XIn * SumDiff + DB);
  }
  const int Frac = L.writebackFrac();
  const bool Shifts = L.InFrac + L.WFrac - Frac > 0;
  const double Pre = Worst + (L.HasResidual ? ERes : 0.0) + (Shifts ? lsbHalf(Frac) : 0.0);
  if (L.Activation == Act::None)
    return Pre;
  return lipschitz(L) * Pre + std::ldexp(lutErrorLsb(L), -L.OutFrac);
}

} // namespace

std::vector<double>
snow::onnxtest::layerErrorBounds(const Graph &G, const std::vector<float> &InputChw,
                                 const std::vector<std::vector<float>> &FloatLayers) {
  double EInput = 0;
  for (float X : InputChw)
    EInput = std::max(
        EInput, std::fabs(double(fromFixed(toFixed(X, G.InputFrac), G.InputFrac)) - double(X)));
  const double XInput = maxAbs(InputChw);
  std::vector<double> E(G.Layers.size(), 0.0);
  auto Err = [&](int P) { return P < 0 ? EInput : E[size_t(P)]; };
  auto Max = [&](int P) { return P < 0 ? XInput : maxAbs(FloatLayers[size_t(P)]); };
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &L = G.Layers[I];
    const double EIn = Err(L.input());
    switch (L.Kind) {
    case LayerKind::Conv:
      E[I] = convBound(L, EIn, Max(L.input()), L.HasResidual ? Err(L.Residual) : 0.0);
      break;
    case LayerKind::AvgPool: {
      double K = double(L.KH) * L.KW;
      // The multiplier and shift scale the sum by 1/K and by 2^(OutFrac - InFrac).
      double Rel = std::fabs(
          double(L.AvgMult) * K / std::ldexp(1.0, int(L.AvgShift) + L.OutFrac - L.InFrac) - 1.0);
      E[I] = EIn + (Max(L.input()) + EIn) * Rel + lsbHalf(L.OutFrac);
      break;
    }
    case LayerKind::Add:
      E[I] = Err(L.Inputs[0]) + Err(L.Inputs[1]);
      break;
    case LayerKind::Concat:
      for (int P : L.Inputs)
        E[I] = std::max(E[I], Err(P));
      break;
    default: // MaxPool, Relu
      E[I] = EIn;
      break;
    }
  }
  return E;
}

double snow::onnxtest::outputErrorBound(const Graph &G, const std::vector<double> &LayerBounds) {
  double E = LayerBounds.back();
  return G.HostSoftmax ? 0.5 * E : E;
}
