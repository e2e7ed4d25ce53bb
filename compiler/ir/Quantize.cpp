//===- Quantize.cpp - Choosing fixed-point formats (docs/fixed-point.md) --===//
//
// The simulator, the reference executor and the RTL all consume the integers
// chosen here, so the rule must be exactly the one in docs/fixed-point.md and
// must not depend on floating-point accidents: the format search checks each
// candidate with an exact product (scaling a float by a power of two is exact
// in double) instead of deriving the exponent with log2, whose rounding near
// powers of two would flip the choice at the boundary.
//
// The activation formats come from outside: one for every tensor (the
// hardware's act_frac_bits) or per tensor from calibration (Calibrate.cpp).
// Either way they are checked here against what the datapath can do, so a
// bad choice is an error naming the layer rather than a wrong shift.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Calibrate.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <fmt/format.h>

using namespace snow::ir;

namespace {

/// Formats are searched in 0..24: beyond 24 fraction bits a float32 weight
/// has no more precision to give, and the accumulator alignment shift
/// (InFrac + WFrac - OutFrac) stays small.
constexpr int MaxFrac = 24;

/// Activations are Q(15-f).f with f in 0..15.
constexpr int MaxActFrac = 15;

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

int16_t snow::ir::toFixed(float X, int Frac) {
  double Scaled = std::round(std::ldexp(double(X), Frac)); // half away from zero
  // NaN has no fixed-point meaning; 0 keeps the cast below defined.
  if (std::isnan(Scaled))
    return 0;
  if (Scaled > 32767.0)
    return 32767;
  if (Scaled < -32768.0)
    return -32768;
  return int16_t(Scaled);
}

float snow::ir::fromFixed(int16_t X, int Frac) { return float(std::ldexp(double(X), -Frac)); }

int snow::ir::largestFrac(double MaxAbs) {
  for (int F = MaxFrac; F >= 0; --F)
    if (std::round(std::ldexp(MaxAbs, F)) <= 32767.0)
      return F;
  return 0;
}

void snow::ir::avgPoolFactors(uint64_t K, unsigned &Mult, unsigned &Shift) {
  assert(K > 0 && K <= MaxAvgWindow && "window size out of the supported range");
  // ceil(log2 K) in integers: 2^Shift / K then lies in [2^15, 2^16), so the
  // multiplier keeps 16 significant bits and, for K <= 2^16, rounds to at
  // most 65535: it fits an unsigned 16-bit field. (For K around 2^18 it
  // would round up to 65536; the parser rejects such windows.)
  unsigned Log = 0;
  while ((uint64_t(1) << Log) < K)
    ++Log;
  Shift = 15 + Log;
  // round(2^Shift / K): a tie would need K to be a power of two, where the
  // division is exact, so rounding half up is the same as any other rule.
  Mult = unsigned(((uint64_t(1) << Shift) + K / 2) / K);
}

int snow::ir::weightFrac(const Layer &L) {
  const float MaxW = maxAbs(L.Weights);
  return MaxW == 0 ? 15 : largestFrac(MaxW);
}

ActFormats snow::ir::uniformFormats(const Graph &G, int ActFrac) {
  ActFormats F;
  F.InputFrac = ActFrac;
  F.OutFrac.assign(G.Layers.size(), ActFrac);
  return F;
}

void snow::ir::quantize(Graph &G, int ActFrac) {
  assert(ActFrac >= 0 && ActFrac <= MaxActFrac && "activation format must be Q(15-f).f");
  // One format everywhere meets every constraint: nothing rescales, and a
  // conv's shift InFrac + WFrac - OutFrac = WFrac is never negative.
  llvm::cantFail(quantize(G, uniformFormats(G, ActFrac)));
}

llvm::Error snow::ir::quantize(Graph &G, const ActFormats &F) {
  if (F.OutFrac.size() != G.Layers.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "model '%s': %zu activation formats for %zu layers",
                                   G.Name.c_str(), F.OutFrac.size(), G.Layers.size());
  if (F.InputFrac < 0 || F.InputFrac > MaxActFrac)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "model '%s': input format has %d fraction bits, expected 0..%d",
                                   G.Name.c_str(), F.InputFrac, MaxActFrac);
  G.InputFrac = F.InputFrac;
  auto FracOf = [&](int I) { return I < 0 ? G.InputFrac : G.Layers[I].OutFrac; };
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    Layer &L = G.Layers[I];
    L.InFrac = FracOf(L.input());
    L.OutFrac = F.OutFrac[I];
    if (L.OutFrac < 0 || L.OutFrac > MaxActFrac)
      return layerError(L, fmt::format("output format has {} fraction bits, expected 0..{}",
                                       L.OutFrac, MaxActFrac));
    L.QWeights.clear();
    L.QBias.clear();
    L.WFrac = L.BFrac = 0;
    if (L.Kind == LayerKind::AvgPool)
      avgPoolFactors(uint64_t(L.KH) * L.KW, L.AvgMult, L.AvgShift);
    // An fc as written is quantized like the conv it becomes, so that the
    // values do not depend on whether canonicalize() ran first.
    if (L.Kind != LayerKind::Conv && L.Kind != LayerKind::Fc) {
      // Pooling, concat, add and relu only move, compare or add values: the
      // hardware has no shift for them, so every input and the output must
      // share one format.
      for (int P : L.Inputs)
        if (FracOf(P) != L.OutFrac)
          return layerError(L, fmt::format("'{}' cannot rescale, but its output format has {} "
                                           "fraction bits and an input {}",
                                           kindName(L.Kind), L.OutFrac, FracOf(P)));
      continue;
    }
    if (L.HasResidual)
      L.ResFrac = FracOf(L.Residual);
    L.WFrac = weightFrac(L);
    // The accumulator holds InFrac + WFrac fraction bits; the output and the
    // residual are aligned to it by shifts that cannot be negative.
    if (L.OutFrac > L.InFrac + L.WFrac)
      return layerError(L, fmt::format("output format has {} fraction bits, more than input {} + "
                                       "weights {}",
                                       L.OutFrac, L.InFrac, L.WFrac));
    if (L.HasResidual && L.ResFrac > L.InFrac + L.WFrac)
      return layerError(L, fmt::format("the fused residual has {} fraction bits, more than input "
                                       "{} + weights {}",
                                       L.ResFrac, L.InFrac, L.WFrac));
    // The bias is shifted left by InFrac + WFrac - BFrac before accumulation,
    // so BFrac may not exceed InFrac + WFrac.
    L.BFrac = std::min(L.InFrac + L.WFrac, largestFrac(maxAbs(L.Bias)));
    L.QWeights.reserve(L.Weights.size());
    for (float W : L.Weights)
      L.QWeights.push_back(toFixed(W, L.WFrac));
    L.QBias.reserve(L.Bias.size());
    for (float B : L.Bias)
      L.QBias.push_back(toFixed(B, L.BFrac));
  }
  return llvm::Error::success();
}
