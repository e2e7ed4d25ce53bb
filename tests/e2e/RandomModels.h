//===- RandomModels.h - Randomized models as YAML text -------------*- C++ -*-===//
//
// The generators of the randomized bit-exact cases (BitExactTest.cpp,
// LayersTest.cpp), shared with the RTL co-simulation tests (tests/rtl), which
// compile the same models for the RTL's hardware presets and add fc and
// concat cases; those of layers on chip together are RandomFused.h's. Each case is a function of
// its seed, so a failing case can be replayed by index.
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

/// A conv of 24, 48, 72 or 96 input channels (shares of one size on 3, 4
/// and 8 CUs), a kernel of 1 to 5 with stride 1 or 2 and padding, 8 to 200
/// output channels on a 3x3 to 16x16 map, with ReLU, a SiLU (an activation
/// table, which each CU's first chunk carries) or neither.
inline std::string sumCase(unsigned Seed) {
  Rng R(Seed * 6007 + 11);
  const unsigned Cin = 24 * pick(R, 1, 4), Cout = pick(R, 8, 200), K = pick(R, 1, 5);
  const unsigned S = pick(R, 1, 2), Pad = pick(R, 0, K / 2), H = pick(R, K, 16), W = pick(R, K, 16);
  const unsigned Act = pick(R, 0, 2);
  std::string Y = modelHeader(fmt::format("sum{}", Seed), Cin, H, W, Seed) +
                  fmt::format("  - {{name: c, type: conv, out_channels: {}, kernel: {}, stride: "
                              "{}, pad: {}, relu: {}}}\n",
                              Cout, K, S, Pad, Act == 1 ? "true" : "false");
  if (Act == 2)
    Y += "  - {name: a, type: silu}\n";
  return Y;
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
