//===- SharedModels.h - Small models the e2e and RTL tests share --*- C++ -*-===//
//
// A case that tests/e2e checks bit-exact against the reference and
// tests/rtl co-simulates on the RTL reads its model from here, so both run
// the same program.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_SUPPORT_SHAREDMODELS_H
#define SNOW_TESTS_SUPPORT_SHAREDMODELS_H

#include <string>

namespace snow::test {

/// MobileNet's first layers (its layers only, for a header of any size): a
/// 32-channel 3x3 stride-2 stem computing the depthwise conv's windows, a
/// 1x1 conv computing the stride-2 depthwise conv's, and a 1x1 conv
/// (docs/compiler.md, steps 4 and 9d).
inline const char *const StemLayers =
    R"(  - {name: c1, type: conv, out_channels: 32, kernel: 3, stride: 2, pad: 1, relu: true}
  - {name: d, type: conv, out_channels: 32, kernel: 3, pad: 1, groups: 32, relu: true}
  - {name: p, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: d2, type: conv, out_channels: 64, kernel: 3, stride: 2, pad: 1, groups: 64, relu: true}
  - {name: p2, type: conv, out_channels: 128, kernel: 1, relu: true}
)";

/// EfficientNet-B0's blocks 3 and 4 in small (its layers only, for a header
/// of 24 channels and any size): c, then e computing its depthwise conv's
/// windows as a block triple with d and p, then e2 likewise after p, each
/// window waiting for the rows of the layer before it reads
/// (docs/compiler.md, step 9, window producers started on rows).
inline const char *const WindowTriplesLayers =
    R"(  - {name: c, type: conv, out_channels: 24, kernel: 3, pad: 1, relu: true}
  - {name: e, type: conv, out_channels: 144, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 144, kernel: 3, pad: 1, groups: 144, relu: true}
  - {name: p, type: conv, out_channels: 24, kernel: 1}
  - {name: e2, type: conv, out_channels: 144, kernel: 1, relu: true}
  - {name: d2, type: conv, out_channels: 144, kernel: 3, stride: 2, pad: 1, groups: 144, relu: true}
  - {name: p2, type: conv, out_channels: 32, kernel: 1}
)";

/// MobileNet v2's blocks 3 and 4 in small (its layers only, for a header of
/// 24 channels and any size): e, d and p a block triple, p's residual the
/// block's input, whose residuals load under its groups of tiles; then e2,
/// d2 and p2 another, started on p's rows, whose first windows load over
/// the first's last group (docs/compiler.md, step 9f).
inline const char *const ResidualTriplesLayers =
    R"(  - {name: e, type: conv, out_channels: 144, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 144, kernel: 3, pad: 1, groups: 144, relu: true}
  - {name: p, type: conv, out_channels: 24, kernel: 1}
  - {name: a, type: add, inputs: [p, data]}
  - {name: e2, type: conv, out_channels: 144, kernel: 1, relu: true}
  - {name: d2, type: conv, out_channels: 144, kernel: 3, stride: 2, pad: 1, groups: 144, relu: true}
  - {name: p2, type: conv, out_channels: 32, kernel: 1}
)";

/// Two inverted residual blocks of stride 1, C -> E -> C channels, the
/// second's residual the first's output (for a header of C channels).
inline std::string residualBlocksLayers(unsigned E, unsigned C) {
  const std::string Exp = std::to_string(E), Out = std::to_string(C);
  std::string Yaml;
  for (const char *B : {"", "2"}) {
    const std::string N = B;
    Yaml += "  - {name: e" + N + ", type: conv, out_channels: " + Exp +
            ", kernel: 1, relu: true}\n"
            "  - {name: d" +
            N + ", type: conv, out_channels: " + Exp + ", kernel: 3, pad: 1, groups: " + Exp +
            ", relu: true}\n"
            "  - {name: p" +
            N + ", type: conv, out_channels: " + Out +
            ", kernel: 1}\n"
            "  - {name: a" +
            N + ", type: add, inputs: [p" + N + ", " + (N.empty() ? "data" : "a") + "]}\n";
  }
  return Yaml;
}

/// MobileNet v2's blocks 12 and 13 (14x14, 96 -> 576 -> 96, their
/// residuals): on zc706 each expansion runs alone on four 7x7 tiles, its
/// depthwise conv and projection as a pair on the same tiles; the second
/// expansion e2 reads the first block's output (p's, after its residual)
/// where p's writeback wrote it into e2's input region, and each
/// depthwise conv each CU's tile of its expansion where that wrote it
/// into its window (CompileOptions::FeedNext), instead of loading them.
inline const std::string FedBlocksLayers = residualBlocksLayers(576, 96);

/// MobileNet v2's blocks 8 and 9 (14x14, 64 -> 384 -> 64, their
/// residuals): on zc706 two block triples on four 7x7 tiles, each
/// expansion computing its depthwise conv's 9x9 windows; p's writeback
/// writes each CU's tile into that CU's window of e2 too
/// (CompileOptions::FeedNext), whose first step then loads only the rest
/// of each window (the rows and columns of the tiles beside it).
inline const std::string FedTriplesLayers = residualBlocksLayers(384, 64);

/// MobileNet v2's last block and conv_last (7x7, 160 -> 960 -> 320, then
/// 1,280 channels and the global pool; for a header of 160 channels): on
/// zc706 the block a split triple, whose projection p loads a 64-word block
/// a step into the bottom of each half of every vMAC's weights buffer, and
/// c a conv whose first round needs a group's 320 words a vMAC on each CU.
inline const char *const TailLayers =
    R"(  - {name: e, type: conv, out_channels: 960, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 960, kernel: 3, pad: 1, groups: 960, relu: true}
  - {name: p, type: conv, out_channels: 320, kernel: 1}
  - {name: c, type: conv, out_channels: 1280, kernel: 1, relu: true}
  - {name: pool, type: global_avgpool}
)";

/// Two ResNet bottleneck ends in small: a3, a 1x1 conv with the block's
/// input as its residual, whose output the next block's first conv b1 (a
/// 1x1 conv) reads, and the next residual add too. On zc706 a3 runs as a
/// dense fused producer (docs/compiler.md, step 9b, "dense producers"):
/// each output group stored and written again into the area, which b1
/// reads instead of loading a3's output, and a3's residual tile loaded
/// with its maps into its full-depth region, vpre reading it there
/// (242,150 -> 235,523 cycles).
inline const char *const DensePairYaml = R"(name: densepair
input: {name: data, shape: [256, 28, 28]}
weights: {seed: 5}
layers:
  - {name: a1, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: a3, type: conv, out_channels: 256, kernel: 1}
  - {name: add1, type: add, inputs: [a3, data]}
  - {name: r1, type: relu}
  - {name: b1, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: b3, type: conv, out_channels: 256, kernel: 1}
  - {name: add2, type: add, inputs: [b3, r1]}
  - {name: r2, type: relu}
)";

/// A fire module in small: a 1x1 and a 3x3 expand whose concat only the
/// next squeeze q (16 channels) reads. On zc706 they run as a concat pair
/// (docs/compiler.md, step 9g): the expands write their channels of the
/// concat into the area, q reads it four pixels a step from four banks
/// (step 9h), and only q's output is stored.
inline const char *const FirePairYaml = R"(name: batchfire
input: {name: data, shape: [16, 30, 27]}
weights: {seed: 8}
layers:
  - {name: e1, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: e3, type: conv, input: data, out_channels: 64, kernel: 3, pad: 1, relu: true}
  - {name: cat, type: concat, inputs: [e1, e3]}
  - {name: q, type: conv, out_channels: 16, kernel: 1, relu: true}
)";

/// Block triples whose projection p (16 and 12 channels) reads its tile
/// four pixels a step from four banks across both input regions (docs/
/// compiler.md, step 9h): a stem, its pool and p (SqueezeNet's conv1,
/// pool1 and fire2's squeeze), and an inverted residual block whose 8x8
/// map is one round, its expansion loading into one region only
/// (Step::TakeOther).
inline const char *const FourBankPoolYaml = R"(name: pool4
input: {name: data, shape: [3, 63, 63]}
weights: {seed: 5}
layers:
  - {name: c, type: conv, out_channels: 64, kernel: 3, stride: 2, relu: true}
  - {name: d, type: maxpool, kernel: 3, stride: 2}
  - {name: p, type: conv, out_channels: 16, kernel: 1, relu: true}
)";
/// A block triple whose expansion c traces two pixels a step from a copy of
/// its window while its projection p reads four (docs/compiler.md, step 9h,
/// "a copied producer"): the second region's window's copy lands in the
/// second output region, which x's last tiles are still being stored from
/// when it is first written (Lowerer::compute waits for them).
inline const char *const CopiedFourBankYaml = R"(name: copy4
input: {name: data, shape: [8, 48, 48]}
weights: {seed: 5}
layers:
  - {name: x, type: conv, out_channels: 16, kernel: 3, pad: 1, relu: true}
  - {name: c, type: conv, out_channels: 32, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 32, kernel: 3, pad: 1, groups: 32, relu: true}
  - {name: p, type: conv, out_channels: 16, kernel: 1}
)";
/// A concat of two 29-channel convs (ShuffleNet v2's stage-2 halves), read
/// by a 1x1 conv: laid out input by input (docs/compiler.md, step 11,
/// "Blocked concats"), each input a tensor of its own.
inline const char *const BlockedConcatYaml = R"(name: blocked
input: {name: data, shape: [58, 28, 28]}
weights: {seed: 5}
layers:
  - {name: a, type: conv, input: data, out_channels: 29, kernel: 1, relu: true}
  - {name: b, type: conv, input: data, out_channels: 29, kernel: 3, pad: 1, relu: true}
  - {name: cat, type: concat, inputs: [a, b]}
  - {name: c, type: conv, out_channels: 58, kernel: 1}
)";
inline const char *const FourBankRoundYaml = R"(name: round4
input: {name: data, shape: [16, 8, 8]}
weights: {seed: 8}
layers:
  - {name: c, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 64, kernel: 3, pad: 1, groups: 64, relu: true}
  - {name: p, type: conv, out_channels: 12, kernel: 1}
)";

/// GoogLeNet's inception block 3b and pool3 in small (pool3 pooled branch
/// by branch, docs/model-format.md step 7a). At a batch its 3x3 conv b
/// hosts two pools (docs/compiler.md, step 9a, "two pools"): the block's
/// branch pool bp, of the block's input, and the part p[32:160] of the
/// next max pool that pools b's own output, which waits for b's rows. And
/// b writes an output group once in four steps (chunks of 32 of its 128
/// input channels): too few places for both pools' steps, which go between
/// its chunks too ("between chunks").
inline const char *const TwoPoolsYaml = R"(name: twopools
input: {name: data, shape: [256, 28, 28]}
weights: {seed: 6}
layers:
  - {name: a, type: conv, input: data, out_channels: 32, kernel: 1, relu: true}
  - {name: r, type: conv, input: data, out_channels: 128, kernel: 1, relu: true}
  - {name: b, type: conv, out_channels: 128, kernel: 3, pad: 1, relu: true}
  - {name: bp, type: maxpool, input: data, kernel: 3, stride: 1, pad: 1}
  - {name: pp, type: conv, out_channels: 32, kernel: 1, relu: true}
  - {name: cat, type: concat, inputs: [a, b, pp]}
  - {name: p, type: maxpool, kernel: 3, stride: 2, ceil_mode: true}
  - {name: c, type: conv, out_channels: 32, kernel: 1, relu: true}
)";

/// GoogLeNet's 5x5 branch and its part of pool3 in small: c is planned in
/// two parts without copied windows (its first 64 output channels, then
/// the other 32 with two pixels a trace, c[64:96]; with them, whole, two
/// pixels a trace), and at a batch of four the part p[32:128] of
/// the max pool of the concat, which pools c's output into the concat's
/// tensor (docs/model-format.md step 7a), runs beside c's last part
/// (docs/compiler.md, step 9a, "two pools"): c[0:64]'s rows are stored
/// before c[64:96] starts, and p[32:128] waits for the rows c[64:96]
/// stores.
inline const char *const LastPartPoolYaml = R"(name: lastpart
input: {name: data, shape: [16, 28, 28]}
weights: {seed: 3}
layers:
  - {name: a, type: conv, input: data, out_channels: 32, kernel: 1, relu: true}
  - {name: c, type: conv, input: data, out_channels: 96, kernel: 5, pad: 2, relu: true}
  - {name: cat, type: concat, inputs: [a, c]}
  - {name: p, type: maxpool, kernel: 3, stride: 2, ceil_mode: true}
  - {name: q, type: conv, out_channels: 32, kernel: 1, relu: true}
)";

/// Full-depth producers of several groups of tiles (docs/compiler.md, step
/// 9b, "full-depth groups"): a max pool of 480 channels (eight chunks) and a
/// depthwise conv of 256 (four) on 28x28 maps, each fused with its 1x1
/// conv; each group's tile loads whole into one input region while the
/// group before runs its 1x1 steps on the area in the other.
inline const char *const FullDepthGroupsYaml = R"(name: fdg
input: {name: data, shape: [64, 28, 28]}
weights: {seed: 2}
layers:
  - {name: c, type: conv, out_channels: 480, kernel: 1, relu: true}
  - {name: mp, type: maxpool, kernel: 3, stride: 1, pad: 1}
  - {name: pp, type: conv, out_channels: 64, kernel: 1, relu: true}
  - {name: e, type: conv, out_channels: 256, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 256, kernel: 3, pad: 1, groups: 256, relu: true}
  - {name: q, type: conv, out_channels: 128, kernel: 1}
)";

} // namespace snow::test

#endif
