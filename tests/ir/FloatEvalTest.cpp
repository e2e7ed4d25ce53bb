//===- FloatEvalTest.cpp - The float path of the front end ----------------===//
//
// ir::runFloat is what calibration measures ranges with and what snowref's
// quantization report compares against, so its semantics are pinned here on
// values worked out by hand (tests/ref pins each kind again next to the fixed
// path), and checkFloatGraph must turn every graph it would misread into an
// error naming the layer instead.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/FloatEval.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace snow::ir;

namespace {

Layer layer(const std::string &Name, LayerKind Kind, std::vector<int> Inputs, Shape In, Shape Out) {
  Layer L;
  L.Name = Name;
  L.Loc = {"f.yaml", 3};
  L.Kind = Kind;
  L.Inputs = std::move(Inputs);
  L.In = In;
  L.Out = Out;
  return L;
}

std::string checkError(const Graph &G, uint64_t InputElems) {
  llvm::Error E = checkFloatGraph(G, InputElems);
  return E ? llvm::toString(std::move(E)) : std::string("no error");
}

} // namespace

TEST(FloatEval, PoolsConcatReluAndAddOnAPaddedWindow) {
  // Input 1x2x2 = ((1, -2), (3, 4)). 2x2 windows, stride 1, padding 1 at the
  // bottom and right: the max pool sees -inf padding, the average pool
  // divides by the whole window (4), padding included as 0.
  Graph G;
  G.Input = {1, 2, 2};
  Layer Max = layer("max", LayerKind::MaxPool, {-1}, G.Input, G.Input);
  Max.KH = Max.KW = 2;
  Max.PadB = Max.PadR = 1;
  Layer Avg = Max;
  Avg.Name = "avg";
  Avg.Kind = LayerKind::AvgPool;
  G.Layers = {Max, Avg, layer("relu", LayerKind::Relu, {-1}, G.Input, G.Input),
              layer("cat", LayerKind::Concat, {0, 2}, G.Input, {2, 2, 2}),
              layer("sum", LayerKind::Add, {1, -1}, G.Input, G.Input)};
  G.Layers[4].Relu = true;
  std::vector<std::vector<float>> Outs;
  const std::vector<float> Out = runFloat(G, {1, -2, 3, 4}, &Outs);
  ASSERT_EQ(Outs.size(), 5u);
  EXPECT_EQ(Outs[0], (std::vector<float>{4, 4, 4, 4}));
  EXPECT_EQ(Outs[1], (std::vector<float>{1.5f, 0.5f, 1.75f, 1}));
  EXPECT_EQ(Outs[2], (std::vector<float>{1, 0, 3, 4}));
  EXPECT_EQ(Outs[3], (std::vector<float>{4, 4, 4, 4, 1, 0, 3, 4})) << "channels in input order";
  EXPECT_EQ(Out, (std::vector<float>{2.5f, 0, 4.75f, 5})) << "add, then its relu";
  EXPECT_EQ(Out, Outs.back());
}

TEST(FloatEval, GroupedConvWithResidual) {
  // Two groups of one channel, 1x1 kernels 2 and -1, bias 0.5 and 0, plus
  // the input itself as the residual.
  Graph G;
  G.Input = {2, 1, 1};
  Layer C = layer("c", LayerKind::Conv, {-1}, G.Input, G.Input);
  C.Groups = 2;
  C.Weights = {2, -1};
  C.Bias = {0.5f, 0};
  C.HasResidual = true;
  C.Residual = -1;
  G.Layers = {C};
  EXPECT_EQ(runFloat(G, {3, 10}), (std::vector<float>{9.5f, 0}));
}

TEST(FloatEval, CheckNamesTheLayerItWouldMisread) {
  Graph G;
  G.Name = "m";
  G.Input = {1, 2, 2};
  Layer C = layer("c", LayerKind::Conv, {-1}, G.Input, G.Input);
  C.Weights = {1};
  G.Layers = {C};
  EXPECT_EQ(checkError(G, 4), "no error");
  EXPECT_EQ(checkError(G, 3), "model 'm': input has 3 values, the model expects 4");
  G.Layers[0].Weights.clear();
  EXPECT_EQ(checkError(G, 4), "f.yaml:3: layer 'c': has 0 float weights, expected 1");
  G.Layers[0].Weights = {1};
  G.Layers[0].Bias = {1, 2};
  EXPECT_EQ(checkError(G, 4), "f.yaml:3: layer 'c': has 2 biases, expected 1");
  G.Layers[0].Bias.clear();
  G.Layers[0].Inputs = {0};
  EXPECT_EQ(checkError(G, 4), "f.yaml:3: layer 'c': input 0 is not an earlier layer");
  G.Layers[0] = layer("bn", LayerKind::BatchNorm, {-1}, G.Input, G.Input);
  EXPECT_NE(checkError(G, 4).find("run ir::canonicalize first"), std::string::npos);
  G.Layers[0] = layer("cat", LayerKind::Concat, {-1, -1}, G.Input, {3, 2, 2});
  EXPECT_EQ(checkError(G, 4), "f.yaml:3: layer 'cat': inputs hold 8 values, the output 12");
  G.Layers[0] = layer("r", LayerKind::Relu, {-1}, {1, 1, 2}, {1, 1, 2});
  EXPECT_EQ(checkError(G, 4), "f.yaml:3: layer 'r': input holds 4 values, the layer's input "
                              "shape 2");
}
