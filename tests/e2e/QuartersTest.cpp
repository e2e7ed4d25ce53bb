//===- QuartersTest.cpp - Stride-1 depthwise convs on pixel pairs, four banks --===//
//
// A block triple whose projection reads four pixels a step from four banks
// takes its stride-1 depthwise conv's output one pixel an entry, unless
// the conv traces pixels x and x + 4 an entry from windows its copied
// producer writes in quarters, a row's columns by x mod 4
// (LayerPlan::Quarters; docs/compiler.md, step 9f, "Stride-1 depthwise
// convs in quarters"). Each program is checked against the reference bit
// for bit: MobileNet v2's stem and block1, and random triples with
// quarters forced (CompileOptions::ForceDwQuarters).
//
//===----------------------------------------------------------------------===//

#include "LayersHarness.h"
#include "PassHarness.h"
#include "RandomFused.h"

using namespace snow;
using namespace snow::test;

namespace {

TEST(Passes, AStemBlockReadsItsWindowsInQuarters) {
  // MobileNet v2's stem and block1 (stemBlock1): on zc706 a triple whose
  // projection reads four banks and whose depthwise conv traces two pixels
  // an entry (one an entry, half its lanes idle, without quarters); faster
  // than without, bit-exact either way, and on the other machines.
  const std::string Yaml = stemBlock1("stem1");
  const std::vector<compiler::PlanPart> Parts = zc706Parts(Yaml);
  EXPECT_TRUE(hasPart(Parts, "c", {"copied2", "quarters", "block"}));
  EXPECT_TRUE(hasPart(Parts, "d", {"banked2", "quarters", "fused<>", "block"}));
  EXPECT_TRUE(hasPart(Parts, "p", {"banked4", "block"}));
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::DwQuarters);
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  for (const char *Hw : {"big1024", "mini64", "narrow8", "zc706_paper"})
    cyclesOf(Yaml, Hw, {});
}

compiler::CompileOptions forcedQuarters() {
  compiler::CompileOptions O;
  O.ForceBlockTriples = true;
  O.ForceDwQuarters = true;
  return O;
}

// The machines with four-bank areas and room for a window's copy.
const char *const Presets[] = {"zc706", "big1024"};

class RandomQuartersTriple : public ::testing::TestWithParam<unsigned> {};

/// quartersCase's blocks forced into triples whose depthwise conv reads
/// its windows in quarters wherever one fits, on two presets in turn,
/// against the reference.
TEST_P(RandomQuartersTriple, MatchesReferenceBitForBit) {
  RunResult R;
  const std::string Yaml = quartersCase(GetParam());
  ASSERT_TRUE(runModel(Yaml, Presets[GetParam() % 2], R, forcedQuarters()));
  EXPECT_TRUE(sameBits(R)) << Yaml;
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomQuartersTriple, ::testing::Range(0u, 24u));

TEST(Layers, RandomQuartersCasesMostlyTakeQuarters) {
  // The cases above are worth having if many of them, forced, do read
  // their windows in quarters on the preset they run on (and some take
  // them unforced too: the cost model's choice).
  unsigned Taken = 0, Chosen = 0;
  for (unsigned I = 0; I < 24; ++I) {
    Taken += hasPart(planParts(quartersCase(I), Presets[I % 2], forcedQuarters()), "d",
                     {"quarters", "fused<>"});
    compiler::CompileOptions Triples;
    Triples.ForceBlockTriples = true;
    Chosen += hasPart(planParts(quartersCase(I), Presets[I % 2], Triples), "d", {"quarters"});
  }
  EXPECT_GE(Taken, 15u) << "of 24 (19 on 2026-12-07)";
  EXPECT_GE(Chosen, 2u) << "of 24 (3)";
}

} // namespace
