//===- RngTest.cpp - The vectorized draws are the scalar draws ------------===//
//
// Seeded weights are drawn with Rng::uniformFloats (eight at a time on AVX-512DQ, four on AVX2);
// golden files and every seeded model depend on their being bit for bit the
// scalar loop's values, whatever the count, the start and the range.
//
//===----------------------------------------------------------------------===//

#include "snow/support/Rng.h"
#include <cstring>
#include <gtest/gtest.h>

using namespace snow;

namespace {

void expectScalarBits(uint64_t Seed, uint64_t Skip, uint64_t N, double Lo, double Hi) {
  Rng Vec(Seed), Scalar(Seed);
  Vec.discard(Skip);
  Scalar.discard(Skip);
  std::vector<float> Out(N + 1, 42.0f);
  Vec.uniformFloats(Out.data(), N, Lo, Hi);
  for (uint64_t I = 0; I < N; ++I) {
    const float Want = float(Scalar.uniform(Lo, Hi));
    ASSERT_EQ(std::memcmp(&Out[I], &Want, sizeof(float)), 0)
        << "seed " << Seed << " skip " << Skip << " draw " << I << ": " << Out[I] << " vs " << Want;
  }
  EXPECT_EQ(Out[N], 42.0f) << "wrote past the end";
  // Both generators moved past the same draws.
  EXPECT_EQ(Vec.next(), Scalar.next());
}

} // namespace

TEST(Rng, UniformFloatsAreTheScalarLoop) {
  // Counts that take the 8-wide (AVX-512), 4-wide (AVX2) and scalar paths
  // in every combination the CPU allows.
  for (uint64_t N : {0, 1, 3, 4, 5, 7, 8, 9, 12, 13, 15, 16, 17, 1000, 4099, 4100})
    expectScalarBits(7, 0, N, -0.5, 0.5);
  // Seeds as the weights use them (name hashes), starts deep in a sequence,
  // ranges as narrow as a 25088-input fc's and asymmetric ones.
  for (uint64_t Seed : {uint64_t(1) ^ hashName("fc6"), hashName("conv1"), ~uint64_t(0)})
    for (uint64_t Skip : {uint64_t(0), uint64_t(1) << 33, uint64_t(102760448)})
      for (auto [Lo, Hi] : {std::pair{-0.0154, 0.0154}, std::pair{-1.0, 1.0}, std::pair{-0.1, 0.3},
                            std::pair{1e-30, 3e38}})
        expectScalarBits(Seed, Skip, 20000, Lo, Hi);
}
