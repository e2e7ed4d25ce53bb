//===- FileIOTest.cpp - Files filled in place, atomically -----------------===//
//
// writeFileAtomic(Path, Size, Fill) maps the output file and lets Fill write
// into it (snowc packs a program's weights straight into prog.bin). Fill
// must see zeros where it writes nothing, the file must hold exactly what
// it wrote, and a file that cannot be had in full (here: over the process's
// file-size limit, as a full disk would be) must be an error before Fill
// runs, with no output and no temporary left, never a SIGBUS.
//
//===----------------------------------------------------------------------===//

#include "snow/support/FileIO.h"
#include "ScratchDir.h"
#include <csignal>
#include <sys/resource.h>

using namespace snow;
using namespace snow::test;

namespace {

class FileIO : public ScratchDirTest {};

TEST_F(FileIO, FillWritesInPlaceOverZeros) {
  const uint64_t Size = (uint64_t(5) << 20) + 3; // Not a whole number of pages.
  const std::string Out = path("prog.bin");
  write("prog.bin", "an older version");
  bool SawZeros = true;
  ASSERT_FALSE(bool(writeFileAtomic(Out, Size, [&](uint8_t *P) {
    for (uint64_t I = 0; I < Size; ++I)
      SawZeros &= P[I] == 0;
    for (uint64_t I = 0; I < Size; I += 7) // Every seventh byte: the rest stays 0.
      P[I] = uint8_t(I * 131 + 1);
  })));
  EXPECT_TRUE(SawZeros);
  const std::string Got = slurp(Out);
  ASSERT_EQ(Got.size(), Size);
  for (uint64_t I = 0; I < Size; ++I)
    ASSERT_EQ(uint8_t(Got[I]), I % 7 ? 0 : uint8_t(I * 131 + 1)) << "byte " << I;
  EXPECT_EQ(entries(), std::vector<std::string>{"prog.bin"}); // No temporary left.
}

TEST_F(FileIO, AFileThatCannotBeHadIsAnErrorBeforeFill) {
  const std::string Out = path("prog.bin");
  write("prog.bin", "the old program");
  rlimit Old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &Old), 0);
  // Over the limit the kernel refuses the reservation (EFBIG) and would
  // otherwise signal: as a full disk refuses it with ENOSPC.
  auto OldHandler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit Small = Old;
  Small.rlim_cur = 1 << 20;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &Small), 0);
  bool Filled = false;
  llvm::Error E = writeFileAtomic(Out, 8 << 20, [&](uint8_t *) { Filled = true; });
  setrlimit(RLIMIT_FSIZE, &Old);
  std::signal(SIGXFSZ, OldHandler);
  ASSERT_TRUE(bool(E));
  const std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("cannot write '" + Out + "'"), std::string::npos) << Msg;
  EXPECT_FALSE(Filled);
  EXPECT_EQ(slurp(Out), "the old program"); // Untouched.
  EXPECT_EQ(entries(), std::vector<std::string>{"prog.bin"});
}

TEST_F(FileIO, StandardOutputAndEmptyFilesGoThroughABuffer) {
  const std::string Out = path("empty.bin");
  bool Called = false;
  ASSERT_FALSE(bool(writeFileAtomic(Out, 0, [&](uint8_t *) { Called = true; })));
  EXPECT_TRUE(Called);
  EXPECT_EQ(slurp(Out), "");
}

} // namespace
