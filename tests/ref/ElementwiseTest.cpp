//===- ElementwiseTest.cpp - Concat, unfused add and relu -----------------===//
//
// Pins docs/fixed-point.md, "Add (not fused), ReLU, Concat": concat stacks
// the inputs' channels in input order (not layer order), add saturates the
// exact sum and then applies its ReLU, relu is max(x, 0). The float path does
// the same without saturation.
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
using F = std::vector<float>;

/// A 1x1 conv multiplying the graph input by Scale (formats 0).
ir::Layer scale(std::string Name, Shape In, int16_t Scale) {
  ir::Layer L;
  L.Name = std::move(Name);
  L.Kind = ir::LayerKind::Conv;
  L.Inputs = {-1};
  L.In = L.Out = In;
  L.InFrac = L.WFrac = L.BFrac = L.OutFrac = 0;
  L.QWeights = {Scale};
  L.Weights = {float(Scale)};
  return L;
}

/// A layer of a kind without parameters reading Inputs.
ir::Layer plain(std::string Name, ir::LayerKind Kind, std::vector<int> Inputs, Shape In, Shape Out,
                bool Relu = false) {
  ir::Layer L;
  L.Name = std::move(Name);
  L.Kind = Kind;
  L.Inputs = std::move(Inputs);
  L.In = In;
  L.Out = Out;
  L.InFrac = L.OutFrac = 0;
  L.Relu = Relu;
  return L;
}

ir::Graph graphOf(Shape In, std::vector<ir::Layer> Layers) {
  return snow::test::graphOf("elementwise", In, 0, std::move(Layers));
}

TEST(RefConcat, ChannelsInInputOrder) {
  // a = 2x, b = 3x (one channel each, 1x2); concat(b, input, a): the later
  // layer first, then the graph input, then the earlier layer.
  const Shape S{1, 1, 2};
  ir::Graph G = graphOf(S, {scale("a", S, 2), scale("b", S, 3),
                            plain("cat", ir::LayerKind::Concat, {1, -1, 0}, S, {3, 1, 2})});
  EXPECT_EQ(runOk(G, {1, 2}), (V{3, 6, 1, 2, 2, 4}));
  EXPECT_EQ(ir::runFloat(G, {1, 2}), (F{3, 6, 1, 2, 2, 4}));
}

TEST(RefConcat, InputsOfDifferentChannelCounts) {
  // The graph input (2 channels) then a 1-channel conv summing them: 3
  // channels, each a whole plane.
  const Shape S{2, 1, 2};
  ir::Layer Sum = scale("sum", S, 1);
  Sum.Out = {1, 1, 2};
  Sum.QWeights = {1, 1};
  Sum.Weights = {1, 1};
  ir::Graph G = graphOf(S, {Sum, plain("cat", ir::LayerKind::Concat, {-1, 0}, S, {3, 1, 2})});
  EXPECT_EQ(runOk(G, {1, 2, 10, 20}), (V{1, 2, 10, 20, 11, 22}));
}

TEST(RefAdd, SaturatesTheExactSum) {
  // a = 3x, added to the graph input x: 4x, saturated.
  const Shape S{1, 1, 4};
  ir::Graph G = graphOf(S, {scale("a", S, 3), plain("add", ir::LayerKind::Add, {0, -1}, S, S)});
  EXPECT_EQ(runOk(G, {100, -100, 10000, -10000}), (V{400, -400, 32767, -32768}));
  // Float: no saturation.
  EXPECT_EQ(ir::runFloat(G, {100, -100, 10000, -10000}), (F{400, -400, 40000, -40000}));
}

TEST(RefAdd, ReluOfTheSumNotSumOfRelus) {
  // a = -3x plus x = -2x, then ReLU: x = 5 -> 0, x = -5 -> 10. Adding the
  // inputs' ReLUs instead would give 5 and 15.
  const Shape S{1, 1, 2};
  ir::Graph G = graphOf(
      S, {scale("a", S, -3), plain("add", ir::LayerKind::Add, {0, -1}, S, S, /*Relu=*/true)});
  EXPECT_EQ(runOk(G, {5, -5}), (V{0, 10}));
  EXPECT_EQ(ir::runFloat(G, {5, -5}), (F{0, 10}));
  // a = 3x: 4x saturates, then the ReLU: 40000 -> 32767, -40000 -> 0.
  ir::Graph H = graphOf(
      S, {scale("a", S, 3), plain("add", ir::LayerKind::Add, {0, -1}, S, S, /*Relu=*/true)});
  EXPECT_EQ(runOk(H, {10000, -10000}), (V{32767, 0}));
  EXPECT_EQ(ir::runFloat(H, {10000, -10000}), (F{40000, 0}));
}

TEST(RefAdd, SameTensorTwice) {
  const Shape S{1, 1, 2};
  ir::Graph G = graphOf(S, {plain("add", ir::LayerKind::Add, {-1, -1}, S, S)});
  EXPECT_EQ(runOk(G, {7, 20000}), (V{14, 32767}));
}

TEST(RefRelu, ClampsNegativesOnly) {
  const Shape S{1, 1, 5};
  ir::Graph G = graphOf(S, {plain("relu", ir::LayerKind::Relu, {-1}, S, S)});
  EXPECT_EQ(runOk(G, {-5, 0, 7, -32768, 32767}), (V{0, 0, 7, 0, 32767}));
  EXPECT_EQ(ir::runFloat(G, {-0.5f, 0, 7.25f, -1e9f, 1e9f}), (F{0, 0, 7.25f, 0, 1e9f}));
}

TEST(RefElementwise, FormatsPassThrough) {
  // Q.8 everywhere: the value 1.5 is 384 in and out; add gives 3.0 = 768.
  const Shape S{1, 1, 1};
  ir::Layer R = plain("relu", ir::LayerKind::Relu, {-1}, S, S);
  ir::Layer A = plain("add", ir::LayerKind::Add, {0, -1}, S, S);
  ir::Layer C = plain("cat", ir::LayerKind::Concat, {1, 0}, S, {2, 1, 1});
  for (ir::Layer *L : {&R, &A, &C})
    L->InFrac = L->OutFrac = 8;
  ir::Graph G = graphOf(S, {R, A, C});
  G.InputFrac = 8;
  EXPECT_EQ(runOk(G, {384}), (V{768, 384}));
}

} // namespace
