//===- ImportTest.cpp - The ONNX importer, operator by operator -----------===//
//
// Pins how each supported operator becomes graph IR (kinds, geometry,
// weights, names, locations), how a batch maps onto frames, what the
// clean-up passes do (bias folding, unfoldable batchnorms, the copy layer),
// and that every refusal is one line naming the node, its op type and the
// offending attribute or input.
//
//===----------------------------------------------------------------------===//

#include "OnnxBuilder.h"

#include "snow/ir/Onnx.h"

#include <gtest/gtest.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::onnxtest;

namespace {

OnnxModel import(const std::string &Text, const OnnxImportOptions &Opts = {}) {
  llvm::Expected<OnnxModel> M = parseOnnxText(Text, "m.onnx", Opts);
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return {};
  }
  return std::move(*M);
}

/// The importer's error for Text, which must fail.
std::string importError(const std::string &Text, const OnnxImportOptions &Opts = {}) {
  llvm::Expected<OnnxModel> M = parseOnnxText(Text, "m.onnx", Opts);
  if (M) {
    ADD_FAILURE() << "the model imported";
    return "";
  }
  std::string Msg = llvm::toString(M.takeError());
  EXPECT_EQ(Msg.find('\n'), std::string::npos) << "one line: " << Msg;
  return Msg;
}

std::vector<double> ones(size_t N) { return std::vector<double>(N, 1.0); }

/// x [1, 2, 5, 5] -> Conv with 3x3 weights W [3, 2, 3, 3] -> y.
std::string conv(const std::vector<std::string> &Attrs, const std::vector<int64_t> &OutDims) {
  return model({input("x", {1, 2, 5, 5}), init("W", {3, 2, 3, 3}, ones(54)),
                node("Conv", "c", {"x", "W"}, {"y"}, Attrs), output("y", OutDims)});
}

TEST(OnnxImport, ConvWithAsymmetricPadsAndStrides) {
  OnnxModel M =
      import(conv({intsAttr("pads", {1, 0, 0, 2}), intsAttr("strides", {2, 1})}, {1, 3, 2, 5}));
  ASSERT_EQ(M.G.Layers.size(), 1u);
  const Layer &L = M.G.Layers[0];
  EXPECT_EQ(L.Kind, LayerKind::Conv);
  EXPECT_EQ(L.TypeName, "conv");
  EXPECT_EQ(L.Name, "c");
  EXPECT_EQ(L.Loc.str(), "m.onnx:0"); // the node index stands in for a line
  EXPECT_EQ((std::vector<unsigned>{L.PadT, L.PadL, L.PadB, L.PadR}),
            (std::vector<unsigned>{1, 0, 0, 2}));
  EXPECT_EQ(L.SH, 2u);
  // H: (5 + 1 + 0 - 3) / 2 + 1 = 2; W: (5 + 0 + 2 - 3) / 1 + 1 = 5.
  EXPECT_EQ(L.Out, (Shape{3, 2, 5}));
  EXPECT_FALSE(L.HasBias);
  EXPECT_EQ(L.Weights.size(), 54u);
  EXPECT_EQ(M.OutputDims, (std::vector<int64_t>{1, 3, 2, 5}));
}

TEST(OnnxImport, AutoPadSameUpperPutsTheExtraPadAtTheEnd) {
  OnnxModel M = import(conv({intsAttr("strides", {2, 2}),
                             "attribute { name: \"auto_pad\" type: STRING s: \"SAME_UPPER\" }"},
                            {1, 3, 3, 3}));
  const Layer &L = M.G.Layers.at(0);
  // out = ceil(5 / 2) = 3, total pad = (3 - 1) * 2 + 3 - 5 = 2: 1 before, 1 after.
  EXPECT_EQ((std::vector<unsigned>{L.PadT, L.PadB, L.PadL, L.PadR}),
            (std::vector<unsigned>{1, 1, 1, 1}));
}

TEST(OnnxImport, DilationIsRefusedNamingNodeOpAndAttribute) {
  EXPECT_EQ(importError(conv({intsAttr("dilations", {2, 2})}, {1, 3, 1, 1})),
            "m.onnx: node 0 'c' (Conv): attribute 'dilations' = [2, 2] is not supported: the "
            "hardware has no dilated convolution (dilations must be 1)");
}

TEST(OnnxImport, UnknownAttributeAndOperatorAreRefused) {
  std::string Msg = importError(conv({intAttr("fancy", 1)}, {1, 3, 3, 3}));
  EXPECT_NE(Msg.find("node 0 'c' (Conv): attribute 'fancy' is not supported (supported: "),
            std::string::npos)
      << Msg;
  Msg =
      importError(model({input("x", {1, 4}), node("Cos", "t", {"x"}, {"y"}), output("y", {1, 4})}));
  EXPECT_NE(Msg.find("m.onnx: node 0 't' (Cos): operator 'Cos' is not supported"),
            std::string::npos)
      << Msg;
}

TEST(OnnxImport, WeightsPassedAsInputsNeedABinding) {
  std::string Text = model({input("x", {1, 1, 4, 4}), input("W", {1, 1, 3, 3}),
                            node("Conv", "c", {"x", "W"}, {"y"}), output("y", {1, 1, 2, 2})});
  EXPECT_NE(importError(Text).find("graph inputs 'x', 'W' have no value, but the accelerator "
                                   "has one input; bind all but one with --const NAME=FILE"),
            std::string::npos);
  OnnxImportOptions Opts;
  OnnxTensor W;
  W.Dims = {1, 1, 3, 3};
  W.Floats.assign(9, 0.5f);
  Opts.Consts["W"] = W;
  OnnxModel M = import(Text, Opts);
  ASSERT_EQ(M.G.Layers.size(), 1u);
  EXPECT_EQ(M.G.Layers[0].Weights, std::vector<float>(9, 0.5f));
  Opts.Consts["V"] = W;
  EXPECT_NE(importError(Text, Opts).find("--const 'V' names no graph input"), std::string::npos);
}

TEST(OnnxImport, BatchIsFramesAndRankThreeIsOneDimensional) {
  OnnxModel M = import(model({input("x", {4, 2, 9}), init("W", {3, 2, 3}, ones(18)),
                              node("Conv", "c", {"x", "W"}, {"y"}), output("y", {4, 3, 7})}));
  EXPECT_EQ(M.Frames, 4u);
  EXPECT_EQ(M.G.Input, (Shape{2, 1, 9}));
  const Layer &L = M.G.Layers.at(0);
  EXPECT_EQ(L.KH, 1u);
  EXPECT_EQ(L.KW, 3u);
  EXPECT_EQ(L.Out, (Shape{3, 1, 7}));
}

TEST(OnnxImport, FlattenMustKeepTheBatch) {
  std::string Msg = importError(
      model({input("x", {2, 3, 4, 5}), node("Flatten", "f", {"x"}, {"y"}, {intAttr("axis", 2)}),
             output("y", {6, 20})}));
  EXPECT_NE(Msg.find("node 0 'f' (Flatten): [2, 3, 4, 5] to [6, 20] is not supported"),
            std::string::npos)
      << Msg;
}

TEST(OnnxImport, MatMulPlusBiasIsOneFcWithGemmsAlphaAndBetaFolded) {
  OnnxModel M = import(model({input("x", {2, 3}), init("B", {3, 2}, {1, 2, 3, 4, 5, 6}),
                              init("b", {2}, {0.5, -0.5}), node("MatMul", "mm", {"x", "B"}, {"t"}),
                              node("Add", "add", {"t", "b"}, {"y"}), output("y", {2, 2})}));
  ASSERT_EQ(M.G.Layers.size(), 1u) << "the add folds into the fc's bias";
  const Layer &L = M.G.Layers[0];
  EXPECT_EQ(L.Kind, LayerKind::Fc);
  EXPECT_EQ(L.Name, "mm");
  EXPECT_TRUE(L.HasBias);
  // (out, in) order: B transposed.
  EXPECT_EQ(L.Weights, (std::vector<float>{1, 3, 5, 2, 4, 6}));
  EXPECT_EQ(L.Bias, (std::vector<float>{0.5f, -0.5f}));

  M = import(model({input("x", {1, 2}), init("B", {1, 2}, {1, 2}), init("C", {}, {3}),
                    node("Gemm", "g", {"x", "B", "C"}, {"y"},
                         {intAttr("transB", 1), floatAttr("alpha", 2), floatAttr("beta", 0.5)}),
                    output("y", {1, 1})}));
  EXPECT_EQ(M.G.Layers.at(0).Weights, (std::vector<float>{2, 4}));
  EXPECT_EQ(M.G.Layers.at(0).Bias, (std::vector<float>{1.5f}));
}

TEST(OnnxImport, BatchNormFoldsIntoItsConvOrBecomesADepthwiseConv) {
  auto Bn = [](const std::string &In) {
    return node("BatchNormalization", "bn", {In, "s", "b", "m", "v"}, {"y"},
                {floatAttr("epsilon", 1e-6)});
  };
  std::vector<std::string> Common = {input("x", {1, 2, 4, 4}), init("W", {2, 2, 1, 1}, ones(4)),
                                     init("s", {2}, {2, 3}),   init("b", {2}, {1, 0}),
                                     init("m", {2}, {0, 1}),   init("v", {2}, {4, 9}),
                                     output("y", {1, 2, 4, 4})};
  std::vector<std::string> Direct = Common;
  Direct.push_back(node("Conv", "c", {"x", "W"}, {"t"}));
  Direct.push_back(Bn("t"));
  OnnxModel M = import(model(Direct));
  ASSERT_EQ(M.G.Layers.size(), 2u);
  EXPECT_EQ(M.G.Layers[1].Kind, LayerKind::BatchNorm) << "canonicalize() folds it";

  // After a relu the batchnorm cannot fold: it is a per-channel scale and
  // shift, s / sqrt(v) and b - m * s / sqrt(v).
  std::vector<std::string> AfterRelu = Common;
  AfterRelu.push_back(node("Conv", "c", {"x", "W"}, {"t"}));
  AfterRelu.push_back(node("Relu", "r", {"t"}, {"u"}));
  AfterRelu.push_back(Bn("u"));
  M = import(model(AfterRelu));
  ASSERT_EQ(M.G.Layers.size(), 3u);
  const Layer &L = M.G.Layers[2];
  EXPECT_EQ(L.Kind, LayerKind::Conv);
  EXPECT_EQ(L.TypeName, "batchnorm");
  EXPECT_EQ(L.Groups, 2u);
  ASSERT_EQ(L.Weights.size(), 2u);
  EXPECT_NEAR(L.Weights[0], 1.0, 1e-6);
  EXPECT_NEAR(L.Weights[1], 1.0, 1e-6);
  EXPECT_NEAR(L.Bias[0], 1.0, 1e-6);
  EXPECT_NEAR(L.Bias[1], -1.0, 1e-6);
  EXPECT_FALSE(bool(canonicalize(M.G)));
}

TEST(OnnxImport, AConstantAddedPerChannelIsADepthwiseBiasOtherwiseRefused) {
  OnnxModel M = import(model({input("x", {1, 2, 3, 3}), init("k", {2, 1, 1}, {1, 2}),
                              node("Relu", "r", {"x"}, {"t"}), node("Add", "a", {"t", "k"}, {"y"}),
                              output("y", {1, 2, 3, 3})}));
  ASSERT_EQ(M.G.Layers.size(), 2u);
  EXPECT_EQ(M.G.Layers[1].TypeName, "add");
  EXPECT_EQ(M.G.Layers[1].Bias, (std::vector<float>{1, 2}));
  std::string Msg =
      importError(model({input("x", {1, 2, 3, 3}), init("k", {3}, {1, 2, 3}),
                         node("Add", "a", {"x", "k"}, {"y"}), output("y", {1, 2, 3, 3})}));
  EXPECT_NE(Msg.find("node 0 'a' (Add): constant 'k' of shape [3] with [1, 2, 3, 3]: only a "
                     "constant per channel"),
            std::string::npos)
      << Msg;
}

TEST(OnnxImport, AGraphWithNothingToComputeGetsACopyLayer) {
  OnnxModel M = import(model(
      {input("x", {1, 3, 2, 2}), node("Identity", "i", {"x"}, {"y"}), output("y", {1, 3, 2, 2})}));
  ASSERT_EQ(M.G.Layers.size(), 1u);
  const Layer &L = M.G.Layers[0];
  EXPECT_EQ(L.Kind, LayerKind::MaxPool);
  EXPECT_EQ(L.KH * L.KW * L.SH * L.SW, 1u);
  EXPECT_EQ(L.Name, "x_copy");
}

TEST(OnnxImport, SoftmaxOverAMapFlattensFirstAndRunsOnTheHost) {
  OnnxModel M = import(
      model({input("x", {1, 2, 3, 3}), init("W", {2, 2, 1, 1}, ones(4)),
             node("Conv", "c", {"x", "W"}, {"t"}),
             node("Softmax", "s", {"t"}, {"y"}, {intAttr("axis", 1)}), output("y", {1, 2, 3, 3})},
            /*Opset=*/11));
  ASSERT_EQ(M.G.Layers.size(), 3u);
  EXPECT_EQ(M.G.Layers[1].Kind, LayerKind::Flatten);
  EXPECT_EQ(M.G.Layers[1].Name, "s_flatten");
  ASSERT_FALSE(bool(canonicalize(M.G)));
  EXPECT_TRUE(M.G.HostSoftmax);
  EXPECT_EQ(M.G.Layers.size(), 1u);
  EXPECT_EQ(M.G.SoftmaxCount, 0u) << "the whole frame";
}

TEST(OnnxImport, SoftmaxOverOneAxisRunsOnTheHostPerGroup) {
  // From opset 13 axis 1 is one axis: a softmax over the 2 channels of each
  // of the 3 x 3 positions, groups of 2 values 9 apart in CHW order; axis 2,
  // over the 3 rows of each channel and column (3 values 3 apart).
  for (auto [Axis, Count, Inner] : {std::tuple{1, 2u, 9u}, {2, 3u, 3u}, {-1, 3u, 1u}}) {
    OnnxModel M = import(model({input("x", {1, 2, 3, 3}), init("W", {2, 2, 1, 1}, ones(4)),
                                node("Conv", "c", {"x", "W"}, {"t"}),
                                node("Softmax", "s", {"t"}, {"y"}, {intAttr("axis", Axis)}),
                                output("y", {1, 2, 3, 3})}));
    ASSERT_FALSE(bool(canonicalize(M.G)));
    EXPECT_TRUE(M.G.HostSoftmax);
    EXPECT_EQ(M.G.output().Out.elems(), 18u) << "no flatten: the frame keeps its shape";
    EXPECT_EQ(M.G.SoftmaxCount, Count) << "axis " << Axis;
    EXPECT_EQ(M.G.SoftmaxInner, Inner) << "axis " << Axis;
  }
  // Over the batch: the frames of a batch run one at a time.
  EXPECT_NE(importError(
                model({input("x", {2, 3}), node("Softmax", "s", {"x"}, {"y"}, {intAttr("axis", 0)}),
                       output("y", {2, 3})}))
                .find("a softmax over the batch axis 0 is not supported"),
            std::string::npos);
}

TEST(OnnxImport, InferenceOnlyRefusals) {
  std::string Msg =
      importError(model({input("x", {1, 2, 4, 4}),
                         node("AveragePool", "p", {"x"}, {"y"},
                              {intsAttr("kernel_shape", {3, 3}), intsAttr("pads", {1, 1, 1, 1})}),
                         output("y", {1, 2, 4, 4})}));
  EXPECT_NE(Msg.find("node 0 'p' (AveragePool): attribute 'count_include_pad' = 0"),
            std::string::npos)
      << Msg;
  Msg = importError(
      model({input("x", {1, 2}), init("t", {}, {1}, /*Int64=*/true), init("r", {}, {0.5}),
             node("Dropout", "d", {"x", "r", "t"}, {"y"}), output("y", {1, 2})}));
  EXPECT_NE(Msg.find("node 0 'd' (Dropout): input 't' (training_mode) is true"), std::string::npos)
      << Msg;
  Msg = importError(
      model({input("x", {1, 2}), node("Relu", "r", {"z"}, {"y"}), output("y", {1, 2})}));
  EXPECT_NE(Msg.find("node 0 'r' (Relu): input 'z' is not defined"), std::string::npos) << Msg;
}

TEST(OnnxImport, CanonicalizeErrorsPointAtTheNode) {
  // A flatten feeding a relu cannot be a view in the canonical graph.
  OnnxModel M =
      import(model({input("x", {1, 2, 2, 2}), init("W", {2, 2, 1, 1}, ones(4)),
                    node("Conv", "c", {"x", "W"}, {"t"}), node("Flatten", "f", {"t"}, {"u"}),
                    node("Relu", "r", {"u"}, {"y"}), output("y", {1, 8})}));
  llvm::Error E = canonicalize(M.G);
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(llvm::toString(std::move(E)).rfind("m.onnx:1: layer 'f': ", 0), 0u);
}

TEST(OnnxImport, ExportThenImportKeepsNamesAndShapes) {
  llvm::Expected<Graph> Y = loadModel(SNOW_SOURCE_DIR "/models/tiny.yaml");
  ASSERT_TRUE(bool(Y)) << llvm::toString(Y.takeError());
  llvm::Expected<std::string> Bytes = exportOnnx(*Y);
  ASSERT_TRUE(bool(Bytes)) << llvm::toString(Bytes.takeError());
  llvm::Expected<OnnxModel> M = parseOnnx(*Bytes, "tiny.onnx");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  // c1 has relu: true, which ONNX writes as a Relu node of its own.
  std::vector<std::string> Names;
  for (const Layer &L : M->G.Layers)
    Names.push_back(L.Name);
  EXPECT_EQ(Names, (std::vector<std::string>{"c1", "c1_relu", "p1", "c2"}));
  EXPECT_EQ(M->G.output().Out, Y->output().Out);
  EXPECT_EQ(M->OutputDims, (std::vector<int64_t>{1, 40, 8, 16}));
}

TEST(OnnxImport, TensorFilesRoundTrip) {
  OnnxTensor T;
  T.Name = "w";
  T.Dims = {2, 3};
  T.Floats = {1, -2, 3.5f, 0, 1e-3f, 7};
  std::string Path = ::testing::TempDir() + "/snow-onnx-tensor.pb";
  {
    std::string Bytes = serializeOnnxTensor(T);
    FILE *F = std::fopen(Path.c_str(), "wb");
    ASSERT_NE(F, nullptr);
    std::fwrite(Bytes.data(), 1, Bytes.size(), F);
    std::fclose(F);
  }
  llvm::Expected<OnnxTensor> Back = readOnnxTensor(Path);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Name, "w");
  EXPECT_EQ(Back->Dims, T.Dims);
  EXPECT_EQ(Back->Floats, T.Floats);
  std::remove(Path.c_str());
}

} // namespace
