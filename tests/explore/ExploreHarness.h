//===- ExploreHarness.h - Scratch directories, small models, tool runs -*- C++ -*-===//
//
// The explore tests sweep real networks of the model zoo at a reduced input
// size (64x64: the layer structure is the real one, the work is ~1/12), each
// test in its own scratch directory, and run the tools as a user does:
// fork/exec without a shell, stdout and stderr captured, stdin and the
// terminal detached (so snowsweep must not draw its progress bar); the
// runner and file helpers are the tools tests' (ToolHarness.h).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_EXPLORE_EXPLOREHARNESS_H
#define SNOW_TESTS_EXPLORE_EXPLOREHARNESS_H

#include "../tools/ToolHarness.h"

namespace snow::test {

/// A fresh directory per test, removed afterwards (kept on failure when
/// SNOW_KEEP_TEST_DIRS is set).
class ExploreTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string Template = (fs::temp_directory_path() / "snow-explore-XXXXXX").string();
    ASSERT_NE(mkdtemp(Template.data()), nullptr) << std::strerror(errno);
    Dir = Template;
  }
  void TearDown() override {
    if (HasFailure() && std::getenv("SNOW_KEEP_TEST_DIRS"))
      std::cerr << "[ kept " << Dir.string() << " ]\n";
    else
      fs::remove_all(Dir);
  }

  /// models/Name.yaml with its 224x224 input replaced by Side x Side, written
  /// into the scratch directory; returns its path. The model keeps its name.
  std::string reducedModel(const std::string &Name, unsigned Side = 64) const {
    std::string Text = readBytes(SourceDir + "/models/" + Name + ".yaml");
    const std::string From = "shape: [3, 224, 224]";
    size_t At = Text.find(From);
    EXPECT_NE(At, std::string::npos) << Name << ".yaml has no 224x224 input line";
    if (At != std::string::npos)
      Text.replace(At, From.size(),
                   "shape: [3, " + std::to_string(Side) + ", " + std::to_string(Side) + "]");
    fs::path P = Dir / (Name + "-" + std::to_string(Side) + ".yaml");
    writeBytes(P, Text);
    return P.string();
  }

  ToolResult tool(const std::string &Name, const std::vector<std::string> &Args) const {
    return runTool(Dir, BinDir + "/" + Name, Args);
  }

  fs::path Dir;
};

} // namespace snow::test

#endif
