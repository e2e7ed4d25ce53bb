//===- ToolsTest.cpp - snowasm and snowdis from the command line ----------===//
//
// The tools are thin, but their contract is what scripts rely on: exit status,
// a single "tool: error: ..." line, no output file after a failure, and a
// snowdis --no-pc --data listing that snowasm turns back into the same prog.bin.
// The tools are separate targets; when they have not been built the tests
// skip rather than fail.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

const std::string BinDir = SNOW_BIN_DIR;

class Tools : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *Tool : {"snowasm", "snowdis"})
      if (!fs::exists(BinDir + "/" + Tool))
        GTEST_SKIP() << Tool << " is not built in " << BinDir;
    Dir = fs::temp_directory_path() / ("snow-isa-tools-" + std::to_string(getpid()));
    fs::create_directories(Dir);
  }
  void TearDown() override {
    if (!Dir.empty())
      fs::remove_all(Dir);
  }

  std::string path(const std::string &Name) const { return (Dir / Name).string(); }

  void write(const std::string &Name, const std::string &Text) const {
    std::ofstream(path(Name), std::ios::binary) << Text;
  }

  std::string read(const std::string &Name) const {
    std::ifstream In(path(Name), std::ios::binary);
    std::ostringstream S;
    S << In.rdbuf();
    return S.str();
  }

  /// Runs a tool with stdout and stderr captured to files; returns the exit status.
  int run(const std::string &Tool, const std::string &Args) const {
    std::string Cmd =
        BinDir + "/" + Tool + " " + Args + " >" + path("out.txt") + " 2>" + path("err.txt");
    int Status = std::system(Cmd.c_str());
    return WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
  }

  fs::path Dir;
};

const char *const Sample = R"(.model sample
.input 0 3 8 8
.output 0x1000 8 8 8
.layer conv1 conv 13824 8 8 8
.data16 0x2000 1 -2 3
.data16 0x2040 32767 -32768
  li r1, imm=0
  li r2, imm=64
  mark imm=0
  ld.map r1, r0, rows=8, len=24, dstride=48, bstride=24, mask=0xf
  signal.ld idx=0
  wait.ex idx=0
loop:
  addi r2, r2, imm=-1
  bne r2, r0, imm=loop
  halt
)";

TEST_F(Tools, AssembleDisassembleReassembleGivesIdenticalBytes) {
  write("a.s", Sample);
  ASSERT_EQ(run("snowasm", path("a.s") + " -o " + path("a.bin") + " --hw mini64"), 0)
      << read("err.txt");
  ASSERT_EQ(run("snowdis", path("a.bin")), 0) << read("err.txt");
  std::string Listing = read("out.txt");
  EXPECT_NE(Listing.find("# hardware: mini64, 64 MACs"), std::string::npos) << Listing;
  EXPECT_NE(Listing.find(".model sample"), std::string::npos) << Listing;
  EXPECT_NE(Listing.find(".layer conv1 conv 13824 8 8 8"), std::string::npos) << Listing;
  EXPECT_NE(Listing.find("7: bne r2, r0, imm=-1"), std::string::npos) << Listing;
  // The default listing carries the data image, so it round-trips as is.
  EXPECT_NE(Listing.find("# data: 68 bytes at 0x2000\n.data addr=0x2000 size=68\n"),
            std::string::npos)
      << Listing;

  ASSERT_EQ(run("snowdis", "--no-pc --data " + path("a.bin")), 0) << read("err.txt");
  fs::rename(path("out.txt"), path("b.s"));
  ASSERT_EQ(run("snowasm", path("b.s") + " -o " + path("b.bin") + " --hw mini64"), 0)
      << read("err.txt");
  EXPECT_EQ(read("a.bin"), read("b.bin"));
}

TEST_F(Tools, AssemblerErrorIsOneLineAndWritesNoFile) {
  write("bad.s", "nop\nvmac r1, r2, r3, rows=5000, len=1, bstride=1, init=0\n");
  EXPECT_EQ(run("snowasm", path("bad.s") + " -o " + path("bad.bin")), 1);
  EXPECT_EQ(read("err.txt"), "snowasm: error: " + path("bad.s") +
                                 ":2: field 'rows' of 'vmac': value 5000 does not fit in 12 "
                                 "unsigned bits\n");
  EXPECT_FALSE(fs::exists(path("bad.bin")));
}

TEST_F(Tools, MissingInputsAreReportedNotCrashedOn) {
  EXPECT_EQ(run("snowasm", path("none.s") + " -o " + path("x.bin")), 1);
  EXPECT_EQ(read("err.txt").rfind("snowasm: error: cannot read '", 0), 0u) << read("err.txt");
  write("a.s", "halt\n");
  EXPECT_EQ(run("snowasm", path("a.s") + " -o " + path("x.bin") + " --hw no-such-preset"), 1);
  EXPECT_EQ(read("err.txt").rfind("snowasm: error: ", 0), 0u) << read("err.txt");
  EXPECT_FALSE(fs::exists(path("x.bin")));
  EXPECT_EQ(run("snowdis", path("none.bin")), 1);
  EXPECT_EQ(read("err.txt").rfind("snowdis: error: ", 0), 0u) << read("err.txt");
}

} // namespace
