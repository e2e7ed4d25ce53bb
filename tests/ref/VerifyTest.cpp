//===- VerifyTest.cpp - What the reference refuses to run -----------------===//
//
// The executor indexes tensors with the graph's own numbers, so every
// inconsistency must be a clear error naming the layer, never a wild read.
// Each test breaks one thing in an otherwise valid two-layer graph.
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"
#include "snow/ref/Reference.h"

#include <gtest/gtest.h>

using namespace snow;
using snow::test::verifyMessage;

namespace {

/// conv1 (3x3, pad 1, 2 -> 4 channels on 6x6) then pool1 (2x2, stride 2).
ir::Graph validGraph() {
  ir::Graph G = test::graphOf("v", {2, 6, 6}, 8);
  ir::Layer C;
  C.Name = "conv1";
  C.Loc = {"m.yaml", 4};
  C.Kind = ir::LayerKind::Conv;
  C.In = G.Input;
  C.Out = {4, 6, 6};
  C.KH = C.KW = 3;
  C.PadT = C.PadB = C.PadL = C.PadR = 1;
  C.InFrac = 8, C.WFrac = 12, C.BFrac = 10, C.OutFrac = 8;
  C.QWeights.assign(4 * 2 * 9, 1);
  C.QBias.assign(4, 1);
  G.Layers.push_back(C);
  ir::Layer P;
  P.Name = "pool1";
  P.Loc = {"m.yaml", 9};
  P.Kind = ir::LayerKind::MaxPool;
  P.Inputs = {0};
  P.In = C.Out;
  P.Out = {4, 3, 3};
  P.KH = P.KW = P.SH = P.SW = 2;
  P.InFrac = P.OutFrac = 8;
  G.Layers.push_back(P);
  return G;
}

TEST(RefVerify, AcceptsAConsistentGraph) { EXPECT_EQ(verifyMessage(validGraph()), ""); }

TEST(RefVerify, EmptyBiasMeansNoBias) {
  ir::Graph G = validGraph();
  G.Layers[0].QBias.clear();
  EXPECT_EQ(verifyMessage(G), "");
  EXPECT_EQ(ref::runFixed(G, std::vector<int16_t>(2 * 6 * 6, 0), 48),
            std::vector<int16_t>(4 * 3 * 3, 0));
}

TEST(RefVerify, RejectsWrongWeightCount) {
  ir::Graph G = validGraph();
  G.Layers[0].QWeights.pop_back();
  std::string M = verifyMessage(G);
  EXPECT_NE(M.find("layer 'conv1'"), std::string::npos) << M;
  EXPECT_NE(M.find("71 quantized weights, expected 72"), std::string::npos) << M;
}

TEST(RefVerify, RejectsUnquantizedConv) {
  ir::Graph G = validGraph();
  G.Layers[0].QWeights.clear();
  EXPECT_NE(verifyMessage(G).find("was it quantized?"), std::string::npos);
}

TEST(RefVerify, RejectsWrongBiasCount) {
  ir::Graph G = validGraph();
  G.Layers[0].QBias.push_back(0);
  EXPECT_NE(verifyMessage(G).find("5 quantized biases, expected 4"), std::string::npos);
}

TEST(RefVerify, RejectsOutputShapeOffTheWindowRule) {
  ir::Graph G = validGraph();
  G.Layers[1].Out.H = 4; // As if ceil_mode were on.
  G.Layers[1].Out.W = 4;
  std::string M = verifyMessage(G);
  EXPECT_NE(M.find("layer 'pool1'"), std::string::npos) << M;
  EXPECT_NE(M.find("output is 4x4 but the window rule gives 3x3"), std::string::npos) << M;
}

TEST(RefVerify, RejectsShapeNotMatchingProducer) {
  ir::Graph G = validGraph();
  G.Layers[1].In.C = 3;
  EXPECT_NE(verifyMessage(G).find("differs from its producer's output 4x6x6"), std::string::npos);
}

TEST(RefVerify, RejectsFormatNotMatchingProducer) {
  ir::Graph G = validGraph();
  G.Layers[0].OutFrac = 7;
  EXPECT_NE(verifyMessage(G).find("producer writes 7"), std::string::npos);
}

TEST(RefVerify, RejectsNegativeShifts) {
  ir::Graph G = validGraph();
  G.Layers[0].BFrac = 21; // Finer than 8 + 12 = 20.
  EXPECT_NE(verifyMessage(G).find("bias format"), std::string::npos);
  G = validGraph();
  G.Layers[0].WFrac = 0;
  G.Layers[0].BFrac = 0;
  G.Layers[0].OutFrac = G.Layers[1].InFrac = G.Layers[1].OutFrac = 9; // 8 + 0 < 9.
  EXPECT_NE(verifyMessage(G).find("output format"), std::string::npos);
}

TEST(RefVerify, RejectsPoolChangingFormat) {
  ir::Graph G = validGraph();
  G.Layers[1].OutFrac = 7;
  EXPECT_NE(verifyMessage(G).find("max pooling keeps the format"), std::string::npos);
}

TEST(RefVerify, RejectsForwardInput) {
  ir::Graph G = validGraph();
  G.Layers[1].Inputs = {1};
  EXPECT_NE(verifyMessage(G).find("input index 1 is not an earlier layer"), std::string::npos);
}

TEST(RefVerify, MessageStartsWithSourceLocation) {
  ir::Graph G = validGraph();
  G.Layers[1].KH = 0;
  std::string M = verifyMessage(G);
  EXPECT_EQ(M.rfind(G.Layers[1].Loc.str() + ": layer 'pool1'", 0), 0u) << M;
}

} // namespace
