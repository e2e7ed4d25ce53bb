//===- VerifyCanonicalTest.cpp - What the reference refuses, new kinds ----===//
//
// The executors run only the canonical kinds and index tensors with the
// graph's own numbers, so each of the new fields (Inputs, Groups, the fused
// residual, AvgMult / AvgShift) has a check, and the kinds canonicalize()
// removes are refused with a message that says so. Each test breaks one
// thing in an otherwise valid graph.
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"
#include "snow/ref/Reference.h"

#include <gtest/gtest.h>

using namespace snow;
using snow::ir::LayerKind;
using snow::ir::Shape;
using snow::test::verifyMessage;

namespace {

/// c0 conv 3x3 pad 1 (4 -> 4, g = 2) on 4x6x6; c1 conv 1x1 with residual c0;
/// pool 2x2 average; cat = concat(pool, pool); add = add(cat, cat); relu.
ir::Graph validGraph() {
  ir::Graph G = test::graphOf("v", {4, 6, 6}, 8);
  auto Layer = [&](std::string Name, LayerKind Kind, std::vector<int> Inputs, Shape In, Shape Out) {
    ir::Layer L;
    L.Name = std::move(Name);
    L.Loc = {"m.yaml", unsigned(G.Layers.size() + 4)};
    L.Kind = Kind;
    L.Inputs = std::move(Inputs);
    L.In = In;
    L.Out = Out;
    L.InFrac = L.OutFrac = 8;
    G.Layers.push_back(L);
    return &G.Layers.back();
  };
  ir::Layer *C0 = Layer("c0", LayerKind::Conv, {-1}, G.Input, {4, 6, 6});
  C0->Groups = 2;
  C0->KH = C0->KW = 3;
  C0->PadT = C0->PadB = C0->PadL = C0->PadR = 1;
  C0->WFrac = 12;
  C0->QWeights.assign(4 * 2 * 9, 1);
  ir::Layer *C1 = Layer("c1", LayerKind::Conv, {0}, {4, 6, 6}, {4, 6, 6});
  C1->WFrac = 10;
  C1->QWeights.assign(16, 1);
  C1->HasResidual = true;
  C1->Residual = 0;
  C1->ResFrac = 8;
  ir::Layer *P = Layer("pool", LayerKind::AvgPool, {1}, {4, 6, 6}, {4, 3, 3});
  P->KH = P->KW = P->SH = P->SW = 2;
  P->AvgMult = 32768;
  P->AvgShift = 17;
  Layer("cat", LayerKind::Concat, {2, 2}, {4, 3, 3}, {8, 3, 3});
  Layer("add", LayerKind::Add, {3, 3}, {8, 3, 3}, {8, 3, 3});
  Layer("relu", LayerKind::Relu, {4}, {8, 3, 3}, {8, 3, 3});
  return G;
}

enum { C0, C1, Pool, Cat, Add, Relu };

/// Expects verifyGraph to refuse G with a message containing each of Parts.
void expectRejected(const ir::Graph &G, std::initializer_list<std::string> Parts) {
  std::string M = verifyMessage(G);
  ASSERT_NE(M, "") << "accepted";
  for (const std::string &P : Parts)
    EXPECT_NE(M.find(P), std::string::npos) << "'" << P << "' not in: " << M;
}

TEST(RefVerifyCanonical, AcceptsAValidGraphOfEveryKind) {
  ir::Graph G = validGraph();
  EXPECT_EQ(verifyMessage(G), "");
  EXPECT_EQ(ref::runFixed(G, std::vector<int16_t>(4 * 36, 0), 48).size(), 8u * 9);
}

TEST(RefVerifyCanonical, RejectsNonCanonicalKindsNamingCanonicalize) {
  for (LayerKind K : {LayerKind::BatchNorm, LayerKind::Fc, LayerKind::GlobalAvgPool,
                      LayerKind::Flatten, LayerKind::Softmax}) {
    ir::Graph G = validGraph();
    G.Layers[Relu].Kind = K;
    G.Layers[Relu].TypeName = "written-as";
    expectRejected(G, {"m.yaml:9: layer 'relu'", "'written-as'", "canonicalize()"});
  }
}

TEST(RefVerifyCanonical, RejectsGroupsThatDoNotDivide) {
  ir::Graph G = validGraph();
  G.Layers[C0].Groups = 3;
  expectRejected(G, {"layer 'c0'", "groups 3"});
  G.Layers[C0].Groups = 0;
  expectRejected(G, {"groups 0"});
}

TEST(RefVerifyCanonical, GroupedWeightCountUsesChannelsPerGroup) {
  ir::Graph G = validGraph();
  G.Layers[C0].Groups = 1; // Now 4 x 4 x 3 x 3 weights are needed.
  expectRejected(G, {"72 quantized weights, expected 144 (4x4x3x3)"});
}

TEST(RefVerifyCanonical, RejectsResidualOfAnotherShape) {
  ir::Graph G = validGraph();
  G.Layers[C1].Residual = -1; // The graph input is 4x6x6 too: fine.
  EXPECT_EQ(verifyMessage(G), "");
  G = validGraph();
  G.Layers[C1].Out = {2, 6, 6};
  G.Layers[C1].QWeights.assign(8, 1);
  expectRejected(G, {"layer 'c1'", "residual from layer 'c0' is 4x6x6 but the output is 2x6x6"});
  G.Layers[C1].Residual = -1;
  expectRejected(G, {"residual from the graph input is 4x6x6"});
}

TEST(RefVerifyCanonical, RejectsResidualFormatMismatchOrTooFine) {
  ir::Graph G = validGraph();
  G.Layers[C1].ResFrac = 7;
  expectRejected(G, {"residual format has 7 fraction bits but layer 'c0' writes 8"});
  // c1 reads c0 in Q.4 with WFrac 0, and adds the Q.8 graph input: the
  // residual would need a right shift.
  G = validGraph();
  G.Layers[C0].OutFrac = G.Layers[C1].InFrac = G.Layers[C1].OutFrac = 4;
  G.Layers[C1].WFrac = 0;
  G.Layers[C1].Residual = -1;
  expectRejected(G, {"residual format (8 fraction bits) is finer than the products (4 + 0)"});
}

TEST(RefVerifyCanonical, RejectsResidualFromALaterLayer) {
  ir::Graph G = validGraph();
  G.Layers[C1].Residual = 1;
  expectRejected(G, {"residual index 1 is not an earlier layer"});
}

TEST(RefVerifyCanonical, RejectsResidualOrReluOnKindsThatDoNotApplyThem) {
  ir::Graph G = validGraph();
  G.Layers[Pool].HasResidual = true;
  expectRejected(G, {"layer 'pool'", "residual add, which only conv"});
  G = validGraph();
  G.Layers[Cat].Relu = true;
  expectRejected(G, {"layer 'cat'", "fused ReLU, which only conv and add"});
}

TEST(RefVerifyCanonical, RejectsWrongInputCounts) {
  ir::Graph G = validGraph();
  G.Layers[Add].Inputs = {3, 3, 3};
  expectRejected(G, {"layer 'add'", "takes 2 inputs, got 3"});
  G.Layers[Add].Inputs = {3};
  expectRejected(G, {"takes 2 inputs, got 1"});
  G = validGraph();
  G.Layers[Relu].Inputs = {4, 4};
  expectRejected(G, {"layer 'relu'", "takes 1 input, got 2"});
  G.Layers[Relu].Inputs = {};
  expectRejected(G, {"has no inputs"});
  G = validGraph();
  G.Layers[Cat].Inputs = {2, 3};
  expectRejected(G, {"layer 'cat'", "input index 3 is not an earlier layer"});
}

/// conv (Q.8 -> Q.7, 1x1x1) then a Kind layer of (conv, graph input): the
/// second input has another format than the first.
ir::Graph twoFormats(LayerKind Kind) {
  ir::Graph G;
  G.Name = "formats";
  G.Input = {1, 1, 1};
  G.InputFrac = 8;
  ir::Layer C;
  C.Name = "c";
  C.In = C.Out = G.Input;
  C.InFrac = 8, C.OutFrac = 7;
  C.QWeights = {1};
  ir::Layer L;
  L.Name = "l";
  L.Kind = Kind;
  L.Inputs = {0, -1};
  L.In = G.Input;
  L.Out = Kind == LayerKind::Concat ? Shape{2, 1, 1} : G.Input;
  L.InFrac = L.OutFrac = 7;
  G.Layers = {C, L};
  return G;
}

TEST(RefVerifyCanonical, RejectsAddOfDifferentShapesOrFormats) {
  ir::Graph G = validGraph();
  G.Layers[Add].Inputs = {3, 2}; // cat is 8x3x3, pool 4x3x3.
  expectRejected(G, {"layer 'add'", "input from layer 'pool' is 4x3x3, the first input 8x3x3"});
  expectRejected(
      twoFormats(LayerKind::Add),
      {"layer 'l'", "input from the graph input has 8 fraction bits, the first input 7"});
}

TEST(RefVerifyCanonical, RejectsConcatOfDifferentSizesFormatsOrChannelSum) {
  ir::Graph G = validGraph();
  G.Layers[Cat].Out.C = 9;
  expectRejected(G, {"layer 'cat'", "output is 9x3x3 but the inputs concatenate to 8x3x3"});
  G = validGraph();
  G.Layers[Cat].Inputs = {2, 1}; // c1 is 6x6.
  expectRejected(G, {"input from layer 'c1' is 4x6x6, the first input 4x3x3"});
  expectRejected(twoFormats(LayerKind::Concat),
                 {"layer 'l'", "input from the graph input has 8 fraction bits"});
  // The same graph with one format is fine.
  G = twoFormats(LayerKind::Concat);
  G.Layers[0].OutFrac = G.Layers[1].InFrac = G.Layers[1].OutFrac = 8;
  EXPECT_EQ(verifyMessage(G), "");
}

TEST(RefVerifyCanonical, RejectsAvgPoolConstantsOffTheContract) {
  ir::Graph G = validGraph();
  G.Layers[Pool].AvgMult = 0;
  G.Layers[Pool].AvgShift = 0;
  expectRejected(
      G, {"layer 'pool'", "mult 0 shift 0", "needs mult 32768 shift 17", "was it quantized?"});
  G = validGraph();
  G.Layers[Pool].AvgMult = 32767;
  expectRejected(G, {"needs mult 32768 shift 17"});
}

TEST(RefVerifyCanonical, RejectsAvgPoolCeilMode) {
  ir::Graph G = validGraph();
  G.Layers[Pool].CeilMode = true; // 6 -> 3 either way; the mode itself is refused.
  expectRejected(G, {"layer 'pool'", "ceil_mode"});
}

TEST(RefVerifyCanonical, RejectsElementwiseChangingShapeOrFormat) {
  ir::Graph G = validGraph();
  G.Layers[Relu].OutFrac = 7;
  expectRejected(G, {"layer 'relu'", "keeps the format"});
  G = validGraph();
  G.Layers[Relu].Out = {8, 3, 4};
  expectRejected(G, {"layer 'relu'", "keeps the shape"});
}

} // namespace
