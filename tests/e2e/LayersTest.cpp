//===- LayersTest.cpp - Every layer type, compiled and checked bit for bit -===//
//
// One small model per layer type or fusion (residual add, concat views,
// pooling kinds, fc, grouped and depthwise conv, standalone add and relu,
// batchnorm folding), plus randomized depthwise and residual blocks, each run
// on several hardware shapes against the reference executor. The randomized
// layers that share maps on chip are FusedLayersTest.cpp's.
//
//===----------------------------------------------------------------------===//

#include "../support/PlanText.h"
#include "LayersHarness.h"
#include "RandomModels.h"
#include "snow/isa/Isa.h"
#include "snow/sim/Report.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::test;

namespace {

std::string header(const std::string &Name, unsigned C, unsigned H, unsigned W) {
  return modelHeader(Name, C, H, W, 3);
}

/// The plan snowc --emit=plan prints for Yaml on preset Hw (uniform formats).
std::string planOn(const std::string &Yaml, const char *Hw) {
  auto Config = isa::loadHwConfig(Hw);
  if (!Config) {
    ADD_FAILURE() << llvm::toString(Config.takeError());
    return "";
  }
  auto G = ir::parseModel(Yaml, "plan.yaml");
  if (!G) {
    ADD_FAILURE() << llvm::toString(G.takeError());
    return "";
  }
  if (auto Err = ir::canonicalize(*G)) {
    ADD_FAILURE() << llvm::toString(std::move(Err));
    return "";
  }
  ir::quantize(*G, 8);
  return compiler::describePlan(*G, *Config);
}

TEST(Layers, ResidualAddIsFusedIntoTheConv) {
  check(header("res", 16, 20, 20) +
        R"(  - {name: stem, type: conv, out_channels: 32, kernel: 3, pad: 1, relu: true}
  - {name: a, type: conv, out_channels: 32, kernel: 3, pad: 1, relu: true}
  - {name: b, type: conv, out_channels: 32, kernel: 3, pad: 1}
  - {name: sum, type: add, inputs: [b, stem], relu: true}
  - {name: head, type: conv, out_channels: 8, kernel: 1}
)");
}

TEST(Layers, ResidualWithDownsampleAndBatchNorm) {
  check(header("bottleneck", 32, 16, 16) +
        R"(  - {name: c1, type: conv, out_channels: 16, kernel: 1, bias: false}
  - {name: bn1, type: batchnorm}
  - {name: r1, type: relu}
  - {name: c2, type: conv, out_channels: 16, kernel: 3, stride: 2, pad: 1, bias: false}
  - {name: bn2, type: batchnorm}
  - {name: r2, type: relu}
  - {name: c3, type: conv, out_channels: 80, kernel: 1, bias: false}
  - {name: bn3, type: batchnorm}
  - {name: down, type: conv, input: data, out_channels: 80, kernel: 1, stride: 2, bias: false}
  - {name: bnd, type: batchnorm}
  - {name: sum, type: add, inputs: [bn3, bnd], relu: true}
)");
}

TEST(Layers, ConcatWritesIntoChannelOffsets) {
  check(header("inception", 24, 14, 14) +
        R"(  - {name: b1, type: conv, input: data, out_channels: 16, kernel: 1, relu: true}
  - {name: b2r, type: conv, input: data, out_channels: 24, kernel: 1, relu: true}
  - {name: b2, type: conv, out_channels: 40, kernel: 3, pad: 1, relu: true}
  - {name: b3, type: maxpool, input: data, kernel: 3, stride: 1, pad: 1}
  - {name: b3p, type: conv, out_channels: 8, kernel: 1, relu: true}
  - {name: cat, type: concat, inputs: [b1, b2, b3p]}
  - {name: after, type: conv, out_channels: 32, kernel: 3, pad: 1}
)");
}

TEST(Layers, PoolingKinds) {
  check(header("pools", 40, 21, 17) +
            R"(  - {name: c, type: conv, out_channels: 48, kernel: 3, pad: 1}
  - {name: avg, type: avgpool, kernel: 3, stride: 2, pad: 1}
  - {name: mx, type: maxpool, kernel: 2, stride: 2, ceil_mode: true}
  - {name: gap, type: global_avgpool}
)",
        false);
}

TEST(Layers, FullyConnectedAfterFlatten) {
  check(header("mlp", 16, 6, 5) +
            R"(  - {name: c, type: conv, out_channels: 24, kernel: 3, pad: 1, relu: true}
  - {name: f, type: flatten}
  - {name: fc1, type: fc, out_features: 200, relu: true}
  - {name: fc2, type: fc, out_features: 37}
  - {name: sm, type: softmax}
)",
        false);
}

TEST(Layers, GroupedAndDepthwiseConv) {
  check(header("groups", 32, 19, 23) +
        R"(  - {name: g, type: conv, out_channels: 48, kernel: 3, pad: 1, groups: 4, relu: true}
  - {name: dw, type: conv, out_channels: 48, kernel: 3, stride: 2, pad: 1, groups: 48, relu: true}
  - {name: pw, type: conv, out_channels: 100, kernel: 1}
  - {name: dw2, type: conv, out_channels: 100, kernel: [5, 3], pad: [2, 1], groups: 100}
)");
}

TEST(Layers, StandaloneAddAndRelu) {
  // The add cannot be fused: both inputs are pooling layers.
  check(header("eltwise", 70, 12, 12) +
            R"(  - {name: p1, type: maxpool, input: data, kernel: 3, stride: 1, pad: 1}
  - {name: p2, type: avgpool, input: data, kernel: 3, stride: 1, pad: 1}
  - {name: s, type: add, inputs: [p1, p2]}
  - {name: r, type: relu}
)",
        false);
}

class RandomBlocks : public ::testing::TestWithParam<unsigned> {};

/// A MobileNet block (depthwise + pointwise) or a residual block with random
/// shapes, strides and channel counts (RandomModels.h).
TEST_P(RandomBlocks, MatchesReferenceBitForBit) {
  check(blockCase(GetParam()), false, rotatedPreset(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomBlocks, ::testing::Range(0u, 24u));

class RandomGrouped : public ::testing::TestWithParam<unsigned> {};

/// A grouped conv of 2..32 channels a group, odd group counts, random kernels
/// and strides, between pointwise convs (RandomModels.h).
TEST_P(RandomGrouped, MatchesReferenceBitForBit) {
  check(groupedCase(GetParam()), false, rotatedPreset(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomGrouped, ::testing::Range(0u, 18u));

class RandomInception : public ::testing::TestWithParam<unsigned> {};

/// Inception blocks (RandomModels.h): the merged reduce convs store their
/// output channels into the tensors the 3x3 and 5x5 convs read.
TEST_P(RandomInception, MatchesReferenceBitForBit) {
  check(inceptionCase(GetParam()), false, rotatedPreset(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomInception, ::testing::Range(0u, 12u));

class RandomInceptionOneFormat : public ::testing::TestWithParam<unsigned> {};

/// With one format everywhere (--uniform-format) the 1x1 branch merges with
/// the reduce convs too, and the merged conv stores its first slice straight
/// into the concat's tensor (a channel range of a wider tensor).
TEST_P(RandomInceptionOneFormat, MatchesReferenceBitForBit) {
  RunResult R;
  ASSERT_TRUE(runModel(inceptionCase(GetParam()), rotatedPreset(GetParam()).front(), R, {},
                       /*TimingOnly=*/false, /*UniformFormat=*/true));
  EXPECT_TRUE(sameBits(R));
  EXPECT_TRUE(
      llvm::any_of(R.Prog.Layers, [](const isa::LayerInfo &L) { return L.Name == "b1+b2r+b3r"; }));
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomInceptionOneFormat, ::testing::Range(0u, 12u));

TEST(Layers, InceptionBranchesRunAsOneConv) {
  RunResult R;
  ASSERT_TRUE(runModel(inceptionCase(1), "zc706", R));
  std::vector<std::string> Names;
  for (const isa::LayerInfo &L : R.Prog.Layers)
    Names.push_back(L.Name);
  EXPECT_EQ(Names, (std::vector<std::string>{"b1", "b2r+b3r", "b2r", "b3r", "b2", "b3", "b4p", "b4",
                                             "cat", "after"}));
  uint64_t Cycles = 0;
  for (const sim::LayerStats &L : R.Stats.Layers)
    if (L.Name == "b2r" || L.Name == "b3r")
      Cycles += L.Cycles;
  EXPECT_EQ(Cycles, 0u) << "slices are views: their conv writes them";
}

TEST(Layers, RandomGroupedConvsMostlyRunOnVdw) {
  // The cases above are only worth having if the per-group lowering is what
  // most of them exercise on zc706 (64-channel output groups).
  unsigned OnVdw = 0;
  for (unsigned Seed = 0; Seed < 18; ++Seed) {
    RunResult R;
    ASSERT_TRUE(runAndCompare(groupedCase(Seed), "zc706", false, R));
    for (const isa::Word128 &W : R.Prog.Code)
      if (auto I = isa::decode(W); I && I->Op == isa::Opcode::VDW) {
        ++OnVdw;
        break;
      }
  }
  EXPECT_GE(OnVdw, 9u);
}

} // namespace

namespace {

TEST(Layers, ModelTooLargeForDramIsAnErrorNamingTheModel) {
  auto Hw = isa::parseHwConfig("base: zc706\nname: small\ndram_mib: 1\n", "small.yaml");
  ASSERT_TRUE(bool(Hw)) << llvm::toString(Hw.takeError());
  auto G = ir::parseModel(header("big", 64, 64, 64) +
                              "  - {name: c, type: conv, out_channels: 256, kernel: 3, pad: 1}\n",
                          "big.yaml");
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  ASSERT_FALSE(ir::canonicalize(*G));
  ir::quantize(*G, 8);
  auto P = compiler::compile(*G, *Hw);
  ASSERT_FALSE(bool(P));
  std::string Msg = llvm::toString(P.takeError());
  EXPECT_NE(Msg.find("big.yaml:"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("needs"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("1 MiB"), std::string::npos) << Msg;
}

TEST(Layers, HostSoftmaxIsListedAndCostsNothing) {
  RunResult R;
  ASSERT_TRUE(runModel(header("cls", 8, 4, 4) + R"(  - {name: f, type: fc, out_features: 10}
  - {name: sm, type: softmax}
)",
                       "zc706", R));
  EXPECT_TRUE(sameBits(R));
  ASSERT_FALSE(R.Stats.Layers.empty());
  EXPECT_EQ(R.Prog.Layers.back().Type, isa::HostSoftmaxType);
  EXPECT_EQ(R.Stats.Layers.back().Cycles, 0u);
}

} // namespace

namespace {

TEST(Layers, StridedPointwiseConvGathersOnlyTheReadPixels) {
  // 1x1 kernels with stride > 1 and no padding: the loads skip the pixels the
  // kernel never reads (LayerPlan::StepY/StepX).
  check(header("sub", 96, 15, 17) +
        R"(  - {name: a, type: conv, out_channels: 80, kernel: 1, stride: 2}
  - {name: b, type: conv, out_channels: 40, kernel: 1, stride: [3, 2], relu: true}
)");
}

// A square (mul [c, c], a layernorm's) loads its one tensor once; a product
// of two tensors loads both. Bit-exact either way.
TEST(Layers, ASquareLoadsItsTensorOnce) {
  std::string Yaml = header("sq", 40, 20, 18) +
                     R"(  - {name: c, type: conv, out_channels: 48, kernel: 3, pad: 1}
  - {name: d, type: conv, input: data, out_channels: 48, kernel: 1}
  - {name: sq, type: mul, inputs: [c, c]}
  - {name: cd, type: mul, inputs: [c, d]}
  - {name: sum, type: add, inputs: [sq, cd]}
)";
  RunResult R;
  ASSERT_TRUE(runModel(Yaml, "zc706", R));
  EXPECT_TRUE(sameBits(R));
  const uint64_t Tensor = 48 * 20 * 18 * 2;
  unsigned Seen = 0;
  for (const sim::LayerStats &L : R.Stats.Layers) {
    if (L.Name == "sq") {
      EXPECT_LT(L.DramReadBytes, Tensor * 3 / 2);
      ++Seen;
    } else if (L.Name == "cd") {
      EXPECT_GE(L.DramReadBytes, 2 * Tensor);
      ++Seen;
    }
  }
  EXPECT_EQ(Seen, 2u);
}

// A depthwise tile may be larger than the accumulators (zc706: 128 entries,
// narrow8: 32): it is traced and written back in bands of whole rows
// (LayerPlan::bandRows), which loads less halo. Bit-exact with a stride,
// a 5x5 kernel, an activation table and a fused residual, and the plan
// really takes such a tile.
TEST(Layers, DepthwiseTilesOutgrowTheAccumulators) {
  const std::string Yaml =
      header("bands", 96, 28, 26) +
      R"(  - {name: d1, type: conv, out_channels: 96, kernel: 3, pad: 1, groups: 96}
  - {name: res, type: add, inputs: [d1, data], relu: true}
  - {name: d2, type: conv, out_channels: 96, kernel: 5, pad: 2, groups: 96}
  - {name: act, type: sigmoid}
  - {name: d3, type: conv, out_channels: 96, kernel: 3, stride: 2, pad: 1, groups: 96, relu: true}
)";
  // Some depthwise tile has more pixels than the accumulators.
  const std::string Plan = planOn(Yaml, "zc706");
  EXPECT_GT(largestDepthwiseTile(Plan), isa::loadHwConfig("zc706")->AccEntries) << Plan;
  check(Yaml);
}

TEST(Layers, OnePixelWideKernelsKeepAllChannelsAcrossChunks) {
  // 600 input channels need two weight chunks on zc706 (and more on
  // narrow8); with a one-pixel-wide kernel the maps stay loaded across them
  // (the default), or load chunk by chunk (--no-full-depth).
  std::string Yaml = header("deep", 600, 9, 7) +
                     R"(  - {name: a, type: conv, out_channels: 72, kernel: 1}
  - {name: b, type: conv, out_channels: 40, kernel: [3, 1], pad: [1, 0], relu: true}
)";
  for (bool Full : {true, false})
    for (const char *Hw : {"zc706", "mini64", "narrow8"}) {
      SCOPED_TRACE(fmt::format("{} full depth {}", Hw, Full));
      compiler::CompileOptions O;
      O.FullDepthMaps = Full;
      RunResult R;
      ASSERT_TRUE(runModel(Yaml, Hw, R, O));
      EXPECT_TRUE(sameBits(R));
    }
}

} // namespace

namespace {

TEST(Layers, SmallMapsSpreadOutputChannelsOverCus) {
  // 13x13 does not split evenly into one tile per CU; with 256 output
  // channels the planner lets CUs share one tile and take different output
  // groups instead (maps broadcast, weights per CU).
  std::string Yaml = header("split", 96, 13, 13) +
                     R"(  - {name: a, type: conv, out_channels: 256, kernel: 3, pad: 1, relu: true}
  - {name: b, type: conv, out_channels: 256, kernel: 3, pad: 1}
  - {name: sum, type: add, inputs: [b, a]}
)";
  const std::string Plan = planOn(Yaml, "zc706");
  EXPECT_NE(Plan.find("+split"), std::string::npos) << Plan;
  check(Yaml, true, {"zc706", "mini64", "narrow8", "big1024"});
}

} // namespace

namespace {

// ShuffleNet v2's unit in YAML: a channel shuffle and the two halves of a
// split are selections (1x1 convs with 0/1 weights), exact; torch's
// channel_shuffle order (output b * g + a is input a * C/g + b).
TEST(Layers, ShuffleAndSliceAreExactSelections) {
  check(header("shuffle", 24, 10, 9) +
            R"(  - {name: c, type: conv, out_channels: 24, kernel: 3, pad: 1, relu: true}
  - {name: left, type: slice, input: c, begin: 0, channels: 12}
  - {name: right, type: slice, input: c, begin: 12, channels: 12}
  - {name: b, type: conv, input: right, out_channels: 12, kernel: 1, relu: true}
  - {name: cat, type: concat, inputs: [left, b]}
  - {name: sh, type: shuffle, groups: 2}
  - {name: out, type: conv, out_channels: 10, kernel: 1}
)",
        false);
  auto G =
      ir::parseModel(header("s", 6, 2, 2) + "  - {name: sh, type: shuffle, groups: 3}\n", "s.yaml");
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  const ir::Layer &S = G->Layers[0];
  ASSERT_EQ(S.Out.C, 6u);
  // Rows: output b * 3 + a reads input a * 2 + b: 0, 2, 4, 1, 3, 5.
  const unsigned Want[] = {0, 2, 4, 1, 3, 5};
  for (unsigned O = 0; O < 6; ++O)
    for (unsigned I = 0; I < 6 / S.Groups; ++I)
      EXPECT_EQ(S.Weights[O * (6 / S.Groups) + I],
                Want[O] % (6 / S.Groups) == I && Want[O] / (6 / S.Groups) == O / (6 / S.Groups)
                    ? 1.0f
                    : 0.0f)
          << O << ", " << I;
}

// A slice that a wide 3x3 conv reads stays a selection (taking its rows would
// cost the conv more MACs than the copy): it runs, and takes cycles, but its
// MACs are not the network's work. The program's layer table gives it none,
// so whole-network utilization counts the convs' MACs only, as the model
// without the slice would (docs/stats-json.md).
TEST(Layers, ChannelCopiesAreNotCountedAsWork) {
  const std::string Yaml = header("copy", 24, 12, 12) +
                           R"(  - {name: c, type: conv, out_channels: 24, kernel: 1, relu: true}
  - {name: part, type: slice, input: c, begin: 4, channels: 8}
  - {name: wide, type: conv, input: part, out_channels: 64, kernel: 3, pad: 1}
)";
  RunResult R;
  ASSERT_TRUE(runModel(Yaml, "zc706", R));
  EXPECT_TRUE(sameBits(R));
  const uint64_t Convs = 24ull * 12 * 12 * 24 + 64ull * 12 * 12 * 8 * 9;
  size_t Copy = R.Prog.Layers.size();
  for (size_t I = 0; I < R.Prog.Layers.size(); ++I)
    if (R.Prog.Layers[I].Name == "part")
      Copy = I;
  ASSERT_LT(Copy, R.Prog.Layers.size()) << "the slice was folded: the test needs a copy";
  EXPECT_EQ(R.Prog.Layers[Copy].Type, "slice");
  EXPECT_EQ(R.Prog.Layers[Copy].Macs, 0u);
  EXPECT_GT(R.Stats.Layers[Copy].Cycles, 0u) << "the copy runs";
  EXPECT_GT(R.Stats.Layers[Copy].MacCycles, 0u);
  EXPECT_EQ(R.Stats.Macs, Convs);
  EXPECT_EQ(R.Macs, Convs);
  const std::string Report = sim::formatReport(R.Stats, R.Prog);
  EXPECT_NE(Report.find(fmt::format("channel copies: 1 layers (select, shuffle, slice), {} cycles",
                                    R.Stats.Layers[Copy].Cycles)),
            std::string::npos)
      << Report;
  const llvm::json::Object J = sim::toJsonObject(R.Stats, R.Prog);
  EXPECT_EQ(J.getObject("total")->getInteger("channel_copy_cycles"),
            llvm::Optional<int64_t>(int64_t(R.Stats.Layers[Copy].Cycles)));
}

} // namespace
