//===- ToolHarness.h - Run the command-line tools as a user would -*- C++ -*-===//
//
// The tools tests treat snowc, snowsim, snowref, snowasm and snowdis as black
// boxes: each test gets a fresh temporary directory, runs a real binary in it
// with fork/exec (no shell, so arguments need no quoting), captures stdout and
// stderr to files, and checks the contract for bad input from the outside:
// one clear line on stderr, a non-zero exit, no crash, and no output file
// created or left half-written. Scripts and CI depend on exactly these
// properties, which unit tests of the libraries cannot see.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_TOOLS_TOOLHARNESS_H
#define SNOW_TESTS_TOOLS_TOOLHARNESS_H

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace snow::test {

namespace fs = std::filesystem;

inline const std::string BinDir = SNOW_BIN_DIR;
inline const std::string SourceDir = SNOW_SOURCE_DIR;

/// What one run of a tool did. Exactly one of Exited / Signaled is true
/// unless the child could not be started at all.
struct ToolResult {
  bool Exited = false;
  int ExitCode = -1;
  bool Signaled = false;
  int Signal = 0;
  std::string Out, Err;
  std::string Command; // For failure messages: what to paste into a shell.
};

inline std::ostream &operator<<(std::ostream &OS, const ToolResult &R) {
  OS << "$ " << R.Command << "\n";
  if (R.Signaled)
    OS << "[killed by signal " << R.Signal << " (" << strsignal(R.Signal) << ")]\n";
  else
    OS << "[exit " << R.ExitCode << "]\n";
  return OS << "--- stderr ---\n"
            << R.Err << "--- stdout (first 2000 bytes) ---\n"
            << R.Out.substr(0, 2000);
}

inline std::string readBytes(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

inline void writeBytes(const fs::path &P, const std::string &Bytes) {
  std::ofstream Out(P, std::ios::binary | std::ios::trunc);
  Out.write(Bytes.data(), std::streamsize(Bytes.size()));
  ASSERT_TRUE(Out.good()) << "cannot write test file " << P;
}

/// Runs Exe with Args in Dir with fork/exec (no shell, stdin from /dev/null);
/// a run longer than TimeoutSeconds is killed. Stdout and stderr go to files
/// next to (not inside) Dir, so that a listing of Dir sees only what the tool
/// itself created.
inline ToolResult runTool(const fs::path &Dir, const std::string &Exe,
                          const std::vector<std::string> &Args, unsigned TimeoutSeconds = 120) {
  ToolResult R;
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
  if (Pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return R;
  }
  if (Pid == 0) {
    // In the child only async-signal-safe calls until exec.
    int Out = open(OutFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int Err = open(ErrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int Null = open("/dev/null", O_RDONLY);
    if (Out < 0 || Err < 0 || Null < 0 || chdir(Dir.c_str()) != 0)
      _exit(127);
    // The alarm survives exec: a tool that hangs is killed by SIGALRM and
    // reported as not exiting normally, instead of stalling the test run.
    alarm(TimeoutSeconds);
    dup2(Null, 0);
    dup2(Out, 1);
    dup2(Err, 2);
    execv(Argv[0], Argv.data());
    _exit(127);
  }
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(Status)) {
    R.Exited = true;
    R.ExitCode = WEXITSTATUS(Status);
  } else if (WIFSIGNALED(Status)) {
    R.Signaled = true;
    R.Signal = WTERMSIG(Status);
  }
  R.Out = readBytes(OutFile);
  R.Err = readBytes(ErrFile);
  fs::remove(OutFile);
  fs::remove(ErrFile);
  return R;
}

/// The standard CRC-32 (zlib, PNG, Ethernet; what llvm::crc32 computes):
/// reflected polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF.
/// Written out here rather than taken from LLVM so the test checks the
/// documented format, not whatever the implementation happens to call.
inline uint32_t crc32(const std::string &Bytes, size_t Size) {
  uint32_t Crc = 0xFFFFFFFFu;
  for (size_t I = 0; I < Size; ++I) {
    Crc ^= uint8_t(Bytes[I]);
    for (int Bit = 0; Bit < 8; ++Bit)
      Crc = (Crc >> 1) ^ (0xEDB88320u & (0u - (Crc & 1u)));
  }
  return Crc ^ 0xFFFFFFFFu;
}

inline void putU32(std::string &Bytes, size_t Offset, uint32_t V) {
  for (int I = 0; I < 4; ++I)
    Bytes[Offset + I] = char((V >> (8 * I)) & 0xFF);
}

inline uint32_t getU32(const std::string &Bytes, size_t Offset) {
  uint32_t V = 0;
  for (int I = 0; I < 4; ++I)
    V |= uint32_t(uint8_t(Bytes[Offset + I])) << (8 * I);
  return V;
}

/// Rewrites the CRC footer of a prog.bin image so that a deliberate patch is
/// seen by the check it targets rather than by the checksum.
inline void fixCrc(std::string &Prog) {
  ASSERT_GE(Prog.size(), 20u);
  putU32(Prog, Prog.size() - 4, crc32(Prog, Prog.size() - 4));
}

/// A version 1.0 .npy file written byte by byte, so tests can produce dtypes
/// and shapes the toolchain's own writer refuses to make. Descr is NumPy's
/// dtype string ('<f4', '<i2', '<f8'); Data is the raw little-endian payload.
inline std::string makeNpy(const std::string &Descr, const std::vector<uint64_t> &Shape,
                           const std::string &Data) {
  std::string ShapeText = "(";
  for (size_t I = 0; I < Shape.size(); ++I)
    ShapeText += std::to_string(Shape[I]) + (Shape.size() == 1 || I + 1 < Shape.size() ? "," : "");
  // NumPy puts a space after each comma but the last; either form is valid.
  ShapeText += ")";
  std::string Header =
      "{'descr': '" + Descr + "', 'fortran_order': False, 'shape': " + ShapeText + ", }";
  // Magic (6) + version (2) + header length (2) + header + '\n', padded to 64.
  size_t Total = 10 + Header.size() + 1;
  Header += std::string((64 - Total % 64) % 64, ' ') + "\n";
  std::string Out = "\x93NUMPY";
  Out += '\x01';
  Out += '\x00';
  Out += char(Header.size() & 0xFF);
  Out += char(Header.size() >> 8);
  return Out + Header + Data;
}

/// Assembly for snowasm: vmax reads maps bank 0 while the ld.map before it is
/// still writing it, with no semaphore in between, so snowsim faults (the
/// hazard rule of architecture.md §3.6).
inline const char *const Race = R"(.model race
.input 0 1 1 16
.output 0x100 1 1 16
  ld.map r0, r0, rows=1, len=16, dstride=0, bstride=0, mask=1
  vmax r1, r0, rows=1, len=1, bstride=0, cstride=0
  halt
)";

inline std::string tinyModel() { return SourceDir + "/models/tiny.yaml"; }

/// No signal, and none of the texts LLVM prints when a tool crashes or hits
/// an assertion: a user error must never look like a compiler bug.
inline ::testing::AssertionResult didNotCrash(const ToolResult &R) {
  if (!R.Exited)
    return ::testing::AssertionFailure() << "the tool did not exit normally\n" << R;
  for (const char *Crash : {"Stack dump", "PLEASE submit", "Assertion", "terminate called",
                            "Segmentation fault", "LLVM ERROR"})
    if (R.Err.find(Crash) != std::string::npos || R.Out.find(Crash) != std::string::npos)
      return ::testing::AssertionFailure() << "crash text '" << Crash << "'\n" << R;
  return ::testing::AssertionSuccess();
}

/// The contract for bad input: no crash, a non-zero exit, and stderr exactly
/// one newline-terminated line containing "error" and each of Parts (the file
/// name, "file:line:", the offending value, ...).
inline ::testing::AssertionResult isCleanError(const ToolResult &R,
                                               std::initializer_list<std::string> Parts = {}) {
  if (auto Ok = didNotCrash(R); !Ok)
    return Ok;
  if (R.ExitCode == 0)
    return ::testing::AssertionFailure() << "exit status 0 on an error\n" << R;
  if (R.Err.empty() || R.Err.back() != '\n' || R.Err.find('\n') != R.Err.size() - 1)
    return ::testing::AssertionFailure() << "stderr is not exactly one line\n" << R;
  if (R.Err.find("error") == std::string::npos)
    return ::testing::AssertionFailure() << "stderr does not say 'error'\n" << R;
  for (const std::string &P : Parts)
    if (R.Err.find(P) == std::string::npos)
      return ::testing::AssertionFailure() << "stderr lacks '" << P << "'\n" << R;
  return ::testing::AssertionSuccess();
}

/// A successful run: exit 0, no crash, nothing on stderr.
inline ::testing::AssertionResult succeeded(const ToolResult &R) {
  if (auto Ok = didNotCrash(R); !Ok)
    return Ok;
  if (R.ExitCode != 0)
    return ::testing::AssertionFailure() << "non-zero exit\n" << R;
  if (!R.Err.empty())
    return ::testing::AssertionFailure() << "unexpected stderr on success\n" << R;
  return ::testing::AssertionSuccess();
}

/// Base fixture: a fresh directory per test, the working directory of every
/// tool run, removed afterwards. Set SNOW_KEEP_TEST_DIRS=1 to keep the
/// directories of failed tests for inspection (not the default, so that a
/// test pinning a known tool bug does not litter /tmp on every run).
class ToolTest : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *Tool : {"snowc", "snowsim", "snowref", "snowasm", "snowdis"})
      ASSERT_TRUE(fs::exists(BinDir + "/" + Tool))
          << Tool << " is not built in " << BinDir
          << ": build the tools (the default target) before running test_tools";
    std::string Template = (fs::temp_directory_path() / "snow-tools-XXXXXX").string();
    ASSERT_NE(mkdtemp(Template.data()), nullptr) << "mkdtemp: " << std::strerror(errno);
    Dir = Template;
  }

  void TearDown() override {
    if (Dir.empty())
      return;
    if (HasFailure() && std::getenv("SNOW_KEEP_TEST_DIRS"))
      std::cerr << "[ kept " << Dir.string() << " ]\n";
    else
      fs::remove_all(Dir);
  }

  fs::path path(const std::string &Name) const { return Dir / Name; }
  void write(const std::string &Name, const std::string &Bytes) const {
    writeBytes(path(Name), Bytes);
  }
  std::string read(const std::string &Name) const { return readBytes(path(Name)); }
  bool exists(const std::string &Name) const { return fs::exists(path(Name)); }

  /// Every name in the test directory, recursively, so a test can prove that
  /// a failed run left nothing behind (including temporaries such as
  /// "prog.bin.tmp-ab12cd" from an interrupted atomic write).
  std::set<std::string> listing() const {
    std::set<std::string> Names;
    for (const auto &E : fs::recursive_directory_iterator(Dir))
      Names.insert(fs::relative(E.path(), Dir).string());
    return Names;
  }

  /// Runs BinDir/Tool with Args in the test directory (see runTool).
  ToolResult run(const std::string &Tool, const std::vector<std::string> &Args) const {
    return runTool(Dir, BinDir + "/" + Tool, Args, TimeoutSeconds);
  }

  /// Runs Tool with Args and checks the contract for bad input: a clean error
  /// naming each of Parts, and nothing created in the test directory (Why
  /// says what a new file would mean). Returns the run for further checks.
  ToolResult expectCleanError(const std::string &Tool, const std::vector<std::string> &Args,
                              std::initializer_list<std::string> Parts,
                              const std::string &Why = "a failed run created files") const {
    auto Before = listing();
    ToolResult R = run(Tool, Args);
    EXPECT_TRUE(isCleanError(R, Parts));
    EXPECT_EQ(listing(), Before) << Why;
    return R;
  }

  /// Compiles models/tiny.yaml for Hw into Name; the starting point of most
  /// snowsim tests.
  void compileTiny(const std::string &Name, const std::string &Hw = "zc706") const {
    ToolResult R = run("snowc", {tinyModel(), "-o", Name, "--hw", Hw});
    ASSERT_TRUE(succeeded(R)) << R;
  }

  /// Assembles Source (written to Name + ".s") into Name + ".bin".
  void assemble(const std::string &Name, const std::string &Source) const {
    write(Name + ".s", Source);
    ToolResult R = run("snowasm", {Name + ".s", "-o", Name + ".bin"});
    ASSERT_TRUE(succeeded(R)) << R;
  }

  static constexpr unsigned TimeoutSeconds = 120;
  fs::path Dir;
};

} // namespace snow::test

#endif
