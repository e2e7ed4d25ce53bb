//===- BitExactTest.cpp - snowc + snowsim against snowref, bit for bit ----===//
//
// Randomized single layers and chains, generated as YAML text (so the front
// end is exercised too), compiled for several hardware shapes and compared
// with the reference executor bit for bit. Shapes cover kernels 1-11, strides
// 1-4, padding 0-5 per side, 1-300 channels and maps up to 64x64, non-square;
// a MAC budget per case keeps the CI tier fast. Every case is its own test,
// named by index, and prints its YAML on failure so it can be replayed.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "RandomModels.h"
#include "RandomShuffle.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::test;

namespace {

const char *const HwPresets[] = {"zc706", "mini64", "narrow8"};

void check(const std::string &Yaml, const std::string &Hw, bool RequireInformative) {
  SCOPED_TRACE("hardware " + Hw + ", model:\n" + Yaml);
  RunResult R;
  if (!runAndCompare(Yaml, Hw, RequireInformative, R))
    return;
  EXPECT_GT(R.Stats.Cycles, 0u);
  if (getenv("SNOW_TEST_VERBOSE"))
    fprintf(stderr, "%s macs %llu cycles %llu util %.3f outputs %zu\n", Hw.c_str(),
            (unsigned long long)R.Macs, (unsigned long long)R.Stats.Cycles,
            double(R.Macs) / (R.Stats.Cycles * R.Prog.Hw.macs()), R.Ref.size());
}

class RandomConv : public ::testing::TestWithParam<unsigned> {};
class RandomPool : public ::testing::TestWithParam<unsigned> {};
class RandomChain : public ::testing::TestWithParam<unsigned> {};
class RandomActivation : public ::testing::TestWithParam<unsigned> {};
class RandomSqueezeExcite : public ::testing::TestWithParam<unsigned> {};
class RandomProduct : public ::testing::TestWithParam<unsigned> {};
class RandomLayerNorm : public ::testing::TestWithParam<unsigned> {};
class RandomShuffle : public ::testing::TestWithParam<unsigned> {};

TEST_P(RandomConv, MatchesReferenceBitForBit) {
  check(convCase(GetParam()), HwPresets[GetParam() % 3], true);
}
TEST_P(RandomPool, MatchesReferenceBitForBit) {
  check(poolCase(GetParam()), HwPresets[GetParam() % 3], false);
}
TEST_P(RandomChain, MatchesReferenceBitForBit) {
  check(chainCase(GetParam()), HwPresets[GetParam() % 3], true);
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomConv, ::testing::Range(0u, 90u));
INSTANTIATE_TEST_SUITE_P(Cases, RandomPool, ::testing::Range(0u, 24u));
INSTANTIATE_TEST_SUITE_P(Cases, RandomChain, ::testing::Range(0u, 12u));

// Every case runs vlut and vwb's lut; the functions and formats are random.
TEST_P(RandomActivation, MatchesReferenceBitForBit) {
  check(activationCase(GetParam()), HwPresets[GetParam() % 3], true);
}
INSTANTIATE_TEST_SUITE_P(Cases, RandomActivation, ::testing::Range(0u, 24u));

// Run-time weights: x * s with s computed by the program itself.
TEST_P(RandomSqueezeExcite, MatchesReferenceBitForBit) {
  check(seCase(GetParam()), HwPresets[GetParam() % 3], true);
}
INSTANTIATE_TEST_SUITE_P(Cases, RandomSqueezeExcite, ::testing::Range(0u, 18u));

// Products of two maps (vmul), of convs, a square and the graph input.
TEST_P(RandomProduct, MatchesReferenceBitForBit) {
  check(productCase(GetParam()), HwPresets[GetParam() % 3], true);
}
INSTANTIATE_TEST_SUITE_P(Cases, RandomProduct, ::testing::Range(0u, 18u));

// ConvNeXt blocks and heads: layernorm's expansion (mul, the rsqrt table in
// its normalised mode) between a depthwise conv and GELU pointwise convs.
TEST_P(RandomLayerNorm, MatchesReferenceBitForBit) {
  check(layerNormCase(GetParam()), HwPresets[GetParam() % 3], true);
}
INSTANTIATE_TEST_SUITE_P(Cases, RandomLayerNorm, ::testing::Range(0u, 12u));

// ShuffleNet v2 units: the shuffles and halves folded into the convs that
// read them, concats split by reader (docs/model-format.md, step 4b).
TEST_P(RandomShuffle, MatchesReferenceBitForBit) {
  check(shuffleCase(GetParam()), HwPresets[GetParam() % 3], true);
}
INSTANTIATE_TEST_SUITE_P(Cases, RandomShuffle, ::testing::Range(0u, 18u));

// The cases above exercise what they are for: in most, a unit's half passed
// on is the parts of the concat before it (a concat of three inputs or
// more, PassThrough.cpp), not a selection.
TEST(RandomShuffles, MostPassTheirHalvesOnUncopied) {
  unsigned Passed = 0;
  for (unsigned Seed = 0; Seed < 18; ++Seed) {
    auto G = ir::parseModel(shuffleCase(Seed), "test.yaml");
    ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
    ASSERT_FALSE(bool(ir::canonicalize(*G)));
    Passed += llvm::any_of(G->Layers, [](const ir::Layer &L) {
      return L.Kind == ir::LayerKind::Concat && L.Inputs.size() >= 3;
    });
  }
  EXPECT_GE(Passed, 6u);
}

TEST(BitExact, TinyDemoModelOnEveryPreset) {
  std::string Yaml = R"(name: tiny
input: {name: data, shape: [3, 32, 32]}
weights: {seed: 7}
layers:
  - {name: c1, type: conv, input: data, out_channels: 16, kernel: 3, stride: 1, pad: 1, relu: true}
  - {name: p1, type: maxpool, kernel: 2, stride: 2}
  - {name: c2, type: conv, out_channels: 40, kernel: [5, 3], stride: [2, 1], pad: [2, 1]}
)";
  for (const char *Hw : {"zc706", "mini64", "narrow8", "big1024"})
    check(Yaml, Hw, true);
}

TEST(BitExact, OptionsDoNotChangeValues) {
  std::string Yaml = chainCase(99);
  for (bool Db : {false, true})
    for (bool Reorder : {false, true}) {
      compiler::CompileOptions O;
      O.DoubleBuffer = Db;
      O.LoopReorder = Reorder;
      RunResult R;
      ASSERT_TRUE(runModel(Yaml, "zc706", R, O));
      EXPECT_TRUE(sameBits(R)) << "double buffer " << Db << ", loop reorder " << Reorder;
    }
}

} // namespace
