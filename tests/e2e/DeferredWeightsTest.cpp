//===- DeferredWeightsTest.cpp - Deferred seeded weights change no bit ----===//
//
// snowc loads seeded weights deferred (ir::SeededValues::Deferred): they are
// drawn where calibration's float conv and the weight image use them, scaled
// there by a folded batchnorm, and never held whole. That is only a memory
// and speed optimisation if every program is the one the eager path gives:
// each network in models/ (fc, batchnorm, grouped, depthwise, run-time
// weights, activations) compiled both ways must give byte-identical
// programs, batched too (a batched fc reorders its weights).
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "snow/ir/Calibrate.h"
#include "snow/isa/Program.h"
#include "llvm/Support/FileSystem.h"
#include <cmath>
#include <fstream>
#include <iterator>

using namespace snow;
using namespace snow::test;

namespace {

/// Compiles Yaml for zc706 with seeded weights drawn as Values says; the
/// serialized program.
std::vector<uint8_t> compiled(const std::string &Yaml, ir::SeededValues Values, unsigned Batch) {
  compiler::CompileOptions Opts;
  Opts.Batch = Batch;
  return compiledBytes(Yaml, "zc706", Opts, Values);
}

void expectSameProgram(const std::string &Yaml, unsigned Batch, const std::string &What) {
  std::vector<uint8_t> Eager = compiled(Yaml, ir::SeededValues::Eager, Batch);
  std::vector<uint8_t> Deferred = compiled(Yaml, ir::SeededValues::Deferred, Batch);
  ASSERT_FALSE(Eager.empty()) << What;
  EXPECT_TRUE(Eager == Deferred) << What << " at batch " << Batch;
}

class DeferredWeights : public ::testing::TestWithParam<const char *> {};

TEST_P(DeferredWeights, GiveTheProgramOfDrawnWeights) {
  const std::string Yaml = zooModel(GetParam());
  ASSERT_FALSE(Yaml.empty());
  expectSameProgram(Yaml, 1, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Models, DeferredWeights,
                         ::testing::Values("alexnet", "efficientnet_b0", "googlenet",
                                           "mobilenet_v2", "resnet50", "resnext50_32x4d",
                                           "shufflenet_v2_x1_0", "squeezenet1_1", "tiny"));

TEST(DeferredWeights, PlansMadeBeforeQuantizingGiveTheSameProgram) {
  // snowc plans (compiler::planLayers) beside calibration, on the graph
  // before quantize(): the program must be the one compile() plans itself,
  // for networks with and without activation tables, fusion and splits.
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  // Two convs of one shape, one with a fused activation (a table) and one
  // without: their plans differ, so they must not share one.
  const std::string Twins = R"(name: twins
input: {name: data, shape: [14, 28, 24]}
weights: {seed: 3}
layers:
  - {name: a, type: conv, out_channels: 13, kernel: 1}
  - {name: fa, type: clip, min: -1.430, max: -0.713}
  - {name: b, type: conv, input: data, out_channels: 13, kernel: 1}
  - {name: prod, type: mul, inputs: [fa, b]}
)";
  for (const char *Model :
       {"alexnet", "efficientnet_b0", "mobilenet_v2", "squeezenet1_1", "twins"}) {
    auto G = ir::parseModel(std::string(Model) == "twins" ? Twins : zooModel(Model), "m.yaml",
                            ir::SeededValues::Deferred);
    ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
    ASSERT_FALSE(bool(ir::canonicalize(*G)));
    const compiler::CompileOptions Opts;
    auto Planned = compiler::planLayers(*G, *Hw, Opts);
    ASSERT_TRUE(bool(Planned)) << llvm::toString(Planned.takeError());
    auto F = ir::calibrate(*G, int(Hw->ActFracBits), ir::defaultInput(*G));
    ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
    ASSERT_FALSE(bool(ir::quantize(*G, *F, ir::FloatWeights::Release)));
    auto Early = compiler::compile(*G, *Hw, Opts, nullptr, nullptr, Planned->get());
    auto Late = compiler::compile(*G, *Hw, Opts);
    ASSERT_TRUE(Early && Late) << Model;
    EXPECT_TRUE(isa::serialize(*Early) == isa::serialize(*Late)) << Model;
  }
}

TEST(DeferredWeights, BatchedFcReordersTheDrawnWeights) {
  expectSameProgram(zooModel("alexnet"), 2, "alexnet");
}

TEST(DeferredWeights, TheImagePackedIntoTheFileIsTheImageInMemory) {
  // snowc's path: the weight image is not built by compile() but packed by
  // the filler straight into the mapped prog.bin.
  for (auto [Model, Batch] : {std::pair{"alexnet", 2u}, std::pair{"mobilenet_v2", 1u}}) {
    const std::string Yaml = zooModel(Model);
    const std::vector<uint8_t> Want = compiled(Yaml, ir::SeededValues::Deferred, Batch);
    auto Hw = isa::loadHwConfig("zc706");
    ASSERT_TRUE(bool(Hw));
    std::optional<ir::Graph> G = quantizedGraph(Yaml, *Hw, ir::SeededValues::Deferred);
    ASSERT_TRUE(G.has_value());
    compiler::CompileOptions Opts;
    Opts.Batch = Batch;
    isa::ImageFill Fill;
    auto P = compiler::compile(*G, *Hw, Opts, nullptr, &Fill);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_TRUE(P->Data.empty());
    EXPECT_GT(P->SkippedDataBytes, 0u);
    llvm::SmallString<128> Path;
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("deferred", "bin", Path));
    ASSERT_FALSE(bool(isa::writeProgram(*P, std::string(Path), Fill)));
    std::ifstream In(std::string(Path), std::ios::binary);
    const std::vector<uint8_t> Got((std::istreambuf_iterator<char>(In)),
                                   std::istreambuf_iterator<char>());
    llvm::sys::fs::remove(Path);
    EXPECT_TRUE(Got == Want) << Model;
  }
}

TEST(DeferredWeights, DrawTheFoldedValuesAndTheirMaxima) {
  // Value by value against the eager path after canonicalize() folded the
  // batchnorms, and each layer's largest magnitude (its weight format) as
  // the deferred recipe keeps it without drawing.
  const std::string Yaml = zooModel("resnet50");
  auto Eager = ir::parseModel(Yaml, "r.yaml", ir::SeededValues::Eager);
  auto Deferred = ir::parseModel(Yaml, "r.yaml", ir::SeededValues::Deferred);
  ASSERT_TRUE(Eager && Deferred);
  ASSERT_FALSE(bool(ir::canonicalize(*Eager)));
  ASSERT_FALSE(bool(ir::canonicalize(*Deferred)));
  ASSERT_EQ(Eager->Layers.size(), Deferred->Layers.size());
  unsigned Scaled = 0;
  for (size_t I = 0; I < Eager->Layers.size(); ++I) {
    const ir::Layer &E = Eager->Layers[I], &D = Deferred->Layers[I];
    ASSERT_EQ(E.Seeded.has_value(), false);
    if (E.Kind != ir::LayerKind::Conv)
      continue;
    ASSERT_TRUE(D.Seeded.has_value()) << D.Name;
    ASSERT_TRUE(D.Weights.empty()) << D.Name;
    Scaled += !D.Seeded->Scale.empty();
    ASSERT_TRUE(D.Seeded->drawAll() == E.Weights) << D.Name;
    EXPECT_EQ(D.Bias, E.Bias) << D.Name;
    EXPECT_EQ(ir::weightFrac(D), ir::weightFrac(E)) << D.Name;
    float Max = 0;
    for (float W : E.Weights)
      Max = std::max(Max, std::fabs(W));
    EXPECT_EQ(D.Seeded->maxAbs(), Max) << D.Name;
    // A piece from the middle, drawn alone, as the packers draw.
    const uint64_t At = E.Weights.size() / 3, N = std::min<uint64_t>(100, E.Weights.size() - At);
    std::vector<float> Piece(N);
    D.Seeded->draw(At, N, Piece.data());
    for (uint64_t K = 0; K < N; ++K)
      ASSERT_EQ(Piece[K], E.Weights[At + K]) << D.Name << " value " << At + K;
  }
  EXPECT_GT(Scaled, 50u); // ResNet-50's convs all fold a batchnorm.
}

} // namespace
