//===- ProgramTest.cpp - The prog.bin container: layout and robustness ----===//
//
// The layout is pinned by a second, independent reading of
// docs/program-format.md written here (splitSections / assemble): if the
// library and this reading disagree on a byte, the round trip through them
// fails. Robustness is pinned exhaustively on a small program: every
// truncation and every single-byte flip must give an error, never a crash,
// and the same again with the CRC patched up so the structural checks behind
// it are exercised too. Files are written atomically; the tests check that no
// partial or temporary file is ever left behind.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Program.h"
#include "../support/ScratchDir.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>

using namespace snow::isa;

namespace {

using Bytes = std::vector<uint8_t>;

::testing::AssertionResult contains(const std::string &Text, const std::string &Part) {
  if (Text.find(Part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << Text << "' does not contain '" << Part << "'";
}

Program smallProgram() {
  Program P;
  auto Hw = loadHwConfig("mini64");
  EXPECT_TRUE(bool(Hw));
  P.Hw = Hw ? *Hw : HwConfig();
  P.ModelName = "tiny";
  P.Code = {{0x0123456789abcdefULL, 0xfedcba9876543210ULL}, {1, 2}, {~0ULL, 0}};
  P.DataAddr = 0x1000;
  for (unsigned I = 0; I < 37; ++I) // Not a multiple of 8: exercises padding.
    P.Data.push_back(uint8_t(I * 7 + 1));
  P.Input = {"in", 0x100000, 3, 8, 8, 8};
  P.Output = {"out", 0x200000, 16, 4, 4, 6};
  P.Layers = {{"conv1", "conv", 27648, 16, 8, 8}, {"pool1", "maxpool", 0, 16, 4, 4}};
  return P;
}

std::string errorOf(const Bytes &B) {
  auto P = deserialize(B, "p.bin");
  return P ? std::string() : llvm::toString(P.takeError());
}

uint32_t getU32(const Bytes &B, size_t At) {
  return B[At] | B[At + 1] << 8 | B[At + 2] << 16 | uint32_t(B[At + 3]) << 24;
}
uint64_t getU64(const Bytes &B, size_t At) {
  return getU32(B, At) | uint64_t(getU32(B, At + 4)) << 32;
}
void putU32(Bytes &B, uint32_t V) {
  for (int I = 0; I < 4; ++I)
    B.push_back(uint8_t(V >> (8 * I)));
}
void putU64(Bytes &B, uint64_t V) {
  putU32(B, uint32_t(V));
  putU32(B, uint32_t(V >> 32));
}

/// Replaces the last four bytes with the CRC of the rest.
void fixCrc(Bytes &B) {
  uint32_t Crc = llvm::crc32(llvm::ArrayRef<uint8_t>(B).drop_back(4));
  B.resize(B.size() - 4);
  putU32(B, Crc);
}

struct Section {
  std::string Tag;
  Bytes Payload;
};

/// The sections of a well-formed file, read straight from the documented layout.
std::vector<Section> splitSections(const Bytes &B) {
  std::vector<Section> S;
  size_t At = 16;
  for (uint32_t I = 0, N = getU32(B, 12); I < N; ++I) {
    Section X;
    X.Tag.assign(B.begin() + At, B.begin() + At + 4);
    EXPECT_EQ(getU32(B, At + 4), 0u);
    uint64_t Size = getU64(B, At + 8);
    X.Payload.assign(B.begin() + At + 16, B.begin() + At + 16 + Size);
    At += 16 + (Size + 7) / 8 * 8;
    S.push_back(X);
  }
  EXPECT_EQ(At + 4, B.size());
  return S;
}

/// A file from sections, per the documented layout. Count overrides the
/// section count in the header.
Bytes assemble(const std::vector<Section> &S, uint32_t Version = ProgVersion, int Count = -1) {
  Bytes B(ProgMagic, ProgMagic + 8);
  putU32(B, Version);
  putU32(B, Count < 0 ? uint32_t(S.size()) : uint32_t(Count));
  for (const Section &X : S) {
    B.insert(B.end(), X.Tag.begin(), X.Tag.end());
    putU32(B, 0);
    putU64(B, X.Payload.size());
    B.insert(B.end(), X.Payload.begin(), X.Payload.end());
    B.resize((B.size() + 7) / 8 * 8, 0);
  }
  putU32(B, 0);
  fixCrc(B);
  return B;
}

Section &find(std::vector<Section> &S, const std::string &Tag) {
  for (Section &X : S)
    if (X.Tag == Tag)
      return X;
  ADD_FAILURE() << "no section " << Tag;
  return S.front();
}

TEST(ProgramFormat, RoundTrips) {
  Program P = smallProgram();
  auto Back = deserialize(serialize(P), "p.bin");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(*Back, P);
}

// A program with no instruction could only fault at pc 0; it is refused on
// reading (and writing) with the section named (issue 19).
TEST(ProgramFormat, EmptyProgramIsRefused) {
  auto Back = deserialize(serialize(Program()), "p.bin");
  ASSERT_FALSE(bool(Back));
  EXPECT_NE(llvm::toString(Back.takeError()).find("p.bin: section 'CODE' holds no instruction"),
            std::string::npos);
}

// Each TENS field outside its range is named with the range (issue 19: 0
// channels and 99 fraction bits used to be accepted).
TEST(ProgramFormat, TensorFieldsAreRangeChecked) {
  struct Case {
    void (*Patch)(Program &);
    const char *Expect;
  } Cases[] = {
      {[](Program &P) { P.Input.C = 0; }, "input tensor 'in': C is 0, must be 1..65536"},
      {[](Program &P) { P.Output.W = 65537; }, "output tensor 'out': W is 65537, must be 1..65536"},
      {[](Program &P) { P.Input.FracBits = 99; }, "FracBits is 99, must be 0..15"},
      {[](Program &P) { P.Output.Addr += 1; }, "must be a multiple of 2"},
  };
  for (const Case &C : Cases) {
    Program P = smallProgram();
    C.Patch(P);
    auto Back = deserialize(serialize(P), "p.bin");
    ASSERT_FALSE(bool(Back)) << C.Expect;
    std::string Msg = llvm::toString(Back.takeError());
    EXPECT_NE(Msg.find(C.Expect), std::string::npos) << Msg;
  }
}

TEST(ProgramFormat, SizeOnlyKeepsTheImageSizeButNotItsBytes) {
  Program P = smallProgram();
  ASSERT_FALSE(P.Data.empty());
  Bytes B = serialize(P);
  auto Back = deserialize(B, "p.bin", ProgramData::SizeOnly);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_TRUE(Back->Data.empty());
  EXPECT_EQ(Back->dataBytes(), P.Data.size());
  EXPECT_EQ(Back->Code, P.Code);
  // The checksum still covers the image it did not keep.
  B[B.size() - 20] ^= 1;
  EXPECT_FALSE(bool(deserialize(B, "p.bin", ProgramData::SizeOnly)));
  // And a program without its image cannot be written as if it were whole.
  llvm::Error E = writeProgram(*Back, "/nonexistent-dir/p.bin");
  EXPECT_NE(llvm::toString(std::move(E)).find("without its constant data"), std::string::npos);
}

TEST(ProgramFormat, HeaderBytesArePinned) {
  Bytes B = serialize(smallProgram());
  Bytes Header = {'S', 'N', 'O', 'W', 'P', 'R', 'O', 'G', 1, 0, 0, 0, 6, 0, 0, 0};
  EXPECT_EQ(Bytes(B.begin(), B.begin() + 16), Header);
  EXPECT_EQ(B.size() % 8, 4u) << "8-aligned sections, then the 4-byte CRC";
  EXPECT_EQ(getU32(B, B.size() - 4), llvm::crc32(llvm::ArrayRef<uint8_t>(B).drop_back(4)));
}

TEST(ProgramFormat, SectionsFollowTheDocumentedLayout) {
  Program P = smallProgram();
  Bytes B = serialize(P);
  std::vector<Section> S = splitSections(B);
  ASSERT_EQ(S.size(), 6u);
  const char *Tags[] = {"HWCF", "MODL", "CODE", "DATA", "TENS", "LAYR"};
  for (size_t I = 0; I < 6; ++I)
    EXPECT_EQ(S[I].Tag, Tags[I]);
  EXPECT_EQ(std::string(S[0].Payload.begin(), S[0].Payload.end()), P.Hw.toYaml());
  EXPECT_EQ(std::string(S[1].Payload.begin(), S[1].Payload.end()), "tiny");
  // Lo word, then Hi word, each little-endian.
  Bytes FirstInst = {0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
                     0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe};
  ASSERT_EQ(S[2].Payload.size(), 48u);
  EXPECT_EQ(Bytes(S[2].Payload.begin(), S[2].Payload.begin() + 16), FirstInst);
  ASSERT_EQ(S[3].Payload.size(), 8u + 37);
  EXPECT_EQ(getU64(S[3].Payload, 0), 0x1000u);
  // TENS: "in" (u32 2 + 2 bytes), addr, C, H, W, FracBits.
  Bytes Tens;
  putU32(Tens, 2);
  Tens.push_back('i');
  Tens.push_back('n');
  putU64(Tens, 0x100000);
  for (uint32_t V : {3, 8, 8, 8})
    putU32(Tens, V);
  EXPECT_EQ(Bytes(S[4].Payload.begin(), S[4].Payload.begin() + Tens.size()), Tens);
  EXPECT_EQ(getU32(S[5].Payload, 0), 2u);
  // Rebuilding from the sections by the documented rules gives the same bytes.
  EXPECT_EQ(assemble(S), B);
}

TEST(ProgramFormat, SectionsMayComeInAnyOrder) {
  std::vector<Section> S = splitSections(serialize(smallProgram()));
  std::reverse(S.begin(), S.end());
  auto P = deserialize(assemble(S), "p.bin");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(*P, smallProgram());
}

TEST(ProgramRobustness, EveryTruncationIsAnError) {
  Bytes B = serialize(smallProgram());
  for (size_t N = 0; N < B.size(); ++N)
    EXPECT_NE(errorOf(Bytes(B.begin(), B.begin() + N)), "") << "length " << N;
}

TEST(ProgramRobustness, EveryTruncationWithAValidCrcIsAnError) {
  // Reaches the bounds checks behind the CRC for every cut point.
  Bytes B = serialize(smallProgram());
  for (size_t N = 16; N + 4 < B.size(); ++N) {
    Bytes T(B.begin(), B.begin() + N);
    putU32(T, 0);
    fixCrc(T);
    EXPECT_NE(errorOf(T), "") << "length " << N;
  }
}

TEST(ProgramRobustness, EveryByteFlipIsAnError) {
  Bytes B = serialize(smallProgram());
  for (size_t I = 0; I < B.size(); ++I) {
    Bytes F = B;
    F[I] ^= 0x5a;
    EXPECT_NE(errorOf(F), "") << "byte " << I;
  }
}

TEST(ProgramRobustness, ByteFlipsBehindAValidCrcNeverCrash) {
  // Flips in code, data or names are legal programs; the rest must be errors.
  // This mostly runs the structural checks for sanitizers to watch.
  Bytes B = serialize(smallProgram());
  unsigned Errors = 0;
  for (size_t I = 16; I + 4 < B.size(); ++I)
    for (uint8_t Mask : {0x01, 0x80, 0xff}) {
      Bytes F = B;
      F[I] ^= Mask;
      fixCrc(F);
      Errors += !errorOf(F).empty();
    }
  EXPECT_GT(Errors, 0u);
}

TEST(ProgramChecks, TooShortToBeAProgram) {
  EXPECT_EQ(errorOf({'S', 'N', 'O'}), "p.bin: not a prog.bin: file is 3 bytes");
  EXPECT_EQ(errorOf({}), "p.bin: not a prog.bin: file is 0 bytes");
}

TEST(ProgramChecks, WrongMagic) {
  Bytes B = serialize(smallProgram());
  B[0] = 'X';
  EXPECT_EQ(errorOf(B), "p.bin: not a prog.bin (its first 8 bytes are not the magic 'SNOWPROG')");
}

TEST(ProgramChecks, WrongVersionIsReportedBeforeTheChecksum) {
  Bytes B = serialize(smallProgram());
  B[8] = 7;
  EXPECT_EQ(errorOf(B), "p.bin: format version 7, this tool reads version 1");
  fixCrc(B);
  EXPECT_EQ(errorOf(B), "p.bin: format version 7, this tool reads version 1");
}

TEST(ProgramChecks, ChecksumMismatch) {
  Bytes B = serialize(smallProgram());
  B[B.size() - 20] ^= 1;
  EXPECT_EQ(errorOf(B), "p.bin: checksum mismatch: the file is damaged or truncated");
}

TEST(ProgramChecks, HugeCountsAreRejectedWithoutAllocating) {
  std::vector<Section> S = splitSections(serialize(smallProgram()));
  Bytes &Layr = find(S, "LAYR").Payload;
  Layr[0] = Layr[1] = Layr[2] = Layr[3] = 0xff;
  EXPECT_TRUE(contains(errorOf(assemble(S)), "p.bin: section 'LAYR': layer count '4294967295'"));

  S = splitSections(serialize(smallProgram()));
  Bytes &Tens = find(S, "TENS").Payload;
  Tens[0] = Tens[1] = Tens[2] = Tens[3] = 0xff; // Input name length.
  EXPECT_TRUE(contains(errorOf(assemble(S)), "p.bin: section 'TENS': input tensor needs"));

  Bytes B = assemble(splitSections(serialize(smallProgram())), ProgVersion, 1000000);
  EXPECT_TRUE(contains(errorOf(B), "p.bin: section count '1000000' cannot fit"));

  // A section size far past the end of the file.
  B = serialize(smallProgram());
  for (int I = 0; I < 8; ++I)
    B[16 + 8 + I] = 0xff;
  fixCrc(B);
  EXPECT_TRUE(contains(errorOf(B), "section payload needs 18446744073709551615 bytes"));
}

TEST(ProgramChecks, UnknownDuplicateAndMissingSections) {
  std::vector<Section> S = splitSections(serialize(smallProgram()));
  S.push_back({"XTRA", {1, 2, 3}});
  EXPECT_EQ(errorOf(assemble(S)), "p.bin: unknown section 'XTRA'");
  S.back() = S.front();
  EXPECT_EQ(errorOf(assemble(S)), "p.bin: duplicate section 'HWCF'");
  S.pop_back();
  S.erase(S.begin() + 2);
  EXPECT_EQ(errorOf(assemble(S)), "p.bin: missing section 'CODE'");
}

TEST(ProgramChecks, SectionCountMustCoverTheFile) {
  Bytes B = assemble(splitSections(serialize(smallProgram())), ProgVersion, 5);
  EXPECT_TRUE(contains(errorOf(B), " unexpected bytes at offset "));
}

TEST(ProgramChecks, CodeSizeMultipleOf16) {
  std::vector<Section> S = splitSections(serialize(smallProgram()));
  find(S, "CODE").Payload.resize(20);
  EXPECT_EQ(errorOf(assemble(S)), "p.bin: section 'CODE': size '20' is not a multiple of 16");
}

TEST(ProgramChecks, TrailingBytesInASection) {
  std::vector<Section> S = splitSections(serialize(smallProgram()));
  find(S, "TENS").Payload.push_back(0);
  EXPECT_TRUE(contains(errorOf(assemble(S)), "p.bin: section 'TENS': 1 unexpected bytes"));
}

TEST(ProgramChecks, BatchIsOptionalAndPositive) {
  // One frame writes no batch field (files from before batches keep their
  // bytes); another count is a u32 after the tensors, and 0 is refused.
  Program P = smallProgram();
  std::vector<Section> SOne = splitSections(serialize(P));
  P.Batch = 3;
  std::vector<Section> S = splitSections(serialize(P));
  EXPECT_EQ(find(S, "TENS").Payload.size(), find(SOne, "TENS").Payload.size() + 4);
  auto Back = deserialize(serialize(P), "p.bin");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Batch, 3u);
  std::vector<uint8_t> &T = find(S, "TENS").Payload;
  std::fill(T.end() - 4, T.end(), 0);
  EXPECT_TRUE(contains(errorOf(assemble(S)), "p.bin: section 'TENS': batch '0'"));
  P.Batch = 1;
  P.Output.Addr = P.Hw.dramBytes() - 2 * P.Output.bytes();
  EXPECT_EQ(errorOf(serialize(P)), "");
  P.Batch = 3; // Three output frames no longer fit.
  EXPECT_TRUE(contains(errorOf(serialize(P)), "p.bin: section 'TENS': tensor 'out'"));
}

TEST(ProgramChecks, DataAndTensorsMustFitInDram) {
  Program P = smallProgram();
  uint64_t Dram = P.Hw.dramBytes();
  P.DataAddr = Dram - P.Data.size();
  EXPECT_EQ(errorOf(serialize(P)), "") << "ends exactly at the top of DRAM";
  P.DataAddr += 1;
  EXPECT_TRUE(contains(errorOf(serialize(P)), "p.bin: section 'DATA': 37 bytes at address"));

  P = smallProgram();
  P.Output.Addr = Dram - P.Output.bytes();
  EXPECT_EQ(errorOf(serialize(P)), "");
  P.Output.Addr += 2;
  EXPECT_TRUE(contains(errorOf(serialize(P)), "p.bin: section 'TENS': tensor 'out'"));

  P = smallProgram();
  P.Input.C = P.Input.H = P.Input.W = 0xffffffff; // Size overflows 64 bits.
  EXPECT_TRUE(contains(errorOf(serialize(P)), "tensor 'in'"));
}

TEST(ProgramChecks, EmbeddedConfigIsParsedAndValidated) {
  std::vector<Section> S = splitSections(serialize(smallProgram()));
  std::string Text(find(S, "HWCF").Payload.begin(), find(S, "HWCF").Payload.end());
  std::string Bad = Text;
  Bad.replace(Bad.find("lanes_per_vmac: 16"), 18, "lanes_per_vmac: 12");
  find(S, "HWCF").Payload.assign(Bad.begin(), Bad.end());
  EXPECT_EQ(errorOf(assemble(S)),
            "p.bin[HWCF]: key 'lanes_per_vmac': must be a power of two in 1..64, got '12'");
  Bad = Text + "lanes: 4\n";
  find(S, "HWCF").Payload.assign(Bad.begin(), Bad.end());
  // The line after the config's own (one a key).
  const auto Line = std::count(Text.begin(), Text.end(), '\n') + 1;
  EXPECT_TRUE(contains(errorOf(assemble(S)),
                       "p.bin[HWCF]:" + std::to_string(Line) + ": unknown key 'lanes'"));
}

/// A scratch directory removed after each test.
class ProgramFileTest : public snow::test::ScratchDirTest {
protected:
  ProgramFileTest() : ScratchDirTest("snow-prog") {}
};

TEST_F(ProgramFileTest, WriteThenReadRoundTrips) {
  std::string Path = Dir + "/prog.bin";
  ASSERT_FALSE(bool(writeProgram(smallProgram(), Path)));
  auto P = readProgram(Path);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(*P, smallProgram());
  EXPECT_EQ(entries(Dir), std::vector<std::string>{"prog.bin"});
}

TEST_F(ProgramFileTest, WriteReplacesAnExistingFileAndLeavesNoTemporary) {
  std::string Path = Dir + "/prog.bin";
  std::ofstream(Path) << "an older, longer file that must be replaced completely";
  Program Second = smallProgram();
  Second.ModelName = "second";
  Second.Layers.clear();
  ASSERT_FALSE(bool(writeProgram(Second, Path)));
  auto P = readProgram(Path);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(*P, Second);
  EXPECT_EQ(entries(Dir), std::vector<std::string>{"prog.bin"});
}

TEST_F(ProgramFileTest, WriteIntoAMissingDirectoryFailsAndCreatesNothing) {
  std::string Path = Dir + "/no/such/dir/prog.bin";
  llvm::Error E = writeProgram(smallProgram(), Path);
  ASSERT_TRUE(bool(E));
  EXPECT_TRUE(contains(llvm::toString(std::move(E)), "cannot write '" + Path + "'"));
  EXPECT_FALSE(llvm::sys::fs::exists(Dir + "/no"));
  EXPECT_TRUE(entries(Dir).empty());
}

TEST_F(ProgramFileTest, WriteOverADirectoryFailsAndRemovesTheTemporary) {
  std::string Path = Dir + "/out";
  ASSERT_FALSE(llvm::sys::fs::create_directory(Path));
  llvm::Error E = writeProgram(smallProgram(), Path);
  ASSERT_TRUE(bool(E));
  EXPECT_TRUE(contains(llvm::toString(std::move(E)), "cannot write '" + Path + "'"));
  EXPECT_EQ(entries(Dir), std::vector<std::string>{"out"});
}

TEST_F(ProgramFileTest, WriteRefusesAProgramTheReaderWouldReject) {
  std::string Path = Dir + "/prog.bin";
  Program P = smallProgram();
  P.DataAddr = P.Hw.dramBytes();
  llvm::Error E = writeProgram(P, Path);
  ASSERT_TRUE(bool(E));
  EXPECT_TRUE(contains(llvm::toString(std::move(E)), Path + ": section 'DATA'"));
  EXPECT_TRUE(entries(Dir).empty());
}

TEST_F(ProgramFileTest, ReadErrorsNameThePath) {
  std::string Missing = Dir + "/missing.bin";
  auto P = readProgram(Missing);
  ASSERT_FALSE(bool(P));
  EXPECT_TRUE(contains(llvm::toString(P.takeError()), "cannot read '" + Missing + "'"));

  auto D = readProgram(Dir);
  ASSERT_FALSE(bool(D));
  EXPECT_EQ(llvm::toString(D.takeError()), "cannot read '" + Dir + "': it is a directory");

  std::string Junk = Dir + "/junk.bin";
  std::ofstream(Junk) << "#!/bin/sh\necho not a program\n";
  auto J = readProgram(Junk);
  ASSERT_FALSE(bool(J));
  EXPECT_EQ(llvm::toString(J.takeError()),
            Junk + ": not a prog.bin (its first 8 bytes are not the magic 'SNOWPROG')");
}

} // namespace
