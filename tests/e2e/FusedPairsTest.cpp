//===- FusedPairsTest.cpp - Depthwise convs and pools fused on chip -----===//
//
// As OverlapTest.cpp, for the pairs of layers whose map between them never
// leaves the chip: a depthwise conv (or pool) with the 1x1 convs that read
// it (docs/compiler.md, step 9b), and what those pairs do within: weights
// pinned for all tiles, depthwise pixel pairs, rounds of own groups, even
// row blocks, ties on the estimate, chunks bank by bank, the next group's
// loads spread, banked 1x1 readers. A conv computing its reader's windows
// (window pairs, block triples) is WindowPairsTest.cpp's.
//
//===----------------------------------------------------------------------===//

#include "LayersHarness.h"
#include "PassHarness.h"
#include <filesystem>
#include <fstream>

using namespace snow;
using namespace snow::test;

namespace {

TEST(Passes, DepthwiseFusesIntoThePointwiseConvItFeeds) {
  for (const char *Hw : {"zc706", "mini64", "narrow8"}) {
    SCOPED_TRACE(Hw);
    OnOff R = withAndWithout(Pairs, Hw, &compiler::CompileOptions::FuseDepthwise);
    unsigned Fused = 0;
    for (const char *D : {"d1", "d2", "d3", "d4"}) {
      const sim::LayerStats *On = layerNamed(R.On, D), *Off = layerNamed(R.Off, D);
      ASSERT_TRUE(On && Off);
      EXPECT_GT(Off->DramWriteBytes, 0u) << D;
      Fused += On->DramWriteBytes == 0;
    }
    // Where the cost model finds the pair cheaper fused: mini64's writeback
    // takes two cycles an entry, so d2's 40 and d4's 24 channels (fewer
    // than an entry) cannot fuse there (Fuse.cpp), and its one CU would
    // reload the 1x1 weights for every tile: it may fuse none.
    if (std::string(Hw) != "mini64") {
      EXPECT_GE(Fused, 2u) << "fused depthwise convs store nothing";
    }
    if (!Fused)
      continue;
    EXPECT_LT(R.On.Stats.DramReadBytes + R.On.Stats.DramWriteBytes,
              R.Off.Stats.DramReadBytes + R.Off.Stats.DramWriteBytes);
    EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  }
}

TEST(Passes, APairKeepsItsWeightsForAllItsTiles) {
  // MobileNet v1's conv4 and conv5 pairs at 40x40: a depthwise conv and its
  // 1x1 reader over several groups of tiles. Pinned (LayerPlan::PinWeights),
  // both layers' weights load once for the pair, where apart the reader's
  // output groups load again for every group of tiles (the producer's
  // steps between take the other bank). p2's 4 x 128 kernel words fill a
  // 512-word bank: its bias words and activation tables (ReLU6) lie with
  // d2's blocks in the other.
  const std::string Yaml = header("pin", 64, 40, 40) + R"(
  - {name: d1, type: conv, out_channels: 64, kernel: 3, pad: 1, groups: 64, relu: true}
  - {name: p1, type: conv, out_channels: 128, kernel: 1, relu: true}
  - {name: d2, type: conv, out_channels: 128, kernel: 3, stride: 2, pad: 1, groups: 128, relu: true}
  - {name: p2, type: conv, out_channels: 256, kernel: 1}
  - {name: p2_r, type: relu6}
)";
  // (Mixed windows would have p1 compute d2's windows instead: zc706.)
  compiler::CompileOptions Unmixed;
  Unmixed.MixedWindows = false;
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    OnOff R = withAndWithout(Yaml, Hw, &compiler::CompileOptions::PinPairWeights, Unmixed);
    EXPECT_LT(countOps(R.On.Prog, isa::Opcode::LD_WGT), countOps(R.Off.Prog, isa::Opcode::LD_WGT));
    EXPECT_LT(R.On.Stats.DramReadBytes, R.Off.Stats.DramReadBytes);
    // (Cycles: 0.4 % slower here on zc706, where the next group's maps load
    // over the 1x1 steps anyway and the pinned pair's first 1x1 step waits
    // for every output group's weights; MobileNet v1 20.6 k cycles faster.)
  }
}

/// Each named model on each preset with Pass on and off (withAndWithout:
/// both runs bit-exact), never slower with it on; Check gets the name, the
/// preset and layer "d"'s stats on and off.
template <typename Fn>
void layerDOnAndOff(const std::vector<std::pair<std::string, std::string>> &Models,
                    std::initializer_list<const char *> Hws, bool compiler::CompileOptions::*Pass,
                    Fn Check) {
  for (const auto &[Name, Yaml] : Models)
    for (const char *Hw : Hws) {
      SCOPED_TRACE(Name + " on " + Hw);
      OnOff R = withAndWithout(Yaml, Hw, Pass);
      const sim::LayerStats *On = layerNamed(R.On, "d"), *Off = layerNamed(R.Off, "d");
      ASSERT_TRUE(On && Off);
      EXPECT_LE(R.On.Stats.Cycles, R.Off.Stats.Cycles);
      Check(Name, std::string(Hw), *On, *Off);
    }
}

TEST(Passes, HalfGroupDepthwiseConvsTraceTwoPixels) {
  // A depthwise conv of 32 channels on 64-lane CUs (MobileNet v1's conv2_dw,
  // EfficientNet's first): vdw's vMACs past the first two read the next
  // pixel's channels, so an entry traces two pixels (dwPixelPairs): alone,
  // as a fused pair's producer (its entry two pixels of the area) and as
  // the reader of its stem's windows (p a 3x3 conv: with a 1x1 projection
  // the three run as a block triple, the depthwise conv one pixel an entry
  // there). Maps of odd widths end rows on an entry's first pixel.
  const std::vector<std::pair<std::string, std::string>> Models = {
      {"alone", header("dw32", 32, 30, 27) + R"(
  - {name: d, type: conv, out_channels: 32, kernel: 3, pad: 1, groups: 32, relu: true}
  - {name: p, type: conv, out_channels: 24, kernel: 3, stride: 2}
)"},
      {"producer", header("dw32p", 32, 56, 55) + R"(
  - {name: d, type: conv, out_channels: 32, kernel: 3, pad: 1, groups: 32, relu: true}
  - {name: p, type: conv, out_channels: 128, kernel: 1, relu: true}
)"},
      {"window reader", header("dw32w", 3, 97, 95) + R"(
  - {name: c1, type: conv, out_channels: 32, kernel: 3, stride: 2, pad: 1, relu: true}
  - {name: d, type: conv, out_channels: 32, kernel: 3, pad: 1, groups: 32, relu: true}
  - {name: p, type: conv, out_channels: 64, kernel: 3, stride: 2, relu: true}
)"}};
  layerDOnAndOff(Models, {"zc706", "mini64"}, &compiler::CompileOptions::DwPixelPairs,
                 [](const std::string &, const std::string &, const sim::LayerStats &On,
                    const sim::LayerStats &Off) {
                   // About half the trace cycles (a trace has a start cycle of its own).
                   EXPECT_LT(On.MacCycles * 10, Off.MacCycles * 6);
                 });
}

TEST(Passes, DepthwiseConvsOnFewTilesGiveCusGroupsOfTheirOwn) {
  // A depthwise conv whose map makes fewer tiles than CUs (EfficientNet-B0's
  // 7x7 maps of 1,152 channels, one tile) ran a round an output group, its
  // tiles on as many CUs; its rounds may now give each CU an output group
  // of its own, each loading its chunk of the tile (Packing::Channels; a
  // stride-2 7x7 output of five groups: rounds of four and one). The 3x3
  // conv after it keeps the conv apart from any pair.
  const std::vector<std::pair<std::string, std::string>> Models = {
      {"one tile", header("dwtile", 256, 7, 7) + R"(
  - {name: d, type: conv, out_channels: 256, kernel: 3, pad: 1, groups: 256, relu: true}
  - {name: p, type: conv, out_channels: 16, kernel: 3, pad: 1}
)"},
      {"strided, five groups", header("dwstride", 320, 14, 13) + R"(
  - {name: d, type: conv, out_channels: 320, kernel: 3, stride: 2, pad: 1, groups: 320}
  - {name: p, type: conv, out_channels: 16, kernel: 3, pad: 1}
)"}};
  layerDOnAndOff(Models, {"zc706", "big1024", "mini64"}, &compiler::CompileOptions::SplitChannels,
                 [](const std::string &Name, const std::string &Hw, const sim::LayerStats &On,
                    const sim::LayerStats &Off) {
                   if (Hw == "zc706" && Name == "one tile") { // four groups, one round
                     EXPECT_LT(On.MacCycles * 3, Off.MacCycles);
                   }
                 });
}

/// MobileNet v1's conv7 pair: a 14x14 output of 512 channels from a 28x28
/// stride-2 depthwise conv of 256, fused on zc706 in two groups of tiles.
const std::string Conv7Pair = header("conv7", 256, 28, 28) + R"(
  - {name: d, type: conv, out_channels: 256, kernel: 3, stride: 2, pad: 1, groups: 256, relu: true}
  - {name: p, type: conv, out_channels: 512, kernel: 1, relu: true}
)";

TEST(Passes, EvenRowBlocksLeaveNoCuIdle) {
  // MobileNet v1's conv7 pair: a 14x14 output in tiles of 4 rows took row
  // blocks of 4, 4, 4 and 2, and the CUs of the 2-row tiles idled half the
  // last rounds. Row blocks of 4, 4, 3 and 3 (LayerPlan::EvenRows) balance
  // them, on zc706 and on the paper's datapath.
  for (const char *Hw : {"zc706", "zc706_paper"}) {
    SCOPED_TRACE(Hw);
    OnOff R = withAndWithout(Conv7Pair, Hw, &compiler::CompileOptions::EvenRows);
    EXPECT_LT(layerNamed(R.On, "p")->Cycles, layerNamed(R.Off, "p")->Cycles);
    EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  }
}

TEST(Passes, EvenRowBlocksAreWeighedOnEveryTileShape) {
  // EfficientNet-B0's block10 at 14x14: the squeeze-and-excitation scale
  // (a depthwise producer of run-time weights) and the 112-channel
  // projection as a fused pair. Its cheapest plain tiles are 2x14 (seven
  // row blocks on four CUs); tiles of 4x7 in row blocks of 4, 4, 3 and 3
  // (LayerPlan::EvenRows) fill the CUs. Even row blocks were tried on the
  // cheapest plain tiles only, where 14 rows divide evenly, so the pair
  // never had them (2026-12-05: p 82,073 -> 72,547 cycles in the network).
  // Without even rows the pair now takes four banks (the projection's 112
  // channels in seven groups of 16: tests/e2e/FourBankPairsTest.cpp), its
  // projection faster and its scale slower (193,111 cycles with even rows,
  // 194,640 on four banks, 2026-12-06): both ways on two banks at most.
  const std::string Yaml = header("se10", 112, 14, 14) + seBlockLayers("e", 672, 28, 112);
  compiler::CompileOptions TwoBanks;
  TwoBanks.FourBankAreas = false;
  OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::EvenRows, TwoBanks);
  EXPECT_LT(layerNamed(R.On, "p")->Cycles * 20, layerNamed(R.Off, "p")->Cycles * 19)
      << "at least 5 % faster";
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
}

TEST(Passes, PairsThatTieOnTheChannelTakeTheFewerTraces) {
  // MobileNet v2's block15 at 7x7: 960 depthwise channels and a projection
  // of 160 (banked, two pixels an entry). Its pairs on tiles of 2x7 and
  // 7x2 move the same bytes and estimate alike, bound by the channel; a
  // 7x2 tile's seven entries (a pixel pair a row) trace less than a 2x7
  // tile's eight (its rows' seventh pixels padded to pairs), and the
  // channel's bound is loose: fewer compute cycles decide the tie
  // (2026-12-05: the network's blocks 14-16, 12.0 k cycles on zc706).
  const std::string Yaml = header("tie", 160, 7, 7) + R"(
  - {name: e, type: conv, out_channels: 960, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 960, kernel: 3, pad: 1, groups: 960, relu: true}
  - {name: p, type: conv, out_channels: 160, kernel: 1}
)";
  compiler::CompileOptions First; // (no window pair or triple of e and d)
  First.FuseExpansions = false;
  compiler::CompileOptions Second = First;
  Second.LayerOff["d"].Rank = 1; // the pair ranked second
  RunResult A, B;
  cyclesOf(Yaml, "zc706", First, &A);
  cyclesOf(Yaml, "zc706", Second, &B);
  auto Pair = [](const RunResult &R) {
    return layerNamed(R, "d")->Cycles + layerNamed(R, "p")->Cycles;
  };
  EXPECT_EQ(layerNamed(A, "d")->DramWriteBytes, 0u) << "d and p fused";
  EXPECT_EQ(layerNamed(B, "d")->DramWriteBytes, 0u) << "d and p fused";
  EXPECT_LT(Pair(A) * 20, Pair(B) * 19) << "at least 5 % faster";
}

TEST(Passes, AProducersChunksLoadBankByBank) {
  // MobileNet v1's conv9 pair at 14x14: a full-depth depthwise producer of
  // one group of tiles, eight 64-channel chunks, started on the channels the
  // 1x1 conv before stores. Its region holds the chunks one after another,
  // three to a maps bank (LayerPlan::PerBank), and its first step loads all
  // their weights (WeightsOnce): the first banks' chunks are traced while
  // the conv before still stores the last bank's channels, where the
  // interleaved region waited for all of them.
  const std::string Yaml = header("banks", 256, 14, 14) + R"(
  - {name: p0, type: conv, out_channels: 512, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 512, kernel: 3, pad: 1, groups: 512, relu: true}
  - {name: p, type: conv, out_channels: 256, kernel: 1, relu: true}
)";
  for (const char *Hw : {"zc706", "zc706_paper"}) {
    SCOPED_TRACE(Hw);
    OnOff R = withAndWithout(Yaml, Hw, &compiler::CompileOptions::ChunkBanks);
    EXPECT_LT(layerNamed(R.On, "d")->Cycles, layerNamed(R.Off, "d")->Cycles);
    EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  }
}

TEST(Passes, AProducerOfPartialGroupsLoadsFullDepth) {
  // A depthwise conv of 240 channels (EfficientNet-B0's block 4; three
  // 64-channel chunks and one of 48) on a 28x28 map, fused with its 1x1
  // conv over several groups of tiles. Full depth, each group's tile loads
  // whole while the group before runs its 1x1 steps; the last chunk's vdw
  // reads a group's width, past its pixel into the next one's first
  // channels, whose results the chunks after it (last first) overwrite in
  // the area. Until 2026-12-03 only producers of whole groups went full
  // depth (zc706: 431,744 -> 424,464 cycles, d 33,843 -> 17,141).
  const std::string Yaml = header("partial", 240, 28, 28) + R"(
  - {name: e, type: conv, out_channels: 240, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 240, kernel: 3, pad: 1, groups: 240, relu: true}
  - {name: p, type: conv, out_channels: 240, kernel: 1, relu: true}
)";
  for (const char *Hw : {"zc706", "zc706_paper", "mini64"}) {
    SCOPED_TRACE(Hw);
    OnOff R = withAndWithout(Yaml, Hw, &compiler::CompileOptions::FullDepthPairs);
    EXPECT_EQ(layerNamed(R.On, "d")->DramWriteBytes, 0u) << "d runs fused";
    EXPECT_LT(layerNamed(R.On, "d")->Cycles, layerNamed(R.Off, "d")->Cycles);
    EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  }
}

TEST(Passes, ANextGroupLoadsOverTheStepsBefore) {
  // MobileNet v1's conv7 pair: two groups of tiles; the second group's
  // 276 KB of maps loaded at once two 1x1 steps ahead, and the output
  // groups' stores waited behind them. Spread tile by tile over the 1x1
  // steps from the first after its region is free, a DMA a row, both hide.
  for (const char *Hw : {"zc706", "zc706_paper"}) {
    SCOPED_TRACE(Hw);
    OnOff R = withAndWithout(Conv7Pair, Hw, &compiler::CompileOptions::SpreadGroupLoads);
    EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  }
}

TEST(Passes, ARoundsMapsLoadOverTheRoundBefore) {
  // GoogLeNet's i3b reduce convs: two rounds of 7x14 tiles on 256 channels
  // (200 KB), five output groups on each. The second round's maps loaded
  // one step ahead, under the first round's last output group only, and
  // its traces waited for them; spread tile by tile over the first
  // round's steps, they hide (EmitProgram.cpp: the region is free from
  // the layer's first step on).
  const std::string Yaml = zooModel("googlenet");
  OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::SpreadMapLoads);
  const sim::LayerStats *On = layerNamed(R.On, "i3b_3x3_reduce+i3b_5x5_reduce"),
                        *Off = layerNamed(R.Off, "i3b_3x3_reduce+i3b_5x5_reduce");
  ASSERT_TRUE(On && Off);
  EXPECT_LT(On->Cycles + 5000, Off->Cycles);
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
}

// A 1x1 conv of at most half an output group's channels, fused with its
// depthwise producer, reads a banked area (LayerPlan::Banked): a vmacp step
// takes a pixel from each of two banks in one cycle on zc706's one read port
// per bank, so the 24-channel conv takes about half the cycles. With its
// ports serving the whole buffer (maps_ports_per_bank: 0, zc706_paper) a
// step would take two cycles: one pixel a trace.
const std::string Narrow =
    header("narrow", 96, 28, 28) +
    R"(  - {name: d, type: conv, out_channels: 96, kernel: 3, pad: 1, groups: 96, relu: true}
  - {name: p, type: conv, out_channels: 24, kernel: 1}
)";

TEST(Passes, NarrowPointwiseConvsReadABankedArea) {
  OnOff R = withAndWithout(Narrow, "zc706", &compiler::CompileOptions::BankedReads);
  EXPECT_GT(countOps(R.On.Prog, isa::Opcode::VMACP), 0u);
  EXPECT_EQ(countOps(R.Off.Prog, isa::Opcode::VMACP), 0u);
  const sim::LayerStats *On = layerNamed(R.On, "p"), *Off = layerNamed(R.Off, "p");
  ASSERT_TRUE(On && Off);
  EXPECT_EQ(layerNamed(R.On, "d")->DramWriteBytes, 0u) << "the pair is fused";
  EXPECT_LT(On->Cycles, Off->Cycles * 3 / 4);
  const auto Path = std::filesystem::temp_directory_path() / "snow-passes-shared-ports.yaml";
  std::ofstream(Path) << "base: zc706\nname: zc706_shared\nmaps_ports_per_bank: 0\n";
  RunResult Shared;
  cyclesOf(Narrow, Path.string(), {}, &Shared);
  EXPECT_EQ(countOps(Shared.Prog, isa::Opcode::VMACP), 0u);
}

TEST(Passes, AFireModulesExpandsRunOnChipForTheNextSqueeze) {
  // SqueezeNet 1.1's fire2 expands (a 1x1 and a 3x3 conv of one squeeze
  // output, 64 channels each) and fire3's squeeze, the 1x1 conv that alone
  // reads their concat, as a concat pair (FuseConcat.cpp): per group of
  // tiles the expands write their channels of the concat into the area and
  // the squeeze reads it there (on zc706 two pixels a step from a banked
  // area, its 16 channels half an output group). Taken, the program stores
  // only the squeeze's output and runs faster; on every machine both runs
  // are bit-exact (cyclesOf). A three-way concat with a 5x5 conv, and two
  // readers of it, fuse too.
  const std::string Fire = header("fire", 16, 55, 55) + R"(
  - {name: e1, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: e3, type: conv, input: data, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: cat, type: concat, inputs: [e1, e3]}
  - {name: q, type: conv, out_channels: 16, kernel: 1, relu: true}
)";
  const std::string Three = header("three", 24, 27, 27) + R"(
  - {name: e1, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: e3, type: conv, input: data, out_channels: 128, kernel: 3, pad: 1, relu: true}
  - {name: e5, type: conv, input: data, out_channels: 64, kernel: 5, pad: 2}
  - {name: cat, type: concat, inputs: [e1, e3, e5]}
  - {name: q, type: conv, out_channels: 32, kernel: 1, relu: true}
  - {name: q2, type: conv, input: cat, out_channels: 48, kernel: 1}
  - {name: both, type: concat, inputs: [q, q2]}
)";
  for (const char *Hw : {"zc706", "zc706_paper", "mini64", "narrow8"}) {
    SCOPED_TRACE(Hw);
    OnOff R = withAndWithout(Fire, Hw, &compiler::CompileOptions::FuseConcats);
    EXPECT_GT(R.Off.Stats.DramWriteBytes, 2u * 128 * 55 * 55) << "apart, the concat is stored";
    if (std::string(Hw) != "zc706")
      continue;
    EXPECT_EQ(R.On.Stats.DramWriteBytes, 2u * 16 * 55 * 55) << "fused, only q's output";
    EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
    const std::vector<compiler::PlanPart> Parts = zc706Parts(Fire);
    // The 16-channel squeeze four pixels a step, from an area of four
    // banks straddling both input regions.
    EXPECT_TRUE(hasPart(Parts, "q", {"fused<", "banked4"}));
  }
  // Each layer's loads waiting for the layer before it, whatever it reads:
  // the producers for the layer before the first of them.
  compiler::CompileOptions Serial;
  Serial.PreciseLayerDeps = false;
  cyclesOf(Fire, "zc706", Serial);
  OnOff R = withAndWithout(Three, "zc706", &compiler::CompileOptions::FuseConcats);
  EXPECT_EQ(R.On.Stats.DramWriteBytes, 2u * 80 * 27 * 27) << "fused, only q's and q2's outputs";
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
}

} // namespace
