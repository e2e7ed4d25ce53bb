//===- ConcatSplitTest.cpp - Concats split by the channels each reader uses -===//
//
// compiler/ir/ConcatSplit.cpp, as the ONNX importer runs it: a concat read
// by 1x1 convs that use disjoint channels becomes one concat per reader, the
// convs writing into it (with the relus and batchnorms after them) split by
// output channels; readers sharing a channel keep the concat whole. Each
// float result is checked against the ONNX semantics computed here, and
// each model compiles to a program whose simulated output equals the
// reference executor's bit for bit.
//
//===----------------------------------------------------------------------===//

#include "CompileRun.h"
#include "OnnxBuilder.h"

#include "llvm/ADT/STLExtras.h"
#include <cmath>
#include <gtest/gtest.h>
#include <map>

using namespace snow;
using namespace snow::ir;
using namespace snow::onnxtest;

namespace {

/// A BatchNormalization's scale, shift, mean and variance, one per channel.
struct BatchNorm {
  std::vector<double> Scale, Shift, Mean, Var;
  double operator()(size_t C, double X) const {
    return (X - Mean[C]) / std::sqrt(Var[C] + 1e-5) * Scale[C] + Shift[C];
  }
};

/// x [1, 4, 3, 3] -> convs a (with a relu) and b (with Bn after it, when
/// given), 3 channels each -> concat -> 1x1 convs r1 and r2 using the
/// concat's channels Use1 and Use2 (zero weights elsewhere) -> concat -> y.
std::string concatReaders(const std::vector<int> &Use1, const std::vector<int> &Use2,
                          std::vector<std::vector<double>> &W, const BatchNorm *Bn = nullptr) {
  W = {weights(12, 31), weights(12, 32), weights(12, 33), weights(12, 34)};
  for (size_t R = 0; R < 2; ++R)
    for (int C = 0; C < 6; ++C)
      if (!llvm::is_contained(R == 0 ? Use1 : Use2, C))
        for (int O = 0; O < 2; ++O)
          W[2 + R][size_t(O * 6 + C)] = 0;
  std::vector<std::string> B = {node("Conv", "b", {"x", "Wb"}, {"b1"})};
  if (Bn)
    B = {node("Conv", "b", {"x", "Wb"}, {"b0"}),
         init("s", {3}, Bn->Scale),
         init("t", {3}, Bn->Shift),
         init("m", {3}, Bn->Mean),
         init("v", {3}, Bn->Var),
         node("BatchNormalization", "bnb", {"b0", "s", "t", "m", "v"}, {"b1"})};
  return model(
      std::vector<std::string>{
          input("x", {1, 4, 3, 3}), init("Wa", {3, 4, 1, 1}, W[0]), init("Wb", {3, 4, 1, 1}, W[1]),
          init("W1", {2, 6, 1, 1}, W[2]), init("W2", {2, 6, 1, 1}, W[3]),
          node("Conv", "a", {"x", "Wa"}, {"a0"}), node("Relu", "ra", {"a0"}, {"a1"})} +
      B +
      std::vector<std::string>{node("Concat", "cat", {"a1", "b1"}, {"c"}, {intAttr("axis", 1)}),
                               node("Conv", "r1", {"c", "W1"}, {"y1"}),
                               node("Conv", "r2", {"c", "W2"}, {"y2"}),
                               node("Concat", "out", {"y1", "y2"}, {"y"}, {intAttr("axis", 1)}),
                               output("y", {1, 4, 3, 3})});
}

void expectConcatReaders(OnnxModel M, const std::vector<std::vector<double>> &W,
                         const BatchNorm *Bn = nullptr) {
  std::vector<float> X;
  std::vector<float> Got = floatRun(std::move(M), X);
  ASSERT_EQ(Got.size(), 4u * 9);
  for (int P = 0; P < 9; ++P) {
    double Cat[6];
    for (int O = 0; O < 3; ++O) {
      double A = 0, B = 0;
      for (int I = 0; I < 4; ++I) {
        A += W[0][size_t(O * 4 + I)] * X[size_t(I * 9 + P)];
        B += W[1][size_t(O * 4 + I)] * X[size_t(I * 9 + P)];
      }
      Cat[O] = std::max(A, 0.0), Cat[3 + O] = Bn ? (*Bn)(size_t(O), B) : B;
    }
    for (int R = 0; R < 2; ++R)
      for (int O = 0; O < 2; ++O) {
        double Y = 0;
        for (int C = 0; C < 6; ++C)
          Y += W[2 + size_t(R)][size_t(O * 6 + C)] * Cat[C];
        ASSERT_NEAR(Got[size_t((R * 2 + O) * 9 + P)], Y, 1e-5) << R << " " << O << " " << P;
      }
  }
}

} // namespace

TEST(OnnxConcatSplit, ReadersOfDisjointChannelsGetAConcatEach) {
  std::vector<std::vector<double>> W;
  std::string Text = concatReaders({0, 3, 4}, {1, 2, 5}, W);
  OnnxModel M = import(Text);
  std::map<std::string, Shape> In, Out;
  for (const Layer &L : M.G.Layers)
    In[L.Name] = L.In, Out[L.Name] = L.Out;
  // a and b split by the reader of each channel; each reader reads 3.
  EXPECT_EQ(Out.at("a_part0").C, 1u);
  EXPECT_EQ(Out.at("a_part1").C, 2u);
  EXPECT_EQ(Out.at("ra_part1").C, 2u);
  EXPECT_EQ(Out.at("b_part0").C, 2u);
  EXPECT_EQ(Out.at("b_part1").C, 1u);
  EXPECT_EQ(Out.at("cat_part0").C, 3u);
  EXPECT_EQ(Out.at("cat_part1").C, 3u);
  EXPECT_EQ(In.at("r1").C, 3u);
  EXPECT_EQ(In.at("r2").C, 3u);
  EXPECT_EQ(M.G.macs(), uint64_t(9 * (6 * 4 + 4 * 3))) << "no zero weight left";
  expectConcatReaders(std::move(M), W);
  expectBitExact(Text);
}

// A batchnorm between a conv and the concat (an export that keeps them as
// nodes, as snowc's own --export-onnx does) splits with its conv: each part
// keeps its channels' scale, shift, mean and variance.
TEST(OnnxConcatSplit, ABatchNormSplitsWithItsConv) {
  const BatchNorm Bn = {{0.5, 1.5, 2.0}, {0.1, -0.2, 0.3}, {0.05, -0.1, 0.2}, {1.0, 0.25, 4.0}};
  std::vector<std::vector<double>> W;
  std::string Text = concatReaders({0, 3, 4}, {1, 2, 5}, W, &Bn);
  OnnxModel M = import(Text);
  std::map<std::string, const Layer *> ByName;
  for (const Layer &L : M.G.Layers)
    ByName[L.Name] = &L;
  ASSERT_TRUE(ByName.count("bnb_part0") && ByName.count("bnb_part1"));
  // b's channels 0 and 1 (the concat's 3 and 4) go to r1, its channel 2 to r2.
  EXPECT_EQ(ByName.at("bnb_part0")->Gamma, (std::vector<float>{0.5f, 1.5f}));
  EXPECT_EQ(ByName.at("bnb_part1")->Var, (std::vector<float>{4.0f}));
  EXPECT_EQ(ByName.at("r1")->In.C, 3u);
  EXPECT_EQ(ByName.at("r2")->In.C, 3u);
  expectConcatReaders(std::move(M), W, &Bn);
  expectBitExact(Text);
}

TEST(OnnxConcatSplit, ReadersSharingAChannelKeepTheConcat) {
  std::vector<std::vector<double>> W;
  std::string Text = concatReaders({0, 3, 4}, {0, 1, 2, 5}, W);
  OnnxModel M = import(Text);
  for (const Layer &L : M.G.Layers) {
    EXPECT_EQ(L.Name.find("_part"), std::string::npos) << L.Name;
    if (L.Name == "r1" || L.Name == "r2") {
      EXPECT_EQ(L.In.C, 6u);
    }
  }
  expectConcatReaders(std::move(M), W);
  expectBitExact(Text);
}
