//===- AvgPoolTest.cpp - Average pooling of the reference executor --------===//
//
// Pins docs/fixed-point.md, "Average pooling": K = KH * KW counts the padding
// (count_include_pad), AvgShift = 15 + ceil(log2 K), AvgMult =
// round(2^AvgShift / K), y = sat16((sum * AvgMult + 2^(AvgShift-1)) >>
// AvgShift). The multiplier is an approximation of 1/K, so for large sums the
// contract's answer differs from round(sum / K); the oracle must follow the
// contract, and one test pins such a sum.
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"
#include "snow/ir/FloatEval.h"
#include "snow/ref/Reference.h"

#include <gtest/gtest.h>

using namespace snow;
using namespace snow::test;
using snow::ir::Shape;

namespace {

ir::Graph avgGraph(Shape In, unsigned K, unsigned S, unsigned Pad) {
  ir::Layer L = windowLayer("avg", ir::LayerKind::AvgPool, In, In.C, K, S, Pad);
  const ref::AvgConstants C = ref::avgPoolConstants(uint64_t(K) * K);
  L.AvgMult = C.Mult;
  L.AvgShift = C.Shift;
  L.InFrac = L.OutFrac = 8;
  return graphOf("avg", In, 8, {L});
}

TEST(RefAvgPool, ConstantsFollowTheContract) {
  // K = 1: shift 15, 2^15. Powers of two: 2^shift / K = 2^15 exactly.
  EXPECT_EQ(ref::avgPoolConstants(1).Shift, 15u);
  EXPECT_EQ(ref::avgPoolConstants(1).Mult, 32768u);
  EXPECT_EQ(ref::avgPoolConstants(4).Shift, 17u);
  EXPECT_EQ(ref::avgPoolConstants(4).Mult, 32768u);
  // 3: ceil(log2 3) = 2, 2^17 / 3 = 43690.67 -> 43691.
  EXPECT_EQ(ref::avgPoolConstants(3).Shift, 17u);
  EXPECT_EQ(ref::avgPoolConstants(3).Mult, 43691u);
  // 9: shift 19, 524288 / 9 = 58254.2 -> 58254.
  EXPECT_EQ(ref::avgPoolConstants(9).Shift, 19u);
  EXPECT_EQ(ref::avgPoolConstants(9).Mult, 58254u);
  // 49 (global pooling of 7x7): shift 21, 2097152 / 49 = 42799.02 -> 42799.
  EXPECT_EQ(ref::avgPoolConstants(49).Shift, 21u);
  EXPECT_EQ(ref::avgPoolConstants(49).Mult, 42799u);
}

TEST(RefAvgPool, FourTapsRoundExactHalvesUp) {
  // 2x2 windows, stride 2: y = (sum * 32768 + 65536) >> 17 = floor((sum + 2) / 4).
  // Channel 0 sums 2, -2, 6, -6 (exact halves): 0.5 -> 1, -0.5 -> 0,
  // 1.5 -> 2, -1.5 -> -1. Channel 1 sums 4, 1, 3, -3: 1, 0.25 -> 0,
  // 0.75 -> 1, -0.75 -> -1.
  ir::Graph G = avgGraph({2, 2, 8}, 2, 2, 0);
  EXPECT_EQ(G.output().Out, (Shape{2, 1, 4}));
  V X = {
      1, 1, -1, -1, 3, 3, -3, -3, // channel 0, row 0
      0, 0, 0,  0,  0, 0, 0,  0,  // row 1
      1, 1, 1,  0,  1, 1, -1, -1, // channel 1, row 0
      1, 1, 0,  0,  1, 0, -1, 0,  // row 1
  };
  EXPECT_EQ(runOk(G, X), (V{1, 0, 2, -1, /*channel 1*/ 1, 0, 1, -1}));
}

TEST(RefAvgPool, NineTapsCountThePadding) {
  // 3x3, stride 1, pad 1 over 1..9: the window sums are
  // 12 21 16 / 27 45 33 / 24 39 28, always divided by 9 (padding counted):
  // 1.33 2.33 1.78 / 3 5 3.67 / 2.67 4.33 3.11 -> 1 2 2 / 3 5 4 / 3 4 3.
  // (sum * 58254 + 2^18) >> 19 gives the same for sums this small.
  ir::Graph G = avgGraph({1, 3, 3}, 3, 1, 1);
  EXPECT_EQ(runOk(G, {1, 2, 3, 4, 5, 6, 7, 8, 9}), (V{1, 2, 2, 3, 5, 4, 3, 4, 3}));
  // Every window over a 2x2 input sees all four values and five padding
  // positions: 90 / 9 = 10, not 90 / 4.
  ir::Graph Small = avgGraph({1, 2, 2}, 3, 1, 1);
  EXPECT_EQ(runOk(Small, {9, 18, 27, 36}), (V{10, 10, 10, 10}));
}

TEST(RefAvgPool, NineTapsRoundNegativeSumsHalfUp) {
  // 1x1 input, pad 1: one value and eight padding positions.
  // -5 / 9 = -0.56 -> -1; -4 / 9 = -0.44 -> 0; 5 / 9 -> 1; 4 / 9 -> 0.
  ir::Graph G = avgGraph({1, 1, 1}, 3, 1, 1);
  EXPECT_EQ(runOk(G, {-5}), (V{-1}));
  EXPECT_EQ(runOk(G, {-4}), (V{0}));
  EXPECT_EQ(runOk(G, {5}), (V{1}));
  EXPECT_EQ(runOk(G, {4}), (V{0}));
}

TEST(RefAvgPool, LargeSumsFollowTheMultiplierNotTheTrueMean) {
  // Eight 20000 and one 20005: sum 180005, mean 20000.56 (round: 20001). The
  // contract: 180005 * 58254 = 10486011270, + 262144 = 10486273414,
  // >> 19 = 20000: 58254 / 2^19 is a little below 1/9, so the scaled sum is
  // 20000.479, under the half the true mean is over.
  ir::Graph G = avgGraph({1, 3, 3}, 3, 1, 0);
  V X(9, 20000);
  X[4] = 20005;
  EXPECT_EQ(runOk(G, X), (V{20000}));
}

TEST(RefAvgPool, GlobalPoolingIsOneWindowOverTheInput) {
  // 7x7 window over 7x7 (global average pooling after canonicalize), two
  // channels of constant 100 and -3: K = 49, mult 42799, shift 21.
  //   4900 * 42799 + 2^20 = 210763676, >> 21 = floor(100.49995) = 100
  //   -147 * 42799 + 2^20 = -5242877,  >> 21 = floor(-2.4999986) = -3
  ir::Graph G = avgGraph({2, 7, 7}, 7, 7, 0);
  EXPECT_EQ(G.output().Out, (Shape{2, 1, 1}));
  V X(49, 100);
  X.insert(X.end(), 49, -3);
  EXPECT_EQ(runOk(G, X), (V{100, -3}));
}

TEST(RefAvgPool, FloatDividesByTheWholeWindow) {
  // As NineTapsCountThePadding, in float: exact means, padding counted.
  ir::Graph G = avgGraph({1, 2, 2}, 3, 1, 1);
  EXPECT_EQ(ir::runFloat(G, {9, 18, 27, 36}), (std::vector<float>(4, 10.0f)));
  ir::Graph H = avgGraph({1, 2, 8}, 2, 2, 0);
  EXPECT_EQ(ir::runFloat(H, {1, 1, -1, -1, 3, 3, -3, -3, 0, 0, 0, 0, 0, 0, 0, 0}),
            (std::vector<float>{0.5f, -0.5f, 1.5f, -1.5f}));
}

} // namespace
