//===- LayerTypesTest.cpp - Parsing every layer type and key --------------===//
//
// Pins, for each layer type of docs/model-format.md beyond conv and maxpool
// (and for conv's groups), its keys and defaults, the output shape it
// infers, its seeded parameters and its MAC and parameter counts, since the
// compiler, the reference executor and the utilization figures all start
// from these.
//
//===----------------------------------------------------------------------===//

#include "IrTestUtil.h"

#include "snow/support/Rng.h"
#include <cmath>
#include <gtest/gtest.h>

using namespace snow::ir;
using namespace snow::test;

namespace {

/// Input 4x8x8, seed 3; layers follow.
Graph parseLayers(const std::string &Layers) {
  return parseOk(seededModel("[4, 8, 8]", "3", Layers));
}

} // namespace

TEST(LayerTypes, GroupedConvHasInChannelsOverGroupsPerFilter) {
  Graph G =
      parseLayers("  - {name: g, type: conv, out_channels: 6, kernel: 3, pad: 1, groups: 2}\n");
  const Layer &L = G.Layers[0];
  EXPECT_EQ(L.Groups, 2u);
  EXPECT_EQ(L.Out, (Shape{6, 8, 8}));
  ASSERT_EQ(L.Weights.size(), 6u * 2 * 3 * 3) << "OIHW with I = 4 / 2";
  EXPECT_EQ(L.macs(), 6ull * 8 * 8 * 2 * 3 * 3);
  EXPECT_EQ(L.params(), 6u * 2 * 3 * 3 + 6);
  // The fan-in of the seeded initializer is per group as well.
  snow::Rng R(3 ^ snow::hashName("g"));
  double A = std::sqrt(6.0 / (2 * 3 * 3));
  for (float W : L.Weights)
    ASSERT_EQ(W, float(R.uniform(-A, A)));
  for (float B : L.Bias)
    ASSERT_EQ(B, float(R.uniform(-0.1, 0.1)));
}

TEST(LayerTypes, DepthwiseConvIsGroupsEqualToChannels) {
  Graph G = parseLayers("  - {name: dw, type: conv, out_channels: 4, kernel: 3, stride: 2, pad: 1, "
                        "groups: 4, bias: false}\n");
  const Layer &L = G.Layers[0];
  EXPECT_EQ(L.Out, (Shape{4, 4, 4}));
  EXPECT_EQ(L.Weights.size(), 4u * 9);
  EXPECT_EQ(L.macs(), 4ull * 4 * 4 * 9);
  EXPECT_FALSE(L.HasBias);
  EXPECT_EQ(L.Bias, std::vector<float>(4, 0.0f)) << "no bias reads as zeros";
  EXPECT_EQ(L.params(), 36u) << "bias: false has no bias parameters";
}

TEST(LayerTypes, ConvGroupsDefaultToOne) {
  Graph G = parseLayers("  - {name: c, type: conv, out_channels: 2, kernel: 1}\n");
  EXPECT_EQ(G.Layers[0].Groups, 1u);
  EXPECT_TRUE(G.Layers[0].HasBias);
  EXPECT_EQ(G.Layers[0].params(), 2u * 4 + 2);
  EXPECT_EQ(G.Layers[0].TypeName, "conv");
}

TEST(LayerTypes, AvgPoolStrideDefaultsToTheKernel) {
  Graph G = parseLayers("  - {name: a, type: avgpool, kernel: 2}\n"
                        "  - {name: b, type: avgpool, input: data, kernel: 3, stride: 2, pad: 1, "
                        "ceil_mode: false}\n");
  const Layer &A = G.Layers[0], &B = G.Layers[1];
  EXPECT_EQ(A.Kind, LayerKind::AvgPool);
  EXPECT_EQ(A.TypeName, "avgpool");
  EXPECT_EQ(A.SH, 2u);
  EXPECT_EQ(A.Out, (Shape{4, 4, 4}));
  EXPECT_EQ(B.PadT, 1u);
  EXPECT_EQ(B.Out, (Shape{4, 4, 4})); // (8 + 2 - 3) / 2 + 1
  EXPECT_FALSE(B.CeilMode);
  EXPECT_EQ(A.macs() + A.params(), 0u);
  EXPECT_TRUE(A.Weights.empty());
}

TEST(LayerTypes, GlobalAvgPoolGivesOneValuePerChannel) {
  Graph G = parseLayers("  - {name: c, type: conv, out_channels: 6, kernel: 3}\n"
                        "  - {name: gap, type: global_avgpool}\n");
  const Layer &L = G.Layers[1];
  EXPECT_EQ(L.Kind, LayerKind::GlobalAvgPool);
  EXPECT_EQ(L.TypeName, "global_avgpool");
  EXPECT_EQ(L.In, (Shape{6, 6, 6}));
  EXPECT_EQ(L.Out, (Shape{6, 1, 1}));
  EXPECT_EQ(L.macs(), 0u);
}

TEST(LayerTypes, FcReadsAnyShapeAsAFlatVector) {
  Graph G = parseLayers("  - {name: fc, type: fc, out_features: 10}\n");
  const Layer &L = G.Layers[0];
  EXPECT_EQ(L.Kind, LayerKind::Fc);
  EXPECT_EQ(L.In, (Shape{4, 8, 8}));
  EXPECT_EQ(L.Out, (Shape{10, 1, 1}));
  EXPECT_FALSE(L.Relu);
  EXPECT_TRUE(L.HasBias);
  ASSERT_EQ(L.Weights.size(), 10u * 256);
  ASSERT_EQ(L.Bias.size(), 10u);
  EXPECT_EQ(L.macs(), 10u * 256);
  EXPECT_EQ(L.params(), 10u * 256 + 10);
  snow::Rng R(3 ^ snow::hashName("fc"));
  double A = std::sqrt(6.0 / 256);
  for (float W : L.Weights)
    ASSERT_EQ(W, float(R.uniform(-A, A))) << "fan-in is the whole input";
  for (float B : L.Bias)
    ASSERT_EQ(B, float(R.uniform(-0.1, 0.1)));
}

TEST(LayerTypes, FcReluAndNoBias) {
  Graph G = parseLayers("  - {name: fc, type: fc, out_features: 3, relu: true, bias: false}\n");
  const Layer &L = G.Layers[0];
  EXPECT_TRUE(L.Relu);
  EXPECT_FALSE(L.HasBias);
  EXPECT_EQ(L.Bias, std::vector<float>(3, 0.0f));
  EXPECT_EQ(L.params(), 3u * 256);
}

TEST(LayerTypes, ConcatAddsUpChannelsInInputOrder) {
  Graph G = parseLayers("  - {name: a, type: conv, out_channels: 3, kernel: 3, pad: 1}\n"
                        "  - {name: b, type: conv, input: data, out_channels: 5, kernel: 1}\n"
                        "  - {name: cat, type: concat, inputs: [b, a, data]}\n");
  const Layer &L = G.Layers[2];
  EXPECT_EQ(L.Kind, LayerKind::Concat);
  EXPECT_EQ(L.Inputs, (std::vector<int>{1, 0, -1}));
  EXPECT_EQ(L.In, (Shape{5, 8, 8})) << "In is the first input's shape";
  EXPECT_EQ(L.Out, (Shape{12, 8, 8}));
  EXPECT_EQ(L.macs() + L.params(), 0u);
}

TEST(LayerTypes, AddOfTwoEqualShapesWithOptionalRelu) {
  Graph G = parseLayers("  - {name: a, type: conv, out_channels: 4, kernel: 3, pad: 1}\n"
                        "  - {name: s, type: add, inputs: [data, a]}\n"
                        "  - {name: t, type: add, inputs: [s, s], relu: true}\n");
  const Layer &S = G.Layers[1], &T = G.Layers[2];
  EXPECT_EQ(S.Kind, LayerKind::Add);
  EXPECT_EQ(S.Inputs, (std::vector<int>{-1, 0}));
  EXPECT_EQ(S.Out, (Shape{4, 8, 8}));
  EXPECT_FALSE(S.Relu);
  EXPECT_TRUE(T.Relu);
  EXPECT_EQ(T.Inputs, (std::vector<int>{1, 1})) << "an input may be given twice";
}

TEST(LayerTypes, ReluFlattenAndSoftmaxShapes) {
  Graph G = parseLayers("  - {name: r, type: relu}\n"
                        "  - {name: f, type: flatten}\n"
                        "  - {name: p, type: softmax}\n");
  EXPECT_EQ(G.Layers[0].Kind, LayerKind::Relu);
  EXPECT_EQ(G.Layers[0].Out, (Shape{4, 8, 8}));
  EXPECT_EQ(G.Layers[1].Kind, LayerKind::Flatten);
  EXPECT_EQ(G.Layers[1].Out, (Shape{256, 1, 1})) << "C*H*W channels";
  EXPECT_EQ(G.Layers[2].Kind, LayerKind::Softmax);
  EXPECT_EQ(G.Layers[2].Out, (Shape{256, 1, 1}));
  EXPECT_FALSE(G.HostSoftmax) << "set by canonicalize(), not by the parser";
  EXPECT_EQ(G.params() + G.macs(), 0u);
}

TEST(LayerTypes, BatchNormSeededStatisticsFollowTheRecipe) {
  Graph G = parseLayers("  - {name: bn, type: batchnorm}\n");
  const Layer &L = G.Layers[0];
  EXPECT_EQ(L.Kind, LayerKind::BatchNorm);
  EXPECT_EQ(L.Out, L.In);
  EXPECT_FLOAT_EQ(L.Eps, 1e-5f);
  // All four vectors from one generator, each in channel order, in the order
  // gamma, beta, mean, var.
  snow::Rng R(3 ^ snow::hashName("bn"));
  auto Expect = [&](const std::vector<float> &V, double Lo, double Hi, const char *What) {
    ASSERT_EQ(V.size(), 4u) << What;
    for (float X : V)
      EXPECT_EQ(X, float(R.uniform(Lo, Hi))) << What;
  };
  Expect(L.Gamma, 0.8, 1.2, "gamma");
  Expect(L.Beta, -0.1, 0.1, "beta");
  Expect(L.Mean, -0.1, 0.1, "mean");
  Expect(L.Var, 0.5, 1.5, "var");
  EXPECT_EQ(L.params(), 8u) << "gamma and beta; the running statistics are buffers";
  EXPECT_EQ(L.macs(), 0u);
}

TEST(LayerTypes, BatchNormEps) {
  Graph G = parseLayers("  - {name: bn, type: batchnorm, eps: 0.001}\n"
                        "  - {name: bn2, type: batchnorm, eps: 1e-3}\n");
  EXPECT_FLOAT_EQ(G.Layers[0].Eps, 0.001f);
  EXPECT_FLOAT_EQ(G.Layers[1].Eps, 0.001f);
}

TEST(LayerTypes, TypeNameIsWhatWasWritten) {
  Graph G = parseLayers("  - {name: a, type: maxpool, kernel: 2}\n"
                        "  - {name: b, type: global_avgpool}\n"
                        "  - {name: c, type: fc, out_features: 2}\n");
  EXPECT_EQ(G.Layers[0].TypeName, "maxpool");
  EXPECT_EQ(G.Layers[1].TypeName, "global_avgpool");
  EXPECT_EQ(G.Layers[2].TypeName, "fc");
}

TEST(LayerTypes, BlockStyleInputsList) {
  Graph G = parseOk("name: m\ninput: {shape: [2, 4, 4]}\nlayers:\n"
                    "  - name: a\n"
                    "    type: relu\n"
                    "  - name: cat\n"
                    "    type: concat\n"
                    "    inputs:\n"
                    "      - a\n"
                    "      - data\n");
  EXPECT_EQ(G.Layers[1].Inputs, (std::vector<int>{0, -1}));
  EXPECT_EQ(G.Layers[1].Out, (Shape{4, 4, 4}));
}

TEST(LayerTypes, SummaryListsTypesShapesAndTotals) {
  Graph G = parseLayers("  - {name: c, type: conv, out_channels: 2, kernel: 1, relu: true}\n"
                        "  - {name: fc, type: fc, out_features: 3}\n"
                        "  - {name: p, type: softmax}\n");
  std::string S = summary(G);
  EXPECT_NE(S.find("model 'm': input 'data' 4x8x8"), std::string::npos) << S;
  EXPECT_NE(S.find("conv+relu"), std::string::npos) << S;
  EXPECT_NE(S.find("2x8x8"), std::string::npos) << S;
  EXPECT_NE(S.find("softmax"), std::string::npos) << S;
  // conv 2*64*4 = 512 MACs, 10 params; fc 3*128 = 384 MACs, 387 params.
  EXPECT_NE(S.find("total: 0.000 G MACs (0.0 M), 0.000 M params"), std::string::npos) << S;
  EXPECT_NE(S.find("896"), std::string::npos) << S;
  EXPECT_NE(S.find("397"), std::string::npos) << S;
  ASSERT_FALSE(bool(canonicalize(G)));
  EXPECT_NE(summary(G).find("softmax on the host"), std::string::npos) << summary(G);
}
