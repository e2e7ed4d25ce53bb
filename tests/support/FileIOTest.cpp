//===- FileIOTest.cpp - Files written piece by piece, atomically ----------===//
//
// writeFileAtomic(Path, Produce) writes a file a piece at a time (snowc
// streams a program's weight image through a window of a few MB). The file
// must hold exactly the pieces in order; a write that fails (here: over the
// process's file-size limit, as a full disk would) must stop the producer at
// once and leave no output and no temporary, never a SIGXFSZ or a partial
// file; so must the producer's own error.
//
//===----------------------------------------------------------------------===//

#include "snow/support/FileIO.h"
#include "ScratchDir.h"
#include <csignal>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

using namespace snow;
using namespace snow::test;

namespace {

class FileIO : public ScratchDirTest {};

/// Piece K: Size bytes of a pattern that tells pieces and offsets apart.
std::vector<uint8_t> piece(unsigned K, size_t Size) {
  std::vector<uint8_t> P(Size);
  for (size_t I = 0; I < Size; ++I)
    P[I] = uint8_t(I * 131 + K * 7 + 1);
  return P;
}

TEST_F(FileIO, PiecesArriveInOrder) {
  const std::string Out = path("prog.bin");
  write("prog.bin", "an older version");
  // Sizes that are not whole pages, one empty.
  const std::vector<size_t> Sizes = {3, (size_t(5) << 20) + 3, 0, 4097};
  ASSERT_FALSE(bool(writeFileAtomic(Out, [&](PieceWriter Write) -> llvm::Error {
    for (unsigned K = 0; K < Sizes.size(); ++K)
      if (llvm::Error E = Write(piece(K, Sizes[K])))
        return E;
    return llvm::Error::success();
  })));
  std::string Want;
  for (unsigned K = 0; K < Sizes.size(); ++K) {
    const std::vector<uint8_t> P = piece(K, Sizes[K]);
    Want.append(P.begin(), P.end());
  }
  EXPECT_TRUE(slurp(Out) == Want);
  EXPECT_EQ(entries(), std::vector<std::string>{"prog.bin"}); // No temporary left.
}

TEST_F(FileIO, AWriteThatFailsStopsTheProducerAndLeavesNothing) {
  const std::string Out = path("prog.bin");
  write("prog.bin", "the old program");
  rlimit Old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &Old), 0);
  // Over the limit the kernel refuses the write (EFBIG) and would otherwise
  // signal: as a full disk refuses it with ENOSPC.
  auto OldHandler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit Small = Old;
  Small.rlim_cur = 1 << 20;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &Small), 0);
  unsigned Produced = 0;
  bool WentOn = false;
  llvm::Error E = writeFileAtomic(Out, [&](PieceWriter Write) -> llvm::Error {
    for (unsigned K = 0; K < 8; ++K) {
      ++Produced;
      if (llvm::Error E = Write(piece(K, size_t(1) << 19)))
        return E;
    }
    WentOn = true;
    return llvm::Error::success();
  });
  setrlimit(RLIMIT_FSIZE, &Old);
  std::signal(SIGXFSZ, OldHandler);
  ASSERT_TRUE(bool(E));
  const std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("cannot write '" + Out + "'"), std::string::npos) << Msg;
  EXPECT_FALSE(WentOn);
  EXPECT_EQ(Produced, 3u);                  // Two pieces fill the 1 MB; the third is refused.
  EXPECT_EQ(slurp(Out), "the old program"); // Untouched.
  EXPECT_EQ(entries(), std::vector<std::string>{"prog.bin"});
}

TEST_F(FileIO, TheProducersOwnErrorLeavesNothing) {
  const std::string Out = path("prog.bin");
  write("prog.bin", "the old program");
  llvm::Error E = writeFileAtomic(Out, [&](PieceWriter Write) -> llvm::Error {
    if (llvm::Error E = Write(piece(0, 100)))
      return E;
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "the program faults");
  });
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(llvm::toString(std::move(E)), "the program faults");
  EXPECT_EQ(slurp(Out), "the old program");
  EXPECT_EQ(entries(), std::vector<std::string>{"prog.bin"});
}

TEST_F(FileIO, NoPiecesWriteAnEmptyFile) {
  const std::string Out = path("empty.bin");
  ASSERT_FALSE(bool(
      writeFileAtomic(Out, [&](PieceWriter) -> llvm::Error { return llvm::Error::success(); })));
  EXPECT_EQ(slurp(Out), "");
  EXPECT_EQ(entries(), std::vector<std::string>{"empty.bin"});
}

// InputFile::readChunks reads the file again through its descriptor (the
// prog.bin checksum does): the chunks together are the first Len bytes, in
// order, whatever their size; a file that shrank after it was opened ends
// them early instead of reading past its end.
TEST_F(FileIO, ChunksAreTheFileInOrder) {
  const std::string In = path("in.bin");
  const std::vector<uint8_t> Bytes = piece(3, (size_t(600) << 10) + 13); // > two chunks
  ASSERT_FALSE(bool(writeFileAtomic(
      In, llvm::StringRef(reinterpret_cast<const char *>(Bytes.data()), Bytes.size()))));
  auto File = InputFile::open(In);
  ASSERT_TRUE(bool(File)) << File.getError().message();
  EXPECT_EQ(File->bytes().size(), Bytes.size());
  for (uint64_t Len :
       {uint64_t(0), uint64_t(1), uint64_t(Bytes.size() - 4), uint64_t(Bytes.size())}) {
    std::vector<uint8_t> Got;
    size_t Chunks = 0;
    ASSERT_FALSE(File->readChunks(Len, [&](llvm::ArrayRef<uint8_t> C) {
      Got.insert(Got.end(), C.begin(), C.end());
      ++Chunks;
    }));
    EXPECT_EQ(Got, std::vector<uint8_t>(Bytes.begin(), Bytes.begin() + Len));
    EXPECT_EQ(Chunks == 0, Len == 0) << "Len " << Len;
    if (Len == Bytes.size()) {
      EXPECT_GT(Chunks, 1u) << "600 KB in one read: the chunks are not exercised";
    }
  }
  // Shrunk to 1000 bytes after opening: those, and no error.
  ASSERT_EQ(::truncate(In.c_str(), 1000), 0);
  std::vector<uint8_t> Got;
  ASSERT_FALSE(File->readChunks(
      Bytes.size(), [&](llvm::ArrayRef<uint8_t> C) { Got.insert(Got.end(), C.begin(), C.end()); }));
  EXPECT_EQ(Got, std::vector<uint8_t>(Bytes.begin(), Bytes.begin() + 1000));
}

TEST_F(FileIO, InputFileRefusesWhatReadInputFileRefuses) {
  EXPECT_EQ(InputFile::open(path("missing")).getError(),
            std::make_error_code(std::errc::no_such_file_or_directory));
  EXPECT_EQ(InputFile::open(Dir).getError(), std::make_error_code(std::errc::is_a_directory));
  auto Dev = InputFile::open("/dev/zero");
  ASSERT_FALSE(bool(Dev));
  EXPECT_NE(Dev.getError().message().find("not a regular file"), std::string::npos);
}

} // namespace
