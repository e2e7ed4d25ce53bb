//===- OverlapTest.cpp - The passes that overlap or fuse layers --------===//
//
// As PassesTest.cpp, for the passes that run one layer's steps among
// another's or keep a map on chip between layers: pools beside the conv
// they read (sharing its input region, two of them, between its chunks),
// steps started on the rows or channels the layer before stored, dense
// convs fused with the 1x1 convs that read them, and the region tokens and
// row signals these rely on. The depthwise and window pairs are in
// FusedPairsTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "../support/SharedModels.h"
#include "LayersHarness.h"
#include "PassHarness.h"
#include <map>

using namespace snow;
using namespace snow::test;

namespace {

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
  // 3,681,187 cycles: the pair's estimate says 8 % faster, compiler-costs.md).
  compiler::CompileOptions Fused, Apart;
  Fused.FullDepthMaps = Apart.FullDepthMaps = Apart.FuseDense = false;
  OnOff N;
  cyclesOf(Chunked, "narrow8", Fused, &N.On);
  cyclesOf(Chunked, "narrow8", Apart, &N.Off);
  EXPECT_LT(N.On.Stats.DramReadBytes, N.Off.Stats.DramReadBytes);
  EXPECT_LT(N.On.Stats.Cycles, N.Off.Stats.Cycles);
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

TEST(Passes, AWindowProducerStartsOnTheRowsTheLayerBeforeStored) {
  // EfficientNet-B0's block 3 and block 4 in small: e computes its
  // depthwise conv's windows (a block triple with d and p), e2 likewise
  // after p. Each window's load waits for the RowsDone signals of the
  // steps before that store its rows, c's and then the first triple's
  // projection's, not for their layers' last stores: e 75,006 -> 73,463
  // cycles, e2 66,292 -> 63,731 (2026-12-06).
  const std::string Yaml = header("winrows", 24, 56, 56) + WindowTriplesLayers;
  const std::vector<compiler::PlanPart> Parts = zc706Parts(Yaml);
  EXPECT_TRUE(hasPart(Parts, "e", {"fused>", "block"}));
  EXPECT_TRUE(hasPart(Parts, "e2", {"fused>", "block"}));
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::StartOnRows);
  EXPECT_GT(loadWaits(R.On.Prog, {15}), 2u) << "waits for rows";
  EXPECT_EQ(loadWaits(R.Off.Prog, {15}), 0u);
  expectFaster(R, "e");
  expectFaster(R, "e2");
  for (const char *Hw : {"big1024", "mini64", "zc706_paper"})
    cyclesOf(Yaml, Hw, {});
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
  // (Apart: since 2026-12-05 the three make a block triple, 54,996 cycles.)
  const std::string Yaml = header("chans", 64, 14, 14) + R"(
  - {name: e, type: conv, out_channels: 384, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 384, kernel: 3, pad: 1, groups: 384, relu: true}
  - {name: p, type: conv, out_channels: 64, kernel: 1}
)";
  compiler::CompileOptions Apart;
  Apart.FuseBlocks = false;
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::StartOnChannels, Apart);
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
  // banks (98,067 -> 94,643 cycles here; d2 10,446 -> 6,589). Without
  // whole-map windows: without full-depth pairs, p1 would compute d2's
  // window over the whole map instead, which its estimate prefers and
  // which runs 109,516 cycles against 97,775 (2026-12-06).
  const std::string Yaml = header("fd", 128, 14, 14) + R"(
  - {name: d1, type: conv, out_channels: 128, kernel: 3, pad: 1, groups: 128, relu: true}
  - {name: p1, type: conv, out_channels: 256, kernel: 1, relu: true}
  - {name: d2, type: conv, out_channels: 256, kernel: 3, pad: 1, groups: 256, relu: true}
  - {name: p2, type: conv, out_channels: 256, kernel: 1, relu: true}
)";
  compiler::CompileOptions NoWholeMap;
  NoWholeMap.WholeMapWindows = false;
  const OnOff R =
      withAndWithout(Yaml, "zc706", &compiler::CompileOptions::FullDepthPairs, NoWholeMap);
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
  // a DMA row a pixel each (FullDepthGroupsYaml, tests/support/
  // SharedModels.h). (Without, e would compute d's windows, a window pair
  // whose estimate beats the pair of d and q that is not full depth.)
  compiler::CompileOptions Pairs;
  Pairs.FuseExpansions = false;
  const OnOff R = withAndWithout(FullDepthGroupsYaml, "zc706",
                                 &compiler::CompileOptions::FullDepthPairs, Pairs);
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

TEST(Passes, AConvAfterAPoolBesideAConvStartsOnItsRows) {
  // p runs beside c, most of its steps among c's, and q reads p: q's first
  // steps read rows p stored before c's last step, so they wait for c's
  // LayerDone (its stores come after those in the store unit's order), not
  // p's, and their maps load while p's last steps run; the first step that
  // reads later rows waits for p's (RowSignals.cpp, startAfterHost).
  const std::string Yaml = header("afterhost", 16, 112, 112) + R"(
  - {name: c, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: p, type: maxpool, kernel: 3, stride: 2, ceil_mode: true}
  - {name: q, type: conv, out_channels: 64, kernel: 1, relu: true}
)";
  // (Not fused with q beside c, FuseBeside.cpp: then q loads nothing.)
  compiler::CompileOptions NoPair;
  NoPair.BesidePairs = false;
  for (const char *Hw : {"zc706", "zc706_paper", "mini64"}) {
    SCOPED_TRACE(Hw);
    OnOff R = withAndWithout(Yaml, Hw, &compiler::CompileOptions::StartAfterHost, NoPair);
    EXPECT_LT(layerNamed(R.On, "q")->Cycles + 1000, layerNamed(R.Off, "q")->Cycles);
    EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
  }
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

TEST(Passes, ABlockTripleLoadsItsResidualsUnderItsGroups) {
  // MobileNet v2's blocks 3 and 4 at 56x56 (ResidualTriplesLayers,
  // tests/support/SharedModels.h): the first triple's four groups of tiles
  // each load their residual half way through the group's steps, where the
  // channel idles (CompileOptions::EarlyResiduals), not one step ahead of
  // the projection's writeback, where the next group's windows, or at the
  // end the next block's, queue behind it: 236,458 -> 232,082 cycles on
  // 2026-12-07. Bit-exact either way, and on the other machines.
  const std::string Yaml = header("residuals", 24, 56, 56) + ResidualTriplesLayers;
  const std::vector<compiler::PlanPart> Parts = zc706Parts(Yaml);
  EXPECT_TRUE(hasPart(Parts, "p", {"fused<", "block"}));
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::EarlyResiduals);
  EXPECT_LT(R.On.Stats.Cycles + 2000, R.Off.Stats.Cycles);
  for (const char *Hw : {"big1024", "mini64", "narrow8", "zc706_paper"})
    cyclesOf(Yaml, Hw, {});
}

TEST(Passes, ABlockTripleLoadsTheNextBlocksWindowsUnderItsLastGroup) {
  // The same blocks: block4's triple, started on block3's rows, loads its
  // first windows over block3's last group of tiles, where the channel
  // idles (CompileOptions::EarlyBlockWindows), not one step ahead of its
  // first step, behind block3's last weights: e2's span (its first windows'
  // wait in it) 62,624 -> 59,690 cycles on 2026-12-07. Bit-exact either
  // way (the other machines: the test above).
  const std::string Yaml = header("windows", 24, 56, 56) + ResidualTriplesLayers;
  EXPECT_TRUE(hasPart(zc706Parts(Yaml), "e2", {"fused>", "block"}));
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::EarlyBlockWindows);
  ASSERT_TRUE(layerNamed(R.On, "e2") && layerNamed(R.Off, "e2"));
  EXPECT_LT(layerNamed(R.On, "e2")->Cycles + 2000, layerNamed(R.Off, "e2")->Cycles);
  EXPECT_LT(R.On.Stats.Cycles + 2000, R.Off.Stats.Cycles);
}

TEST(Passes, AnExpansionReadsTheBlockBeforeItOnChip) {
  // MobileNet v2's blocks 12 and 13 (FedBlocksLayers), with
  // CompileOptions::FeedNext: p's writeback of each output group goes into
  // e2's input region too, two pixels an entry as in its output region,
  // and e2's traces read a pixel's 96 channels as three runs of 32 there,
  // so e2 loads no maps and does not wait for p's last stores; and e's and
  // e2's writebacks of each output group go into the depthwise conv's
  // chunk of each CU's window, whose loads then bring only the rows and
  // columns around the CU's tile (a bank's chunks after the compute unit
  // has written them all). 14 x 14 x 96 + 2 x 14 x 14 x 576 int16 fewer
  // bytes read; 217,020 -> 205,687 cycles on 2026-12-07. Bit-exact either
  // way, and on the other machines (not fed there: other tiles).
  const std::string Yaml = header("fed", 96, 14, 14) + FedBlocksLayers;
  const std::vector<compiler::PlanPart> Parts = zc706Parts(Yaml);
  EXPECT_TRUE(hasPart(Parts, "p", {"fused<"}));
  EXPECT_TRUE(hasPart(Parts, "e2", {"kernel"}));
  EXPECT_TRUE(hasPart(Parts, "d2", {"fulldepth", "dw", "fused>"}));
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::FeedNext);
  EXPECT_EQ(R.Off.Stats.DramReadBytes - R.On.Stats.DramReadBytes,
            (14u * 14 * 96 + 2 * 14 * 14 * 576) * 2);
  EXPECT_EQ(R.Off.Stats.DramWriteBytes, R.On.Stats.DramWriteBytes) << "p is still stored";
  EXPECT_LT(R.On.Stats.Cycles + 8000, R.Off.Stats.Cycles);
  for (const char *Hw : {"big1024", "mini64", "narrow8", "zc706_paper"})
    cyclesOf(Yaml, Hw, {});
}

TEST(Passes, ABlockTripleReadsItsTilesOfTheBlockBeforeOnChip) {
  // MobileNet v2's blocks 8 and 9 (FedTriplesLayers): p's writeback of
  // each CU's 7x7 tile goes into that CU's 9x9 window of e2 too (a vwb a
  // place in the window, the other CUs skipping it), and e2's first step
  // loads only the window's rows and columns around it
  // (CompileOptions::FeedNext): 4 x 7 x 7 x 64 int16 fewer bytes read,
  // 107,355 -> 105,687 cycles on 2026-12-07. Bit-exact either way, and on
  // the other machines (zc706_paper fed too, -1.1 k).
  const std::string Yaml = header("fedwin", 64, 14, 14) + FedTriplesLayers;
  EXPECT_TRUE(hasPart(zc706Parts(Yaml), "e2", {"fused>", "block"}));
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::FeedNext);
  EXPECT_EQ(R.Off.Stats.DramReadBytes - R.On.Stats.DramReadBytes, 4u * 7 * 7 * 64 * 2);
  EXPECT_EQ(R.Off.Stats.DramWriteBytes, R.On.Stats.DramWriteBytes) << "p is still stored";
  EXPECT_LT(R.On.Stats.Cycles + 1000, R.Off.Stats.Cycles);
  for (const char *Hw : {"big1024", "mini64", "narrow8", "zc706_paper"})
    cyclesOf(Yaml, Hw, {});
}

TEST(Passes, ALayersFirstWeightsLoadAboveTheLayerBeforesBlocks) {
  // MobileNet v2's tail (TailLayers): c's first round, a group's 320 words
  // a vMAC on each CU (164 KB), loads in p's last step's prefetch and
  // hides under that 3.1 k-cycle step only. With CompileOptions::
  // TopWeights it goes to the top of the half of each weights buffer p
  // uses the bottom of (65 words), in other hazard banks, over p's steps:
  // the same bytes, c 90,411 -> 81,363 cycles on 2026-12-08 (p 1.7 k
  // longer: the parts share its channel). Bit-exact either way, and on the
  // other machines.
  const std::string Yaml = header("tail", 160, 7, 7) + TailLayers;
  EXPECT_TRUE(hasPart(zc706Parts(Yaml), "p", {"sum4"}));
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::TopWeights);
  EXPECT_EQ(R.On.Stats.DramReadBytes, R.Off.Stats.DramReadBytes);
  EXPECT_EQ(R.On.Stats.DramWriteBytes, R.Off.Stats.DramWriteBytes);
  ASSERT_TRUE(layerNamed(R.On, "c") && layerNamed(R.Off, "c"));
  EXPECT_LT(layerNamed(R.On, "c")->Cycles + 6000, layerNamed(R.Off, "c")->Cycles);
  EXPECT_LT(R.On.Stats.Cycles + 5000, R.Off.Stats.Cycles);
  for (const char *Hw : {"big1024", "mini64", "narrow8", "zc706_paper"})
    cyclesOf(Yaml, Hw, {});
}

TEST(Passes, AFusedConvsSlicesStoreAfterItsProducersNextTraces) {
  // ShuffleNet v2 (its canonical form: each unit's 1x1 convs write their
  // outputs into the slices the next unit's channel shuffle reads, a DMA a
  // slice a pixel): a pair's 1x1 step stores after its producer's next
  // step's compute (CompileOptions::DeferPieceStores), so the control core
  // queues those traces before it stalls on the store queue: the same
  // bytes, 1,024,655 -> 1,022,517 cycles on 2026-12-08. Bit-exact either
  // way, and on zc706_paper (-1.5 k).
  const std::string Yaml = zooModel("shufflenet_v2_x1_0");
  const OnOff R = withAndWithout(Yaml, "zc706", &compiler::CompileOptions::DeferPieceStores);
  EXPECT_EQ(R.On.Stats.DramReadBytes, R.Off.Stats.DramReadBytes);
  EXPECT_EQ(R.On.Stats.DramWriteBytes, R.Off.Stats.DramWriteBytes);
  EXPECT_LT(R.On.Stats.Cycles + 1500, R.Off.Stats.Cycles);
  cyclesOf(Yaml, "zc706_paper", {});
}

} // namespace
