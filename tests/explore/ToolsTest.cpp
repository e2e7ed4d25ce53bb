//===- ToolsTest.cpp - snowsweep and snowdevices as a user runs them ------===//
//
// What scripts and job arrays depend on: exit status, one-line errors, no
// progress bar in a log file, the merge command, and a clear refusal when the
// same shard is started twice on one directory.
//
//===----------------------------------------------------------------------===//

#include "ExploreHarness.h"

#include <sys/file.h>

using namespace snow::test;

namespace {

bool oneErrorLine(const ToolResult &R, const std::string &Part) {
  return R.ExitCode == 1 && !R.Err.empty() && R.Err.find('\n') == R.Err.size() - 1 &&
         R.Err.find("error") != std::string::npos && R.Err.find(Part) != std::string::npos;
}

class Tools : public ExploreTest {
protected:
  std::vector<std::string> sweepArgs(const std::string &Out) const {
    return {reducedModel("squeezenet1_1"), "--set", "vmacs_per_cu=2,4", "--out", Out};
  }
};

} // namespace

TEST_F(Tools, ASweepPrintsASummaryAndNoProgressBarIntoALog) {
  ToolResult R = tool("snowsweep", sweepArgs("out"));
  EXPECT_EQ(R.ExitCode, 0) << R;
  EXPECT_EQ(R.Err, "") << "stderr is not a terminal: no bar";
  EXPECT_NE(R.Out.find("1 models x 2 points = 2 tasks"), std::string::npos) << R;
  EXPECT_TRUE(fs::exists(Dir / "out" / "results.csv"));
  EXPECT_TRUE(fs::exists(Dir / "out" / "results.json"));
}

TEST_F(Tools, UserErrorsAreOneLine) {
  std::string M = reducedModel("squeezenet1_1");
  struct Case {
    std::vector<std::string> Args;
    const char *Says;
  } Cases[] = {
      {{M, "--set", "cluster=1,2", "--out", "o"}, "did you mean 'clusters'"},
      {{M, "--set", "clusters", "--out", "o"}, "expected KEY=V1,V2"},
      {{M, "--set", "clusters=1,x", "--out", "o"}, "'x'"},
      {{M, "--shard", "3/2", "--out", "o"}, "--shard '3/2'"},
      {{"missing.yaml", "--out", "o"}, "cannot read model 'missing.yaml'"},
      {{M}, "--out DIR"},
      {{M, "--hw", "zc707", "--out", "o"}, "unknown hardware preset or file 'zc707'"},
  };
  for (const Case &C : Cases) {
    ToolResult R = tool("snowsweep", C.Args);
    EXPECT_TRUE(oneErrorLine(R, C.Says)) << R;
  }
}

TEST_F(Tools, MergeRebuildsTheResultsFromTheParts) {
  for (const char *Shard : {"1/2", "2/2"}) {
    std::vector<std::string> A = sweepArgs("out");
    A.insert(A.end(), {"--shard", Shard});
    ASSERT_EQ(tool("snowsweep", A).ExitCode, 0);
  }
  std::string Csv = readBytes(Dir / "out" / "results.csv");
  fs::remove(Dir / "out" / "results.csv");
  fs::remove(Dir / "out" / "results.json");
  ToolResult R = tool("snowsweep", {"--merge", "--out", "out"});
  EXPECT_EQ(R.ExitCode, 0) << R;
  EXPECT_NE(R.Out.find("merged 2 rows"), std::string::npos) << R;
  EXPECT_EQ(readBytes(Dir / "out" / "results.csv"), Csv);
}

TEST_F(Tools, TheSameShardTwiceAtOnceIsRefused) {
  // Stand in for a running snowsweep: hold the lock on its part file.
  fs::create_directories(Dir / "out" / "parts");
  std::string Part = (Dir / "out" / "parts" / "shard-1-of-1.csv").string();
  int Fd = open(Part.c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(Fd, 0);
  ASSERT_EQ(flock(Fd, LOCK_EX), 0);
  ToolResult R = tool("snowsweep", sweepArgs("out"));
  close(Fd);
  EXPECT_TRUE(oneErrorLine(R, "already running")) << R;
}

TEST_F(Tools, SnowdevicesPrintsEveryMeasurement) {
  ToolResult R = tool("snowdevices", {});
  EXPECT_EQ(R.ExitCode, 0) << R;
  for (const char *Line :
       {"Titan X (Pascal)         resnet50        16 net   ours       456.8      3735.5",
        "Edge TPU (USB Accelerato mobilenet_v1",
        // Winograd's 117 % is no utilization at all.
        "Titan X (Pascal)         vgg16           16 net   ours       384.7     "
        "11903.1       10160    n/c*"})
    EXPECT_NE(R.Out.find(Line), std::string::npos) << Line << "\n" << R;
  ToolResult Bad = tool("snowdevices", {"nope.yaml"});
  EXPECT_TRUE(oneErrorLine(Bad, "cannot read 'nope.yaml'")) << Bad;
}
