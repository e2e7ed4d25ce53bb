//===- FourBankPairsTest.cpp - Fused pairs reading four banks ------------===//
//
// A depthwise conv fused with its 1x1 reader (docs/compiler.md, step 9b)
// whose reader fills the lanes better with four pixels a step than with two
// or one (16, 48, 80, 112 channels on zc706's 64-lane CUs): the depthwise
// conv writes its tile's columns into four banks, the area straddling both
// input regions (LayerPlan::Straddles), and the reader traces four pixel
// groups, each from a bank of its own (Fuse.cpp: bestFusedPair).
//
//===----------------------------------------------------------------------===//

#include "LayersHarness.h"
#include "PassHarness.h"

using namespace snow;
using namespace snow::test;

namespace {

/// A depthwise conv of C channels on a 14x14 map, its 1x1 reader of K
/// channels, and a 1x1 conv of N channels after them.
std::string pairModel(unsigned C, unsigned K, unsigned N) {
  return header(fmt::format("four{}x{}", C, K), C, 14, 14) + fmt::format(R"(
  - {{name: d, type: conv, out_channels: {0}, kernel: 3, pad: 1, groups: {0}, relu: true}}
  - {{name: p, type: conv, out_channels: {1}, kernel: 1}}
  - {{name: e, type: conv, out_channels: {2}, kernel: 1, relu: true}}
)",
                                                                         C, K, N);
}

TEST(Passes, AOneByOneReadsFourPixelsAStepFromItsDepthwisePair) {
  // EfficientNet-B0's 14x14 projections (480 -> 80 channels, blocks 6 to 8:
  // 2,706,577 -> 2,687,516 cycles for the network on zc706, 2026-12-06)
  // and a 16-channel reader: one group of tiles (7x7, a CU each), whose
  // width of 7 columns takes a padding column in the fourth bank.
  // Bit-exact with and without (cyclesOf), on zc706 and on machines that
  // take two banks or none; faster with.
  for (auto [C, K] : {std::pair{480u, 80u}, std::pair{480u, 16u}}) {
    const std::string Yaml = pairModel(C, K, 96);
    SCOPED_TRACE(Yaml.substr(6, 8));
    const std::vector<compiler::PlanPart> Parts = zc706Parts(Yaml);
    EXPECT_TRUE(hasPart(Parts, "d", {"dw", "fused>"}));
    EXPECT_TRUE(hasPart(Parts, "p", {"banked4", "fused<"}));
    const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::FourBankAreas);
    const sim::LayerStats *On = layerNamed(R.On, "p"), *Off = layerNamed(R.Off, "p");
    ASSERT_TRUE(On && Off);
    EXPECT_LT(On->Cycles, Off->Cycles) << "its traces take a quarter of the steps";
    EXPECT_LT(R.On.Stats.Cycles * 100, R.Off.Stats.Cycles * 95);
    for (const char *Hw : {"big1024", "mini64", "zc706_paper"})
      cyclesOf(Yaml, Hw, {});
  }
}

TEST(Passes, AFourBankPairWeighsWhatItCostsAround) {
  // Where four banks would not pay, the pair keeps another way: a reader
  // of 48 channels from 160, whose plain pair pinned weights make cheaper
  // (the four-bank pair ranked ahead of it before pinning, and ran 5 %
  // slower); a pair whose next layer loads a large first tile, which waits
  // until the straddling area's readers are done (a 1x1 conv of 480
  // channels after the 80-channel reader). Each runs as without four-bank
  // areas, bit-exact.
  for (auto [C, K, N] : {std::tuple{160u, 48u, 96u}, std::tuple{480u, 80u, 480u}}) {
    const std::string Yaml = pairModel(C, K, N);
    SCOPED_TRACE(Yaml.substr(6, 8));
    EXPECT_FALSE(hasPart(zc706Parts(Yaml), "p", {"banked4"}));
    const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::FourBankAreas);
    EXPECT_EQ(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  }
}

TEST(Passes, AFourBankPairBeforeAWholeMapWindowPairCostsItNothing) {
  // EfficientNet-B0's block9 and block10 at 14x14: the squeeze-and-
  // excitation scale and the 112-channel projection as a four-bank pair,
  // then the next expansion computing its 5x5 depthwise conv's whole-map
  // window (FuseWindows.cpp). That producer loads its region once the
  // projection is done whatever the pair holds, so the pair's estimate is
  // not charged its first load (2026-12-06: the network 2,687,516 ->
  // 2,684,201 cycles on zc706). Bit-exact with and without, faster with.
  const std::string Yaml = header("fourwm", 80, 14, 14) + seBlockLayers("x", 480, 20, 112) +
                           R"(  - {name: e, type: conv, out_channels: 672, kernel: 1, relu: true}
  - {name: d2, type: conv, out_channels: 672, kernel: 5, pad: 2, groups: 672, relu: true}
  - {name: g, type: global_avgpool}
)";
  const std::vector<compiler::PlanPart> Parts = zc706Parts(Yaml);
  EXPECT_TRUE(hasPart(Parts, "p", {"banked4", "fused<"}));
  EXPECT_TRUE(hasPart(Parts, "e", {"fulldepth", "fused>"}));
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::FourBankAreas);
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
}

} // namespace
