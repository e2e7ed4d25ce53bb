//===- BitExactTest.cpp - snowc + snowsim against snowref, bit for bit ----===//
//
// Randomized single layers and chains, generated as YAML text (so the front
// end is exercised too), compiled for several hardware shapes and compared
// with the reference executor bit for bit. Shapes cover kernels 1-11, strides
// 1-4, padding 0-5 per side, 1-300 channels and maps up to 64x64, non-square;
// a MAC budget per case keeps the CI tier fast. Every case is its own test,
// named by index, and prints its YAML on failure so it can be replayed.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::test;

namespace {

const char *const HwPresets[] = {"zc706", "mini64", "narrow8"};
constexpr uint64_t MacBudget = 12'000'000;

unsigned pick(Rng &R, unsigned Lo, unsigned Hi) {
  return Lo + unsigned(R.next() % (Hi - Lo + 1));
}
/// Log-uniform in [Lo, Hi]: small channel counts are as likely as large ones.
unsigned pickLog(Rng &R, unsigned Lo, unsigned Hi) {
  double L = std::log(double(Lo)), H = std::log(double(Hi) + 1);
  return std::min(Hi, unsigned(std::exp(L + (H - L) * R.uniform())));
}

unsigned outSize(unsigned In, unsigned K, unsigned S, unsigned P0, unsigned P1) {
  return (In + P0 + P1 - K) / S + 1;
}

std::string convCase(unsigned Seed) {
  Rng R(Seed * 7919 + 17);
  for (;;) {
    unsigned Cin = pickLog(R, 1, 300), Cout = pickLog(R, 1, 300);
    unsigned KH = pick(R, 1, 11), KW = R.uniform() < 0.5 ? KH : pick(R, 1, 11);
    unsigned SH = pick(R, 1, 4), SW = R.uniform() < 0.5 ? SH : pick(R, 1, 4);
    unsigned P[4];
    for (unsigned &X : P)
      X = R.uniform() < 0.3 ? 0 : pick(R, 0, 5);
    unsigned H = pick(R, 1, 64), W = pick(R, 1, 64);
    // Shrink the map until the case fits the budget (or cannot shrink).
    for (;;) {
      if (H + P[0] + P[1] < KH || W + P[2] + P[3] < KW)
        break;
      uint64_t Macs = uint64_t(outSize(H, KH, SH, P[0], P[1])) * outSize(W, KW, SW, P[2], P[3]) *
                      Cout * Cin * KH * KW;
      if (Macs <= MacBudget) {
        bool Relu = R.uniform() < 0.5;
        return fmt::format("name: conv{}\ninput: {{name: data, shape: [{}, {}, {}]}}\n"
                           "weights: {{seed: {}}}\nlayers:\n"
                           "  - {{name: c, type: conv, out_channels: {}, kernel: [{}, {}], "
                           "stride: [{}, {}], pad: [{}, {}, {}, {}], relu: {}}}\n",
                           Seed, Cin, H, W, Seed, Cout, KH, KW, SH, SW, P[0], P[1], P[2], P[3],
                           Relu ? "true" : "false");
      }
      if (H == 1 && W == 1)
        break;
      H = std::max(1u, H * 3 / 4);
      W = std::max(1u, W * 3 / 4);
    }
  }
}

std::string poolCase(unsigned Seed) {
  Rng R(Seed * 104729 + 5);
  for (;;) {
    unsigned C = pickLog(R, 1, 300), K = pick(R, 1, 5), KW = R.uniform() < 0.6 ? K : pick(R, 1, 5);
    unsigned S = pick(R, 1, 3), H = pick(R, 1, 48), W = pick(R, 1, 48);
    unsigned PH = pick(R, 0, K / 2), PW = pick(R, 0, KW / 2);
    bool Ceil = R.uniform() < 0.4;
    if (H + 2 * PH < K || W + 2 * PW < KW)
      continue;
    return fmt::format("name: pool{}\ninput: {{name: data, shape: [{}, {}, {}]}}\nlayers:\n"
                       "  - {{name: p, type: maxpool, kernel: [{}, {}], stride: {}, pad: [{}, {}], "
                       "ceil_mode: {}}}\n",
                       Seed, C, H, W, K, KW, S, PH, PW, Ceil ? "true" : "false");
  }
}

/// conv -> maxpool -> conv (-> conv) chains with ReLU, like a small CNN.
std::string chainCase(unsigned Seed) {
  Rng R(Seed * 31337 + 3);
  unsigned C = pick(R, 1, 8), H = pick(R, 16, 48), W = pick(R, 16, 48);
  std::string Y = fmt::format("name: chain{}\ninput: {{name: data, shape: [{}, {}, {}]}}\n"
                              "weights: {{seed: {}}}\nlayers:\n",
                              Seed, C, H, W, Seed);
  unsigned N = pick(R, 3, 5);
  for (unsigned I = 0; I < N; ++I) {
    if (I == 1) {
      Y += "  - {name: pool1, type: maxpool, kernel: 3, stride: 2, pad: 1}\n";
      continue;
    }
    unsigned K = R.uniform() < 0.5 ? 3 : pick(R, 1, 5);
    Y += fmt::format("  - {{name: conv{}, type: conv, out_channels: {}, kernel: {}, stride: 1, "
                     "pad: {}, relu: {}}}\n",
                     I, pickLog(R, 4, 96), K, K / 2, I + 1 < N ? "true" : "false");
  }
  return Y;
}

void check(const std::string &Yaml, const std::string &Hw, bool RequireInformative) {
  SCOPED_TRACE("hardware " + Hw + ", model:\n" + Yaml);
  RunResult R;
  ASSERT_TRUE(runModel(Yaml, Hw, R));
  EXPECT_TRUE(sameBits(R));
  if (RequireInformative && R.Ref.size() >= 256) {
    EXPECT_TRUE(informative(R.Ref));
  }
  EXPECT_GT(R.Stats.Cycles, 0u);
  if (getenv("SNOW_TEST_VERBOSE"))
    fprintf(stderr, "%s macs %llu cycles %llu util %.3f outputs %zu\n", Hw.c_str(), (unsigned long long)R.Macs, (unsigned long long)R.Stats.Cycles, double(R.Macs) / (R.Stats.Cycles * R.Prog.Hw.macs()), R.Ref.size());
}

class RandomConv : public ::testing::TestWithParam<unsigned> {};
class RandomPool : public ::testing::TestWithParam<unsigned> {};
class RandomChain : public ::testing::TestWithParam<unsigned> {};

TEST_P(RandomConv, MatchesReferenceBitForBit) {
  check(convCase(GetParam()), HwPresets[GetParam() % 3], true);
}
TEST_P(RandomPool, MatchesReferenceBitForBit) {
  check(poolCase(GetParam()), HwPresets[GetParam() % 3], false);
}
TEST_P(RandomChain, MatchesReferenceBitForBit) {
  check(chainCase(GetParam()), HwPresets[GetParam() % 3], true);
}

INSTANTIATE_TEST_SUITE_P(Cases, RandomConv, ::testing::Range(0u, 90u));
INSTANTIATE_TEST_SUITE_P(Cases, RandomPool, ::testing::Range(0u, 24u));
INSTANTIATE_TEST_SUITE_P(Cases, RandomChain, ::testing::Range(0u, 12u));

TEST(BitExact, TinyDemoModelOnEveryPreset) {
  std::string Yaml = R"(name: tiny
input: {name: data, shape: [3, 32, 32]}
weights: {seed: 7}
layers:
  - {name: c1, type: conv, input: data, out_channels: 16, kernel: 3, stride: 1, pad: 1, relu: true}
  - {name: p1, type: maxpool, kernel: 2, stride: 2}
  - {name: c2, type: conv, out_channels: 40, kernel: [5, 3], stride: [2, 1], pad: [2, 1]}
)";
  for (const char *Hw : {"zc706", "mini64", "narrow8", "big1024"})
    check(Yaml, Hw, true);
}

TEST(BitExact, OptionsDoNotChangeValues) {
  std::string Yaml = chainCase(99);
  for (bool Db : {false, true})
    for (bool Reorder : {false, true}) {
      compiler::CompileOptions O;
      O.DoubleBuffer = Db;
      O.LoopReorder = Reorder;
      RunResult R;
      ASSERT_TRUE(runModel(Yaml, "zc706", R, O));
      EXPECT_TRUE(sameBits(R)) << "double buffer " << Db << ", loop reorder " << Reorder;
    }
}

} // namespace
