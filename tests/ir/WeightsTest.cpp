//===- WeightsTest.cpp - Seeded and .npy weights --------------------------===//
//
// Pins the seeded initializer of docs/model-format.md value by value (other
// tools and golden files depend on those exact floats), its determinism and
// independence between layers, and loading weights from .npy files next to
// the model, including each way such a file can be wrong.
//
//===----------------------------------------------------------------------===//

#include "IrTestUtil.h"

#include "snow/support/Rng.h"
#include <cmath>
#include <gtest/gtest.h>

using namespace snow::ir;
using namespace snow::test;

namespace {

std::string model(const std::string &Seed, const std::string &Layers) {
  return seededModel("[3, 6, 6]", Seed, Layers);
}

const std::string Two = "  - {name: a, type: conv, out_channels: 4, kernel: 3, pad: 1}\n"
                        "  - {name: b, type: conv, out_channels: 4, kernel: 3, pad: 1}\n";

} // namespace

TEST(Weights, SeededValuesFollowTheDocumentedRecipe) {
  Graph G = parseOk(model("7", Two));
  const Layer &A = G.Layers[0];
  snow::Rng R(7 ^ snow::hashName("a"));
  double Bound = std::sqrt(6.0 / (3 * 3 * 3));
  ASSERT_EQ(A.Weights.size(), 4u * 3 * 3 * 3);
  for (float W : A.Weights)
    ASSERT_EQ(W, float(R.uniform(-Bound, Bound)));
  for (float B : A.Bias)
    ASSERT_EQ(B, float(R.uniform(-0.1, 0.1)));
}

TEST(Weights, LargeLayersDrawOneSequenceInParts) {
  // Seeding splits a large layer's draws over threads, each part skipping
  // ahead (Rng::discard): the values must still be one sequence, weights
  // first and biases after, as in the recipe.
  Graph G = parseOk(seededModel("[128, 6, 6]", "9",
                                "  - {name: big, type: conv, out_channels: 128, kernel: 6}\n"));
  const Layer &L = G.Layers[0];
  snow::Rng R(9 ^ snow::hashName("big"));
  const double Bound = std::sqrt(6.0 / (128 * 6 * 6));
  ASSERT_EQ(L.Weights.size(), 128u * 128 * 6 * 6);
  for (size_t I = 0; I < L.Weights.size(); ++I)
    ASSERT_EQ(L.Weights[I], float(R.uniform(-Bound, Bound))) << "weight " << I;
  for (float B : L.Bias)
    ASSERT_EQ(B, float(R.uniform(-0.1, 0.1)));

  snow::Rng A(3), B(3);
  for (int I = 0; I < 1000; ++I)
    A.next();
  B.discard(1000);
  EXPECT_EQ(A.next(), B.next()) << "discard(N) is N draws";
}

TEST(Weights, SeededValuesStayInRange) {
  Graph G = parseOk(model("3", Two));
  for (const Layer &L : G.Layers) {
    float Bound = float(std::sqrt(6.0 / (L.In.C * L.KH * L.KW)));
    for (float W : L.Weights)
      EXPECT_LE(std::fabs(W), Bound);
    for (float B : L.Bias)
      EXPECT_LE(std::fabs(B), 0.1f);
  }
}

TEST(Weights, SameSeedGivesSameWeights) {
  Graph G1 = parseOk(model("42", Two)), G2 = parseOk(model("42", Two));
  EXPECT_EQ(G1.Layers[1].Weights, G2.Layers[1].Weights);
  EXPECT_EQ(G1.Layers[1].Bias, G2.Layers[1].Bias);
}

TEST(Weights, DifferentSeedGivesDifferentWeights) {
  Graph G1 = parseOk(model("1", Two)), G2 = parseOk(model("2", Two));
  EXPECT_NE(G1.Layers[0].Weights, G2.Layers[0].Weights);
}

TEST(Weights, DifferentLayerNamesGiveDifferentWeights) {
  // Same input, same shape: only the name differs, so equal draws would mean
  // the per-layer seeds collided.
  Graph G = parseOk(model("7", "  - {name: a, type: conv, out_channels: 4, kernel: 3}\n"
                               "  - {name: b, type: conv, input: data, out_channels: 4, "
                               "kernel: 3}\n"));
  ASSERT_EQ(G.Layers[0].Weights.size(), G.Layers[1].Weights.size());
  EXPECT_NE(G.Layers[0].Weights, G.Layers[1].Weights);
  EXPECT_NE(G.Layers[0].Bias, G.Layers[1].Bias);
}

TEST(Weights, AddingALayerDoesNotChangeTheOthers) {
  Graph G1 = parseOk(model("7", Two));
  Graph G2 = parseOk(model("7", "  - {name: z, type: conv, out_channels: 3, kernel: 1}\n" + Two));
  EXPECT_EQ(G1.Layers[0].Weights, G2.Layers[1].Weights);
  EXPECT_EQ(G1.Layers[1].Weights, G2.Layers[2].Weights);
}

TEST(Weights, DefaultSeedIsZero) {
  Graph G1 = parseOk("name: m\ninput: {shape: [3, 6, 6]}\nlayers:\n" + Two);
  Graph G2 = parseOk(model("0", Two));
  EXPECT_EQ(G1.Layers[0].Weights, G2.Layers[0].Weights);
}

TEST(Weights, BiasFalseGivesZeroBiasAndSameWeights) {
  Graph G1 = parseOk(model("7", Two));
  Graph G2 = parseOk(model("7", "  - {name: a, type: conv, out_channels: 4, kernel: 3, pad: 1, "
                                "bias: false}\n"));
  EXPECT_EQ(G2.Layers[0].Bias, std::vector<float>(4, 0.0f));
  EXPECT_EQ(G1.Layers[0].Weights, G2.Layers[0].Weights);
}

namespace {

/// A temporary directory holding a model and its .npy files.
class NpyWeights : public ModelDirTest {
protected:
  NpyWeights() : ModelDirTest("snow-ir-weights") {}

  /// A ramp, I / 64 - 0.25, over Shape.
  void writeF32(const std::string &Name, std::vector<uint64_t> Shape) {
    uint64_t N = 1;
    for (uint64_t D : Shape)
      N *= D;
    std::vector<float> Ramp;
    for (uint64_t I = 0; I < N; ++I)
      Ramp.push_back(float(I) / 64.0f - 0.25f);
    writeArray(Name, std::move(Shape), std::move(Ramp));
  }

  /// Writes m.yaml with one conv layer (2 -> 3 channels, 3x1 kernel) plus
  /// Extra keys, and loads it.
  llvm::Expected<Graph> load(const std::string &Extra) {
    return loadText("name: m\n"
                    "input: {shape: [2, 5, 5]}\n"
                    "layers:\n"
                    "  - {name: c, type: conv, out_channels: 3, kernel: [3, 1]" +
                    Extra + "}\n");
  }

  void expectError(const std::string &Extra, std::initializer_list<std::string> Parts) {
    auto G = load(Extra);
    ASSERT_FALSE(bool(G));
    expectMessageHas(llvm::toString(G.takeError()), Parts);
  }
};

} // namespace

TEST_F(NpyWeights, LoadsWeightsAndBiasRelativeToTheModel) {
  writeF32("w.npy", {3, 2, 3, 1});
  writeF32("b.npy", {3});
  auto G = load(", weights_file: w.npy, bias_file: b.npy");
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  const Layer &L = G->Layers[0];
  ASSERT_EQ(L.Weights.size(), 18u);
  for (size_t I = 0; I < 18; ++I)
    EXPECT_EQ(L.Weights[I], float(I) / 64.0f - 0.25f);
  EXPECT_EQ(L.Bias, (std::vector<float>{-0.25f, -0.25f + 1 / 64.0f, -0.25f + 2 / 64.0f}));
}

TEST_F(NpyWeights, WeightsFileAloneKeepsTheSeededBias) {
  writeF32("w.npy", {3, 2, 3, 1});
  auto Seeded = load("");
  auto FromFile = load(", weights_file: w.npy");
  ASSERT_TRUE(Seeded && FromFile);
  EXPECT_EQ(Seeded->Layers[0].Bias, FromFile->Layers[0].Bias);
  EXPECT_NE(Seeded->Layers[0].Weights, FromFile->Layers[0].Weights);
}

TEST_F(NpyWeights, MissingFile) {
  expectError(", weights_file: nope.npy",
              {"m.yaml:4: layer 'c': 'weights_file' 'nope.npy'", "nope.npy: cannot read"});
}

TEST_F(NpyWeights, WrongShape) {
  writeF32("w.npy", {3, 2, 1, 3});
  expectError(", weights_file: w.npy",
              {"m.yaml:4: layer 'c': 'weights_file' 'w.npy'",
               "shape (3, 2, 1, 3) does not match the expected (3, 2, 3, 1)"});
  writeF32("b.npy", {1, 3});
  expectError(", bias_file: b.npy", {"m.yaml:4: layer 'c': 'bias_file' 'b.npy'",
                                     "shape (1, 3) does not match the expected (3,)"});
}

TEST_F(NpyWeights, Int16IsRejected) {
  snow::NpyArray A;
  A.Type = snow::NpyArray::DType::I16;
  A.Shape = {3};
  A.I16 = {1, 2, 3};
  ASSERT_FALSE(llvm::errorToBool(snow::writeNpy(Dir + "/b.npy", A)));
  expectError(", bias_file: b.npy", {"m.yaml:4: layer 'c'", "must be float32"});
}

TEST_F(NpyWeights, NonFiniteValuesAreRejected) {
  snow::NpyArray A;
  A.Shape = {3};
  A.F32 = {1, NAN, 3};
  ASSERT_FALSE(llvm::errorToBool(snow::writeNpy(Dir + "/b.npy", A)));
  expectError(", bias_file: b.npy", {"m.yaml:4: layer 'c'", "at flat index 1 is not finite"});
}

TEST_F(NpyWeights, BiasFileConflictsWithBiasFalse) {
  writeF32("b.npy", {3});
  expectError(", bias: false, bias_file: b.npy",
              {"m.yaml:4: layer 'c': 'bias_file' is given but 'bias' is false"});
}
