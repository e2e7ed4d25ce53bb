//===- FloatTest.cpp - Float execution and the quantization report --------===//
//
// runFloat is the yardstick of the quantization report, so it is pinned on
// hand-computed values too; then a small random network, quantized by the
// front end's quantize(), must come out of the fixed path within a couple of
// LSB of the float path -- the end-to-end sanity check of the whole contract.
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"
#include "snow/ir/FloatEval.h"
#include "snow/ref/ErrorStats.h"
#include "snow/ref/Reference.h"
#include "snow/support/Rng.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace snow;

namespace {

ir::Layer convLayer(std::string Name, int Input, ir::Shape In, unsigned OutC, unsigned K,
                    unsigned Stride, unsigned Pad, bool Relu) {
  ir::Layer L;
  L.Name = std::move(Name);
  L.Kind = ir::LayerKind::Conv;
  L.Inputs = {Input};
  L.In = In;
  L.KH = L.KW = K;
  L.SH = L.SW = Stride;
  L.PadT = L.PadB = L.PadL = L.PadR = Pad;
  L.Out = {OutC, ref::windowOutputSize(In.H, K, Stride, Pad, Pad, false),
           ref::windowOutputSize(In.W, K, Stride, Pad, Pad, false)};
  L.Relu = Relu;
  return L;
}

TEST(RefFloat, ConvWithPaddingBiasAndRelu) {
  // 2x2 kernel (0.5, -1, 0.25, 2), bias -1, padding 1 on the right and bottom
  // only, over ((1, 2), (3, 4)):
  //   (0,0): 0.5 - 2 + 0.75 + 8 - 1 = 6.25   (0,1): 1 + 1 - 1 = 1 (pad right)
  //   (1,0): 1.5 - 4 - 1 = -3.5 -> ReLU 0     (1,1): 2 - 1 = 1
  ir::Graph G;
  G.Input = {1, 2, 2};
  ir::Layer L = convLayer("c", -1, G.Input, 1, 2, 1, 0, /*Relu=*/true);
  L.PadB = L.PadR = 1;
  L.Out = {1, 2, 2};
  L.Weights = {0.5f, -1.0f, 0.25f, 2.0f};
  L.Bias = {-1.0f};
  L.QWeights.assign(4, 0); // Only their count matters to the verifier here.
  G.Layers.push_back(L);
  ASSERT_FALSE(llvm::errorToBool(ref::verifyGraph(G)));
  EXPECT_EQ(ir::runFloat(G, {1, 2, 3, 4}), (std::vector<float>{6.25f, 1.0f, 0.0f, 1.0f}));
}

TEST(RefErrorStats, CountsErrorsSaturationAndZeros) {
  // Q8.8: 256 = 1.0, -256 = -1.0 vs -0.5, 32767 = 127.99609375 vs 127.
  std::vector<int16_t> Fixed = {256, -256, 0, 32767, -32768};
  std::vector<float> Float = {1.0f, -0.5f, 0.0f, 127.0f, -128.0f};
  ref::ErrorStats S = ref::compareToFloat(Fixed, 8, Float);
  EXPECT_EQ(S.Count, 5u);
  EXPECT_DOUBLE_EQ(S.MaxAbsError, 0.99609375);
  EXPECT_DOUBLE_EQ(S.RmsError, std::sqrt((0.25 + 0.99609375 * 0.99609375) / 5));
  EXPECT_DOUBLE_EQ(S.FloatRms, std::sqrt((1 + 0.25 + 127.0 * 127 + 128.0 * 128) / 5));
  EXPECT_DOUBLE_EQ(S.relativeRms(), S.RmsError / S.FloatRms);
  EXPECT_EQ(S.Saturated, 2u);
  EXPECT_EQ(S.Zero, 1u);
  EXPECT_DOUBLE_EQ(S.saturatedFraction(), 0.4);
  EXPECT_DOUBLE_EQ(S.zeroFraction(), 0.2);
}

TEST(RefErrorStats, RelativeRmsOfAllZeroFloat) {
  EXPECT_EQ(ref::compareToFloat({0, 0}, 8, {0, 0}).relativeRms(), 0.0);
  EXPECT_TRUE(std::isinf(ref::compareToFloat({1, 0}, 8, {0, 0}).relativeRms()));
  EXPECT_EQ(ref::compareToFloat({}, 8, {}).Count, 0u);
}

/// conv1: 3 -> 4 channels, 3x3, pad 1, ReLU; pool: 2x2; conv2: 4 -> 2, 3x3,
/// stride 2, pad 1. Small weights keep every value far from saturation, so
/// the only fixed-point errors are the roundings.
ir::Graph randomNetwork() {
  ir::Graph G;
  G.Name = "random2";
  G.Input = {3, 8, 8};
  G.Layers.push_back(convLayer("conv1", -1, G.Input, 4, 3, 1, 1, true));
  ir::Layer Pool = convLayer("pool", 0, G.Layers[0].Out, 4, 2, 2, 0, false);
  Pool.Kind = ir::LayerKind::MaxPool;
  G.Layers.push_back(Pool);
  G.Layers.push_back(convLayer("conv2", 1, G.Layers[1].Out, 2, 3, 2, 1, false));
  Rng R(42);
  auto Fill = [&R](std::vector<float> &V, size_t N, double Range) {
    for (size_t I = 0; I < N; ++I)
      V.push_back(float(R.uniform(-Range, Range)));
  };
  Fill(G.Layers[0].Weights, 4 * 3 * 9, 0.2);
  Fill(G.Layers[0].Bias, 4, 0.1);
  Fill(G.Layers[2].Weights, 2 * 4 * 9, 0.05);
  Fill(G.Layers[2].Bias, 2, 0.1);
  return G;
}

TEST(RefFloat, FixedAgreesWithFloatWithinTwoLsb) {
  ir::Graph G = randomNetwork();
  ir::quantize(G, 8);
  ASSERT_EQ(G.InputFrac, 8);
  if (llvm::Error E = ref::verifyGraph(G))
    FAIL() << llvm::toString(std::move(E));

  // Input on the Q8.8 grid, so input quantization is not part of the error:
  // what remains is weight quantization (~2^-18 per weight) and the writeback
  // rounding, 0.5 LSB per conv, the first one amplified by at most
  // sum |w2| <= 36 * 0.05 in the second.
  const auto [Fixed, Float] = test::q88Input(G.Input.elems(), 7);

  const std::vector<int16_t> Out = ref::runFixed(G, Fixed, 48);
  const std::vector<float> Ideal = ir::runFloat(G, Float);
  ASSERT_EQ(Out.size(), 2u * 2 * 2);
  ASSERT_EQ(Ideal.size(), Out.size());
  const int OutFrac = G.output().OutFrac;
  for (size_t I = 0; I < Out.size(); ++I)
    EXPECT_NEAR(double(Out[I]), std::ldexp(double(Ideal[I]), OutFrac), 2.0) << "output " << I;

  ref::ErrorStats S = ref::compareToFloat(Out, OutFrac, Ideal);
  EXPECT_EQ(S.Saturated, 0u);
  EXPECT_GT(S.FloatRms, 0.01) << "the network should not collapse to zero";
  EXPECT_LT(S.relativeRms(), 0.1);
}

} // namespace
