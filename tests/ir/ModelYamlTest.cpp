//===- ModelYamlTest.cpp - Model YAML parsing and shape inference ---------===//
//
// Pins the model format of docs/model-format.md: the tiny example's shapes
// (checked by hand against PyTorch's formula), defaults, the pad and ceil_mode
// rules, and the MAC counts derived from them.
//
//===----------------------------------------------------------------------===//

#include "IrTestUtil.h"

#include <gtest/gtest.h>

using namespace snow::ir;
using namespace snow::test;

namespace {

const char *Header = "name: m\n"
                     "input: {shape: [4, 7, 7]}\n"
                     "layers:\n";

} // namespace

TEST(ModelYaml, LoadsTinyExample) {
  std::string Path = std::string(SNOW_SOURCE_DIR) + "/models/tiny.yaml";
  auto GOrErr = loadModel(Path);
  ASSERT_TRUE(bool(GOrErr)) << llvm::toString(GOrErr.takeError());
  const Graph &G = *GOrErr;
  EXPECT_EQ(G.Name, "tiny");
  EXPECT_EQ(G.InputName, "data");
  EXPECT_EQ(G.Input, (Shape{3, 32, 32}));
  EXPECT_EQ(G.Loc.str(), Path + ":1");
  ASSERT_EQ(G.Layers.size(), 3u);

  const Layer &C1 = G.Layers[0], &P1 = G.Layers[1], &C2 = G.Layers[2];
  EXPECT_EQ(C1.Name, "c1");
  EXPECT_EQ(C1.Kind, LayerKind::Conv);
  EXPECT_EQ(C1.Inputs, (std::vector<int>{-1}));
  EXPECT_EQ(C1.Loc.str(), Path + ":5");
  EXPECT_EQ(C1.In, (Shape{3, 32, 32}));
  EXPECT_EQ(C1.Out, (Shape{16, 32, 32})); // (32 + 2 - 3) / 1 + 1
  EXPECT_TRUE(C1.Relu);
  EXPECT_EQ(C1.Weights.size(), 16u * 3 * 3 * 3);
  EXPECT_EQ(C1.Bias.size(), 16u);

  EXPECT_EQ(P1.Kind, LayerKind::MaxPool);
  EXPECT_EQ(P1.Inputs, (std::vector<int>{0}));
  EXPECT_EQ(P1.Loc.Line, 6u);
  EXPECT_EQ(P1.SH, 2u);
  EXPECT_EQ(P1.Out, (Shape{16, 16, 16}));
  EXPECT_FALSE(P1.Relu);
  EXPECT_TRUE(P1.Weights.empty());

  EXPECT_EQ(C2.Inputs, (std::vector<int>{1}));
  EXPECT_EQ(C2.Loc.Line, 7u);
  EXPECT_EQ(C2.KH, 5u);
  EXPECT_EQ(C2.KW, 3u);
  EXPECT_EQ(C2.SH, 2u);
  EXPECT_EQ(C2.SW, 1u);
  EXPECT_EQ(C2.PadT, 2u);
  EXPECT_EQ(C2.PadB, 2u);
  EXPECT_EQ(C2.PadL, 1u);
  EXPECT_EQ(C2.PadR, 1u);
  EXPECT_FALSE(C2.Relu);
  // H: (16 + 4 - 5) / 2 + 1 = 8; W: (16 + 2 - 3) / 1 + 1 = 16.
  EXPECT_EQ(C2.Out, (Shape{40, 8, 16}));
  EXPECT_EQ(&G.output(), &C2);

  EXPECT_EQ(C1.macs(), 16ull * 32 * 32 * 3 * 3 * 3);
  EXPECT_EQ(P1.macs(), 0u);
  EXPECT_EQ(C2.macs(), 40ull * 8 * 16 * 16 * 5 * 3);
  EXPECT_EQ(G.macs(), C1.macs() + C2.macs());
}

TEST(ModelYaml, AppliesDefaults) {
  Graph G = parseOk("name: m\ninput: {shape: [2, 8, 8]}\nlayers:\n"
                    "  - {name: c, type: conv, out_channels: 3, kernel: 3}\n"
                    "  - {name: p, type: maxpool, kernel: 3}\n");
  EXPECT_EQ(G.InputName, "data");
  const Layer &C = G.Layers[0], &P = G.Layers[1];
  EXPECT_EQ(C.Inputs, (std::vector<int>{-1}));
  EXPECT_EQ(C.SH, 1u);
  EXPECT_EQ(C.SW, 1u);
  EXPECT_EQ(C.PadT + C.PadB + C.PadL + C.PadR, 0u);
  EXPECT_FALSE(C.Relu);
  EXPECT_EQ(C.Out, (Shape{3, 6, 6}));
  EXPECT_EQ(P.SH, 3u) << "pooling stride defaults to the kernel, as in PyTorch";
  EXPECT_EQ(P.SW, 3u);
  EXPECT_FALSE(P.CeilMode);
  EXPECT_EQ(P.Out, (Shape{3, 2, 2}));
}

TEST(ModelYaml, InputMayNameAnyEarlierLayerOrTheGraphInput) {
  Graph G = parseOk("name: m\ninput: {name: img, shape: [2, 8, 8]}\nlayers:\n"
                    "  - {name: a, type: conv, out_channels: 3, kernel: 1}\n"
                    "  - {name: b, type: conv, out_channels: 5, kernel: 1}\n"
                    "  - {name: c, type: conv, input: a, out_channels: 4, kernel: 1}\n"
                    "  - {name: d, type: maxpool, input: img, kernel: 2}\n");
  EXPECT_EQ(G.Layers[1].Inputs, (std::vector<int>{0}));
  EXPECT_EQ(G.Layers[2].input(), 0);
  EXPECT_EQ(G.Layers[2].In.C, 3u);
  EXPECT_EQ(G.Layers[3].Inputs, (std::vector<int>{-1}));
  EXPECT_EQ(G.Layers[3].Out, (Shape{2, 4, 4}));
}

TEST(ModelYaml, PadForms) {
  Graph G = parseOk(std::string(Header) +
                    "  - {name: a, type: conv, out_channels: 1, kernel: 3, pad: 2}\n"
                    "  - {name: b, type: conv, out_channels: 1, kernel: 3, pad: [1, 0]}\n"
                    "  - {name: c, type: conv, out_channels: 1, kernel: 3, pad: [1, 0, 2, 0]}\n");
  const Layer &A = G.Layers[0], &B = G.Layers[1], &C = G.Layers[2];
  EXPECT_EQ(A.PadT, 2u);
  EXPECT_EQ(A.PadR, 2u);
  EXPECT_EQ(A.Out, (Shape{1, 9, 9}));
  EXPECT_EQ(B.PadT, 1u);
  EXPECT_EQ(B.PadB, 1u);
  EXPECT_EQ(B.PadL, 0u);
  EXPECT_EQ(B.PadR, 0u);
  EXPECT_EQ(B.Out, (Shape{1, 9, 7}));
  EXPECT_EQ(C.PadT, 1u);
  EXPECT_EQ(C.PadB, 0u);
  EXPECT_EQ(C.PadL, 2u);
  EXPECT_EQ(C.PadR, 0u);
  // Asymmetric: H 9 + 1 + 0 - 3 + 1 = 8, W 7 + 2 + 0 - 3 + 1 = 7.
  EXPECT_EQ(C.Out, (Shape{1, 8, 7}));
}

TEST(ModelYaml, AsymmetricPadsOnPoolingWithStride) {
  Graph G = parseOk("name: m\ninput: {shape: [1, 6, 6]}\nlayers:\n"
                    "  - {name: p, type: maxpool, kernel: 2, stride: 2, pad: [1, 0, 0, 1]}\n");
  // H: (6 + 1 - 2) / 2 + 1 = 3; W: (6 + 1 - 2) / 2 + 1 = 3.
  EXPECT_EQ(G.Layers[0].Out, (Shape{1, 3, 3}));
  EXPECT_EQ(G.Layers[0].PadT, 1u);
  EXPECT_EQ(G.Layers[0].PadR, 1u);
}

TEST(ModelYaml, CeilModeRoundsUp) {
  const char *Text = "name: m\ninput: {shape: [8, 112, 112]}\nlayers:\n"
                     "  - {name: p, type: maxpool, kernel: 3, stride: 2, ceil_mode: %s}\n";
  char Buf[256];
  snprintf(Buf, sizeof Buf, Text, "true");
  EXPECT_EQ(parseOk(Buf).Layers[0].Out, (Shape{8, 56, 56})); // ceil(109 / 2) + 1
  snprintf(Buf, sizeof Buf, Text, "false");
  EXPECT_EQ(parseOk(Buf).Layers[0].Out, (Shape{8, 55, 55})); // floor(109 / 2) + 1
}

TEST(ModelYaml, CeilModeDropsAWindowStartingInThePadding) {
  // in 5, k 2, s 2, pad 1: ceil(5 / 2) + 1 = 4 windows, but the 4th would start
  // at padded index 6 = in + pad_begin, inside the end padding: dropped.
  Graph G = parseOk("name: m\ninput: {shape: [1, 5, 6]}\nlayers:\n"
                    "  - {name: p, type: maxpool, kernel: 2, stride: 2, pad: 1, "
                    "ceil_mode: true}\n");
  EXPECT_EQ(G.Layers[0].Out.H, 3u);
  // in 6: ceil(6 / 2) + 1 = 4, the 4th window starts at 6 < 7: kept.
  EXPECT_EQ(G.Layers[0].Out.W, 4u);
}

TEST(ModelYaml, WindowOutSizeFollowsPyTorch) {
  EXPECT_EQ(windowOutSize(32, 3, 1, 1, 1, false), 32u);
  EXPECT_EQ(windowOutSize(112, 3, 2, 0, 0, false), 55u);
  EXPECT_EQ(windowOutSize(112, 3, 2, 0, 0, true), 56u);
  EXPECT_EQ(windowOutSize(5, 2, 2, 1, 1, true), 3u);
  EXPECT_EQ(windowOutSize(5, 1, 3, 0, 0, true), 2u) << "stride past the input end";
  EXPECT_EQ(windowOutSize(3, 5, 1, 0, 0, false), 0u) << "kernel larger than padded input";
  EXPECT_EQ(windowOutSize(3, 5, 1, 1, 1, false), 1u);
}

TEST(ModelYaml, KeysInBlockStyleAndCommentsWork) {
  Graph G = parseOk("# a comment\n"
                    "name: block\n"
                    "input:\n"
                    "  name: x\n"
                    "  shape: [1, 4, 4]\n"
                    "layers:\n"
                    "  - name: c\n"
                    "    type: conv\n"
                    "    out_channels: 2\n"
                    "    kernel: [3, 1]\n"
                    "    bias: false\n");
  ASSERT_EQ(G.Layers.size(), 1u);
  EXPECT_EQ(G.Layers[0].Loc.Line, 7u);
  EXPECT_EQ(G.Layers[0].Out, (Shape{2, 2, 4}));
  EXPECT_EQ(G.Layers[0].Bias, std::vector<float>(2, 0.0f));
}
