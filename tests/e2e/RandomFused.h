//===- RandomFused.h - Randomized layers that run on chip together -*- C++ -*-===//
//
// The generators of the randomized cases whose layers share maps on chip
// or read two pixels a step (FusedLayersTest.cpp, tests/rtl/LayersTest.cpp):
// depthwise convs and pools fused with their 1x1 readers, banked and copied
// windows, convs computing their reader's windows, inverted residual
// blocks. Beside RandomModels.h, whose helpers they share.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_E2E_RANDOMFUSED_H
#define SNOW_TESTS_E2E_RANDOMFUSED_H

#include "RandomModels.h"

namespace snow::test {

/// The depthwise conv "d" of C channels, K x K, stride S, padding Pad, with
/// or without ReLU: a line of a model's layers.
inline std::string depthwiseLayer(unsigned C, unsigned K, unsigned S, unsigned Pad, bool Relu) {
  return fmt::format("  - {{name: d, type: conv, out_channels: {0}, kernel: {1}, stride: {2}, "
                     "pad: {3}, groups: {0}{4}}}\n",
                     C, K, S, Pad, Relu ? ", relu: true" : "");
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

/// A network's stem (3 or 4 input channels on maps of 104-144 pixels a
/// side; a 7x7 conv of stride 2 (some 5x5, every fifth 3x3), padded, of 32-64 output
/// channels, ReLU in three of four), the max or average pool that reads it
/// (3x3, stride 2, padded, in ceil mode or neither) and one or two 1x1
/// convs of 64-256 channels (every sixth fewer than 64) that alone read
/// the pool: where the stem
/// leaves the channel idle the pool runs beside it (compiler
/// PipelinePools.cpp), and with its readers as a pair beside it where that
/// pays (FuseBeside.cpp).
inline std::string besideStemCase(unsigned Seed) {
  Rng R(Seed * 7919 + 29);
  const bool Max = Seed % 3 != 2, Relu = Seed % 4 != 3;
  // (Mostly 7x7 on large maps: a small stem stores as much as it
  // computes, and no pool hides beside it.)
  const unsigned K = Seed % 5 == 4 ? 3 : Seed % 3 == 2 ? 5 : 7, C = 16 * pick(R, 2, 4);
  const unsigned PK = 3; // (a 2x2 pool's windows do not overlap: the stem computes them, 9c)
  const unsigned Side = pick(R, 104, 144);
  const unsigned Pad = Max && !Relu ? 0 : pick(R, 0, PK / 2);
  const bool Ceil = Max && !Pad && Seed % 2;
  std::string Y =
      modelHeader(fmt::format("besidestem{}", Seed), pick(R, 3, 4), Side, Side - pick(R, 0, 8), 9);
  Y += fmt::format(
      "  - {{name: c, type: conv, out_channels: {}, kernel: {}, stride: 2, pad: {}{}}}\n", C, K,
      K / 2, Relu ? ", relu: true" : "");
  Y += fmt::format("  - {{name: p, type: {}, kernel: {}, stride: 2, pad: {}{}}}\n",
                   Max ? "maxpool" : "avgpool", PK, Pad, Ceil ? ", ceil_mode: true" : "");
  Y += fmt::format(
      "  - {{name: q, type: conv, input: p, out_channels: {}, kernel: 1, relu: true}}\n",
      Seed % 6 == 5 ? pick(R, 8, 63) : 64 * pick(R, 1, 4));
  if (Seed % 4 == 1)
    Y += fmt::format("  - {{name: q2, type: conv, input: p, out_channels: {}, kernel: 1}}\n"
                     "  - {{name: cat, type: concat, inputs: [q, q2]}}\n",
                     64 * pick(R, 1, 2));
  return Y;
}

/// The seed of framedPoolCase's K-th case with a 1x1 conv after its pool
/// (every second pair of seeds has one).
inline unsigned poolTripleSeed(unsigned K) { return 4 * (K / 2) + 2 + K % 2; }

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
  Y += depthwiseLayer(C, K, S, Pad, true);
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
  Y += depthwiseLayer(C, K, S, Pad, Seed % 3 != 0);
  Y += fmt::format("  - {{name: p, type: conv, out_channels: {}, kernel: 1}}\n", Out);
  if (Out == Cin && S == 1 && Pad == K / 2)
    Y += "  - {name: a, type: add, inputs: [p, data]}\n";
  return Y;
}

/// An inverted residual block on a map small enough for one tile (3x3 to
/// 8x8): a 1x1 expansion of its input's 8-160 channels to 4-12 output
/// groups of 64 (the last often partial), a padded 3x3 or 5x5
/// depthwise conv of stride 1, a 1x1 projection of 8-300 channels (over an
/// output group or several, a partial last), with the block's residual
/// every other time: what a split triple (FuseBlocks.cpp: bestSplitTriple)
/// runs on every CU at once, some CUs' last round past the channels.
inline std::string splitTripleCase(unsigned Seed) {
  Rng R(Seed * 4481 + 3);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  const unsigned H = Pick(3, 8), W = Pick(3, 8), Cin = Pick(8, 160);
  const unsigned C = 64 * Pick(4, 12) - Pick(0, 40), K = Seed % 3 == 2 ? 5 : 3;
  const bool Residual = Seed % 2 == 1;
  const unsigned Out = Residual ? Cin : Pick(8, 300);
  std::string Y = modelHeader(fmt::format("split{}", Seed), Cin, H, W, 3);
  Y += fmt::format("  - {{name: e, type: conv, out_channels: {}, kernel: 1, relu: true}}\n", C);
  Y += depthwiseLayer(C, K, 1, K / 2, Seed % 4 != 0);
  Y += fmt::format("  - {{name: p, type: conv, out_channels: {}, kernel: 1}}\n", Out);
  if (Residual)
    Y += "  - {name: a, type: add, inputs: [p, data]}\n";
  return Y;
}

/// A network's stem and its first inverted residual block without the
/// expansion (MobileNet v2's conv1, block1_dw and block1_project): a 3x3
/// conv of 1-4 channels, stride 2 (every fourth case 1), padded or not, into
/// 8-32 channels (at most half an output group on every preset but
/// narrow8, so the stem may trace two pixels an entry), a 3x3 or 5x5
/// depthwise conv of stride 1 or 2, and a 1x1 projection of 4-64 channels,
/// on maps of odd and even sizes: what a block triple (FuseBlocks.cpp) runs
/// on chip with its producer on pixel pairs or a copied window.
inline std::string stemTripleCase(unsigned Seed) {
  Rng R(Seed * 7919 + 5);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  const unsigned Cin = Pick(1, 4), C = Pick(8, 32), S = Seed % 4 == 3 ? 1 : 2;
  const unsigned K = Seed % 5 == 2 ? 5 : 3, Sd = Seed % 3 == 1 ? 2 : 1;
  std::string Y = modelHeader(fmt::format("stem{}", Seed), Cin, Pick(9, 72), Pick(9, 72), 3);
  Y += fmt::format("  - {{name: c, type: conv, out_channels: {}, kernel: 3, stride: {}, pad: {}, "
                   "relu: true}}\n",
                   C, S, Seed % 6 == 5 ? 0 : 1);
  Y += depthwiseLayer(C, K, Sd, K / 2, Seed % 2 != 0);
  Y += fmt::format("  - {{name: p, type: conv, out_channels: {}, kernel: 1}}\n", Pick(4, 64));
  return Y;
}

/// A block triple whose stride-1 depthwise conv may read its windows in
/// quarters (LayerPlan::Quarters): a 3x3 stem of 1-24 channels of stride 1
/// or 2 (every third case a 1x1 expansion from 8-24 channels instead) into
/// 32, 64 or 96 channels, a padded 3x3 or 5x5 depthwise conv of stride 1,
/// and a projection of 4-16 channels (four pixels a step from four banks),
/// on maps 4k pixels wide (8k every other case) and 6-60 high.
inline std::string quartersCase(unsigned Seed) {
  Rng R(Seed * 6007 + 11);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  const bool Stem = Seed % 3 != 2;
  const unsigned S = Stem && Seed % 4 == 1 ? 2 : 1, C = 32 * Pick(1, 3);
  const unsigned Wo = (Seed % 2 ? 8 : 4) * Pick(2, Seed % 2 ? 8 : 14), K = Seed % 5 == 3 ? 5 : 3;
  std::string Y = modelHeader(fmt::format("quarters{}", Seed), Stem ? Pick(1, 24) : Pick(8, 24),
                              S * Pick(6, 60), S * Wo, 4);
  if (Stem)
    Y += fmt::format("  - {{name: c, type: conv, out_channels: {}, kernel: 3, stride: {}, pad: 1, "
                     "relu: true}}\n",
                     C, S);
  else
    Y += fmt::format("  - {{name: c, type: conv, out_channels: {}, kernel: 1, relu: true}}\n", C);
  Y += depthwiseLayer(C, K, 1, K / 2, Seed % 2 == 0);
  Y += fmt::format("  - {{name: p, type: conv, out_channels: {}, kernel: 1}}\n", Pick(4, 16));
  return Y;
}

/// An inverted residual block whose expansion's channels fill half output
/// groups better than whole ones (64k + 8..32 of them from 8-40 inputs,
/// every third 96 or 144 as MobileNet v2's), a padded 3x3 or 5x5 depthwise
/// conv of stride 1 or 2 and a projection of 4-64 channels, on maps of
/// 10-60 pixels a side: what a block triple runs with its expansion on
/// two pixels an entry in groups of 32 channels, the depthwise conv
/// reading each as a chunk, and (where its tiles' windows differ in
/// padding) rounds that mix them, whose zeros keep the pixel a pair entry
/// runs into (compiler FuseBlocks.cpp, Lowerer::windowWriteBack).
inline std::string wideTripleCase(unsigned Seed) {
  Rng R(Seed * 4099 + 17);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  const unsigned C = Seed % 3 == 0 ? (Seed % 2 ? 96 : 144) : 64 * Pick(0, 3) + Pick(8, 32);
  const unsigned K = Seed % 4 == 2 ? 5 : 3, S = Seed % 2 ? 2 : 1;
  std::string Y =
      modelHeader(fmt::format("widetriple{}", Seed), Pick(8, 40), Pick(10, 60), Pick(10, 60), 3);
  Y += fmt::format("  - {{name: e, type: conv, out_channels: {}, kernel: 1, relu: true}}\n", C);
  Y += depthwiseLayer(C, K, S, K / 2, true);
  Y += fmt::format("  - {{name: p, type: conv, out_channels: {}, kernel: 1}}\n", Pick(4, 64));
  return Y;
}

/// A fire module (SqueezeNet's) and the 1x1 conv after it: a 1x1 squeeze
/// "s" of 4-64 channels (3-64 input channels, maps of 3-40 pixels), a 1x1
/// "e1" and a 3x3 "e3" (pad 1) of 64 or 128 channels each reading it, every
/// third case a 5x5 "e5" (pad 2) too, their concat "cat", and 1x1 convs
/// reading the concat: one "q" of 1-100 channels (every fifth adding "s"
/// as its residual), or (every fourth case) two. The expands run on chip for the 1x1 convs where
/// the planner finds it pays (compiler FuseConcat.cpp).
inline std::string fireCase(unsigned Seed) {
  Rng R(Seed * 7919 + 41);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  std::string Y = modelHeader(fmt::format("concat{}", Seed), pickLog(R, 3, 64), Pick(3, 40),
                              Pick(3, 40), Seed + 5);
  const unsigned S = pickLog(R, 4, 64);
  Y += fmt::format("  - {{name: s, type: conv, out_channels: {}, kernel: 1, relu: true}}\n", S);
  Y += fmt::format("  - {{name: e1, type: conv, out_channels: {}, kernel: 1, relu: true}}\n"
                   "  - {{name: e3, type: conv, input: s, out_channels: {}, kernel: 3, pad: 1, "
                   "relu: true}}\n",
                   64 * Pick(1, 2), 64 * Pick(1, 2));
  const bool Five = Seed % 3 == 2;
  if (Five)
    Y += "  - {name: e5, type: conv, input: s, out_channels: 64, kernel: 5, pad: 2}\n";
  Y += fmt::format("  - {{name: cat, type: concat, inputs: [e1, e3{}]}}\n", Five ? ", e5" : "");
  // Every fifth q adds the squeeze's output (a residual older than the
  // expands).
  const bool Res = Seed % 5 == 4;
  Y += fmt::format("  - {{name: q, type: conv, out_channels: {}, kernel: 1, relu: {}}}\n",
                   Res ? S : Pick(1, 100), Seed % 2 && !Res ? "true" : "false");
  if (Res)
    Y += "  - {name: sum, type: add, inputs: [q, s], relu: true}\n";
  if (Seed % 4 == 3)
    Y += fmt::format("  - {{name: q2, type: conv, input: cat, out_channels: {}, kernel: 1}}\n"
                     "  - {{name: both, type: concat, inputs: [q, q2]}}\n",
                     Pick(1, 100));
  return Y;
}

/// A concat of two or three convs of 3 to 70 channels each (runs that start
/// or end inside DRAM bursts: ShuffleNet v2's halves), 1x1 or 3x3, read by
/// one or two convs (1x1, or 3x3 of stride 1 or 2), which the compiler may
/// lay out input by input (docs/compiler.md, step 11, "Blocked concats").
inline std::string oddConcatCase(unsigned Seed) {
  Rng R(Seed * 3571 + 19);
  auto Pick = [&](unsigned Lo, unsigned Hi) { return Lo + unsigned(R.next() % (Hi - Lo + 1)); };
  std::string Y = modelHeader(fmt::format("oddcat{}", Seed), pickLog(R, 3, 64), Pick(4, 30),
                              Pick(4, 30), Seed + 3);
  const unsigned N = Seed % 3 == 2 ? 3 : 2;
  std::string Inputs;
  for (unsigned I = 0; I < N; ++I) {
    const bool Three = Pick(0, 1);
    Y += fmt::format("  - {{name: p{}, type: conv, input: data, out_channels: {}, kernel: {}, "
                     "pad: {}, relu: true}}\n",
                     I, pickLog(R, 3, 70), Three ? 3 : 1, Three ? 1 : 0);
    Inputs += fmt::format("{}p{}", I ? ", " : "", I);
  }
  Y += fmt::format("  - {{name: cat, type: concat, inputs: [{}]}}\n", Inputs);
  // (Two readers of one shape, concatenated: the graph's one output.)
  const unsigned K = Pick(0, 2) ? 1 : 3, S = K == 3 ? Pick(1, 2) : 1;
  auto Reader = [&](const char *Name) {
    return fmt::format("  - {{name: {}, type: conv, input: cat, out_channels: {}, kernel: {}, "
                       "stride: {}, pad: {}}}\n",
                       Name, Pick(1, 100), K, S, K / 2);
  };
  Y += Reader("q");
  if (Seed % 4 == 3)
    Y += Reader("q2") + "  - {name: both, type: concat, inputs: [q, q2]}\n";
  return Y;
}

} // namespace snow::test

#endif // SNOW_TESTS_E2E_RANDOMFUSED_H
