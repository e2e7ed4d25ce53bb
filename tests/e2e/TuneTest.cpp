//===- TuneTest.cpp - Per-layer options and the search over them ----------===//
//
// CompileOptions::LayerOff turns a planner switch off, or takes a later
// candidate plan, for single layers; tune() searches those by running the
// candidates. Every combination must keep values bit-exact (the reference
// executor does not know of them), tune() must never return a slower
// program, and its options must make exactly the program it measured.
//
//===----------------------------------------------------------------------===//

#include "PassHarness.h"
#include "snow/support/Rng.h"

using namespace snow;
using namespace snow::test;

namespace {

/// Two inception-like blocks (merged 1x1 branches, a 3x3 and a 5x5 branch,
/// a pool with its projection) and a depthwise / 1x1 pair: plans whose
/// estimates the planner weighs against each other.
const std::string Blocks = header("blocks", 64, 28, 28) + R"(
  - {name: a1, type: conv, out_channels: 48, kernel: 1, relu: true}
  - {name: a3r, type: conv, input: data, out_channels: 64, kernel: 1, relu: true}
  - {name: a3, type: conv, out_channels: 80, kernel: 3, pad: 1, relu: true}
  - {name: a5r, type: conv, input: data, out_channels: 16, kernel: 1, relu: true}
  - {name: a5, type: conv, out_channels: 32, kernel: 5, pad: 2, relu: true}
  - {name: ap, type: maxpool, input: data, kernel: 3, stride: 1, pad: 1}
  - {name: app, type: conv, out_channels: 32, kernel: 1, relu: true}
  - {name: acat, type: concat, inputs: [a1, a3, a5, app]}
  - {name: pool, type: maxpool, kernel: 3, stride: 2, pad: 1}
  - {name: d, type: conv, out_channels: 192, kernel: 3, pad: 1, groups: 192, relu: true}
  - {name: p, type: conv, out_channels: 96, kernel: 1, relu: true}
  - {name: b1, type: conv, out_channels: 112, kernel: 1, relu: true}
  - {name: b3, type: conv, out_channels: 144, kernel: 3, pad: 1}
)";

compiler::TuneResult tuned(const std::string &Yaml, const std::string &HwName) {
  auto Hw = isa::loadHwConfig(HwName);
  EXPECT_TRUE(bool(Hw));
  std::optional<ir::Graph> G = quantizedGraph(Yaml, *Hw);
  EXPECT_TRUE(G.has_value());
  auto R = compiler::tune(*G, *Hw, {});
  EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
  return R ? std::move(*R) : compiler::TuneResult();
}

} // namespace

TEST(Tune, KeepsOnlyFasterProgramsWhichItsOptionsReproduce) {
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    const compiler::TuneResult R = tuned(Blocks, Hw);
    ASSERT_GT(R.StartCycles, 0u);
    EXPECT_LE(R.Cycles, R.StartCycles);
    EXPECT_EQ(R.Cycles < R.StartCycles, !R.Log.empty()) << "a change kept is a change logged";
    EXPECT_GT(R.Compiles, R.Runs) << "programs already run are not run again";
    // On zc706 some layer of these blocks runs faster than its estimate
    // ranks it (so when written: the search keeps at least one change).
    if (std::string(Hw) == "zc706") {
      EXPECT_LT(R.Cycles, R.StartCycles);
    }
    // The options found make the program measured, which is bit-exact.
    EXPECT_EQ(cyclesOf(Blocks, Hw, R.Opts), R.Cycles)
        << ::testing::PrintToString(compiler::layerOffSpecs(R.Opts));
    EXPECT_EQ(cyclesOf(Blocks, Hw, {}), R.StartCycles);
  }
}

TEST(Tune, ASearchFromAMemberKeptApartReproducesItsProgram) {
  // a3r and a5r merge (a1 writes into the concat, in its own format); with
  // a5r apart from the start, every candidate compiles the graph with it
  // apart (a3r's conv is a3r again), and the options found make the
  // program measured. (GoogLeNet's search keeps members apart itself:
  // docs/compiler.md, "Tuning".)
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  std::optional<ir::Graph> G = quantizedGraph(Blocks, *Hw);
  ASSERT_TRUE(G.has_value());
  compiler::CompileOptions O;
  ASSERT_FALSE(bool(compiler::addLayerOff("a5r=apart", O)));
  auto R = compiler::tune(*G, *Hw, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Opts.LayerOff.at("a5r").Apart);
  EXPECT_EQ(cyclesOf(Blocks, "zc706", O), R->StartCycles);
  EXPECT_EQ(cyclesOf(Blocks, "zc706", R->Opts), R->Cycles)
      << ::testing::PrintToString(compiler::layerOffSpecs(R->Opts));
  EXPECT_NE(R->StartCycles, cyclesOf(Blocks, "zc706", {})) << "a5r apart changed nothing";
}

TEST(Tune, RandomPerLayerOptionsKeepValues) {
  // Switches off, later-ranked plans and later places in the layer order
  // on random layers of three models, each program bit-exact against the
  // reference executor. (A fused pair whose reader came with even row
  // blocks from its own plan, and a producer without, computed rows never
  // written: found by the search at rank 12, 2026-12-02.)
  const auto &Switches = compiler::layerSwitches();
  const std::pair<const char *, const std::string *> Models[] = {
      {"blocks", &Blocks}, {"pairs", &Pairs}, {"few", &FewChannels}};
  Rng R(20261202);
  for (int K = 0; K < 36; ++K) {
    const std::string &Yaml = *Models[K % 3].second;
    auto G = ir::parseModel(Yaml, "test.yaml");
    ASSERT_TRUE(bool(G));
    ASSERT_FALSE(bool(ir::canonicalize(*G)));
    compiler::CompileOptions O;
    for (const ir::Layer &L : G->Layers) {
      if (R.next() % 3 != 0)
        continue;
      compiler::CompileOptions::LayerTweak &T = O.LayerOff[L.Name];
      T.Off = uint32_t(R.next()) & ((1u << Switches.size()) - 1) & uint32_t(R.next());
      T.Rank = unsigned(R.next() % 17);
      T.Late = R.next() % 4 == 0;
    }
    SCOPED_TRACE(::testing::Message() << Models[K % 3].first << " run " << K << ":"
                                      << ::testing::PrintToString(compiler::layerOffSpecs(O)));
    cyclesOf(Yaml, K % 2 ? "mini64" : "zc706", O);
  }
}

TEST(Tune, EveryRankTheSearchMayTakeKeepsValues) {
  // Each layer alone at each rank the search tries: the plans the planner
  // ranks behind its first are programs too, and they meet the pairs'
  // planning in ways the first plans do not (a reader planned with even
  // row blocks, fused with a producer without: rank 12 of p, 2026-12-02).
  // A producer's rank ranks its fused pairs and window pairs too. Each
  // distinct program runs once, against one reference run.
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  for (const std::string *Yaml : {&Blocks, &Pairs}) {
    std::optional<ir::Graph> G = quantizedGraph(*Yaml, *Hw);
    ASSERT_TRUE(G.has_value());
    const std::vector<int16_t> In = fixedInput(*G);
    const std::vector<int16_t> Ref = ref::runFixed(*G, In, Hw->AccBits);
    std::set<std::vector<uint8_t>> Seen;
    for (const ir::Layer &L : G->Layers)
      for (unsigned Rank = 1; Rank <= 16; ++Rank) {
        compiler::CompileOptions O;
        O.LayerOff[L.Name].Rank = Rank;
        SCOPED_TRACE(G->Name + ": " + ::testing::PrintToString(compiler::layerOffSpecs(O)));
        auto P = compiler::compile(*G, *Hw, O);
        ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
        if (!Seen.insert(isa::serialize(*P)).second)
          continue;
        RunResult R;
        ASSERT_TRUE(simulateOn(*P, In, /*TimingOnly=*/false, R.Stats, &R.Sim));
        R.Ref = Ref;
        EXPECT_TRUE(sameBits(R));
      }
    EXPECT_GT(Seen.size(), 20u) << "ranks make other programs";
  }
}

TEST(Tune, LayerOffSpecsParseAndPrintBack) {
  compiler::CompileOptions O;
  ASSERT_FALSE(
      bool(compiler::addLayerOff("i4a_1x1+i4a_3x3_reduce=loop-reorder,no-multi-pixel", O)));
  ASSERT_FALSE(bool(compiler::addLayerOff("pool3[0:128]=rank2", O)));
  ASSERT_FALSE(bool(compiler::addLayerOff("pool3[0:128]=late", O))); // adds to the layer's
  ASSERT_FALSE(bool(compiler::addLayerOff("i4c_5x5_reduce=apart", O)));
  ASSERT_FALSE(bool(compiler::addLayerOff("a=b=fuse-depthwise", O))); // the last '=' splits
  EXPECT_EQ(compiler::layerOffSpecs(O),
            (std::vector<std::string>{"a=b=fuse-depthwise",
                                      "i4a_1x1+i4a_3x3_reduce=loop-reorder,multi-pixel",
                                      "i4c_5x5_reduce=apart", "pool3[0:128]=rank2,late"}));
  auto Error = [](const std::string &Spec) {
    compiler::CompileOptions O;
    llvm::Error E = compiler::addLayerOff(Spec, O);
    return E ? llvm::toString(std::move(E)) : std::string();
  };
  EXPECT_NE(Error("conv1=loop-reoder").find("unknown switch 'loop-reoder'"), std::string::npos);
  EXPECT_NE(Error("conv1=loop-reoder").find("multi-pixel"), std::string::npos)
      << "the error lists the switches";
  EXPECT_NE(Error("conv1").find("expected LAYER=switch"), std::string::npos);
  EXPECT_NE(Error("=rank1").find("expected LAYER=switch"), std::string::npos);
  EXPECT_NE(Error("conv1=").find("expected LAYER=switch"), std::string::npos);
  EXPECT_NE(Error("conv1=rankx").find("rank0 to rank99"), std::string::npos);
}

TEST(Tune, ALayerOffNamingNoLayerIsAnError) {
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  std::optional<ir::Graph> G = quantizedGraph(FewChannels, *Hw);
  ASSERT_TRUE(G.has_value());
  compiler::CompileOptions O;
  ASSERT_FALSE(bool(compiler::addLayerOff("nosuch=multi-pixel", O)));
  auto P = compiler::compile(*G, *Hw, O);
  ASSERT_FALSE(bool(P));
  const std::string Msg = llvm::toString(P.takeError());
  EXPECT_NE(Msg.find("'nosuch'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("--emit=plan"), std::string::npos) << Msg;
}

TEST(Tune, ALateLayerRunsAfterTheLayersItNeedNotPrecede) {
  // The pool branch's projection (app) reads only its pool; late, it runs
  // after every other layer of its block (before the next block's pool
  // of its channels, which reads it).
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  std::optional<ir::Graph> G = quantizedGraph(Blocks, *Hw);
  ASSERT_TRUE(G.has_value());
  auto Order = [&](const compiler::CompileOptions &O) {
    std::vector<compiler::PlanPart> Parts;
    auto P = compiler::compile(*G, *Hw, O, &Parts);
    EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
    std::vector<std::string> Names;
    for (const compiler::PlanPart &Part : Parts)
      if (Names.empty() || Names.back() != Part.Layer)
        Names.push_back(Part.Layer);
    return Names;
  };
  compiler::CompileOptions Late;
  ASSERT_FALSE(bool(compiler::addLayerOff("app=late", Late)));
  const std::vector<std::string> Before = Order({}), After = Order(Late);
  auto At = [](const std::vector<std::string> &V, const std::string &N) {
    return size_t(std::find(V.begin(), V.end(), N) - V.begin());
  };
  // The block's pool runs in channel slices, one a branch (PoolConcats);
  // pool[160:192] pools app's channels.
  const size_t App = At(After, "app");
  ASSERT_LT(App, After.size());
  EXPECT_LT(App, At(After, "pool[160:192]"));
  for (size_t I = 0; I < At(After, "d"); ++I) {
    if (After[I] != "app" && After[I] != "pool[160:192]") {
      EXPECT_LT(I, App) << After[I] << " runs after the late layer";
    }
  }
  EXPECT_NE(Before, After) << "app ran last in its block already: the test shows nothing";
}

TEST(Tune, CachedPairsAreThePairsWeighedAfresh) {
  // A pair is kept by what its search reads (PlanKeys.h: recallPair): its
  // producer's options and rank, and the plans it starts from. Inverted
  // residual blocks whose expansions compute their depthwise convs'
  // windows (FuseWindows.cpp) or whose depthwise convs feed their
  // projections on chip (Fuse.cpp), each layer at ranks up to 5 in turn,
  // one cache for all: every program is the one planned afresh.
  const std::string Blocks = header("expand", 24, 28, 28) + R"(
  - {name: e1, type: conv, out_channels: 96, kernel: 1, relu: true}
  - {name: d1, type: conv, out_channels: 96, kernel: 3, pad: 1, groups: 96, relu: true}
  - {name: p1, type: conv, out_channels: 24, kernel: 1}
  - {name: e2, type: conv, out_channels: 144, kernel: 1, relu: true}
  - {name: d2, type: conv, out_channels: 144, kernel: 3, stride: 2, pad: 1, groups: 144, relu: true}
  - {name: p2, type: conv, out_channels: 32, kernel: 1}
)";
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  std::optional<ir::Graph> G = quantizedGraph(Blocks, *Hw);
  ASSERT_TRUE(G.has_value());
  auto Own = compiler::newPlanCache();
  std::vector<std::vector<isa::Word128>> Programs; // distinct
  for (const char *Layer : {"e1", "d1", "p1", "e2", "d2", "p2"})
    for (unsigned Rank : {0u, 3u, 1u, 5u, 2u, 0u}) {
      compiler::CompileOptions O;
      O.FuseBlocks = false; // the pairs, not the block triples they would make (not cached)
      O.LayerOff[Layer] = {0, Rank, false};
      auto Fresh = compiler::compile(*G, *Hw, O);
      O.Cache = Own;
      auto Cached = compiler::compile(*G, *Hw, O);
      ASSERT_TRUE(Fresh && Cached);
      EXPECT_EQ(Fresh->Code, Cached->Code) << Layer << " rank " << Rank;
      if (std::find(Programs.begin(), Programs.end(), Fresh->Code) == Programs.end())
        Programs.push_back(Fresh->Code);
    }
  EXPECT_GT(compiler::cachedWindowPairs(*Own), 0u);
  EXPECT_GT(compiler::cachedFusedPairs(*Own), 0u);
  EXPECT_GT(Programs.size(), 12u) << "the ranks make few programs: the test shows little";
  // The blocks as triples (FuseBlocks.cpp), their search recalled too.
  for (const char *Layer : {"e1", "p1", "e2"})
    for (unsigned Rank : {0u, 2u, 1u, 0u}) {
      compiler::CompileOptions O;
      O.LayerOff[Layer] = {0, Rank, false};
      auto Fresh = compiler::compile(*G, *Hw, O);
      O.Cache = Own;
      auto Cached = compiler::compile(*G, *Hw, O);
      ASSERT_TRUE(Fresh && Cached);
      EXPECT_EQ(Fresh->Code, Cached->Code) << Layer << " rank " << Rank << ", triples on";
    }
  EXPECT_GT(compiler::cachedBlockTriples(*Own), 0u);
}

TEST(Tune, ThePlanCacheChangesNoProgram) {
  // tune() keeps layers' plans and the pairs it weighed across its
  // compiles (CompileOptions::Cache): a program made from cached plans is
  // the program planned afresh, with and without per-layer options.
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  Rng R(7);
  for (const std::string *Yaml : {&Blocks, &Pairs, &FewChannels}) {
    std::optional<ir::Graph> G = quantizedGraph(*Yaml, *Hw);
    ASSERT_TRUE(G.has_value());
    auto Own = compiler::newPlanCache(); // one graph's
    for (int K = 0; K < 6; ++K) {
      compiler::CompileOptions O;
      if (K % 3)
        for (const ir::Layer &L : G->Layers)
          if (R.next() % 3 == 0)
            O.LayerOff[L.Name] = {uint32_t(R.next() % 64), unsigned(R.next() % 3), false};
      auto Fresh = compiler::compile(*G, *Hw, O);
      O.Cache = Own;
      auto Cached = compiler::compile(*G, *Hw, O);
      auto Again = compiler::compile(*G, *Hw, O);
      ASSERT_TRUE(Fresh && Cached && Again);
      EXPECT_EQ(Fresh->Code, Cached->Code) << K;
      EXPECT_EQ(Fresh->Code, Again->Code) << K;
    }
    EXPECT_GT(compiler::cachedPlans(*Own), 0u);
    // Pairs' expansions compute their depthwise convs' windows: the pairs
    // weighed are kept too (PlanKeys.h: recallPair).
    if (Yaml == &Pairs) {
      EXPECT_GT(compiler::cachedWindowPairs(*Own), 0u);
    }
  }
}
