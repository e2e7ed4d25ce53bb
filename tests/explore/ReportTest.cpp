//===- ReportTest.cpp - The HTML report, opened in a real browser ---------===//
//
// snowsweep -> snowsim --stats-json -> snowreport, then the page is loaded
// in headless Chromium (browser_check.py): every plot must be present and
// decode, the console must stay silent, and the page must not reach for
// anything outside itself (it has to work offline). The screenshot is kept
// in the build tree for a person to look at:
//   build/tests/explore/report-screenshot.png (and report.html beside it).
//
//===----------------------------------------------------------------------===//

#include "ExploreHarness.h"

#include "llvm/Support/JSON.h"

using namespace snow::test;
namespace json = llvm::json;

namespace {

/// Where a person finds the artifacts after ctest: next to the test binary.
fs::path artifactDir() { return fs::path(BinDir).parent_path() / "tests" / "explore"; }

bool haveSystemPython(const char *Module) {
  return runTool(fs::temp_directory_path(), "/usr/bin/python3",
                 {"-c", std::string("import ") + Module})
             .ExitCode == 0;
}

} // namespace

TEST_F(ExploreTest, ReportRendersInAHeadlessBrowser) {
  if (!haveSystemPython("matplotlib"))
    GTEST_SKIP() << "python3-matplotlib is not installed (scripts/install-deps.sh installs it)";
  std::string Mobilenet = reducedModel("mobilenet_v1"), Squeeze = reducedModel("squeezenet1_1");
  // Four configurations, one of them impossible so the report lists it.
  ToolResult Sweep = tool("snowsweep", {Mobilenet, Squeeze, "--set", "vmacs_per_cu=2,4", "--set",
                                        "clusters=1,8", "--out", "sweep"});
  ASSERT_EQ(Sweep.ExitCode, 0) << Sweep;
  ASSERT_EQ(tool("snowc", {Mobilenet, "-o", "m.bin"}).ExitCode, 0);
  ToolResult Sim =
      tool("snowsim", {"m.bin", "--timing-only", "--stats-json", "stats.json", "--quiet"});
  ASSERT_EQ(Sim.ExitCode, 0) << Sim;

  ToolResult Rep = tool("snowreport", {"sweep", "-o", "report.html", "--run", "stats.json"});
  ASSERT_EQ(Rep.ExitCode, 0) << Rep;
  EXPECT_EQ(Rep.Err, "") << Rep;
  for (const char *Plot : {"util_gops_vs_macs", "fps_vs_macs", "roofline", "layers"})
    for (const char *Ext : {".svg", ".png"})
      EXPECT_TRUE(fs::exists(Dir / "report_plots" / (std::string(Plot) + Ext))) << Plot << Ext;

  fs::create_directories(artifactDir());
  fs::path Shot = artifactDir() / "report-screenshot.png";
  fs::copy_file(Dir / "report.html", artifactDir() / "report.html",
                fs::copy_options::overwrite_existing);
  ToolResult B =
      runTool(Dir, "/usr/bin/python3",
              {SourceDir + "/tests/explore/browser_check.py", "report.html", Shot.string()});
  ASSERT_EQ(B.ExitCode, 0) << B;
  auto V = json::parse(B.Out);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError()) << "\n" << B;
  const json::Object *O = V->getAsObject();
  ASSERT_NE(O, nullptr);
  if (auto Skip = O->getString("skip"))
    GTEST_SKIP() << Skip->str() << " (scripts/install-deps.sh installs chromium)";
  std::cout << "[ screenshot: " << Shot.string() << " ]\n";
  RecordProperty("screenshot", Shot.string());

  std::set<std::string> Ids;
  for (const json::Value &F : *O->getArray("figures")) {
    const json::Object *Fig = F.getAsObject();
    std::string Id = Fig->getString("id").getValueOr("").str();
    Ids.insert(Id);
    EXPECT_EQ(Fig->getBoolean("decoded"), llvm::Optional<bool>(true)) << Id << " did not decode";
    EXPECT_EQ(Fig->getBoolean("svg"), llvm::Optional<bool>(true)) << Id;
    EXPECT_GT(Fig->getNumber("width").getValueOr(0), 300) << Id;
    EXPECT_GT(Fig->getNumber("height").getValueOr(0), 200) << Id;
  }
  EXPECT_EQ(Ids, (std::set<std::string>{"plot-util_gops_vs_macs", "plot-fps_vs_macs",
                                        "plot-roofline", "plot-layers"}));
  EXPECT_TRUE(O->getArray("console")->empty()) << B.Out;
  EXPECT_TRUE(O->getArray("errors")->empty()) << B.Out;
  EXPECT_TRUE(O->getArray("external_requests")->empty()) << "not self-contained: " << B.Out;
  EXPECT_EQ(O->getInteger("scripts"), llvm::Optional<int64_t>(0));
  EXPECT_GT(O->getInteger("comparison_rows").getValueOr(0), 2)
      << "MobileNet is in the device table: its comparison must have device rows";
  EXPECT_TRUE(fs::exists(Shot) && fs::file_size(Shot) > 10000);
  std::string Page = readBytes(Dir / "report.html");
  EXPECT_NE(Page.find("clusters × cus_per_cluster must be at most 16"), std::string::npos)
      << "the invalid point and its reason are listed";
}

TEST_F(ExploreTest, ReportErrorsAreOneLine) {
  if (!haveSystemPython("matplotlib"))
    GTEST_SKIP() << "python3-matplotlib is not installed";
  ToolResult R = tool("snowreport", {"nowhere", "-o", "r.html"});
  EXPECT_EQ(R.ExitCode, 1) << R;
  EXPECT_NE(R.Err.find("snowreport: error: no results.json in 'nowhere'"), std::string::npos) << R;
  EXPECT_EQ(R.Err.find('\n'), R.Err.size() - 1) << R;
  ToolResult U = tool("snowreport", {});
  EXPECT_EQ(U.ExitCode, 1) << U;
  EXPECT_EQ(U.Err.find('\n'), U.Err.size() - 1) << U;
  EXPECT_FALSE(fs::exists(Dir / "r.html"));
}
