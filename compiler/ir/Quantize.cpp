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
#include "snow/isa/Lut.h"

#include "snow/support/HugePages.h"
#include "snow/support/Parallel.h"
#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <mutex>

using namespace snow::ir;

namespace {

/// Formats are searched in 0..24: beyond 24 fraction bits a float32 weight
/// has no more precision to give, and the accumulator alignment shift
/// (InFrac + WFrac - OutFrac) stays small.
constexpr int MaxFrac = 24;

/// Activations are Q(15-f).f with f in 0..15.
constexpr int MaxActFrac = std::numeric_limits<int16_t>::digits;

/// The largest |X| that is not NaN (0 for none). A maximum does not depend
/// on the order it is taken in, so parts and lanes may take it separately.
float maxAbs(const std::vector<float> &V) {
  float M = 0;
  std::mutex Lock;
  snow::parallelFor(V.size(), 1, 1 << 20, [&](size_t Begin, size_t End) {
    constexpr unsigned Ways = 8; // independent maxima, which vectorize
    float Part[Ways] = {};
    size_t I = Begin;
    for (; I + Ways <= End; I += Ways)
      for (unsigned K = 0; K < Ways; ++K)
        Part[K] = std::max(Part[K], std::fabs(V[I + K]));
    for (; I < End; ++I)
      Part[0] = std::max(Part[0], std::fabs(V[I]));
    std::lock_guard<std::mutex> Guard(Lock);
    for (float P : Part)
      M = std::max(M, P);
  });
  return M;
}

/// 2^Frac, exactly.
double powerOfTwo(int Frac) {
  assert(Frac >= -1022 && Frac <= 1023 && "2^Frac must be a normal double");
  return std::bit_cast<double>(uint64_t(1023 + Frac) << 52);
}

/// saturate16(round_half_away_from_zero(Scaled)), NaN to 0 (docs/fixed-point.md).
/// The rounding direction is arithmetic, not a branch: quantization runs this
/// on every weight, and random weights would defeat branch prediction.
int16_t roundToFixed(double Scaled) {
  // NaN has no fixed-point meaning; 0 keeps the conversions below defined.
  // Clamping to [-32769, 32768] first changes no saturated result and makes
  // the truncation exact in int; the fraction left over (Scaled with its
  // integer bits removed) is exact too.
  const double C = std::min(std::max(Scaled == Scaled ? Scaled : 0.0, -32769.0), 32768.0);
  const int T = int(C);
  const double Frac = C - T;
  const int R = T + int(Frac >= 0.5) - int(Frac <= -0.5); // half away from zero
  return int16_t(std::clamp(R, -32768, 32767));
}

/// Q[I] = roundToFixed(V[I] * Scale) for Lanes values at once: roundToFixed's
/// steps on vectors of T, each lane an IEEE operation, so the same bits when
/// V[I] * Scale is exact in T (always in double; in float for Scale = 2^Frac
/// with Frac >= 0: the bits only move up, and an overflow becomes infinity,
/// which saturates as the double did). Truncation and the fraction left over
/// are exact in either.
template <typename T, unsigned Lanes> struct LaneTypes;
template <> struct LaneTypes<double, 4> {
  using VF = float __attribute__((vector_size(16)));
  using VT = double __attribute__((vector_size(32)));
  using VI = int32_t __attribute__((vector_size(16)));
  using VS = int16_t __attribute__((vector_size(8)));
};
template <> struct LaneTypes<float, 8> {
  using VF = float __attribute__((vector_size(32)));
  using VT = VF;
  using VI = int32_t __attribute__((vector_size(32)));
  using VS = int16_t __attribute__((vector_size(16)));
};

template <typename T, unsigned Lanes>
[[gnu::always_inline]] inline void roundLanes(const float *V, int16_t *Q, T Scale) {
  using VF = typename LaneTypes<T, Lanes>::VF;
  using VT = typename LaneTypes<T, Lanes>::VT;
  using VI = typename LaneTypes<T, Lanes>::VI;
  using VS = typename LaneTypes<T, Lanes>::VS;
  VF X;
  std::memcpy(&X, V, sizeof(X));
  VT C = __builtin_convertvector(X, VT) * Scale;
  C = C == C ? C : T(0);
  C = C < T(-32769) ? T(-32769) : C;
  C = C > T(32768) ? T(32768) : C;
  const VI Trunc = __builtin_convertvector(C, VI);
  const VT Frac = C - __builtin_convertvector(Trunc, VT);
  // A true comparison is -1 in each lane.
  VI R = Trunc - __builtin_convertvector(Frac >= T(0.5), VI) +
         __builtin_convertvector(Frac <= T(-0.5), VI);
  R = R < -32768 ? -32768 : R;
  R = R > 32767 ? 32767 : R;
  const VS S = __builtin_convertvector(R, VS);
  std::memcpy(Q, &S, sizeof(S));
}

/// toFixedInto's loop: Lanes values at a time in T (roundLanes), the tail
/// one by one. The baseline x86-64 has no vector double-to-int conversion
/// that would make this pay; AVX2 converts four doubles or eight floats.
template <typename T, unsigned Lanes>
#if defined(__x86_64__) || defined(__i386__)
[[gnu::target("avx2")]]
#endif
void roundToFixedVector(const float *V, int16_t *Q, size_t N, T Scale) {
  size_t I = 0;
  for (; I + Lanes <= N; I += Lanes)
    roundLanes<T, Lanes>(V + I, Q + I, Scale);
  for (; I < N; ++I)
    Q[I] = roundToFixed(double(V[I]) * double(Scale));
}

bool hasAvx2() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool Has = __builtin_cpu_supports("avx2");
  return Has;
#else
  return false;
#endif
}

/// toFixed of every element of V, in parallel. double(X) * 2^Frac is exact
/// (a float times a power of two in 0..24 stays far inside double's range),
/// so this is the same value as ldexp gives.
std::vector<int16_t> toFixedAll(const std::vector<float> &V, int Frac) {
  std::vector<int16_t> Q;
  snow::reserveHuge(Q, V.size());
  Q.resize(V.size());
  snow::parallelFor(V.size(), 1, 1 << 18, [&](size_t Begin, size_t End) {
    toFixedInto(&V[Begin], &Q[Begin], End - Begin, Frac);
  });
  return Q;
}

/// toFixed of every deferred weight, drawn and rounded in parts on several
/// threads (no float copy of the layer is made).
std::vector<int16_t> drawFixed(const SeededWeights &S, int Frac) {
  const uint64_t N = S.size();
  std::vector<int16_t> Q;
  snow::reserveHuge(Q, N);
  Q.resize(N);
  snow::parallelFor(N, 1, 1 << 18, [&](size_t Begin, size_t End) {
    constexpr size_t Chunk = 4096;
    float Buf[Chunk];
    for (size_t I = Begin; I < End; I += Chunk) {
      const size_t Len = std::min(Chunk, End - I);
      S.draw(I, Len, Buf);
      toFixedInto(Buf, &Q[I], Len, Frac);
    }
  });
  return Q;
}

llvm::Error layerError(const Layer &L, const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: layer '%s': %s",
                                 L.Loc.str().c_str(), L.Name.c_str(), Msg.c_str());
}

} // namespace

int16_t snow::ir::toFixed(float X, int Frac) {
  // In this range X * 2^Frac neither overflows nor underflows a double, so
  // the product is exact; beyond it ldexp gives the (saturating) answer.
  if (Frac >= -800 && Frac <= 800)
    return roundToFixed(double(X) * powerOfTwo(Frac));
  return roundToFixed(std::ldexp(double(X), Frac));
}

void snow::ir::toFixedInto(const float *X, int16_t *Q, size_t N, int Frac) {
  assert(Frac >= -800 && Frac <= 800 && "a weight or activation format");
  const double Scale = powerOfTwo(Frac);
  // Eight floats a vector where V * 2^Frac is exact in float, else four
  // doubles (roundLanes).
  if (hasAvx2() && Frac >= 0 && Frac <= 100)
    return roundToFixedVector<float, 8>(X, Q, N, float(Scale));
  if (hasAvx2())
    return roundToFixedVector<double, 4>(X, Q, N, Scale);
  for (size_t I = 0; I < N; ++I)
    Q[I] = roundToFixed(double(X[I]) * Scale);
}

std::vector<int16_t> snow::ir::quantizedWeights(const Layer &L) {
  if (!L.Seeded || !L.QWeights.empty())
    return L.QWeights;
  return drawFixed(*L.Seeded, L.WFrac);
}

float snow::ir::fromFixed(int16_t X, int Frac) { return float(std::ldexp(double(X), -Frac)); }

int snow::ir::largestFrac(double MaxAbs) {
  for (int F = MaxFrac; F >= 0; --F)
    if (std::round(std::ldexp(MaxAbs, F)) <= 32767.0)
      return F;
  return 0;
}

int snow::ir::avgPoolShift(uint64_t K) {
  unsigned Mult, Shift;
  avgPoolFactors(K, Mult, Shift);
  return int(Shift);
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
  const float MaxW = L.Seeded ? L.Seeded->maxAbs() : maxAbs(L.Weights);
  return MaxW == 0 ? 15 : largestFrac(MaxW);
}

namespace {

/// f'' of the smooth functions (0 for the piecewise-linear ones, whose
/// tables are exact where their kinks fall on segment ends).
double secondDerivative(Act A, double X) {
  switch (A) {
  case Act::Sigmoid: {
    const double S = 1 / (1 + std::exp(-X));
    return S * (1 - S) * (1 - 2 * S);
  }
  case Act::Tanh: {
    const double T = std::tanh(X);
    return -2 * T * (1 - T * T);
  }
  case Act::Silu: {
    const double S = 1 / (1 + std::exp(-X));
    return S * (1 - S) * (2 + X * (1 - 2 * S));
  }
  case Act::Gelu: {
    const double Phi = std::exp(-X * X / 2) / std::sqrt(2 * M_PI);
    return Phi * (2 - X * X);
  }
  case Act::Rsqrt:
    return X > 0 ? 0.75 * std::pow(X, -2.5) : 0;
  default:
    return 0;
  }
}

} // namespace

double snow::ir::lutLinearBeyond(Act A) {
  switch (A) {
  case Act::HardSwish: // Exactly 0 below -3 and x above 3.
    return 4;
  case Act::Gelu: // |GELU(-8)| = 5e-15.
    return 8;
  case Act::Silu: // |SiLU(-16)| = 16 - SiLU(16) = 1.8e-6, under Q4.11's step / 200.
    return 16;
  default:
    return 0;
  }
}

LutCover snow::ir::lutCover(Act A, int PreFrac, int OutFrac) {
  const double R = lutLinearBeyond(A);
  LutCover C;
  if (A == Act::Rsqrt) {
    C.Normalised = true;
    return C;
  }
  if (R == 0 || PreFrac != OutFrac || powerOfTwo(15 - PreFrac) < R)
    return C;
  C.IdentityTail = true;
  const unsigned MaxZoom = (1u << isa::LutZoomBits) - 1;
  while (C.Zoom < MaxZoom && powerOfTwo(15 - PreFrac - int(C.Zoom) - 1) >= R)
    ++C.Zoom;
  return C;
}

namespace {

/// The normalised mode's table (isa/Lut.h): the segments from w = 8192 on
/// hold f at x = w / 2^PreFrac (m = 0) times 2^(OutFrac + s), with the
/// largest scale shift s that keeps them in int16; below them only T[0]
/// matters (x <= 0: f's limit, saturated), the others repeat the first used one.
std::vector<int16_t> buildNormalisedLut(const Layer &L) {
  std::vector<int16_t> T(snow::isa::LutEntries);
  const unsigned Lo = (8192 + 32768) >> snow::isa::LutSegmentBits; // The segment of w = 8192.
  const double InScale = powerOfTwo(-L.PreFrac);
  const double H = powerOfTwo(int(snow::isa::LutSegmentBits) - L.PreFrac);
  auto At = [&](unsigned E) {
    const double X = (double(int64_t(E) << snow::isa::LutSegmentBits) - 32768) * InScale;
    return evalAct(L.Activation, L.ActP0, L.ActP1, X) -
           H * H / 12 * secondDerivative(L.Activation, X);
  };
  double Max = 0;
  for (unsigned E = Lo; E < snow::isa::LutEnds; ++E)
    Max = std::max(Max, std::fabs(At(E)));
  unsigned S = 0;
  const unsigned MaxS = (1u << snow::isa::LutScaleBits) - 1;
  while (S < MaxS && Max * powerOfTwo(L.OutFrac + int(S) + 1) <= 32767)
    ++S;
  const double Scale = powerOfTwo(L.OutFrac + int(S));
  for (unsigned E = Lo; E < snow::isa::LutEnds; ++E)
    T[E] = roundToFixed(At(E) * Scale);
  for (unsigned E = 1; E < Lo; ++E)
    T[E] = T[Lo];
  T[0] = roundToFixed(evalAct(L.Activation, L.ActP0, L.ActP1, 0) * powerOfTwo(L.OutFrac));
  T[snow::isa::LutEnds] = snow::isa::lutControl(0, false, true, S);
  return T;
}

} // namespace

std::vector<int16_t> snow::ir::buildLut(const Layer &L) {
  assert(L.Activation != Act::None && "a table needs a function");
  const LutCover Cover = lutCover(L.Activation, L.PreFrac, L.OutFrac);
  if (Cover.Normalised)
    return buildNormalisedLut(L);
  std::vector<int16_t> T(isa::LutEntries);
  const int WFrac = L.PreFrac + int(Cover.Zoom); // Fraction bits of w = x * 2^zoom.
  const double InScale = powerOfTwo(-WFrac), OutScale = powerOfTwo(L.OutFrac);
  const double H = powerOfTwo(int(isa::LutSegmentBits) - WFrac); // Segment width.
  for (unsigned E = 0; E < isa::LutEnds; ++E) {
    const double X = (double(int64_t(E) << isa::LutSegmentBits) - 32768) * InScale;
    // A chord lies h^2/12 f'' above a smooth function on average over its
    // segment: entries lowered by that make the interpolation's error average
    // to zero instead of leaning one way (a mean over many values, such as
    // squeeze-and-excitation's global average, would keep the bias), and
    // shrink its largest value from h^2/8 |f''| to about h^2/12 |f''|.
    const double Y =
        evalAct(L.Activation, L.ActP0, L.ActP1, X) - H * H / 12 * secondDerivative(L.Activation, X);
    T[E] = roundToFixed(Y * OutScale);
  }
  T[isa::LutEnds] = isa::lutControl(Cover.Zoom, Cover.IdentityTail);
  return T;
}

double snow::ir::lutErrorLsb(const Layer &L) {
  assert(L.QLut.size() == isa::LutEntries && "quantize() builds the table");
  const double InScale = powerOfTwo(-L.PreFrac), OutScale = powerOfTwo(L.OutFrac);
  double Worst = 0;
  for (int32_t X = INT16_MIN; X <= INT16_MAX; ++X) {
    const double Exact = evalAct(L.Activation, L.ActP0, L.ActP1, X * InScale) * OutScale;
    if (Exact < INT16_MIN || Exact > INT16_MAX)
      continue;
    Worst = std::max(Worst, std::fabs(isa::lutLookup(L.QLut.data(), int16_t(X)) - Exact));
  }
  return Worst;
}

ActFormats snow::ir::uniformFormats(const Graph &G, int ActFrac) {
  ActFormats F;
  F.InputFrac = ActFrac;
  F.OutFrac.assign(G.Layers.size(), ActFrac);
  F.PreFrac.assign(G.Layers.size(), ActFrac);
  return F;
}

void snow::ir::quantize(Graph &G, int ActFrac, FloatWeights Floats) {
  assert(ActFrac >= 0 && ActFrac <= MaxActFrac && "activation format must be Q(15-f).f");
  // One format everywhere meets every constraint: nothing rescales, and a
  // conv's shift InFrac + WFrac - OutFrac = WFrac is never negative.
  llvm::cantFail(quantize(G, uniformFormats(G, ActFrac), Floats));
}

llvm::Error snow::ir::quantize(Graph &G, const ActFormats &F, FloatWeights Floats) {
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
    L.PreFrac = F.PreFrac.empty() ? L.OutFrac : F.PreFrac[I];
    if (L.OutFrac < 0 || L.OutFrac > MaxActFrac || L.PreFrac < 0 || L.PreFrac > MaxActFrac)
      return layerError(L, fmt::format("output format has {} fraction bits ({} before the "
                                       "activation), expected 0..{}",
                                       L.OutFrac, L.PreFrac, MaxActFrac));
    L.QLut.clear();
    L.QWeights.clear();
    L.QBias.clear();
    L.WFrac = L.BFrac = 0;
    if (L.Kind == LayerKind::AvgPool) {
      // The mean, rescaled from the input's format to the output's by the
      // shift (docs/fixed-point.md, "Average pooling").
      avgPoolFactors(uint64_t(L.KH) * L.KW, L.AvgMult, L.AvgShift);
      const int Shift = int(L.AvgShift) - (L.OutFrac - L.InFrac);
      if (Shift < 1 || Shift > 63)
        return layerError(L, fmt::format("average pooling from {} to {} fraction bits needs a "
                                         "shift of {}, outside 1..63",
                                         L.InFrac, L.OutFrac, Shift));
      L.AvgShift = unsigned(Shift);
      continue;
    }
    if (L.Kind == LayerKind::Mul) {
      // b multiplies in a weight's place, so its format is WFrac; the
      // product holds InFrac + WFrac fraction bits and the writeback shifts
      // it right to the output's (docs/fixed-point.md, "Products").
      L.WFrac = FracOf(L.Inputs[1]);
      if (L.OutFrac > L.InFrac + L.WFrac)
        return layerError(L, fmt::format("output format has {} fraction bits, more than the "
                                         "product's {} + {}",
                                         L.OutFrac, L.InFrac, L.WFrac));
      continue;
    }
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
    L.WFrac = L.DynamicWeights ? FracOf(L.Inputs[1]) : weightFrac(L);
    // The accumulator holds InFrac + WFrac fraction bits; the output and the
    // residual are aligned to it by shifts that cannot be negative.
    if (L.writebackFrac() > L.InFrac + L.WFrac)
      return layerError(L, fmt::format("{} format has {} fraction bits, more than input {} + "
                                       "weights {}",
                                       L.Activation == Act::None ? "output" : "pre-activation",
                                       L.writebackFrac(), L.InFrac, L.WFrac));
    if (L.HasResidual && L.ResFrac > L.InFrac + L.WFrac)
      return layerError(L, fmt::format("the fused residual has {} fraction bits, more than input "
                                       "{} + weights {}",
                                       L.ResFrac, L.InFrac, L.WFrac));
    // The bias is shifted left by InFrac + WFrac - BFrac before accumulation,
    // so BFrac may not exceed InFrac + WFrac.
    L.BFrac = std::min(L.InFrac + L.WFrac, largestFrac(maxAbs(L.Bias)));
    // Run-time weights are s's values, already in s's format; deferred ones
    // the packer draws stay deferred (Layer::packerDrawsWeights).
    if (L.DynamicWeights || L.packerDrawsWeights())
      L.QWeights.clear();
    else
      L.QWeights = L.Seeded ? drawFixed(*L.Seeded, L.WFrac) : toFixedAll(L.Weights, L.WFrac);
    L.QBias = toFixedAll(L.Bias, L.BFrac);
    if (L.Activation != Act::None)
      L.QLut = buildLut(L);
    if (Floats == FloatWeights::Release) {
      std::vector<float>().swap(L.Weights);
      std::vector<float>().swap(L.Bias);
    }
  }
  return llvm::Error::success();
}
