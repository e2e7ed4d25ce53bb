//===- RandomShuffle.h - Randomized ShuffleNet v2 units as YAML ---*- C++ -*-===//
//
// A generator beside RandomModels.h (whose cases it shares the helpers of),
// for the channel moves canonicalize() folds (compiler/ir/FoldSelections.cpp,
// ConcatSplit.cpp): a stride-1 unit (halves as slices, a 1x1 - depthwise -
// 1x1 branch, concat, shuffle) and a stride-2 unit reading the shuffle with
// both branches, its first a depthwise conv over the permutation, then a
// shuffle of a random group count and a 1x1 conv. Random channels (even),
// map sizes and relus; used by the bit-exact tests (BitExactTest.cpp) and
// the RTL co-simulation (tests/rtl/LayersTest.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_E2E_RANDOMSHUFFLE_H
#define SNOW_TESTS_E2E_RANDOMSHUFFLE_H

#include "RandomModels.h"

namespace snow::test {

inline std::string shuffleCase(unsigned Seed) {
  Rng R(Seed * 92821 + 17);
  const unsigned Half = pickLog(R, 1, 40), C = 2 * Half;
  const unsigned H = pick(R, 3, 20), W = pick(R, 3, 20), Out = pickLog(R, 1, 80);
  unsigned G = 2;
  while (C % G != 0 || (G < C && R.uniform() < 0.5))
    ++G;
  std::string Y = modelHeader(fmt::format("shuffle{}", Seed), pick(R, 1, 16), H, W, Seed);
  Y += fmt::format(
      "  - {{name: c0, type: conv, out_channels: {0}, kernel: 3, pad: 1, relu: true}}\n"
      "  - {{name: x1, type: slice, begin: 0, channels: {1}}}\n"
      "  - {{name: x2, type: slice, input: c0, begin: {1}, channels: {1}}}\n"
      "  - {{name: a1, type: conv, out_channels: {1}, kernel: 1, relu: true}}\n"
      "  - {{name: a2, type: conv, out_channels: {1}, kernel: 3, pad: 1, groups: {1}}}\n"
      "  - {{name: a3, type: conv, out_channels: {1}, kernel: 1, relu: {2}}}\n"
      "  - {{name: cat1, type: concat, inputs: [x1, a3]}}\n"
      "  - {{name: sh1, type: shuffle, groups: 2}}\n"
      "  - {{name: b1, type: conv, out_channels: {0}, kernel: 3, stride: 2, pad: 1, "
      "groups: {0}}}\n"
      "  - {{name: b2, type: conv, out_channels: {1}, kernel: 1, relu: true}}\n"
      "  - {{name: d1, type: conv, input: sh1, out_channels: {1}, kernel: 1, relu: true}}\n"
      "  - {{name: d2, type: conv, out_channels: {1}, kernel: 3, stride: 2, pad: 1, "
      "groups: {1}}}\n"
      "  - {{name: d3, type: conv, out_channels: {1}, kernel: 1, relu: true}}\n"
      "  - {{name: cat2, type: concat, inputs: [b2, d3]}}\n"
      "  - {{name: sh2, type: shuffle, groups: {3}}}\n"
      "  - {{name: out, type: conv, out_channels: {4}, kernel: 1}}\n",
      C, Half, R.uniform() < 0.5 ? "true" : "false", G, Out);
  return Y;
}

} // namespace snow::test

#endif
