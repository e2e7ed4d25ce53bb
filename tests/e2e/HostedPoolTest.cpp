//===- HostedPoolTest.cpp - Depthwise convs averaging their blocks -----===//
//
// As PassesTest.cpp, for a depthwise conv that averages its output in
// blocks for the squeeze-and-excitation pool after it as it writes its tiles
// back (docs/compiler.md, step 9e; LayerPlan::PoolBlock): what it saves,
// and the two ways it went wrong before it landed.
//
//===----------------------------------------------------------------------===//

#include "PassHarness.h"

using namespace snow;
using namespace snow::test;

namespace {

/// An inverted residual block with squeeze-and-excitation (EfficientNet's,
/// MobileNet v3's) on an In x H x H input: a 1x1 expansion to C channels,
/// a K x K depthwise conv of stride S and its activation Act (named x), the
/// global average (named Pool), 1x1 convs to Squeeze channels and back, the
/// gate, the scale and a projection to Out channels (named p).
std::string seBlock(const std::string &Name, unsigned In, unsigned H, unsigned C, unsigned K,
                    unsigned S, const char *Act, const char *Pool, unsigned Squeeze,
                    const char *Gate, unsigned Out) {
  return header(Name, In, H, H) +
         fmt::format(
             "  - {{name: e, type: conv, out_channels: {0}, kernel: 1, relu: true}}\n"
             "  - {{name: d, type: conv, out_channels: {0}, kernel: {1}, stride: {2}, pad: {3}, "
             "groups: {0}}}\n"
             "  - {{name: x, type: {4}}}\n"
             "  - {{name: {5}, type: global_avgpool}}\n"
             "  - {{name: fc1, type: conv, out_channels: {6}, kernel: 1, relu: true}}\n"
             "  - {{name: fc2, type: conv, out_channels: {0}, kernel: 1}}\n"
             "  - {{name: s, type: {7}}}\n"
             "  - {{name: mul, type: scale, inputs: [x, s]}}\n"
             "  - {{name: p, type: conv, out_channels: {8}, kernel: 1}}\n",
             C, K, S, K / 2, Act, Pool, Squeeze, Gate, Out);
}

TEST(Passes, ADepthwiseConvAveragesBlocksForItsSqueezeExcitation) {
  // EfficientNet-B0's block3 at 56x56: its squeeze-and-excitation averages
  // the depthwise output, 144 x 56 x 56 (903 KB), in 7x7 blocks first
  // (canonicalize). The depthwise conv averages each tile's blocks as it
  // writes the tile back (a vavg a block after the writeback, the 64 means
  // stored with the tile: LayerPlan::PoolBlock), so nothing reads the map
  // back for its mean; apart, the blocks' pool loads all of it.
  const std::string Yaml = seBlock("seblock", 24, 56, 144, 3, 1, "silu", "pool", 6, "sigmoid", 24);
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::HostBlockPools);
  const uint64_t Map = 144 * 56 * 56 * 2;
  EXPECT_LT(R.On.Stats.DramReadBytes + Map * 9 / 10, R.Off.Stats.DramReadBytes);
  EXPECT_EQ(layerNamed(R.On, "pool_blocks")->DramReadBytes, 0u) << "no code of its own";
  EXPECT_GT(countOps(R.On.Prog, isa::Opcode::VAVG), countOps(R.Off.Prog, isa::Opcode::VAVG));
  // 257,572 cycles and 1.63 MB read against 326,314 and 2.55 MB
  // (2026-12-02).
  EXPECT_LT(R.On.Stats.Cycles + 40000, R.Off.Stats.Cycles);
}

TEST(Passes, AGlobalPoolShapedLikeAHostedOneStillRuns) {
  // MobileNet v3's last squeeze-and-excitation averages a 576 x 7 x 7
  // depthwise output, which its conv averages (one block, the whole map:
  // the pool runs no code), and the network's last pool a 576 x 7 x 7 1x1
  // conv output, which runs as a pool. Layers of equal geometry share
  // plans (Compiler.cpp, planKey): the second must not take the first's
  // none (MobileNet v3's output was all zeros).
  const std::string Yaml =
      seBlock("twopools", 96, 7, 576, 5, 1, "hardswish", "se", 144, "hardsigmoid", 96) +
      "  - {name: q, type: conv, out_channels: 576, kernel: 1, relu: true}\n"
      "  - {name: pool, type: global_avgpool}\n";
  RunResult R;
  cyclesOf(Yaml, "zc706", compiler::CompileOptions(), &R);
  EXPECT_EQ(layerNamed(R, "se")->DramReadBytes, 0u) << "se is hosted";
  EXPECT_GT(layerNamed(R, "pool")->Cycles, 0u) << "pool runs";
}

TEST(Passes, AConvWhoseBlocksDoNotFitLeavesThePoolItsOwnPlan) {
  // EfficientNet-B0's block2: its stride-2 depthwise conv's smallest tile
  // of whole 7x7 blocks needs a 15x15 window of a 256-channel group on
  // bench/hw/big4096.yaml (16 vMACs a CU), more than an input region
  // holds: the conv plans without averaging blocks and the blocks' pool as
  // any (Compiler.cpp, planLayerOrUnhosted). On zc706 it hosts them.
  const std::string Yaml = seBlock("block2", 16, 112, 96, 3, 2, "silu", "pool", 4, "sigmoid", 24);
  RunResult Big, Zc;
  // (Appended, not concatenated: GCC 12 warns of a bogus out-of-bounds
  // copy, -Warray-bounds, for the string + literal.)
  std::string Big4096 = SNOW_SOURCE_DIR;
  Big4096 += "/bench/hw/big4096.yaml";
  cyclesOf(Yaml, Big4096, compiler::CompileOptions(), &Big);
  cyclesOf(Yaml, "zc706", compiler::CompileOptions(), &Zc);
  // The depthwise output, 96 x 56 x 56, and on zc706 its 8 x 8 blocks'
  // means with it; big4096's pool loads it back.
  const uint64_t Map = 96 * 56 * 56 * 2, Means = 96 * 8 * 8 * 2;
  EXPECT_EQ(layerNamed(Big, "d")->DramWriteBytes, Map);
  EXPECT_EQ(layerNamed(Zc, "d")->DramWriteBytes, Map + Means);
  EXPECT_GT(layerNamed(Big, "pool_blocks")->DramReadBytes, 0u) << "a pool of its own";
  EXPECT_EQ(layerNamed(Zc, "pool_blocks")->DramReadBytes, 0u);
}

} // namespace
