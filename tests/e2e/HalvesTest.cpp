//===- HalvesTest.cpp - Stride-2 depthwise convs on pixel pairs ----------===//
//
// A depthwise conv of stride 2 reading 32-element pixels traces two output
// pixels an entry from windows its producer writes in halves, a row's even
// columns then its odd ones (LayerPlan::Halves; docs/compiler.md, step 9f,
// "Stride-2 depthwise convs in halves"): in block triples (FuseBlocks.cpp)
// and window pairs (FuseWindows.cpp). Each program is checked against the
// reference bit for bit, on MobileNet v2's and EfficientNet-B0's shapes
// and on FusedLayersTest.cpp's random blocks with halves forced
// (CompileOptions::ForceDwHalves).
//
//===----------------------------------------------------------------------===//

#include "LayersHarness.h"
#include "PassHarness.h"
#include "RandomFused.h"

using namespace snow;
using namespace snow::test;

namespace {

/// MobileNet v2's block2 (16 -> 96 -> 24 at 112x112) and block4 (24 -> 144
/// -> 32 at 56x56), whose stride-2 depthwise convs read the expansion's
/// output groups of 32 channels.
const std::string Block2 = header("blk2", 16, 112, 112) + R"(
  - {name: e, type: conv, out_channels: 96, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 96, kernel: 3, stride: 2, pad: 1, groups: 96, relu: true}
  - {name: p, type: conv, out_channels: 24, kernel: 1}
)";
const std::string Block4 = header("blk4", 24, 56, 56) + R"(
  - {name: e, type: conv, out_channels: 144, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 144, kernel: 3, stride: 2, pad: 1, groups: 144, relu: true}
  - {name: p, type: conv, out_channels: 32, kernel: 1}
)";

TEST(Passes, AStrideTwoBlockTripleReadsItsWindowsInHalves) {
  // On zc706 both blocks run as triples whose depthwise conv traces two
  // pixels an entry, every lane busy (one pixel an entry, half of them
  // idle), from its expansion's windows in halves; faster than without,
  // bit-exact either way, and on the other machines.
  for (const std::string *Yaml : {&Block2, &Block4}) {
    SCOPED_TRACE(Yaml->substr(6, 4));
    const std::vector<compiler::PlanPart> Parts = zc706Parts(*Yaml);
    EXPECT_TRUE(hasPart(Parts, "e", {"copied2", "halves", "block"}));
    EXPECT_TRUE(hasPart(Parts, "d", {"pix2", "halves", "fused<>", "block"}));
    const OnOff R = withAndWithout(*Yaml, "zc706", &compiler::CompileOptions::DwHalves);
    EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
    for (const char *Hw : {"big1024", "mini64", "narrow8", "zc706_paper"})
      cyclesOf(*Yaml, Hw, {});
  }
}

TEST(Passes, AStrideTwoWindowPairReadsItsWindowsInHalves) {
  // EfficientNet-B0's block2 shape, its depthwise output read by more than
  // a 1x1 conv (here a 3x3 conv beside one), so no triple: the expansion
  // computes the depthwise conv's windows in halves as a window pair.
  const std::string Yaml = header("pair2", 16, 112, 112) + R"(
  - {name: e, type: conv, out_channels: 96, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 96, kernel: 3, stride: 2, pad: 1, groups: 96, relu: true}
  - {name: q1, type: conv, out_channels: 24, kernel: 1}
  - {name: q2, type: conv, input: d, out_channels: 8, kernel: 3, pad: 1}
  - {name: cat, type: concat, inputs: [q1, q2]}
)";
  const std::vector<compiler::PlanPart> Parts = zc706Parts(Yaml);
  EXPECT_TRUE(hasPart(Parts, "e", {"copied2", "halves", "fused>"}));
  EXPECT_TRUE(hasPart(Parts, "d", {"pix2", "halves", "fused<"}));
  EXPECT_FALSE(hasPart(Parts, "d", {"fused<>"})) << "a window pair, not a triple";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::DwHalves);
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  for (const char *Hw : {"big1024", "mini64", "narrow8", "zc706_paper"})
    cyclesOf(Yaml, Hw, {});
}

compiler::CompileOptions forcedHalves(bool Triples) {
  compiler::CompileOptions O;
  O.ForceBlockTriples = Triples;
  O.ForceDwHalves = true;
  return O;
}

// The machines whose banks have read ports of their own and room for a
// window's copy (the halves' producer is a copied one): mini64 and
// zc706_paper take none.
const char *const TriplePresets[] = {"zc706", "big1024"};
const char *const PairPresets[] = {"zc706", "big1024", "narrow8"};

class RandomHalvesTriple : public ::testing::TestWithParam<unsigned> {};

/// RandomWideTriple's blocks of stride 2 (its odd seeds: 96, 144 or 64k +
/// 8..32 channels, 3x3 or 5x5, maps of 10 to 60 pixels), forced into
/// triples whose depthwise conv reads its windows in halves wherever one
/// fits, on two presets in turn, against the reference.
TEST_P(RandomHalvesTriple, MatchesReferenceBitForBit) {
  RunResult R;
  const std::string Yaml = wideTripleCase(2 * GetParam() + 1);
  ASSERT_TRUE(runModel(Yaml, TriplePresets[GetParam() % 2], R, forcedHalves(true)));
  EXPECT_TRUE(sameBits(R)) << Yaml;
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomHalvesTriple, ::testing::Range(0u, 24u));

class RandomHalvesPair : public ::testing::TestWithParam<unsigned> {};

/// RandomExpansion's window producers and their depthwise readers, halves
/// forced wherever they fit (those of stride 2 on 32-channel chunks), on
/// three presets in turn, against the reference.
TEST_P(RandomHalvesPair, MatchesReferenceBitForBit) {
  RunResult R;
  const std::string Yaml = expansionCase(GetParam());
  ASSERT_TRUE(runModel(Yaml, PairPresets[GetParam() % 3], R, forcedHalves(false)));
  EXPECT_TRUE(sameBits(R)) << Yaml;
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomHalvesPair, ::testing::Range(0u, 30u));

TEST(Layers, RandomHalvesCasesMostlyTakeHalves) {
  // The cases above are worth having if many of them, forced, do read
  // their windows in halves on the preset they run on (and some take them
  // unforced too: the cost model's choice).
  unsigned Triples = 0, Pairs = 0, Chosen = 0;
  for (unsigned I = 0; I < 24; ++I) {
    const std::string Yaml = wideTripleCase(2 * I + 1);
    Triples += hasPart(planParts(Yaml, TriplePresets[I % 2], forcedHalves(true)), "d",
                       {"halves", "fused<>"});
    compiler::CompileOptions Forced;
    Forced.ForceBlockTriples = true;
    Chosen += hasPart(planParts(Yaml, TriplePresets[I % 2], Forced), "d", {"halves"});
  }
  for (unsigned Seed = 0; Seed < 30; ++Seed)
    Pairs += hasPart(planParts(expansionCase(Seed), PairPresets[Seed % 3], forcedHalves(false)),
                     "d", {"halves", "fused<"});
  EXPECT_GE(Triples, 10u) << "of 24 (13 on 2026-12-07)";
  EXPECT_GE(Pairs, 8u) << "of 30, about half of stride 2 (10)";
  EXPECT_GE(Chosen, 2u) << "of 24 (4)";
}

} // namespace
