//===- LayerNormImportTest.cpp - ConvNeXt's channels-last blocks ----------===//
//
// compiler/ir/OnnxLayerNorm.cpp: a Transpose to channels last, PyTorch's
// layer_norm as it exports it at opset 13 (ReduceMean, Sub, Pow, ReduceMean,
// Add, Sqrt, Div, then Mul / Add by gamma and beta), Linear layers (MatMul by
// a [C, K] constant, Add of a bias), GELU and the Transpose back, as in a
// ConvNeXt block; opset 17's LayerNormalization; which layers they become,
// that the program equals the reference executor bit for bit, and the
// one-line refusals of anything else reading a channels-last value.
//
//===----------------------------------------------------------------------===//

#include "CompileRun.h"
#include "OnnxBuilder.h"

#include "snow/support/Rng.h"
#include <gtest/gtest.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::onnxtest;

namespace {

std::vector<double> values(size_t N, uint64_t Seed, double Lo, double Hi) {
  Rng R(Seed);
  std::vector<double> V(N);
  for (double &X : V)
    X = Lo + (Hi - Lo) * R.uniform();
  return V;
}

/// x [1, 8, 6, 5] -> depthwise 3x3 conv -> c, channels last as "t", then
/// Tail, whose last node writes "y" ([1, 8, 6, 5]).
std::string blockWith(const std::vector<std::string> &Tail, int Opset = 13) {
  std::vector<std::string> P = {
      input("x", {1, 8, 6, 5}), output("y", {1, 8, 6, 5}),
      init("Wd", {8, 1, 3, 3}, values(72, 1, -0.5, 0.5)),
      node("Conv", "dw", {"x", "Wd"}, {"c"}, {intsAttr("pads", {1, 1, 1, 1}), intAttr("group", 8)}),
      node("Transpose", "nhwc", {"c"}, {"t"}, {intsAttr("perm", {0, 2, 3, 1})})};
  P.insert(P.end(), Tail.begin(), Tail.end());
  return model(P, Opset);
}

/// PyTorch's layer_norm of "t" over its last axis, gamma and beta applied,
/// into Out.
std::vector<std::string> layerNorm(const std::string &Out) {
  return {init("two", {}, {2.0}),
          init("eps", {}, {1e-5}),
          init("gamma", {8}, values(8, 2, 0.5, 1.5)),
          init("beta", {8}, values(8, 3, -0.2, 0.2)),
          node("ReduceMean", "mean", {"t"}, {"m"}, {intsAttr("axes", {-1})}),
          node("Sub", "sub", {"t", "m"}, {"d"}),
          node("Pow", "pow", {"d", "two"}, {"sq"}),
          node("ReduceMean", "var", {"sq"}, {"v"}, {intsAttr("axes", {-1})}),
          node("Add", "addeps", {"v", "eps"}, {"ve"}),
          node("Sqrt", "sqrt", {"ve"}, {"s"}),
          node("Div", "div", {"d", "s"}, {"n"}),
          node("Mul", "gammamul", {"n", "gamma"}, {"ng"}),
          node("Add", "betaadd", {"ng", "beta"}, {Out})};
}

/// The rest of a ConvNeXt block after its layer_norm "ln": Linear 8 -> 12,
/// GELU as PyTorch exports it, Linear 12 -> 8, channels first, layer scale,
/// residual add of x.
std::vector<std::string> blockTail() {
  return {init("W1", {8, 12}, values(96, 4, -0.4, 0.4)),
          init("b1", {12}, values(12, 5, -0.1, 0.1)),
          init("W2", {12, 8}, values(96, 6, -0.4, 0.4)),
          init("b2", {8}, values(8, 7, -0.1, 0.1)),
          init("sqrt2", {}, {1.4142135623730951}),
          init("one", {}, {1.0}),
          init("half", {}, {0.5}),
          init("ls", {8, 1, 1}, values(8, 8, 0.1, 0.5)),
          node("MatMul", "fc1", {"ln", "W1"}, {"h0"}),
          node("Add", "fc1b", {"b1", "h0"}, {"h"}),
          node("Div", "gdiv", {"h", "sqrt2"}, {"g1"}),
          node("Erf", "gerf", {"g1"}, {"g2"}),
          node("Add", "gadd", {"g2", "one"}, {"g3"}),
          node("Mul", "gmul", {"h", "g3"}, {"g4"}),
          node("Mul", "ghalf", {"g4", "half"}, {"a"}),
          node("MatMul", "fc2", {"a", "W2"}, {"p0"}),
          node("Add", "fc2b", {"b2", "p0"}, {"p"}),
          node("Transpose", "nchw", {"p"}, {"q"}, {intsAttr("perm", {0, 3, 1, 2})}),
          node("Mul", "scale", {"ls", "q"}, {"r"}),
          node("Add", "res", {"r", "x"}, {"y"})};
}

std::vector<std::string> concat(std::vector<std::string> A, const std::vector<std::string> &B) {
  A.insert(A.end(), B.begin(), B.end());
  return A;
}

const Layer *findKind(const Graph &G, LayerKind K) {
  for (const Layer &L : G.Layers)
    if (L.Kind == K)
      return &L;
  return nullptr;
}

} // namespace

TEST(OnnxLayerNorm, AConvNeXtBlockImportsAndRunsExactly) {
  const std::string Text = blockWith(concat(layerNorm("ln"), blockTail()));
  OnnxModel M = import(Text);
  // dw conv, layernorm (gamma and beta folded in), fc1 (its bias folded),
  // GELU, fc2 (bias and layer scale folded), the add.
  const Layer *Ln = findKind(M.G, LayerKind::LayerNorm);
  ASSERT_NE(Ln, nullptr);
  EXPECT_EQ(Ln->Name, "div");
  EXPECT_FLOAT_EQ(Ln->Eps, 1e-5f);
  const std::vector<double> Gamma = values(8, 2, 0.5, 1.5), Beta = values(8, 3, -0.2, 0.2);
  ASSERT_EQ(Ln->Gamma.size(), 8u);
  for (size_t C = 0; C < 8; ++C) { // The text form keeps 6 decimals.
    EXPECT_NEAR(Ln->Gamma[C], Gamma[C], 1e-6) << C;
    EXPECT_NEAR(Ln->Beta[C], Beta[C], 1e-6) << C;
  }
  const Layer &Fc1 = M.G.Layers[size_t(Ln - M.G.Layers.data()) + 1];
  EXPECT_EQ(Fc1.Kind, LayerKind::Conv);
  EXPECT_EQ(Fc1.Out.C, 12u);
  EXPECT_EQ(Fc1.KH, 1u);
  test::RunResult R;
  Graph Q;
  compileAndRun(Text, R, &Q);
  EXPECT_TRUE(test::sameBits(R));
  // The expansion: two products and an rsqrt table.
  unsigned Muls = 0, Rsqrts = 0;
  for (const Layer &L : Q.Layers) {
    Muls += L.Kind == LayerKind::Mul;
    Rsqrts += L.Activation == Act::Rsqrt;
  }
  EXPECT_EQ(Muls, 2u);
  EXPECT_EQ(Rsqrts, 1u);
}

TEST(OnnxLayerNorm, Opset17LayerNormalizationIsTheSameLayer) {
  const std::string Text = blockWith(
      {init("gamma", {8}, values(8, 2, 0.5, 1.5)), init("beta", {8}, values(8, 3, -0.2, 0.2)),
       node("LayerNormalization", "lnorm", {"t", "gamma", "beta"}, {"n"},
            {intAttr("axis", -1), floatAttr("epsilon", 1e-6)}),
       node("Transpose", "nchw", {"n"}, {"y"}, {intsAttr("perm", {0, 3, 1, 2})})},
      17);
  OnnxModel M = import(Text);
  const Layer *Ln = findKind(M.G, LayerKind::LayerNorm);
  ASSERT_NE(Ln, nullptr);
  EXPECT_FLOAT_EQ(Ln->Eps, 1e-6f);
  EXPECT_NEAR(Ln->Gamma[3], values(8, 2, 0.5, 1.5)[3], 1e-6);
  test::RunResult R;
  compileAndRun(Text, R);
  EXPECT_TRUE(test::sameBits(R));
}

TEST(OnnxLayerNorm, OtherReadersOfChannelsLastValuesAreRefusedNamingTheNode) {
  // A ReLU on a channels-last tensor.
  std::string Msg = importError(blockWith({node("Relu", "r", {"t"}, {"y"})}));
  EXPECT_NE(Msg.find("'r' (Relu)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("has its channels last"), std::string::npos) << Msg;
  // A mean over another axis.
  Msg = importError(blockWith({node("ReduceMean", "m", {"t"}, {"y"}, {intsAttr("axes", {1})})}));
  EXPECT_NE(Msg.find("'m' (ReduceMean)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("only the mean over the channels"), std::string::npos) << Msg;
  // The centred values read by a third node: refused at the Div (the
  // layer's place), or at the reader if it comes first.
  std::vector<std::string> Ln = layerNorm("ln");
  Ln.push_back(node("Add", "extra", {"d", "ln"}, {"e"}));
  Ln.push_back(node("Transpose", "nchw", {"e"}, {"y"}, {intsAttr("perm", {0, 3, 1, 2})}));
  Msg = importError(blockWith(Ln));
  EXPECT_NE(Msg.find("'div' (Div)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("read by its Pow and this Div alone"), std::string::npos) << Msg;
  Ln = layerNorm("ln");
  Ln.insert(Ln.begin() + 7, node("Relu", "early", {"d"}, {"e"}));
  Ln.push_back(node("Add", "join", {"e", "ln"}, {"f"}));
  Ln.push_back(node("Transpose", "nchw", {"f"}, {"y"}, {intsAttr("perm", {0, 3, 1, 2})}));
  Msg = importError(blockWith(Ln));
  EXPECT_NE(Msg.find("'early' (Relu)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("step 2 of a layer_norm"), std::string::npos) << Msg;
  // A channels-last tensor added to a channels-first one whose dims happen
  // to be the same (C = H = W = 4): the elements do not correspond.
  Msg = importError(
      model({input("x", {1, 4, 4, 4}), output("y", {1, 4, 4, 4}),
             init("W", {4, 4, 1, 1}, values(16, 9, -1, 1)), node("Conv", "pw", {"x", "W"}, {"c"}),
             node("Transpose", "nhwc", {"c"}, {"t"}, {intsAttr("perm", {0, 2, 3, 1})}),
             node("Add", "mix", {"t", "x"}, {"y"})}));
  EXPECT_NE(Msg.find("'mix' (Add)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("do not correspond"), std::string::npos) << Msg;
  // A square root outside a layer_norm.
  Msg = importError(model(
      {input("x", {1, 3, 4, 4}), output("y", {1, 3, 4, 4}), node("Sqrt", "root", {"x"}, {"y"})}));
  EXPECT_NE(Msg.find("'root' (Sqrt)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("only as a layer_norm's"), std::string::npos) << Msg;
}
