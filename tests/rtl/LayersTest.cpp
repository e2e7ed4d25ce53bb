//===- LayersTest.cpp - Randomized layers compiled by snowc, sim vs RTL ---===//
//
// The generators of the bit-exact tests (tests/e2e/RandomModels.h): single
// conv and pooling layers, conv/pool chains, depthwise and residual blocks,
// grouped convs (per group on vdw), fully connected and concat cases, compiled with snowc for the
// RTL's presets in turn and co-simulated. The simulator's outputs are checked against the reference
// by test_e2e; here the RTL must equal the simulator in every counter and every output byte. Conv
// cases get a smaller MAC budget than in test_e2e: the RTL simulates every cycle, about 10^5 per
// second on zc706. Replay one case with --gtest_filter='*RtlRandomConv*/7'.
//
//===----------------------------------------------------------------------===//

#include "../support/SharedModels.h"
#include "CoSim.h"
#include "RandomFused.h"
#include "RandomModels.h"
#include "RandomShuffle.h"

using namespace snow;
using namespace snow::test;

namespace {

const char *presetFor(unsigned Seed) {
  static const char *const Presets[] = {"mini64", "zc706", "big1024"};
  return Presets[Seed % 3];
}

class RandomLayers : public CoSimTest, public ::testing::WithParamInterface<unsigned> {
protected:
  void check(const std::string &Yaml, const std::vector<std::string> &Flags = {}) {
    SCOPED_TRACE(std::string("hardware ") + presetFor(GetParam()) + ", model:\n" + Yaml);
    compileFor("m.bin", Yaml, presetFor(GetParam()), Flags);
    if (HasFatalFailure())
      return;
    EXPECT_TRUE(coSimulate("m.bin"));
  }
};

class RtlRandomConv : public RandomLayers {};
class RtlRandomPool : public RandomLayers {};
class RtlRandomChain : public RandomLayers {};
class RtlRandomBlock : public RandomLayers {};
class RtlRandomFused : public RandomLayers {};
class RtlRandomFusedPool : public RandomLayers {};
class RtlRandomExpansion : public RandomLayers {};
class RtlRandomBlockTriple : public RandomLayers {};
class RtlRandomStemTriple : public RandomLayers {};
class RtlRandomWideTriple : public RandomLayers {};
class RtlRandomHalves : public RandomLayers {};
class RtlRandomQuarters : public RandomLayers {};
class RtlRandomFramedPool : public RandomLayers {};
class RtlRandomPoolTriple : public RandomLayers {};
class RtlRandomFirePair : public RandomLayers {};
class RtlRandomBanked : public RandomLayers {};
class RtlRandomBankedPair : public RandomLayers {};
class RtlRandomSeBlock : public RandomLayers {};
class RtlRandomCopied : public RandomLayers {};
class RtlRandomFc : public RandomLayers {};
class RtlRandomConcat : public RandomLayers {};
class RtlRandomOddConcat : public RandomLayers {};
class RtlRandomGrouped : public RandomLayers {};
class RtlRandomActivation : public RandomLayers {};
class RtlRandomSqueezeExcite : public RandomLayers {};
class RtlRandomInception : public RandomLayers {};
class RtlRandomInceptionOneFormat : public RandomLayers {};
class RtlRandomProduct : public RandomLayers {};
class RtlRandomLayerNorm : public RandomLayers {};
class RtlRandomShuffle : public RandomLayers {};
class RtlRandomSum : public RandomLayers {};
class RtlRandomSplitTriple : public RandomLayers {};

TEST_P(RtlRandomConv, SimAndRtlAgree) { check(convCase(GetParam(), 1'500'000)); }
TEST_P(RtlRandomPool, SimAndRtlAgree) { check(poolCase(GetParam())); }
TEST_P(RtlRandomChain, SimAndRtlAgree) { check(chainCase(GetParam())); }
TEST_P(RtlRandomBlock, SimAndRtlAgree) { check(blockCase(GetParam())); }
// Depthwise convs and pools fused with the 1x1 convs that read them
// (compiler Fuse.cpp).
TEST_P(RtlRandomFused, SimAndRtlAgree) { check(fusedCase(GetParam())); }
TEST_P(RtlRandomFusedPool, SimAndRtlAgree) { check(fusedPoolCase(GetParam())); }
TEST_P(RtlRandomExpansion, SimAndRtlAgree) { check(expansionCase(GetParam())); }
// Inverted residual blocks as block triples wherever one fits (FuseBlocks.cpp).
TEST_P(RtlRandomBlockTriple, SimAndRtlAgree) {
  check(invertedResidualCase(GetParam()), {"--force-block-triples"});
}
// A stem, its depthwise conv and projection as block triples, the stem on
// two pixels an entry where it can be.
TEST_P(RtlRandomStemTriple, SimAndRtlAgree) {
  check(stemTripleCase(GetParam()), {"--force-block-triples"});
}
// Wide expansions on pixel pairs in block triples, rounds mixing paddings.
TEST_P(RtlRandomWideTriple, SimAndRtlAgree) {
  check(wideTripleCase(GetParam()), {"--force-block-triples"});
}
// Its blocks of stride 2 with their depthwise conv's windows in halves
// wherever they fit (LayerPlan::Halves).
TEST_P(RtlRandomHalves, SimAndRtlAgree) {
  check(wideTripleCase(2 * GetParam() + 1), {"--force-block-triples", "--force-dw-halves"});
}
// Stride-1 depthwise convs tracing pixels x and x + 4 an entry from
// windows their copied producer writes in quarters (LayerPlan::Quarters).
TEST_P(RtlRandomQuarters, SimAndRtlAgree) {
  check(quartersCase(GetParam()), {"--force-block-triples", "--force-dw-quarters"});
}
// Convs computing their pool's windows, zeros in its padding.
TEST_P(RtlRandomFramedPool, SimAndRtlAgree) { check(framedPoolCase(GetParam())); }
// A conv, its pool and a 1x1 conv as block triples wherever one fits
// (framedPoolCase's seeds with the 1x1 conv).
TEST_P(RtlRandomPoolTriple, SimAndRtlAgree) {
  check(framedPoolCase(poolTripleSeed(GetParam())), {"--force-block-triples"});
}
// Fire modules: the convs a concat joins computing it on chip for the 1x1
// convs that read it, some on a banked area (FuseConcat.cpp).
TEST_P(RtlRandomFirePair, SimAndRtlAgree) { check(fireCase(GetParam())); }
// Narrow 1x1 convs reading two banks a step (LayerPlan::Banked).
TEST_P(RtlRandomBanked, SimAndRtlAgree) { check(bankedCase(GetParam())); }
// Wider 1x1 convs reading a depthwise conv's banked area, 32 channels a
// group (a fused pair, LayerPlan::Banked).
TEST_P(RtlRandomBankedPair, SimAndRtlAgree) { check(bankedPairCase(GetParam())); }
// A depthwise conv averaging its output in blocks for squeeze-and-excitation
// (LayerPlan::PoolBlock).
TEST_P(RtlRandomSeBlock, SimAndRtlAgree) { check(seBlockCase(GetParam())); }
// Narrow convs reading a shifted copy of their window (LayerPlan::CopyBanks).
TEST_P(RtlRandomCopied, SimAndRtlAgree) { check(copiedCase(GetParam())); }
TEST_P(RtlRandomFc, SimAndRtlAgree) { check(fcCase(GetParam())); }
TEST_P(RtlRandomConcat, SimAndRtlAgree) { check(concatCase(GetParam())); }
// Concats laid out input by input (Tensors.cpp, LayerPlan::InPieces).
TEST_P(RtlRandomOddConcat, SimAndRtlAgree) { check(oddConcatCase(GetParam())); }
TEST_P(RtlRandomGrouped, SimAndRtlAgree) { check(groupedCase(GetParam())); }
// Merged sibling convs storing into slices (Lower.cpp, LayerPlan::Pieces).
TEST_P(RtlRandomInception, SimAndRtlAgree) { check(inceptionCase(GetParam())); }
// With one format the 1x1 branch merges too: a slice stored into a concat.
TEST_P(RtlRandomInceptionOneFormat, SimAndRtlAgree) {
  check(inceptionCase(GetParam()), {"--uniform-format"});
}
// Compiled programs with activation tables (vlut, vwb lut) and run-time
// weights (squeeze-and-excitation's x * s).
TEST_P(RtlRandomActivation, SimAndRtlAgree) { check(activationCase(GetParam())); }
TEST_P(RtlRandomSqueezeExcite, SimAndRtlAgree) { check(seCase(GetParam())); }
// Products of two maps (vpre, vmul, vwb).
TEST_P(RtlRandomProduct, SimAndRtlAgree) { check(productCase(GetParam())); }
// ConvNeXt blocks: layernorm's products and rsqrt table (normalised mode).
TEST_P(RtlRandomLayerNorm, SimAndRtlAgree) { check(layerNormCase(GetParam())); }
// ShuffleNet v2 units, their channel moves folded (FoldSelections.cpp).
TEST_P(RtlRandomShuffle, SimAndRtlAgree) { check(shuffleCase(GetParam())); }
// Convs whose CUs split each tile's input channels, the writeback adding
// their sums (vwb's sum; mini64's one CU traces them all).
TEST_P(RtlRandomSum, SimAndRtlAgree) { check(sumCase(GetParam()), {"--layer-off", "c=sum"}); }
// Inverted residual blocks of one tile on every CU at once, the
// projection's chunks split over the CUs (FuseBlocks.cpp: bestSplitTriple).
TEST_P(RtlRandomSplitTriple, SimAndRtlAgree) {
  check(splitTripleCase(GetParam()), {"--layer-off", "e=sum"});
}

INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomConv, ::testing::Range(0u, 36u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomPool, ::testing::Range(0u, 12u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomChain, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomBlock, ::testing::Range(0u, 12u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomFused, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomFusedPool, ::testing::Range(0u, 6u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomExpansion, ::testing::Range(0u, 6u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomBlockTriple, ::testing::Range(0u, 6u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomStemTriple, ::testing::Range(0u, 6u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomWideTriple, ::testing::Range(0u, 6u));
// (zc706 and big1024: mini64 takes no halves.)
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomHalves, ::testing::Values(1u, 2u, 4u, 5u, 7u, 8u));
// (Each takes quarters: zc706 for seeds 1 mod 3, big1024 for 2 mod 3.)
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomQuarters, ::testing::Values(1u, 2u, 5u, 7u, 8u, 10u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomFramedPool, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomPoolTriple, ::testing::Range(0u, 8u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomFirePair, ::testing::Range(0u, 8u));
// A conv of two output groups and its padded max pool, a chunk a CU, on
// zc706 (LayerPlan::framedPool).
INSTANTIATE_TEST_SUITE_P(Groups, RtlRandomFramedPool, ::testing::Values(46u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomBanked, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomBankedPair, ::testing::Range(0u, 9u));
// Maps of odd width (RandomModels.h, seeds from 18) on the presets whose
// banks have read ports of their own, each banked there: a map's last tile
// of odd width (20 on big1024, 22 and 25 on zc706) or tiles of odd width
// (31, 49 and 64 on zc706, 9, 7 and 7 columns), whose last pixel pair has
// a padding column.
INSTANTIATE_TEST_SUITE_P(OddWidths, RtlRandomBankedPair,
                         ::testing::Values(20u, 22u, 25u, 31u, 49u, 64u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomSeBlock, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomCopied, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomFc, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomConcat, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomOddConcat, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomGrouped, ::testing::Range(0u, 12u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomInception, ::testing::Range(0u, 6u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomInceptionOneFormat, ::testing::Range(0u, 4u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomActivation, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomSqueezeExcite, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomProduct, ::testing::Range(0u, 6u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomLayerNorm, ::testing::Range(0u, 6u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomShuffle, ::testing::Range(0u, 6u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomSum, ::testing::Range(0u, 9u));
// (zc706 and big1024: mini64's one CU takes no split triple.)
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomSplitTriple, ::testing::Values(1u, 2u, 4u, 5u, 7u, 8u));

class RtlGrouped : public CoSimTest {};

TEST_F(RtlGrouped, EveryGroupedLoweringAgreesOnMini64) {
  // On mini64 (64-channel output groups) these plan as 7, 15 and 3 shifted
  // vdw passes (+gdwN) and, for 32-channel groups, own-chunk reads (+gchunks).
  const std::string Yaml =
      modelHeader("grouped", 64, 19, 23, 3) +
      R"(  - {name: g4, type: conv, out_channels: 64, kernel: 3, pad: 1, groups: 16, relu: true}
  - {name: g8, type: conv, out_channels: 64, kernel: 3, stride: 2, pad: 1, groups: 8, relu: true}
  - {name: up, type: conv, out_channels: 96, kernel: 1}
  - {name: g32, type: conv, out_channels: 96, kernel: 3, pad: 1, groups: 3}
  - {name: g2, type: conv, out_channels: 96, kernel: [3, 5], pad: [1, 2], groups: 48}
)";
  compileFor("g.plan", Yaml, "mini64", {"--emit=plan"});
  compileFor("g.bin", Yaml, "mini64");
  if (HasFatalFailure())
    return;
  const std::string Plan = read("g.plan");
  for (const char *Mode : {"+gdw7", "+gdw15", "+gdw3", "+gchunks"})
    EXPECT_NE(Plan.find(Mode), std::string::npos) << Mode << "\n" << Plan;
  EXPECT_TRUE(coSimulate("g.bin"));
}

TEST_F(RtlGrouped, DepthwiseRoundsOfOwnGroupsAgree) {
  // A depthwise conv on fewer tiles than CUs: each CU of a round takes an
  // output group of its own and loads its chunk of the tile (compiler
  // Plan.cpp, Packing::Channels; `+split` in the plan): a 7x7 map of four
  // groups in one round, and a stride-2 4x4 output of five groups in rounds
  // of four and one (two groups of 128 lanes and one of 64 on big1024).
  const std::string Yaml =
      modelHeader("dwown", 256, 7, 7, 3) +
      R"(  - {name: d, type: conv, out_channels: 256, kernel: 3, pad: 1, groups: 256, relu: true}
  - {name: up, type: conv, out_channels: 320, kernel: 3, pad: 1}
  - {name: d2, type: conv, out_channels: 320, kernel: 3, stride: 2, pad: 1, groups: 320}
  - {name: p, type: conv, out_channels: 16, kernel: 3, pad: 1}
)";
  for (const char *Hw : {"zc706", "big1024"}) {
    SCOPED_TRACE(Hw);
    compileFor("d.plan", Yaml, Hw, {"--emit=plan"});
    compileFor("d.bin", Yaml, Hw);
    if (HasFatalFailure())
      return;
    EXPECT_NE(read("d.plan").find("split+dw"), std::string::npos) << read("d.plan");
    EXPECT_TRUE(coSimulate("d.bin"));
  }
}

/// An inverted residual block: 24 -> 144 -> 3x3 depthwise -> 24, with its
/// residual.
const char *const TripleLayers =
    R"(  - {name: e, type: conv, out_channels: 144, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 144, kernel: 3, pad: 1, groups: 144, relu: true}
  - {name: p, type: conv, out_channels: 24, kernel: 1}
  - {name: a, type: add, inputs: [p, data]}
)";

/// Programs of a few convs (and a pool) on zc706 whose layer boundaries
/// synchronize in other ways than a layer's LayerDone (compiler.md, steps 9
/// and 9a; the effects themselves are checked by test_e2e's Passes tests).
class RtlPoolBoundaries : public CoSimTest {
protected:
  /// Compiles Layers (after the header) and co-simulates; Mark, if given,
  /// must appear in the plan.
  void agrees(const std::string &Name, unsigned C, unsigned HW, const std::string &Layers,
              const char *Mark = nullptr, std::vector<std::string> Flags = {}) {
    const std::string Yaml = modelHeader(Name, C, HW, HW, 5) + Layers;
    if (Mark) {
      std::vector<std::string> PlanFlags = Flags;
      PlanFlags.push_back("--emit=plan");
      compileFor(Name + ".plan", Yaml, "zc706", PlanFlags);
      EXPECT_NE(read(Name + ".plan").find(Mark), std::string::npos) << read(Name + ".plan");
    }
    compileFor(Name + ".bin", Yaml, "zc706", Flags);
    if (HasFatalFailure())
      return;
    EXPECT_TRUE(coSimulate(Name + ".bin"));
  }
};

TEST_F(RtlPoolBoundaries, EarlyWeightsAgree) {
  // The second conv's first weights load beside the first conv's last step,
  // ahead of the pool's maps in the load queue: 537,855 cycles, about 5 s
  // of RTL.
  agrees("early", 96, 28,
         R"(  - {name: c1, type: conv, out_channels: 128, kernel: 3, pad: 1, relu: true}
  - {name: p, type: maxpool, kernel: 3, stride: 2}
  - {name: c2, type: conv, out_channels: 192, kernel: 3, pad: 1, relu: true}
)");
}

TEST_F(RtlPoolBoundaries, SpreadWeightsAgree) {
  // Each conv's first weights load in parts over the seven rounds of the
  // conv before, the bank's WFree wait with the first part and its WFull
  // with the last: 46,989 cycles, under a second of RTL.
  agrees("spread", 232, 7,
         R"(  - {name: c1, type: conv, out_channels: 232, kernel: 1, relu: true}
  - {name: c2, type: conv, out_channels: 232, kernel: 1, relu: true}
  - {name: c3, type: conv, out_channels: 232, kernel: 1, relu: true}
)");
}

TEST_F(RtlPoolBoundaries, AConvStartingOnRowsAgrees) {
  // No pool: c3's first maps wait for the rows of c2 it reads (RowsDone),
  // not for c2's LayerDone: 202,304 cycles, about 2 s of RTL.
  agrees("rows", 32, 28,
         R"(  - {name: c1, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: c2, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: c3, type: conv, out_channels: 128, kernel: 1, relu: true}
)");
}

TEST_F(RtlPoolBoundaries, WindowTriplesStartingOnRowsAgree) {
  // e's windows wait for the rows of c they read, e2's for the rows of
  // the first triple's projection p (RowsDone), not for their LayerDone
  // (Passes.AWindowProducerStartsOnTheRowsTheLayerBeforeStored, smaller).
  agrees("winrows", 24, 40, WindowTriplesLayers, "fused>");
}

TEST_F(RtlPoolBoundaries, APoolInItsConvsRegionAgrees) {
  // The pool's steps load into the banks of the conv step's input region
  // past the conv's maps, without waiting for a free region, and free it
  // themselves; c2's first maps, rows the pool stored before c1's last
  // step, wait for c1's LayerDone, not the pool's (startAfterHost):
  // 243,229 cycles, about 3 s of RTL.
  agrees("share", 32, 40,
         R"(  - {name: c1, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: p1, type: maxpool, kernel: 2, stride: 2}
  - {name: c2, type: conv, out_channels: 128, kernel: 3, pad: 1, relu: true}
)",
         "+shared");
}

TEST_F(RtlPoolBoundaries, AConvFusedWithItsPoolAgrees) {
  // c1 computes each pool tile's window (overlapping by one row and column)
  // into the area, in bands of rows that fit the accumulators, and stores
  // nothing; p1 pools the area (FuseWindows.cpp): 14,617 cycles.
  agrees("convpool", 3, 59,
         R"(  - {name: c1, type: conv, out_channels: 64, kernel: 3, stride: 2, relu: true}
  - {name: p1, type: maxpool, kernel: 3, stride: 2}
  - {name: c2, type: conv, out_channels: 16, kernel: 1, relu: true}
)",
         "fused>");
}

TEST_F(RtlPoolBoundaries, AStemComputingDepthwiseWindowsAgrees) {
  // The stem computes the depthwise conv's windows two pixels an entry, its
  // second pixel group reading a copy of the window that vmax one-tap
  // windows write into another bank (LayerPlan::CopyBanks), their padding
  // zeroed on chip, and the 1x1 conv the stride-2 depthwise conv's
  // (FuseWindows.cpp); both in rounds of mixed padding (Round::Mixed: the
  // stem's region holds its whole window's input, rows before the map
  // filled, and each CU's padding is zeroed with the others in skip).
  agrees("stemdw", 3, 97, StemLayers, "copied2+fused>+mixed");
}

TEST_F(RtlPoolBoundaries, AStemComputingWindowsOfOneShapeAgrees) {
  // The same in rounds of one window shape: edge tiles' windows skip their
  // padding rows and columns.
  agrees("stemone", 3, 97, StemLayers, "copied2+fused>", {"--no-mixed-windows"});
}

TEST_F(RtlPoolBoundaries, AStemComputingMixedPoolWindowsAgrees) {
  // ShuffleNet v2's conv1 and max pool: the stem computes the pool's
  // windows (a framed pool reader, its padding zeros after a ReLU) in rounds
  // of mixed padding.
  agrees("stempool", 3, 90,
         R"(  - {name: c, type: conv, out_channels: 24, kernel: 3, stride: 2, pad: 1, relu: true}
  - {name: m, type: maxpool, kernel: 3, stride: 2, pad: 1}
  - {name: p, type: conv, out_channels: 64, kernel: 1}
)",
         "copied2+fused>+mixed");
}

TEST_F(RtlPoolBoundaries, AStemOnWideTracesAgrees) {
  // The same on wide traces (shifted weights, one maps read a step).
  agrees("stemwide", 3, 97, StemLayers, "wide2+fused>", {"--no-copied-windows"});
}

TEST_F(RtlPoolBoundaries, AnExpansionComputingMixedWindowsAgrees) {
  // A 1x1 expansion computing a stride-2 depthwise conv's windows, rounds
  // of windows that pad different sides (Round::Mixed): each CU's padding
  // zeroed by vwbs with the other CUs in skip (FuseWindows.cpp).
  agrees("mixed", 24, 28,
         R"(  - {name: e, type: conv, out_channels: 192, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 192, kernel: 3, stride: 2, pad: 1, groups: 192, relu: true}
  - {name: p, type: conv, out_channels: 32, kernel: 1}
)",
         "fused>+mixed");
}

TEST_F(RtlPoolBoundaries, AWholeMapWindowAgrees) {
  // An expansion computing its 5x5 depthwise conv's window over the whole
  // 14x14 map, its input (18 x 18 x 80 elements with the padding) in a
  // whole input region, the area in the other, the CUs taking its eight
  // output groups side by side over two rounds; the depthwise conv's
  // output averaged for the pool as it is written back (FuseWindows.cpp,
  // Sequence.cpp: the producer's later rounds read the region its maps
  // went to).
  agrees("wholemap", 80, 14,
         R"(  - {name: e, type: conv, out_channels: 480, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 480, kernel: 5, pad: 2, groups: 480, relu: true}
  - {name: g, type: global_avgpool}
)",
         "fulldepth+fused>");
}

TEST_F(RtlPoolBoundaries, CoLocatedWeightsAgree) {
  // EfficientNet-B0's 7x7 expansion to 1,152 channels computing its 5x5
  // depthwise conv's whole-map window, four output groups a round over
  // five rounds, each round's producer and reader blocks loaded into one
  // weights bank together (LayerPlan::CoWeights): the reader's steps load
  // nothing and free the bank the producer's step waited for.
  agrees("coloc", 192, 7,
         R"(  - {name: e, type: conv, out_channels: 1152, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 1152, kernel: 5, pad: 2, groups: 1152, relu: true}
  - {name: g, type: global_avgpool}
)",
         "fulldepth+fused>");
}

TEST_F(RtlPoolBoundaries, AFlatOneByOneAgrees) {
  // GoogLeNet's i4c reduce in small (tests/e2e/FlatPointwiseTest.cpp): a
  // 1x1 conv planned on its 14x14 map as one row, runs of 49 pixels read
  // two a step from a banked region, each run's last pixel beside a
  // padding column; the 3x3 conv after it loads on its RowsDone signals.
  agrees("flat", 192, 14,
         R"(  - {name: a, type: conv, out_channels: 280, kernel: 1, relu: true}
  - {name: b, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
)",
         "banked2+fulldepth+flat");
}

/// MobileNet v2's stem, block1_dw and block1_project.
const char *const StemTripleLayers =
    R"(  - {name: c, type: conv, out_channels: 32, kernel: 3, stride: 2, pad: 1, relu: true}
  - {name: d, type: conv, out_channels: 32, kernel: 3, pad: 1, groups: 32, relu: true}
  - {name: p, type: conv, out_channels: 16, kernel: 1}
)";

TEST_F(RtlPoolBoundaries, AStemTripleAgrees) {
  // MobileNet v2's stem, block1_dw and block1_project on a 64x64 input:
  // the stem traces two pixels an entry from its window and a copy of it,
  // its edge tiles' windows an odd number of columns wide (rounds of one
  // window shape).
  agrees("stem", 3, 64, StemTripleLayers, "copied2+fused>+block", {"--no-mixed-windows"});
}

TEST_F(RtlPoolBoundaries, AMixedStemTripleAgrees) {
  // The same in rounds of mixed padding, as it compiles now.
  agrees("stemmix", 3, 64, StemTripleLayers, "copied2+fused>+mixed+block", {"--no-dw-quarters"});
}

TEST_F(RtlPoolBoundaries, AStemTripleInQuartersAgrees) {
  // And with its depthwise conv on pixels x and x + 4 from windows in
  // quarters (LayerPlan::Quarters), as it compiles now.
  agrees("stemquart", 3, 64, StemTripleLayers, "copied2+quarters+fused>+mixed+block");
}

TEST_F(RtlPoolBoundaries, AClippedBlockTripleAgrees) {
  // MobileNet v2's block 8 (14x14, 64 -> 384 -> 64, its residual) as a
  // block triple: its four 7x7 tiles' 9x9 windows each pad other sides, and
  // in their mixed rounds each CU traces only its window's 8x8 pixels inside
  // the map, written back at its window's place by vwbs the CUs of other
  // places skip (Round::Clipped): 55 k cycles.
  agrees("clipped", 64, 14,
         R"(  - {name: e, type: conv, out_channels: 384, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 384, kernel: 3, pad: 1, groups: 384, relu: true}
  - {name: p, type: conv, out_channels: 64, kernel: 1}
  - {name: a, type: add, inputs: [p, data]}
)",
         "fused>+mixed+block+clipped");
}

TEST_F(RtlPoolBoundaries, EarlyResidualsAndBlockWindowsAgree) {
  // MobileNet v2's blocks 3 and 4 at 42x42 (ResidualTriplesLayers): the
  // first triple's residuals load half way through each of its four groups
  // of tiles (CompileOptions::EarlyResiduals), their OutFree waits long
  // after the stores of the group before; the second's first windows over
  // the first's last group (EarlyBlockWindows), each waiting for the
  // RowsDone of the rows it reads and the first triple's expansion's and
  // depthwise conv's LayerDone, given with their first steps: 153 k cycles.
  agrees("residuals", 24, 42, ResidualTriplesLayers, "fused<+block");
}

TEST_F(RtlPoolBoundaries, AnExpansionFedOnChipAgrees) {
  // MobileNet v2's blocks 12 and 13 (FedBlocksLayers): the projection p
  // writes each output group again into e2's input region (vwb), e2's
  // first step loads nothing and its traces read a pixel as three runs of
  // 32 channels (vmac rows 3, bstride a group's span); e and e2 write
  // their tiles into the depthwise convs' windows, whose chunks load their
  // halos bank by bank: 206 k cycles.
  agrees("fed", 96, 14, FedBlocksLayers, "kernel");
}

TEST_F(RtlPoolBoundaries, ATripleFedItsTilesOnChipAgrees) {
  // MobileNet v2's blocks 8 and 9 (FedTriplesLayers): p writes each CU's
  // tile into its window of e2 (one vwb a place, the other CUs skipping
  // it) and e2 loads the rest of each window: 106 k cycles.
  agrees("fedwin", 64, 14, FedTriplesLayers, "clipped");
}

TEST_F(RtlPoolBoundaries, FirstWeightsAboveTheLayerBeforesAgree) {
  // MobileNet v2's tail (TailLayers): c's first weights load at the top of
  // the weights banks over p's steps while p's traces read their bottom
  // (CompileOptions::TopWeights, other hazard banks): 184 k cycles.
  agrees("tail", 160, 7, TailLayers, "sum4");
}

TEST_F(RtlPoolBoundaries, ABlockTripleAgrees) {
  // An inverted residual block on chip (FuseBlocks.cpp): the expansion's
  // output groups over the depthwise windows, the depthwise conv's tile of
  // each written into the area's end in two banks, and the projection
  // reading it two pixels a trace into accumulator entries past the ones
  // the other two use, with its residual. (Without copied windows: with
  // them the block takes the plan of the next test.)
  agrees("triple", 24, 28, TripleLayers, "banked2+fused<+block", {"--no-copied-windows"});
}

TEST_F(RtlPoolBoundaries, AFourBankPairAgrees) {
  // A depthwise conv and its 80-channel 1x1 reader fused on four banks
  // (Fuse.cpp): the depthwise conv writes each bank's columns of its 7x7
  // tiles (a padding column in the fourth), the area straddles both input
  // regions, and the 1x1 conv after the pair loads its first maps once the
  // reader is done with both (tests/e2e/FourBankPairsTest.cpp).
  agrees("fourpair", 240, 14,
         R"(  - {name: d, type: conv, out_channels: 240, kernel: 3, pad: 1, groups: 240, relu: true}
  - {name: p, type: conv, out_channels: 80, kernel: 1}
  - {name: e, type: conv, out_channels: 96, kernel: 1, relu: true}
)",
         "banked4+fulldepth+fused<");
}

TEST_F(RtlPoolBoundaries, ACopiedBlockTripleAgrees) {
  // The same block as it compiles now: the expansion two pixels an entry
  // in groups of 32 from a copied window, the depthwise conv two pixels an
  // entry writing its tile packed, and the projection reading pixel pairs
  // from it and from a copy one pixel over in the next bank, which vmax
  // one-tap windows write before each chunk's traces.
  agrees("copiedtriple", 24, 28, TripleLayers, "copied2+fused<+block");
}

TEST_F(RtlPoolBoundaries, StrideTwoWindowsInHalvesAgree) {
  // MobileNet v2's block2 shape (16 -> 96 -> 24, a stride-2 depthwise
  // conv) as a block triple, and as a window pair where a 3x3 conv reads
  // the depthwise output too: the expansion writes its windows' even
  // columns, then their odd ones, two pixels an entry from a copy two
  // columns over; the depthwise conv traces each entry twice, its even
  // kernel columns, then its odd ones (LayerPlan::Halves).
  const std::string Block =
      R"(  - {name: e, type: conv, out_channels: 96, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 96, kernel: 3, stride: 2, pad: 1, groups: 96, relu: true}
  - {name: p, type: conv, out_channels: 24, kernel: 1}
)";
  agrees("halvestriple", 16, 40, Block, "pix2+halves+dw+fused<>");
  agrees("halvespair", 16, 40,
         Block + "  - {name: q, type: conv, input: d, out_channels: 8, kernel: 3, pad: 1}\n"
                 "  - {name: cat, type: concat, inputs: [p, q]}\n",
         "pix2+halves+dw+fused<");
}

} // namespace
