//===- CuSumsTest.cpp - Convs whose CUs split a tile's input channels -----===//
//
// A conv that runs alone may be planned with every CU on one tile, each
// tracing a share of its input channels, and one vwb with sum adding the
// CUs' partial sums into CU 0, which stores them (LayerPlan::Parts,
// cu_sum_writeback; Replan.cpp: planCuSums; docs/compiler.md, step 3). A
// map too small for a tile a CU (SqueezeNet's 13x13, MobileNet's 7x7) then
// keeps every CU busy. These tests check that the planner takes it where it
// pays, and that it runs bit-exact against the reference on random convs
// forced onto it (ForceCuSums), on presets of 3, 4 and 8 CUs, with and
// without ReLU or an activation table.
//
//===----------------------------------------------------------------------===//

#include "LayersHarness.h"
#include "PassHarness.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::test;

namespace {

/// SqueezeNet 1.1's fire6 at 13x13, its expands one after the other.
const std::string Fire13 = header("fire13", 256, 13, 13) + R"(
  - {name: s, type: conv, out_channels: 48, kernel: 1, relu: true}
  - {name: e, type: conv, out_channels: 192, kernel: 3, pad: 1, relu: true}
  - {name: f, type: conv, out_channels: 192, kernel: 1, relu: true}
)";

/// The options with Spec (--layer-off's LAYER=...) added.
compiler::CompileOptions withLayerOff(const char *Spec) {
  compiler::CompileOptions Opts;
  llvm::Error Err = compiler::addLayerOff(Spec, Opts);
  EXPECT_FALSE(bool(Err)) << llvm::toString(std::move(Err));
  return Opts;
}

TEST(Passes, AThreeByThreeOnAThirteenByThirteenMapSumsOverTheCus) {
  // 169 pixels split as tiles leave CUs idle in some rounds, and output
  // groups split over the CUs load the map into each; with e=sum each CU
  // traces 12 of e's 48 input channels over the whole map (two bands of
  // rows), and the writeback adds the four CUs' sums.
  const compiler::CompileOptions Sum = withLayerOff("e=sum");
  EXPECT_TRUE(hasPart(zc706Parts(Fire13, Sum), "e", {"sum4"}));
  EXPECT_FALSE(hasPart(zc706Parts(Fire13), "e", {"sum"})) << "only where asked";
  // e itself runs faster (60,738 -> 59,989 cycles, 2026-12-07); f, which
  // starts on e's rows, waits longer for them (27,653 -> 30,765): the
  // network as a whole is --tune's to weigh, in the timing engine.
  RunResult On, Off;
  cyclesOf(Fire13, "zc706", Sum, &On);
  cyclesOf(Fire13, "zc706", {}, &Off);
  const sim::LayerStats *E1 = layerNamed(On, "e"), *E0 = layerNamed(Off, "e");
  ASSERT_TRUE(E1 && E0);
  EXPECT_LT(E1->Cycles, E0->Cycles);
  for (const char *Hw : {"narrow8", "mini64", "big1024", "zc706_paper"})
    cyclesOf(Fire13, Hw, Sum);
}

TEST(Passes, ASumTweakNamesItsLayerOnly) {
  // "sum" parses, prints back, and changes its layer's plan only.
  const compiler::CompileOptions Sum = withLayerOff("e=sum");
  EXPECT_EQ(compiler::layerOffSpecs(Sum), std::vector<std::string>{"e=sum"});
  const std::vector<compiler::PlanPart> Parts = zc706Parts(Fire13, Sum);
  EXPECT_FALSE(hasPart(Parts, "s", {"sum"}));
  EXPECT_FALSE(hasPart(Parts, "f", {"sum"}));
}

TEST(Layers, RandomConvsSummedOverTheCusAreBitExact) {
  // (RtlRandomSum co-simulates these cases.)
  compiler::CompileOptions Opts;
  Opts.ForceCuSums = true;
  unsigned Summed = 0;
  for (unsigned Seed = 0; Seed < 24; ++Seed) {
    const std::string Yaml = sumCase(Seed);
    SCOPED_TRACE(Yaml);
    Summed += hasPart(zc706Parts(Yaml, Opts), "c", {"sum4"});
    for (const char *Hw : {"zc706", "narrow8", "big1024"})
      cyclesOf(Yaml, Hw, Opts);
  }
  // Every case fits a tile of some rows and chunks of one size.
  EXPECT_EQ(Summed, 24u);
}

} // namespace
