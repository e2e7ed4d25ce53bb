//===- MaxPoolTest.cpp - Max pooling of the reference executor ------------===//
//
// Pins the pooling rule of docs/fixed-point.md: padding holds -32768 and never
// wins over a real input, and ceil_mode windows that run past the input see
// only padding there. Inputs are negative on purpose: a padding value of 0
// (the classic bug) would win everywhere and show up at once.
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"
#include "snow/ir/FloatEval.h"
#include "snow/ref/Reference.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace snow;
using namespace snow::test;
using snow::ir::Shape;

namespace {

ir::Graph poolGraph(Shape In, unsigned K, unsigned S, unsigned Pad, bool CeilMode) {
  ir::Layer L = windowLayer("pool", ir::LayerKind::MaxPool, In, In.C, K, S, Pad, CeilMode);
  L.InFrac = L.OutFrac = 8;
  return graphOf("hand", In, 8, {L});
}

/// in[y][x] = -(W*y + x + 1): all negative, distinct, largest at the top-left.
V descending(unsigned H, unsigned W) {
  V X;
  for (unsigned Y = 0; Y < H; ++Y)
    for (unsigned Xi = 0; Xi < W; ++Xi)
      X.push_back(int16_t(-int(W * Y + Xi + 1)));
  return X;
}

TEST(RefMaxPool, PaddingNeverWins) {
  // 3x3 windows, stride 2, padding 1 over a 4x4 input: out 2x2. Each window's
  // top-left real element is its maximum.
  ir::Graph G = poolGraph({1, 4, 4}, 3, 2, 1, false);
  EXPECT_EQ(G.output().Out, (Shape{1, 2, 2}));
  EXPECT_EQ(runOk(G, descending(4, 4)), (V{-1, -2, -5, -6}));
}

TEST(RefMaxPool, RealMinimumTiesWithPadding) {
  ir::Graph G = poolGraph({1, 2, 2}, 3, 1, 1, false);
  V Out = runOk(G, V(4, -32768));
  EXPECT_EQ(Out, V(4, -32768));
}

TEST(RefMaxPool, CeilModeWindowPastTheInputSeesPadding) {
  // 5x5, 2x2 windows, stride 2: floor gives 2x2, ceil 3x3 where the last row
  // and column of windows hang one past the input. Over in = -(5y + x + 1)
  // each window's max is at (2 oy, 2 ox): -(10 oy + 2 ox + 1).
  ir::Graph Floor = poolGraph({1, 5, 5}, 2, 2, 0, false);
  EXPECT_EQ(Floor.output().Out, (Shape{1, 2, 2}));
  EXPECT_EQ(runOk(Floor, descending(5, 5)), (V{-1, -3, -11, -13}));
  ir::Graph Ceil = poolGraph({1, 5, 5}, 2, 2, 0, true);
  EXPECT_EQ(Ceil.output().Out, (Shape{1, 3, 3}));
  EXPECT_EQ(runOk(Ceil, descending(5, 5)), (V{-1, -3, -5, -11, -13, -15, -21, -23, -25}));
}

TEST(RefMaxPool, ChannelsPoolIndependently) {
  ir::Graph G = poolGraph({2, 2, 2}, 2, 2, 0, false);
  EXPECT_EQ(runOk(G, {1, 9, 3, 4, /*channel 1*/ -7, -8, -2, -30}), (V{9, -2}));
}

TEST(RefMaxPool, FloatPaddingIsMinusInfinity) {
  ir::Graph G = poolGraph({1, 4, 4}, 3, 2, 1, false);
  std::vector<float> X;
  for (int16_t Q : descending(4, 4))
    X.push_back(float(Q) * 1000.0f); // Far below any finite "padding" guess.
  EXPECT_EQ(ir::runFloat(G, X), (std::vector<float>{-1000, -2000, -5000, -6000}));
}

TEST(RefWindowOutputSize, FollowsPyTorch) {
  EXPECT_EQ(ref::windowOutputSize(224, 7, 2, 3, 3, false), 112u); // ResNet conv1.
  EXPECT_EQ(ref::windowOutputSize(112, 3, 2, 1, 1, false), 56u);  // ResNet pool1.
  EXPECT_EQ(ref::windowOutputSize(5, 2, 2, 0, 0, false), 2u);
  EXPECT_EQ(ref::windowOutputSize(5, 2, 2, 0, 0, true), 3u);
  // Ceil: (4 + 2 - 3) / 2 -> 2, + 1 = 3; the last window starts at 4 - 1 = 3,
  // inside the input, so it stays.
  EXPECT_EQ(ref::windowOutputSize(4, 3, 2, 1, 1, true), 3u);
  EXPECT_EQ(ref::windowOutputSize(4, 3, 2, 1, 1, false), 2u);
  // Ceil: (3 + 2 - 2) / 2 -> 2, + 1 = 3, but that window would start at
  // 2 * 2 - 1 = 3, in the end padding: dropped.
  EXPECT_EQ(ref::windowOutputSize(3, 2, 2, 1, 1, true), 2u);
  EXPECT_EQ(ref::windowOutputSize(2, 3, 1, 0, 0, false), 0u); // Window too big.
  EXPECT_EQ(ref::windowOutputSize(2, 3, 1, 1, 0, false), 1u);
}

} // namespace
