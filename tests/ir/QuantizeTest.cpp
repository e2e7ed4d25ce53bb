//===- QuantizeTest.cpp - Fixed-point formats and conversions -------------===//
//
// Pins the rules of docs/fixed-point.md that the compiler, simulator,
// reference executor and RTL must agree on bit for bit: the format search at
// its boundaries, the bias cap, rounding half away from zero, saturation, and
// the default input.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Graph.h"

#include "snow/support/Rng.h"
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

using namespace snow::ir;

namespace {

/// A one-conv graph with the given weights and biases (shapes are not
/// consulted by quantize()).
Graph convGraph(std::vector<float> W, std::vector<float> B) {
  Graph G;
  G.Name = "q";
  G.Input = {1, 4, 4};
  Layer L;
  L.Name = "c";
  L.In = G.Input;
  L.Out = {uint32_t(B.size()), 4, 4};
  L.Weights = std::move(W);
  L.Bias = std::move(B);
  G.Layers.push_back(L);
  return G;
}

/// docs/fixed-point.md's conversion, written as plainly as it reads.
int16_t plainToFixed(float X, int Frac) {
  const double Scaled = std::round(std::ldexp(double(X), Frac));
  if (std::isnan(Scaled))
    return 0;
  return int16_t(std::clamp(Scaled, -32768.0, 32767.0));
}

int wFracFor(float MaxW) {
  Graph G = convGraph({MaxW / 2, -MaxW}, {0.0f});
  quantize(G, 8);
  return G.Layers[0].WFrac;
}

} // namespace

TEST(Quantize, LargestFracSearch) {
  EXPECT_EQ(largestFrac(0.999), 15);
  EXPECT_EQ(largestFrac(1.0), 14) << "1.0 * 2^15 = 32768 does not fit";
  EXPECT_EQ(largestFrac(1.5), 14);
  EXPECT_EQ(largestFrac(1e-6), 24) << "capped at 24";
  EXPECT_EQ(largestFrac(0.0), 24);
  EXPECT_EQ(largestFrac(127.99), 8);
  EXPECT_EQ(largestFrac(1e6), 0) << "nothing fits: 0, values saturate";
}

TEST(Quantize, LargestFracRoundsBeforeComparing) {
  // round(x * 2^15) is 32767 just below 32767.5 / 32768 and 32768 at it.
  EXPECT_EQ(largestFrac(32767.4 / 32768.0), 15);
  EXPECT_EQ(largestFrac(32767.5 / 32768.0), 14);
}

TEST(Quantize, WeightFormatRule) {
  EXPECT_EQ(wFracFor(0.999f), 15);
  EXPECT_EQ(wFracFor(1.5f), 14);
  EXPECT_EQ(wFracFor(1e-6f), 24);
  EXPECT_EQ(wFracFor(float(32767.5 / 32768.0)), 14) << "the sign does not matter: |w|";
  Graph Zero = convGraph({0.0f, -0.0f}, {0.0f});
  quantize(Zero, 8);
  EXPECT_EQ(Zero.Layers[0].WFrac, 15) << "all-zero weights use 15";
}

TEST(Quantize, BiasFormatIsCappedAtInFracPlusWFrac) {
  Graph G = convGraph({1.5f}, {1e-6f}); // WFrac 14; bias alone would take 24
  quantize(G, 8);
  EXPECT_EQ(G.Layers[0].WFrac, 14);
  EXPECT_EQ(G.Layers[0].BFrac, 22);
  G = convGraph({1.5f}, {100.0f, -3.0f}); // 100 * 2^8 = 25600 fits, 2^9 does not
  quantize(G, 8);
  EXPECT_EQ(G.Layers[0].BFrac, 8);
  G = convGraph({1.5f}, {0.0f}); // zero bias: the cap decides
  quantize(G, 6);
  EXPECT_EQ(G.Layers[0].BFrac, 20);
}

TEST(Quantize, FillsQuantizedValuesAndActivationFormats) {
  Graph G = convGraph({0.5f, -0.25f, 0.1f}, {0.05f, -1.0f});
  Layer P;
  P.Name = "p";
  P.Kind = LayerKind::MaxPool;
  P.Inputs = {0};
  G.Layers.push_back(P);
  quantize(G, 10);
  const Layer &C = G.Layers[0];
  EXPECT_EQ(G.InputFrac, 10);
  EXPECT_EQ(C.InFrac, 10);
  EXPECT_EQ(C.OutFrac, 10);
  EXPECT_EQ(C.WFrac, 15);
  EXPECT_EQ(C.QWeights, (std::vector<int16_t>{16384, -8192, 3277}));
  EXPECT_EQ(C.BFrac, 14);
  EXPECT_EQ(C.QBias, (std::vector<int16_t>{819, -16384}));
  const Layer &Pool = G.Layers[1];
  EXPECT_EQ(Pool.InFrac, 10);
  EXPECT_EQ(Pool.OutFrac, 10) << "pooling keeps the format";
  EXPECT_TRUE(Pool.QWeights.empty());
}

TEST(Quantize, ReleasingFloatWeightsGivesTheSameIntegers) {
  Graph Kept = convGraph({0.5f, -0.25f, 0.1f}, {0.05f, -1.0f});
  Graph Released = Kept;
  quantize(Kept, 10);
  quantize(Released, 10, FloatWeights::Release);
  const Layer &K = Kept.Layers[0], &R = Released.Layers[0];
  EXPECT_EQ(R.QWeights, K.QWeights);
  EXPECT_EQ(R.QBias, K.QBias);
  EXPECT_EQ(R.WFrac, K.WFrac);
  EXPECT_EQ(R.BFrac, K.BFrac);
  EXPECT_EQ(K.Weights.size(), 3u) << "kept by default";
  EXPECT_TRUE(R.Weights.empty());
  EXPECT_TRUE(R.Bias.empty());
}

TEST(Quantize, RequantizingReplacesPreviousValues) {
  Graph G = convGraph({0.5f}, {0.5f});
  quantize(G, 8);
  quantize(G, 4);
  EXPECT_EQ(G.Layers[0].QWeights.size(), 1u);
  EXPECT_EQ(G.Layers[0].InFrac, 4);
}

TEST(Quantize, ToFixedRoundsHalfAwayFromZero) {
  EXPECT_EQ(toFixed(0.5f / 256, 8), 1);
  EXPECT_EQ(toFixed(-0.5f / 256, 8), -1);
  EXPECT_EQ(toFixed(1.5f / 256, 8), 2);
  EXPECT_EQ(toFixed(-1.5f / 256, 8), -2);
  EXPECT_EQ(toFixed(0.49f / 256, 8), 0);
  EXPECT_EQ(toFixed(2.5f, 0), 3);
  EXPECT_EQ(toFixed(1.0f, 8), 256);
}

TEST(Quantize, ToFixedSaturatesBothEnds) {
  EXPECT_EQ(toFixed(127.99609375f, 8), 32767);
  EXPECT_EQ(toFixed(128.0f, 8), 32767);
  EXPECT_EQ(toFixed(1e30f, 8), 32767);
  EXPECT_EQ(toFixed(INFINITY, 8), 32767);
  EXPECT_EQ(toFixed(-128.0f, 8), -32768);
  EXPECT_EQ(toFixed(-128.01f, 8), -32768);
  EXPECT_EQ(toFixed(-INFINITY, 8), -32768);
  EXPECT_EQ(toFixed(NAN, 8), 0);
}

TEST(Quantize, EveryWeightFollowsTheRuleAtScale) {
  // quantize() converts weights in bulk (vectors of four, tails, several
  // threads), not through toFixed one by one: every element must still
  // follow the rule. An infinite weight forces WFrac 0, so large weights
  // saturate; ties are half-integers; the count is not a multiple of 4.
  snow::Rng R(5);
  const float Special[] = {0.5f,     -0.5f,     1.5f,     -2.5f,    32767.5f, -32768.5f,
                           32766.5f, -32767.5f, 32768.0f, -32769.f, 1e30f,    -1e30f,
                           INFINITY, -INFINITY, NAN,      -0.0f,    1e-45f,   -1e-45f};
  std::vector<float> W;
  for (size_t I = 0; W.size() < 600003; ++I) {
    W.push_back(Special[I % std::size(Special)]);
    W.push_back(float(R.uniform(-40000, 40000)));
    W.push_back(float(std::floor(R.uniform(-40000, 40000))) + 0.5f);
  }
  Graph G = convGraph(W, {0.25f});
  quantize(G, 8);
  const Layer &L = G.Layers[0];
  ASSERT_EQ(L.WFrac, 0);
  ASSERT_EQ(L.QWeights.size(), W.size());
  for (size_t I = 0; I < W.size(); ++I)
    ASSERT_EQ(L.QWeights[I], plainToFixed(W[I], 0)) << "weight " << I << " = " << W[I];
  for (int Frac = 0; Frac <= 24; ++Frac)
    for (size_t I = 0; I < 3000; ++I) {
      const float X = std::ldexp(W[I], -Frac);
      ASSERT_EQ(toFixed(X, Frac), plainToFixed(X, Frac)) << X << " at " << Frac;
    }
}

TEST(Quantize, BulkConversionFollowsTheRuleAtEveryFormat) {
  // toFixedInto runs eight at a time in float for non-negative formats and
  // four at a time in double otherwise (then the tails one by one): every
  // path must give the rule's value. Values: the special ones, ties and
  // near-ties after scaling, subnormals, and random magnitudes from 2^-40
  // to 2^20; 1003 of them (not a multiple of 8 or 4).
  snow::Rng R(11);
  std::vector<float> X = {0.0f,  -0.0f,    NAN,      INFINITY,  -INFINITY, 1e-45f, -1e-45f,
                          1e38f, -3.4e38f, 32767.5f, -32768.5f, 0.5f,      -0.5f,  2.5f};
  while (X.size() < 1003) {
    const double Mag = std::ldexp(1.0, int(R.uniform(-40, 20)));
    X.push_back(float(R.uniform(-1, 1) * Mag));
    X.push_back(float((std::floor(R.uniform(-70000, 70000)) + 0.5) / 1024)); // ties at Frac 10
  }
  X.resize(1003);
  for (int Frac : {-5, -1, 0, 1, 7, 10, 15, 16, 24, 40, 100, 101}) {
    std::vector<int16_t> Q(X.size() + 1, 12345);
    toFixedInto(X.data(), Q.data(), X.size(), Frac);
    for (size_t I = 0; I < X.size(); ++I)
      ASSERT_EQ(Q[I], plainToFixed(X[I], Frac)) << X[I] << " at " << Frac << ", element " << I;
    EXPECT_EQ(Q.back(), 12345) << "wrote past the end at " << Frac;
  }
}

TEST(Quantize, FromFixedIsExact) {
  EXPECT_EQ(fromFixed(1, 8), 1.0f / 256);
  EXPECT_EQ(fromFixed(-32768, 8), -128.0f);
  EXPECT_EQ(fromFixed(32767, 15), 32767.0f / 32768);
  for (int V : {-32768, -1, 0, 1, 12345, 32767})
    EXPECT_EQ(toFixed(fromFixed(int16_t(V), 11), 11), V);
}

TEST(Graph, DefaultInputIsTheSharedSeededInput) {
  Graph G = convGraph({1}, {0});
  G.Input = {3, 5, 7};
  std::vector<float> In = defaultInput(G);
  EXPECT_EQ(In.size(), 105u);
  EXPECT_EQ(In, snow::defaultInputValues(105, "q"));
}

TEST(Quantize, AvgPoolFactorsFollowTheDocumentedRule) {
  struct Case {
    uint64_t K;
    unsigned Shift, Mult;
  };
  // Shift = 15 + ceil(log2 K), Mult = round(2^Shift / K).
  for (Case C : {Case{1, 15, 32768}, Case{2, 16, 32768}, Case{4, 17, 32768}, Case{9, 19, 58254},
                 Case{49, 21, 42799}, Case{169, 23, 49637}, Case{3, 17, 43691},
                 Case{65536, 31, 32768}, Case{32769, 31, 65534}}) {
    unsigned Mult = 0, Shift = 0;
    avgPoolFactors(C.K, Mult, Shift);
    EXPECT_EQ(Shift, C.Shift) << "K = " << C.K;
    EXPECT_EQ(Mult, C.Mult) << "K = " << C.K;
  }
}

TEST(Quantize, FillsAvgPoolFactorsAndFormatsOfEveryKind) {
  auto G = parseModel("name: m\ninput: {shape: [2, 7, 7]}\nlayers:\n"
                      "  - {name: a, type: avgpool, kernel: 3, stride: 1, pad: 1}\n"
                      "  - {name: g, type: global_avgpool}\n"
                      "  - {name: s, type: add, inputs: [g, g]}\n",
                      "m.yaml");
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  ASSERT_FALSE(bool(canonicalize(*G)));
  quantize(*G, 7);
  const Layer &A = G->Layers[0], &Gap = G->Layers[1], &S = G->Layers[2];
  EXPECT_EQ(A.AvgShift, 19u) << "K = 9, padding counted";
  EXPECT_EQ(A.AvgMult, 58254u);
  EXPECT_EQ(Gap.AvgShift, 21u) << "K = 49";
  EXPECT_EQ(Gap.AvgMult, 42799u);
  for (const Layer &L : G->Layers) {
    EXPECT_EQ(L.InFrac, 7) << L.Name;
    EXPECT_EQ(L.OutFrac, 7) << L.Name;
  }
  EXPECT_EQ(S.AvgMult, 0u);
}

TEST(Quantize, ResidualFormatIsTheResidualProducersOutput) {
  auto G = parseModel("name: m\ninput: {shape: [2, 4, 4]}\nlayers:\n"
                      "  - {name: a, type: conv, out_channels: 2, kernel: 1}\n"
                      "  - {name: b, type: conv, out_channels: 2, kernel: 1}\n"
                      "  - {name: s, type: add, inputs: [a, b]}\n"
                      "  - {name: c, type: conv, out_channels: 2, kernel: 1}\n"
                      "  - {name: t, type: add, inputs: [data, c]}\n",
                      "m.yaml");
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  ASSERT_FALSE(bool(canonicalize(*G)));
  ASSERT_EQ(G->Layers.size(), 3u);
  quantize(*G, 6);
  EXPECT_TRUE(G->Layers[1].HasResidual);
  EXPECT_EQ(G->Layers[1].ResFrac, 6);
  EXPECT_EQ(G->Layers[2].Residual, -1);
  EXPECT_EQ(G->Layers[2].ResFrac, 6) << "the graph input's format";
  EXPECT_FALSE(G->Layers[2].QWeights.empty());
}

TEST(Graph, KindNamesAndLocations) {
  EXPECT_STREQ(kindName(LayerKind::Conv), "conv");
  EXPECT_STREQ(kindName(LayerKind::MaxPool), "maxpool");
  EXPECT_STREQ(kindName(LayerKind::AvgPool), "avgpool");
  EXPECT_STREQ(kindName(LayerKind::GlobalAvgPool), "global_avgpool");
  EXPECT_STREQ(kindName(LayerKind::Fc), "fc");
  EXPECT_STREQ(kindName(LayerKind::Concat), "concat");
  EXPECT_STREQ(kindName(LayerKind::Add), "add");
  EXPECT_STREQ(kindName(LayerKind::Relu), "relu");
  EXPECT_STREQ(kindName(LayerKind::BatchNorm), "batchnorm");
  EXPECT_STREQ(kindName(LayerKind::Flatten), "flatten");
  EXPECT_STREQ(kindName(LayerKind::Softmax), "softmax");
  EXPECT_EQ((SourceLoc{"models/tiny.yaml", 7}.str()), "models/tiny.yaml:7");
}
