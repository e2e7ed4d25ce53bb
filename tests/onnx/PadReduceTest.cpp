//===- PadReduceTest.cpp - Pad, ReduceMean and nested concats -------------===//
//
// The ONNX patterns that map onto existing layers (compiler/ir/OnnxPad.cpp,
// OnnxWindows.cpp, OnnxPasses.cpp):
//
// * a zero Pad becomes the padding of the Conv, AveragePool or MaxPool after
//   it: pinned by the layer it gives, by compiling to the same program bytes
//   as the operator with those pads written as attributes, and (MaxPool after
//   a relu, where zero and "never wins" padding agree only because the input
//   is non-negative) by the float result against the ONNX semantics computed
//   here directly; a Pad read otherwise is a depthwise 1x1 conv, checked the
//   same way; every refusal is one line naming node, op and reason;
// * ReduceMean over the spatial axes is a global average pooling;
// * DenseNet's concats of a growing list nest into one another;
// and each compiles to a program whose simulated output equals the
// reference executor's bit for bit.
//
//===----------------------------------------------------------------------===//

#include "../e2e/Harness.h"
#include "CompileRun.h"
#include "OnnxBuilder.h"

#include "snow/ir/FloatEval.h"
#include "snow/ir/Onnx.h"
#include "snow/isa/Program.h"

#include <gtest/gtest.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::onnxtest;

namespace {

std::vector<unsigned> pads(const Layer &L) { return {L.PadT, L.PadB, L.PadL, L.PadR}; }

/// An ONNX Pad node of opset >= 11: pads as an int64 initializer "p".
std::vector<std::string> padNode(const std::string &In, const std::string &Out,
                                 const std::vector<int64_t> &Pads) {
  std::vector<double> P(Pads.begin(), Pads.end());
  return {init("p", {int64_t(Pads.size())}, P, /*Int64=*/true),
          node("Pad", "pad", {In, "p"}, {Out})};
}

//===-- Pad --------------------------------------------------------------===//

/// x [1, 2, 6, 7] -> Pad -> Conv (3x3, seeded weights, conv pads CPads) -> y.
std::string padConv(const std::vector<int64_t> &Pads, const std::vector<int64_t> &CPads,
                    const std::vector<int64_t> &OutDims) {
  return model(
      padNode("x", "t", Pads) +
      std::vector<std::string>{input("x", {1, 2, 6, 7}), init("W", {3, 2, 3, 3}, weights(54, 1)),
                               node("Conv", "c", {"t", "W"}, {"y"}, {intsAttr("pads", CPads)}),
                               output("y", OutDims)});
}

TEST(OnnxPad, AZeroPadBeforeAConvBecomesItsPads) {
  // ONNX pads: begins of N, C, H, W, then ends. H: 1 before, 0 after; W: 2
  // before, 1 after; the conv's own [1, 0, 0, 1] (H begin, W begin, H end,
  // W end) adds to them.
  OnnxModel M = import(padConv({0, 0, 1, 2, 0, 0, 0, 1}, {1, 0, 0, 1}, {1, 3, 6, 9}));
  ASSERT_EQ(M.G.Layers.size(), 1u) << "the Pad is no layer";
  const Layer &L = M.G.Layers[0];
  EXPECT_EQ(L.Kind, LayerKind::Conv);
  EXPECT_EQ(L.In, (Shape{2, 6, 7}));
  EXPECT_EQ(pads(L), (std::vector<unsigned>{2, 0, 2, 2}));
  EXPECT_EQ(L.Out, (Shape{3, 6, 9}));
}

TEST(OnnxPad, PadPlusConvCompilesToTheProgramOfTheConvWithThosePads) {
  test::RunResult A, B;
  std::vector<uint8_t> WithPad =
      compileAndRun(padConv({0, 0, 1, 2, 0, 0, 0, 1}, {0, 0, 0, 0}, {1, 3, 5, 8}), A);
  std::vector<uint8_t> Direct =
      compileAndRun(model({input("x", {1, 2, 6, 7}), init("W", {3, 2, 3, 3}, weights(54, 1)),
                           node("Conv", "c", {"x", "W"}, {"y"}, {intsAttr("pads", {1, 2, 0, 1})}),
                           output("y", {1, 3, 5, 8})}),
                    B);
  ASSERT_FALSE(WithPad.empty());
  EXPECT_TRUE(WithPad == Direct) << "the programs differ";
  EXPECT_TRUE(test::sameBits(A));
}

TEST(OnnxPad, AllZeroPadsAreAnIdentity) {
  // DenseNet's transitions: Pad of zeros, then a 2x2 average pooling.
  OnnxModel M = import(model(padNode("x", "t", {0, 0, 0, 0, 0, 0, 0, 0}) +
                             std::vector<std::string>{input("x", {1, 2, 4, 4}),
                                                      node("AveragePool", "ap", {"t"}, {"y"},
                                                           {intsAttr("kernel_shape", {2, 2}),
                                                            intsAttr("strides", {2, 2})}),
                                                      output("y", {1, 2, 2, 2})}));
  ASSERT_EQ(M.G.Layers.size(), 1u);
  EXPECT_EQ(M.G.Layers[0].Kind, LayerKind::AvgPool);
  EXPECT_EQ(pads(M.G.Layers[0]), (std::vector<unsigned>{0, 0, 0, 0}));
}

/// x [1, 3, 8, 8] -> Relu r (node 0) -> Pad 1 (node 1) -> Op 3x3 stride 1
/// (node 2, Attrs) -> y. Without Relu the Pad reads x (and r is dead).
std::string padPool(const char *Op, const std::vector<std::string> &Attrs, bool Relu = true) {
  std::vector<std::string> A = {intsAttr("kernel_shape", {3, 3})};
  A.insert(A.end(), Attrs.begin(), Attrs.end());
  return model(
      std::vector<std::string>{input("x", {1, 3, 8, 8}), node("Relu", "r", {"x"}, {"u"})} +
      padNode(Relu ? "u" : "x", "t", {0, 0, 1, 1, 0, 0, 1, 1}) +
      std::vector<std::string>{node(Op, "pool", {"t"}, {"y"}, A), output("y", {1, 3, 8, 8})});
}

TEST(OnnxPad, APadBeforeAnAveragePoolCountsInTheDivisor) {
  // Inception v3's avg_pool2d(3, stride 1, padding 1): the Pad's zeros are
  // input to the pooling, so its default count_include_pad = 0 still divides
  // by 9, which is the hardware's average with pads and count_include_pad 1.
  auto Text = [](const std::vector<std::string> &Attrs) { return padPool("AveragePool", Attrs); };
  OnnxModel M = import(Text({}));
  ASSERT_EQ(M.G.Layers.size(), 2u);
  const Layer &L = M.G.Layers[1];
  EXPECT_EQ(L.Kind, LayerKind::AvgPool);
  EXPECT_EQ(pads(L), (std::vector<unsigned>{1, 1, 1, 1}));
  EXPECT_EQ(L.Out, (Shape{3, 8, 8}));

  test::RunResult A, B;
  std::vector<uint8_t> WithPad = compileAndRun(Text({}), A);
  std::vector<uint8_t> Direct =
      compileAndRun(model({input("x", {1, 3, 8, 8}), node("Relu", "r", {"x"}, {"u"}),
                           node("AveragePool", "pool", {"u"}, {"y"},
                                {intsAttr("kernel_shape", {3, 3}), intsAttr("pads", {1, 1, 1, 1}),
                                 intAttr("count_include_pad", 1)}),
                           output("y", {1, 3, 8, 8})}),
                    B);
  ASSERT_FALSE(WithPad.empty());
  EXPECT_TRUE(WithPad == Direct) << "the programs differ";
  EXPECT_TRUE(test::sameBits(A));

  // The operator's own pads must still count (count_include_pad = 1).
  EXPECT_NE(importError(Text({intsAttr("pads", {1, 1, 1, 1})}))
                .find("node 2 'pool' (AveragePool): attribute 'count_include_pad' = 0 with pads "
                      "[1, 1, 1, 1] is not supported"),
            std::string::npos);
}

std::string maxPoolAfterPad(bool Relu) { return padPool("MaxPool", {}, Relu); }

TEST(OnnxPad, APadBeforeAMaxPoolFoldsOnlyOnNonNegativeValues) {
  OnnxModel M = import(maxPoolAfterPad(/*Relu=*/true));
  ASSERT_EQ(M.G.Layers.size(), 2u);
  EXPECT_EQ(pads(M.G.Layers[1]), (std::vector<unsigned>{1, 1, 1, 1}));

  // ONNX's meaning, computed here: relu, zero padding, 3x3 maximum. The
  // layer pads with -infinity; on non-negative values the two agree.
  std::vector<float> X = defaultInput(M.G);
  ASSERT_FALSE(bool(canonicalize(M.G)));
  std::vector<float> Got = runFloat(M.G, X);
  ASSERT_EQ(Got.size(), 3u * 8 * 8);
  for (int C = 0; C < 3; ++C)
    for (int Y = 0; Y < 8; ++Y)
      for (int Xo = 0; Xo < 8; ++Xo) {
        float Max = -1e30f;
        for (int Dy = -1; Dy <= 1; ++Dy)
          for (int Dx = -1; Dx <= 1; ++Dx) {
            int Iy = Y + Dy, Ix = Xo + Dx;
            bool In = Iy >= 0 && Iy < 8 && Ix >= 0 && Ix < 8;
            Max = std::max(Max, In ? std::max(0.0f, X[size_t((C * 8 + Iy) * 8 + Ix)]) : 0.0f);
          }
        ASSERT_EQ(Got[size_t((C * 8 + Y) * 8 + Xo)], Max) << C << " " << Y << " " << Xo;
      }

  test::RunResult R;
  ASSERT_FALSE(compileAndRun(maxPoolAfterPad(true), R).empty());
  EXPECT_TRUE(test::sameBits(R));

  // On the graph input (values of either sign) a zero can be the maximum,
  // so the Pad is a layer of its own and the pooling pads nothing.
  M = import(maxPoolAfterPad(/*Relu=*/false));
  ASSERT_EQ(M.G.Layers.size(), 2u);
  EXPECT_EQ(M.G.Layers[0].TypeName, "pad");
  EXPECT_EQ(pads(M.G.Layers[1]), (std::vector<unsigned>{0, 0, 0, 0}));
}

/// The float result of G on its default input, and of ONNX's Pad (1 on
/// every side of the 3 x 8 x 8 input, zeros) then F over each 3x3 window,
/// computed here.
template <typename Fn> void expectPaddedWindows(Graph G, Fn F) {
  std::vector<float> X = defaultInput(G);
  ASSERT_FALSE(bool(canonicalize(G)));
  std::vector<float> Got = runFloat(G, X);
  ASSERT_EQ(Got.size(), 3u * 8 * 8);
  auto At = [&](int C, int Y, int Xi) {
    bool In = Y >= 0 && Y < 8 && Xi >= 0 && Xi < 8;
    return In ? X[size_t((C * 8 + Y) * 8 + Xi)] : 0.0f;
  };
  for (int C = 0; C < 3; ++C)
    for (int Y = 0; Y < 8; ++Y)
      for (int Xo = 0; Xo < 8; ++Xo) {
        std::vector<float> Win;
        for (int Dy = -1; Dy <= 1; ++Dy)
          for (int Dx = -1; Dx <= 1; ++Dx)
            Win.push_back(At(C, Y + Dy, Xo + Dx));
        ASSERT_NEAR(Got[size_t((C * 8 + Y) * 8 + Xo)], F(Win), 1e-6) << C << " " << Y << " " << Xo;
      }
}

TEST(OnnxPad, APadOtherOperatorsReadIsADepthwiseConv) {
  // A max pooling of signed values: zeros in the padding can win.
  OnnxModel M = import(maxPoolAfterPad(/*Relu=*/false));
  const Layer &P = M.G.Layers.at(0);
  EXPECT_EQ(P.Kind, LayerKind::Conv);
  EXPECT_EQ(P.Name, "pad");
  EXPECT_EQ(P.Groups, 3u);
  EXPECT_EQ(P.KH * P.KW, 1u);
  EXPECT_EQ(P.Weights, std::vector<float>(3, 1.0f));
  EXPECT_EQ(P.Bias, std::vector<float>(3, 0.0f));
  EXPECT_EQ(pads(P), (std::vector<unsigned>{1, 1, 1, 1}));
  EXPECT_EQ(P.Out, (Shape{3, 10, 10}));
  expectPaddedWindows(
      M.G, [](const std::vector<float> &W) { return *std::max_element(W.begin(), W.end()); });
  // The test means something only if the padding wins somewhere: a window
  // on the edge whose input values are all negative.
  unsigned PadWins = 0;
  {
    std::vector<float> X = defaultInput(M.G);
    for (int C = 0; C < 3; ++C)
      for (int Y = 0; Y < 8; ++Y)
        for (int Xo = 0; Xo < 8; ++Xo) {
          bool Edge = Y == 0 || Y == 7 || Xo == 0 || Xo == 7;
          float Max = -1e30f;
          for (int Iy = std::max(Y - 1, 0); Iy <= std::min(Y + 1, 7); ++Iy)
            for (int Ix = std::max(Xo - 1, 0); Ix <= std::min(Xo + 1, 7); ++Ix)
              Max = std::max(Max, X[size_t((C * 8 + Iy) * 8 + Ix)]);
          PadWins += Edge && Max < 0;
        }
  }
  EXPECT_GT(PadWins, 0u) << "the test input has no window where the padding wins";
  test::RunResult R;
  ASSERT_FALSE(compileAndRun(maxPoolAfterPad(false), R).empty());
  EXPECT_TRUE(test::sameBits(R));

  // Read by a relu, and the graph output itself.
  std::vector<int64_t> Pd = {0, 0, 2, 0, 0, 0, 1, 3};
  std::string Text =
      model(padNode("x", "t", Pd) + std::vector<std::string>{input("x", {1, 2, 4, 4}),
                                                             node("Relu", "r", {"t"}, {"y"}),
                                                             output("y", {1, 2, 7, 7})});
  M = import(Text);
  ASSERT_EQ(M.G.Layers.size(), 2u);
  EXPECT_EQ(pads(M.G.Layers[0]), (std::vector<unsigned>{2, 1, 0, 3}));
  ASSERT_FALSE(compileAndRun(Text, R).empty());
  EXPECT_TRUE(test::sameBits(R));
  Text = model(padNode("x", "t", Pd) +
               std::vector<std::string>{input("x", {1, 2, 4, 4}), output("t", {1, 2, 7, 7})});
  M = import(Text);
  ASSERT_EQ(M.G.Layers.size(), 1u);
  EXPECT_EQ(M.G.Layers[0].Out, (Shape{2, 7, 7}));
  ASSERT_FALSE(compileAndRun(Text, R).empty());
  EXPECT_TRUE(test::sameBits(R));
  std::vector<float> X = defaultInput(M.G);
  ASSERT_FALSE(bool(canonicalize(M.G)));
  std::vector<float> Got = runFloat(M.G, X);
  for (int C = 0; C < 2; ++C)
    for (int Y = 0; Y < 7; ++Y)
      for (int Xo = 0; Xo < 7; ++Xo) {
        int Iy = Y - 2, Ix = Xo;
        float Want = Iy >= 0 && Iy < 4 && Ix < 4 ? X[size_t((C * 4 + Iy) * 4 + Ix)] : 0.0f;
        EXPECT_EQ(Got[size_t((C * 7 + Y) * 7 + Xo)], Want) << C << " " << Y << " " << Xo;
      }
}

TEST(OnnxPad, APadReadByAPadIsALayerAndTheSecondFolds) {
  std::string Text =
      model({input("x", {1, 2, 6, 7}), init("W", {3, 2, 3, 3}, weights(54, 1)),
             init("p", {8}, {0, 0, 1, 0, 0, 0, 0, 0}, /*Int64=*/true),
             init("q", {8}, {0, 0, 0, 0, 0, 0, 0, 2}, /*Int64=*/true),
             node("Pad", "pad1", {"x", "p"}, {"s"}), node("Pad", "pad2", {"s", "q"}, {"t"}),
             node("Conv", "c", {"t", "W"}, {"y"}), output("y", {1, 3, 5, 7})});
  OnnxModel M = import(Text);
  ASSERT_EQ(M.G.Layers.size(), 2u);
  EXPECT_EQ(M.G.Layers[0].Name, "pad1");
  EXPECT_EQ(pads(M.G.Layers[0]), (std::vector<unsigned>{1, 0, 0, 0}));
  EXPECT_EQ(pads(M.G.Layers[1]), (std::vector<unsigned>{0, 0, 0, 2}));
  test::RunResult R;
  ASSERT_FALSE(compileAndRun(Text, R).empty());
  EXPECT_TRUE(test::sameBits(R));
}

TEST(OnnxPad, OldOpsetsGiveThePadsAsAnAttribute) {
  for (int Opset : {1, 2, 10}) {
    const char *Name = Opset < 2 ? "paddings" : "pads";
    OnnxModel M =
        import(model({input("x", {1, 2, 6, 7}), init("W", {3, 2, 3, 3}, weights(54, 1)),
                      node("Pad", "pad", {"x"}, {"t"},
                           {intsAttr(Name, {0, 0, 1, 2, 0, 0, 0, 1}), floatAttr("value", 0)}),
                      node("Conv", "c", {"t", "W"}, {"y"}), output("y", {1, 3, 5, 8})},
                     Opset));
    ASSERT_EQ(M.G.Layers.size(), 1u) << "opset " << Opset;
    EXPECT_EQ(pads(M.G.Layers[0]), (std::vector<unsigned>{1, 0, 2, 1})) << "opset " << Opset;
  }
}

TEST(OnnxPad, RankThreePadsTheLength) {
  OnnxModel M = import(model(
      padNode("x", "t", {0, 0, 2, 0, 0, 1}) +
      std::vector<std::string>{input("x", {1, 2, 9}), init("W", {3, 2, 3}, weights(18, 2)),
                               node("Conv", "c", {"t", "W"}, {"y"}), output("y", {1, 3, 10})}));
  ASSERT_EQ(M.G.Layers.size(), 1u);
  EXPECT_EQ(pads(M.G.Layers[0]), (std::vector<unsigned>{0, 0, 2, 1}));
}

TEST(OnnxPad, PadsNoLayerComputesAreRefused) {
  auto Conv = [](std::vector<std::string> PadParts) {
    return model(PadParts + std::vector<std::string>{
                                input("x", {1, 2, 6, 7}), init("W", {3, 2, 3, 3}, weights(54, 1)),
                                node("Conv", "c", {"t", "W"}, {"y"}), output("y", {1, 3, 6, 7})});
  };
  std::vector<int64_t> P = {0, 0, 1, 1, 0, 0, 1, 1};
  std::vector<double> PD(P.begin(), P.end());
  EXPECT_EQ(importError(Conv({init("p", {8}, PD, true),
                              node("Pad", "pad", {"x", "p"}, {"t"},
                                   {"attribute { name: \"mode\" type: STRING s: \"reflect\" }"})})),
            "m.onnx: node 0 'pad' (Pad): attribute 'mode' = 'reflect' is not supported: only "
            "constant padding with zeros, the padding the hardware's windows make");
  EXPECT_EQ(importError(Conv({init("p", {8}, PD, true), init("v", {}, {1.5}),
                              node("Pad", "pad", {"x", "p", "v"}, {"t"})})),
            "m.onnx: node 0 'pad' (Pad): padding value 1.5 is not supported: only zeros, the "
            "padding the hardware's windows make");
  EXPECT_NE(importError(Conv(padNode("x", "t", {0, 1, 0, 0, 0, 0, 0, 0})))
                .find("node 0 'pad' (Pad): pads 'p' = [0, 1, 0, 0, 0, 0, 0, 0] on input [1, 2, "
                      "6, 7] is not supported: only the height and width"),
            std::string::npos);
  EXPECT_NE(importError(Conv(padNode("x", "t", {0, 0, -1, 0, 0, 0, 0, 0})))
                .find("node 0 'pad' (Pad): pads 'p' = [0, 0, -1, 0, 0, 0, 0, 0] is not "
                      "supported: a negative pad crops"),
            std::string::npos);
}

//===-- ReduceMean -------------------------------------------------------===//

TEST(OnnxReduceMean, OverTheSpatialAxesIsAGlobalAveragePool) {
  for (auto [Axes, KeepDims] : {std::pair{std::vector<int64_t>{2, 3}, 0},
                                {std::vector<int64_t>{-1, -2}, 1},
                                {std::vector<int64_t>{3, 2}, 0}}) {
    std::vector<int64_t> Out =
        KeepDims ? std::vector<int64_t>{1, 4, 1, 1} : std::vector<int64_t>{1, 4};
    OnnxModel M = import(model({input("x", {1, 4, 3, 5}),
                                node("ReduceMean", "rm", {"x"}, {"y"},
                                     {intsAttr("axes", Axes), intAttr("keepdims", KeepDims)}),
                                output("y", Out)}));
    ASSERT_EQ(M.G.Layers.size(), 1u);
    EXPECT_EQ(M.G.Layers[0].Kind, LayerKind::GlobalAvgPool);
    EXPECT_EQ(M.G.Layers[0].Out, (Shape{4, 1, 1}));
    EXPECT_EQ(M.OutputDims, Out);
  }
  // Opset 18: the axes are an input.
  OnnxModel M = import(model({input("x", {1, 4, 3, 5}), init("a", {2}, {2, 3}, /*Int64=*/true),
                              node("ReduceMean", "rm", {"x", "a"}, {"y"}, {intAttr("keepdims", 0)}),
                              output("y", {1, 4})},
                             18));
  ASSERT_EQ(M.G.Layers.size(), 1u);
  EXPECT_EQ(M.G.Layers[0].Kind, LayerKind::GlobalAvgPool);
}

TEST(OnnxReduceMean, CompilesToTheProgramOfGlobalAveragePoolAndFlatten) {
  // MNASNet's head: x.mean([2, 3]) and a classifier.
  auto Head = [](std::vector<std::string> Pool) {
    return model(
        std::vector<std::string>{input("x", {1, 4, 6, 6}), init("W", {4, 4, 3, 3}, weights(144, 3)),
                                 init("B", {5, 4}, weights(20, 4)),
                                 node("Conv", "c", {"x", "W"}, {"u"}),
                                 node("Relu", "r", {"u"}, {"v"})} +
        Pool +
        std::vector<std::string>{node("Gemm", "fc", {"f", "B"}, {"y"}, {intAttr("transB", 1)}),
                                 output("y", {1, 5})});
  };
  test::RunResult A, B;
  std::vector<uint8_t> Reduce =
      compileAndRun(Head({node("ReduceMean", "gap", {"v"}, {"f"},
                               {intsAttr("axes", {2, 3}), intAttr("keepdims", 0)})}),
                    A);
  std::vector<uint8_t> Global = compileAndRun(
      Head({node("GlobalAveragePool", "gap", {"v"}, {"g"}), node("Flatten", "fl", {"g"}, {"f"})}),
      B);
  ASSERT_FALSE(Reduce.empty());
  EXPECT_TRUE(Reduce == Global) << "the programs differ";
  EXPECT_TRUE(test::sameBits(A));
}

TEST(OnnxReduceMean, OtherAxesAreRefused) {
  EXPECT_EQ(importError(model({input("x", {1, 4, 3, 5}),
                               node("ReduceMean", "rm", {"x"}, {"y"}, {intsAttr("axes", {1})}),
                               output("y", {1, 1, 3, 5})})),
            "m.onnx: node 0 'rm' (ReduceMean): axes [1] on input [1, 4, 3, 5] are not "
            "supported: only a mean over all the spatial axes (2 and up), which is a global "
            "average pooling");
  EXPECT_NE(importError(model({input("x", {1, 4, 3, 5}), node("ReduceMean", "rm", {"x"}, {"y"}),
                               output("y", {1, 1, 1, 1})}))
                .find("axes (all) on input [1, 4, 3, 5] are not supported"),
            std::string::npos);
  EXPECT_NE(importError(model({input("x", {1, 4, 3, 5}),
                               node("ReduceMean", "rm", {"x"}, {"y"}, {intsAttr("axes", {3})}),
                               output("y", {1, 4, 3, 1})}))
                .find("axes [3] on input"),
            std::string::npos);
}

//===-- Concats of a growing list ----------------------------------------===//

TEST(OnnxConcat, ADenseBlockNestsItsConcats) {
  // x -> relu r; f1 = conv(r); c2 = [r, f1]; f2 = conv(c2); c3 = [r, f1, f2];
  // y = conv(c3). r and f1 go into both concats, which a view cannot do; as
  // c3 = [c2, f2] each goes into one.
  std::string Text =
      model({input("x", {1, 4, 6, 6}), init("W1", {2, 4, 3, 3}, weights(72, 5)),
             init("W2", {2, 6, 3, 3}, weights(108, 6)), init("W3", {3, 8, 1, 1}, weights(24, 7)),
             node("Relu", "r", {"x"}, {"rx"}),
             node("Conv", "f1", {"rx", "W1"}, {"a"}, {intsAttr("pads", {1, 1, 1, 1})}),
             node("Concat", "c2", {"rx", "a"}, {"b"}, {intAttr("axis", 1)}),
             node("Conv", "f2", {"b", "W2"}, {"c"}, {intsAttr("pads", {1, 1, 1, 1})}),
             node("Concat", "c3", {"rx", "a", "c"}, {"d"}, {intAttr("axis", 1)}),
             node("Conv", "out", {"d", "W3"}, {"y"}), output("y", {1, 3, 6, 6})});
  OnnxModel M = import(Text);
  ASSERT_EQ(M.G.Layers.size(), 6u);
  const Layer &C3 = M.G.Layers[4];
  EXPECT_EQ(C3.Name, "c3");
  EXPECT_EQ(C3.Inputs, (std::vector<int>{2, 3})) << "c2, then f2";
  EXPECT_EQ(C3.In, (Shape{6, 6, 6}));
  EXPECT_EQ(C3.Out, (Shape{8, 6, 6}));

  test::RunResult R;
  ASSERT_FALSE(compileAndRun(Text, R).empty());
  EXPECT_TRUE(test::sameBits(R));
  EXPECT_TRUE(test::informative(R.Ref));
}

} // namespace
