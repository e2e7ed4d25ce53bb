//===- LayerErrorsTest.cpp - Errors of the layer types beyond conv/maxpool -===//
//
// One test per rejected input of the newer layer types (docs/model-format.md,
// "Errors"): each pins the "FILE:LINE:" prefix, the layer and the offending
// key or value, including both shapes where inputs disagree, because a
// message that does not point at the mistake sends the user hunting through
// a 150-layer file.
//
//===----------------------------------------------------------------------===//

#include "IrTestUtil.h"

#include <gtest/gtest.h>

using namespace snow::ir;
using namespace snow::test;

namespace {

/// Lines 1-3; the first layer is on line 4. Input 4x8x8.
const std::string Top = "name: m\n"
                        "input: {shape: [4, 8, 8]}\n"
                        "layers:\n";
/// Line 4: a 6x8x8 conv; line 5: a 4x8x8 one.
const std::string AB = "  - {name: a, type: conv, out_channels: 6, kernel: 3, pad: 1}\n"
                       "  - {name: b, type: conv, input: data, out_channels: 4, kernel: 3}\n";

} // namespace

TEST(LayerErrors, GroupsMustDivideBothChannelCounts) {
  expectError(Top + "  - {name: g, type: conv, out_channels: 6, kernel: 1, groups: 3}\n",
              {"m.yaml:4: layer 'g': 'groups' '3' does not divide the input channels '4'"});
  expectError(Top + "  - {name: g, type: conv, out_channels: 6, kernel: 1, groups: 4}\n",
              {"m.yaml:4: layer 'g': 'groups' '4' does not divide 'out_channels' '6'"});
  expectError(Top + "  - {name: g, type: conv, out_channels: 6, kernel: 1, groups: 0}\n",
              {"m.yaml:4: layer 'g': 'groups' must be positive, got '0'"});
}

TEST(LayerErrors, AvgPoolCeilModeIsNotSupported) {
  expectError(Top + "  - {name: p, type: avgpool, kernel: 3, stride: 2, ceil_mode: true}\n",
              {"m.yaml:4: layer 'p': 'ceil_mode: true' is not supported for avgpool"});
}

TEST(LayerErrors, AvgPoolFollowsThePoolingRules) {
  expectError(Top + "  - {name: p, type: avgpool, kernel: 3, pad: 2}\n",
              {"m.yaml:4: layer 'p': pad '2' is more than half the kernel 3x3"});
  expectError(Top + "  - {name: p, type: avgpool, kernel: 9}\n",
              {"m.yaml:4: layer 'p': kernel 9x9 is larger than its padded input 8x8"});
  expectError(Top + "  - {name: p, type: avgpool, kernel: 3, relu: true}\n",
              {"m.yaml:4: layer 'p': unknown key 'relu' for type 'avgpool'"});
  expectError(Top + "  - {name: p, type: avgpool}\n",
              {"m.yaml:4: layer 'p': missing required key 'kernel'"});
}

TEST(LayerErrors, AvgPoolWindowsBeyondTheFixedPointRule) {
  expectError("name: m\ninput: {shape: [1, 300, 300]}\nlayers:\n"
              "  - {name: g, type: global_avgpool}\n",
              {"m.yaml:4: layer 'g': an average over 300x300 positions is more than the "
               "supported 65536"});
  expectError("name: m\ninput: {shape: [1, 300, 300]}\nlayers:\n"
              "  - {name: p, type: avgpool, kernel: [257, 256]}\n",
              {"m.yaml:4: layer 'p': an average over 257x256 positions"});
}

TEST(LayerErrors, KeylessTypesRejectEveryOtherKey) {
  expectError(Top + "  - {name: g, type: global_avgpool, kernel: 8}\n",
              {"m.yaml:4: layer 'g': unknown key 'kernel' for type 'global_avgpool'"});
  expectError(Top + "  - {name: r, type: relu, relu: true}\n",
              {"m.yaml:4: layer 'r': unknown key 'relu' for type 'relu'"});
  expectError(Top + "  - {name: f, type: flatten, dim: 1}\n",
              {"m.yaml:4: layer 'f': unknown key 'dim' for type 'flatten'"});
  expectError(Top + "  - {name: s, type: softmax, axis: 1}\n",
              {"m.yaml:4: layer 's': unknown key 'axis' for type 'softmax'"});
  expectError(Top + "  - {name: c, type: concat, inputs: [data, data], relu: true}\n",
              {"m.yaml:4: layer 'c': unknown key 'relu' for type 'concat'"});
}

TEST(LayerErrors, FcKeys) {
  expectError(Top + "  - {name: f, type: fc, relu: true}\n",
              {"m.yaml:4: layer 'f': missing required key 'out_features'"});
  expectError(Top + "  - {name: f, type: fc, out_channels: 10}\n",
              {"m.yaml:4: layer 'f': unknown key 'out_channels' for type 'fc'"});
  expectError(Top + "  - {name: f, type: fc, out_features: 0}\n",
              {"m.yaml:4: layer 'f': 'out_features' must be positive, got '0'"});
  expectError(Top + "  - {name: f, type: fc, out_features: 2, bias: false, bias_file: b.npy}\n",
              {"m.yaml:4: layer 'f': 'bias_file' is given but 'bias' is false"});
}

TEST(LayerErrors, ConcatAndAddTakeInputsNotInput) {
  expectError(Top + AB + "  - {name: s, type: add, input: a}\n",
              {"m.yaml:6: layer 's': 'input' is not allowed for type 'add'", "'inputs: [a, b]'"});
  expectError(Top + AB + "  - {name: s, type: concat, input: a, inputs: [a, b]}\n",
              {"m.yaml:6: layer 's': 'input' is not allowed for type 'concat'"});
  expectError(Top + AB + "  - {name: s, type: add}\n",
              {"m.yaml:6: layer 's': missing required key 'inputs'"});
  expectError(Top + AB + "  - {name: c, type: conv, inputs: [a], out_channels: 2, kernel: 1}\n",
              {"m.yaml:6: layer 'c': 'inputs' is only for concat and add; type 'conv' reads "
               "one layer, named by 'input'"});
  expectError(Top + "  - {name: r, type: relu, inputs: [data]}\n",
              {"m.yaml:4: layer 'r': 'inputs' is only for concat and add"});
}

TEST(LayerErrors, InputsListSizes) {
  expectError(Top + AB + "  - {name: s, type: concat, inputs: [a]}\n",
              {"m.yaml:6: layer 's': 'inputs' must be a list of at least 2 layer names, got a "
               "list of 1"});
  expectError(Top + AB + "  - {name: s, type: concat, inputs: a}\n",
              {"m.yaml:6: layer 's': 'inputs' must be a list", "got 'a'"});
  expectError(Top + AB + "  - {name: s, type: add, inputs: [b, b, b]}\n",
              {"m.yaml:6: layer 's': 'inputs' of an add must name exactly 2 layers, got 3"});
}

TEST(LayerErrors, AddNeedsEqualShapesAndGivesBoth) {
  expectError(Top + AB + "  - {name: s, type: add, inputs: [a, data]}\n",
              {"m.yaml:6: layer 's': inputs 'a' (6x8x8) and 'data' (4x8x8) differ in shape; "
               "add needs equal shapes"});
  expectError(Top + AB + "  - {name: s, type: add, inputs: [data, b]}\n",
              {"m.yaml:6: layer 's': inputs 'data' (4x8x8) and 'b' (4x6x6) differ in shape"});
}

TEST(LayerErrors, ConcatNeedsEqualHeightAndWidth) {
  expectError(Top + AB + "  - {name: s, type: concat, inputs: [a, data, b]}\n",
              {"m.yaml:6: layer 's': inputs 'a' (6x8x8) and 'b' (4x6x6) differ in height or "
               "width; concat needs equal height and width"});
}

TEST(LayerErrors, InputsListNamesAreResolvedLikeInput) {
  expectError(Top + AB + "  - {name: s, type: add, inputs: [a, zz]}\n",
              {"m.yaml:6: layer 's': input 'zz' is not defined"});
  expectError(Top + AB + "  - {name: s, type: add, inputs: [a, t]}\n" +
                  "  - {name: t, type: relu}\n",
              {"m.yaml:6: layer 's': input 't' names a later layer (a cycle or forward "
               "reference)"});
  expectError(Top + AB + "  - {name: s, type: concat, inputs: [a, s]}\n",
              {"m.yaml:6: layer 's': input 's' is the layer itself (a cycle or forward "
               "reference)"});
}

TEST(LayerErrors, BlockStyleInputsPointAtTheEntry) {
  expectError(Top + AB +
                  "  - name: s\n"
                  "    type: concat\n"
                  "    inputs:\n"
                  "      - a\n"
                  "      - nope\n",
              {"m.yaml:10: layer 's': input 'nope' is not defined"});
}

TEST(LayerErrors, SoftmaxMustBeTheLastLayer) {
  expectError(Top + "  - {name: g, type: global_avgpool}\n"
                    "  - {name: s, type: softmax}\n"
                    "  - {name: r, type: relu}\n",
              {"m.yaml:5: layer 's': a softmax must be the last layer"});
}

TEST(LayerErrors, SoftmaxNeedsAVectorOfScores) {
  expectError(Top + "  - {name: s, type: softmax}\n",
              {"m.yaml:4: layer 's': a softmax needs a vector of scores (Cx1x1), got 4x8x8"});
}

TEST(LayerErrors, BatchNormEpsMustBeAPositiveNumber) {
  for (const char *Bad : {"0", "-1e-5", "abc", "[1]", "\"1e-5\"", ".inf"})
    expectError(Top + "  - {name: bn, type: batchnorm, eps: " + Bad + "}\n",
                {"m.yaml:4: layer 'bn': 'eps' must be a positive number"});
}

TEST(LayerErrors, BatchNormKeys) {
  expectError(Top + "  - {name: bn, type: batchnorm, momentum: 0.1}\n",
              {"m.yaml:4: layer 'bn': unknown key 'momentum' for type 'batchnorm'",
               "eps, gamma_file, beta_file, mean_file, var_file"});
}

TEST(LayerErrors, UnsupportedTypesListTheSupportedOnes) {
  expectError(Top + "  - {name: d, type: dropout}\n",
              {"m.yaml:4: layer 'd': unsupported layer type 'dropout' (supported: conv, "});
  expectError(Top + "  - {name: d, type: Conv, out_channels: 1, kernel: 1}\n",
              {"unsupported layer type 'Conv'"});
}

namespace {

/// A temporary directory for .npy parameter files of fc, grouped conv and
/// batchnorm layers.
class NpyParams : public ModelDirTest {
protected:
  NpyParams() : ModelDirTest("snow-ir-params") {}

  /// Values, padded with 0.5 to the size of Shape.
  void write(const std::string &Name, std::vector<uint64_t> Shape, std::vector<float> Values) {
    writeArray(Name, std::move(Shape), std::move(Values), 0.5f);
  }

  /// m.yaml: input 2x3x3, then Layer (on line 4).
  llvm::Expected<Graph> load(const std::string &Layer) {
    return loadText("name: m\ninput: {shape: [2, 3, 3]}\nlayers:\n" + Layer + "\n");
  }
};

} // namespace

TEST_F(NpyParams, FcWeightsAreOutByFlattenedInput) {
  write("w.npy", {5, 18}, {1.5f});
  write("b.npy", {5}, {-2.0f});
  auto G = load("  - {name: f, type: fc, out_features: 5, weights_file: w.npy, "
                "bias_file: b.npy}");
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  EXPECT_EQ(G->Layers[0].Weights.size(), 90u);
  EXPECT_EQ(G->Layers[0].Weights[0], 1.5f);
  EXPECT_EQ(G->Layers[0].Bias[0], -2.0f);
  write("w.npy", {5, 2, 3, 3}, {});
  auto Bad = load("  - {name: f, type: fc, out_features: 5, weights_file: w.npy}");
  ASSERT_FALSE(bool(Bad));
  std::string E = llvm::toString(Bad.takeError());
  EXPECT_NE(E.find("m.yaml:4: layer 'f': 'weights_file' 'w.npy'"), std::string::npos) << E;
  EXPECT_NE(E.find("does not match the expected (5, 18)"), std::string::npos) << E;
}

TEST_F(NpyParams, GroupedConvWeightsHaveInChannelsOverGroups) {
  write("w.npy", {4, 1, 3, 3}, {});
  auto G = load("  - {name: c, type: conv, out_channels: 4, kernel: 3, groups: 2, "
                "weights_file: w.npy}");
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  EXPECT_EQ(G->Layers[0].Weights, std::vector<float>(36, 0.5f));
}

TEST_F(NpyParams, BatchNormStatisticsFromFiles) {
  write("g.npy", {2}, {2.0f, 3.0f});
  write("v.npy", {2}, {0.25f, 4.0f});
  auto G = load("  - {name: bn, type: batchnorm, gamma_file: g.npy, var_file: v.npy}");
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  const Layer &L = G->Layers[0];
  EXPECT_EQ(L.Gamma, (std::vector<float>{2.0f, 3.0f}));
  EXPECT_EQ(L.Var, (std::vector<float>{0.25f, 4.0f}));
  // The others keep their seeded values, which do not depend on the files.
  auto Seeded = load("  - {name: bn, type: batchnorm}");
  ASSERT_TRUE(bool(Seeded));
  EXPECT_EQ(L.Beta, Seeded->Layers[0].Beta);
  EXPECT_EQ(L.Mean, Seeded->Layers[0].Mean);
  write("m.npy", {2}, {0.0f, 1.0f});
  write("b.npy", {2}, {4.0f, 5.0f});
  auto All = load("  - {name: bn, type: batchnorm, mean_file: m.npy, beta_file: b.npy}");
  ASSERT_TRUE(bool(All)) << llvm::toString(All.takeError());
  EXPECT_EQ(All->Layers[0].Mean, (std::vector<float>{0.0f, 1.0f}));
  EXPECT_EQ(All->Layers[0].Beta, (std::vector<float>{4.0f, 5.0f}));
}

TEST_F(NpyParams, BatchNormFileErrors) {
  write("g.npy", {3}, {});
  auto G = load("  - {name: bn, type: batchnorm, gamma_file: g.npy}");
  ASSERT_FALSE(bool(G));
  std::string E = llvm::toString(G.takeError());
  EXPECT_NE(E.find("m.yaml:4: layer 'bn': 'gamma_file' 'g.npy'"), std::string::npos) << E;
  EXPECT_NE(E.find("shape (3,) does not match the expected (2,)"), std::string::npos) << E;
  write("v.npy", {2}, {1.0f, -0.5f});
  G = load("  - {name: bn, type: batchnorm, var_file: v.npy}");
  ASSERT_FALSE(bool(G));
  E = llvm::toString(G.takeError());
  EXPECT_NE(E.find("m.yaml:4: layer 'bn': 'var_file' 'v.npy': variance -0.5 of channel 1 is "
                   "negative"),
            std::string::npos)
      << E;
}
