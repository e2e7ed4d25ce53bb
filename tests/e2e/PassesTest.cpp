//===- PassesTest.cpp - Each compiler pass: its effect, and values unchanged ===//
//
// For every pass with a switch in CompileOptions (docs/compiler.md): a model
// where the pass must act, compiled with the pass on and off, both run
// bit-exact against the reference executor; and the effect the pass is for,
// measured: multi-pixel traces appear where lanes would idle and save cycles,
// balanced rounds save the edge tiles' cycles, the scheduler moves layers
// away from their producers, split loads keep a small load queue from
// stalling the control core, a conv after a pool loads its weights early
// (beside the conv before, or behind the pool's maps where those load
// early), a layer's first weights spread over the rounds before it, a
// one-tile layer keeps its maps across weight chunks. The passes that
// overlap layers (pools beside convs, steps started on rows, fused pairs)
// are OverlapTest.cpp's.
//
//===----------------------------------------------------------------------===//

#include "../support/SharedModels.h"
#include "PassHarness.h"
#include "snow/isa/Timing.h"
#include <filesystem>
#include <fstream>

using namespace snow;
using namespace snow::test;

namespace {

TEST(Passes, MultiPixelTracesFillIdleLanes) {
  // A vmacp step reads 2^pix pixel groups, one maps read port each: zc706 and
  // big1024 have one port (a step then takes 2^pix cycles and saves nothing),
  // so they run here with a port per vMAC; mini64 has two of its own.
  const auto Dir = std::filesystem::temp_directory_path() / "snow-passes-multipixel";
  std::filesystem::create_directories(Dir);
  auto Ported = [&](const std::string &Base, unsigned Ports) {
    const std::string Path = (Dir / (Base + "_ports.yaml")).string();
    std::ofstream(Path) << "base: " << Base << "\nname: " << Base
                        << "_ports\nmaps_read_ports: " << Ports << "\n";
    return Path;
  };
  for (const std::string &Hw : {Ported("zc706", 4), std::string("mini64"), Ported("big1024", 8)}) {
    SCOPED_TRACE(Hw);
    auto [On, Off] = withAndWithout(FewChannels, Hw, &compiler::CompileOptions::MultiPixel);
    EXPECT_GT(countOps(On.Prog, isa::Opcode::VMACP), 0u);
    EXPECT_EQ(countOps(Off.Prog, isa::Opcode::VMACP), 0u);
    EXPECT_LT(On.Stats.Cycles, Off.Stats.Cycles * 9 / 10)
        << "multi-pixel traces should save over 10 %";
  }
}

TEST(Passes, WideTracesFillIdleLanesWithOneReadPort) {
  // zc706 has one maps read port: vmacp gains nothing there, wide traces
  // (widened vmac rows, shifted weights per pixel group) do, bit-exact
  // (where copied windows, which take their place, are off).
  compiler::CompileOptions NoCopies;
  NoCopies.CopiedWindows = false;
  auto [On, Off] =
      withAndWithout(FewChannels, "zc706", &compiler::CompileOptions::WideTraces, NoCopies);
  EXPECT_LT(On.Stats.Cycles, Off.Stats.Cycles * 9 / 10) << "wide traces should save over 10 %";
  uint64_t Wide = 0;
  for (const sim::LayerStats &L : On.Stats.Layers)
    for (const sim::LayerStats &M : Off.Stats.Layers)
      if (L.Name == M.Name && L.Name != "b" && L.Cycles < M.Cycles)
        ++Wide;
  EXPECT_GE(Wide, 2u) << "the 3x3 layers with idle lanes (16, 208 and 24 channels) gain";
}

// Grouped convs with as many input as output channels per group (ResNeXt's
// 3x3s): 4, 8 and 2 channels a group, one with a partial last output group
// (96 = 64 + 32 channels) and a 3x5 kernel.
const std::string Grouped =
    header("grouped", 64, 15, 17) +
    R"(  - {name: g4, type: conv, out_channels: 64, kernel: 3, pad: 1, groups: 16, relu: true}
  - {name: g8, type: conv, out_channels: 64, kernel: 3, stride: 2, pad: 1, groups: 8}
  - {name: up, type: conv, out_channels: 96, kernel: 1, relu: true}
  - {name: g2, type: conv, out_channels: 96, kernel: [3, 5], pad: [1, 2], groups: 48}
)";

TEST(Passes, GroupedConvsRunPerGroupOnVdw) {
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    auto [On, Off] = withAndWithout(Grouped, Hw, &compiler::CompileOptions::GroupedVdw);
    EXPECT_GT(countOps(On.Prog, isa::Opcode::VDW), 0u);
    EXPECT_EQ(countOps(Off.Prog, isa::Opcode::VDW), 0u);
    EXPECT_LT(On.Stats.Cycles, Off.Stats.Cycles / 2)
        << "per-group passes should at least halve a 2..8-channel grouped conv's cycles";
  }
}

TEST(Passes, WideGroupsReadOnlyTheirOwnChunks) {
  // 32 channels a group: 63 passes of a 3x3 kernel do not fit a zc706
  // weights bank, so each output group reads only its own groups' input
  // chunks (GroupChunks): 64 of 256 input channels instead of all.
  const std::string Wide =
      header("wide", 256, 7, 9) +
      R"(  - {name: g32, type: conv, out_channels: 256, kernel: 3, pad: 1, groups: 8, relu: true}
  - {name: g32b, type: conv, out_channels: 256, kernel: 3, stride: 2, pad: 1, groups: 8}
)";
  auto [On, Off] = withAndWithout(Wide, "zc706", &compiler::CompileOptions::GroupedVdw);
  EXPECT_EQ(countOps(On.Prog, isa::Opcode::VDW), 0u);
  EXPECT_LT(On.Stats.Cycles, Off.Stats.Cycles / 2);
}

TEST(Passes, RoundsPackedBySizeSaveTheEdgeTiles) {
  // 13 x 13 outputs do not split into equal tiles of at most 128 pixels;
  // with 4 output groups over 4 CUs, rounds of like-sized tiles waste less
  // than rounds that mix whole and edge tiles (about 3 % here).
  std::string Yaml = header("edge", 96, 13, 13) +
                     R"(  - {name: a, type: conv, out_channels: 256, kernel: 3, pad: 1}
)";
  auto [On, Off] = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::BalanceRounds);
  EXPECT_LT(On.Stats.Cycles, Off.Stats.Cycles);
}

TEST(Passes, SchedulerRunsLayersAwayFromTheirProducers) {
  // Two branches of two layers: in model order each second layer follows its
  // producer; scheduled, the branches interleave. (The first layers differ
  // in their kernels, so canonicalize() does not merge them.)
  std::string Yaml =
      header("branches", 32, 16, 16) +
      R"(  - {name: a1, type: conv, input: data, out_channels: 32, kernel: 1, relu: true}
  - {name: a2, type: conv, out_channels: 32, kernel: 3, pad: 1, relu: true}
  - {name: b1, type: conv, input: data, out_channels: 32, kernel: 3, pad: 1, relu: true}
  - {name: b2, type: conv, out_channels: 32, kernel: 3, pad: 1, relu: true}
  - {name: cat, type: concat, inputs: [a2, b2]}
  - {name: head, type: conv, out_channels: 16, kernel: 1}
)";
  auto [On, Off] = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::ScheduleLayers);
  EXPECT_EQ(markOrder(Off.Prog), (std::vector<int64_t>{0, 1, 2, 3, 5}));
  std::vector<int64_t> On0 = markOrder(On.Prog);
  ASSERT_EQ(On0.size(), 5u);
  // No second layer of a branch right after its own first layer.
  for (size_t K = 1; K < On0.size(); ++K)
    EXPECT_FALSE((On0[K - 1] == 0 && On0[K] == 1) || (On0[K - 1] == 2 && On0[K] == 3))
        << "layer " << On0[K] << " right after its producer";
  EXPECT_EQ(On0.back(), 5);
}

TEST(Passes, LoadsSpreadOverThePreviousStepWithASmallQueue) {
  // With 8-entry queues a step's loads (a DMA per region row of each chunk)
  // outnumber half a queue: without balancing the control core stalls on
  // the load queue before issuing the step's traces.
  auto Dir = std::filesystem::temp_directory_path() / "snow-passes-test";
  std::filesystem::create_directories(Dir);
  std::string Hw = (Dir / "q8.yaml").string();
  std::ofstream(Hw) << "base: zc706\nname: q8\nqueue_depth: 8\n";
  std::string Yaml = header("q8", 96, 28, 28) +
                     R"(  - {name: a, type: conv, out_channels: 128, kernel: 3, pad: 1, relu: true}
  - {name: b, type: conv, out_channels: 64, kernel: 3, pad: 1}
)";
  auto [On, Off] = withAndWithout(Yaml, Hw, &compiler::CompileOptions::BalanceLoads);
  EXPECT_LT(On.Stats.Cycles, Off.Stats.Cycles);
  std::filesystem::remove_all(Dir);
}

TEST(Passes, AConvAfterAPoolLoadsItsWeightsBesideTheConvBefore) {
  // conv, pool, conv: the pool's maps wait for the first conv's stores, and
  // the second conv's first weights, prefetched with the pool, would queue
  // behind them. They load during the first conv's last step instead,
  // whose DRAM channel is mostly idle (3,473 cycles saved here). The same
  // plans both ways: planned for the window it has (PrefetchWindows), c2
  // takes a plan of smaller first weights where they load late.
  const std::string Yaml = header("early", 96, 28, 28) + R"(
  - {name: c1, type: conv, out_channels: 128, kernel: 3, pad: 1, relu: true}
  - {name: p, type: maxpool, kernel: 3, stride: 2}
  - {name: c2, type: conv, out_channels: 192, kernel: 3, pad: 1, relu: true}
)";
  compiler::CompileOptions Planned;
  Planned.PrefetchWindows = false;
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::EarlyWeights, Planned);
  EXPECT_EQ(countOps(R.On.Prog, isa::Opcode::LD_WGT), countOps(R.Off.Prog, isa::Opcode::LD_WGT))
      << "the same loads, earlier";
  expectFaster(R, "c2");
  // Where the first conv's last step is short beside the weights (tiny.yaml),
  // they would delay its stores, which the pool waits for: they stay late.
  const std::string Tiny = header("tinyish", 3, 32, 32) + R"(
  - {name: c1, type: conv, out_channels: 16, kernel: 3, stride: 1, pad: 1, relu: true}
  - {name: p1, type: maxpool, kernel: 2, stride: 2}
  - {name: c2, type: conv, out_channels: 40, kernel: [5, 3], stride: [2, 1], pad: [2, 1]}
)";
  auto [TinyOn, TinyOff] = withAndWithout(Tiny, "zc706", &compiler::CompileOptions::EarlyWeights);
  EXPECT_LE(TinyOn.Stats.Cycles, TinyOff.Stats.Cycles);
}

TEST(Passes, AConvAfterAPoolOfTheBlocksInputLoadsItsWeightsBehindThePoolsMaps) {
  // GoogLeNet's inception i4a without its 3x3 and 5x5 branches: the pool
  // reads the block's input, not the conv before it, so its maps load under
  // that conv's last step, and the 1x1 conv fused after the pool loads its
  // first weights right behind them, not once the control core has queued
  // the pool's channel chunks (28,510 -> 27,237 cycles for proj here).
  const std::string Yaml = header("incep", 480, 14, 14) + R"(
  - {name: a, type: conv, input: data, out_channels: 192, kernel: 1, relu: true}
  - {name: p, type: maxpool, input: data, kernel: 3, stride: 1, pad: 1}
  - {name: proj, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: cat, type: concat, inputs: [a, proj]}
)";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::EarlyWeights);
  EXPECT_EQ(countOps(R.On.Prog, isa::Opcode::LD_WGT), countOps(R.Off.Prog, isa::Opcode::LD_WGT))
      << "the same loads, earlier";
  expectFaster(R, "proj");
}

TEST(Passes, ALayersFirstWeightsSpreadOverTheRoundsBefore) {
  // ShuffleNet v2's stage 4: 1x1 convs of 232 channels on a 7x7 map, each
  // seven kernel-stationary rounds on one weight set of 108 KB. Loaded in
  // the last round's prefetch, the next conv's weights hid under one round
  // of seven and the channel idled through the others; spread over them,
  // the same loads hide (58,532 -> 46,989 cycles here). Planned for the
  // window they have (PrefetchWindows), c2 and c3 take plans whose first
  // weights hide anyway (46,414 cycles either way), so that is off here.
  const std::string Yaml = header("spread", 232, 7, 7) + R"(
  - {name: c1, type: conv, out_channels: 232, kernel: 1, relu: true}
  - {name: c2, type: conv, out_channels: 232, kernel: 1, relu: true}
  - {name: c3, type: conv, out_channels: 232, kernel: 1, relu: true}
)";
  compiler::CompileOptions Planned;
  Planned.PrefetchWindows = false;
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::SpreadWeights, Planned);
  EXPECT_EQ(countOps(R.On.Prog, isa::Opcode::LD_WGT), countOps(R.Off.Prog, isa::Opcode::LD_WGT))
      << "the same loads, earlier";
  expectFaster(R, "c2");
  expectFaster(R, "c3");
  EXPECT_LT(R.On.Stats.Cycles * 10, R.Off.Stats.Cycles * 9) << "over 10 % saved";
}

TEST(Passes, AOneTileLayerLoadsItsMapsOnceAcrossWeightChunks) {
  // ResNet-50's layer4: a 1x1 conv on a 7x7 map, one tile, whose 512 input
  // channels take two weight chunks. Chunked, every round (four output
  // groups) reloads the tile chunk by chunk; full depth, all its channels
  // stay on chip across the chunks and rounds (a: 2.82 -> 2.46 MB read,
  // 221,066 -> 215,979 cycles). b's 2048 channels of 49 pixels do not fit
  // an input region: it stays chunked.
  const std::string Yaml = header("deep7", 512, 7, 7) + R"(
  - {name: a, type: conv, out_channels: 2048, kernel: 1, relu: true}
  - {name: b, type: conv, out_channels: 512, kernel: 1, relu: true}
)";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::FullDepthMaps);
  // a's 50 KB tile once, not once for each of its eight rounds.
  EXPECT_LT(layerNamed(R.On, "a")->DramReadBytes + 6 * 512 * 49 * 2,
            layerNamed(R.Off, "a")->DramReadBytes);
  EXPECT_EQ(R.On.Stats.DramWriteBytes, R.Off.Stats.DramWriteBytes);
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
}

TEST(Passes, DmaLoopsKeepCodeCompact) {
  // Chunked channels load a region row by row: 9 rows of each chunk per
  // tile; the stores of tiles narrower than the map go row by row too.
  std::string Yaml = header("rows", 200, 30, 30) +
                     R"(  - {name: a, type: conv, out_channels: 96, kernel: 3, pad: 1, relu: true}
  - {name: b, type: conv, out_channels: 64, kernel: 3, pad: 1}
)";
  auto [On, Off] = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::DmaLoops);
  // About a third: 3363 of 5043 instructions with the issue-17 timing (its
  // tiling differs from the ideal datapath's by a few instructions).
  EXPECT_LT(On.Prog.Code.size() * 10, Off.Prog.Code.size() * 7)
      << "loops should save over 30 % of the code";
  EXPECT_GT(countOps(On.Prog, isa::Opcode::BNE), 0u);
}

// An inverted residual block's 144-channel map (288 bytes a pixel, 4.5
// bursts of 64): the expansion stores it and the depthwise conv loads it in
// groups of 64 channels, a DMA row a pixel each. With a pixel stride of 160
// channels every group starts on a burst (CompileOptions::PadPixels).
TEST(Passes, PaddedPixelsStartChannelGroupsOnBursts) {
  const std::string Yaml = header("pad", 24, 28, 28) +
                           R"(  - {name: e, type: conv, out_channels: 144, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 144, kernel: 3, pad: 1, groups: 144, relu: true}
  - {name: p, type: conv, out_channels: 24, kernel: 1}
)";
  // (A window pair would have the expansion compute the depthwise conv's
  // windows: nothing stored.)
  compiler::CompileOptions Apart;
  Apart.FuseExpansions = false;
  OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::PadPixels, Apart);
  EXPECT_LT(R.On.Stats.DramBusyCycles, R.Off.Stats.DramBusyCycles * 9 / 10);
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  EXPECT_EQ(layerNamed(R.On, "e")->DramWriteBytes, layerNamed(R.Off, "e")->DramWriteBytes)
      << "the padding is never moved";
}

// A concat of two 29-channel convs (58 bytes a pixel each in a 116-byte
// pixel: runs inside bursts) read by a 1x1 conv: laid out input by input,
// each conv stores whole rows and the reader loads each input's channels
// from its tensor (CompileOptions::BlockedConcats), fewer bursts and
// cycles (2026-12-06: 83,969 -> 82,614). Bit-exact both ways; on
// zc706_paper, which merges no DMA rows, the concat stays whole and the
// program is the same both ways.
TEST(Passes, AConcatOfRunsInsideBurstsIsLaidOutInputByInput) {
  OnOff R = withAndWithout(BlockedConcatYaml, "zc706", &compiler::CompileOptions::BlockedConcats);
  EXPECT_LT(R.On.Stats.DramBusyCycles, R.Off.Stats.DramBusyCycles);
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  EXPECT_EQ(R.On.Stats.DramWriteBytes, R.Off.Stats.DramWriteBytes) << "the same values stored";
  OnOff Paper =
      withAndWithout(BlockedConcatYaml, "zc706_paper", &compiler::CompileOptions::BlockedConcats);
  EXPECT_EQ(Paper.On.Stats.Cycles, Paper.Off.Stats.Cycles);
  for (const char *Hw : {"big1024", "mini64", "narrow8"})
    cyclesOf(BlockedConcatYaml, Hw, {});
}

TEST(Passes, AConvAfterAShortStepPlansForTheWeightsItCanPrefetch) {
  // ShuffleNet v2's conv5 (464 -> 1024 on 7x7) after a depthwise conv of
  // short steps. Planned alone, b's first round gives each CU an output
  // group of its own, 4 x 59 KB of first weights, which load under a's
  // last step only (a 1.1 k-cycle window); with the window known, b takes
  // chunks of a quarter of that (10,609 + 103,660 against 10,063 + 114,665
  // cycles, b waiting 9.8 k instead of 21.4 k).
  const std::string Yaml = header("shuffle5", 464, 7, 7) + R"(
  - {name: a, type: conv, out_channels: 464, kernel: 3, pad: 1, groups: 464, relu: true}
  - {name: b, type: conv, out_channels: 1024, kernel: 1, relu: true}
)";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::PrefetchWindows);
  const sim::LayerStats *On = layerNamed(R.On, "b"), *Off = layerNamed(R.Off, "b");
  ASSERT_TRUE(On && Off);
  EXPECT_LT(On->Compute.WaitSem + 5000, Off->Compute.WaitSem) << "the first weights wait less";
  EXPECT_LT(R.On.Stats.Cycles + 5000, R.Off.Stats.Cycles);
}

TEST(Passes, OutputGroupsBeyondWholeRoundsTakeSmallerTiles) {
  // GoogLeNet's inception 5b: 3x3 convs of six and five output groups on a
  // 7x7 map and four CUs. In one part, rounds of two 4- and 3-row tiles
  // take the 4-row time (idle lanes 18.6 k and 30.8 k cycles); in two, the
  // groups of a whole round take the map whole, the rest tiles of their
  // own that fill a round (b 148,392 -> 142,880 cycles, c 244,758 ->
  // 226,585).
  const std::string Yaml = header("rest7", 192, 7, 7) + R"(
  - {name: a, type: conv, out_channels: 192, kernel: 1, relu: true}
  - {name: b, type: conv, out_channels: 384, kernel: 3, pad: 1, relu: true}
  - {name: c, type: conv, out_channels: 320, kernel: 3, pad: 1, relu: true}
)";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::RemainderTiles);
  expectFaster(R, "b");
  expectFaster(R, "c");
  EXPECT_LT(R.On.Stats.Cycles * 100, R.Off.Stats.Cycles * 96) << "over 4 % saved";
}

TEST(Passes, ALayerFeedingAFusedPairStaysWhole) {
  // MobileNet v2's 14x14 blocks: the expansion's six output groups would
  // run in two parts (RemainderTiles), but the depthwise / 1x1 pair after
  // it loads its input as the expansion stores it, and a second part
  // stores its channels only at its end (MobileNet v2 lost 10.4 k cycles
  // a block so). The expansion is planned again whole: the same program
  // either way. (Without prefetch windows: e, the first layer, has none, and
  // planned again for it, it is planned whole for the pair too.)
  const std::string Yaml = header("inverted", 64, 14, 14) + R"(
  - {name: e, type: conv, out_channels: 384, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 384, kernel: 3, pad: 1, groups: 384, relu: true}
  - {name: p, type: conv, out_channels: 64, kernel: 1}
)";
  compiler::CompileOptions Alone;
  Alone.PrefetchWindows = false;
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::RemainderTiles, Alone);
  EXPECT_EQ(R.On.Prog.Code, R.Off.Prog.Code);
  EXPECT_EQ(R.On.Stats.Cycles, R.Off.Stats.Cycles);
}

TEST(Passes, OnlyTheFirstVmacLoadsTheActivationTable) {
  // vlut reads an activation table from vMAC 0's weights only, so only the
  // first block of an output group carries it after the bias word; the
  // other vMACs load their kernel and bias (WeightPack.cpp). A 1x1 conv of
  // 64 outputs (one group, a block per vMAC) with SiLU, bit-exact: each of
  // vMACs 1-3 loads the same words, vMAC 0 a table more per tail.
  const std::string Yaml = header("table", 24, 20, 18) +
                           "  - {name: c, type: conv, out_channels: 64, kernel: 1}\n"
                           "  - {name: act, type: silu}\n"
                           "  - {name: d, type: conv, out_channels: 16, kernel: 1}\n";
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    RunResult R;
    cyclesOf(Yaml, Hw, compiler::CompileOptions(), &R);
    // Words each vMAC receives (an ld.wgt with wpix writes vMAC idx of
    // every pixel group).
    const unsigned V = R.Prog.Hw.VmacsPerCu;
    std::vector<uint64_t> Words(V, 0);
    for (const isa::Word128 &W : R.Prog.Code)
      if (auto I = isa::decode(W); I && I->Op == isa::Opcode::LD_WGT)
        for (unsigned Vm = 0; Vm < V; ++Vm)
          if (Vm % (V >> I->wpix) == unsigned(I->idx))
            Words[Vm] += uint64_t(I->rows) * I->len;
    const uint64_t Table = timing::lutWords(R.Prog.Hw);
    ASSERT_GE(Words.size(), 2u);
    for (size_t Vm = 2; Vm < Words.size(); ++Vm)
      EXPECT_EQ(Words[Vm], Words[1]) << "vMAC " << Vm;
    ASSERT_GT(Words[0], Words[1]);
    EXPECT_EQ((Words[0] - Words[1]) % Table, 0u) << "whole tables only";
  }
}

TEST(Passes, PixelGroupsShareOneWeightsLoad) {
  // On multi-pixel traces the pixel groups' vMACs hold the same blocks: with
  // wpix_loads (zc706) one ld.wgt writes vMAC idx of every group, so the
  // blocks cross the channel once; a zc706 without it loads them once per
  // group. Bit-exact both ways, fewer DRAM bytes with.
  const auto Dir = std::filesystem::temp_directory_path() / "snow-passes-wpix";
  std::filesystem::create_directories(Dir);
  const std::string Without = (Dir / "zc706_nowpix.yaml").string();
  std::ofstream(Without) << "base: zc706\nname: zc706_nowpix\nwpix_loads: 0\n";
  RunResult On, Off;
  cyclesOf(FewChannels, "zc706", compiler::CompileOptions(), &On);
  cyclesOf(FewChannels, Without, compiler::CompileOptions(), &Off);
  EXPECT_TRUE(sameBits(On));
  EXPECT_TRUE(sameBits(Off));
  EXPECT_GT(countOps(On.Prog, isa::Opcode::VMACP), 0u) << "the model should run multi-pixel";
  auto WpixLoads = [](const isa::Program &P) {
    return countInsts(P, [](const isa::Inst &I) { return I.Op == isa::Opcode::LD_WGT && I.wpix; });
  };
  EXPECT_GT(WpixLoads(On.Prog), 0u);
  EXPECT_EQ(WpixLoads(Off.Prog), 0u) << "a machine without wpix_loads got an ld.wgt with wpix";
  EXPECT_LT(On.Stats.DramReadBytes, Off.Stats.DramReadBytes);
}

TEST(Passes, EverySwitchOffKeepsValues) {
  // Two models (one with depthwise / 1x1 pairs) through every switch
  // turned off alone (compileSwitches(): each has a --no- flag).
  const auto &Switches = compiler::compileSwitches();
  for (const std::string *Yaml : {&FewChannels, &Pairs})
    for (const compiler::CompileSwitch &S : Switches) {
      compiler::CompileOptions O;
      O.*S.Member = false;
      SCOPED_TRACE(::testing::Message() << (Yaml == &Pairs ? "pairs" : "few") << ", no-" << S.Name);
      cyclesOf(*Yaml, "zc706", O);
    }
}

} // namespace
