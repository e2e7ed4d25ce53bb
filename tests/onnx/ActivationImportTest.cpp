//===- ActivationImportTest.cpp - ONNX activations onto the table ---------===//
//
// Clip, Sigmoid, HardSigmoid, HardSwish, Tanh and PyTorch's x * f(x) exports
// of SiLU and HardSwish (compiler/ir/OnnxActivations.cpp): which layer each
// becomes, that it fuses into the conv before it, that the compiled program
// equals the reference executor bit for bit, and the one-line refusals.
//
//===----------------------------------------------------------------------===//

#include "CompileRun.h"
#include "OnnxBuilder.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::onnxtest;

namespace {

/// x [1, 3, 6, 5] -> Conv (4 channels, 3x3, pad 1) -> c, then Tail's nodes
/// to y (same shape as c).
std::string convThen(const std::vector<std::string> &Tail, int Opset = 13) {
  std::vector<std::string> P = {
      input("x", {1, 3, 6, 5}), init("W", {4, 3, 3, 3}, weights(108, 4, 2)),
      node("Conv", "conv", {"x", "W"}, {"c"}, {intsAttr("pads", {1, 1, 1, 1})}),
      output("y", {1, 4, 6, 5})};
  P.insert(P.end(), Tail.begin(), Tail.end());
  return model(P, Opset);
}

Graph canonical(const std::string &Text) {
  OnnxModel M = import(Text);
  llvm::Error E = canonicalize(M.G);
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
  return std::move(M.G);
}

/// Text compiles to one conv with the function fused into it, and its
/// program on zc706 equals the reference bit for bit.
void expectFusedAndExact(const std::string &Text, Act Want, float P0 = 0, float P1 = 0) {
  test::RunResult R;
  Graph G;
  compileAndRun(Text, R, &G);
  ASSERT_EQ(G.Layers.size(), 1u);
  const Layer &L = G.Layers[0];
  EXPECT_EQ(L.Kind, LayerKind::Conv);
  EXPECT_EQ(L.Activation, Want);
  EXPECT_EQ(L.ActP0, P0);
  EXPECT_EQ(L.ActP1, P1);
  EXPECT_TRUE(test::sameBits(R));
  EXPECT_TRUE(test::informative(R.Sim));
}

} // namespace

TEST(OnnxActivation, ClipWithConstantBoundsIsReLU6OnTheTable) {
  expectFusedAndExact(convThen({init("lo", {}, {0.0}), init("hi", {}, {6.0}),
                                node("Clip", "clip", {"c", "lo", "hi"}, {"y"})}),
                      Act::Clip, 0, 6);
}

TEST(OnnxActivation, ClipAsAttributesBeforeOpset11) {
  expectFusedAndExact(
      convThen({node("Clip", "clip", {"c"}, {"y"}, {floatAttr("min", -1.5), floatAttr("max", 2)})},
               /*Opset=*/9),
      Act::Clip, -1.5f, 2);
}

TEST(OnnxActivation, ClipFromZeroWithoutMaxIsARelu) {
  Graph G =
      canonical(convThen({init("lo", {}, {0.0}), node("Clip", "clip", {"c", "lo", ""}, {"y"})}));
  ASSERT_EQ(G.Layers.size(), 1u);
  EXPECT_TRUE(G.Layers[0].Relu);
  EXPECT_EQ(G.Layers[0].Activation, Act::None);
}

TEST(OnnxActivation, SigmoidTanhHardSigmoidAndHardSwish) {
  expectFusedAndExact(convThen({node("Sigmoid", "s", {"c"}, {"y"})}), Act::Sigmoid);
  expectFusedAndExact(convThen({node("Tanh", "t", {"c"}, {"y"})}), Act::Tanh);
  expectFusedAndExact(
      convThen({node("HardSigmoid", "h", {"c"}, {"y"}, {floatAttr("alpha", 0.25)})}),
      Act::HardSigmoid, 0.25f, 0.5f);
  expectFusedAndExact(convThen({node("HardSwish", "h", {"c"}, {"y"})}, 14), Act::HardSwish);
}

TEST(OnnxActivation, TimesItsSigmoidIsSiLUAndTimesItsHardSigmoidIsHardSwish) {
  expectFusedAndExact(
      convThen({node("Sigmoid", "s", {"c"}, {"g"}), node("Mul", "m", {"c", "g"}, {"y"})}),
      Act::Silu);
  // PyTorch's hardswish below opset 14: x * hardsigmoid(x, 1/6, 1/2), either order.
  expectFusedAndExact(
      convThen({node("HardSigmoid", "h", {"c"}, {"g"}, {floatAttr("alpha", 1.0 / 6)}),
                node("Mul", "m", {"g", "c"}, {"y"})}),
      Act::HardSwish);
}

/// PyTorch's GELU at opset 13: x * (1 + erf(x / sqrt 2)) * 0.5 from c to y,
/// with Bad replacing one step's constant (Name, value) when given.
std::vector<std::string> geluNodes(const std::string &Bad = "", double Value = 0) {
  auto K = [&](const std::string &Name, double V) {
    return init(Name, {}, {Name == Bad ? Value : V});
  };
  return {K("r2", 1.4142135381698608),
          K("one", 1.0),
          K("half", 0.5),
          node("Div", "gelu_div", {"c", "r2"}, {"d"}),
          node("Erf", "gelu_erf", {"d"}, {"e"}),
          node("Add", "gelu_add", {"e", "one"}, {"a"}),
          node("Mul", "gelu_mul", {"c", "a"}, {"m"}),
          node("Mul", "gelu_half", {"m", "half"}, {"y"})};
}

TEST(OnnxActivation, PyTorchsErfChainIsGELU) {
  expectFusedAndExact(convThen(geluNodes()), Act::Gelu);
  // Other constants, or a step read by anything but the chain, are refused
  // naming the node.
  std::string Msg = importError(convThen(geluNodes("r2", 2.0)));
  EXPECT_NE(Msg.find("'gelu_div' (Div)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("divided by sqrt 2"), std::string::npos) << Msg;
  Msg = importError(convThen(geluNodes("half", 0.25)));
  EXPECT_NE(Msg.find("'gelu_half' (Mul)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("step 5 of a GELU"), std::string::npos) << Msg;
  std::vector<std::string> Tail = geluNodes();
  Tail.back() = node("Relu", "r", {"e"}, {"y"});
  Msg = importError(convThen(Tail));
  EXPECT_NE(Msg.find("'r' (Relu)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("only the chain's next node (Add)"), std::string::npos) << Msg;
}

// Every function of the model format survives --export-onnx and the import
// back: the same layer kinds and parameters, and the same program.
TEST(OnnxActivation, EveryFunctionRoundTripsThroughExport) {
  for (const char *Fn : {"relu6", "{type: clip, min: -1.5, max: 2}", "sigmoid",
                         "{type: hardsigmoid, alpha: 0.25, beta: 0.375}", "hardswish", "silu",
                         "gelu", "tanh", "rsqrt"}) {
    const std::string Type =
        Fn[0] == '{' ? std::string(Fn + 1, std::strlen(Fn) - 2) : fmt::format("type: {}", Fn);
    const std::string Yaml =
        fmt::format("name: fn\ninput: {{name: x, shape: [3, 6, 5]}}\nlayers:\n"
                    "  - {{name: c, type: conv, out_channels: 4, kernel: 3, pad: 1}}\n"
                    "  - {{name: f, {}}}\n",
                    Type);
    llvm::Expected<Graph> Y = parseModel(Yaml, "fn.yaml");
    ASSERT_TRUE(bool(Y)) << Fn << ": " << llvm::toString(Y.takeError());
    llvm::Expected<std::string> Bytes = exportOnnx(*Y);
    ASSERT_TRUE(bool(Bytes)) << Fn << ": " << llvm::toString(Bytes.takeError());
    llvm::Expected<OnnxModel> M = parseOnnx(*Bytes, "fn.onnx");
    ASSERT_TRUE(bool(M)) << Fn << ": " << llvm::toString(M.takeError());
    ASSERT_EQ(M->G.Layers.size(), 2u) << Fn;
    const Layer &A = Y->Layers[1], &B = M->G.Layers[1];
    EXPECT_EQ(B.Activation, A.Activation) << Fn;
    EXPECT_EQ(B.ActP0, A.ActP0) << Fn;
    EXPECT_EQ(B.ActP1, A.ActP1) << Fn;
  }
}

// Add, Sub, Mul and Div by a constant per channel (or a scalar): after a conv
// that feeds nothing else they fold into its weights and bias (one layer);
// elsewhere they are a depthwise 1x1 conv. Either way bit-exact.
TEST(OnnxActivation, ConstantsPerChannelFoldOrBecomeADepthwiseConv) {
  const std::vector<std::string> K = {init("s", {1, 4, 1, 1}, {0.5, -2, 3, 0.25}),
                                      init("h", {}, {0.75}), init("m", {4, 1, 1}, {1, -1, 2, 0})};
  auto With = [&](std::vector<std::string> Tail) {
    Tail.insert(Tail.begin(), K.begin(), K.end());
    return convThen(Tail);
  };
  // (c * s - m) / h + m: all four fold into the conv.
  expectFusedAndExact(
      With({node("Mul", "mul", {"c", "s"}, {"a"}), node("Sub", "sub", {"a", "m"}, {"b"}),
            node("Div", "div", {"b", "h"}, {"d"}), node("Add", "add", {"m", "d"}, {"y"})}),
      Act::None);
  // After a relu they cannot fold: a depthwise 1x1 conv (h - relu(c)).
  Graph G =
      canonical(With({node("Relu", "r", {"c"}, {"rc"}), node("Sub", "sub", {"h", "rc"}, {"y"})}));
  ASSERT_EQ(G.Layers.size(), 2u);
  EXPECT_EQ(G.Layers[1].Groups, 4u);
  EXPECT_EQ(G.Layers[1].Weights, (std::vector<float>(4, -1.0f)));
  EXPECT_EQ(G.Layers[1].Bias, (std::vector<float>(4, 0.75f)));
  test::RunResult R;
  compileAndRun(With({node("Relu", "r", {"c"}, {"rc"}), node("Sub", "sub", {"h", "rc"}, {"y"})}),
                R);
  EXPECT_TRUE(test::sameBits(R));
  // A constant per position, a reciprocal of a map and a division by zero
  // are refused naming the node.
  std::string Msg = importError(convThen({init("p", {1, 4, 6, 5}, std::vector<double>(120, 2.0)),
                                          node("Mul", "mp", {"c", "p"}, {"y"})}));
  EXPECT_NE(Msg.find("'mp' (Mul)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("only a constant per channel"), std::string::npos) << Msg;
  Msg = importError(With({node("Div", "inv", {"h", "c"}, {"y"})}));
  EXPECT_NE(Msg.find("'inv' (Div): 'h' divided by a map"), std::string::npos) << Msg;
  Msg = importError(With({init("z", {}, {0.0}), node("Div", "dz", {"c", "z"}, {"y"})}));
  EXPECT_NE(Msg.find("'dz' (Div): division by 0"), std::string::npos) << Msg;
}

size_t countKind(const Graph &G, LayerKind K) {
  return size_t(
      std::count_if(G.Layers.begin(), G.Layers.end(), [&](const Layer &L) { return L.Kind == K; }));
}

TEST(OnnxActivation, OtherProductsOfTwoMapsAreMulLayersAndRunExactly) {
  // Two maps of the same shape: c * relu(c).
  const std::string Square =
      convThen({node("Relu", "r", {"c"}, {"rc"}), node("Mul", "sq", {"c", "rc"}, {"y"})});
  EXPECT_EQ(countKind(canonical(Square), LayerKind::Mul), 1u);
  test::RunResult R;
  compileAndRun(Square, R);
  EXPECT_TRUE(test::sameBits(R));
  // A sigmoid read twice cannot become the SiLU of one of its readers: it
  // stays a function, and c times it a product.
  const std::string Twice =
      convThen({node("Sigmoid", "s", {"c"}, {"g"}), node("Mul", "m", {"c", "g"}, {"t"}),
                node("Add", "a", {"t", "g"}, {"y"})});
  Graph G = canonical(Twice);
  EXPECT_EQ(countKind(G, LayerKind::Mul), 1u);
  EXPECT_EQ(std::count_if(G.Layers.begin(), G.Layers.end(),
                          [](const Layer &L) { return L.Activation == Act::Silu; }),
            0);
  compileAndRun(Twice, R);
  EXPECT_TRUE(test::sameBits(R));
}

TEST(OnnxActivation, AProductOfMapsOfTwoShapesIsRefusedNamingTheNode) {
  std::string Msg =
      importError(convThen({node("MaxPool", "mp", {"c"}, {"p"}, {intsAttr("kernel_shape", {2, 2})}),
                            node("Mul", "m", {"c", "p"}, {"y"})}));
  EXPECT_NE(Msg.find("'m' (Mul)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("two run-time tensors of one shape"), std::string::npos) << Msg;
}

TEST(OnnxActivation, AClipOpenOnOneSideIsRefusedAndOneWithNoBoundsIsTheIdentity) {
  std::string Msg =
      importError(convThen({init("hi", {}, {6.0}), node("Clip", "clip", {"c", "", "hi"}, {"y"})}));
  EXPECT_NE(Msg.find("open on one side"), std::string::npos) << Msg;
  // A clip with neither bound is the identity (no layer but the conv).
  Graph G = canonical(convThen({node("Clip", "clip", {"c"}, {"y"})}));
  ASSERT_EQ(G.Layers.size(), 1u);
  EXPECT_EQ(G.Layers[0].Activation, Act::None);
}

// A function with no conv to sit in (here of the graph input) gets one: a
// depthwise 1x1 conv with unit weights, exact before the table.
TEST(OnnxActivation, AFunctionOfTheInputBecomesADepthwiseUnitConv) {
  const std::string Text = model(
      {input("x", {1, 3, 5, 4}), node("Sigmoid", "s", {"x"}, {"y"}), output("y", {1, 3, 5, 4})});
  Graph G = canonical(Text);
  ASSERT_EQ(G.Layers.size(), 1u);
  EXPECT_EQ(G.Layers[0].Groups, 3u);
  EXPECT_EQ(G.Layers[0].Weights, (std::vector<float>{1, 1, 1}));
  expectFusedAndExact(Text, Act::Sigmoid);
}

// Squeeze-and-excitation as torchvision exports it: the map times the
// sigmoid of two 1x1 convs of its global average, [1, 4, 6, 5] * [1, 4, 1, 1].
TEST(OnnxActivation, SqueezeExcitationIsAConvWithRunTimeWeights) {
  std::string Text = convThen(
      {node("GlobalAveragePool", "gap", {"c"}, {"p"}), init("W1", {2, 4, 1, 1}, weights(8, 5, 2)),
       node("Conv", "fc1", {"p", "W1"}, {"q"}), node("Relu", "r", {"q"}, {"q2"}),
       init("W2", {4, 2, 1, 1}, weights(8, 6, 2)), node("Conv", "fc2", {"q2", "W2"}, {"t"}),
       node("Sigmoid", "sig", {"t"}, {"s"}), node("Mul", "scale", {"c", "s"}, {"y"})});
  Graph G = canonical(Text);
  ASSERT_EQ(G.Layers.size(), 5u);
  const Layer &M = G.Layers.back();
  EXPECT_TRUE(M.DynamicWeights);
  EXPECT_EQ(M.Inputs, (std::vector<int>{0, 3}));
  EXPECT_EQ(M.Groups, 4u);
  EXPECT_EQ(G.Layers[3].Activation, Act::Sigmoid) << "the gate's sigmoid sits in fc2";
  test::RunResult R;
  Graph Q;
  compileAndRun(Text, R, &Q);
  ASSERT_EQ(Q.Layers.size(), 5u);
  EXPECT_EQ(Q.Layers.back().WFrac, Q.Layers[3].OutFrac) << "the weights are in s's format";
  EXPECT_TRUE(test::sameBits(R));
  EXPECT_TRUE(test::informative(R.Sim));
  // A batch runs the scale frame by frame (tests/e2e/BatchTest.cpp checks
  // the values): one part per frame.
  compiler::CompileOptions O;
  O.Batch = 2;
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  std::vector<compiler::PlanPart> Parts;
  auto B = compiler::compile(Q, *Hw, O, &Parts);
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  EXPECT_EQ(B->Batch, 2u);
  std::vector<std::string> ScaleParts;
  for (const compiler::PlanPart &P : Parts)
    if (P.Layer == "scale")
      ScaleParts.push_back(P.Name);
  EXPECT_EQ(ScaleParts, (std::vector<std::string>{"scale@frame0", "scale@frame1"}));
}
