//===- BesidePairsTest.cpp - A pool and its 1x1 readers beside a conv ------===//
//
// CompileOptions::BesidePairs (FuseBeside.cpp; docs/compiler.md step 9b,
// "Beside a conv"): a pool planned beside the stem it reads, fused with the
// 1x1 convs that alone read it, the pair kept beside the stem: each group
// of tiles' pool step and 1x1 steps between two of the stem's steps, the
// pool's output on chip, the 1x1 weights loaded with the stem's. The cases
// are ResNet-50's stem (a padded pool read by two 1x1 convs, one of four
// output groups) and GoogLeNet's (a pool in ceil mode, one 1x1 reader), on
// smaller maps.
//
//===----------------------------------------------------------------------===//

#include "LayersHarness.h"
#include "PassHarness.h"
#include "RandomFused.h"
#include <gtest/gtest.h>

using namespace snow;
using namespace snow::test;

namespace {

const std::string ResStem = header("resstem", 3, 112, 112) + R"(
  - {name: c1, type: conv, out_channels: 64, kernel: 7, stride: 2, pad: 3, relu: true}
  - {name: p1, type: maxpool, kernel: 3, stride: 2, pad: 1}
  - {name: down, type: conv, input: p1, out_channels: 256, kernel: 1}
  - {name: a, type: conv, input: p1, out_channels: 64, kernel: 1, relu: true}
  - {name: b, type: conv, out_channels: 256, kernel: 1}
  - {name: sum, type: add, inputs: [b, down], relu: true}
)";

const std::string GoogleStem = header("googlestem", 3, 160, 160) + R"(
  - {name: c1, type: conv, out_channels: 64, kernel: 7, stride: 2, pad: 3, relu: true}
  - {name: p1, type: maxpool, kernel: 3, stride: 2, ceil_mode: true}
  - {name: r, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: c2, type: conv, out_channels: 96, kernel: 3, pad: 1, relu: true}
)";

TEST(BesidePairs, APoolAndItsReadersRunBesideTheStem) {
  const std::vector<compiler::PlanPart> Parts = zc706Parts(ResStem);
  EXPECT_TRUE(hasPart(Parts, "p1", {"fused>", "+beside"}));
  EXPECT_TRUE(hasPart(Parts, "down", {"fused<"}));
  EXPECT_TRUE(hasPart(Parts, "a", {"fused<"}));
  const OnOff R = withAndWithout(ResStem, "zc706", &compiler::CompileOptions::BesidePairs);
  // The pool stores nothing: its output stays on chip for its readers,
  // which load none of it; their weights come with the stem's, which
  // loads its own once all the same.
  const sim::LayerStats *PoolOn = layerNamed(R.On, "p1"), *POff = layerNamed(R.Off, "p1");
  ASSERT_TRUE(PoolOn && POff);
  EXPECT_EQ(PoolOn->DramWriteBytes, 0u);
  EXPECT_GT(POff->DramWriteBytes, 0u);
  EXPECT_LT(R.On.Stats.DramReadBytes + R.On.Stats.DramWriteBytes,
            R.Off.Stats.DramReadBytes + R.Off.Stats.DramWriteBytes);
  EXPECT_LT(countOps(R.On.Prog, isa::Opcode::LD_WGT), countOps(R.Off.Prog, isa::Opcode::LD_WGT))
      << "the readers' blocks load once, not a group of tiles at a time";
  expectFaster(R, "a");
}

TEST(BesidePairs, BitExactOnEveryPreset) {
  for (const std::string *Yaml : {&ResStem, &GoogleStem}) {
    EXPECT_TRUE(hasPart(zc706Parts(*Yaml), "p1", {"fused>", "+beside"})) << *Yaml;
    for (const char *Hw : {"zc706", "zc706_paper", "mini64", "narrow8", "big1024"})
      cyclesOf(*Yaml, Hw, {});
  }
}

TEST(BesidePairs, NotWhereTheStemHasSeveralWeightBlocks) {
  // A stem of two output groups reloads its weights between its rounds:
  // the readers' blocks could not stay in its bank, and the pool stays
  // beside it alone.
  const std::string Wide = header("wide", 3, 112, 112) + R"(
  - {name: c1, type: conv, out_channels: 128, kernel: 7, stride: 2, pad: 3, relu: true}
  - {name: p1, type: maxpool, kernel: 3, stride: 2, pad: 1}
  - {name: a, type: conv, out_channels: 64, kernel: 1, relu: true}
)";
  const std::vector<compiler::PlanPart> Parts = zc706Parts(Wide);
  EXPECT_FALSE(hasPart(Parts, "a", {"fused<"}));
  cyclesOf(Wide, "zc706", {});
}

class RandomBesideStem : public ::testing::TestWithParam<unsigned> {};

/// Random stems, their pools and the 1x1 convs reading them
/// (RandomFused.h: besideStemCase), on five presets in turn.
TEST_P(RandomBesideStem, MatchesReferenceBitForBit) {
  static const char *const Presets[] = {"zc706", "mini64", "narrow8", "big1024", "zc706_paper"};
  check(besideStemCase(GetParam()), false, {Presets[GetParam() % 5]});
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomBesideStem, ::testing::Range(0u, 15u));

TEST(BesidePairs, RandomStemsMostlyTakeThePairBesideThem) {
  // The cases above are worth having if, on zc706, some of them run the
  // pool and its readers as a pair beside the stem (pool +beside and
  // fused>, its readers fused<): 4 of 15 on 2026-12-06. The others take
  // the stem, pool and reader as a block triple or the stem computing the
  // pool's windows, or leave the pool beside the stem alone (a reader of
  // fewer than 64 channels keeps its pixel pairs apart), and check those
  // paths' boundaries with this one's.
  unsigned Beside = 0;
  for (unsigned Seed = 0; Seed < 15; ++Seed) {
    const std::vector<compiler::PlanPart> Parts = zc706Parts(besideStemCase(Seed));
    Beside += hasPart(Parts, "p", {"fused>", "+beside"}) && hasPart(Parts, "q", {"fused<"});
  }
  EXPECT_GE(Beside, 4u) << "of 15";
}

} // namespace
