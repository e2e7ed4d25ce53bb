//===- CoSim.h - Run one program on snowsim and snowrtl, compare ---*- C++ -*-===//
//
// The RTL must implement the timing contract cycle for cycle
// (docs/architecture.md §3), so a program run by the simulator and by the
// Verilated RTL must give byte-identical results: the --stats-json document
// (total and per-layer cycles, MAC cycles, DRAM bytes, every unit counter),
// the output tensor, the report, or for a faulting program the same error
// line (pc, instruction, cycle and reason). Both tools run as a user runs
// them (tests/tools/ToolHarness.h), in a fresh directory per test.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_RTL_COSIM_H
#define SNOW_TESTS_RTL_COSIM_H

#include "../tools/ToolHarness.h"
#include "snow/isa/Asm.h"
#include "snow/isa/HwConfig.h"
#include "snow/isa/Program.h"

namespace snow::test {

/// The first line where A and B differ, both shown, for failure messages.
inline std::string firstDifference(const std::string &A, const std::string &B) {
  std::istringstream SA(A), SB(B);
  std::string LA, LB;
  for (unsigned Line = 1;; ++Line) {
    bool EA = !std::getline(SA, LA), EB = !std::getline(SB, LB);
    if (EA && EB)
      return "(no difference)";
    if (EA || EB || LA != LB)
      return "line " + std::to_string(Line) + ":\n  snowsim: " + (EA ? "<end>" : LA) +
             "\n  snowrtl: " + (EB ? "<end>" : LB);
  }
}

/// The report without its last "simulated N cycles in T s (...)" line, the
/// only one that differs between the tools (wall time, tool name).
inline std::string reportBody(const std::string &Out) {
  size_t At = Out.rfind("simulated ");
  return At == std::string::npos ? Out : Out.substr(0, At);
}

/// An error line without its "tool: error: " prefix.
inline std::string errorBody(const std::string &Err) {
  size_t At = Err.find("error: ");
  return At == std::string::npos ? Err : Err.substr(At + 7);
}

/// Err without its "tool: " prefix when it is exactly one saturation warning
/// line, else "".
inline std::string warningBody(const std::string &Err) {
  size_t At = Err.find(": warning: values saturated;");
  if (At == std::string::npos || Err.find('\n') + 1 != Err.size())
    return "";
  return Err.substr(At);
}

class CoSimTest : public ToolTest {
protected:
  void SetUp() override {
    ToolTest::SetUp();
    ASSERT_TRUE(fs::exists(BinDir + "/snowrtl")) << "snowrtl is not built in " << BinDir;
  }

  /// Assembles Text for preset Hw into Name (in the test directory).
  void assembleFor(const std::string &Name, const std::string &Text, const std::string &Hw) {
    auto C = isa::loadHwConfig(Hw);
    ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
    // prog.bin needs an input and an output tensor of at least one value
    // (the loaders refuse C, H or W of 0); programs written to exercise
    // instructions get one value each at DRAM 0 unless they say otherwise.
    std::string Full = Text;
    if (Full.find(".input") == std::string::npos)
      Full = ".input x addr=0 c=1 h=1 w=1\n" + Full;
    if (Full.find(".output") == std::string::npos)
      Full = ".output y addr=0 c=1 h=1 w=1\n" + Full;
    auto P = isa::assembleProgram(Full, Name + ".s", *C);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError()) << "\n" << Text;
    auto Err = isa::writeProgram(*P, path(Name).string());
    ASSERT_FALSE(bool(Err)) << llvm::toString(std::move(Err));
  }

  /// Compiles the model YAML text for preset Hw into Name.
  void compileFor(const std::string &Name, const std::string &Yaml, const std::string &Hw,
                  const std::vector<std::string> &Extra = {}) {
    write(Name + ".yaml", Yaml);
    std::vector<std::string> Args = {Name + ".yaml", "-o", Name, "--hw", Hw};
    Args.insert(Args.end(), Extra.begin(), Extra.end());
    ToolResult R = run("snowc", Args);
    ASSERT_TRUE(succeeded(R)) << R << "\nmodel:\n" << Yaml;
  }

  /// Runs Prog on both tools with Args added. Both must succeed with
  /// identical JSON, outputs and report, or both fail with the same error.
  /// ExpectFault says which of the two is expected. Sim receives snowsim's
  /// run, so callers can check the program did what it was written for.
  ::testing::AssertionResult coSimulate(const std::string &Prog, bool ExpectFault = false,
                                        const std::vector<std::string> &Args = {},
                                        ToolResult *Sim = nullptr) {
    auto Run = [&](const std::string &Tool) {
      std::vector<std::string> A = {Prog, "--stats-json", Tool + ".json", "--output",
                                    Tool + ".npy"};
      A.insert(A.end(), Args.begin(), Args.end());
      return run(Tool, A);
    };
    ToolResult S = Run("snowsim"), R = Run("snowrtl");
    if (Sim)
      *Sim = S;
    for (const ToolResult *T : {&S, &R})
      if (auto Ok = didNotCrash(*T); !Ok)
        return Ok;
    if (ExpectFault) {
      if (S.ExitCode == 0)
        return ::testing::AssertionFailure() << "snowsim did not fault\n" << S;
      if (R.ExitCode == 0)
        return ::testing::AssertionFailure()
               << "snowrtl did not fault; snowsim said: " << S.Err << R;
      if (errorBody(S.Err) != errorBody(R.Err))
        return ::testing::AssertionFailure()
               << "different faults:\n  snowsim: " << S.Err << "  snowrtl: " << R.Err;
      return ::testing::AssertionSuccess();
    }
    // A program that stores values at the int16 rails gets one saturation
    // warning from each tool (docs/fixed-point.md), the same but for the name.
    if (warningBody(S.Err) != warningBody(R.Err))
      return ::testing::AssertionFailure()
             << "different saturation warnings:\n  snowsim: " << S.Err << "  snowrtl: " << R.Err;
    ToolResult SQ = S, RQ = R;
    SQ.Err = S.Err.substr(warningBody(S.Err).empty() ? 0 : S.Err.size());
    RQ.Err = R.Err.substr(warningBody(R.Err).empty() ? 0 : R.Err.size());
    if (!succeeded(SQ))
      return ::testing::AssertionFailure() << "snowsim failed\n" << S;
    if (!succeeded(RQ))
      return ::testing::AssertionFailure() << "snowrtl failed; snowsim ran it\n" << R;
    std::string SJ = read("snowsim.json"), RJ = read("snowrtl.json");
    if (SJ != RJ)
      return ::testing::AssertionFailure() << "--stats-json differs at " << firstDifference(SJ, RJ);
    if (read("snowsim.npy") != read("snowrtl.npy"))
      return ::testing::AssertionFailure() << "the output tensors differ" << outputDifference();
    if (reportBody(S.Out) != reportBody(R.Out))
      return ::testing::AssertionFailure()
             << "the reports differ at " << firstDifference(S.Out, R.Out);
    return ::testing::AssertionSuccess();
  }

  /// Where the two output .npy files first differ (as int16 values).
  std::string outputDifference() const {
    std::string A = read("snowsim.npy"), B = read("snowrtl.npy");
    if (A.size() != B.size())
      return ": sizes " + std::to_string(A.size()) + " and " + std::to_string(B.size());
    size_t Diff = 0, First = 0;
    for (size_t I = 0; I + 1 < A.size(); I += 2)
      if ((A[I] != B[I] || A[I + 1] != B[I + 1]) && Diff++ == 0)
        First = I;
    auto Val = [](const std::string &S, size_t I) {
      return int16_t(uint8_t(S[I]) | uint8_t(S[I + 1]) << 8);
    };
    return ": " + std::to_string(Diff) + " values, first at byte " + std::to_string(First) +
           " (sim " + std::to_string(Val(A, First)) + ", rtl " + std::to_string(Val(B, First)) +
           ")";
  }
};

} // namespace snow::test

#endif
