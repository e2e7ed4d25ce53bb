//===- ConvFixedTest.cpp - Fixed-point convolution of the reference -------===//
//
// Pins each step of the convolution rule of docs/fixed-point.md on graphs
// built by hand (no YAML, no quantizer), against values worked out on paper in
// the comments: window geometry, bias preload shift, round half up, saturation,
// ReLU order and accumulator wrap-around.
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"
#include "snow/ref/Reference.h"

#include <gtest/gtest.h>

using namespace snow;
using namespace snow::test;
using snow::ir::Shape;

namespace {

struct ConvSpec {
  Shape In;
  unsigned OutC = 1;
  unsigned KH = 1, KW = 1, SH = 1, SW = 1;
  unsigned PadT = 0, PadB = 0, PadL = 0, PadR = 0;
  int InFrac = 0, WFrac = 0, BFrac = 0, OutFrac = 0;
  bool Relu = false;
  std::vector<int16_t> W = {}; ///< OIHW.
  std::vector<int16_t> B = {}; ///< May be empty: no bias.
};

/// A graph of one conv layer reading the graph input.
ir::Graph convGraph(const ConvSpec &S) {
  ir::Layer L;
  L.Name = "conv";
  L.Kind = ir::LayerKind::Conv;
  L.In = S.In;
  L.KH = S.KH, L.KW = S.KW, L.SH = S.SH, L.SW = S.SW;
  L.PadT = S.PadT, L.PadB = S.PadB, L.PadL = S.PadL, L.PadR = S.PadR;
  L.Out = {S.OutC, ref::windowOutputSize(S.In.H, S.KH, S.SH, S.PadT, S.PadB, false),
           ref::windowOutputSize(S.In.W, S.KW, S.SW, S.PadL, S.PadR, false)};
  L.InFrac = S.InFrac, L.WFrac = S.WFrac, L.BFrac = S.BFrac, L.OutFrac = S.OutFrac;
  L.Relu = S.Relu;
  L.QWeights = S.W;
  L.QBias = S.B;
  return graphOf("hand", S.In, S.InFrac, {L});
}

/// A 3x3 kernel W with one pixel of padding on every side over a 1x3x3
/// input: the output keeps the input's size.
ir::Graph padded3x3(V W) {
  return convGraph(
      {.In = {1, 3, 3}, .KH = 3, .KW = 3, .PadT = 1, .PadB = 1, .PadL = 1, .PadR = 1, .W = W});
}

/// 1x1 conv computing Sum_i W[i] * X[i] over Inputs.size() channels of one
/// pixel, with the given formats (a probe for the writeback rule).
ir::Graph dotGraph(unsigned Channels, V W, int InFrac, int WFrac, int OutFrac, bool Relu = false,
                   V B = {}, int BFrac = 0) {
  return convGraph({.In = {Channels, 1, 1},
                    .InFrac = InFrac,
                    .WFrac = WFrac,
                    .BFrac = BFrac,
                    .OutFrac = OutFrac,
                    .Relu = Relu,
                    .W = std::move(W),
                    .B = std::move(B)});
}

TEST(RefConvFixed, OneByOneMixesChannelsAndAddsBias) {
  // out0 = 5 + 1*x0 + 2*x1, out1 = -6 - 3*x0 + 4*x1 per pixel.
  ir::Graph G = convGraph({.In = {2, 2, 2}, .OutC = 2, .W = {1, 2, -3, 4}, .B = {5, -6}});
  EXPECT_EQ(G.output().Out, (Shape{2, 2, 2}));
  V X = {1, 2, 3, 4, /*channel 1*/ 10, 20, 30, 40};
  EXPECT_EQ(runOk(G, X), (V{26, 47, 68, 89, /*channel 1*/ 31, 68, 105, 142}));
}

TEST(RefConvFixed, ThreeByThreePaddingTapsReadZero) {
  // All-ones kernel: each output is the sum of its in-bounds 3x3 neighbourhood.
  ir::Graph G = padded3x3(V(9, 1));
  EXPECT_EQ(G.output().Out, (Shape{1, 3, 3}));
  EXPECT_EQ(runOk(G, {1, 2, 3, 4, 5, 6, 7, 8, 9}), (V{12, 21, 16, 27, 45, 33, 24, 39, 28}));
}

TEST(RefConvFixed, KernelIsCorrelationNotFlipped) {
  // PyTorch convolution is cross-correlation: a single tap at the top-left of
  // the kernel reads in[y-1][x-1], shifting the image down and right.
  ir::Graph G = padded3x3({1, 0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(runOk(G, {1, 2, 3, 4, 5, 6, 7, 8, 9}), (V{0, 0, 0, 0, 1, 2, 0, 4, 5}));
}

TEST(RefConvFixed, NonSquareKernelAndStrides) {
  // 1x3 kernel (1, 10, 100), stride 2 down and 3 across over in[y][x] = 7y + x:
  // out H = (5 - 1) / 2 + 1 = 3, out W = (7 - 3) / 3 + 1 = 2.
  ir::Graph G = convGraph({.In = {1, 5, 7}, .KH = 1, .KW = 3, .SH = 2, .SW = 3, .W = {1, 10, 100}});
  EXPECT_EQ(G.output().Out, (Shape{1, 3, 2}));
  V X;
  for (int Y = 0; Y < 5; ++Y)
    for (int Xi = 0; Xi < 7; ++Xi)
      X.push_back(int16_t(7 * Y + Xi));
  V Expected;
  for (int Oy = 0; Oy < 3; ++Oy)
    for (int Ox = 0; Ox < 2; ++Ox) {
      int Base = 7 * (2 * Oy) + 3 * Ox;
      Expected.push_back(int16_t(Base + 10 * (Base + 1) + 100 * (Base + 2)));
    }
  EXPECT_EQ(Expected[5], 31 + 10 * 32 + 100 * 33); // (2, 1) reads in[4][3..5].
  EXPECT_EQ(runOk(G, X), Expected);
}

TEST(RefConvFixed, AsymmetricPadding) {
  // 2x2 kernel ((1, 10), (100, 1000)), one row of padding on top, one column
  // on the right, over ((1, 2), (3, 4)).
  ir::Graph G =
      convGraph({.In = {1, 2, 2}, .KH = 2, .KW = 2, .PadT = 1, .PadR = 1, .W = {1, 10, 100, 1000}});
  EXPECT_EQ(G.output().Out, (Shape{1, 2, 2}));
  // (0,0): 100*1 + 1000*2; (0,1): 100*2; (1,0): 1 + 10*2 + 100*3 + 1000*4;
  // (1,1): 1*2 + 100*4.
  EXPECT_EQ(runOk(G, {1, 2, 3, 4}), (V{2100, 200, 4321, 402}));
}

TEST(RefConvFixed, BiasIsShiftedToTheProductFormat) {
  // Products have 4 + 3 = 7 fraction bits, the bias 2: preload is bias << 5.
  ir::Graph G = convGraph({.In = {1, 1, 1},
                           .OutC = 2,
                           .InFrac = 4,
                           .WFrac = 3,
                           .BFrac = 2,
                           .OutFrac = 7,
                           .W = {1, 1},
                           .B = {3, -3}});
  EXPECT_EQ(runOk(G, {7}), (V{96 + 7, -96 + 7}));
  // Bias already in the product format: no shift.
  ir::Graph G0 = convGraph(
      {.In = {1, 1, 1}, .InFrac = 4, .WFrac = 3, .BFrac = 7, .OutFrac = 7, .W = {1}, .B = {3}});
  EXPECT_EQ(runOk(G0, {7}), (V{10}));
}

TEST(RefConvFixed, RealValuesComeOutRight) {
  // 1.5 (Q.4 = 24) * 0.5 (Q.3 = 4) + 0.25 (Q.2 = 1) = 1.0, written in Q.4: 16.
  ir::Graph G = convGraph(
      {.In = {1, 1, 1}, .InFrac = 4, .WFrac = 3, .BFrac = 2, .OutFrac = 4, .W = {4}, .B = {1}});
  EXPECT_EQ(runOk(G, {24}), (V{16}));
}

TEST(RefConvFixed, WritebackRoundsHalfUp) {
  // Shift 2 (1 + 1 - 0): y = (a + 2) >> 2, so .5 goes up: 2.5 -> 3, -2.5 -> -2,
  // 0.5 -> 1, -0.5 -> 0; everything else to nearest.
  V In = {10, -10, 6, -6, 9, -9, 11, -11, 0, 1, -1, 2, -2};
  V Expected = {3, -2, 2, -1, 2, -2, 3, -3, 0, 0, 0, 1, 0};
  ir::Graph G = dotGraph(1, {1}, /*InFrac=*/1, /*WFrac=*/1, /*OutFrac=*/0);
  for (size_t I = 0; I < In.size(); ++I)
    EXPECT_EQ(runOk(G, {In[I]}), (V{Expected[I]})) << "acc = " << In[I];
}

TEST(RefConvFixed, WritebackWithoutShiftIsExact) {
  ir::Graph G = dotGraph(2, {3, -5}, 4, 4, 8);
  EXPECT_EQ(runOk(G, {100, 7}), (V{300 - 35}));
}

TEST(RefConvFixed, SaturatesBothSides) {
  ir::Graph G = dotGraph(2, {1, 1}, 0, 0, 0);
  EXPECT_EQ(runOk(G, {30000, 30000}), (V{32767}));
  EXPECT_EQ(runOk(G, {-30000, -30000}), (V{-32768}));
  EXPECT_EQ(runOk(G, {32767, 0}), (V{32767}));
  EXPECT_EQ(runOk(G, {32767, 1}), (V{32767}));
  EXPECT_EQ(runOk(G, {-32768, 0}), (V{-32768}));
  EXPECT_EQ(runOk(G, {-32768, -1}), (V{-32768}));
  // Rounding happens before saturation: (65534 + 1) >> 1 = 32767, not clamped.
  ir::Graph Half = dotGraph(2, {1, 1}, 1, 0, 0);
  EXPECT_EQ(runOk(Half, {32767, 32767}), (V{32767}));
  EXPECT_EQ(runOk(Half, {-32768, -32768}), (V{-32768}));
}

TEST(RefConvFixed, ReluAfterRoundingAndSaturation) {
  ir::Graph G = dotGraph(2, {1, 1}, 1, 1, 0, /*Relu=*/true);
  EXPECT_EQ(runOk(G, {10, 0}), (V{3}));
  EXPECT_EQ(runOk(G, {-10, 0}), (V{0}));
  EXPECT_EQ(runOk(G, {-1, -1}), (V{0})); // -0.5 rounds to 0 first anyway.
  ir::Graph Unshifted = dotGraph(2, {1, 1}, 0, 0, 0, /*Relu=*/true);
  EXPECT_EQ(runOk(Unshifted, {32767, 32767}), (V{32767})); // Saturated, stays.
  EXPECT_EQ(runOk(Unshifted, {-32768, -32768}), (V{0}));   // Saturated low, then cut.
}

TEST(RefConvFixed, AccumulatorWrapsAtAccBits) {
  // 300 * 1000 * 2 = 600000, shift 4. With 48 bits: (600000 + 8) >> 4 = 37500,
  // saturated. With 20 bits 600000 wraps to 600000 - 2^20 = -448576, and
  // (-448576 + 8) >> 4 = floor(-28035.5) = -28036. Mirrored for -600000.
  ir::Graph G = dotGraph(2, {1000, 1000}, 2, 2, 0);
  EXPECT_EQ(runOk(G, {300, 300}, 48), (V{32767}));
  EXPECT_EQ(runOk(G, {300, 300}, 20), (V{-28036}));
  EXPECT_EQ(runOk(G, {-300, -300}, 48), (V{-32768}));
  EXPECT_EQ(runOk(G, {-300, -300}, 20), (V{28036}));
  EXPECT_EQ(runOk(G, {300, 300}, 64), (V{32767}));
}

TEST(RefConvFixed, IntermediateWrapIsUndoneByLaterAdds) {
  // Partial sums 400000, 800000 (past 2^19 - 1 in 20 bits), then 400000 again:
  // wrapping after every addition and wrapping once at the end agree.
  ir::Graph G = dotGraph(3, {1000, 1000, 1000}, 0, 0, 0);
  // Unshifted, 400000 saturates whatever the width.
  EXPECT_EQ(runOk(G, {400, 400, -400}, 20), runOk(G, {400, 400, -400}, 48));
  ir::Graph Shifted = dotGraph(3, {1000, 1000, 1000}, 2, 3, 0); // Shift 5.
  EXPECT_EQ(runOk(Shifted, {400, 400, -400}, 20), (V{12500}));
}

TEST(RefConvFixed, BiasPreloadWrapsToo) {
  // Bias 1 shifted by 10 + 10 - 0 = 20 is 2^20: 0 in a 20-bit accumulator.
  // With 48 bits, writeback shift 20 - 15 = 5 gives (2^20 + 16) >> 5 = 32768,
  // saturated to 32767.
  ir::Graph G = dotGraph(1, {0}, 10, 10, 15, false, {1}, 0);
  EXPECT_EQ(runOk(G, {0}, 20), (V{0}));
  EXPECT_EQ(runOk(G, {0}, 48), (V{32767}));
}

TEST(RefConvFixed, LayersChainThroughTheirInputIndex) {
  // L0: x2 (1x1). L1: 2x2 max pool of L0. L2: reads L0 (not L1), 1x1 with
  // three output channels (1, -1, 3).
  ir::Graph G = convGraph({.In = {1, 2, 2}, .W = {2}});
  ir::Layer Pool;
  Pool.Name = "pool";
  Pool.Kind = ir::LayerKind::MaxPool;
  Pool.Inputs = {0};
  Pool.In = {1, 2, 2};
  Pool.Out = {1, 1, 1};
  Pool.KH = Pool.KW = Pool.SH = Pool.SW = 2;
  Pool.InFrac = Pool.OutFrac = 0;
  G.Layers.push_back(Pool);
  ir::Layer Fan = G.Layers[0];
  Fan.Name = "fan";
  Fan.Inputs = {0};
  Fan.Out = {3, 2, 2};
  Fan.QWeights = {1, -1, 3};
  G.Layers.push_back(Fan);

  std::vector<V> Layers;
  ASSERT_FALSE(llvm::errorToBool(ref::verifyGraph(G)));
  V Out = ref::runFixed(G, {1, -2, 3, -4}, 48, &Layers);
  ASSERT_EQ(Layers.size(), 3u);
  EXPECT_EQ(Layers[0], (V{2, -4, 6, -8}));
  EXPECT_EQ(Layers[1], (V{6}));
  EXPECT_EQ(Layers[2], (V{2, -4, 6, -8, -2, 4, -6, 8, 6, -12, 18, -24}));
  EXPECT_EQ(Out, Layers[2]);
}

} // namespace
