//===- SnowrefSnowasmTest.cpp - Error contract of snowref and snowasm ------===//
//
// snowref produces the golden outputs everything else is compared with, and
// snowasm is how hand-written test programs get in: a silent partial file
// from either poisons every comparison downstream. Same contract as snowc
// and snowsim: one error line with the file (and line, for source text), a
// non-zero exit, no crash, nothing written.
//
//===----------------------------------------------------------------------===//

#include "ToolHarness.h"

using namespace snow::test;

namespace {

class Snowref : public ToolTest {};
class Snowasm : public ToolTest {
protected:
  /// Assembles Source from Name into out.bin and expects a clean error
  /// naming "Name:Line:" and each of Parts.
  void expectAsmError(const std::string &Name, const std::string &Source, unsigned Line,
                      std::initializer_list<std::string> Parts) {
    write(Name, Source);
    ToolResult R = expectCleanError("snowasm", {Name, "-o", "out.bin"}, Parts,
                                    "a failed assembly created files");
    EXPECT_TRUE(isCleanError(R, {Name + ":" + std::to_string(Line) + ":"}));
  }
};

} // namespace

TEST_F(Snowref, MissingModelIsReported) {
  expectCleanError("snowref", {"no-such-model.yaml", "--output", "y.npy"}, {"no-such-model.yaml"});
}

TEST_F(Snowref, InputOfWrongShapeIsRejected) {
  write("x.npy", makeNpy("<f4", {3, 16, 16}, std::string(4 * 3 * 16 * 16, '\0')));
  expectCleanError("snowref", {tinyModel(), "--input", "x.npy", "--output", "y.npy"},
                   {"x.npy", "(3, 16, 16)", "(3, 32, 32)"});
}

TEST_F(Snowref, InputOfUnsupportedDtypeIsRejected) {
  write("x.npy", makeNpy("<f8", {3, 32, 32}, std::string(8 * 3 * 32 * 32, '\0')));
  expectCleanError("snowref", {tinyModel(), "--input", "x.npy", "--output", "y.npy"},
                   {"x.npy", "<f8"});
}

TEST_F(Snowref, ModelErrorNamesFileAndLine) {
  write("m.yaml", "name: m\ninput: {shape: [3, 8, 8]}\nlayers:\n"
                  "  - {name: c1, type: conv, out_channels: 4, kernel: 3, strides: 2}\n");
  expectCleanError("snowref", {"m.yaml", "--output", "y.npy"}, {"m.yaml:4:", "'strides'"});
}

TEST_F(Snowref, OutputIntoMissingDirectoryLeavesNothing) {
  expectCleanError("snowref", {tinyModel(), "--output", "no-such-dir/y.npy", "--quiet"},
                   {"no-such-dir/y.npy"});
}

// KNOWN TOOL BUG: snowref writes --output, then --output-float; when the
// second fails it exits 1 with y.npy already written. A failed run should
// leave no output behind.
TEST_F(Snowref, FailingSecondOutputLeavesNoFirstOutput) {
  expectCleanError(
      "snowref",
      {tinyModel(), "--output", "y.npy", "--output-float", "no-such-dir/f.npy", "--quiet"},
      {"no-such-dir/f.npy"}, "y.npy was written by a run that failed");
}

TEST_F(Snowasm, SyntaxErrorNamesFileAndLine) {
  expectAsmError("bad.s", "nop\nhalt\nvmac r1, r2\n", 3, {"'vmac'"});
}

TEST_F(Snowasm, UnknownMnemonicNamesFileAndLine) {
  expectAsmError("bad.s", "nop\nfrobnicate r1\nhalt\n", 2, {"'frobnicate'"});
}

TEST_F(Snowasm, UndefinedLabelNamesFileLineAndLabel) {
  // The use is on line 3; the label is never defined.
  expectAsmError("bad.s", "# branch to nowhere\nnop\nbeq r0, r0, imm=nowhere\nhalt\n", 3,
                 {"'nowhere'"});
}

TEST_F(Snowasm, FailedAssemblyKeepsExistingOutputByteIdentical) {
  write("out.bin", "an older program");
  write("bad.s", "nop\nbeq r0, r0, imm=nowhere\n");
  auto Before = listing();
  ToolResult R = run("snowasm", {"bad.s", "-o", "out.bin"});
  EXPECT_TRUE(isCleanError(R, {"bad.s:2:"}));
  EXPECT_EQ(read("out.bin"), "an older program");
  EXPECT_EQ(listing(), Before);
}
