//===- Crc32Test.cpp - snow::crc32 equals llvm::crc32 ---------------------===//

#include "snow/support/Crc32.h"
#include "llvm/Support/CRC.h"
#include <gtest/gtest.h>
#include <random>
#include <vector>

// Every length from empty to a few 64-byte blocks (the SIMD path, its 16-byte
// tail blocks and the byte tail), on random bytes and on all-0xff bytes.
TEST(Crc32, EqualsZlibForEveryShortLength) {
  std::mt19937 R(7);
  std::vector<uint8_t> B(600);
  for (uint8_t &X : B)
    X = uint8_t(R());
  std::vector<uint8_t> Ones(600, 0xff);
  for (size_t N = 0; N <= B.size(); ++N) {
    llvm::ArrayRef<uint8_t> A(B.data(), N), O(Ones.data(), N);
    ASSERT_EQ(snow::crc32(A), llvm::crc32(A)) << "length " << N;
    ASSERT_EQ(snow::crc32(O), llvm::crc32(O)) << "length " << N;
  }
}

TEST(Crc32, EqualsZlibOnLargeUnalignedBuffers) {
  std::mt19937_64 R(11);
  std::vector<uint8_t> B(3 << 20);
  for (uint8_t &X : B)
    X = uint8_t(R());
  for (size_t Off : {0, 1, 7, 13})
    for (size_t N : {size_t(1) << 20, (size_t(3) << 20) - 64, size_t(100003)})
      EXPECT_EQ(snow::crc32(llvm::ArrayRef<uint8_t>(B).slice(Off, N)),
                llvm::crc32(llvm::ArrayRef<uint8_t>(B).slice(Off, N)))
          << "offset " << Off << ", length " << N;
}

// Continuing a CRC (prog.bin's header, then its weight image, then its
// footer): every split point of a buffer gives the CRC of the whole.
TEST(Crc32, ContinuesLikeZlib) {
  std::mt19937 R(5);
  std::vector<uint8_t> B(1000);
  for (uint8_t &X : B)
    X = uint8_t(R());
  const uint32_t Whole = llvm::crc32(B);
  llvm::ArrayRef<uint8_t> A(B);
  for (size_t Cut = 0; Cut <= B.size(); Cut += 37) {
    uint32_t Head = snow::crc32(A.take_front(Cut));
    ASSERT_EQ(snow::crc32(Head, A.drop_front(Cut)), Whole) << "cut at " << Cut;
    ASSERT_EQ(snow::crc32(Head, A.drop_front(Cut)), llvm::crc32(Head, A.drop_front(Cut)));
  }
}
