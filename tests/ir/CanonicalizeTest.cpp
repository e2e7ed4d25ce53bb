//===- CanonicalizeTest.cpp - The rewrite into the kinds the compiler maps -===//
//
// Pins each rule of docs/model-format.md, "Canonical form": the batchnorm
// fold (values, computed in double), fc -> conv, global average pooling ->
// average pooling, flatten and softmax removal, relu and add fusion with the
// choice of the fused conv and the residual's index after removals, the adds
// that must stay, the errors, and that the rewrite is a fixed point.
//
//===----------------------------------------------------------------------===//

#include "IrTestUtil.h"
#include "snow/ir/FloatEval.h"
#include "snow/ir/Graph.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace snow::ir;

namespace {

Graph parseOk(const std::string &Layers, const std::string &InShape = "[4, 8, 8]") {
  return snow::test::parseOk(snow::test::seededModel(InShape, "5", Layers));
}

Graph canon(const std::string &Layers, const std::string &InShape = "[4, 8, 8]") {
  Graph G = parseOk(Layers, InShape);
  if (llvm::Error E = canonicalize(G))
    ADD_FAILURE() << llvm::toString(std::move(E));
  return G;
}

std::string canonError(const std::string &Layers) {
  Graph G = parseOk(Layers);
  llvm::Error E = canonicalize(G);
  return E ? llvm::toString(std::move(E)) : "<no error>";
}

void expectCanonError(const std::string &Layers, std::initializer_list<const char *> Parts) {
  std::string E = canonError(Layers);
  for (const char *P : Parts)
    EXPECT_NE(E.find(P), std::string::npos) << "expected '" << P << "' in: " << E;
}

std::vector<std::string> names(const Graph &G) {
  std::vector<std::string> N;
  for (const Layer &L : G.Layers)
    N.push_back(L.Name);
  return N;
}

const Layer &byName(const Graph &G, const std::string &Name) {
  for (const Layer &L : G.Layers)
    if (L.Name == Name)
      return L;
  ADD_FAILURE() << "no layer " << Name;
  return G.Layers.front();
}

int indexOf(const Graph &G, const std::string &Name) {
  return int(&byName(G, Name) - G.Layers.data());
}

} // namespace

TEST(Canonicalize, FoldsBatchNormIntoTheConvInDouble) {
  const std::string Layers = "  - {name: c, type: conv, out_channels: 3, kernel: 3, pad: 1}\n"
                             "  - {name: bn, type: batchnorm, eps: 0.01}\n"
                             "  - {name: p, type: maxpool, kernel: 2}\n";
  Graph Before = parseOk(Layers);
  Graph G = canon(Layers);
  ASSERT_EQ(names(G), (std::vector<std::string>{"c", "p"}));
  const Layer &C0 = Before.Layers[0], &BN = Before.Layers[1], &C = G.Layers[0];
  size_t Per = C0.Weights.size() / 3;
  for (unsigned O = 0; O < 3; ++O) {
    double S = double(BN.Gamma[O]) / std::sqrt(double(BN.Var[O]) + double(0.01f));
    for (size_t K = 0; K < Per; ++K)
      ASSERT_EQ(C.Weights[O * Per + K], float(double(C0.Weights[O * Per + K]) * S));
    EXPECT_EQ(C.Bias[O], float((double(C0.Bias[O]) - BN.Mean[O]) * S + BN.Beta[O]));
  }
  EXPECT_EQ(C.Loc.Line, 5u) << "the conv keeps its own location";
  EXPECT_EQ(G.Layers[1].Inputs, (std::vector<int>{0})) << "the pool now reads the conv";
  EXPECT_EQ(G.Layers[1].In, C.Out);
}

TEST(Canonicalize, FoldedBatchNormGivesABiasToABiasFreeConv) {
  Graph G = canon("  - {name: c, type: conv, out_channels: 2, kernel: 1, bias: false}\n"
                  "  - {name: bn, type: batchnorm}\n");
  ASSERT_EQ(G.Layers.size(), 1u);
  EXPECT_TRUE(G.Layers[0].HasBias);
  EXPECT_NE(G.Layers[0].Bias, std::vector<float>(2, 0.0f));
  EXPECT_EQ(G.params(), 2u * 4 + 2) << "the canonical graph counts what the hardware stores";
}

TEST(Canonicalize, FoldsBatchNormIntoAnFcAndGroupedConvs) {
  Graph G = canon("  - {name: dw, type: conv, out_channels: 4, kernel: 3, groups: 4}\n"
                  "  - {name: bn1, type: batchnorm}\n"
                  "  - {name: f, type: flatten}\n"
                  "  - {name: fc, type: fc, out_features: 3}\n"
                  "  - {name: bn2, type: batchnorm}\n");
  EXPECT_EQ(names(G), (std::vector<std::string>{"dw", "fc"}));
  EXPECT_EQ(G.Layers[0].Weights.size(), 36u);
}

TEST(Canonicalize, BatchNormThatCannotBeFoldedIsAnError) {
  expectCanonError("  - {name: p, type: maxpool, kernel: 2}\n"
                   "  - {name: bn, type: batchnorm}\n",
                   {"m.yaml:6: layer 'bn': cannot fold the batchnorm into the layer before it: "
                    "its input is maxpool 'p'"});
  expectCanonError("  - {name: bn, type: batchnorm}\n",
                   {"m.yaml:5: layer 'bn':", "it reads the graph input 'data'"});
  expectCanonError("  - {name: c, type: conv, out_channels: 4, kernel: 1}\n"
                   "  - {name: bn, type: batchnorm}\n"
                   "  - {name: s, type: add, inputs: [bn, c]}\n",
                   {"m.yaml:6: layer 'bn':", "its input 'c' also feeds other layers"});
  expectCanonError("  - {name: c, type: conv, out_channels: 4, kernel: 1, relu: true}\n"
                   "  - {name: bn, type: batchnorm}\n",
                   {"m.yaml:6: layer 'bn':", "its input 'c' applies a relu first"});
  expectCanonError("  - {name: c, type: conv, out_channels: 4, kernel: 1}\n"
                   "  - {name: r, type: relu}\n"
                   "  - {name: bn, type: batchnorm}\n",
                   {"m.yaml:7: layer 'bn':", "its input is relu 'r'"});
}

TEST(Canonicalize, FcBecomesAConvOverItsWholeInput) {
  const std::string Layers = "  - {name: c, type: conv, out_channels: 2, kernel: 3}\n"
                             "  - {name: f, type: flatten}\n"
                             "  - {name: fc, type: fc, out_features: 5, relu: true}\n";
  Graph Before = parseOk(Layers);
  Graph G = canon(Layers);
  ASSERT_EQ(names(G), (std::vector<std::string>{"c", "fc"}));
  const Layer &F = G.Layers[1];
  EXPECT_EQ(F.Kind, LayerKind::Conv);
  EXPECT_EQ(F.TypeName, "fc");
  EXPECT_EQ(F.Inputs, (std::vector<int>{0})) << "reads the flatten's input";
  EXPECT_EQ(F.In, (Shape{2, 6, 6}));
  EXPECT_EQ(F.KH, 6u);
  EXPECT_EQ(F.KW, 6u);
  EXPECT_EQ(F.SH + F.SW, 2u);
  EXPECT_EQ(F.PadT + F.PadB + F.PadL + F.PadR, 0u);
  EXPECT_EQ(F.Out, (Shape{5, 1, 1}));
  EXPECT_TRUE(F.Relu);
  EXPECT_EQ(F.Weights, Before.Layers[2].Weights) << "(Out, C*H*W) is OIHW (Out, C, H, W)";
  EXPECT_EQ(F.macs(), Before.Layers[2].macs());
  EXPECT_EQ(F.params(), Before.Layers[2].params());
  EXPECT_EQ(F.Out.H, windowOutSize(F.In.H, F.KH, F.SH, 0, 0, false));
}

TEST(Canonicalize, FcWithoutFlattenAndOnAVector) {
  Graph G = canon("  - {name: fc1, type: fc, out_features: 7}\n"
                  "  - {name: fc2, type: fc, out_features: 3}\n");
  EXPECT_EQ(G.Layers[0].KH, 8u);
  EXPECT_EQ(G.Layers[1].In, (Shape{7, 1, 1}));
  EXPECT_EQ(G.Layers[1].KH, 1u);
  EXPECT_EQ(G.Layers[1].KW, 1u);
}

TEST(Canonicalize, FlattenMayOnlyFeedFcOrSoftmaxOrBeTheOutput) {
  expectCanonError("  - {name: f, type: flatten}\n"
                   "  - {name: c, type: conv, out_channels: 2, kernel: 1}\n",
                   {"m.yaml:5: layer 'f': a flatten may only feed fc or softmax layers or be "
                    "the graph output, but conv 'c' reads it"});
  Graph G = canon("  - {name: c, type: conv, out_channels: 2, kernel: 1}\n"
                  "  - {name: f, type: flatten}\n");
  EXPECT_EQ(names(G), (std::vector<std::string>{"c"})) << "the output is the flatten's input";
  EXPECT_EQ(G.output().Out, (Shape{2, 8, 8}));
}

TEST(Canonicalize, SoftmaxBecomesAHostFlag) {
  Graph G = canon("  - {name: g, type: global_avgpool}\n"
                  "  - {name: f, type: flatten}\n"
                  "  - {name: s, type: softmax}\n");
  EXPECT_TRUE(G.HostSoftmax);
  ASSERT_EQ(names(G), (std::vector<std::string>{"g"}));
  EXPECT_EQ(G.output().Out, (Shape{4, 1, 1}));
}

TEST(Canonicalize, ARemovedOutputMustHandOverToTheLastLayer) {
  expectCanonError("  - {name: a, type: global_avgpool}\n"
                   "  - {name: b, type: global_avgpool, input: data}\n"
                   "  - {name: s, type: softmax, input: a}\n",
                   {"m.yaml:7: layer 's': it is the graph output and is removed, but its input "
                    "'a' is not the last layer that remains ('b' comes after it)"});
  Graph G = parseOk("  - {name: s, type: softmax}\n", "[10, 1, 1]");
  llvm::Error E = canonicalize(G);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E))
                .find("m.yaml:5: layer 's': nothing is left for the "
                      "accelerator"),
            std::string::npos);
}

TEST(Canonicalize, AnEmptyGraphStaysEmpty) {
  Graph G;
  EXPECT_FALSE(bool(canonicalize(G)));
  EXPECT_TRUE(G.Layers.empty());
}

TEST(Canonicalize, GlobalAvgPoolBecomesAnAvgPoolOverTheInput) {
  Graph G = canon("  - {name: c, type: conv, out_channels: 2, kernel: [3, 1]}\n"
                  "  - {name: g, type: global_avgpool}\n");
  const Layer &L = G.Layers[1];
  EXPECT_EQ(L.Kind, LayerKind::AvgPool);
  EXPECT_EQ(L.TypeName, "global_avgpool");
  EXPECT_EQ(L.KH, 6u);
  EXPECT_EQ(L.KW, 8u);
  EXPECT_EQ(L.Out, (Shape{2, 1, 1}));
  EXPECT_EQ(L.Out.H, windowOutSize(L.In.H, L.KH, L.SH, L.PadT, L.PadB, L.CeilMode));
  EXPECT_EQ(L.Out.W, windowOutSize(L.In.W, L.KW, L.SW, L.PadL, L.PadR, L.CeilMode));
}

TEST(Canonicalize, ReluFusesIntoAConvThatFeedsOnlyIt) {
  Graph G = canon("  - {name: c, type: conv, out_channels: 4, kernel: 1}\n"
                  "  - {name: r, type: relu}\n"
                  "  - {name: r2, type: relu}\n"
                  "  - {name: p, type: maxpool, kernel: 2}\n"
                  "  - {name: r3, type: relu}\n");
  EXPECT_EQ(names(G), (std::vector<std::string>{"c", "p", "r3"}))
      << "a relu after a relu goes too; one after a pool stays";
  EXPECT_TRUE(G.Layers[0].Relu);
  EXPECT_EQ(G.Layers[1].Inputs, (std::vector<int>{0}));
  EXPECT_EQ(G.Layers[2].Kind, LayerKind::Relu);
}

TEST(Canonicalize, ReluStaysWhenItsConvFeedsAnotherLayer) {
  Graph G = canon("  - {name: c, type: conv, out_channels: 4, kernel: 1}\n"
                  "  - {name: r, type: relu}\n"
                  "  - {name: s, type: concat, inputs: [r, c]}\n");
  EXPECT_EQ(names(G), (std::vector<std::string>{"c", "r", "s"}));
  EXPECT_FALSE(G.Layers[0].Relu);
}

TEST(Canonicalize, AddFusesIntoItsLaterConvInput) {
  // x is the residual: it comes first. The add's relu moves with it.
  for (const char *Inputs : {"[b, x]", "[x, b]"}) {
    Graph G = canon(std::string("  - {name: x, type: conv, out_channels: 4, kernel: 1}\n"
                                "  - {name: a, type: conv, out_channels: 4, kernel: 3, pad: 1}\n"
                                "  - {name: abn, type: batchnorm}\n"
                                "  - {name: ar, type: relu}\n"
                                "  - {name: b, type: conv, out_channels: 4, kernel: 3, pad: 1}\n"
                                "  - {name: s, type: add, inputs: ") +
                    Inputs +
                    ", relu: true}\n"
                    "  - {name: p, type: maxpool, kernel: 2}\n");
    ASSERT_EQ(names(G), (std::vector<std::string>{"x", "a", "b", "p"})) << Inputs;
    const Layer &B = G.Layers[2];
    EXPECT_TRUE(B.HasResidual);
    EXPECT_EQ(B.Residual, 0) << "x's index";
    EXPECT_TRUE(B.Relu) << "the add's relu";
    EXPECT_EQ(B.Inputs, (std::vector<int>{1}));
    EXPECT_EQ(G.Layers[3].Inputs, (std::vector<int>{2})) << "the add's reader reads b";
    EXPECT_FALSE(G.Layers[0].Relu);
  }
}

TEST(Canonicalize, ResidualIndexIsRemappedAfterRemovals) {
  Graph G = canon("  - {name: c0, type: conv, out_channels: 4, kernel: 1}\n"
                  "  - {name: bn0, type: batchnorm}\n"
                  "  - {name: r0, type: relu}\n"
                  "  - {name: c1, type: conv, out_channels: 4, kernel: 1}\n"
                  "  - {name: bn1, type: batchnorm}\n"
                  "  - {name: s, type: add, inputs: [r0, bn1]}\n"
                  "  - {name: r, type: relu}\n"
                  "  - {name: c2, type: conv, out_channels: 4, kernel: 1}\n"
                  "  - {name: s2, type: add, inputs: [c2, data]}\n");
  ASSERT_EQ(names(G), (std::vector<std::string>{"c0", "c1", "c2"}));
  EXPECT_TRUE(G.Layers[0].Relu);
  EXPECT_EQ(G.Layers[1].Residual, 0);
  EXPECT_TRUE(G.Layers[1].Relu) << "relu after the add";
  EXPECT_EQ(G.Layers[2].Inputs, (std::vector<int>{1}));
  EXPECT_TRUE(G.Layers[2].HasResidual);
  EXPECT_EQ(G.Layers[2].Residual, -1) << "the graph input as residual";
  EXPECT_FALSE(G.Layers[2].Relu);
}

TEST(Canonicalize, AddsThatCannotBeFusedStay) {
  // Later input is a pool (the earlier conv cannot take it: its residual
  // would not exist yet).
  Graph G = canon("  - {name: c, type: conv, out_channels: 4, kernel: 1}\n"
                  "  - {name: p, type: maxpool, input: data, kernel: 3, stride: 1, pad: 1}\n"
                  "  - {name: s, type: add, inputs: [c, p]}\n"
                  "  - {name: r, type: relu}\n");
  ASSERT_EQ(names(G), (std::vector<std::string>{"c", "p", "s"}));
  EXPECT_EQ(G.Layers[2].Kind, LayerKind::Add);
  EXPECT_TRUE(G.Layers[2].Relu) << "the relu fuses into the add";
  EXPECT_FALSE(G.Layers[0].HasResidual);
  // Later conv has its own relu.
  G = canon("  - {name: c, type: conv, out_channels: 4, kernel: 1, relu: true}\n"
            "  - {name: s, type: add, inputs: [data, c]}\n");
  EXPECT_EQ(G.Layers.back().Kind, LayerKind::Add);
  // Later conv also feeds another layer.
  G = canon("  - {name: c, type: conv, out_channels: 4, kernel: 1}\n"
            "  - {name: s, type: add, inputs: [data, c]}\n"
            "  - {name: t, type: concat, inputs: [s, c]}\n");
  EXPECT_EQ(names(G), (std::vector<std::string>{"c", "s", "t"}));
  // Both inputs the same conv.
  G = canon("  - {name: c, type: conv, out_channels: 4, kernel: 1}\n"
            "  - {name: s, type: add, inputs: [c, c]}\n");
  EXPECT_EQ(names(G), (std::vector<std::string>{"c", "s"}));
  EXPECT_EQ(G.Layers[1].Inputs, (std::vector<int>{0, 0}));
}

TEST(Canonicalize, KeepsNamesTypesAndLocations) {
  Graph G = canon("  - {name: c, type: conv, out_channels: 4, kernel: 1}\n"
                  "  - {name: bn, type: batchnorm}\n"
                  "  - {name: g, type: global_avgpool}\n"
                  "  - {name: fc, type: fc, out_features: 2}\n");
  EXPECT_EQ(byName(G, "g").Loc.str(), "m.yaml:7");
  EXPECT_EQ(byName(G, "fc").Loc.str(), "m.yaml:8");
  EXPECT_EQ(byName(G, "fc").TypeName, "fc");
  EXPECT_EQ(indexOf(G, "fc"), 2);
  EXPECT_EQ(byName(G, "fc").Inputs, (std::vector<int>{1}));
}

TEST(Canonicalize, IsAFixedPoint) {
  const std::string Layers = "  - {name: c, type: conv, out_channels: 4, kernel: 1}\n"
                             "  - {name: bn, type: batchnorm}\n"
                             "  - {name: r, type: relu}\n"
                             "  - {name: r2, type: relu}\n"
                             "  - {name: p, type: maxpool, input: data, kernel: 1}\n"
                             "  - {name: s, type: add, inputs: [r2, p], relu: true}\n"
                             "  - {name: t, type: relu}\n"
                             "  - {name: cat, type: concat, inputs: [t, s]}\n"
                             "  - {name: f, type: flatten}\n"
                             "  - {name: fc, type: fc, out_features: 3}\n"
                             "  - {name: sm, type: softmax}\n";
  Graph G = canon(Layers);
  std::vector<std::string> Names = names(G);
  std::vector<std::vector<int>> Inputs;
  for (const Layer &L : G.Layers)
    Inputs.push_back(L.Inputs);
  std::vector<float> W = G.Layers[0].Weights;
  ASSERT_FALSE(bool(canonicalize(G)));
  EXPECT_EQ(names(G), Names);
  for (size_t I = 0; I < G.Layers.size(); ++I)
    EXPECT_EQ(G.Layers[I].Inputs, Inputs[I]) << G.Layers[I].Name;
  EXPECT_EQ(G.Layers[0].Weights, W) << "the batchnorm is not folded twice";
  EXPECT_TRUE(G.HostSoftmax);
  for (const Layer &L : G.Layers)
    EXPECT_TRUE(isCanonicalKind(L.Kind)) << L.Name;
}

TEST(Canonicalize, CanonicalKinds) {
  for (LayerKind K : {LayerKind::Conv, LayerKind::MaxPool, LayerKind::AvgPool, LayerKind::Concat,
                      LayerKind::Add, LayerKind::Relu, LayerKind::Slice})
    EXPECT_TRUE(isCanonicalKind(K)) << kindName(K);
  for (LayerKind K : {LayerKind::GlobalAvgPool, LayerKind::Fc, LayerKind::BatchNorm,
                      LayerKind::Flatten, LayerKind::Softmax})
    EXPECT_FALSE(isCanonicalKind(K)) << kindName(K);
}

// An inception block's branches: convs on one input. Two reduce convs with
// the same window and relu, each read by a conv, merge; a 3x3 (another
// window), a 1x1 without a relu, and a 1x1 that feeds the concat (whose
// format group spans the block) keep their own. The merged conv holds the
// members' weights and biases in order; each member becomes a slice, under
// its name, read where it was.
TEST(Canonicalize, SiblingConvsMergeIntoOneConvWithSlices) {
  const std::string Layers = "  - {name: a, type: conv, out_channels: 3, kernel: 1, relu: true}\n"
                             "  - {name: b, type: conv, input: data, out_channels: 5, kernel: 3,"
                             " pad: 1, relu: true}\n"
                             "  - {name: r1, type: conv, input: data, out_channels: 3, kernel: 1,"
                             " relu: true}\n"
                             "  - {name: c, type: conv, input: data, out_channels: 2, kernel: 1,"
                             " relu: true}\n"
                             "  - {name: d, type: conv, input: data, out_channels: 2, kernel: 1}\n"
                             "  - {name: rr, type: conv, input: r1, out_channels: 3, kernel: 1}\n"
                             "  - {name: cc, type: conv, input: c, out_channels: 4, kernel: 3,"
                             " pad: 1}\n"
                             "  - {name: cat, type: concat, inputs: [a, b, rr, cc, d]}\n";
  const Graph Raw = parseOk(Layers);
  Graph G = canon(Layers);
  EXPECT_EQ(names(G),
            (std::vector<std::string>{"a", "b", "r1+c", "r1", "c", "d", "rr", "cc", "cat"}));
  const Layer &M = byName(G, "r1+c");
  EXPECT_EQ(M.Kind, LayerKind::Conv);
  EXPECT_EQ(M.Out.C, 5u);
  EXPECT_TRUE(M.Relu);
  EXPECT_EQ(M.Inputs, std::vector<int>{-1});
  std::vector<float> W = byName(Raw, "r1").Weights, B = byName(Raw, "r1").Bias;
  W.insert(W.end(), byName(Raw, "c").Weights.begin(), byName(Raw, "c").Weights.end());
  B.insert(B.end(), byName(Raw, "c").Bias.begin(), byName(Raw, "c").Bias.end());
  EXPECT_EQ(M.Weights, W);
  EXPECT_EQ(M.Bias, B);
  const Layer &R1 = byName(G, "r1"), &C = byName(G, "c");
  EXPECT_EQ(R1.Kind, LayerKind::Slice);
  EXPECT_EQ(R1.SliceBegin, 0u);
  EXPECT_EQ(R1.Out.C, 3u);
  EXPECT_EQ(C.SliceBegin, 3u);
  EXPECT_EQ(C.Out.C, 2u);
  EXPECT_EQ(R1.Loc.Line, byName(Raw, "r1").Loc.Line) << "errors still point at the member";
  EXPECT_EQ(R1.Inputs, std::vector<int>{indexOf(G, "r1+c")});
  EXPECT_EQ(byName(G, "rr").Inputs, std::vector<int>{indexOf(G, "r1")});
  EXPECT_EQ(byName(G, "cc").Inputs, std::vector<int>{indexOf(G, "c")});
  EXPECT_EQ(byName(G, "a").Kind, LayerKind::Conv) << "feeds the concat";
  EXPECT_EQ(byName(G, "b").Kind, LayerKind::Conv) << "another window";
  EXPECT_EQ(byName(G, "d").Kind, LayerKind::Conv) << "no relu";

  // Merging is done once: a merged graph has nothing left to merge.
  std::vector<std::string> Names = names(G);
  ASSERT_FALSE(bool(canonicalize(G)));
  EXPECT_EQ(names(G), Names);

  // The float model computes the same function: each slice's values are
  // its member's, run as a conv of its own (the unmerged graph, by hand).
  Graph Apart = G;
  for (const char *Name : {"r1", "c"}) {
    Layer &S = Apart.Layers[size_t(indexOf(Apart, Name))];
    const Layer &Member = byName(Raw, Name);
    const Shape Out = S.Out;
    S = byName(Apart, "r1+c");
    S.Name = Name;
    S.Out = Out;
    S.Weights = Member.Weights;
    S.Bias = Member.Bias;
  }
  std::vector<float> In(Raw.Input.elems());
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = float(int(I % 13) - 6) / 8;
  std::vector<std::vector<float>> Merged, Separate;
  runFloat(G, In, &Merged);
  runFloat(Apart, In, &Separate);
  for (const char *Name : {"r1", "c", "rr", "cc", "cat"})
    EXPECT_EQ(Merged[size_t(indexOf(G, Name))], Separate[size_t(indexOf(G, Name))]) << Name;
}

// With one format everywhere a concat's input merges as well (nothing to
// lose in precision); the pool-read and output convs still do not.
TEST(Canonicalize, WithOneFormatAConcatInputMergesToo) {
  const std::string Layers = "  - {name: a, type: conv, out_channels: 3, kernel: 1, relu: true}\n"
                             "  - {name: r, type: conv, input: data, out_channels: 2, kernel: 1,"
                             " relu: true}\n"
                             "  - {name: p, type: conv, input: data, out_channels: 2, kernel: 1,"
                             " relu: true}\n"
                             "  - {name: pp, type: maxpool, input: p, kernel: 1}\n"
                             "  - {name: rr, type: conv, input: r, out_channels: 3, kernel: 1}\n"
                             "  - {name: cat, type: concat, inputs: [a, rr, pp]}\n";
  EXPECT_EQ(names(canon(Layers)), (std::vector<std::string>{"a", "r", "p", "pp", "rr", "cat"}))
      << "by default a concat's input keeps its own format";
  Graph G = parseOk(Layers);
  ASSERT_FALSE(bool(canonicalize(G, {/*OneFormat=*/true})));
  EXPECT_EQ(names(G), (std::vector<std::string>{"a+r", "a", "r", "p", "pp", "rr", "cat"}));
  EXPECT_EQ(byName(G, "a").Kind, LayerKind::Slice);
  EXPECT_EQ(byName(G, "cat").Inputs.front(), indexOf(G, "a"));
  EXPECT_EQ(byName(G, "p").Kind, LayerKind::Conv) << "a pool reads it";
  std::vector<std::string> Names = names(G);
  ASSERT_FALSE(bool(canonicalize(G, {/*OneFormat=*/true})));
  EXPECT_EQ(names(G), Names) << "a fixed point";
}

// The graph output is read by the host from the last layer: a conv that is
// the output keeps its tensor and is not merged; nor is a conv read by a
// pool (its format is the pool's).
TEST(Canonicalize, TheOutputConvAndAPooledConvAreNotMerged) {
  Graph G = canon("  - {name: a, type: conv, out_channels: 3, kernel: 1}\n"
                  "  - {name: p, type: maxpool, kernel: 1}\n"
                  "  - {name: b, type: conv, input: data, out_channels: 2, kernel: 1}\n"
                  "  - {name: c, type: conv, input: data, out_channels: 2, kernel: 1}\n");
  EXPECT_EQ(names(G), (std::vector<std::string>{"a", "p", "b", "c"}));
}

// A max pool of a concat that only it reads pools each of the concat's
// inputs, into a concat under the pool's name: the same values (a max pool
// is per channel) from tensors one conv each writes.
TEST(Canonicalize, AMaxPoolOfAConcatPoolsEachInput) {
  const std::string Layers =
      "  - {name: a, type: conv, out_channels: 16, kernel: 1, relu: true}\n"
      "  - {name: b, type: conv, input: data, out_channels: 24, kernel: 3, pad: 1}\n"
      "  - {name: ab, type: concat, inputs: [a, b]}\n"
      "  - {name: p, type: maxpool, kernel: 3, stride: 2, ceil_mode: true}\n"
      "  - {name: c, type: conv, out_channels: 8, kernel: 1}\n";
  const Graph Raw = parseOk(Layers, "[4, 10, 10]");
  Graph G = canon(Layers, "[4, 10, 10]");
  EXPECT_EQ(names(G), (std::vector<std::string>{"a", "b", "p[0:16]", "p[16:40]", "p", "c"}));
  const Layer &Pa = byName(G, "p[0:16]"), &Pb = byName(G, "p[16:40]"), &P = byName(G, "p");
  const Layer &Orig = byName(Raw, "p");
  for (const Layer *Part : {&Pa, &Pb}) {
    EXPECT_EQ(Part->Kind, LayerKind::MaxPool);
    EXPECT_TRUE(Part->KH == 3 && Part->SH == 2 && Part->CeilMode);
    EXPECT_EQ(Part->Out.H, Orig.Out.H);
    EXPECT_EQ(Part->Out.W, Orig.Out.W);
  }
  EXPECT_EQ(Pa.Inputs, std::vector<int>{indexOf(G, "a")});
  EXPECT_EQ(Pb.Inputs, std::vector<int>{indexOf(G, "b")});
  EXPECT_EQ(Pa.Out.C, 16u);
  EXPECT_EQ(Pb.Out.C, 24u);
  EXPECT_EQ(P.Kind, LayerKind::Concat);
  EXPECT_EQ(P.Inputs, (std::vector<int>{indexOf(G, "p[0:16]"), indexOf(G, "p[16:40]")}));
  EXPECT_EQ(P.Out.C, Orig.Out.C);
  EXPECT_EQ(byName(G, "c").input(), indexOf(G, "p"));
  // The same function, to the bit in float: every value of p and c.
  std::vector<float> In(Raw.Input.elems());
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = float(int(I * 7 % 23) - 11) / 8;
  std::vector<std::vector<float>> Before, After;
  runFloat(Raw, In, &Before);
  runFloat(G, In, &After);
  for (const char *Name : {"p", "c"})
    EXPECT_EQ(Before[size_t(indexOf(Raw, Name))], After[size_t(indexOf(G, Name))]) << Name;
  std::vector<std::string> Names = names(G);
  ASSERT_FALSE(bool(canonicalize(G)));
  EXPECT_EQ(names(G), Names) << "a fixed point";
}

// Left alone: a concat something else reads too (it is needed anyway), and
// an average pool of a concat. A pool of a pool of a concat splits twice.
TEST(Canonicalize, OnlyAConcatReadByAMaxPoolAloneIsPooledByInput) {
  EXPECT_EQ(names(canon("  - {name: a, type: conv, out_channels: 8, kernel: 1}\n"
                        "  - {name: b, type: conv, input: data, out_channels: 8, kernel: 1}\n"
                        "  - {name: ab, type: concat, inputs: [a, b]}\n"
                        "  - {name: p, type: maxpool, kernel: 2, stride: 2}\n"
                        "  - {name: q, type: avgpool, input: ab, kernel: 2, stride: 2}\n"
                        "  - {name: pq, type: concat, inputs: [p, q]}\n")),
            (std::vector<std::string>{"a", "b", "ab", "p", "q", "pq"}));
  EXPECT_EQ(names(canon("  - {name: a, type: conv, out_channels: 8, kernel: 1}\n"
                        "  - {name: b, type: conv, input: data, out_channels: 8, kernel: 1}\n"
                        "  - {name: ab, type: concat, inputs: [a, b]}\n"
                        "  - {name: q, type: avgpool, kernel: 2, stride: 2}\n"
                        "  - {name: c, type: conv, out_channels: 4, kernel: 1}\n")),
            (std::vector<std::string>{"a", "b", "ab", "q", "c"}));
  EXPECT_EQ(
      names(canon("  - {name: a, type: conv, out_channels: 8, kernel: 1}\n"
                  "  - {name: b, type: conv, input: data, out_channels: 8, kernel: 1}\n"
                  "  - {name: ab, type: concat, inputs: [a, b]}\n"
                  "  - {name: p, type: maxpool, kernel: 3, stride: 1, pad: 1}\n"
                  "  - {name: pp, type: maxpool, kernel: 2, stride: 2}\n"
                  "  - {name: c, type: conv, out_channels: 4, kernel: 1}\n")),
      (std::vector<std::string>{"a", "b", "p[0:8]", "p[8:16]", "pp[0:8]", "pp[8:16]", "pp", "c"}));
}
