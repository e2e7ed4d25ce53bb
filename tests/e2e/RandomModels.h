//===- RandomModels.h - Randomized models as YAML text -------------*- C++ -*-===//
//
// The generators of the randomized bit-exact cases (BitExactTest.cpp,
// LayersTest.cpp), shared with the RTL co-simulation tests (tests/rtl), which
// compile the same models for the RTL's hardware presets and add fc and
// concat cases. Each case is a function of its seed, so a failing case can
// be replayed by index.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_E2E_RANDOMMODELS_H
#define SNOW_TESTS_E2E_RANDOMMODELS_H

#include "snow/support/Rng.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <optional>
#include <string>

namespace snow::test {

/// The default MAC budget of a conv case: keeps the CI tier fast.
constexpr uint64_t MacBudget = 12'000'000;

inline unsigned pick(Rng &R, unsigned Lo, unsigned Hi) {
  return Lo + unsigned(R.next() % (Hi - Lo + 1));
}
/// Log-uniform in [Lo, Hi]: small channel counts are as likely as large ones.
inline unsigned pickLog(Rng &R, unsigned Lo, unsigned Hi) {
  double L = std::log(double(Lo)), H = std::log(double(Hi) + 1);
  return std::min(Hi, unsigned(std::exp(L + (H - L) * R.uniform())));
}

/// The lines of a model before its layers: the name, a C x H x W input named
/// "data" and, when given, the seed of the weights.
inline std::string modelHeader(const std::string &Name, unsigned C, unsigned H, unsigned W,
                               std::optional<unsigned> Seed) {
  std::string Y =
      fmt::format("name: {}\ninput: {{name: data, shape: [{}, {}, {}]}}\n", Name, C, H, W);
  if (Seed)
    Y += fmt::format("weights: {{seed: {}}}\n", *Seed);
  return Y + "layers:\n";
}

inline unsigned outSize(unsigned In, unsigned K, unsigned S, unsigned P0, unsigned P1) {
  return (In + P0 + P1 - K) / S + 1;
}

/// One conv layer: kernels 1-11, strides 1-4, padding 0-5 per side, 1-300
/// channels, maps up to 64x64 shrunk until the layer has at most Budget MACs.
inline std::string convCase(unsigned Seed, uint64_t Budget = MacBudget) {
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
      if (Macs <= Budget) {
        bool Relu = R.uniform() < 0.5;
        return modelHeader(fmt::format("conv{}", Seed), Cin, H, W, Seed) +
               fmt::format("  - {{name: c, type: conv, out_channels: {}, kernel: [{}, {}], "
                           "stride: [{}, {}], pad: [{}, {}, {}, {}], relu: {}}}\n",
                           Cout, KH, KW, SH, SW, P[0], P[1], P[2], P[3], Relu ? "true" : "false");
      }
      if (H == 1 && W == 1)
        break;
      H = std::max(1u, H * 3 / 4);
      W = std::max(1u, W * 3 / 4);
    }
  }
}

/// One max pooling layer, kernels 1-5 (not always square), strides 1-3, ceil mode.
inline std::string poolCase(unsigned Seed) {
  Rng R(Seed * 104729 + 5);
  for (;;) {
    unsigned C = pickLog(R, 1, 300), K = pick(R, 1, 5), KW = R.uniform() < 0.6 ? K : pick(R, 1, 5);
    unsigned S = pick(R, 1, 3), H = pick(R, 1, 48), W = pick(R, 1, 48);
    unsigned PH = pick(R, 0, K / 2), PW = pick(R, 0, KW / 2);
    bool Ceil = R.uniform() < 0.4;
    if (H + 2 * PH < K || W + 2 * PW < KW)
      continue;
    return modelHeader(fmt::format("pool{}", Seed), C, H, W, std::nullopt) +
           fmt::format("  - {{name: p, type: maxpool, kernel: [{}, {}], stride: {}, pad: [{}, {}], "
                       "ceil_mode: {}}}\n",
                       K, KW, S, PH, PW, Ceil ? "true" : "false");
  }
}

/// conv -> maxpool -> conv (-> conv) chains with ReLU, like a small CNN.
inline std::string chainCase(unsigned Seed) {
  Rng R(Seed * 31337 + 3);
  unsigned C = pick(R, 1, 8), H = pick(R, 16, 48), W = pick(R, 16, 48);
  std::string Y = modelHeader(fmt::format("chain{}", Seed), C, H, W, Seed);
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

/// A random element-wise function of the post-processing table, as a layer
/// line (name Name): one of the eight the model format has, with random
/// parameters for clip and hardsigmoid.
inline std::string activationLine(Rng &R, const std::string &Name) {
  switch (pick(R, 0, 7)) {
  case 0:
    return fmt::format("  - {{name: {}, type: relu6}}\n", Name);
  case 1: {
    double Lo = -4 * R.uniform(), Hi = Lo + 0.25 + 6 * R.uniform();
    return fmt::format("  - {{name: {}, type: clip, min: {:.3f}, max: {:.3f}}}\n", Name, Lo, Hi);
  }
  case 2:
    return fmt::format("  - {{name: {}, type: sigmoid}}\n", Name);
  case 3:
    return fmt::format("  - {{name: {}, type: hardsigmoid, alpha: {:.3f}, beta: {:.3f}}}\n", Name,
                       0.05 + 0.5 * R.uniform(), R.uniform());
  case 4:
    return fmt::format("  - {{name: {}, type: hardswish}}\n", Name);
  case 5:
    return fmt::format("  - {{name: {}, type: silu}}\n", Name);
  case 6:
    return fmt::format("  - {{name: {}, type: gelu}}\n", Name);
  default:
    return fmt::format("  - {{name: {}, type: tanh}}\n", Name);
  }
}

/// Convs with activations (issue 15's post-processing table): dense,
/// depthwise and 1x1 convs, random shapes, each followed by a random
/// function, and for odd seeds a residual add of the block's input before
/// the last function (the table then reads the sum).
inline std::string activationCase(unsigned Seed) {
  Rng R(Seed * 6271 + 5);
  unsigned C = pickLog(R, 1, 96), H = pick(R, 4, 32), W = pick(R, 4, 32);
  std::string Y = modelHeader(fmt::format("act{}", Seed), C, H, W, Seed);
  unsigned K = pick(R, 1, 2) * 2 + 1, Mid = pickLog(R, 1, 120);
  Y += fmt::format("  - {{name: c0, type: conv, out_channels: {}, kernel: {}, pad: {}}}\n", Mid, K,
                   K / 2);
  Y += activationLine(R, "a0");
  Y += fmt::format("  - {{name: dw, type: conv, out_channels: {0}, kernel: 3, pad: 1, groups: "
                   "{0}}}\n",
                   Mid);
  Y += activationLine(R, "a1");
  Y += fmt::format("  - {{name: pw, type: conv, out_channels: {}, kernel: 1}}\n", C);
  if (Seed % 2)
    Y += "  - {name: sum, type: add, inputs: [pw, data]}\n";
  Y += activationLine(R, "a2");
  return Y;
}

/// A squeeze-and-excitation block (EfficientNet's): x -> global average ->
/// 1x1 conv -> activation -> 1x1 conv -> sigmoid (or hardsigmoid) = s, then
/// x * s per channel (run-time weights) and a 1x1 projection; random channel
/// counts (often not a multiple of the lanes) and maps, some larger than
/// 32x32 so that the global average goes in two steps.
inline std::string seCase(unsigned Seed) {
  Rng R(Seed * 4409 + 9);
  unsigned C = pickLog(R, 1, 40), H = pick(R, 2, 40), W = pick(R, 2, 40);
  std::string Y = modelHeader(fmt::format("se{}", Seed), C, H, W, Seed);
  unsigned Mid = pickLog(R, 2, 150), Squeeze = std::max(1u, Mid / pick(R, 2, 8));
  Y += fmt::format("  - {{name: c0, type: conv, out_channels: {}, kernel: 3, pad: 1}}\n", Mid);
  Y += activationLine(R, "x");
  Y += "  - {name: pool, type: global_avgpool}\n";
  Y += fmt::format("  - {{name: fc1, type: conv, out_channels: {}, kernel: 1, relu: true}}\n",
                   Squeeze);
  Y += fmt::format("  - {{name: fc2, type: conv, out_channels: {}, kernel: 1}}\n", Mid);
  Y += R.uniform() < 0.5 ? "  - {name: s, type: sigmoid}\n" : "  - {name: s, type: hardsigmoid}\n";
  Y += "  - {name: mul, type: scale, inputs: [x, s]}\n";
  Y += fmt::format("  - {{name: proj, type: conv, out_channels: {}, kernel: 1}}\n", C);
  return Y;
}

/// An inverted residual block with squeeze-and-excitation (EfficientNet's):
/// a 1x1 expansion (odd seeds), a 3x3 or 5x5 depthwise conv of stride 1 or
/// 2 and its activation, whose output a global average reads (through
/// blocks of 4-8 the conv may average as it writes its tiles back: compiler
/// LayerPlan::PoolBlock; the output side a multiple of 4-8 pixels in most
/// cases, else any), two 1x1 convs and a sigmoid, the per-channel scale and
/// a projection. 8-300 channels: one chunk, several, a partial last one.
inline std::string seBlockCase(unsigned Seed) {
  Rng R(Seed * 2861 + 17);
  const unsigned C = pickLog(R, 8, 300), K = pick(R, 1, 2) * 2 + 1, S = pick(R, 1, 2);
  // The depthwise output's sides: F x 2-6 blocks for three seeds of four.
  const unsigned F = pick(R, 4, 8);
  const bool Blocks = Seed % 4 != 3;
  const unsigned Ho = Blocks ? F * pick(R, 2, 6) : pick(R, 3, 30);
  const unsigned Wo = Blocks ? F * pick(R, 2, 6) : pick(R, 3, 30);
  const unsigned H = (Ho - 1) * S + 1, W = (Wo - 1) * S + 1; // with padding K / 2
  std::string Y =
      modelHeader(fmt::format("seblock{}", Seed), Seed % 2 ? pickLog(R, 4, 48) : C, H, W, Seed);
  if (Seed % 2)
    Y += fmt::format("  - {{name: e, type: conv, out_channels: {}, kernel: 1, relu: true}}\n", C);
  Y += fmt::format("  - {{name: d, type: conv, out_channels: {0}, kernel: {1}, stride: {2}, "
                   "pad: {3}, groups: {0}}}\n",
                   C, K, S, K / 2);
  Y += activationLine(R, "x");
  Y += "  - {name: pool, type: global_avgpool}\n";
  Y += fmt::format("  - {{name: fc1, type: conv, out_channels: {}, kernel: 1, relu: true}}\n",
                   std::max(1u, C / pick(R, 4, 16)));
  Y += fmt::format("  - {{name: fc2, type: conv, out_channels: {}, kernel: 1}}\n", C);
  Y += "  - {name: s, type: sigmoid}\n";
  Y += "  - {name: mul, type: scale, inputs: [x, s]}\n";
  Y += fmt::format("  - {{name: proj, type: conv, out_channels: {}, kernel: 1}}\n",
                   pickLog(R, 8, 200));
  return Y;
}

/// Products of two maps (`mul`: vpre, vmul, vwb): a conv's output times
/// another conv's (seed % 3 == 0), times itself (1: a square) or times the
/// graph input (2), random channel counts and maps, an activation before
/// the product for odd seeds (a gated unit), and a 1x1 conv reading the
/// product for seeds not divisible by 4 (else it is the output).
inline std::string productCase(unsigned Seed) {
  Rng R(Seed * 5303 + 13);
  unsigned C = pickLog(R, 1, 96), H = pick(R, 2, 40), W = pick(R, 2, 40);
  std::string Y = modelHeader(fmt::format("mul{}", Seed), C, H, W, Seed);
  const unsigned Mid = Seed % 3 == 2 ? C : pickLog(R, 1, 120), K = pick(R, 0, 1) * 2 + 1;
  Y += fmt::format("  - {{name: a, type: conv, out_channels: {}, kernel: {}, pad: {}}}\n", Mid, K,
                   K / 2);
  std::string A = "a";
  if (Seed % 2) {
    Y += activationLine(R, "fa");
    A = "fa";
  }
  if (Seed % 3 == 0)
    Y += fmt::format("  - {{name: b, type: conv, input: data, out_channels: {}, kernel: 1}}\n"
                     "  - {{name: prod, type: mul, inputs: [{}, b]}}\n",
                     Mid, A);
  else
    Y += fmt::format("  - {{name: prod, type: mul, inputs: [{}, {}]}}\n", A,
                     Seed % 3 == 1 ? A : "data");
  if (Seed % 4)
    Y += fmt::format("  - {{name: proj, type: conv, out_channels: {}, kernel: 1}}\n",
                     pickLog(R, 1, 80));
  return Y;
}

/// A ConvNeXt block (issue 15): a depthwise conv, a layernorm over the
/// channels (canonicalize expands it: mean, centring with a fused residual,
/// square, rsqrt table, broadcast, product), a pointwise expansion with GELU,
/// a projection and a residual add; for odd seeds a global average, a
/// layernorm over its vector and an fc (ConvNeXt's head). Random channel
/// counts (often not a multiple of the lanes), maps and eps.
inline std::string layerNormCase(unsigned Seed) {
  Rng R(Seed * 7307 + 3);
  unsigned C = pickLog(R, 2, 96), H = pick(R, 2, 24), W = pick(R, 2, 24);
  std::string Y = modelHeader(fmt::format("ln{}", Seed), C, H, W, Seed);
  const unsigned K = pick(R, 1, 3) * 2 + 1;
  const char *Eps = Seed % 3 == 0 ? "1e-6" : Seed % 3 == 1 ? "1e-5" : "0.001";
  Y += fmt::format("  - {{name: dw, type: conv, out_channels: {0}, kernel: {1}, pad: {2}, "
                   "groups: {0}}}\n"
                   "  - {{name: ln, type: layernorm, eps: {3}}}\n"
                   "  - {{name: pw1, type: conv, out_channels: {4}, kernel: 1}}\n"
                   "  - {{name: act, type: gelu}}\n"
                   "  - {{name: pw2, type: conv, out_channels: {0}, kernel: 1}}\n"
                   "  - {{name: sum, type: add, inputs: [pw2, data]}}\n",
                   C, K, K / 2, Eps, pickLog(R, 1, 4 * C));
  if (Seed % 2)
    Y += fmt::format("  - {{name: pool, type: global_avgpool}}\n"
                     "  - {{name: headln, type: layernorm, eps: {}}}\n"
                     "  - {{name: fc, type: fc, out_features: {}}}\n",
                     Eps, pickLog(R, 1, 100));
  return Y;
}

/// A MobileNet block (depthwise + pointwise) for even seeds, a residual
/// block for odd ones, with random shapes, strides and channel counts.
inline std::string blockCase(unsigned Seed) {
  Rng R(Seed * 977 + 11);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  unsigned C = Pick(1, 160), H = Pick(4, 40), W = Pick(4, 40), S = Pick(1, 2),
           K = Pick(1, 2) * 2 + 1;
  std::string Y = modelHeader(fmt::format("block{}", Seed), C, H, W, 3);
  if (Seed % 2 == 0)
    Y += fmt::format("  - {{name: dw, type: conv, out_channels: {0}, kernel: {1}, stride: {2}, "
                     "pad: {3}, groups: {0}, bias: false}}\n"
                     "  - {{name: bn, type: batchnorm}}\n  - {{name: r, type: relu}}\n"
                     "  - {{name: pw, type: conv, out_channels: {4}, kernel: 1, relu: true}}\n",
                     C, K, S, K / 2, Pick(1, 200));
  else
    Y += fmt::format("  - {{name: a, type: conv, out_channels: {0}, kernel: {1}, pad: {2}, "
                     "relu: true}}\n"
                     "  - {{name: b, type: conv, out_channels: {3}, kernel: 1}}\n"
                     "  - {{name: sum, type: add, inputs: [b, data], relu: {4}}}\n",
                     Pick(1, 100), K, K / 2, C, Seed % 4 == 1 ? "true" : "false");
  return Y;
}

/// A depthwise conv and the 1x1 convs that read it (fused on chip where the
/// planner finds it pays: compiler Fuse.cpp): 8-300 channels (one chunk,
/// several, a partial last one), 3x3 or 5x5, stride 1 or 2, ReLU6 through
/// the table, ReLU or none; then one 1x1 conv, one with a residual of an
/// older layer, or two reading the same output (concatenated). The variant
/// goes by Seed / 3, so that the presets that rotate by Seed % 3 see each.
inline std::string fusedCase(unsigned Seed) {
  Rng R(Seed * 104729 + 13);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  const unsigned Variant = Seed / 3 % 3;
  const unsigned C = pickLog(R, 8, 300), K = Pick(1, 2) * 2 + 1;
  const unsigned S = Variant == 1 ? 1 : Pick(1, 2); // a residual keeps the shape
  std::string Y =
      modelHeader(fmt::format("fused{}", Seed), Pick(1, 48), Pick(5, 28), Pick(5, 28), 3);
  Y += fmt::format("  - {{name: e, type: conv, out_channels: {0}, kernel: 1, relu: true}}\n"
                   "  - {{name: d, type: conv, out_channels: {0}, kernel: {1}, stride: {2}, "
                   "pad: {3}, groups: {0}, bias: false}}\n"
                   "  - {{name: bn, type: batchnorm}}\n",
                   C, K, S, K / 2);
  const char *Act[] = {"  - {name: a, type: relu6}\n", "  - {name: a, type: relu}\n", ""};
  Y += Act[Seed / 9 % 3];
  if (Variant == 0)
    Y += fmt::format("  - {{name: p, type: conv, out_channels: {}, kernel: 1}}\n", Pick(1, 200));
  else if (Variant == 1)
    Y += fmt::format("  - {{name: p, type: conv, out_channels: {}, kernel: 1}}\n"
                     "  - {{name: sum, type: add, inputs: [p, e], relu: true}}\n",
                     C);
  else
    Y += fmt::format("  - {{name: q1, type: conv, out_channels: {}, kernel: 1, relu: true}}\n"
                     "  - {{name: q2, type: conv, input: {}, out_channels: {}, kernel: 1}}\n"
                     "  - {{name: cat, type: concat, inputs: [q1, q2]}}\n",
                     Pick(1, 100), Seed / 9 % 3 == 2 ? "bn" : "a", Pick(1, 100));
  return Y;
}

/// A 1x1 conv of 1-32 output channels (LayerPlan::Banked: two pixels a
/// cycle from two maps banks), 8-300 input channels, maps 3-40 pixels wide
/// (odd widths take a padding column): alone (Variant 0), after a depthwise
/// conv it may fuse with (1: even widths), or after a max pool (2), with a
/// fused residual every fourth case.
inline std::string bankedCase(unsigned Seed) {
  Rng R(Seed * 6151 + 29);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  const unsigned Variant = Seed / 3 % 3, C = pickLog(R, 8, 300), K = pickLog(R, 1, 32);
  const unsigned W = Variant == 1 ? 2 * Pick(2, 20) : Pick(3, 40);
  std::string Y = modelHeader(fmt::format("banked{}", Seed), C, Pick(3, 40), W, 5);
  if (Variant == 1)
    Y += fmt::format("  - {{name: d, type: conv, out_channels: {0}, kernel: 3, pad: 1, "
                     "groups: {0}, relu: true}}\n",
                     C);
  if (Variant == 2)
    Y += "  - {name: d, type: maxpool, kernel: 3, stride: 1, pad: 1}\n";
  Y += fmt::format("  - {{name: n, type: conv, out_channels: {}, kernel: 1, relu: {}}}\n", K,
                   Seed % 2 ? "true" : "false");
  if (Seed % 4 == 3)
    Y += fmt::format("  - {{name: m, type: conv, input: data, out_channels: {}, kernel: 1}}\n"
                     "  - {{name: sum, type: add, inputs: [n, m]}}\n",
                     K);
  return Y;
}

/// A depthwise conv and the 1x1 conv of 65-96 or 129-160 output channels
/// that alone reads it (MobileNet v2's 96 and 160): a fused pair may run
/// the 1x1 conv two pixels a step from a banked area, in output groups of
/// 32 channels, which those counts fill better than groups of 64 (compiler
/// Fuse.cpp). Even seeds: 48-300 channels on maps of 8-28 rows by 8-28
/// columns; odd seeds: 128-384 channels on maps of 6-14 by 8-14, one group
/// of tiles, whose producer may load full depth. Seeds from 18 on: maps
/// one column narrower, of odd width (MobileNet v2's 7x7 tiles of its 14x14
/// blocks: a tile's last pixel pair has a padding column).
inline std::string bankedPairCase(unsigned Seed) {
  Rng R(Seed * 7919 + 5);
  const bool Small = Seed % 2;
  const unsigned C = Small ? 64 * pick(R, 2, 6) : pickLog(R, 48, 300);
  const unsigned H = Small ? pick(R, 6, 14) : pick(R, 8, 28);
  const unsigned W = 2 * (Small ? pick(R, 4, 7) : pick(R, 4, 14)) - (Seed >= 18);
  std::string Y = modelHeader(fmt::format("bankedpair{}", Seed), C, H, W, 7);
  Y += fmt::format("  - {{name: d, type: conv, out_channels: {0}, kernel: 3, pad: 1, "
                   "groups: {0}, relu: true}}\n"
                   "  - {{name: n, type: conv, out_channels: {1}, kernel: 1, relu: {2}}}\n",
                   C, 64 * pick(R, 1, 2) + pick(R, 1, 32), Seed / 2 % 2 ? "true" : "false");
  return Y;
}

/// A conv of at most half an output group's channels whose kernel is wider
/// than its stride (a network's stem, an inception 5x5), alone or (odd
/// seeds) computing the windows of the depthwise conv that alone reads it:
/// where each maps bank has a read port, its second pixel group reads a
/// shifted copy of the window (compiler LayerPlan::CopyBanks). 1-64 input
/// channels, 8-32 output channels, kernels 2-7 wide and 1-7 tall, strides
/// below the width, padding below the kernel, maps of 8-60.
inline std::string copiedCase(unsigned Seed) {
  Rng R(Seed * 4099 + 11);
  const unsigned C = pickLog(R, 1, 64), K = pick(R, 8, 32), KW = pick(R, 2, 7);
  const unsigned KH = R.uniform() < 0.5 ? KW : pick(R, 1, 7);
  const unsigned S = pick(R, 1, std::min(3u, KW - 1));
  const unsigned PH = pick(R, 0, std::min(2u, KH - 1)), PW = pick(R, 0, std::min(2u, KW - 1));
  const unsigned H = pick(R, std::max(8u, KH), 60), W = pick(R, std::max(8u, KW), 60);
  std::string Y = modelHeader(fmt::format("copied{}", Seed), C, H, W, 5);
  Y += fmt::format("  - {{name: c, type: conv, out_channels: {}, kernel: [{}, {}], stride: {}, "
                   "pad: [{}, {}], relu: true}}\n",
                   K, KH, KW, S, PH, PW);
  if (Seed % 2)
    Y += fmt::format("  - {{name: d, type: conv, out_channels: {0}, kernel: 3, stride: {1}, pad: "
                     "1, groups: {0}, relu: true}}\n",
                     K, pick(R, 1, 2));
  return Y;
}

/// A max or average pool read only by 1x1 convs (fused with them where the
/// planner finds it pays, as GoogLeNet's branch pools and SqueezeNet's
/// pools: compiler Fuse.cpp): 3x3 stride 1 with padding, or 3x3 stride 2
/// in ceil mode, 8-300 channels, then one 1x1 conv or two (concatenated).
inline std::string fusedPoolCase(unsigned Seed) {
  Rng R(Seed * 7907 + 3);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  const unsigned C = pickLog(R, 8, 300);
  std::string Y =
      modelHeader(fmt::format("fusedpool{}", Seed), Pick(1, 40), Pick(6, 40), Pick(6, 40), 3);
  Y += fmt::format("  - {{name: e, type: conv, out_channels: {}, kernel: 1, relu: true}}\n", C);
  Y += Seed % 2 ? fmt::format("  - {{name: d, type: {}, kernel: 3, stride: 1, pad: 1}}\n",
                              Seed / 2 % 3 ? "maxpool" : "avgpool")
                : "  - {name: d, type: maxpool, kernel: 3, stride: 2, ceil_mode: true}\n";
  if (Seed / 4 % 2)
    Y += fmt::format("  - {{name: p, type: conv, out_channels: {}, kernel: 1, relu: true}}\n",
                     Pick(1, 200));
  else
    Y += fmt::format("  - {{name: q1, type: conv, out_channels: {}, kernel: 1, relu: true}}\n"
                     "  - {{name: q2, type: conv, input: d, out_channels: {}, kernel: 1}}\n"
                     "  - {{name: cat, type: concat, inputs: [q1, q2]}}\n",
                     Pick(1, 100), Pick(1, 100));
  return Y;
}

/// A conv of 1-64 output channels (mostly 17-32 or 49-64: a pool reads
/// the area at its own pixel stride, its channels rounded up to lanes;
/// every eighth of 128-256, whole groups, a CU pooling each; a network's
/// stem, 3x3 of stride 2, padded, or a 1x1; ReLU in two of
/// three) and the max or average pool that alone reads it, its windows
/// reaching past the map in most (padding, or ceil mode's last window), on
/// maps of 16-60 pixels a side: the conv computes the pool's windows on
/// chip, zeros in the padding, its pixels 32 elements apart with at most 32
/// channels (compiler FuseWindows.cpp, framedPoolReader), where the planner
/// finds it pays. A padded max pool after a conv without ReLU needs its
/// -32768 fill and stays apart. Then a 1x1 conv or nothing.
inline std::string framedPoolCase(unsigned Seed) {
  Rng R(Seed * 6151 + 13);
  const bool Relu = Seed % 3 != 0, Max = Seed % 4 != 3, Ceil = Max && Seed % 5 == 1;
  const unsigned C = Seed % 8 == 6       ? 64 * pick(R, 2, 4)
                     : Seed % 4 == 2     ? pickLog(R, 1, 64)
                     : R.uniform() < 0.5 ? pick(R, 17, 32)
                                         : pick(R, 49, 64);
  const unsigned K = pick(R, 2, 3), S = pick(R, 1, 2);
  const unsigned Pad = Max && !Relu ? 1 : pick(R, 0, K / 2);
  std::string Y = modelHeader(fmt::format("framedpool{}", Seed), pick(R, 1, 16), pick(R, 16, 60),
                              pick(R, 16, 60), 9);
  Y += fmt::format("  - {{name: c, type: conv, out_channels: {}, kernel: {}{}}}\n", C,
                   Seed % 2 ? "1" : "3, stride: 2, pad: 1", Relu ? ", relu: true" : "");
  Y += fmt::format("  - {{name: p, type: {}, kernel: {}, stride: {}, pad: {}{}}}\n",
                   Max ? "maxpool" : "avgpool", K, S, Pad, Ceil ? ", ceil_mode: true" : "");
  if (Seed / 2 % 2)
    Y += fmt::format("  - {{name: q, type: conv, out_channels: {}, kernel: 1}}\n", pick(R, 1, 80));
  return Y;
}

/// A 1x1 conv (an inverted residual block's expansion: 1-64 input channels,
/// 8-400 output channels; every fifth a 3x3 stem conv of stride 2) and the
/// depthwise conv that alone reads it
/// (kernel 3 or 5, stride 1 or 2, padded or not), on maps of 5-40 pixels
/// a side, so that the depthwise windows of every kind of border tile are
/// computed on chip (compiler FuseWindows.cpp); then a 1x1 projection, two
/// readers of the depthwise output, or nothing.
inline std::string expansionCase(unsigned Seed) {
  Rng R(Seed * 15401 + 7);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  const unsigned C = pickLog(R, 8, 400), K = Pick(1, 2) * 2 + 1, S = Pick(1, 2);
  const unsigned Pad = Seed % 4 == 3 ? 0 : K / 2;
  std::string Y =
      modelHeader(fmt::format("expansion{}", Seed), pickLog(R, 1, 64), Pick(5, 40), Pick(5, 40), 3);
  const char *Act[] = {", relu: true", "", ", relu: true"};
  // Every fifth a network's stem instead: a 3x3 conv of stride 2, padded.
  const char *Kernel = Seed % 5 == 4 ? "3, stride: 2, pad: 1" : "1";
  Y += fmt::format("  - {{name: e, type: conv, out_channels: {}, kernel: {}{}}}\n", C, Kernel,
                   Act[Seed % 3]);
  Y += fmt::format("  - {{name: d, type: conv, out_channels: {0}, kernel: {1}, stride: {2}, "
                   "pad: {3}, groups: {0}, relu: true}}\n",
                   C, K, S, Pad);
  if (Seed / 3 % 3 == 0)
    Y += fmt::format("  - {{name: p, type: conv, out_channels: {}, kernel: 1}}\n", Pick(1, 160));
  else if (Seed / 3 % 3 == 1)
    Y += fmt::format("  - {{name: q1, type: conv, out_channels: {}, kernel: 1, relu: true}}\n"
                     "  - {{name: q2, type: conv, input: d, out_channels: {}, kernel: 3, pad: 1}}\n"
                     "  - {{name: cat, type: concat, inputs: [q1, q2]}}\n",
                     Pick(1, 100), Pick(1, 100));
  return Y;
}

/// An inverted residual block (a 1x1 expansion of 2 to 6 times its input's
/// channels, a depthwise conv of kernel 3 or 5 and stride 1 or 2, a 1x1
/// projection of up to 64 channels, with the block's residual where shapes
/// allow, every other time): what a block triple (FuseBlocks.cpp) runs on
/// chip, on random maps.
inline std::string invertedResidualCase(unsigned Seed) {
  Rng R(Seed * 2713 + 11);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  const unsigned Cin = pickLog(R, 4, 64), C = std::min(400u, Cin * Pick(2, 6));
  const unsigned K = Pick(1, 2) * 2 + 1, S = Seed % 4 == 1 ? 2 : 1, Pad = Seed % 7 == 3 ? 0 : K / 2;
  const unsigned Out = Seed % 2 && S == 1 && Pad == K / 2 ? Cin : Pick(1, 64);
  std::string Y = modelHeader(fmt::format("invres{}", Seed), Cin, Pick(6, 40), Pick(6, 40), 3);
  Y += fmt::format("  - {{name: e, type: conv, out_channels: {}, kernel: 1, relu: true}}\n", C);
  Y += fmt::format("  - {{name: d, type: conv, out_channels: {0}, kernel: {1}, stride: {2}, "
                   "pad: {3}, groups: {0}{4}}}\n",
                   C, K, S, Pad, Seed % 3 ? ", relu: true" : "");
  Y += fmt::format("  - {{name: p, type: conv, out_channels: {}, kernel: 1}}\n", Out);
  if (Out == Cin && S == 1 && Pad == K / 2)
    Y += "  - {name: a, type: add, inputs: [p, data]}\n";
  return Y;
}

/// A grouped conv (Groups groups of K input and K output channels, K from 2
/// to 32, odd group counts) between two pointwise convs, with random maps,
/// kernels and strides: the per-group vdw lowering where it fits, the dense
/// one where it does not.
inline std::string groupedCase(unsigned Seed) {
  Rng R(Seed * 7919 + 5);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  const unsigned K = 1u << Pick(1, 5), Groups = Pick(1, 96 / K) | 1, C = K * Groups;
  const unsigned H = Pick(3, 30), W = Pick(3, 30), S = Pick(1, 2);
  const unsigned KH = Pick(0, 2) * 2 + 1, KW = Pick(0, 2) * 2 + 1;
  std::string Y = modelHeader(fmt::format("grouped{}", Seed), Pick(1, 40), H, W, 3);
  Y += fmt::format("  - {{name: in, type: conv, out_channels: {0}, kernel: 1, relu: true}}\n"
                   "  - {{name: g, type: conv, out_channels: {0}, kernel: [{1}, {2}], "
                   "stride: {3}, pad: [{4}, {5}], groups: {6}, relu: {7}}}\n"
                   "  - {{name: out, type: conv, out_channels: {8}, kernel: 1}}\n",
                   C, KH, KW, S, KH / 2, KW / 2, Groups, Seed % 2 ? "true" : "false", Pick(1, 70));
  return Y;
}

/// conv -> flatten -> fc (-> fc): fully connected layers of random widths
/// after a small random map.
inline std::string fcCase(unsigned Seed) {
  Rng R(Seed * 65537 + 29);
  unsigned C = pick(R, 1, 24), H = pick(R, 1, 9), W = pick(R, 1, 9);
  std::string Y =
      modelHeader(fmt::format("fc{}", Seed), C, H, W, Seed) +
      fmt::format("  - {{name: c, type: conv, out_channels: {}, kernel: 3, pad: 1, "
                  "relu: true}}\n  - {{name: f, type: flatten}}\n"
                  "  - {{name: fc1, type: fc, out_features: {}, relu: {}}}\n",
                  pickLog(R, 1, 48), pickLog(R, 1, 300), R.uniform() < 0.5 ? "true" : "false");
  if (R.uniform() < 0.5)
    Y += fmt::format("  - {{name: fc2, type: fc, out_features: {}}}\n", pickLog(R, 1, 100));
  return Y;
}

/// Branches of convs and a pool over one input, concatenated (channel
/// offsets in the output), then a conv over the concatenation.
inline std::string concatCase(unsigned Seed) {
  Rng R(Seed * 40503 + 7);
  unsigned C = pickLog(R, 1, 64), H = pick(R, 3, 24), W = pick(R, 3, 24);
  std::string Y = modelHeader(fmt::format("cat{}", Seed), C, H, W, Seed);
  unsigned N = pick(R, 2, 4);
  std::string Inputs;
  for (unsigned I = 0; I < N; ++I) {
    std::string Name = fmt::format("b{}", I);
    if (I == N - 1 && R.uniform() < 0.5)
      Y += fmt::format("  - {{name: {}, type: maxpool, input: data, kernel: 3, stride: 1, "
                       "pad: 1}}\n",
                       Name);
    else {
      unsigned K = pick(R, 0, 2) * 2 + 1;
      Y += fmt::format("  - {{name: {}, type: conv, input: data, out_channels: {}, kernel: {}, "
                       "pad: {}, relu: true}}\n",
                       Name, pickLog(R, 1, 80), K, K / 2);
    }
    Inputs += (I ? ", " : "") + Name;
  }
  Y += fmt::format("  - {{name: cat, type: concat, inputs: [{}]}}\n"
                   "  - {{name: after, type: conv, out_channels: {}, kernel: 1}}\n",
                   Inputs, pickLog(R, 1, 64));
  return Y;
}

/// An inception block: 1x1 branches on one input (canonicalize merges the
/// reduce convs into one conv whose output channels go to the tensors the
/// 3x3 and 5x5 convs read: LayerPlan::Pieces), a pooled projection, and
/// channel counts that split lane words between the pieces.
inline std::string inceptionCase(unsigned Seed) {
  Rng R(Seed * 2654435761u + 11);
  unsigned C = pickLog(R, 1, 96), H = pick(R, 3, 20), W = pick(R, 3, 20);
  std::string Y = modelHeader(fmt::format("inception{}", Seed), C, H, W, Seed);
  const unsigned K3 = pick(R, 0, 1) * 2 + 3; // 3 or 5
  Y += fmt::format("  - {{name: b1, type: conv, input: data, out_channels: {}, kernel: 1, relu: "
                   "true}}\n"
                   "  - {{name: b2r, type: conv, input: data, out_channels: {}, kernel: 1, relu: "
                   "true}}\n"
                   "  - {{name: b2, type: conv, out_channels: {}, kernel: 3, pad: 1, relu: true}}\n"
                   "  - {{name: b3r, type: conv, input: data, out_channels: {}, kernel: 1, relu: "
                   "true}}\n"
                   "  - {{name: b3, type: conv, out_channels: {}, kernel: {}, pad: {}, relu: "
                   "true}}\n"
                   "  - {{name: b4p, type: maxpool, input: data, kernel: 3, stride: 1, pad: 1}}\n"
                   "  - {{name: b4, type: conv, out_channels: {}, kernel: 1, relu: true}}\n"
                   "  - {{name: cat, type: concat, inputs: [b1, b2, b3, b4]}}\n"
                   "  - {{name: after, type: conv, out_channels: {}, kernel: 1}}\n",
                   pickLog(R, 1, 80), pickLog(R, 1, 96), pickLog(R, 1, 64), pickLog(R, 1, 24),
                   pickLog(R, 1, 32), K3, K3 / 2, pickLog(R, 1, 32), pickLog(R, 1, 48));
  return Y;
}

} // namespace snow::test

#endif
