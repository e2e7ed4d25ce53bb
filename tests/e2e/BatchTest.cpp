//===- BatchTest.cpp - Batched programs (snowc --batch) against snowref ---===//
//
// A batch-N program computes N frames in one run (docs/batch.md): every
// frame's output must equal the reference's output for that frame alone, bit
// for bit, whatever the layer kinds (conv and pooling planned over the
// batch's tiles, fc layers over the stacked frames, flattened or not), and
// the batch must reuse the fc weights (fewer cycles than N runs).
//
//===----------------------------------------------------------------------===//

#include "../support/SharedModels.h"
#include "Harness.h"
#include "RandomModels.h"
#include "snow/isa/Isa.h"
#include "snow/isa/Program.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::test;

namespace {

struct BatchRun {
  std::vector<std::vector<int16_t>> Sim, Ref; ///< Per frame.
  sim::SimStats Stats;
  isa::Program Prog;
};

/// Compiles Yaml for Batch frames on Hw, runs N distinct random frames in one
/// run and each frame alone on the reference.
::testing::AssertionResult runBatch(const std::string &Yaml, const std::string &HwName,
                                    unsigned Batch, BatchRun &R, bool TimingOnly = false,
                                    compiler::CompileOptions Opts = {}) {
  auto Hw = isa::loadHwConfig(HwName);
  if (!Hw)
    return ::testing::AssertionFailure() << llvm::toString(Hw.takeError());
  auto G = ir::parseModel(Yaml, "test.yaml");
  if (!G)
    return ::testing::AssertionFailure() << llvm::toString(G.takeError());
  if (auto Err = ir::canonicalize(*G))
    return ::testing::AssertionFailure() << llvm::toString(std::move(Err));
  auto F = ir::calibrate(*G, int(Hw->ActFracBits), ir::defaultInput(*G));
  if (!F)
    return ::testing::AssertionFailure() << llvm::toString(F.takeError());
  if (auto Err = ir::quantize(*G, *F))
    return ::testing::AssertionFailure() << llvm::toString(std::move(Err));
  Opts.Batch = Batch;
  auto P = compiler::compile(*G, *Hw, Opts);
  if (!P)
    return ::testing::AssertionFailure() << "compile: " << llvm::toString(P.takeError());
  R.Prog = std::move(*P);
  if (R.Prog.Batch != Batch)
    return ::testing::AssertionFailure() << "the program records batch " << R.Prog.Batch;
  std::vector<int16_t> All;
  std::vector<std::vector<int16_t>> Frames(Batch);
  Rng Gen(1234 + Batch);
  for (auto &Fr : Frames) {
    for (uint64_t I = 0; I < G->Input.elems(); ++I)
      Fr.push_back(floatToFixed(float(Gen.uniform(-1.0, 1.0)), G->InputFrac));
    All.insert(All.end(), Fr.begin(), Fr.end());
  }
  std::vector<int16_t> Out;
  if (auto Ok = simulateOn(R.Prog, All, TimingOnly, R.Stats, &Out); !Ok)
    return Ok;
  if (TimingOnly)
    return ::testing::AssertionSuccess();
  const size_t PerFrame = Out.size() / Batch;
  if (PerFrame * Batch != Out.size() || PerFrame != G->output().Out.elems())
    return ::testing::AssertionFailure() << "output has " << Out.size() << " values";
  for (unsigned N = 0; N < Batch; ++N) {
    R.Sim.emplace_back(Out.begin() + N * PerFrame, Out.begin() + (N + 1) * PerFrame);
    R.Ref.push_back(ref::runFixed(*G, Frames[N], Hw->AccBits));
  }
  return ::testing::AssertionSuccess();
}

/// Every frame bit-exact, and informative (distinct frames, real values).
void checkFrames(const BatchRun &R) {
  ASSERT_EQ(R.Sim.size(), R.Ref.size());
  for (size_t N = 0; N < R.Sim.size(); ++N) {
    RunResult One;
    One.Sim = R.Sim[N];
    One.Ref = R.Ref[N];
    EXPECT_TRUE(sameBits(One)) << "frame " << N;
    if (One.Ref.size() >= 256) {
      EXPECT_TRUE(informative(One.Ref)) << "frame " << N;
    }
  }
  if (R.Ref.size() > 1) {
    EXPECT_NE(R.Ref[0], R.Ref[1]) << "frames must differ, or a mix-up would pass";
  }
}

const char *const TinyYaml = R"(name: tiny
input: {name: data, shape: [3, 32, 32]}
weights: {seed: 7}
layers:
  - {name: c1, type: conv, input: data, out_channels: 16, kernel: 3, stride: 1, pad: 1, relu: true}
  - {name: p1, type: maxpool, kernel: 2, stride: 2}
  - {name: c2, type: conv, out_channels: 40, kernel: [5, 3], stride: [2, 1], pad: [2, 1]}
)";

/// AlexNet's shape in small: convs, a pool, an fc over a 5x5 map (flattened
/// into a 1x1 conv), fc over fc.
const char *const FcYaml = R"(name: minialex
input: {name: data, shape: [3, 24, 24]}
weights: {seed: 11}
layers:
  - {name: c1, type: conv, input: data, out_channels: 32, kernel: 5, stride: 2, pad: 2, relu: true}
  - {name: p1, type: maxpool, kernel: 3, stride: 2}
  - {name: c2, type: conv, out_channels: 48, kernel: 3, stride: 1, pad: 1, relu: true}
  - {name: f6, type: fc, out_features: 200, relu: true}
  - {name: f7, type: fc, out_features: 96, relu: true}
  - {name: f8, type: fc, out_features: 10}
)";

/// Global pooling (stacked, not flattened), residual adds, a concat and an
/// fc reading the concat's tensor.
const char *const BranchYaml = R"(name: branchy
input: {name: data, shape: [8, 12, 12]}
weights: {seed: 5}
layers:
  - {name: c1, type: conv, input: data, out_channels: 32, kernel: 3, pad: 1, relu: true}
  - {name: a, type: conv, input: c1, out_channels: 16, kernel: 1}
  - {name: b, type: conv, input: c1, out_channels: 24, kernel: 3, pad: 1}
  - {name: cat, type: concat, inputs: [a, b]}
  - {name: c2, type: conv, input: cat, out_channels: 40, kernel: 3, pad: 1, relu: true}
  - {name: c3, type: conv, input: c2, out_channels: 40, kernel: 3, pad: 1}
  - {name: sum, type: add, inputs: [c2, c3]}
  - {name: gap, type: global_avgpool, input: sum}
  - {name: fc, type: fc, input: gap, out_features: 20}
)";

TEST(Batch, TinyEveryFrameBitExact) {
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    BatchRun R;
    ASSERT_TRUE(runBatch(TinyYaml, Hw, 3, R));
    checkFrames(R);
  }
}

TEST(Batch, FcModelEveryFrameBitExact) {
  for (const char *Hw : {"zc706", "mini64", "narrow8"})
    for (unsigned N : {1u, 2u, 5u}) {
      SCOPED_TRACE(fmt::format("{} batch {}", Hw, N));
      BatchRun R;
      ASSERT_TRUE(runBatch(FcYaml, Hw, N, R));
      checkFrames(R);
    }
}

TEST(Batch, BranchesConcatGlobalPoolBitExact) {
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    BatchRun R;
    ASSERT_TRUE(runBatch(BranchYaml, Hw, 4, R));
    checkFrames(R);
  }
}

TEST(Batch, ATunedProgramRunsEveryFrame) {
  // snowc --tune at a batch: the search runs the batch's programs, and the
  // options it keeps make one whose every frame is bit-exact.
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  std::optional<ir::Graph> G = quantizedGraph(BranchYaml, *Hw);
  ASSERT_TRUE(G.has_value());
  compiler::CompileOptions O;
  O.Batch = 3;
  auto T = compiler::tune(*G, *Hw, O);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_LE(T->Cycles, T->StartCycles);
  BatchRun R;
  ASSERT_TRUE(runBatch(BranchYaml, "zc706", 3, R, false, T->Opts));
  checkFrames(R);
  EXPECT_EQ(R.Stats.Cycles, T->Cycles);
}

/// The randomized generators of BitExactTest (chains, residual blocks,
/// grouped convs, fc stacks, concats), batched: every frame bit-exact.
class RandomBatch : public ::testing::TestWithParam<unsigned> {};

/// Case I of a generator: on zc706, mini64 or narrow8, batch 2 to 4.
void checkRandomBatch(const std::string &Yaml, unsigned I) {
  const char *const Hw[] = {"zc706", "mini64", "narrow8"};
  SCOPED_TRACE(fmt::format("{}, batch {}, model:\n{}", Hw[I % 3], 2 + I % 3, Yaml));
  BatchRun R;
  ASSERT_TRUE(runBatch(Yaml, Hw[I % 3], 2 + I % 3, R));
  checkFrames(R);
}

TEST_P(RandomBatch, EveryFrameBitExact) {
  const unsigned I = GetParam();
  checkRandomBatch(std::vector<std::string>{chainCase(I), blockCase(I), groupedCase(I), fcCase(I),
                                            concatCase(I)}[I % 5],
                   I);
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomBatch, ::testing::Range(0u, 15u));

/// Squeeze-and-excitation batched: the scale's run-time weights differ per
/// frame, so that layer runs frame by frame (one part per frame, each
/// loading its own frame's s) while the others run over the batch; every
/// frame bit-exact.
class RandomBatchSqueezeExcite : public ::testing::TestWithParam<unsigned> {};

TEST_P(RandomBatchSqueezeExcite, EveryFrameBitExact) {
  checkRandomBatch(seCase(GetParam()), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomBatchSqueezeExcite, ::testing::Range(0u, 9u));

/// Squeeze-and-excitation after a depthwise conv that averages its blocks
/// as it writes its tiles back (LayerPlan::PoolBlock), the means of each
/// frame's tiles stored in that frame's place.
class RandomBatchSeBlock : public ::testing::TestWithParam<unsigned> {};

TEST_P(RandomBatchSeBlock, EveryFrameBitExact) {
  checkRandomBatch(seBlockCase(GetParam()), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomBatchSeBlock, ::testing::Range(0u, 12u));

/// A scale read by a pool: the pool does not go beside it, so the scale is
/// planned again without the penalty that was to keep it there
/// (PipelinePools.cpp: dropUnusedPenalties), and that plan must run per
/// frame too. It ran frame 0 only, leaving the other frames unscaled (found
/// by randomized batches of EfficientNet-like blocks).
TEST(Batch, ScaleReadByAPoolRunsEveryFrame) {
  const std::string Yaml = R"(name: sepool
input: {name: data, shape: [16, 8, 8]}
weights: {seed: 3}
layers:
  - {name: c, type: conv, out_channels: 32, kernel: 1, relu: true}
  - {name: sp, type: global_avgpool, input: c}
  - {name: sr, type: conv, input: sp, out_channels: 8, kernel: 1, relu: true}
  - {name: se, type: conv, input: sr, out_channels: 32, kernel: 1}
  - {name: sg, type: sigmoid, input: se}
  - {name: s, type: scale, inputs: [c, sg]}
  - {name: gp, type: global_avgpool, input: s}
  - {name: fc, type: fc, out_features: 10}
)";
  for (const char *Hw : {"zc706", "mini64"})
    for (unsigned N : {2u, 3u}) {
      SCOPED_TRACE(fmt::format("{} batch {}", Hw, N));
      BatchRun R;
      ASSERT_TRUE(runBatch(Yaml, Hw, N, R));
      checkFrames(R);
    }
}

/// Pooling layers beside the convs they read (CompileOptions::PipelinePools):
/// a pool after a conv, and an inception block whose pool reads the concat
/// of the block before (the biggest branch moved to be its last producer).
const char *const PoolsYaml = R"(name: pools
input: {name: data, shape: [16, 56, 56]}
weights: {seed: 9}
layers:
  - {name: c1, type: conv, input: data, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: p1, type: maxpool, kernel: 3, stride: 2, pad: 1}
  - {name: a1, type: conv, input: p1, out_channels: 16, kernel: 1, relu: true}
  - {name: a3r, type: conv, input: p1, out_channels: 32, kernel: 1, relu: true}
  - {name: a3, type: conv, input: a3r, out_channels: 48, kernel: 3, pad: 1, relu: true}
  - {name: ap, type: maxpool, input: p1, kernel: 3, stride: 1, pad: 1}
  - {name: app, type: conv, input: ap, out_channels: 16, kernel: 1, relu: true}
  - {name: a, type: concat, inputs: [a1, a3, app]}
  - {name: bp, type: maxpool, input: a, kernel: 3, stride: 1, pad: 1}
  - {name: bpp, type: conv, input: bp, out_channels: 24, kernel: 1, relu: true}
  - {name: b3, type: conv, input: a, out_channels: 40, kernel: 3, pad: 1, relu: true}
  - {name: b, type: concat, inputs: [bpp, b3]}
  - {name: p2, type: avgpool, input: b, kernel: 2, stride: 2}
)";

TEST(Batch, PipelinedPoolsBitExactAndFaster) {
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    BatchRun On, Off;
    ASSERT_TRUE(runBatch(PoolsYaml, Hw, 4, On));
    checkFrames(On);
    compiler::CompileOptions Apart;
    Apart.PipelinePools = false;
    ASSERT_TRUE(runBatch(PoolsYaml, Hw, 4, Off, false, Apart));
    checkFrames(Off);
    // Pipelined pools re-mark the layers they run between.
    unsigned Marks = 0;
    for (const isa::Word128 &W : On.Prog.Code)
      Marks += isa::decode(W) && isa::decode(W)->Op == isa::Opcode::MARK;
    EXPECT_GT(Marks, On.Prog.Layers.size() - 2) << "no pool ran beside a conv (2 concats)";
    EXPECT_LT(On.Stats.Cycles, Off.Stats.Cycles);
  }
}

/// Fused pairs (docs/compiler.md, step 9b) over a batch's frames: a
/// depthwise conv (a last chunk of 32 channels, ReLU6 through the table, a
/// fused residual on its 1x1 conv) and a max pool of the sum (no conv to
/// run beside), each with the 1x1 conv that alone reads it, run group of
/// tiles by group of tiles through every frame; their intermediate maps
/// never cross DRAM.
const char *const PairsYaml = R"(name: batchpairs
input: {name: data, shape: [24, 20, 18]}
weights: {seed: 5}
layers:
  - {name: e, type: conv, input: data, out_channels: 96, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 96, kernel: 3, pad: 1, groups: 96, bias: false}
  - {name: d_bn, type: batchnorm}
  - {name: d_r, type: relu6}
  - {name: p, type: conv, out_channels: 24, kernel: 1}
  - {name: sum, type: add, inputs: [p, data]}
  - {name: mp, type: maxpool, kernel: 3, stride: 1, pad: 1}
  - {name: mpp, type: conv, out_channels: 48, kernel: 1, relu: true}
)";

TEST(Batch, FusedPairsRunEveryFrame) {
  for (const char *Hw : {"zc706", "narrow8"}) {
    SCOPED_TRACE(Hw);
    BatchRun On, Off;
    // (On narrow8, e would rather compute d's windows: FuseWindows.cpp, below.)
    compiler::CompileOptions Pairs;
    Pairs.FuseExpansions = false;
    ASSERT_TRUE(runBatch(PairsYaml, Hw, 3, On, false, Pairs));
    checkFrames(On);
    compiler::CompileOptions Unfused = Pairs;
    Unfused.FuseDepthwise = false;
    ASSERT_TRUE(runBatch(PairsYaml, Hw, 3, Off, false, Unfused));
    checkFrames(Off);
    // Fused, a producer stores nothing (its traffic is its input's).
    auto Stored = [](const BatchRun &R, const std::string &Name) -> uint64_t {
      for (const sim::LayerStats &L : R.Stats.Layers)
        if (L.Name == Name)
          return L.DramWriteBytes;
      ADD_FAILURE() << "no layer " << Name;
      return 0;
    };
    for (const char *D : {"d", "mp"}) {
      EXPECT_GT(Stored(Off, D), 0u) << D;
      EXPECT_EQ(Stored(On, D), 0u) << D << " runs fused with the 1x1 conv that reads it";
    }
    EXPECT_LT(On.Stats.DramReadBytes + On.Stats.DramWriteBytes,
              Off.Stats.DramReadBytes + Off.Stats.DramWriteBytes);
    EXPECT_LT(On.Stats.Cycles, Off.Stats.Cycles);
  }
}

TEST(Batch, ConcatPairsRunEveryFrame) {
  // A fire module's expands writing their concat on chip for the next
  // squeeze (FuseConcat.cpp), group of tiles by group over three frames'
  // tiles: every frame as the reference computes it, the concat stored by
  // none (FirePairYaml, tests/support/SharedModels.h).
  BatchRun On, Off;
  ASSERT_TRUE(runBatch(FirePairYaml, "zc706", 3, On));
  checkFrames(On);
  compiler::CompileOptions Apart;
  Apart.FuseConcats = false;
  ASSERT_TRUE(runBatch(FirePairYaml, "zc706", 3, Off, false, Apart));
  checkFrames(Off);
  EXPECT_EQ(On.Stats.DramWriteBytes, 3u * 2 * 16 * 30 * 27) << "only q's output is stored";
  EXPECT_LT(On.Stats.Cycles, Off.Stats.Cycles);
}

TEST(Batch, FourBankTriplesRunEveryFrame) {
  // Block triples whose projection reads four pixels a step from an area
  // straddling both input regions (compiler.md, step 9h), over the tiles
  // of three frames: a stem, its pool and a 16-channel 1x1 conv, and a
  // block of one round a frame, which takes the second region from the
  // load unit (FourBankPoolYaml, FourBankRoundYaml).
  for (const char *Yaml : {FourBankPoolYaml, FourBankRoundYaml}) {
    SCOPED_TRACE(std::string(Yaml).substr(6, 6));
    BatchRun R;
    ASSERT_TRUE(runBatch(Yaml, "zc706", 3, R));
    checkFrames(R);
  }
}

TEST(Batch, WindowPairsRunEveryFrame) {
  // An expansion computing its depthwise conv's windows (narrow8: PairsYaml's
  // e and d) and a conv computing its pool's windows (FuseWindows.cpp), padded
  // or not, over the tiles of three frames.
  const std::string Stem = R"(name: batchstem
input: {name: data, shape: [3, 27, 29]}
weights: {seed: 5}
layers:
  - {name: c, type: conv, out_channels: 64, kernel: 3, stride: 2, relu: true}
  - {name: mp, type: maxpool, kernel: 3, stride: 2}
  - {name: q, type: conv, out_channels: 16, kernel: 1, relu: true}
)";
  // ShuffleNet v2's stem: 24 channels on pixel pairs, and a padded max pool
  // reading zeros in its padding (framedPoolReader).
  const std::string Framed = R"(name: batchframed
input: {name: data, shape: [3, 56, 60]}
weights: {seed: 6}
layers:
  - {name: c, type: conv, out_channels: 24, kernel: 3, stride: 2, pad: 1, relu: true}
  - {name: mp, type: maxpool, kernel: 3, stride: 2, pad: 1}
)";
  for (const auto &[Yaml, Hw, Producer] :
       {std::tuple{std::string(PairsYaml), "narrow8", "e"}, std::tuple{Stem, "zc706", "c"},
        std::tuple{Framed, "zc706", "c"}}) {
    SCOPED_TRACE(Hw);
    BatchRun R;
    ASSERT_TRUE(runBatch(Yaml, Hw, 3, R));
    checkFrames(R);
    for (const sim::LayerStats &L : R.Stats.Layers) {
      if (L.Name == Producer) {
        EXPECT_EQ(L.DramWriteBytes, 0u) << Producer << " computes its reader's windows on chip";
      }
    }
  }
}

TEST(Batch, AMaxPoolOfAConcatPooledByInputRunsEveryFrame) {
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    BatchRun R;
    ASSERT_TRUE(runBatch(PoolOfConcatYaml, Hw, 3, R));
    checkFrames(R);
  }
}

/// Two pools beside one conv, and their steps between its chunks
/// (TwoPoolsYaml, tests/support/SharedModels.h).
TEST(Batch, TwoPoolsRunBesideOneConvEveryFrame) {
  // On, one pool a conv, and pool steps only after writing steps: each
  // bit-exact frame by frame.
  compiler::CompileOptions One, Writing;
  One.TwoPoolsBeside = false;
  Writing.PoolsBetweenChunks = false;
  BatchRun On, OneRun, WritingRun;
  ASSERT_TRUE(runBatch(TwoPoolsYaml, "zc706", 2, On));
  checkFrames(On);
  ASSERT_TRUE(runBatch(TwoPoolsYaml, "zc706", 2, OneRun, false, One));
  checkFrames(OneRun);
  ASSERT_TRUE(runBatch(TwoPoolsYaml, "zc706", 2, WritingRun, false, Writing));
  checkFrames(WritingRun);
  // The pools' steps between two of b's: both pools' with two pools a
  // conv, only bp's with one.
  EXPECT_GT(stepsBetween(On.Prog, "b", "bp"), 2u);
  EXPECT_GT(stepsBetween(On.Prog, "b", "p[32:160]"), 0u);
  EXPECT_GT(stepsBetween(OneRun.Prog, "b", "bp"), 2u);
  EXPECT_EQ(stepsBetween(OneRun.Prog, "b", "p[32:160]"), 0u);
  // b writes 8 times: 7 places after writing steps, for the pools' 9
  // steps before their last; between b's chunks, there are places for all.
  auto Both = [&](const BatchRun &R) {
    return stepsBetween(R.Prog, "b", "bp") + stepsBetween(R.Prog, "b", "p[32:160]");
  };
  EXPECT_LE(Both(WritingRun), 7u);
  EXPECT_GT(Both(On), Both(WritingRun));
  EXPECT_LT(On.Stats.Cycles, OneRun.Stats.Cycles);
  EXPECT_LT(On.Stats.Cycles, WritingRun.Stats.Cycles);
}

/// A pool beside the last part of a conv planned in two parts
/// (LastPartPoolYaml, tests/support/SharedModels.h).
TEST(Batch, APoolRunsBesideAConvsLastPartEveryFrame) {
  compiler::CompileOptions Beside; // c in two parts (SharedModels.h)
  Beside.CopiedWindows = false;
  compiler::CompileOptions Apart = Beside;
  Apart.PipelinePools = false;
  BatchRun On, Off;
  ASSERT_TRUE(runBatch(LastPartPoolYaml, "zc706", 4, On, false, Beside));
  checkFrames(On);
  ASSERT_TRUE(runBatch(LastPartPoolYaml, "zc706", 4, Off, false, Apart));
  checkFrames(Off);
  EXPECT_GT(stepsBetween(On.Prog, "c", "p[32:128]"), 0u);
  EXPECT_EQ(stepsBetween(Off.Prog, "c", "p[32:128]"), 0u);
  EXPECT_LT(On.Stats.Cycles, Off.Stats.Cycles);
}

TEST(Batch, EmitPlanListsTheCompiledPlans) {
  // At a batch, a conv with a pool pipelined beside it is planned with that
  // pool in mind (Compiler.cpp, splitPenalties): --emit=plan must list the
  // plans the program was compiled with, not those of the conv alone.
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  // AlexNet at 16 frames: without the pool in mind, conv1 would pack its
  // rounds by tile size (frames finishing only at the end).
  std::optional<ir::Graph> G = quantizedGraph(zooModel("alexnet"), *Hw);
  ASSERT_TRUE(G);
  compiler::CompileOptions Opts;
  Opts.Batch = 16;
  Opts.PipelinePools = true; // As snowc sets it for a batch.
  std::vector<compiler::PlanPart> Parts;
  ASSERT_TRUE(bool(compiler::compile(*G, *Hw, Opts, &Parts)));
  const std::string Listing = compiler::describePlan(*G, *Hw, Opts);
  for (const compiler::PlanPart &P : Parts) {
    const size_t At = Listing.find("\n" + P.Name + " ");
    ASSERT_NE(At, std::string::npos) << P.Name << " not listed:\n" << Listing;
    const std::string Line = Listing.substr(At + 1, Listing.find('\n', At + 1) - At - 1);
    EXPECT_NE(Line.find(fmt::format(" {}x{} ", P.TileRows, P.TileCols)), std::string::npos) << Line;
    EXPECT_NE(Line.find(" " + P.Order + " "), std::string::npos) << Line;
    EXPECT_NE(Line.find(fmt::format(" {} ", P.EstCycles)), std::string::npos) << Line;
  }
}

TEST(Batch, FcWeightsServeEveryFrame) {
  // fc layers are bound by their weights' DRAM traffic at batch 1; a batch
  // loads each weight tile once for all frames, so 8 frames in one run cost
  // far less than 8 runs, and read fewer bytes.
  const std::string Yaml = R"(name: bigfc
input: {name: data, shape: [1024, 1, 1]}
weights: {seed: 3}
layers:
  - {name: fc1, type: fc, input: data, out_features: 1024, relu: true}
  - {name: fc2, type: fc, out_features: 512}
)";
  BatchRun One, Eight;
  ASSERT_TRUE(runBatch(Yaml, "zc706", 1, One, /*TimingOnly=*/true));
  ASSERT_TRUE(runBatch(Yaml, "zc706", 8, Eight, /*TimingOnly=*/true));
  EXPECT_LT(Eight.Stats.Cycles, 2 * One.Stats.Cycles);
  EXPECT_LT(Eight.Stats.DramReadBytes, 2 * One.Stats.DramReadBytes);
  EXPECT_EQ(Eight.Prog.Layers[0].Macs, 8 * One.Prog.Layers[0].Macs) << "MACs are the batch's";
}

TEST(Batch, SingleFrameProgramsUnchanged) {
  // --batch 1 is the program compiled without it, byte for byte, and writes
  // no batch field (prog.bin files from before batches stay the same).
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  auto G = ir::parseModel(FcYaml, "test.yaml");
  ASSERT_TRUE(bool(G));
  ASSERT_FALSE(bool(ir::canonicalize(*G)));
  ir::quantize(*G, int(Hw->ActFracBits));
  compiler::CompileOptions One, Two;
  One.Batch = 1;
  Two.Batch = 2;
  auto A = compiler::compile(*G, *Hw, {});
  auto B = compiler::compile(*G, *Hw, One);
  auto C = compiler::compile(*G, *Hw, Two);
  ASSERT_TRUE(A && B && C);
  EXPECT_EQ(isa::serialize(*A), isa::serialize(*B));
  auto Back = isa::deserialize(isa::serialize(*C), "c");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Batch, 2u);
  EXPECT_EQ(*Back, *C);
}

} // namespace
