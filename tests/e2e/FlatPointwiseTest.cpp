//===- FlatPointwiseTest.cpp - 1x1 convs planned on a map as one row ------===//
//
// A 1x1 conv that runs alone may be planned on its map as one row of pixels
// (Replan.cpp: planFlatPointwise; docs/compiler.md, step 3), its tiles runs
// of pixels: DRAM holds a map's pixels in order whatever the channel slice,
// so a small map's pixels split evenly over the CUs. These tests check that
// the planner takes it where it pays, that it runs bit-exact on every
// preset, and that the layers around it still start on the rows (and
// channels) it stores.
//
//===----------------------------------------------------------------------===//

#include "LayersHarness.h"
#include "PassHarness.h"
#include <fstream>
#include <sstream>

using namespace snow;
using namespace snow::test;

namespace {

/// GoogLeNet's i5a reduce in small: 448 output channels (seven groups) on
/// a 7x7 map, then a 3x3 conv and another 1x1 conv that read them.
const std::string SevenBySeven = header("flat7", 256, 7, 7) + R"(
  - {name: a, type: conv, out_channels: 448, kernel: 1, relu: true}
  - {name: b, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: c, type: conv, out_channels: 320, kernel: 1, relu: true}
)";

/// GoogLeNet's i4c reduce in small: 280 output channels on a 14x14 map,
/// read two pixels a step from a banked region (nine groups of 32).
const std::string FourteenByFourteen = header("flat14", 192, 14, 14) + R"(
  - {name: a, type: conv, out_channels: 280, kernel: 1, relu: true}
  - {name: b, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
)";

TEST(Passes, AOneByOneOnASmallMapSplitsItsPixelsEvenly) {
  // Tiles of rows split 49 pixels as 14, 14, 14 and 7 (2x7 tiles): three
  // CUs set the pace of every round and one idles half of it. As one row,
  // runs of 13, 13, 13 and 10: a 28,646 -> 26,914 cycles on zc706
  // (2026-12-06).
  const std::vector<compiler::PlanPart> Parts = zc706Parts(SevenBySeven);
  EXPECT_TRUE(hasPart(Parts, "a", {"flat"}));
  EXPECT_FALSE(hasPart(Parts, "b", {"flat"})) << "3x3: rows";
  for (const compiler::PlanPart &P : Parts)
    if (P.Name == "a") {
      EXPECT_EQ(P.TileRows, 1u);
    }
  const OnOff R = withAndWithout(SevenBySeven, "zc706", &compiler::CompileOptions::FlatPointwise);
  expectFaster(R, "a");
  for (const char *Hw : {"narrow8", "mini64", "big1024", "zc706_paper"})
    cyclesOf(SevenBySeven, Hw, {});
}

TEST(Passes, AFlatBankedOneByOneSignalsTheRowsItStores) {
  // Nine groups of 32 channels over four runs of 49 pixels, two pixels a
  // step (the last pixel of each run paired with a padding column): 55,142
  // -> 52,600 cycles for a (2026-12-06), against five groups of 64 on 7x7
  // tiles; b 127,475 -> 126,897. b's first chunk loads once a's first
  // group is stored (RowsDone signals of a's steps, the rows a run of
  // pixels covers).
  const std::vector<compiler::PlanPart> Parts = zc706Parts(FourteenByFourteen);
  EXPECT_TRUE(hasPart(Parts, "a", {"flat", "banked2"}));
  const OnOff R =
      withAndWithout(FourteenByFourteen, "zc706", &compiler::CompileOptions::FlatPointwise);
  expectFaster(R, "a");
  EXPECT_GT(loadWaits(R.On.Prog, {15}), 0u) << "b waits for a's rows";
  for (const char *Hw : {"narrow8", "mini64", "big1024", "zc706_paper"})
    cyclesOf(FourteenByFourteen, Hw, {});
}

TEST(Passes, FlatPointwiseIsALayerSwitch) {
  // --layer-off a=flat-pointwise plans a on rows, and only a; so does a
  // rank.
  compiler::CompileOptions Opts;
  llvm::Error Err = compiler::addLayerOff("a=flat-pointwise", Opts);
  ASSERT_FALSE(bool(Err)) << llvm::toString(std::move(Err));
  const std::vector<compiler::PlanPart> Parts = zc706Parts(SevenBySeven, Opts);
  EXPECT_FALSE(hasPart(Parts, "a", {"flat"}));
  EXPECT_TRUE(hasPart(Parts, "b")); // (compiled)
  // A rank (a --tune step) picks among the plans on rows: the N+1-th of
  // one list, not of the flat plans' and the rows' in turn.
  compiler::CompileOptions Ranked;
  llvm::Error RankErr = compiler::addLayerOff("a=rank1", Ranked);
  ASSERT_FALSE(bool(RankErr)) << llvm::toString(std::move(RankErr));
  EXPECT_FALSE(hasPart(zc706Parts(SevenBySeven, Ranked), "a", {"flat"}));
}

TEST(Passes, AFlatBankedReaderWaitsForThePixelAfterItsRun) {
  // MobileNet v2 with the switches a --tune candidate had (2026-12-06):
  // block11's projection runs alone, flat, on four runs of 49 pixels read
  // two a step, and starts on the rows block11's depthwise conv stores. A
  // banked region's padding column is the pixel after its run, the next
  // run's first, which may lie in the next row of the map: the load must
  // wait for that row too (the timing engine faulted on the DRAM it read
  // while a store still wrote it).
  std::ifstream In(std::string(SNOW_SOURCE_DIR) + "/models/mobilenet_v2.yaml");
  std::stringstream Text;
  Text << In.rdbuf();
  compiler::CompileOptions Opts;
  for (const char *Spec : {"block11_dw=full-depth-pairs", "block11_project=rank10",
                           "block7_expand=fuse-blocks,rank2"}) {
    llvm::Error Err = compiler::addLayerOff(Spec, Opts);
    ASSERT_FALSE(bool(Err)) << llvm::toString(std::move(Err));
  }
  RunResult R;
  ASSERT_TRUE(runModel(Text.str(), "zc706", R, Opts, /*TimingOnly=*/true, /*UniformFormat=*/true));
  EXPECT_GT(R.Stats.Cycles, 0u);
}

} // namespace
