//===- GroupedConvTest.cpp - Grouped and depthwise convolution ------------===//
//
// Pins the channel mapping of docs/fixed-point.md, "Grouped convolution":
// output channel o reads input channels [(o / (Cout/g)) * (Cin/g), + Cin/g),
// with OIHW weights whose I is Cin/g. The inputs are chosen so that reading
// the wrong group, or indexing the weights as if I were Cin, gives different
// numbers. Values are worked out in the comments.
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

/// One conv layer with Groups groups reading the graph input; formats 0, so
/// the fixed result is the plain integer sum.
ir::Graph groupedGraph(Shape In, unsigned OutC, unsigned Groups, unsigned K, unsigned Pad,
                       V Weights) {
  ir::Layer L = windowLayer("gconv", ir::LayerKind::Conv, In, OutC, K, 1, Pad);
  L.Groups = Groups;
  L.InFrac = L.WFrac = L.BFrac = L.OutFrac = 0;
  L.QWeights = std::move(Weights);
  for (int16_t W : L.QWeights)
    L.Weights.push_back(float(W));
  return graphOf("grouped", In, 0, {L});
}

TEST(RefGroupedConv, TwoGroupsReadOnlyTheirOwnChannels) {
  // 4 -> 4 channels, g = 2, 1x1: weights (4, 2, 1, 1).
  //   o0 = 1*c0 + 10*c1, o1 = 100*c0 + 1000*c1   (group 0: c0, c1)
  //   o2 = 1*c2 + 10*c3, o3 = -1*c2 + 2*c3        (group 1: c2, c3)
  // Were group 1 to read c0, c1, o2 would equal o0.
  ir::Graph G = groupedGraph({4, 1, 2}, 4, 2, 1, 0, {1, 10, 100, 1000, 1, 10, -1, 2});
  V X = {1, 2, /*c1*/ 3, 4, /*c2*/ 5, 6, /*c3*/ 7, 8};
  EXPECT_EQ(runOk(G, X), (V{31, 42, 3100, 4200, 75, 86, 9, 10}));
}

TEST(RefGroupedConv, MoreOutputsThanInputsPerGroup) {
  // 2 -> 4 channels, g = 2: Cin/g = 1, Cout/g = 2, so o0 and o1 read c0,
  // o2 and o3 read c1. Weights (4, 1, 1, 1) = 1, 2, 3, 4.
  ir::Graph G = groupedGraph({2, 1, 1}, 4, 2, 1, 0, {1, 2, 3, 4});
  EXPECT_EQ(runOk(G, {5, 7}), (V{5, 10, 21, 28}));
}

TEST(RefGroupedConv, FewerOutputsThanInputsPerGroup) {
  // 4 -> 2 channels, g = 2: o0 = c0 + 2*c1, o1 = 3*c2 + 4*c3.
  ir::Graph G = groupedGraph({4, 1, 1}, 2, 2, 1, 0, {1, 2, 3, 4});
  EXPECT_EQ(runOk(G, {1, 10, 100, 1000}), (V{21, 4300}));
}

TEST(RefGroupedConv, DepthwiseThreeByThreeWithPadding) {
  // g = Cin = Cout = 2, 3x3, pad 1, both channels 1..9 row-major.
  // Channel 0: all-ones kernel, each output the sum of its in-bounds
  // neighbourhood. Channel 1: a single tap at the kernel's top-left, which
  // reads in[y-1][x-1] (shift down-right, zeros from the padding), times 2.
  V W(18, 0);
  for (int I = 0; I < 9; ++I)
    W[I] = 1;
  W[9] = 2;
  ir::Graph G = groupedGraph({2, 3, 3}, 2, 2, 3, 1, W);
  V X = {1, 2, 3, 4, 5, 6, 7, 8, 9, /*c1*/ 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(runOk(G, X), (V{12, 21, 16, 27, 45, 33, 24, 39, 28,
                            /*c1*/ 0, 0, 0, 0, 2, 4, 0, 8, 10}));
}

TEST(RefGroupedConv, DepthwiseBiasAndFormatsPerChannel) {
  // Depthwise 1x1 with a bias: o_c = w_c * x_c + b_c, InFrac 4, WFrac 2,
  // BFrac 3, OutFrac 4: bias shift 4 + 2 - 3 = 3, writeback shift 2.
  //   o0: (3 * 16 + (1 << 3) + 2) >> 2 = 58 >> 2 = 14
  //   o1: (-1 * 20 + (-2 << 3) + 2) >> 2 = -34 >> 2 = -9 (floor of -8.5)
  ir::Graph G = groupedGraph({2, 1, 1}, 2, 2, 1, 0, {3, -1});
  ir::Layer &L = G.Layers[0];
  L.InFrac = 4, L.WFrac = 2, L.BFrac = 3, L.OutFrac = 4;
  G.InputFrac = 4;
  L.QBias = {1, -2};
  EXPECT_EQ(runOk(G, {16, 20}), (V{14, -9}));
}

TEST(RefGroupedConv, FloatPathUsesTheSameGroups) {
  ir::Graph G = groupedGraph({4, 1, 2}, 4, 2, 1, 0, {1, 10, 100, 1000, 1, 10, -1, 2});
  std::vector<float> X = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(ir::runFloat(G, X), (std::vector<float>{31, 42, 3100, 4200, 75, 86, 9, 10}));
  // Depthwise 3x3 with padding, as above, in float.
  V W(18, 0);
  for (int I = 0; I < 9; ++I)
    W[I] = 1;
  W[9] = 2;
  ir::Graph D = groupedGraph({2, 3, 3}, 2, 2, 3, 1, W);
  std::vector<float> Y = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(ir::runFloat(D, Y),
            (std::vector<float>{12, 21, 16, 27, 45, 33, 24, 39, 28, 0, 0, 0, 0, 2, 4, 0, 8, 10}));
}

} // namespace
