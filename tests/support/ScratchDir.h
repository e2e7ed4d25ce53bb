//===- ScratchDir.h - A fresh directory per test, removed afterwards -*- C++ -*-===//
//
// The library tests that read or write files (.npy arrays, hardware configs,
// prog.bin, models with their .npy parameters) each need a directory of
// their own that no other test, run or developer shares, and that is gone
// after the test whatever its outcome. This fixture is that directory and
// the few file operations those tests do in it; the areas include it as
// "../support/ScratchDir.h". (The tool tests, which run binaries in their
// directory, have their own harness in tests/tools.)
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_SUPPORT_SCRATCHDIR_H
#define SNOW_TESTS_SUPPORT_SCRATCHDIR_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace snow::test {

/// The whole content of the file at P ("" when it cannot be read).
inline std::string slurp(const std::string &P) {
  std::ifstream In(P, std::ios::binary);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

/// Base fixture: Dir is a new directory named after Prefix, removed with
/// everything in it after the test.
class ScratchDirTest : public ::testing::Test {
protected:
  explicit ScratchDirTest(std::string Prefix = "snow-test") : Prefix(std::move(Prefix)) {}

  void SetUp() override {
    llvm::SmallString<128> P;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory(Prefix, P));
    Dir = std::string(P);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  std::string path(const std::string &Name) const { return Dir + "/" + Name; }

  /// Writes Bytes to Name in the directory; returns the file's path.
  std::string write(const std::string &Name, const std::string &Bytes) const {
    std::string P = path(Name);
    std::ofstream(P, std::ios::binary) << Bytes;
    return P;
  }

  /// The names in the directory In (default: the test's), sorted, so a test
  /// can prove a failed write left nothing behind.
  std::vector<std::string> entries(const std::string &In = {}) const {
    std::vector<std::string> Names;
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator I(In.empty() ? Dir : In, EC), E; I != E && !EC;
         I.increment(EC))
      Names.push_back(llvm::sys::path::filename(I->path()).str());
    std::sort(Names.begin(), Names.end());
    return Names;
  }

  std::string Dir;

private:
  std::string Prefix;
};

} // namespace snow::test

#endif
