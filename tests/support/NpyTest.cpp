//===- NpyTest.cpp - .npy reader and writer -------------------------------===//
//
// Pins the subset of the .npy format we exchange with NumPy: round trips of
// both dtypes at every rank we use, the exact header NumPy itself writes, the
// header variants NumPy may hand us (versions 2.0/3.0, key order, quoting),
// one test per reader error, and that a failed write leaves nothing behind.
//
//===----------------------------------------------------------------------===//

#include "snow/support/Npy.h"
#include "ScratchDir.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace snow;
using snow::test::slurp;

namespace {

/// A fresh directory per test, removed afterwards.
class NpyTest : public test::ScratchDirTest {
protected:
  NpyTest() : ScratchDirTest("snow-npy-test") {}

  /// A hand-made .npy: magic, version, header length, header, data.
  static std::string npy(const std::string &Header, const std::string &Data, int Major = 1) {
    std::string S("\x93NUMPY", 6);
    S.push_back(char(Major));
    S.push_back(0);
    size_t N = Header.size();
    unsigned LenBytes = Major == 1 ? 2 : 4;
    for (unsigned I = 0; I < LenBytes; ++I)
      S.push_back(char((N >> (8 * I)) & 0xff));
    return S + Header + Data;
  }

  /// Writes Bytes as Name and expects the reader to refuse the file with a
  /// message containing Part.
  ::testing::AssertionResult rejects(const std::string &Bytes, const std::string &Part,
                                     const std::string &Name = "x.npy") const {
    write(Name, Bytes);
    std::string E = readError(Name);
    if (E.find(Part) == std::string::npos)
      return ::testing::AssertionFailure() << "expected '" << Part << "' in: '" << E << "'";
    return ::testing::AssertionSuccess();
  }

  /// The message of a failed read, or "" if it succeeded.
  std::string readError(const std::string &Name) const {
    auto A = readNpy(path(Name));
    if (A)
      return "";
    return llvm::toString(A.takeError());
  }
};

const std::string F32Header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
const std::string TwoFloats("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8); // 1.0f, -2.0f

} // namespace

TEST_F(NpyTest, RoundTripsFloat32AtRanks1To4) {
  std::vector<std::vector<uint64_t>> Shapes = {{5}, {2, 3}, {3, 1, 4}, {2, 3, 2, 2}};
  for (const auto &Shape : Shapes) {
    NpyArray A;
    A.Type = NpyArray::DType::F32;
    A.Shape = Shape;
    for (uint64_t I = 0; I < A.elems(); ++I)
      A.F32.push_back(float(I) * 0.37f - 1.5f);
    A.F32[0] = -0.0f;
    std::string P = path("f" + std::to_string(Shape.size()) + ".npy");
    ASSERT_FALSE(llvm::errorToBool(writeNpy(P, A)));
    auto B = readNpy(P);
    ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
    EXPECT_EQ(B->Type, NpyArray::DType::F32);
    EXPECT_EQ(B->Shape, Shape);
    EXPECT_EQ(B->F32, A.F32);
    EXPECT_TRUE(std::signbit(B->F32[0])) << "bits must survive, not just values";
    EXPECT_TRUE(B->I16.empty());
  }
}

TEST_F(NpyTest, RoundTripsInt16AtRanks1To4) {
  std::vector<std::vector<uint64_t>> Shapes = {{4}, {2, 2}, {1, 2, 3}, {2, 1, 2, 3}};
  for (const auto &Shape : Shapes) {
    NpyArray A;
    A.Type = NpyArray::DType::I16;
    A.Shape = Shape;
    for (uint64_t I = 0; I < A.elems(); ++I)
      A.I16.push_back(int16_t(I * 4099 - 20000));
    A.I16[0] = -32768;
    A.I16.back() = 32767;
    std::string P = path("i" + std::to_string(Shape.size()) + ".npy");
    ASSERT_FALSE(llvm::errorToBool(writeNpy(P, A)));
    auto B = readNpy(P);
    ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
    EXPECT_EQ(B->Type, NpyArray::DType::I16);
    EXPECT_EQ(B->Shape, Shape);
    EXPECT_EQ(B->I16, A.I16);
  }
}

TEST_F(NpyTest, ElemsIsTheShapeProduct) {
  NpyArray A;
  EXPECT_EQ(A.elems(), 1u) << "rank 0 holds one value, as in NumPy";
  A.Shape = {2, 3, 4};
  EXPECT_EQ(A.elems(), 24u);
  A.Shape = {2, 0, 4};
  EXPECT_EQ(A.elems(), 0u);
}

TEST_F(NpyTest, WritesTheHeaderNumPyWrites) {
  NpyArray A;
  A.Shape = {3};
  A.F32 = {1.0f, 2.0f, 3.0f};
  ASSERT_FALSE(llvm::errorToBool(writeNpy(path("a.npy"), A)));
  std::string Bytes = slurp(path("a.npy"));
  std::string Header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  // 10 bytes of prefix + 57 of dict + newline round up to 128.
  ASSERT_EQ(Header.size(), 57u);
  Header.append(128 - 10 - Header.size() - 1, ' ');
  Header.push_back('\n');
  std::string Expected = npy(Header, std::string("\x00\x00\x80\x3f\x00\x00\x00\x40"
                                                 "\x00\x00\x40\x40",
                                                 12));
  EXPECT_EQ(Bytes, Expected);
}

TEST_F(NpyTest, DataStartsAtAMultipleOf64) {
  NpyArray A;
  A.Type = NpyArray::DType::I16;
  A.Shape = {1, 2, 3, 4};
  A.I16.assign(24, 5);
  ASSERT_FALSE(llvm::errorToBool(writeNpy(path("a.npy"), A)));
  std::string Bytes = slurp(path("a.npy"));
  size_t HeaderLen = uint8_t(Bytes[8]) | (uint8_t(Bytes[9]) << 8);
  EXPECT_EQ((10 + HeaderLen) % 64, 0u);
  EXPECT_EQ(Bytes[10 + HeaderLen - 1], '\n');
  EXPECT_EQ(Bytes.size(), 10 + HeaderLen + 48);
}

TEST_F(NpyTest, ReadsVersions2And3AndHeaderVariants) {
  write("v2.npy", npy(F32Header, TwoFloats, 2));
  write("v3.npy", npy(F32Header, TwoFloats, 3));
  // Key order, double quotes and a missing trailing comma are all legal.
  write("order.npy",
        npy("{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<f4\"}\n", TwoFloats));
  for (const char *Name : {"v2.npy", "v3.npy", "order.npy"}) {
    auto A = readNpy(path(Name));
    ASSERT_TRUE(bool(A)) << Name << ": " << llvm::toString(A.takeError());
    EXPECT_EQ(A->Shape, (std::vector<uint64_t>{2}));
    EXPECT_EQ(A->F32, (std::vector<float>{1.0f, -2.0f}));
  }
}

TEST_F(NpyTest, ReadsRank0) {
  write("s.npy", npy("{'descr': '<i2', 'fortran_order': False, 'shape': (), }\n",
                     std::string("\xfe\xff", 2)));
  auto A = readNpy(path("s.npy"));
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  EXPECT_TRUE(A->Shape.empty());
  EXPECT_EQ(A->I16, (std::vector<int16_t>{-2}));
}

TEST_F(NpyTest, RejectsMissingFile) {
  std::string E = readError("nope.npy");
  EXPECT_NE(E.find("nope.npy: cannot read"), std::string::npos) << E;
}

TEST_F(NpyTest, RejectsBadMagic) {
  EXPECT_TRUE(rejects("\x93NUMPZ\x01\x00" + std::string(60, ' '),
                      "x.npy: not a .npy file (its first 6 bytes are not the magic \\x93NUMPY)"));
}

TEST_F(NpyTest, RejectsUnknownVersion) {
  EXPECT_TRUE(rejects(npy(F32Header, TwoFloats, 4), "x.npy: unsupported .npy version 4.0"));
}

TEST_F(NpyTest, RejectsUnsupportedDtype) {
  EXPECT_TRUE(rejects(
      npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')),
      "x.npy: dtype '<f8' is not supported (use float32 or int16)"));
}

TEST_F(NpyTest, RejectsBigEndian) {
  EXPECT_TRUE(rejects(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", TwoFloats),
                      "x.npy: dtype '>f4' is big-endian"));
}

TEST_F(NpyTest, RejectsFortranOrder) {
  EXPECT_TRUE(rejects(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", TwoFloats),
                      "x.npy: fortran_order is True"));
}

TEST_F(NpyTest, RejectsTruncatedData) {
  EXPECT_TRUE(
      rejects(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", TwoFloats),
              "x.npy: data is truncated: shape (3,) of <f4 needs 12 bytes, the file has 8"));
}

TEST_F(NpyTest, RejectsDataLongerThanTheShape) {
  EXPECT_TRUE(rejects(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", TwoFloats),
                      "x.npy: header/shape mismatch: shape (1,) of <f4 needs 4 bytes, but 8"));
}

TEST_F(NpyTest, RejectsTruncatedHeader) {
  std::string Bytes = npy(F32Header, "");
  EXPECT_TRUE(rejects(Bytes.substr(0, 20), "x.npy: truncated header"));
}

TEST_F(NpyTest, RejectsMalformedAndIncompleteHeaders) {
  EXPECT_TRUE(rejects(npy("{'descr': '<f4', 'fortran_order': False, 'shape': [2], }", TwoFloats),
                      "'shape' is not a tuple", "a.npy"));
  EXPECT_TRUE(
      rejects(npy("{'descr': '<f4', 'shape': (2,), }", TwoFloats), "header lacks one of", "b.npy"));
  EXPECT_TRUE(
      rejects(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", TwoFloats),
              "unexpected header key 'x'", "c.npy"));
  EXPECT_TRUE(
      rejects(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", TwoFloats),
              "structured arrays", "d.npy"));
  EXPECT_TRUE(rejects(npy("'descr': '<f4'", TwoFloats), "e.npy: header is not a dict", "e.npy"));
}

TEST_F(NpyTest, WriteIntoMissingDirectoryFailsAndCreatesNothing) {
  NpyArray A;
  A.Shape = {2};
  A.F32 = {1, 2};
  std::string P = path("no/such/dir/a.npy");
  llvm::Error E = writeNpy(P, A);
  ASSERT_TRUE(bool(E));
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("cannot write '" + P + "'"), std::string::npos) << Msg;
  EXPECT_FALSE(llvm::sys::fs::exists(P));
  EXPECT_TRUE(entries().empty());
}

TEST_F(NpyTest, WriteUnderARegularFileFails) {
  // Running as root defeats permission bits, but not a file used as a directory.
  write("file", "x");
  NpyArray A;
  A.Shape = {2};
  A.F32 = {1, 2};
  EXPECT_TRUE(llvm::errorToBool(writeNpy(path("file/a.npy"), A)));
  EXPECT_EQ(entries(), std::vector<std::string>{"file"});
}

TEST_F(NpyTest, FailedWriteKeepsTheOldFileAndLeavesNoTemporary) {
  NpyArray A;
  A.Shape = {2};
  A.F32 = {1, 2};
  ASSERT_FALSE(llvm::errorToBool(writeNpy(path("a.npy"), A)));
  std::string Before = slurp(path("a.npy"));
  NpyArray Bad;
  Bad.Shape = {3};
  Bad.F32 = {1, 2};
  llvm::Error E = writeNpy(path("a.npy"), Bad);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("shape (3,) needs 3 values, the array holds 2"),
            std::string::npos);
  EXPECT_EQ(slurp(path("a.npy")), Before);
  EXPECT_EQ(entries(), std::vector<std::string>{"a.npy"});
}

TEST_F(NpyTest, OverwritesAnExistingFile) {
  NpyArray A;
  A.Shape = {1};
  A.F32 = {1};
  ASSERT_FALSE(llvm::errorToBool(writeNpy(path("a.npy"), A)));
  A.F32 = {2};
  ASSERT_FALSE(llvm::errorToBool(writeNpy(path("a.npy"), A)));
  auto B = readNpy(path("a.npy"));
  ASSERT_TRUE(bool(B));
  EXPECT_EQ(B->F32, std::vector<float>{2});
  EXPECT_EQ(entries(), std::vector<std::string>{"a.npy"});
}
