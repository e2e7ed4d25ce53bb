//===- SweepRunTest.cpp - Running, resuming, sharding and merging sweeps --===//
//
// The promises a cluster user relies on: a re-run does nothing, a longer
// list runs only what is new, shards of one sweep merge into exactly what a
// single run writes, an interrupted run loses at most the points in flight,
// and impossible points become rows with a reason instead of a crash. Two
// real networks at 64x64 input keep each sweep well under a second.
//
//===----------------------------------------------------------------------===//

#include "ExploreHarness.h"

#include "snow/compiler/Compiler.h"
#include "snow/explore/Results.h"
#include "snow/explore/Sweep.h"
#include "snow/ir/Calibrate.h"
#include "snow/sim/Simulator.h"
#include "llvm/Support/JSON.h"

using namespace snow;
using namespace snow::explore;
using namespace snow::test;

namespace {

SetArg set(const std::string &Text) {
  auto A = parseSetArg(Text);
  EXPECT_TRUE(bool(A));
  return A ? *A : SetArg();
}

class SweepRun : public ExploreTest {
protected:
  void SetUp() override {
    ExploreTest::SetUp();
    Models = {reducedModel("mobilenet_v1"), reducedModel("squeezenet1_1")};
  }

  SweepOptions options(const std::string &Out, std::vector<SetArg> Sets = {}) const {
    SweepOptions O;
    O.Models = Models;
    O.Sets = Sets.empty() ? std::vector<SetArg>{set("vmacs_per_cu=2,4"), set("dram_gbps=4.2,12.8")}
                          : Sets;
    O.OutDir = (Dir / Out).string();
    O.Threads = 2;
    return O;
  }

  SweepSummary run(const SweepOptions &O) const {
    auto S = runSweep(O);
    EXPECT_TRUE(bool(S)) << (S ? "" : llvm::toString(S.takeError()));
    return S ? *S : SweepSummary();
  }

  std::vector<ResultRow> rows(const std::string &Out) const {
    auto R = parseCsv(readBytes(Dir / Out / "results.csv"), "results.csv");
    EXPECT_TRUE(bool(R)) << (R ? "" : llvm::toString(R.takeError()));
    return R ? *R : std::vector<ResultRow>();
  }

  std::vector<std::string> Models;
};

} // namespace

TEST_F(SweepRun, OneRowPerModelAndPoint) {
  SweepSummary S = run(options("out"));
  EXPECT_EQ(S.Points, 4u);
  EXPECT_EQ(S.Tasks, 8u);
  EXPECT_EQ(S.Ran, 8u);
  EXPECT_EQ(S.Ok, 8u);
  EXPECT_EQ(S.MergedRows, 8u);
  std::vector<ResultRow> R = rows("out");
  ASSERT_EQ(R.size(), 8u);
  std::set<std::string> Seen;
  for (const ResultRow &X : R) {
    EXPECT_EQ(X.Status, PointStatus::Ok) << X.Message;
    EXPECT_GT(X.Cycles, 0u);
    EXPECT_GT(X.utilization(), 0);
    EXPECT_LE(X.utilization(), 1);
    Seen.insert(X.Model + " " + X.Config);
  }
  EXPECT_EQ(Seen.size(), 8u);
  EXPECT_TRUE(Seen.count("mobilenet_v1 vmacs_per_cu=4;dram_gbps=12.8"));
  EXPECT_TRUE(Seen.count("squeezenet1_1 vmacs_per_cu=2;dram_gbps=4.2"));
  auto J = llvm::json::parse(readBytes(Dir / "out" / "results.json"));
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  EXPECT_EQ(J->getAsObject()->getArray("rows")->size(), 8u);
}

TEST_F(SweepRun, MoreBandwidthNeverCostsCycles) {
  // A sanity check on what the rows say, not only that they exist.
  run(options("out"));
  std::map<std::string, uint64_t> Cycles;
  for (const ResultRow &X : rows("out"))
    Cycles[X.Model + " " + X.Hw.at("vmacs_per_cu") + " " + X.Hw.at("dram_gbps")] = X.Cycles;
  for (const char *M : {"mobilenet_v1", "squeezenet1_1"})
    for (const char *V : {"2", "4"})
      EXPECT_LE(Cycles[std::string(M) + " " + V + " 12.8"],
                Cycles[std::string(M) + " " + V + " 4.2"])
          << M << " vmacs " << V;
}

TEST_F(SweepRun, SecondRunDoesNothing) {
  run(options("out"));
  std::string Part = readBytes(partFile((Dir / "out").string(), 1, 1));
  std::string Csv = readBytes(Dir / "out" / "results.csv");
  SweepSummary S = run(options("out"));
  EXPECT_EQ(S.Ran, 0u);
  EXPECT_EQ(S.Skipped, 8u);
  EXPECT_EQ(readBytes(partFile((Dir / "out").string(), 1, 1)), Part) << "nothing appended";
  EXPECT_EQ(readBytes(Dir / "out" / "results.csv"), Csv);
}

TEST_F(SweepRun, ALongerListRunsOnlyTheNewPoints) {
  run(options("out"));
  SweepSummary S = run(options("out", {set("vmacs_per_cu=2,4"), set("dram_gbps=4.2,12.8,25.6")}));
  EXPECT_EQ(S.Skipped, 8u);
  EXPECT_EQ(S.Ran, 4u);
  EXPECT_EQ(rows("out").size(), 12u);
}

TEST_F(SweepRun, ShardsMergeIntoTheSingleRun) {
  run(options("single"));
  size_t Ran = 0;
  for (unsigned I = 1; I <= 3; ++I) {
    SweepOptions O = options("sharded");
    O.Part = Shard{I, 3};
    SweepSummary S = run(O);
    EXPECT_EQ(S.Skipped, 0u) << "shards own disjoint tasks";
    Ran += S.Ran;
  }
  EXPECT_EQ(Ran, 8u);
  EXPECT_EQ(readBytes(Dir / "sharded" / "results.csv"), readBytes(Dir / "single" / "results.csv"));
  EXPECT_EQ(readBytes(Dir / "sharded" / "results.json"),
            readBytes(Dir / "single" / "results.json"));
  EXPECT_TRUE(fs::exists(partFile((Dir / "sharded").string(), 2, 3)));
}

TEST_F(SweepRun, InvalidPointsAreRowsNotCrashes) {
  // clusters=8: 32 CUs (CU masks are 16 bits); maps_buffer_kib=2: too small
  // for MobileNet's depthwise 3x3 windows on four vMACs.
  SweepSummary S = run(options("out", {set("clusters=1,8"), set("maps_buffer_kib=2,256")}));
  EXPECT_EQ(S.Ran, 8u);
  std::map<std::string, const ResultRow *> By;
  std::vector<ResultRow> R = rows("out");
  for (const ResultRow &X : R)
    By[X.Model + " " + X.Config] = &X;
  const ResultRow *Hw = By["squeezenet1_1 clusters=8;maps_buffer_kib=256"];
  ASSERT_NE(Hw, nullptr);
  EXPECT_EQ(Hw->Status, PointStatus::InvalidHw);
  EXPECT_NE(Hw->Message.find("clusters × cus_per_cluster must be at most 16"), std::string::npos)
      << Hw->Message;
  EXPECT_EQ(Hw->Hw.at("clusters"), "8") << "an invalid row still says what hardware it was";
  const ResultRow *Small = By["mobilenet_v1 clusters=1;maps_buffer_kib=2"];
  ASSERT_NE(Small, nullptr);
  EXPECT_EQ(Small->Status, PointStatus::CompileFailed);
  EXPECT_NE(Small->Message.find("does not fit"), std::string::npos) << Small->Message;
  EXPECT_EQ(Small->Message.find('\n'), std::string::npos);
  EXPECT_EQ(By["mobilenet_v1 clusters=1;maps_buffer_kib=256"]->Status, PointStatus::Ok);
  EXPECT_EQ(S.Invalid, 5u) << "4 invalid_hw + 1 compile_failed";
  // Invalid points count as done: the re-run does not retry them.
  EXPECT_EQ(run(options("out", {set("clusters=1,8"), set("maps_buffer_kib=2,256")})).Ran, 0u);
}

TEST_F(SweepRun, AnInterruptedAppendCostsOnlyThePointInFlight) {
  run(options("out"));
  std::string Csv = readBytes(Dir / "out" / "results.csv");
  std::string Part = partFile((Dir / "out").string(), 1, 1);
  std::string Text = readBytes(Part);
  // Cut the last row in half, as a kill during the write would.
  size_t LastStart = Text.rfind('\n', Text.size() - 2) + 1;
  writeBytes(Part, Text.substr(0, LastStart + (Text.size() - LastStart) / 2));
  SweepSummary S = run(options("out"));
  EXPECT_EQ(S.Ran, 1u);
  EXPECT_EQ(readBytes(Dir / "out" / "results.csv"), Csv);
}

TEST_F(SweepRun, CyclesDoNotDependOnActivationFormats) {
  // Sweep.h skips calibration because of this; if it ever fails, the sweep
  // must calibrate like snowc does.
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw));
  for (const std::string &M : Models) {
    auto G = ir::loadModel(M);
    ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
    ASSERT_FALSE(bool(ir::canonicalize(*G)));
    ir::Graph Uniform = *G, Calibrated = *G;
    ir::quantize(Uniform, int(Hw->ActFracBits));
    auto F = ir::calibrate(Calibrated, int(Hw->ActFracBits), ir::defaultInput(Calibrated));
    ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
    ASSERT_FALSE(bool(ir::quantize(Calibrated, *F)));
    uint64_t Cycles[2];
    const ir::Graph *Gs[2] = {&Uniform, &Calibrated};
    for (int I = 0; I < 2; ++I) {
      auto P = compiler::compile(*Gs[I], *Hw);
      ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
      sim::SimOptions O;
      O.TimingOnly = true;
      auto S = sim::Simulator::create(*P, O);
      ASSERT_TRUE(bool(S));
      auto St = (*S)->run();
      ASSERT_TRUE(bool(St)) << llvm::toString(St.takeError());
      Cycles[I] = St->Cycles;
    }
    EXPECT_EQ(Cycles[0], Cycles[1]) << M;
  }
}

TEST(Progress, TheBarFillsWithTheCountAndKeepsItsLength) {
  auto BarOf = [](const std::string &L) { return L.substr(1, L.find(']') - 1); };
  std::string Empty = progressLine(0, 10, 0, 72), Half = progressLine(5, 10, 2, 72),
              Full = progressLine(10, 10, 4, 72);
  EXPECT_EQ(BarOf(Empty), std::string(40, '.'));
  EXPECT_EQ(BarOf(Half), std::string(20, '#') + std::string(20, '.'));
  EXPECT_EQ(BarOf(Full), std::string(40, '#'));
  EXPECT_NE(Half.find("] 5/10  2.0 s, about 2 s left"), std::string::npos) << Half;
  EXPECT_NE(Empty.find("] 0/10  0.0 s"), std::string::npos) << Empty;
  for (const std::string &L : {Empty, Half, Full})
    EXPECT_EQ(L.size(), 72u) << "padded, so a shorter line overwrites a longer one: '" << L << "'";
}
