//===- RandomShuffle.h - Randomized ShuffleNet v2 units as YAML ---*- C++ -*-===//
//
// A generator beside RandomModels.h (whose cases it shares the helpers of),
// for the channel moves canonicalize() folds (compiler/ir/FoldSelections.cpp,
// ConcatSplit.cpp, PassThrough.cpp): one to four stride-1 units (halves as
// slices, a 1x1 - depthwise - 1x1 branch, concat, shuffle) and a stride-2
// unit reading the last shuffle with both branches, its first a depthwise
// conv over the permutation, then a shuffle of a random group count and a
// 1x1 conv. Random channels (even), map sizes and relus; used by the
// bit-exact tests (BitExactTest.cpp) and the RTL co-simulation
// (tests/rtl/LayersTest.cpp).
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
      "  - {{name: c0, type: conv, out_channels: {}, kernel: 3, pad: 1, relu: true}}\n", C);
  // One to four stride-1 units in a chain: from the second on, the half a
  // unit passes on is the parts of the concat before it (PassThrough.cpp),
  // where the branch's convs have their relus as layers of their own (or
  // none), as models/shufflenet_v2_x1_0.yaml writes them, which the concat
  // split needs.
  const unsigned Units = pick(R, 1, 4);
  std::string In = "c0";
  for (unsigned U = 0; U < Units; ++U) {
    const bool Relu = R.uniform() < 0.5, ReluLayer = R.uniform() < 0.7;
    Y += fmt::format(
        "  - {{name: x1_{0}, type: slice, input: {1}, begin: 0, channels: {2}}}\n"
        "  - {{name: x2_{0}, type: slice, input: {1}, begin: {2}, channels: {2}}}\n"
        "  - {{name: a1_{0}, type: conv, out_channels: {2}, kernel: 1}}\n"
        "  - {{name: a1_{0}_r, type: relu}}\n"
        "  - {{name: a2_{0}, type: conv, out_channels: {2}, kernel: 3, pad: 1, groups: {2}}}\n"
        "  - {{name: a3_{0}, type: conv, out_channels: {2}, kernel: 1, relu: {3}}}\n",
        U, In, Half, Relu && !ReluLayer ? "true" : "false");
    std::string Last = fmt::format("a3_{}", U);
    if (Relu && ReluLayer) {
      Y += fmt::format("  - {{name: a3_{0}_r, type: relu}}\n", U);
      Last += "_r";
    }
    Y += fmt::format("  - {{name: cat_{0}, type: concat, inputs: [x1_{0}, {1}]}}\n"
                     "  - {{name: sh_{0}, type: shuffle, groups: 2}}\n",
                     U, Last);
    In = fmt::format("sh_{}", U);
  }
  Y += fmt::format(
      "  - {{name: b1, type: conv, out_channels: {0}, kernel: 3, stride: 2, pad: 1, "
      "groups: {0}}}\n"
      "  - {{name: b2, type: conv, out_channels: {1}, kernel: 1, relu: true}}\n"
      "  - {{name: d1, type: conv, input: {4}, out_channels: {1}, kernel: 1, relu: true}}\n"
      "  - {{name: d2, type: conv, out_channels: {1}, kernel: 3, stride: 2, pad: 1, "
      "groups: {1}}}\n"
      "  - {{name: d3, type: conv, out_channels: {1}, kernel: 1, relu: true}}\n"
      "  - {{name: cat2, type: concat, inputs: [b2, d3]}}\n"
      "  - {{name: sh2, type: shuffle, groups: {2}}}\n"
      "  - {{name: out, type: conv, out_channels: {3}, kernel: 1}}\n",
      C, Half, G, Out, In);
  return Y;
}

} // namespace snow::test

#endif
