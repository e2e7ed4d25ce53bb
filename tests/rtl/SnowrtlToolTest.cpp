//===- SnowrtlToolTest.cpp - snowrtl's command line, as a user runs it ----===//
//
// snowrtl keeps snowsim's contract for the command line: one error line and a
// non-zero exit for bad input, no partial output files, the same files
// (--output, --output-float, --stats-json, batches of frames) as snowsim, and
// a program compiled for hardware without a model named as such, the same
// exit codes. --trace writes an FST waveform.
//
//===----------------------------------------------------------------------===//

#include "CoSim.h"

using namespace snow;
using namespace snow::test;

namespace {

class RtlTool : public CoSimTest {};

TEST_F(RtlTool, HardwareWithoutAModelIsNamed) {
  write("custom.yaml", "base: zc706\nname: custom\nqueue_depth: 32\n");
  ToolResult C = run("snowc", {tinyModel(), "-o", "p.bin", "--hw", "custom.yaml"});
  ASSERT_TRUE(succeeded(C)) << C;
  ToolResult R = run("snowrtl", {"p.bin", "--output", "y.npy", "--stats-json", "s.json"});
  EXPECT_TRUE(
      isCleanError(R, {"no RTL model for hardware 'custom'", "built: ", "set SNOW_RTL_CONFIGS"}));
  EXPECT_FALSE(exists("y.npy"));
  EXPECT_FALSE(exists("s.json"));
}

TEST_F(RtlTool, BadInputIsOneLine) {
  EXPECT_TRUE(isCleanError(run("snowrtl", {"missing.bin"}), {"missing.bin"}));
  write("junk.bin", "not a program");
  EXPECT_TRUE(isCleanError(run("snowrtl", {"junk.bin"}), {"junk.bin"}));
  EXPECT_TRUE(isCleanError(run("snowrtl", {"--no-such-option"})));
  compileTiny("tiny.bin", "mini64");
  EXPECT_TRUE(isCleanError(run("snowrtl", {"tiny.bin", "--hw", "zc706"}),
                           {"compiled for hardware 'mini64', not for 'zc706'"}));
  EXPECT_TRUE(isCleanError(run("snowrtl", {"tiny.bin", "--input", "none.npy"}), {"none.npy"}));
  EXPECT_TRUE(isCleanError(run("snowrtl", {"tiny.bin", "--output", "no/such/dir/y.npy"})));
  EXPECT_TRUE(isCleanError(run("snowrtl", {"tiny.bin", "--trace", "no/such/dir/t.fst"}),
                           {"no/such/dir/t.fst"}));
  EXPECT_EQ(listing(), (std::set<std::string>{"junk.bin", "tiny.bin"}));
}

TEST_F(RtlTool, QuietPrintsNothing) {
  compileTiny("tiny.bin", "mini64");
  ToolResult R = run("snowrtl", {"tiny.bin", "--quiet"});
  EXPECT_TRUE(succeeded(R)) << R;
  EXPECT_EQ(R.Out, "");
}

TEST_F(RtlTool, InputFileAndFloatOutputAsSnowsim) {
  compileTiny("tiny.bin", "mini64");
  std::string Data;
  for (unsigned I = 0; I < 3 * 32 * 32; ++I) {
    float V = float(int(I % 97) - 48) / 50.0f;
    Data.append(reinterpret_cast<const char *>(&V), 4);
  }
  write("x.npy", makeNpy("<f4", {3, 32, 32}, Data));
  EXPECT_TRUE(coSimulate("tiny.bin", false, {"--input", "x.npy"}));
  for (const char *Tool : {"snowsim", "snowrtl"}) {
    ToolResult R = run(Tool, {"tiny.bin", "--input", "x.npy", "--quiet", "--output-float",
                              std::string(Tool) + ".f.npy"});
    ASSERT_TRUE(succeeded(R)) << R;
  }
  EXPECT_EQ(read("snowsim.f.npy"), read("snowrtl.f.npy"));
  EXPECT_GT(read("snowsim.f.npy").size(), 1000u);
}

// A batch of two frames runs frame by frame; outputs are (2, C, H, W).
TEST_F(RtlTool, BatchOfFramesAsSnowsim) {
  compileTiny("tiny.bin", "mini64");
  std::string Data;
  for (unsigned I = 0; I < 2 * 3 * 32 * 32; ++I) {
    int16_t V = int16_t(int(I * 37 % 511) - 255);
    Data.append(reinterpret_cast<const char *>(&V), 2);
  }
  write("x.npy", makeNpy("<i2", {2, 3, 32, 32}, Data));
  ToolResult Sim;
  EXPECT_TRUE(coSimulate("tiny.bin", false, {"--input", "x.npy"}, &Sim));
  EXPECT_NE(Sim.Out.find("2 frames of the input batch"), std::string::npos) << Sim.Out;
}

// An input far beyond what tiny was calibrated on saturates several
// layers: snowrtl counts the values at the rails on its DRAM write port, per
// layer and over a batch, as snowsim counts them at its store (the same
// --stats-json, the same warning line).
TEST_F(RtlTool, SaturationCountedAsSnowsim) {
  compileTiny("tiny.bin", "mini64");
  std::string Data;
  for (unsigned I = 0; I < 2 * 3 * 32 * 32; ++I) {
    float V = (I < 3 * 32 * 32 ? 0.3f : 100.0f) * float(int(I % 97) - 48) / 50.0f;
    Data.append(reinterpret_cast<const char *>(&V), 4);
  }
  write("x.npy", makeNpy("<f4", {2, 3, 32, 32}, Data));
  ToolResult Sim;
  EXPECT_TRUE(coSimulate("tiny.bin", false, {"--input", "x.npy"}, &Sim));
  EXPECT_NE(Sim.Err.find("snowsim: warning: values saturated"), std::string::npos) << Sim;
  EXPECT_NE(read("snowrtl.json").find("\"saturated\""), std::string::npos);
}

TEST_F(RtlTool, TraceWritesAWaveform) {
  assembleFor("p.bin",
              "li r1, imm=64\nfill r1, rows=1, len=16, bstride=0, value=3, mask=1\n"
              "halt\n",
              "mini64");
  ToolResult R = run("snowrtl", {"p.bin", "--trace", "t.fst", "--quiet"});
  ASSERT_TRUE(succeeded(R)) << R;
  std::string Fst = read("t.fst");
  EXPECT_GT(Fst.size(), 100u);
  EXPECT_EQ(listing(), (std::set<std::string>{"p.bin", "t.fst"})); // no temporaries left
  // A program fault keeps its waveform: that is when one is wanted.
  assembleFor("f.bin", "nop\nwait.ex idx=1\nhalt\n", "mini64");
  ToolResult F = run("snowrtl", {"f.bin", "--trace", "f.fst"});
  EXPECT_TRUE(isCleanError(F, {"deadlock"}));
  EXPECT_TRUE(exists("f.fst"));
}

// The shared driver's exit codes (docs/stats-json.md): 0 success, 1 bad
// input, 2 a program fault, the same for both tools.
TEST_F(RtlTool, ExitCodesAsSnowsim) {
  compileTiny("tiny.bin", "mini64");
  assembleFor("f.bin", "nop\nwait.ex idx=1\nhalt\n", "mini64");
  for (const char *Tool : {"snowsim", "snowrtl"}) {
    SCOPED_TRACE(Tool);
    EXPECT_EQ(run(Tool, {"tiny.bin", "--quiet"}).ExitCode, 0);
    EXPECT_EQ(run(Tool, {"missing.bin"}).ExitCode, 1);
    EXPECT_EQ(run(Tool, {"tiny.bin", "--no-such-option"}).ExitCode, 1);
    EXPECT_EQ(run(Tool, {"tiny.bin", "--hw", "zc706"}).ExitCode, 1);
    EXPECT_EQ(run(Tool, {"f.bin"}).ExitCode, 2);
    EXPECT_EQ(run(Tool, {"tiny.bin", "--max-cycles", "100"}).ExitCode, 2);
  }
}

} // namespace
