//===- PassesTest.cpp - Each compiler pass: its effect, and values unchanged ===//
//
// For every pass with a switch in CompileOptions (docs/compiler.md): a model
// where the pass must act, compiled with the pass on and off, both run
// bit-exact against the reference executor; and the effect the pass is for,
// measured: multi-pixel traces appear where lanes would idle and save cycles,
// balanced rounds save the edge tiles' cycles, the scheduler moves layers
// away from their producers, split loads keep a small load queue from
// stalling the control core, a conv after a pool loads its weights early, a
// pool beside its conv loads into the conv's input region.
//
//===----------------------------------------------------------------------===//

#include "../support/SharedModels.h"
#include "Harness.h"
#include "RandomModels.h"
#include "snow/isa/Isa.h"
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>

using namespace snow;
using namespace snow::test;

namespace {

std::string header(const std::string &Name, unsigned C, unsigned H, unsigned W) {
  return modelHeader(Name, C, H, W, 5);
}

/// Runs Yaml with Opts on Hw and checks it bit-exact; returns the total cycles.
uint64_t cyclesOf(const std::string &Yaml, const std::string &Hw,
                  const compiler::CompileOptions &Opts, RunResult *Out = nullptr) {
  RunResult R;
  EXPECT_TRUE(runModel(Yaml, Hw, R, Opts));
  EXPECT_TRUE(sameBits(R));
  if (Out)
    *Out = R;
  return R.Stats.Cycles;
}

/// One model compiled with a pass on (the default) and with it off, both
/// runs checked bit-exact.
struct OnOff {
  RunResult On, Off;
};

OnOff withAndWithout(const std::string &Yaml, const std::string &Hw,
                     bool compiler::CompileOptions::*Pass) {
  compiler::CompileOptions Off;
  Off.*Pass = false;
  OnOff R;
  cyclesOf(Yaml, Hw, {}, &R.On);
  cyclesOf(Yaml, Hw, Off, &R.Off);
  return R;
}

/// How many instructions of the program have opcode Op.
unsigned countOps(const isa::Program &P, isa::Opcode Op) {
  unsigned N = 0;
  for (const isa::Word128 &W : P.Code) {
    auto I = isa::decode(W);
    EXPECT_TRUE(bool(I));
    if (I && I->Op == Op)
      ++N;
  }
  return N;
}

/// How many of the program's load-unit waits are on one of Sems.
unsigned loadWaits(const isa::Program &P, std::initializer_list<unsigned> Sems) {
  unsigned N = 0;
  for (const isa::Word128 &W : P.Code)
    if (auto I = isa::decode(W); I && I->Op == isa::Opcode::SYNC_LD_WAIT)
      N += std::find(Sems.begin(), Sems.end(), unsigned(I->idx)) != Sems.end();
  return N;
}

/// The stats of the layer named Name.
const sim::LayerStats *layerNamed(const RunResult &R, const std::string &Name) {
  for (const sim::LayerStats &L : R.Stats.Layers)
    if (L.Name == Name)
      return &L;
  ADD_FAILURE() << "no layer " << Name;
  return nullptr;
}

/// Layer Name, and the whole run, take fewer cycles with the pass than
/// without.
void expectFaster(const OnOff &R, const std::string &Name) {
  const sim::LayerStats *On = layerNamed(R.On, Name), *Off = layerNamed(R.Off, Name);
  ASSERT_TRUE(On && Off);
  EXPECT_LT(On->Cycles, Off->Cycles) << Name;
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
}

// 16 and 48 output channels leave 3/4 and 1/4 of the lanes of a 64-channel
// output group idle; 208 = 3 x 64 + 16 is planned in two parts.
const std::string FewChannels =
    header("few", 40, 20, 24) +
    R"(  - {name: a, type: conv, out_channels: 16, kernel: 3, pad: 1, relu: true}
  - {name: b, type: conv, out_channels: 48, kernel: 1, relu: true}
  - {name: c, type: conv, out_channels: 208, kernel: 3, pad: 1}
  - {name: d, type: conv, out_channels: 24, kernel: 3, stride: 2}
)";

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
  // (widened vmac rows, shifted weights per pixel group) do, bit-exact.
  auto [On, Off] = withAndWithout(FewChannels, "zc706", &compiler::CompileOptions::WideTraces);
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
  // whose DRAM channel is mostly idle (3,473 cycles saved here).
  const std::string Yaml = header("early", 96, 28, 28) + R"(
  - {name: c1, type: conv, out_channels: 128, kernel: 3, pad: 1, relu: true}
  - {name: p, type: maxpool, kernel: 3, stride: 2}
  - {name: c2, type: conv, out_channels: 192, kernel: 3, pad: 1, relu: true}
)";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::EarlyWeights);
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

TEST(Passes, ALayersFirstWeightsSpreadOverTheRoundsBefore) {
  // ShuffleNet v2's stage 4: 1x1 convs of 232 channels on a 7x7 map, each
  // seven kernel-stationary rounds on one weight set of 108 KB. Loaded in
  // the last round's prefetch, the next conv's weights hid under one round
  // of seven and the channel idled through the others; spread over them,
  // the same loads hide (58,532 -> 46,989 cycles here).
  const std::string Yaml = header("spread", 232, 7, 7) + R"(
  - {name: c1, type: conv, out_channels: 232, kernel: 1, relu: true}
  - {name: c2, type: conv, out_channels: 232, kernel: 1, relu: true}
  - {name: c3, type: conv, out_channels: 232, kernel: 1, relu: true}
)";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::SpreadWeights);
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

TEST(Passes, ADenseConvFeedsTheOneByOnesAfterItOnChip) {
  // A ResNet block's last 1x1 conv (its residual the block's input) and the
  // next block's first: fused, the first stores its output (the next
  // residual) and writes it into the area too, and the second loads none
  // of it (DensePairYaml, tests/support/SharedModels.h).
  const OnOff R = withAndWithout(DensePairYaml, "zc706", &compiler::CompileOptions::FuseDense);
  // (Loads are booked to the layer whose step is running: the producer's
  // next maps load during b1's steps.)
  auto PairReads = [](const RunResult &Run) {
    return layerNamed(Run, "a3")->DramReadBytes + layerNamed(Run, "b1")->DramReadBytes;
  };
  const uint64_t A3Out = 256 * 28 * 28 * 2;
  // b1 does not load a3's output (401 KB); both layers' weights load again
  // for each of the four groups of tiles (192 KB more).
  EXPECT_LT(PairReads(R.On) + A3Out / 4, PairReads(R.Off));
  EXPECT_EQ(layerNamed(R.On, "a3")->DramWriteBytes, layerNamed(R.Off, "a3")->DramWriteBytes)
      << "a3 still stores its output";
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  // On narrow8 (a weights bank of 128 channels) the producer a's 512 input
  // channels come in four chunks: only its last chunk writes back, to the
  // output region and the area.
  const std::string Chunked = header("chunked", 512, 20, 20) + R"(
  - {name: a, type: conv, out_channels: 256, kernel: 1, relu: true}
  - {name: p, type: conv, out_channels: 512, kernel: 1}
  - {name: add, type: add, inputs: [p, data], relu: true}
  - {name: q, type: conv, out_channels: 256, kernel: 1, relu: true}
)";
  // With chunked standalone plans, as when this was written: full depth
  // (the default), a and q load their maps once a tile, and apart they are
  // 1 % faster than the p -> q pair the planner fuses (3,657,583 against
  // 3,681,187 cycles: the pair's estimate says 8 % faster, compiler.md,
  // known costs).
  compiler::CompileOptions Fused, Apart;
  Fused.FullDepthMaps = Apart.FullDepthMaps = Apart.FuseDense = false;
  OnOff N;
  cyclesOf(Chunked, "narrow8", Fused, &N.On);
  cyclesOf(Chunked, "narrow8", Apart, &N.Off);
  EXPECT_LT(N.On.Stats.DramReadBytes, N.Off.Stats.DramReadBytes);
  EXPECT_LT(N.On.Stats.Cycles, N.Off.Stats.Cycles);
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

TEST(Passes, PoolsRunBesideTheConvTheyReadAtBatchOne) {
  // A GoogLeNet-like stem: a compute-bound conv (the DRAM channel mostly
  // idle) whose output a max pool reads. Beside it, the pool's steps load
  // rows as soon as the conv has stored them (RowsDone, semaphore 15), so
  // its traffic hides under the conv's traces.
  const std::string Yaml = header("stem", 32, 56, 56) + R"(
  - {name: c1, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: p1, type: maxpool, kernel: 3, stride: 2, ceil_mode: true}
  - {name: c2, type: conv, out_channels: 32, kernel: 1, relu: true}
)";
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    // Beside against apart: fused with c2 (step 9b) the pool would be
    // neither.
    compiler::CompileOptions Beside, Apart;
    Beside.FuseDepthwise = Apart.FuseDepthwise = false;
    Apart.PipelinePools = false;
    OnOff R;
    cyclesOf(Yaml, Hw, Beside, &R.On);
    cyclesOf(Yaml, Hw, Apart, &R.Off);
    EXPECT_GT(loadWaits(R.On.Prog, {15}), 1u) << "the pool waited for the conv's rows band by band";
    // What hides is the pool's traffic; its vmax work stays on the compute
    // unit. On zc706 (4 CUs) the pool is bound by the channel and the whole
    // run is shorter by over half of what the pool takes alone; on mini64
    // (1 CU) its own compute is most of it.
    ASSERT_EQ(R.Off.Stats.Layers[1].Name, "p1");
    const uint64_t PoolAlone = R.Off.Stats.Layers[1].Cycles;
    EXPECT_LT(R.On.Stats.Cycles + (std::string(Hw) == "zc706" ? PoolAlone / 2 : PoolAlone / 5),
              R.Off.Stats.Cycles)
        << "pool alone " << PoolAlone << ", on " << R.On.Stats.Cycles << ", off "
        << R.Off.Stats.Cycles;
  }
}

TEST(Passes, APoolBesideAConvSharesTheConvsInputRegion) {
  // VGG-16's conv1_2 and pool1 in small: a pool step between two steps of
  // its conv loads into the banks of the conv step's input region past the
  // conv's maps, so the conv's next step still loads into the other region
  // while this one computes; with a region of its own, the pool step took
  // that other region, and the conv step after it had to wait for its maps.
  const std::string Yaml = header("share", 64, 56, 56) + R"(
  - {name: c1, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: p1, type: maxpool, kernel: 2, stride: 2}
  - {name: c2, type: conv, out_channels: 128, kernel: 3, pad: 1, relu: true}
)";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::SharePoolRegions);
  // Each shared pool step skips its load's wait for a free region (InFree,
  // semaphores 2 and 3): the conv step before it took the region. The
  // pool's four steps: three between the conv's, the last after them
  // (704,583 cycles against 720,183; c1 459,662 against 473,548).
  EXPECT_LT(loadWaits(R.On.Prog, {2, 3}) + 2, loadWaits(R.Off.Prog, {2, 3}))
      << "three pool steps share a region";
  expectFaster(R, "c1");
}

TEST(Passes, AConvStartsOnTheRowsTheConvBeforeStored) {
  // c3 reads only c2, whose tiles complete its rows band by band: c3's
  // first maps wait for the RowsDone signals of the c2 steps that store the
  // rows they read (semaphore 15), not for c2's last stores, and load while
  // c2's last step computes (203,444 -> 202,304 cycles here, all in c3).
  const std::string Yaml = header("rows", 32, 28, 28) + R"(
  - {name: c1, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: c2, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: c3, type: conv, out_channels: 128, kernel: 1, relu: true}
)";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::StartOnRows);
  EXPECT_GT(loadWaits(R.On.Prog, {15}), 1u) << "waits for rows";
  EXPECT_EQ(loadWaits(R.Off.Prog, {15}), 0u);
  expectFaster(R, "c3");
}

TEST(Passes, ADepthwiseChunkStartsOnTheChannelsTheConvBeforeStored) {
  // e stores its six output groups one after the other, each over the whole
  // 14x14 map (output groups outermost), so no row is complete before its
  // last step. The fused pair d/p reads e chunk by chunk, first chunk
  // first: each chunk's loads wait for the RowsDone of the e step storing
  // those channels, and the first ones load while e still computes; the
  // load of channels 0-63 runs beside e's stores of channels 64-127 of the
  // same pixels, which the DRAM rule compares by bytes (67,211 -> 63,480
  // cycles here; d 21,044 -> 8,740, while e takes the chunks' traffic
  // beside its own stores). Without, d's region loads whole once e is done.
  const std::string Yaml = header("chans", 64, 14, 14) + R"(
  - {name: e, type: conv, out_channels: 384, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 384, kernel: 3, pad: 1, groups: 384, relu: true}
  - {name: p, type: conv, out_channels: 64, kernel: 1}
)";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::StartOnChannels);
  EXPECT_GE(loadWaits(R.On.Prog, {15}), 2u) << "chunks wait for their channels";
  EXPECT_EQ(loadWaits(R.Off.Prog, {15}), 0u) << "by rows, d waits for e's last stores";
  expectFaster(R, "d");
}

TEST(Passes, AOneGroupPairLoadsItsProducerFullDepth) {
  // Two fused pairs on a 14x14 map, one group of tiles each. d2's input
  // (p1's output) loads full depth into one input region while p1
  // computes, chunk by chunk as p1 stores each (four RowsDone waits), and
  // the area goes to the other region: d1's area region has no step
  // before it to free it (the load unit takes it), d2's is d1's (p1 frees
  // it only after p2). Without, d2's chunks load two ahead into the first
  // banks (98,067 -> 94,643 cycles here; d2 10,446 -> 6,589).
  const std::string Yaml = header("fd", 128, 14, 14) + R"(
  - {name: d1, type: conv, out_channels: 128, kernel: 3, pad: 1, groups: 128, relu: true}
  - {name: p1, type: conv, out_channels: 256, kernel: 1, relu: true}
  - {name: d2, type: conv, out_channels: 256, kernel: 3, pad: 1, groups: 256, relu: true}
  - {name: p2, type: conv, out_channels: 256, kernel: 1, relu: true}
)";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::FullDepthPairs);
  EXPECT_GE(loadWaits(R.On.Prog, {15}), 4u) << "d2's chunks wait for p1's output groups";
  expectFaster(R, "d2");
}

TEST(Passes, PairsOfSeveralGroupsLoadEachGroupWhole) {
  // A max pool of 480 channels (eight chunks) and a depthwise conv of 256
  // (four) on 28x28 maps, each fused with its 1x1 conv over several groups
  // of tiles. Full depth, each group's tile loads whole into one input
  // region (a DMA row a tile row) while the group before runs its 1x1
  // steps, its area in the other region; without, two chunks of a group
  // load during the group before and the rest while its producer computes,
  // a DMA row a pixel each.
  const std::string Yaml = header("deep", 64, 28, 28) + R"(
  - {name: c, type: conv, out_channels: 480, kernel: 1, relu: true}
  - {name: mp, type: maxpool, kernel: 3, stride: 1, pad: 1}
  - {name: pp, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: e, type: conv, out_channels: 256, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 256, kernel: 3, pad: 1, groups: 256, relu: true}
  - {name: q, type: conv, out_channels: 128, kernel: 1}
)";
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::FullDepthPairs);
  for (const char *D : {"mp", "d"}) {
    EXPECT_EQ(layerNamed(R.On, D)->DramWriteBytes, 0u) << D << " runs fused";
    EXPECT_EQ(layerNamed(R.Off, D)->DramWriteBytes, 0u) << D << " runs fused";
  }
  // Each pair as a whole (the producer's steps wait for the loads).
  auto Pair = [](const RunResult &Run, const char *A, const char *B) {
    return layerNamed(Run, A)->Cycles + layerNamed(Run, B)->Cycles;
  };
  EXPECT_LT(Pair(R.On, "mp", "pp"), Pair(R.Off, "mp", "pp"));
  EXPECT_LT(Pair(R.On, "d", "q"), Pair(R.Off, "d", "q"));
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
}

TEST(Passes, AMaxPoolOfAConcatRunsPooledByInput) {
  // GoogLeNet's pool3 in small: a stride-2 max pool of an inception
  // block's concat, which only it reads, pools each branch instead
  // (canonicalize, docs/model-format.md step 7a); each part reads one
  // conv's output and stores its channels of p. Bit-exact on zc706 and
  // mini64 (BatchTest runs it over a batch).
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    RunResult R;
    cyclesOf(PoolOfConcatYaml, Hw, {}, &R);
    for (const char *Part : {"p[0:64]", "p[64:160]"}) {
      const sim::LayerStats *L = layerNamed(R, Part);
      ASSERT_TRUE(L);
      EXPECT_GT(L->DramWriteBytes, 0u) << Part << " stores its channels of p";
    }
  }
}

TEST(Passes, RegionTokensBalance) {
  // A buffer region's free semaphore (InFree 2/3, WFree 6/7, OutFree
  // 10/11; compiler/lib/Lower.h) starts with one token and is signalled
  // once for every wait in program order (sync instructions are never in
  // loops), so it ends with that one token. A surplus lets a later load
  // into the region run ahead of the steps still reading it: an
  // elementwise step whose region a full-depth pair takes for its area
  // (Step::DeferInFree) used to free it as well, two tokens for one use
  // (ConvNeXt-tiny: a bank fault in snowsim, stage 3 on). Here the mul
  // before each pair.
  const std::string Yaml = header("mulpair", 64, 14, 14) + R"(
  - {name: a, type: conv, out_channels: 128, kernel: 1}
  - {name: b, type: conv, input: data, out_channels: 128, kernel: 1}
  - {name: m, type: mul, inputs: [a, b]}
  - {name: d, type: conv, out_channels: 128, kernel: 3, pad: 1, groups: 128}
  - {name: p, type: conv, out_channels: 128, kernel: 1}
  - {name: m2, type: mul, inputs: [p, p]}
  - {name: d2, type: conv, out_channels: 128, kernel: 3, pad: 1, groups: 128}
  - {name: p2, type: conv, out_channels: 64, kernel: 1}
)";
  RunResult R;
  cyclesOf(Yaml, "zc706", {}, &R);
  for (const char *D : {"d", "d2"}) {
    const sim::LayerStats *L = layerNamed(R, D);
    ASSERT_TRUE(L);
    EXPECT_EQ(L->DramWriteBytes, 0u) << D << " runs fused";
  }
  std::map<unsigned, long> Tokens;
  for (const isa::Word128 &W : R.Prog.Code) {
    auto I = isa::decode(W);
    ASSERT_TRUE(bool(I));
    using isa::Opcode;
    if (I->Op == Opcode::SYNC_EX_SIGNAL || I->Op == Opcode::SYNC_LD_SIGNAL ||
        I->Op == Opcode::SYNC_ST_SIGNAL)
      ++Tokens[unsigned(I->idx)];
    if (I->Op == Opcode::SYNC_EX_WAIT || I->Op == Opcode::SYNC_LD_WAIT ||
        I->Op == Opcode::SYNC_ST_WAIT)
      --Tokens[unsigned(I->idx)];
  }
  for (unsigned Sem : {2u, 3u, 6u, 7u, 10u, 11u})
    EXPECT_EQ(Tokens[Sem], 1) << "semaphore " << Sem;
}

TEST(Passes, RowSignalsOfTwoBoundariesDoNotMix) {
  // proj reads the concat br2 completes, and a pool runs beside proj: if
  // proj started on br2's rows, both would wait on RowsDone, and a pool
  // step among proj's could take a signal of br2's and load proj's rows
  // before they are stored (a fault the timing engine reports). proj waits
  // for br2's LayerDone instead. (PlanJsonTest's odd model, seed 3.)
  const std::string Yaml = header("odd3", 9, 34, 27) + R"(
  - {name: s3, type: conv, out_channels: 27, kernel: 3, stride: 3, pad: 1, relu: true}
  - {name: k53, type: conv, out_channels: 27, kernel: [5, 3], pad: [2, 1], relu: true}
  - {name: grp, type: conv, out_channels: 33, kernel: 3, pad: 1, groups: 3, relu: true}
  - {name: br1, type: conv, input: grp, out_channels: 27, kernel: 1, relu: true}
  - {name: br2, type: conv, input: grp, out_channels: 21, kernel: 3, pad: 1}
  - {name: cat, type: concat, inputs: [br1, br2]}
  - {name: proj, type: conv, out_channels: 33, kernel: 1}
  - {name: res, type: add, inputs: [proj, grp], relu: true}
  - {name: pool, type: maxpool, kernel: 3, stride: 2, pad: 1}
)";
  RunResult R;
  cyclesOf(Yaml, "mini64", {}, &R);
  EXPECT_GT(loadWaits(R.Prog, {15}), 0u) << "the pool waits for proj's rows";
}

TEST(Passes, APoolBranchRunsBesideItsBlocksBigConv) {
  // An inception block: the pool branch reads the block's input, which is
  // complete, so its steps run between those of the block's 3x3 conv (moved
  // to just before it) and wait for nothing. (With fusion on, this pool
  // runs fused with pp instead, which is faster still: checked at the end.)
  const std::string Yaml = header("block", 64, 56, 56) + R"(
  - {name: r, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: b3, type: conv, input: r, out_channels: 128, kernel: 3, pad: 1, relu: true}
  - {name: p, type: maxpool, input: data, kernel: 3, stride: 1, pad: 1}
  - {name: pp, type: conv, input: p, out_channels: 32, kernel: 1, relu: true}
  - {name: cat, type: concat, inputs: [b3, pp]}
)";
  compiler::CompileOptions Beside, Apart;
  Beside.FuseDepthwise = Apart.FuseDepthwise = false;
  Apart.PipelinePools = false;
  OnOff R;
  cyclesOf(Yaml, "zc706", Beside, &R.On);
  cyclesOf(Yaml, "zc706", Apart, &R.Off);
  // The pool's steps among the conv's: each switch re-marks a layer, and
  // the pool (layer 2) runs between steps of the 3x3 conv (layer 1).
  EXPECT_GT(stepsBetween(R.On.Prog, int64_t(1), int64_t(2)), 2u);
  EXPECT_EQ(markOrder(R.Off.Prog).size(), 4u) << "one mark a layer without pipelining";
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  RunResult Fused;
  cyclesOf(Yaml, "zc706", {}, &Fused);
  const sim::LayerStats *P = layerNamed(Fused, "p");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->DramWriteBytes, 0u) << "the pool runs fused with pp";
  EXPECT_LT(Fused.Stats.Cycles, R.On.Stats.Cycles);
}

/// MobileNet-like pairs: a depthwise conv and the 1x1 convs that alone read
/// it. Fused (Fuse.cpp), the depthwise output stays on chip: the depthwise
/// layer stores nothing. The pairs cover a chunk of fewer than 64 channels
/// (96 = 64 + 32, 130), a table activation (ReLU6), a fused residual on the
/// 1x1 conv, stride 2 and a 5x5 kernel, and two 1x1 convs reading one
/// depthwise output (as ShuffleNet v2's shuffled halves).
const std::string Pairs = header("pairs", 40, 20, 18) + R"(
  - {name: e1, type: conv, out_channels: 96, kernel: 1, relu: true}
  - {name: d1, type: conv, out_channels: 96, kernel: 3, pad: 1, groups: 96, bias: false}
  - {name: d1_bn, type: batchnorm}
  - {name: d1_r, type: relu6}
  - {name: p1, type: conv, out_channels: 40, kernel: 1}
  - {name: sum, type: add, inputs: [p1, data]}
  - {name: d2, type: conv, out_channels: 40, kernel: 5, stride: 2, pad: 2, groups: 40, relu: true}
  - {name: p2, type: conv, out_channels: 130, kernel: 1, relu: true}
  - {name: d3, type: conv, out_channels: 130, kernel: 3, pad: 1, groups: 130}
  - {name: p3, type: conv, out_channels: 24, kernel: 1}
  - {name: d4, type: conv, out_channels: 24, kernel: 3, pad: 1, groups: 24}
  - {name: q1, type: conv, input: d4, out_channels: 72, kernel: 1, relu: true}
  - {name: q2, type: conv, input: d4, out_channels: 40, kernel: 1}
  - {name: cat, type: concat, inputs: [q1, q2]}
)";

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
  OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::PadPixels);
  EXPECT_LT(R.On.Stats.DramBusyCycles, R.Off.Stats.DramBusyCycles * 9 / 10);
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  EXPECT_EQ(layerNamed(R.On, "e")->DramWriteBytes, layerNamed(R.Off, "e")->DramWriteBytes)
      << "the padding is never moved";
}

TEST(Passes, EverySwitchOffKeepsValues) {
  // Two models (one with depthwise / 1x1 pairs) through every switch
  // turned off alone.
  for (int K = 0; K < 48; ++K) {
    const std::string &Yaml = K < 24 ? FewChannels : Pairs;
    compiler::CompileOptions O;
    bool *Flags[] = {&O.DoubleBuffer,     &O.LoopReorder,   &O.GatherStrided, &O.PreciseLayerDeps,
                     &O.SplitChannels,    &O.BalanceRounds, &O.MultiPixel,    &O.ScheduleLayers,
                     &O.BalanceLoads,     &O.DmaLoops,      &O.GroupedVdw,    &O.WideTraces,
                     &O.PipelinePools,    &O.FuseDepthwise, &O.BankedReads,   &O.EarlyWeights,
                     &O.SharePoolRegions, &O.StartOnRows,   &O.PadPixels,     &O.StartOnChannels,
                     &O.FullDepthPairs,   &O.SpreadWeights, &O.FuseDense,     &O.FullDepthMaps};
    *Flags[K % 24] = false;
    SCOPED_TRACE(K);
    cyclesOf(Yaml, "zc706", O);
  }
}

} // namespace
