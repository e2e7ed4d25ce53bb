//===- ResultsTest.cpp - Result rows through CSV and JSON -----------------===//
//
// The part files are the sweep's memory between runs and between shards: a
// row must read back exactly as written (messages with commas, quotes and
// all), an append cut short by a kill must cost one point and not the file,
// and the derived columns must follow from cycles, MACs and the clock.
//
//===----------------------------------------------------------------------===//

#include "snow/explore/Results.h"

#include "llvm/Support/JSON.h"
#include <gtest/gtest.h>

using namespace snow;
using namespace snow::explore;

namespace {

ResultRow okRow() {
  ResultRow R;
  auto Hw = isa::loadHwConfig("zc706");
  EXPECT_TRUE(bool(Hw));
  setHardware(R, *Hw);
  R.Model = "tiny";
  R.Point = 3;
  R.Config = "clusters=1";
  R.ModelHash = "00000000000000aa";
  R.Macs = 1671168;
  R.Cycles = 25876;
  R.DramBytes = 85896 + 51200;
  return R;
}

} // namespace

TEST(Row, DerivedColumnsFollowFromCyclesMacsAndClock) {
  ResultRow R = okRow();
  // By hand: 1671168 / (25876 * 256) = 0.252278...; 250e6 / 25876 fps;
  // 2 * 1671168 * fps / 1e9 G-ops/s; 137096 bytes per frame.
  EXPECT_NEAR(R.utilization(), 1671168.0 / (25876.0 * 256), 1e-15);
  EXPECT_NEAR(R.fps(), 9661.462358942650, 1e-9);
  EXPECT_NEAR(R.gops(), 32.2919, 1e-4);
  EXPECT_NEAR(R.dramMbPerFrame(), 0.137096, 1e-12);
  EXPECT_NEAR(R.opsPerByte(), 2.0 * 1671168 / 137096, 1e-12);
  EXPECT_EQ(R.ArrayMacs, 256u);
  EXPECT_EQ(R.PeakGops, 128);
  EXPECT_EQ(R.OnchipKib, 1763);
  R.Status = PointStatus::CompileFailed;
  EXPECT_EQ(R.fps(), 0) << "a point that did not run has no rate";
}

TEST(Row, HardwareHashIgnoresTheConfigurationName) {
  auto A = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(A));
  isa::HwConfig B = *A;
  B.Name = "renamed";
  ResultRow RA, RB;
  setHardware(RA, *A);
  setHardware(RB, B);
  EXPECT_EQ(RA.HwHash, RB.HwHash);
  B.DramGbps = 4.3;
  setHardware(RB, B);
  EXPECT_NE(RA.HwHash, RB.HwHash);
}

TEST(Csv, RowsReadBackExactly) {
  ResultRow A = okRow(), B = okRow();
  B.Status = PointStatus::CompileFailed;
  B.Cycles = 0;
  B.Message = "m.yaml:3: layer 'c1': tile \"3x3\", does not fit\tthe buffer";
  std::string Text = csvHeader() + csvLine(A) + csvLine(B);
  auto Rows = parseCsv(Text, "p.csv");
  ASSERT_TRUE(bool(Rows)) << llvm::toString(Rows.takeError());
  ASSERT_EQ(Rows->size(), 2u);
  EXPECT_EQ(csvLine((*Rows)[0]), csvLine(A));
  EXPECT_EQ(csvLine((*Rows)[1]), csvLine(B));
  EXPECT_EQ((*Rows)[1].Message, B.Message);
  EXPECT_EQ((*Rows)[1].Status, PointStatus::CompileFailed);
  EXPECT_EQ((*Rows)[0].Hw.at("dram_gbps"), "4.2");
}

TEST(Csv, TheRequiredColumnsArePresent) {
  std::string Head = csvHeader();
  for (const char *C :
       {"model,", "config,", "status,", "message,", "macs,", "peak_gops,", "cycles,",
        "utilization,", "gops,", "fps,", "dram_gbps,", "onchip_kib,", "clusters,",
        "lanes_per_vmac,", "maps_buffer_kib,", "clock_mhz,", "energy_j,", "watts,", "gops_per_w,"})
    EXPECT_NE(Head.find(C), std::string::npos) << C;
}

TEST(Csv, ATruncatedLastLineIsDroppedNotAnError) {
  std::string Line = csvLine(okRow());
  auto Rows = parseCsv(csvHeader() + Line + Line.substr(0, Line.size() / 2), "p.csv");
  ASSERT_TRUE(bool(Rows)) << llvm::toString(Rows.takeError());
  EXPECT_EQ(Rows->size(), 1u);
}

TEST(Csv, AMalformedLineElsewhereIsAnErrorWithFileAndLine) {
  std::string Line = csvLine(okRow());
  auto Rows = parseCsv(csvHeader() + "tiny,1,2\n" + Line, "p.csv");
  ASSERT_FALSE(bool(Rows));
  std::string E = llvm::toString(Rows.takeError());
  EXPECT_NE(E.find("p.csv:2:"), std::string::npos) << E;
}

TEST(Csv, AFileWithoutTheKeyColumnsIsRefused) {
  auto Rows = parseCsv("a,b\n1,2\n", "x.csv");
  ASSERT_FALSE(bool(Rows));
  EXPECT_NE(llvm::toString(Rows.takeError()).find("not a sweep results file"), std::string::npos);
}

TEST(Json, NumbersAreNumbersAndTextIsText) {
  ResultRow R = okRow();
  R.Config = "1"; // A label that looks like a number stays a string.
  auto V = llvm::json::parse(toJson({R}));
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object *Row = (*V->getAsObject()->getArray("rows"))[0].getAsObject();
  EXPECT_EQ(Row->getString("model"), llvm::Optional<llvm::StringRef>("tiny"));
  EXPECT_EQ(Row->getString("config"), llvm::Optional<llvm::StringRef>("1"));
  EXPECT_EQ(Row->getInteger("cycles"), llvm::Optional<int64_t>(25876));
  EXPECT_NEAR(Row->getNumber("utilization").getValueOr(-1), R.utilization(), 1e-15);
  EXPECT_EQ(Row->getNumber("dram_gbps"), llvm::Optional<double>(4.2));
}

TEST(Merge, SortedUniqueDoesNotDependOnInputOrder) {
  ResultRow A = okRow(), B = okRow(), C = okRow();
  B.Point = 1;
  B.HwHash = "1";
  C.Model = "alexnet";
  std::vector<ResultRow> X = sortedUnique({A, B, C, A}), Y = sortedUnique({C, A, B});
  ASSERT_EQ(X.size(), 3u) << "the duplicate of A is dropped";
  for (size_t I = 0; I < X.size(); ++I)
    EXPECT_EQ(csvLine(X[I]), csvLine(Y[I]));
  EXPECT_EQ(X[0].Model, "alexnet");
}
