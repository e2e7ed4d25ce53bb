//===- ActivationTableTest.cpp - The post-processing table's error bound --===//
//
// docs/fixed-point.md, "Activation tables": a table holds f at the ends of
// 256 segments of h = 256 / 2^PreFrac input units and the hardware
// interpolates linearly, so for every int16 input
//   |lut(x) - f(x)| <= 1 + 2^OutFrac * (h^2 / 8 * max|f''| + h / 4 * J)
// output LSBs: half an LSB for rounding each entry, half for the
// interpolation's rounding, the chord's error on a smooth piece, and J, the
// largest change of slope at a kink that falls inside a segment (0 when
// every kink is on a segment end). The test measures the true worst case
// over all 65536 inputs (lutErrorLsb) for every function and many formats.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Graph.h"
#include "snow/isa/Lut.h"
#include <cmath>
#include <gtest/gtest.h>

using namespace snow;
using namespace snow::ir;

namespace {

struct Fn {
  Act A;
  float P0, P1;
  double MaxF2;              ///< max |f''| on the smooth pieces.
  std::vector<double> Kinks; ///< Where the slope jumps ...
  std::vector<double> Jumps; ///< ... and by how much.
};

const Fn Functions[] = {
    {Act::Clip, 0, 6, 0, {0, 6}, {1, 1}},
    {Act::Clip, -1.5f, 2.25f, 0, {-1.5, 2.25}, {1, 1}},
    {Act::Sigmoid, 0, 0, 0.0963, {}, {}},
    {Act::HardSigmoid, 1.0f / 6, 0.5f, 0, {-3, 3}, {1.0 / 6, 1.0 / 6}},
    {Act::HardSwish, 0, 0, 1.0 / 3, {-3, 3}, {0.5, 0.5}},
    {Act::Silu, 0, 0, 0.5, {}, {}},
    {Act::Gelu, 0, 0, 0.7979, {}, {}},
    {Act::Tanh, 0, 0, 0.7699, {}, {}},
};

Layer tableLayer(const Fn &F, int PreFrac, int OutFrac) {
  Layer L;
  L.Activation = F.A;
  L.ActP0 = F.P0;
  L.ActP1 = F.P1;
  L.PreFrac = PreFrac;
  L.OutFrac = OutFrac;
  L.QLut = buildLut(L);
  return L;
}

double bound(const Fn &F, int PreFrac, int OutFrac) {
  // A zoomed table's segments are 2^zoom times narrower; past its ends the
  // functions with an identity tail are flat or y = x to far under an LSB.
  const int Zoom = int(lutCover(F.A, PreFrac, OutFrac).Zoom);
  const double H = std::ldexp(1.0, isa::LutSegmentBits - PreFrac - Zoom);
  double J = 0;
  for (size_t K = 0; K < F.Kinks.size(); ++K) {
    const double Steps = F.Kinks[K] / H; // A kink on a segment end costs nothing.
    if (std::fabs(Steps - std::round(Steps)) > 1e-9)
      J = std::max(J, F.Jumps[K]);
  }
  return 1 + std::ldexp(H * H / 8 * F.MaxF2 + H / 4 * J, OutFrac);
}

} // namespace

// Output formats that hold f over the whole input range, as calibration
// chooses them (an output that saturates inside the range adds a kink at the
// saturation point, which the bound does not cover).
TEST(ActivationTable, ErrorWithinTheStatedBoundForEveryFunctionAndFormat) {
  for (const Fn &F : Functions)
    for (int Pre = 4; Pre <= 14; Pre += 2)
      for (int Want : {6, 10, 13}) {
        double Max = 0;
        for (int X = -32768; X <= 32768; X += 64)
          Max = std::max(Max, std::fabs(evalAct(F.A, F.P0, F.P1, std::ldexp(X, -Pre))));
        const int Out = std::min(Want, largestFrac(Max));
        Layer L = tableLayer(F, Pre, Out);
        const double Err = lutErrorLsb(L), Bound = bound(F, Pre, Out);
        EXPECT_LE(Err, Bound) << actName(F.A, F.P0, F.P1) << " from Q." << Pre << " to Q." << Out;
      }
}

// The bound is not loose by construction: piecewise-linear functions whose
// kinks sit on segment ends come out within the rounding (1 LSB), and a
// smooth function with a coarse input format shows its curvature term.
TEST(ActivationTable, PiecewiseLinearOnSegmentEndsIsExactUpToRounding) {
  Layer Relu6 = tableLayer(Functions[0], 8, 10); // 6 * 2^8 is a segment end.
  EXPECT_LE(lutErrorLsb(Relu6), 1.0);
  Layer Sig = tableLayer(Functions[2], 4, 13); // Segments of 16 input units.
  EXPECT_GT(lutErrorLsb(Sig), 2.0);
}

TEST(ActivationTable, EntriesAreTheFunctionAtSegmentEnds) {
  Layer L = tableLayer(Functions[2], 11, 14); // Sigmoid, Q4.11 -> Q1.14.
  ASSERT_EQ(L.QLut.size(), size_t(isa::LutEntries));
  EXPECT_EQ(L.QLut[128], 8192);  // sigmoid(0) = 0.5
  EXPECT_EQ(L.QLut[0], 0);       // sigmoid(-16) < 2^-15
  EXPECT_EQ(L.QLut[256], 16384); // sigmoid(16) rounds to 1
  // The interpolation is exact at every segment end.
  for (unsigned E = 0; E < 256; ++E)
    EXPECT_EQ(isa::lutLookup(L.QLut.data(), int16_t(int(E) * 256 - 32768)), L.QLut[E]);
}

TEST(ActivationTable, LookupRoundsHalfUpAndStaysBetweenEntries) {
  std::vector<int16_t> T(isa::LutEntries);
  for (unsigned E = 0; E < isa::LutEnds; ++E)
    T[E] = int16_t(E % 2 ? 32767 : -32768); // Steepest possible segments.
  T[isa::LutEnds] = isa::lutControl(0, false);
  for (int X = -32768; X <= 32767; ++X) {
    const int U = X + 32768, I = U >> 8, F = U & 255;
    const int64_t Num = int64_t(T[I + 1] - T[I]) * F + 128;
    const int64_t Want = T[I] + (Num >= 0 ? Num / 256 : -((-Num + 255) / 256));
    ASSERT_EQ(isa::lutLookup(T.data(), int16_t(X)), Want) << "x = " << X;
  }
}

// SiLU, GELU and HardSwish in one format Q7.8 (uniform formats; calibration
// picks PreFrac = OutFrac for them): the table spans [-R, R) at zoom 3
// (SiLU's R = 16: segments of 1/8 instead of 1) and continues as y = x above
// it. Its error is the rounding's and an eighth of the chord's, where the
// same function spread over the whole Q7.8 range (a different output format,
// so no tail) is 64 times further off in the chord term.
TEST(ActivationTable, IdentityTailZoomsIntoTheCurvedPart) {
  for (const Fn &F : {Functions[4], Functions[5], Functions[6]}) {
    Layer Tail = tableLayer(F, 8, 8);
    const LutCover C = lutCover(F.A, 8, 8);
    EXPECT_TRUE(C.IdentityTail) << actName(F.A, F.P0, F.P1);
    EXPECT_EQ(std::ldexp(1.0, 15 - 8 - int(C.Zoom)), lutLinearBeyond(F.A));
    EXPECT_EQ(Tail.QLut[isa::LutEnds], isa::lutControl(C.Zoom, true));
    EXPECT_LE(lutErrorLsb(Tail), bound(F, 8, 8)) << actName(F.A, F.P0, F.P1);
    EXPECT_LE(lutErrorLsb(Tail), 1.5) << actName(F.A, F.P0, F.P1);
    // y = x above the table: 100.0 in Q7.8 stays 100.0 (SiLU(100) = 100).
    EXPECT_EQ(isa::lutLookup(Tail.QLut.data(), int16_t(25600)), 25600);
    Layer Whole = tableLayer(F, 8, 9); // Q7.8 -> Q6.9: no tail, zoom 0.
    EXPECT_EQ(Whole.QLut[isa::LutEnds], 0);
  }
  EXPECT_GT(lutErrorLsb(tableLayer(Functions[5], 8, 9)), 8.0); // SiLU spread over Q7.8
  // Too narrow a format to reach R: no tail (SiLU in Q4.11 reaches 16 exactly;
  // in Q3.12, 8 < 16).
  EXPECT_TRUE(lutCover(Act::Silu, 11, 11).IdentityTail);
  EXPECT_EQ(lutCover(Act::Silu, 11, 11).Zoom, 0u);
  EXPECT_FALSE(lutCover(Act::Silu, 12, 12).IdentityTail);
  EXPECT_FALSE(lutCover(Act::Sigmoid, 8, 8).IdentityTail);
}

// rsqrt (a LayerNorm's 1 / sqrt(var + eps)) in the normalised mode: x > 0
// scaled by 4^m into [8192, 32767], interpolated, scaled back by 2^(m - s).
// For every positive input whose exact value the output holds:
//   |lut(x) - f(x)| <= 1/2 + 2^(m - s) + 2^-13 |f(x)|
// output LSBs: the final rounding, the entry's and the interpolation's
// rounding (half an LSB of the table each, scaled by 2^(m - s)), and the
// chord's error, at most 3/32 (h / w)^2 <= 1e-4 of f for segments of h = 256
// starting at w >= 8192 (lowered by the mean chord error, so less).
TEST(ActivationTable, RsqrtIsNormalisedWithinARelativeBound) {
  for (int Pre : {2, 6, 10, 14})
    for (int Out : {0, 4, 8, 12}) {
      Layer L;
      L.Activation = Act::Rsqrt;
      L.PreFrac = Pre;
      L.OutFrac = Out;
      L.QLut = buildLut(L);
      const int16_t Control = L.QLut[isa::LutEnds];
      ASSERT_TRUE(isa::lutNormalised(Control));
      const int S = int(isa::lutScale(Control));
      // The largest entry uses the table's range: s is as large as fits.
      int Max = 0;
      for (unsigned E = 160; E < isa::LutEnds; ++E)
        Max = std::max(Max, int(L.QLut[E]));
      EXPECT_GT(Max, S == 15 ? 0 : 16383) << "Q." << Pre << " -> Q." << Out;
      EXPECT_EQ(isa::lutLookup(L.QLut.data(), 0), 32767);
      EXPECT_EQ(isa::lutLookup(L.QLut.data(), -7), 32767);
      double Worst = 0;
      for (int X = 1; X <= 32767; ++X) {
        const double Exact = std::ldexp(evalAct(Act::Rsqrt, 0, 0, std::ldexp(X, -Pre)), Out);
        if (Exact > 32767)
          continue;
        const int M = int(isa::lutNormExponent(int16_t(X)));
        const double Bound = 0.5 + std::ldexp(1.0, M - S) + Exact / 8192;
        const double Err = std::fabs(isa::lutLookup(L.QLut.data(), int16_t(X)) - Exact);
        ASSERT_LE(Err, Bound) << "x = " << X << ", Q." << Pre << " -> Q." << Out;
        if (Exact >= 1024)
          Worst = std::max(Worst, Err / Exact);
      }
      EXPECT_LT(Worst, 0.005) << "Q." << Pre << " -> Q." << Out; // where f is >= 1024 LSBs
    }
}
