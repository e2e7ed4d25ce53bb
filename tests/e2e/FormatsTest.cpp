//===- FormatsTest.cpp - Calibrated and uniform formats, bit for bit ------===//
//
// The harness calibrates by default, so every other e2e test already runs
// per-layer formats; this one makes sure that is really so (a model whose
// layers end up in several formats, through concat, pooling, a fused
// residual, an unfused add and a standalone relu, which must all share
// formats where they cannot rescale) and keeps the uniform path, which
// --uniform-format still offers, bit-exact too.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "snow/ref/ErrorStats.h"
#include <map>
#include <set>

using namespace snow;
using namespace snow::test;

namespace {

const char *const Model = R"(name: formats
input: {name: data, shape: [8, 16, 16]}
weights: {seed: 5}
layers:
  - {name: a, type: conv, out_channels: 16, kernel: 3, pad: 1, relu: true}
  - {name: b, type: conv, input: data, out_channels: 16, kernel: 1}
  - {name: cat, type: concat, inputs: [a, b]}
  - {name: pool, type: maxpool, kernel: 2, stride: 2}
  - {name: c, type: conv, out_channels: 32, kernel: 3, pad: 1}
  - {name: sum, type: add, inputs: [c, pool], relu: true}
  - {name: d, type: conv, out_channels: 32, kernel: 1}
  - {name: r, type: relu}
  - {name: avg, type: avgpool, kernel: 2, stride: 2}
  - {name: mp, type: maxpool, input: sum, kernel: 2, stride: 2}
  - {name: both, type: add, inputs: [avg, mp]}
  - {name: head, type: conv, out_channels: 10, kernel: 1}
)";

TEST(Formats, CalibratedFormatsDifferPerLayerAndMatchBitForBit) {
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    RunResult R;
    ASSERT_TRUE(runModel(Model, Hw, R));
    EXPECT_TRUE(sameBits(R));
    EXPECT_TRUE(informative(R.Ref));
    const std::set<int> Distinct(R.OutFrac.begin(), R.OutFrac.end());
    EXPECT_GE(Distinct.size(), 2u) << "calibration should give this model more than one format";
  }
}

TEST(Formats, UniformFormatStillMatchesBitForBit) {
  RunResult R;
  ASSERT_TRUE(runModel(Model, "zc706", R, {}, /*TimingOnly=*/false, /*UniformFormat=*/true));
  EXPECT_TRUE(sameBits(R));
  EXPECT_EQ(std::set<int>(R.OutFrac.begin(), R.OutFrac.end()), std::set<int>{8});
}

/// Where formats do not fit the data, snowsim's per-layer count of values
/// stored at the rails (the saturation warning and --stats-json) is snowref's
/// count of each layer's saturated outputs, layer for layer.
TEST(Formats, SaturationCountsMatchTheReferencePerLayer) {
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  auto G = ir::parseModel(Model, "formats.yaml");
  ASSERT_TRUE(bool(G));
  ASSERT_FALSE(bool(ir::canonicalize(*G)));
  auto F = ir::calibrate(*G, int(Hw->ActFracBits), ir::defaultInput(*G));
  ASSERT_TRUE(bool(F));
  ASSERT_FALSE(bool(ir::quantize(*G, *F)));
  // Values are counted where they are stored: d, fused with the average
  // pool that reads it (compiler.md, step 9c), would store nothing and
  // have no count (docs/stats-json.md).
  compiler::CompileOptions Opts;
  Opts.FuseConvPools = false;
  auto P = compiler::compile(*G, *Hw, Opts);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  // The default input (|x| <= 1) times 20: far outside what was calibrated.
  std::vector<int16_t> In;
  for (float V : defaultInputValues(G->Input.elems(), G->Name))
    In.push_back(floatToFixed(20 * V, G->InputFrac));
  auto S = sim::Simulator::create(*P);
  ASSERT_TRUE(bool(S));
  ASSERT_FALSE(bool((*S)->setInput(In)));
  auto Stats = (*S)->run();
  ASSERT_TRUE(bool(Stats)) << llvm::toString(Stats.takeError());
  ASSERT_TRUE(Stats->RailsCounted);
  std::vector<std::vector<int16_t>> RefLayers;
  const std::vector<int16_t> Ref = ref::runFixed(*G, In, Hw->AccBits, &RefLayers);
  EXPECT_EQ((*S)->output(), Ref);
  std::map<std::string, uint64_t> RefCount;
  for (size_t I = 0; I < G->Layers.size(); ++I)
    RefCount[G->Layers[I].Name] = ref::countSaturated(RefLayers[I]);
  // A concat stores nothing of its own (its inputs are written into its
  // slices): snowsim counts its values at their producers, snowref again at
  // the concat.
  for (const ir::Layer &L : G->Layers)
    if (L.Kind == ir::LayerKind::Concat) {
      uint64_t Inputs = 0;
      for (int P : L.Inputs)
        if (P >= 0) // the graph input is not a layer and saturates nothing
          Inputs += RefCount[G->Layers[size_t(P)].Name];
      EXPECT_EQ(RefCount[L.Name], Inputs) << L.Name;
      RefCount[L.Name] = 0;
    }
  size_t Saturating = 0;
  for (const sim::LayerStats &L : Stats->Layers) {
    SCOPED_TRACE(L.Name);
    ASSERT_TRUE(RefCount.count(L.Name));
    EXPECT_EQ(L.RailValues, RefCount[L.Name]);
    Saturating += L.RailValues > 0;
  }
  EXPECT_GE(Saturating, 2u) << "the case must saturate in several layers to prove anything";
}

} // namespace
