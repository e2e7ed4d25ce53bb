//===- ConformanceTest.cpp - The ONNX backend tests, run and reported -----===//
//
// The CTest target of the conformance run (ctest -R OnnxConformance). It
// fails when any test the toolchain accepts gives a wrong output, when a test
// directory could not be classified, and when docs/onnx-conformance.md
// differs from the fresh report (so the table cannot go stale silently).
// The fresh report is written to <build>/generated/onnx-conformance.md;
// scripts/update-onnx-conformance.sh copies it into docs/.
//
// The data's location: $SNOW_ONNX_TESTDATA, else where Debian installs it.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"

#include "snow/support/FileIO.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace snow;
using namespace snow::onnxtest;

namespace {

std::string testDataDir() {
  const char *Env = std::getenv("SNOW_ONNX_TESTDATA");
  return Env && *Env ? Env : "/usr/share/libonnx-testdata/data";
}

std::string readText(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

TEST(OnnxConformance, BackendTestsPassOrAreUnsupportedWithAReason) {
  const std::string Data = testDataDir();
  ASSERT_TRUE(llvm::sys::fs::is_directory(Data + "/node"))
      << Data << " does not hold ONNX's backend test data; install libonnx-testdata "
      << "(scripts/install-deps.sh) or set SNOW_ONNX_TESTDATA";
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw)) << llvm::toString(Hw.takeError());

  std::vector<CaseResult> Results = runConformance(Data, *Hw);
  unsigned Dirs = 0;
  for (const std::string &Suite : conformanceSuites()) {
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Data + "/" + Suite, EC), End; It != End && !EC;
         It.increment(EC))
      Dirs += llvm::StringRef(llvm::sys::path::filename(It->path())).startswith("test_");
  }
  EXPECT_EQ(Results.size(), Dirs) << "every test directory gets a row";

  for (const CaseResult &R : Results) {
    if (R.St == CaseResult::Status::Fail) {
      ADD_FAILURE() << R.Suite << "/" << R.Name << ": " << R.Reason;
    } else if (R.St == CaseResult::Status::Unsupported) {
      EXPECT_FALSE(R.Reason.empty()) << R.Suite << "/" << R.Name << " has no reason";
    } else {
      EXPECT_GT(R.Values, 0u) << R.Suite << "/" << R.Name << " compared nothing";
    }
  }

  const std::string Report = conformanceReport(Results, Data, *Hw);
  const std::string Fresh = SNOW_BIN_DIR "/../generated/onnx-conformance.md";
  ASSERT_FALSE(bool(writeFileAtomic(Fresh, Report)));
  EXPECT_TRUE(readText(SNOW_SOURCE_DIR "/docs/onnx-conformance.md") == Report)
      << "docs/onnx-conformance.md is stale; regenerate it with "
         "scripts/update-onnx-conformance.sh (fresh copy: "
      << Fresh << ")";
}

} // namespace
