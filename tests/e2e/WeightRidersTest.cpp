//===- WeightRidersTest.cpp - A depthwise conv's weights ride along --------===//
//
// CompileOptions::WeightRiders (Sequence.cpp, Step::Riders; docs/compiler.md
// step 8): a plain depthwise conv's weight blocks load with the last weights
// of the conv before it, in that conv's bank, so the conv after the
// depthwise conv loads into the other bank while both run. The case is
// ShuffleNet v2's stage-4 branch (ShuffleBranch7, PassHarness.h): 1x1, 3x3
// depthwise, 1x1, 232 channels on 7x7, two 108 KB weight sets around 4 KB.
//
//===----------------------------------------------------------------------===//

#include "LayersHarness.h"
#include "PassHarness.h"
#include <gtest/gtest.h>

using namespace snow;
using namespace snow::test;

namespace {

TEST(WeightRiders, TheConvAfterADepthwiseConvLoadsUnderTheConvBefore) {
  // (The three layers apart: by default the branch runs as a split triple,
  // FuseSplitTriple.cpp, which loads its weights its own way.)
  compiler::CompileOptions Apart;
  Apart.SplitTriples = false;
  const OnOff R =
      withAndWithout(ShuffleBranch7, "zc706", &compiler::CompileOptions::WeightRiders, Apart);
  // The depthwise conv's steps load no weights of their own: fewer waits
  // for a free weights bank (WFree, semaphores 6 and 7, Lower.h).
  EXPECT_LT(loadWaits(R.On.Prog, {6, 7}), loadWaits(R.Off.Prog, {6, 7}));
  EXPECT_EQ(countOps(R.On.Prog, isa::Opcode::LD_WGT), countOps(R.Off.Prog, isa::Opcode::LD_WGT))
      << "the same blocks, loaded by other steps";
  expectFaster(R, "p");
  for (const char *Hw : {"big1024", "mini64", "narrow8", "zc706_paper"})
    cyclesOf(ShuffleBranch7, Hw, Apart);
}

TEST(WeightRiders, NotForADepthwiseConvOfAFusedPair) {
  // On 14x14 the depthwise conv and the 1x1 conv after it run as a fused
  // pair (step 9b), whose steps load their weights as the pair's: no
  // riders, and the program is the one without them.
  const std::string Pair = header("pair", 48, 14, 14) + R"(
  - {name: a, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: d, type: conv, out_channels: 64, kernel: 3, pad: 1, groups: 64}
  - {name: b, type: conv, out_channels: 64, kernel: 1}
)";
  EXPECT_TRUE(hasPart(zc706Parts(Pair), "d", {"fused>"}));
  const OnOff R = withAndWithout(Pair, "zc706", &compiler::CompileOptions::WeightRiders);
  EXPECT_EQ(R.On.Prog.Code, R.Off.Prog.Code);
}

} // namespace
