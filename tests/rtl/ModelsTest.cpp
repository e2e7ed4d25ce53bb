//===- ModelsTest.cpp - The networks at reduced size, sim vs RTL ----------===//
//
// models/*.yaml with the input shrunk (224x224 -> 32..64) and AlexNet's and
// VGG-16's 4096-wide fully connected layers narrowed to 256, so that all
// fit the CI budget on the RTL (about 78 k cycles per second on zc706; most
// of these cycles move the real weights of the convolutions, which do not
// shrink with the input). Everything else (layer structure, channel counts,
// seeded weights, calibrated formats) is the model as committed. MobileNet v2
// adds the activation table (vlut, vwb with lut). The full networks at
// 224x224 are compared by scripts/rtl-long-tests.sh.
//
//===----------------------------------------------------------------------===//

#include "../support/PlanText.h"
#include "../support/SharedModels.h"
#include "CoSim.h"
#include "snow/isa/Isa.h"

using namespace snow;
using namespace snow::test;

namespace {

struct ModelCase {
  const char *Model;
  unsigned Size;
  const char *Hw;
};

std::ostream &operator<<(std::ostream &OS, const ModelCase &C) {
  return OS << C.Model << " " << C.Size << "x" << C.Size << " on " << C.Hw;
}

const ModelCase Cases[] = {
    {"alexnet", 64, "zc706"},
    {"googlenet", 48, "zc706"},
    {"resnet50", 32, "zc706"},
    {"vgg16", 32, "zc706"},
    {"mobilenet_v1", 32, "zc706"},
    {"squeezenet1_1", 32, "zc706"},
    {"squeezenet1_1", 40, "mini64"},
    {"mobilenet_v1", 32, "mini64"},
    {"tiny", 0, "big1024"},
    // ReLU6 through the activation table: vlut and vwb with lut in every layer.
    {"mobilenet_v2", 32, "zc706"},
    // Shuffles and halves folded into the convs that read them, concats
    // split by reader (docs/model-format.md, step 4b).
    {"shufflenet_v2_x1_0", 64, "zc706"},
    {"shufflenet_v2_x1_0", 64, "mini64"},
    // The paper's datapath: one writeback word and one pooling word a cycle,
    // one maps read address (no vmacp, banked or copied reads), trace rows
    // in whole 16-element words (AlexNet's 11 x 3 stem), no DMA row merging.
    {"alexnet", 64, "zc706_paper"},
    {"mobilenet_v2", 32, "zc706_paper"},
    {"squeezenet1_1", 32, "zc706_paper"},
};

/// The model's YAML at Size x Size (0: as committed), fc layers at most 256 wide.
std::string reduced(const std::string &Yaml, unsigned Size) {
  std::string Y = Yaml;
  auto ReplaceAll = [&](const std::string &From, const std::string &To) {
    for (size_t At = Y.find(From); At != std::string::npos; At = Y.find(From, At + To.size()))
      Y.replace(At, From.size(), To);
  };
  if (Size)
    ReplaceAll("shape: [3, 224, 224]",
               "shape: [3, " + std::to_string(Size) + ", " + std::to_string(Size) + "]");
  ReplaceAll("out_features: 4096", "out_features: 256");
  return Y;
}

class RtlModels : public CoSimTest, public ::testing::WithParamInterface<ModelCase> {};

TEST_P(RtlModels, SimAndRtlAgree) {
  const ModelCase &C = GetParam();
  std::string Yaml = readBytes(SourceDir + "/models/" + C.Model + ".yaml");
  ASSERT_FALSE(Yaml.empty()) << "cannot read models/" << C.Model << ".yaml";
  std::string Small = reduced(Yaml, C.Size);
  if (C.Size) {
    ASSERT_NE(Small, Yaml) << "models/" << C.Model << ".yaml no longer has a 3x224x224 input";
  }
  compileFor("m.bin", Small, C.Hw);
  if (HasFatalFailure())
    return;
  EXPECT_TRUE(coSimulate("m.bin"));
}

INSTANTIATE_TEST_SUITE_P(Reduced, RtlModels, ::testing::ValuesIn(Cases),
                         [](const ::testing::TestParamInfo<ModelCase> &I) {
                           return std::string(I.param.Model) + "_" + std::to_string(I.param.Size) +
                                  "_" + I.param.Hw;
                         });

} // namespace

namespace {

/// The first number under Key in snowsim's stats JSON (after the key
/// Within, if given: "total"), or 0 if there is none.
uint64_t jsonCount(const std::string &Json, const std::string &Key,
                   const std::string &Within = "") {
  const std::string Quoted = "\"" + Key + "\":";
  const size_t At = Json.find(Quoted, Within.empty() ? 0 : Json.find("\"" + Within + "\""));
  return At == std::string::npos ? 0 : std::stoull(Json.substr(At + Quoted.size()));
}

class RtlBatch : public CoSimTest {
protected:
  /// Frames frames of C x H x W distinct values in [-1, 1] as float32 .npy.
  void writeFrames(const std::string &Name, unsigned Frames, unsigned C, unsigned H, unsigned W) {
    std::string Data;
    for (unsigned I = 0; I < Frames * C * H * W; ++I) {
      float V = float(int(I * 7919 % 2001) - 1000) / 1000.0f;
      Data.append(reinterpret_cast<const char *>(&V), 4);
    }
    write(Name, makeNpy("<f4", {Frames, C, H, W}, Data));
  }
  /// The plan snowc --emit=plan prints for the model compileFor wrote for
  /// Bin on zc706 (plan rows: "name type chunks RxW ... order ...").
  std::string zc706Plan(const std::string &Bin, const std::vector<std::string> &Flags = {}) {
    std::vector<std::string> Args = {Bin + ".yaml", "--hw", "zc706", "--emit=plan", "-o", "-"};
    Args.insert(Args.end(), Flags.begin(), Flags.end());
    ToolResult Plan = run("snowc", Args);
    EXPECT_TRUE(succeeded(Plan)) << Plan;
    return Plan.Out;
  }
  /// Compiles Yaml for zc706 at Batch into Bin and returns its plan (snowc
  /// --emit=plan at that batch); empty, with a failure, if either fails.
  std::string compileBatchPlanned(const std::string &Bin, const std::string &Yaml, unsigned Batch,
                                  const std::vector<std::string> &Flags = {}) {
    const std::string N = std::to_string(Batch);
    std::vector<std::string> Args = {"--batch", N};
    Args.insert(Args.end(), Flags.begin(), Flags.end());
    compileFor(Bin, Yaml, "zc706", Args);
    if (HasFatalFailure())
      return "";
    std::vector<std::string> PlanArgs = {Bin + ".yaml", "--hw", "zc706", "--emit=plan", "-o", "-"};
    PlanArgs.insert(PlanArgs.end(), Args.begin(), Args.end());
    ToolResult Plan = run("snowc", PlanArgs);
    EXPECT_TRUE(succeeded(Plan)) << Plan;
    return Plan.Out;
  }
  /// Compiles Yaml for zc706 into Bin, checks that its plan shows Token (the
  /// case tests what it is for), and co-simulates it.
  void coSimulatePlanned(const std::string &Bin, const std::string &Yaml, const std::string &Token,
                         const std::vector<std::string> &Flags = {}) {
    compileFor(Bin, Yaml, "zc706", Flags);
    if (HasFatalFailure())
      return;
    const std::string Plan = zc706Plan(Bin, Flags);
    EXPECT_NE(Plan.find(Token), std::string::npos) << Plan;
    EXPECT_TRUE(coSimulate(Bin));
  }
};

/// A batched program (snowc --batch, docs/batch.md) runs the same existing
/// instructions: one run of three distinct frames through convs, a pool and
/// fc layers over the stacked frames, cycle- and bit-identical on the RTL.
TEST_F(RtlBatch, BatchedProgramAgrees) {
  compileFor("b.bin", R"(name: minialex
input: {name: data, shape: [3, 24, 24]}
weights: {seed: 11}
layers:
  - {name: c1, type: conv, input: data, out_channels: 32, kernel: 5, stride: 2, pad: 2, relu: true}
  - {name: p1, type: maxpool, kernel: 3, stride: 2}
  - {name: c2, type: conv, out_channels: 48, kernel: 3, stride: 1, pad: 1, relu: true}
  - {name: f6, type: fc, out_features: 200, relu: true}
  - {name: f7, type: fc, out_features: 10}
)",
             "mini64", {"--batch", "3"});
  if (HasFatalFailure())
    return;
  writeFrames("x.npy", 3, 3, 24, 24);
  ToolResult Sim;
  EXPECT_TRUE(coSimulate("b.bin", false, {"--input", "x.npy"}, &Sim));
  EXPECT_NE(Sim.Out.find("3 frames in one run"), std::string::npos) << Sim;
}

/// A pool beside the conv it reads at batch 1 (docs/compiler.md, step 9a):
/// its loads wait for the conv's RowsDone signals band by band, its steps
/// run between the conv's; cycle- and bit-identical on the RTL.
TEST_F(RtlBatch, PoolBesideItsConvAgrees) {
  compileFor("p.bin", R"(name: stem
input: {name: data, shape: [32, 40, 40]}
weights: {seed: 5}
layers:
  - {name: c1, type: conv, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: p1, type: maxpool, kernel: 3, stride: 2, ceil_mode: true}
  - {name: c2, type: conv, out_channels: 32, kernel: 1, relu: true}
)",
             "zc706");
  if (HasFatalFailure())
    return;
  auto P = isa::readProgram(path("p.bin").string());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  unsigned Waits = 0;
  for (const isa::Word128 &W : P->Code)
    if (auto I = isa::decode(W))
      Waits += I->Op == isa::Opcode::SYNC_LD_WAIT && I->idx == 15;
  EXPECT_GT(Waits, 1u) << "the pool did not run beside the conv";
  EXPECT_TRUE(coSimulate("p.bin"));
}

/// A pool beside the stem it reads, fused with the two 1x1 convs that read
/// it (FuseBeside.cpp; docs/compiler.md, step 9b, "beside a conv"): each
/// group of tiles' pool and 1x1 steps in the banks of a stem step's input
/// region, the 1x1 weights riding with the stem's; RTL == simulator.
TEST_F(RtlBatch, APairBesideItsStemAgrees) {
  compileFor("bp.bin", R"(name: resstem
input: {name: data, shape: [3, 112, 112]}
weights: {seed: 7}
layers:
  - {name: c1, type: conv, out_channels: 64, kernel: 7, stride: 2, pad: 3, relu: true}
  - {name: p1, type: maxpool, kernel: 3, stride: 2, pad: 1}
  - {name: down, type: conv, input: p1, out_channels: 256, kernel: 1}
  - {name: a, type: conv, input: p1, out_channels: 64, kernel: 1, relu: true}
)",
             "zc706");
  if (HasFatalFailure())
    return;
  const std::string Plan = zc706Plan("bp.bin");
  EXPECT_TRUE(llvm::StringRef(planOrder(Plan, "p1")).contains("+beside")) << Plan;
  EXPECT_TRUE(llvm::StringRef(planOrder(Plan, "a")).contains("fused<")) << Plan;
  EXPECT_TRUE(coSimulate("bp.bin"));
}

/// Depthwise tiles larger than the accumulators run in bands of rows
/// (LayerPlan::bandRows): RTL == simulator in cycles and bytes, with a
/// fused residual's preload per band.
TEST_F(RtlBatch, DepthwiseBandsAgree) {
  compileFor("dw.bin", R"(name: bands
input: {name: data, shape: [64, 20, 18]}
weights: {seed: 9}
layers:
  - {name: d1, type: conv, out_channels: 64, kernel: 3, pad: 1, groups: 64}
  - {name: res, type: add, inputs: [d1, data], relu: true}
  - {name: d2, type: conv, out_channels: 64, kernel: 5, pad: 2, groups: 64, relu: true}
)",
             "zc706");
  if (HasFatalFailure())
    return;
  // The plan really takes a depthwise tile larger than zc706's 128
  // accumulator entries.
  const std::string Plan = zc706Plan("dw.bin");
  EXPECT_GT(largestDepthwiseTile(Plan), 128u) << Plan;
  EXPECT_TRUE(coSimulate("dw.bin"));
}

/// A depthwise conv fused into the 1x1 conv it feeds (Fuse.cpp): the
/// depthwise output written back into the maps buffer and read there by the
/// 1x1 traces, the area's region freed only after them (a last chunk of 32
/// channels, ReLU6 through the table, a fused residual).
TEST_F(RtlBatch, FusedDepthwiseAgrees) {
  coSimulatePlanned("fuse.bin", R"(name: fused
input: {name: data, shape: [24, 14, 13]}
weights: {seed: 4}
layers:
  - {name: e, type: conv, out_channels: 96, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 96, kernel: 3, pad: 1, groups: 96, bias: false}
  - {name: d_bn, type: batchnorm}
  - {name: d_r, type: relu6}
  - {name: p, type: conv, out_channels: 24, kernel: 1}
  - {name: sum, type: add, inputs: [p, data]}
)",
                    "+fused<");
}

/// A dense 1x1 conv fused with the 1x1 conv after it (LayerPlan::StoresToo):
/// each of its output groups written back twice, to the output region
/// (stored, with its residual) and into the area the next conv reads, the
/// residual loaded with the group's maps (DensePairYaml,
/// tests/support/SharedModels.h): 235,523 cycles.
TEST_F(RtlBatch, DensePairAgrees) { coSimulatePlanned("dense.bin", DensePairYaml, "+fused>"); }

/// A concat pair (FuseConcat.cpp) over two frames: a fire module's 1x1
/// and 3x3 expands writing their channels of the concat into the area, the
/// next 16-channel squeeze reading it four pixels a step from four banks
/// across both input regions (FirePairYaml, tests/support/SharedModels.h).
TEST_F(RtlBatch, ConcatPairAgrees) {
  coSimulatePlanned("fire.bin", FirePairYaml, "banked4+fulldepth+fused<", {"--batch", "2"});
}

/// A concat laid out input by input (BlockedConcatYaml): each 29-channel
/// input stores its own tensor, the 1x1 reader loads a DMA row a pixel of
/// each.
TEST_F(RtlBatch, BlockedConcatAgrees) {
  compileFor("blocked.bin", BlockedConcatYaml, "zc706", {});
  if (HasFatalFailure())
    return;
  EXPECT_TRUE(coSimulate("blocked.bin"));
}

/// Block triples whose 16- and 12-channel projections read four pixels a
/// trace from four banks across both input regions (LayerPlan::Straddles):
/// a pool in the middle, a map of one round, whose expansion takes the
/// second region from the load unit (Step::TakeOther), and an expansion on
/// pixel pairs from a copy of its window, the second region's in the
/// second output region (CopiedFourBankYaml).
TEST_F(RtlBatch, FourBankTriplesAgree) {
  coSimulatePlanned("pool4.bin", FourBankPoolYaml, "banked4+fused<+block");
  coSimulatePlanned("round4.bin", FourBankRoundYaml, "banked4+fused<+block");
  coSimulatePlanned("copy4.bin", CopiedFourBankYaml, "copied2+fused>", {"--no-dw-quarters"});
  coSimulatePlanned("quart4.bin", CopiedFourBankYaml, "copied2+quarters+fused>");
}

/// A fused pair whose 1x1 conv reads a banked area (LayerPlan::Banked):
/// the depthwise conv writes each band's even columns to one bank and its
/// odd ones to the next, and the 24-channel 1x1 conv's vmacp reads a pixel
/// from each bank in one cycle (maps_ports_per_bank), with a fused residual.
/// (Without copied windows: with them the block copies its depthwise
/// output instead, RtlPoolBoundaries.ACopiedBlockTripleAgrees.)
TEST_F(RtlBatch, BankedPairAgrees) {
  coSimulatePlanned("bank.bin", R"(name: banked
input: {name: data, shape: [24, 30, 16]}
weights: {seed: 6}
layers:
  - {name: e, type: conv, out_channels: 144, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 144, kernel: 3, pad: 1, groups: 144, bias: false}
  - {name: d_bn, type: batchnorm}
  - {name: d_r, type: relu6}
  - {name: p, type: conv, out_channels: 24, kernel: 1}
  - {name: sum, type: add, inputs: [p, data]}
)",
                    "+banked2", {"--no-copied-windows"});
}

/// A banked pair whose tile has more pixels than the accumulators have
/// entries (two pixels an entry for the 1x1 conv; the depthwise producer
/// traces it in bands of rows): 176-pixel tiles of a 64x64 map on zc706's
/// 128 entries.
TEST_F(RtlBatch, BankedPairBeyondTheAccumulatorsAgrees) {
  coSimulatePlanned("bigbank.bin", R"(name: bigbank
input: {name: data, shape: [32, 64, 64]}
weights: {seed: 8}
layers:
  - {name: d, type: conv, out_channels: 32, kernel: 3, pad: 1, groups: 32, bias: false}
  - {name: d_r, type: relu6}
  - {name: p, type: conv, out_channels: 16, kernel: 1}
)",
                    "+banked2");
  // The pair's tile (the producer's and the 1x1 conv's).
  EXPECT_GT(largestDepthwiseTile(zc706Plan("bigbank.bin")), isa::HwConfig().AccEntries);
}

/// The same with a max pool as the producer: its windows write the even
/// columns into one bank, then the odd ones into the next (two chunks, 64
/// and 32 channels).
TEST_F(RtlBatch, BankedPoolPairAgrees) {
  coSimulatePlanned("bpool.bin", R"(name: bankedpool
input: {name: data, shape: [48, 20, 24]}
weights: {seed: 7}
layers:
  - {name: c, type: conv, out_channels: 96, kernel: 1, relu: true}
  - {name: p, type: maxpool, kernel: 3, stride: 1, pad: 1}
  - {name: pp, type: conv, out_channels: 32, kernel: 1, relu: true}
)",
                    "+banked2+fulldepth+fused<");
}

/// A 240-channel map (480 bytes a pixel, 7.5 bursts of 64) stored by a 1x1
/// conv's output groups and loaded by a strided 5x5 depthwise conv's
/// chunks, with a pixel stride of 256 channels (CompileOptions::PadPixels)
/// and without: both agree on the RTL, and the padded one keeps the DRAM
/// channel busy for fewer cycles (each group's rows start on a burst).
TEST_F(RtlBatch, PaddedPixelsAgree) {
  const std::string Yaml = R"(name: padded
input: {name: data, shape: [40, 18, 20]}
weights: {seed: 9}
layers:
  - {name: e, type: conv, out_channels: 240, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 240, kernel: 5, stride: 2, pad: 2, groups: 240, relu: true}
  - {name: p, type: conv, out_channels: 40, kernel: 1}
)";
  compileFor("pad.bin", Yaml, "zc706");
  compileFor("dense.bin", Yaml, "zc706", {"--no-pad-pixels"});
  if (HasFatalFailure())
    return;
  EXPECT_TRUE(coSimulate("dense.bin"));
  const std::string Dense = read("snowsim.json");
  EXPECT_TRUE(coSimulate("pad.bin"));
  const std::string Padded = read("snowsim.json");
  auto Busy = [](const std::string &Json) { return jsonCount(Json, "dram_busy_cycles"); };
  EXPECT_GT(Busy(Padded), 0u);
  EXPECT_LT(Busy(Padded), Busy(Dense));
}

/// A depthwise conv's chunks loaded as the 1x1 conv before it stores their
/// channels (CompileOptions::StartOnChannels): loads of some channels of
/// pixels while stores write others, which the RTL's DRAM rule, like the
/// simulator's, compares by bytes. Batch 2: every frame's chunks. (The
/// three apart: since 2026-12-05 they make a block triple by default.)
TEST_F(RtlBatch, ChunksStartOnTheirChannelsAgree) {
  const std::string Yaml = R"(name: chans
input: {name: data, shape: [64, 14, 14]}
weights: {seed: 4}
layers:
  - {name: e, type: conv, out_channels: 384, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 384, kernel: 3, pad: 1, groups: 384, relu: true}
  - {name: p, type: conv, out_channels: 64, kernel: 1}
)";
  compileFor("chan.bin", Yaml, "zc706", {"--no-fuse-blocks"});
  compileFor("chan2.bin", Yaml, "zc706", {"--batch", "2", "--no-fuse-blocks"});
  compileFor("rows.bin", Yaml, "zc706", {"--no-start-on-channels", "--no-fuse-blocks"});
  if (HasFatalFailure())
    return;
  EXPECT_TRUE(coSimulate("rows.bin"));
  const std::string Rows = read("snowsim.json");
  EXPECT_TRUE(coSimulate("chan.bin"));
  const std::string Chans = read("snowsim.json");
  auto Cycles = [](const std::string &Json) { return jsonCount(Json, "cycles", "total"); };
  EXPECT_GT(Cycles(Chans), 0u);
  EXPECT_LT(Cycles(Chans), Cycles(Rows));
  EXPECT_TRUE(coSimulate("chan2.bin"));
}

/// Two fused pairs of one group of tiles, each producer's input full depth
/// in one input region and its area in the other (Fuse.cpp): d1's area
/// region taken by the load unit, d2's freed by p1 only after p2; d2's
/// chunks load as p1 stores them.
TEST_F(RtlBatch, FullDepthPairsAgree) {
  compileFor("fd.bin", R"(name: fd
input: {name: data, shape: [128, 14, 14]}
weights: {seed: 6}
layers:
  - {name: d1, type: conv, out_channels: 128, kernel: 3, pad: 1, groups: 128, relu: true}
  - {name: p1, type: conv, out_channels: 256, kernel: 1, relu: true}
  - {name: d2, type: conv, out_channels: 256, kernel: 3, pad: 1, groups: 256, relu: true}
  - {name: p2, type: conv, out_channels: 256, kernel: 1, relu: true}
)",
             "zc706");
  if (HasFatalFailure())
    return;
  EXPECT_TRUE(coSimulate("fd.bin"));
}

/// Fused pairs over a batch (Fuse.cpp): an inverted residual block on chip
/// (a block triple, FuseBlocks.cpp, its projection with a fused residual)
/// and a max pool of the sum with its 1x1 conv, group of tiles by group of
/// tiles through three distinct frames.
TEST_F(RtlBatch, BatchedFusedPairsAgree) {
  compileFor("bp.bin", R"(name: batchpairs
input: {name: data, shape: [24, 14, 12]}
weights: {seed: 5}
layers:
  - {name: e, type: conv, out_channels: 96, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 96, kernel: 3, pad: 1, groups: 96, bias: false}
  - {name: d_r, type: relu6}
  - {name: p, type: conv, out_channels: 24, kernel: 1}
  - {name: sum, type: add, inputs: [p, data]}
  - {name: mp, type: maxpool, kernel: 3, stride: 1, pad: 1}
  - {name: mpp, type: conv, out_channels: 48, kernel: 1, relu: true}
)",
             "zc706", {"--batch", "3"});
  if (HasFatalFailure())
    return;
  ToolResult Plan =
      run("snowc", {"bp.bin.yaml", "--hw", "zc706", "--batch", "3", "--emit=plan", "-o", "-"});
  ASSERT_TRUE(succeeded(Plan)) << Plan;
  unsigned Producers = 0;
  for (size_t At = Plan.Out.find("fused>"); At != std::string::npos;
       At = Plan.Out.find("fused>", At + 1))
    ++Producers;
  EXPECT_EQ(Producers, 2u) << "both producers fused:\n" << Plan.Out;
  writeFrames("x.npy", 3, 24, 14, 12);
  ToolResult Sim;
  EXPECT_TRUE(coSimulate("bp.bin", false, {"--input", "x.npy"}, &Sim));
  EXPECT_NE(Sim.Out.find("3 frames in one run"), std::string::npos) << Sim;
}

/// Full-depth producers of several groups of tiles (FullDepthGroupsYaml,
/// tests/support/SharedModels.h).
TEST_F(RtlBatch, FullDepthGroupsAgree) {
  coSimulatePlanned("fdg.bin", FullDepthGroupsYaml, "fulldepth+fused>");
}

/// A full-depth depthwise producer of partial channel groups (Fuse.cpp):
/// 232 channels, three 64-channel chunks and one of 40, whose vdw reads a
/// group's width past each pixel into the next one's first channels, over
/// two groups of tiles.
TEST_F(RtlBatch, PartialGroupsFullDepthAgree) {
  coSimulatePlanned("pfd.bin", R"(name: pfd
input: {name: data, shape: [232, 14, 14]}
weights: {seed: 7}
layers:
  - {name: d, type: conv, out_channels: 232, kernel: 3, pad: 1, groups: 232, relu: true}
  - {name: p, type: conv, out_channels: 48, kernel: 1, relu: true}
)",
                    "fulldepth+dw+fused>");
}

/// A max pool of a concat pooled branch by branch (canonicalize, model-format
/// step 7a): each part reads one conv's output and stores its channels into
/// the concat's tensor; alone and over two frames.
TEST_F(RtlBatch, PoolOfConcatByInputAgrees) {
  const std::string Yaml = R"(name: poolcat
input: {name: data, shape: [32, 20, 20]}
weights: {seed: 4}
layers:
  - {name: a, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: r, type: conv, input: data, out_channels: 48, kernel: 1, relu: true}
  - {name: b, type: conv, out_channels: 96, kernel: 3, pad: 1, relu: true}
  - {name: ab, type: concat, inputs: [a, b]}
  - {name: p, type: maxpool, kernel: 3, stride: 2, ceil_mode: true}
  - {name: c, type: conv, out_channels: 32, kernel: 1, relu: true}
)";
  coSimulatePlanned("pc.bin", Yaml, "\np[64:160] ");
  compileFor("pc2.bin", Yaml, "zc706", {"--batch", "2"});
  if (HasFatalFailure())
    return;
  writeFrames("x2.npy", 2, 32, 20, 20);
  EXPECT_TRUE(coSimulate("pc2.bin", false, {"--input", "x2.npy"}));
}

/// Two pools beside one conv over two frames (docs/compiler.md, step 9a,
/// "two pools"): an inception block's 3x3 conv b hosts the block's branch
/// pool bp (of the block's input) and the part of the next max pool that
/// pools b's output (waiting for b's rows), their steps also between b's
/// chunks (b writes once in four steps): TwoPoolsYaml, which
/// tests/e2e/BatchTest.cpp checks bit-exact frame by frame.
TEST_F(RtlBatch, TwoPoolsBesideOneConvAgree) {
  const std::string Plan = compileBatchPlanned("tp.bin", TwoPoolsYaml, 2);
  if (HasFailure())
    return;
  for (const char *Pool : {"bp", "p[32:160]"})
    EXPECT_TRUE(llvm::StringRef(planOrder(Plan, Pool)).contains("+beside"))
        << Pool << " runs beside b: " << Plan;
  writeFrames("x2.npy", 2, 256, 28, 28);
  EXPECT_TRUE(coSimulate("tp.bin", false, {"--input", "x2.npy"}));
}

/// A pool beside the last part of a conv planned in two parts, over four
/// frames: LastPartPoolYaml, which tests/e2e/BatchTest.cpp checks bit-exact
/// frame by frame.
TEST_F(RtlBatch, PoolBesideALastPartAgrees) {
  const std::string Plan =
      compileBatchPlanned("lp.bin", LastPartPoolYaml, 4, {"--no-copied-windows"}); // c in two parts
  if (HasFailure())
    return;
  EXPECT_TRUE(llvm::StringRef(planOrder(Plan, "p[32:128]")).contains("+beside")) << Plan;
  EXPECT_FALSE(planOrder(Plan, "c[64:96]").empty()) << "c in two parts: " << Plan;
  writeFrames("x4.npy", 4, 16, 28, 28);
  EXPECT_TRUE(coSimulate("lp.bin", false, {"--input", "x4.npy"}));
}

/// Squeeze-and-excitation batched: the scale runs frame by frame, each part
/// loading its own frame's s after the batch's fc layers computed them.
TEST_F(RtlBatch, BatchedSqueezeExciteAgrees) {
  compileFor("se.bin", R"(name: minise
input: {name: data, shape: [3, 12, 12]}
weights: {seed: 5}
layers:
  - {name: c1, type: conv, input: data, out_channels: 24, kernel: 3, stride: 1, pad: 1, relu: true}
  - {name: gap, type: global_avgpool}
  - {name: f1, type: conv, out_channels: 8, kernel: 1, relu: true}
  - {name: f2, type: conv, out_channels: 24, kernel: 1}
  - {name: s, type: sigmoid}
  - {name: x, type: scale, inputs: [c1, s]}
  - {name: c2, type: conv, out_channels: 16, kernel: 3, stride: 2, pad: 1}
)",
             "mini64", {"--batch", "3"});
  if (HasFatalFailure())
    return;
  writeFrames("xse.npy", 3, 3, 12, 12);
  ToolResult Sim;
  EXPECT_TRUE(coSimulate("se.bin", false, {"--input", "xse.npy"}, &Sim));
  EXPECT_NE(Sim.Out.find("3 frames in one run"), std::string::npos) << Sim;
}

} // namespace
