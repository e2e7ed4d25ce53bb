//===- ResidualTest.cpp - Convolution with a fused residual add -----------===//
//
// Pins docs/fixed-point.md, "Convolution with a fused residual add": the
// residual r joins the accumulator as r << (InFrac + WFrac - ResFrac) before
// the one rounding, the one saturation and then the ReLU. Each test picks
// numbers where the tempting alternatives -- rounding the conv first,
// saturating twice, ReLU before the add, reading the residual at another
// channel or pixel -- give a different answer. Values are worked out in the
// comments.
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"
#include "snow/ir/FloatEval.h"
#include "snow/ref/Reference.h"

#include <gtest/gtest.h>

using namespace snow;
using snow::ir::Shape;
using snow::test::runOk;
using snow::test::V;

namespace {

/// A 1x1 conv of the graph input (Shape In, format InFrac) to OutC channels
/// with the given formats, no bias, residual not yet set.
ir::Layer conv1x1(std::string Name, Shape In, unsigned OutC, int InFrac, int WFrac, int OutFrac,
                  V Weights) {
  ir::Layer L;
  L.Name = std::move(Name);
  L.Kind = ir::LayerKind::Conv;
  L.Inputs = {-1};
  L.In = In;
  L.Out = {OutC, In.H, In.W};
  L.InFrac = InFrac, L.WFrac = WFrac, L.BFrac = 0, L.OutFrac = OutFrac;
  L.QWeights = std::move(Weights);
  return L;
}

/// L adds the output of layer From (-1: the graph input), read in Q.ResFrac.
void addResidual(ir::Layer &L, int From, int ResFrac) {
  L.HasResidual = true;
  L.Residual = From;
  L.ResFrac = ResFrac;
}

ir::Graph graphOf(Shape In, int InFrac, std::vector<ir::Layer> Layers) {
  return snow::test::graphOf("residual", In, InFrac, std::move(Layers));
}

/// One conv y = w * x + x (the residual is the graph input itself).
ir::Graph selfResidual(int InFrac, int WFrac, int OutFrac, int16_t W, bool Relu = false) {
  ir::Layer L = conv1x1("c", {1, 1, 1}, 1, InFrac, WFrac, OutFrac, {W});
  addResidual(L, -1, InFrac);
  L.Relu = Relu;
  return graphOf({1, 1, 1}, InFrac, {L});
}

TEST(RefResidual, ResidualJoinsBeforeTheSingleRounding) {
  // InFrac = WFrac = ResFrac = 4, OutFrac = 2: products have 8 fraction bits,
  // writeback shift 6, residual shift 4. x = 2 (0.125), w = 20 (1.25):
  //   acc = 2 * 20 + (2 << 4) = 40 + 32 = 72, y = (72 + 32) >> 6 = 1.
  // In real terms 0.15625 + 0.125 = 0.28125 = 1.125 LSB of Q.2 -> 1. Rounding
  // twice would give ((40 + 32) >> 6) + ((2 + 2) >> 2) = 1 + 1 = 2.
  ir::Graph G = selfResidual(4, 4, 2, 20);
  EXPECT_EQ(runOk(G, {2}), (V{1}));
}

TEST(RefResidual, ResidualSaturatesOnceWithTheConv) {
  // Formats 0: x = -10000, w = -4: the conv part is 40000, past int16; the
  // residual -10000 brings it back. One saturation: 30000. Saturating the
  // conv first would give 32767 - 10000 = 22767.
  ir::Graph G = selfResidual(0, 0, 0, -4);
  EXPECT_EQ(runOk(G, {-10000}), (V{30000}));
  // And past int16 after the add: 3 * 20000 + 20000 = 80000 -> 32767.
  ir::Graph H = selfResidual(0, 0, 0, 3);
  EXPECT_EQ(runOk(H, {20000}), (V{32767}));
  EXPECT_EQ(runOk(H, {-20000}), (V{-32768}));
}

TEST(RefResidual, ReluAppliesAfterTheAdd) {
  // x = 5, w = -2: conv part -10, plus residual 5 = -5 -> ReLU 0. A ReLU
  // before the add would give 0 + 5 = 5.
  EXPECT_EQ(runOk(selfResidual(0, 0, 0, -2, /*Relu=*/true), {5}), (V{0}));
  EXPECT_EQ(runOk(selfResidual(0, 0, 0, -2, /*Relu=*/false), {5}), (V{-5}));
  // x = -5: conv part 10, plus -5 = 5, kept.
  EXPECT_EQ(runOk(selfResidual(0, 0, 0, -2, /*Relu=*/true), {-5}), (V{5}));
}

TEST(RefResidual, ResidualIsReadAtTheSameChannelAndPixel) {
  // 2 channels x 2 pixels, formats 0, w = diag(2, 3): y_c = w_c * x_c + x_c.
  // x0 = (1, 2), x1 = (10, 20) -> y0 = (3, 6), y1 = (40, 80). Swapped channels
  // would give (12, 24, 31, 62), swapped pixels (4, 5, 50, 70).
  ir::Layer L = conv1x1("c", {2, 1, 2}, 2, 0, 0, 0, {2, 0, 0, 3});
  addResidual(L, -1, 0);
  ir::Graph G = graphOf({2, 1, 2}, 0, {L});
  EXPECT_EQ(runOk(G, {1, 2, 10, 20}), (V{3, 6, 40, 80}));
}

TEST(RefResidual, ResidualInItsOwnFormat) {
  // Input Q.8. Layer 0 ("r") writes x in Q.3: w = 1 (WFrac 0), shift
  // 8 - 3 = 5. Layer 1 reads the input (InFrac 8), w = 8 in Q.4 (0.5),
  // OutFrac 8, and adds r with ResFrac 3: residual shift 8 + 4 - 3 = 9,
  // writeback shift 4.
  //   x = 80 (0.3125): r = (80 + 16) >> 5 = 3 (0.375)
  //   acc = 80 * 8 + (3 << 9) = 640 + 1536 = 2176, y = (2176 + 8) >> 4 = 136
  // and 136 / 256 = 0.53125 = 0.3125 * 0.5 + 0.375.
  ir::Layer R = conv1x1("r", {1, 1, 1}, 1, 8, 0, 3, {1});
  ir::Layer C = conv1x1("c", {1, 1, 1}, 1, 8, 4, 8, {8});
  addResidual(C, 0, 3);
  ir::Graph G = graphOf({1, 1, 1}, 8, {R, C});
  std::vector<V> Layers;
  ASSERT_EQ(runOk(G, {80}), (V{136}));
  ref::runFixed(G, {80}, 48, &Layers);
  EXPECT_EQ(Layers[0], (V{3}));
}

TEST(RefResidual, CoarserResidualThanOutputIsShiftedUp) {
  // Residual Q.0 into a Q.8 output: Layer 0 writes round(x) in Q.0 (shift 8),
  // layer 1 has w = 0, so y = r << (8 + 0 - 0) = r << 8 exactly, no rounding.
  //   x = 384 (1.5): r = (384 + 128) >> 8 = 2, y = 512 (2.0).
  ir::Layer R = conv1x1("r", {1, 1, 1}, 1, 8, 0, 0, {1});
  ir::Layer C = conv1x1("c", {1, 1, 1}, 1, 8, 0, 8, {0});
  addResidual(C, 0, 0);
  ir::Graph G = graphOf({1, 1, 1}, 8, {R, C});
  EXPECT_EQ(runOk(G, {384}), (V{512}));
  EXPECT_EQ(runOk(G, {-384}), (V{-256})); // (-384 + 128) >> 8 = -1.
}

TEST(RefResidual, ResidualWrapsWithTheAccumulator) {
  // Formats: InFrac 10, WFrac 10, ResFrac 0: residual shift 20. In a 20-bit
  // accumulator 1 << 20 is 0; with 48 bits it is 2^20, written back with
  // shift 20 - 15 = 5 as 32768 -> saturated to 32767 (as the bias preload
  // in ConvFixedTest). Layer 0 makes the Q.0 residual 1 from x = 1024.
  ir::Layer R = conv1x1("r", {1, 1, 1}, 1, 10, 0, 0, {1});
  ir::Layer C = conv1x1("c", {1, 1, 1}, 1, 10, 10, 15, {0});
  addResidual(C, 0, 0);
  ir::Graph G = graphOf({1, 1, 1}, 10, {R, C});
  EXPECT_EQ(runOk(G, {1024}, 20), (V{0}));
  EXPECT_EQ(runOk(G, {1024}, 48), (V{32767}));
}

TEST(RefResidual, FloatPathAddsTheResidualBeforeRelu) {
  // y = relu(0.5 * x + b + r) with r the graph input: x = (1, -4), b = 0.25:
  // (0.5 + 0.25 + 1, -2 + 0.25 - 4) = (1.75, -5.75) -> (1.75, 0).
  ir::Layer L = conv1x1("c", {1, 1, 2}, 1, 8, 8, 8, {128});
  L.Weights = {0.5f};
  L.Bias = {0.25f};
  addResidual(L, -1, 8);
  L.Relu = true;
  ir::Graph G = graphOf({1, 1, 2}, 8, {L});
  ASSERT_FALSE(llvm::errorToBool(ref::verifyGraph(G)));
  EXPECT_EQ(ir::runFloat(G, {1.0f, -4.0f}), (std::vector<float>{1.75f, 0.0f}));
  G.Layers[0].Relu = false;
  EXPECT_EQ(ir::runFloat(G, {1.0f, -4.0f}), (std::vector<float>{1.75f, -5.75f}));
}

} // namespace
