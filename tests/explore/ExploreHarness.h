//===- ExploreHarness.h - Scratch directories, small models, tool runs -*- C++ -*-===//
//
// The explore tests sweep real networks of the model zoo at a reduced input
// size (64x64: the layer structure is the real one, the work is ~1/12), each
// test in its own scratch directory, and run the tools as a user does:
// fork/exec without a shell, stdout and stderr captured, stdin and the
// terminal detached (so snowsweep must not draw its progress bar).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_EXPLORE_EXPLOREHARNESS_H
#define SNOW_TESTS_EXPLORE_EXPLOREHARNESS_H

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace snow::test {

namespace fs = std::filesystem;

inline const std::string BinDir = SNOW_BIN_DIR;
inline const std::string SourceDir = SNOW_SOURCE_DIR;

inline std::string slurp(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

inline void spit(const fs::path &P, const std::string &Bytes) {
  std::ofstream Out(P, std::ios::binary | std::ios::trunc);
  Out << Bytes;
}

struct RunResult {
  int ExitCode = -1; ///< -1: did not exit normally.
  std::string Out, Err, Command;
};

inline std::ostream &operator<<(std::ostream &OS, const RunResult &R) {
  return OS << "$ " << R.Command << "\n[exit " << R.ExitCode << "]\n--- stderr ---\n"
            << R.Err << "--- stdout ---\n"
            << R.Out.substr(0, 3000);
}

/// Runs Exe with Args in Dir; a run longer than TimeoutSeconds is killed.
inline RunResult runIn(const fs::path &Dir, const std::string &Exe,
                       const std::vector<std::string> &Args, unsigned TimeoutSeconds = 120) {
  RunResult R;
  R.Command = "cd " + Dir.string() + " && " + Exe;
  for (const std::string &A : Args)
    R.Command += " '" + A + "'";
  fs::path OutFile = Dir.string() + ".stdout", ErrFile = Dir.string() + ".stderr";
  std::vector<std::string> Copy = Args;
  std::vector<char *> Argv{const_cast<char *>(Exe.c_str())};
  for (std::string &A : Copy)
    Argv.push_back(A.data());
  Argv.push_back(nullptr);
  pid_t Pid = fork();
  if (Pid == 0) {
    int Out = open(OutFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int Err = open(ErrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int Null = open("/dev/null", O_RDONLY);
    if (Out < 0 || Err < 0 || Null < 0 || chdir(Dir.c_str()) != 0)
      _exit(127);
    alarm(TimeoutSeconds);
    dup2(Null, 0);
    dup2(Out, 1);
    dup2(Err, 2);
    execv(Argv[0], Argv.data());
    _exit(127);
  }
  int Status = 0;
  while (Pid > 0 && waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  if (Pid > 0 && WIFEXITED(Status))
    R.ExitCode = WEXITSTATUS(Status);
  R.Out = slurp(OutFile);
  R.Err = slurp(ErrFile);
  fs::remove(OutFile);
  fs::remove(ErrFile);
  return R;
}

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
    std::string Text = slurp(SourceDir + "/models/" + Name + ".yaml");
    const std::string From = "shape: [3, 224, 224]";
    size_t At = Text.find(From);
    EXPECT_NE(At, std::string::npos) << Name << ".yaml has no 224x224 input line";
    if (At != std::string::npos)
      Text.replace(At, From.size(),
                   "shape: [3, " + std::to_string(Side) + ", " + std::to_string(Side) + "]");
    fs::path P = Dir / (Name + "-" + std::to_string(Side) + ".yaml");
    spit(P, Text);
    return P.string();
  }

  RunResult tool(const std::string &Name, const std::vector<std::string> &Args) const {
    return runIn(Dir, BinDir + "/" + Name, Args);
  }

  fs::path Dir;
};

} // namespace snow::test

#endif
