//===- CalibrateToolTest.cpp - snowc / snowref --calibrate and the warning -===//
//
// Inputs far outside the default input's range (pixel units, not
// normalised) saturate a network calibrated on the default input; snowref
// says so on one line. Calibrated on such frames with --calibrate, snowc and
// snowref choose the same formats (snowsim's output equals snowref's bit for
// bit) and nothing saturates. Bad frames files are refused cleanly.
//
//===----------------------------------------------------------------------===//

#include "ToolHarness.h"
#include "llvm/Support/JSON.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace snow::test;

namespace {

/// N frames of tiny's input (3x32x32), values up to Scale in magnitude.
/// With Bad, element 1234 is Bad (a NaN or an infinity).
std::string frames(unsigned N, float Scale, float Bad = 0) {
  std::string Data;
  for (unsigned I = 0; I < N * 3 * 32 * 32; ++I) {
    float V = Scale * std::sin(0.37f * float(I)) * std::cos(0.011f * float(I));
    if (Bad != 0 && I == 1234)
      V = Bad;
    char B[4];
    std::memcpy(B, &V, 4);
    Data.append(B, 4);
  }
  std::vector<uint64_t> Shape = {N, 3, 32, 32};
  if (N == 1)
    Shape = {3, 32, 32};
  return makeNpy("<f4", Shape, Data);
}

class Calibrate : public ToolTest {};

} // namespace

TEST_F(Calibrate, FramesFixSaturationAndSnowcAgreesWithSnowref) {
  write("cal.npy", frames(4, 150));
  write("x.npy", frames(1, 150));
  // Calibrated on the default input: snowref warns on one stderr line.
  ToolResult Default = run("snowref", {tinyModel(), "--input", "x.npy", "--quiet"});
  ASSERT_TRUE(Default.Exited && Default.ExitCode == 0) << Default; // a warning is no failure
  EXPECT_NE(Default.Err.find("snowref: warning: values saturated; worst layer"), std::string::npos)
      << Default;
  EXPECT_NE(Default.Err.find("--calibrate"), std::string::npos) << Default;
  // snowsim (functional) counts the same values at the rails and says the same.
  ToolResult C0 = run("snowc", {tinyModel(), "-o", "p0.bin"});
  ASSERT_TRUE(succeeded(C0)) << C0;
  ToolResult S0 = run("snowsim", {"p0.bin", "--input", "x.npy", "--quiet"});
  ASSERT_TRUE(S0.Exited && S0.ExitCode == 0) << S0;
  const size_t At = Default.Err.find("worst layer");
  ASSERT_NE(At, std::string::npos);
  EXPECT_NE(S0.Err.find("snowsim: warning: values saturated; " +
                        Default.Err.substr(At, Default.Err.find(" of its outputs") - At)),
            std::string::npos)
      << S0 << "\nvs snowref: " << Default.Err;
  // Calibrated on frames like the input: no warning, and snowsim = snowref.
  ToolResult C = run("snowc", {tinyModel(), "--calibrate", "cal.npy", "-o", "p.bin"});
  ASSERT_TRUE(succeeded(C)) << C;
  ToolResult S = run("snowsim", {"p.bin", "--input", "x.npy", "--output", "sim.npy", "--quiet"});
  ASSERT_TRUE(succeeded(S)) << S; // no warning either
  ToolResult R = run("snowref", {tinyModel(), "--calibrate", "cal.npy", "--input", "x.npy",
                                 "--output", "ref.npy"});
  ASSERT_TRUE(succeeded(R)) << R;
  EXPECT_EQ(R.Err.find("warning"), std::string::npos) << R;
  EXPECT_NE(R.Out.find("calibrated on the frames of 'cal.npy'"), std::string::npos) << R;
  EXPECT_EQ(read("sim.npy"), read("ref.npy")) << "snowc and snowref chose different formats";
  // The program's input format was chosen from the frames, not the
  // hardware's Q7.8: values up to 150 x 1.25 need 8 integer bits.
  EXPECT_NE(R.Out.find("Q8.7 (x.npy)"), std::string::npos) << R;
}

TEST_F(Calibrate, BadFramesAreRefusedCleanly) {
  write("nan.npy", frames(2, 1, std::nanf("")));
  write("inf.npy", frames(2, 1, -INFINITY));
  write("int.npy", makeNpy("<i2", {1, 3, 32, 32}, std::string(2 * 3 * 32 * 32, '\0')));
  write("shape.npy", makeNpy("<f4", {2, 3, 16, 16}, std::string(4 * 2 * 3 * 16 * 16, '\0')));
  write("empty.npy", makeNpy("<f4", {0, 3, 32, 32}, ""));
  struct Case {
    const char *File, *Error;
  } Cases[] = {{"nan.npy", "frame 0, element 1234 is 'nan'"},
               {"inf.npy", "frame 0, element 1234 is '-inf'"},
               {"int.npy", "int16 values"},
               {"shape.npy", "shape (2, 3, 16, 16), but model 'tiny' takes frames of (3, 32, 32)"},
               {"empty.npy", "no frames"},
               {"missing.npy", "missing.npy"}};
  for (const Case &K : Cases) {
    SCOPED_TRACE(K.File);
    expectCleanError("snowc", {tinyModel(), "--calibrate", K.File, "-o", "p.bin"},
                     {K.File, K.Error});
    expectCleanError("snowref", {tinyModel(), "--calibrate", K.File, "--output", "y.npy"},
                     {K.Error});
  }
  write("cal.npy", frames(2, 1));
  expectCleanError("snowc",
                   {tinyModel(), "--calibrate", "cal.npy", "--uniform-format", "-o", "p.bin"},
                   {"--uniform-format and --calibrate"});
}

/// The first layer of tiny in snowsim's --stats-json: name and, when counted,
/// its saturated values and fraction.
TEST_F(Calibrate, StatsJsonCountsSaturationPerLayerOverEveryFrame) {
  ToolResult C = run("snowc", {tinyModel(), "-o", "p.bin"});
  ASSERT_TRUE(succeeded(C)) << C;
  // One quiet frame, then a loud one: saturation in any frame of the batch
  // counts, not only in the first (whose cycles the report shows).
  std::string Quiet = frames(1, 0.5f), Loud = frames(1, 150);
  const size_t Header = Quiet.size() - 4 * 3 * 32 * 32;
  write("quiet.npy", Quiet);
  write("batch.npy", makeNpy("<f4", {2, 3, 32, 32}, Quiet.substr(Header) + Loud.substr(Header)));
  ToolResult Q =
      run("snowsim", {"p.bin", "--input", "quiet.npy", "--quiet", "--stats-json", "q.json"});
  ASSERT_TRUE(succeeded(Q)) << Q; // nothing saturates, no warning
  ToolResult B =
      run("snowsim", {"p.bin", "--input", "batch.npy", "--quiet", "--stats-json", "b.json"});
  ASSERT_TRUE(B.Exited && B.ExitCode == 0) << B;
  EXPECT_NE(B.Err.find("snowsim: warning: values saturated; worst layer"), std::string::npos) << B;
  EXPECT_EQ(std::count(B.Err.begin(), B.Err.end(), '\n'), 1) << "one line: " << B;
  auto Parse = [&](const std::string &File) {
    auto V = llvm::json::parse(read(File));
    EXPECT_TRUE(bool(V)) << File;
    return V ? std::move(*V) : llvm::json::Value(nullptr);
  };
  llvm::json::Value QV = Parse("q.json"), BV = Parse("b.json");
  const llvm::json::Array *QL = QV.getAsObject()->getArray("layers");
  const llvm::json::Array *BL = BV.getAsObject()->getArray("layers");
  ASSERT_TRUE(QL && BL && QL->size() == BL->size() && !QL->empty());
  EXPECT_EQ(BV.getAsObject()->getObject("total")->getInteger("saturation_frames"), int64_t(2));
  int64_t Saturated = 0;
  double WorstFraction = 0;
  size_t Counted = 0;
  for (size_t I = 0; I < QL->size(); ++I) {
    const llvm::json::Object &QO = *(*QL)[I].getAsObject(), &BO = *(*BL)[I].getAsObject();
    // A layer that stores nothing has no count (docs/stats-json.md).
    const bool Stores = QO.getInteger("dram_write_bytes").getValueOr(0) > 0;
    EXPECT_EQ(bool(QO.get("saturated")), Stores) << I;
    EXPECT_EQ(bool(BO.get("saturated")), Stores) << I;
    if (!Stores)
      continue;
    ++Counted;
    EXPECT_EQ(QO.getInteger("saturated"), int64_t(0)) << I;
    EXPECT_EQ(QO.getNumber("saturated_fraction"), 0.0) << I;
    ASSERT_TRUE(BO.getInteger("saturated")) << I;
    Saturated += *BO.getInteger("saturated");
    WorstFraction = std::max(WorstFraction, *BO.getNumber("saturated_fraction"));
    EXPECT_LE(*BO.getNumber("saturated_fraction"), 0.5) << "only one frame of two is loud";
  }
  EXPECT_GT(Counted, 0u);
  EXPECT_GT(Saturated, 0);
  // The warning's figure is the JSON's worst fraction.
  char Pct[32];
  std::snprintf(Pct, sizeof Pct, "with %.3f%%", 100 * WorstFraction);
  EXPECT_NE(B.Err.find(Pct), std::string::npos) << B << " vs " << Pct;
  // Timing-only runs compute no values: no field, no warning.
  ToolResult T = run("snowsim", {"p.bin", "--input", "batch.npy", "--timing-only", "--quiet",
                                 "--stats-json", "t.json"});
  ASSERT_TRUE(succeeded(T)) << T;
  llvm::json::Value TV = Parse("t.json");
  EXPECT_FALSE((*TV.getAsObject()->getArray("layers"))[0].getAsObject()->get("saturated"));
}
