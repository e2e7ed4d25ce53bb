//===- FloatEvalTest.cpp - The float path of the front end ----------------===//
//
// ir::runFloat is what calibration measures ranges with and what snowref's
// quantization report compares against, so its semantics are pinned here on
// values worked out by hand (tests/ref pins each kind again next to the fixed
// path), and checkFloatGraph must turn every graph it would misread into an
// error naming the layer instead.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/FloatEval.h"

#include "snow/support/Rng.h"
#include <bit>
#include <cmath>
#include <gtest/gtest.h>

using namespace snow::ir;

namespace {

Layer layer(const std::string &Name, LayerKind Kind, std::vector<int> Inputs, Shape In, Shape Out) {
  Layer L;
  L.Name = Name;
  L.Loc = {"f.yaml", 3};
  L.Kind = Kind;
  L.Inputs = std::move(Inputs);
  L.In = In;
  L.Out = Out;
  return L;
}

std::string checkError(const Graph &G, uint64_t InputElems) {
  llvm::Error E = checkFloatGraph(G, InputElems);
  return E ? llvm::toString(std::move(E)) : std::string("no error");
}

/// The convolution as documented, one output at a time: bias, residual, then
/// the taps by input channel, kernel row, kernel column, skipping padding.
std::vector<float> plainConv(const Layer &L, const std::vector<float> &In,
                             const std::vector<float> *Residual) {
  const unsigned InPerGroup = L.In.C / L.Groups, OutPerGroup = L.Out.C / L.Groups;
  std::vector<float> Out;
  for (unsigned Oc = 0; Oc < L.Out.C; ++Oc)
    for (unsigned Oy = 0; Oy < L.Out.H; ++Oy)
      for (unsigned Ox = 0; Ox < L.Out.W; ++Ox) {
        double Acc = L.Bias.empty() ? 0.0 : double(L.Bias[Oc]);
        if (Residual)
          Acc += double((*Residual)[Out.size()]);
        for (unsigned I = 0; I < InPerGroup; ++I)
          for (unsigned Ky = 0; Ky < L.KH; ++Ky)
            for (unsigned Kx = 0; Kx < L.KW; ++Kx) {
              const int64_t Iy = int64_t(Oy) * L.SH - L.PadT + Ky;
              const int64_t Ix = int64_t(Ox) * L.SW - L.PadL + Kx;
              if (Iy < 0 || Iy >= L.In.H || Ix < 0 || Ix >= L.In.W)
                continue;
              const size_t Ic = Oc / OutPerGroup * InPerGroup + I;
              Acc += double(In[(Ic * L.In.H + Iy) * L.In.W + Ix]) *
                     double(L.Weights[((size_t(Oc) * InPerGroup + I) * L.KH + Ky) * L.KW + Kx]);
            }
        Out.push_back(float(L.Relu ? std::max(Acc, 0.0) : Acc));
      }
  return Out;
}

} // namespace

TEST(FloatEval, ConvSumsInTheDocumentedOrderBitForBit) {
  // runFloat's convolution is blocked, vectorized and threaded for speed;
  // calibration must still see exactly the plain loop's floats. Geometries
  // cover padding on each side, strides, windows past the input (ceil
  // mode), groups wide and narrow (depthwise), a channel count that is not a
  // multiple of the vector blocks, sums longer than one slice of the
  // blocked loop, and an fc-like kernel covering the whole input.
  struct Case {
    unsigned InC, OutC, H, W, KH, KW, SH, SW, PadT, PadB, PadL, PadR, Groups;
    bool Residual, Bias, Relu;
  };
  const Case Cases[] = {
      {20, 20, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, true, true},
      {3, 16, 15, 13, 7, 7, 2, 2, 3, 3, 3, 3, 1, false, true, true},
      {300, 300, 3, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1, true, false, false},
      {40, 12, 9, 9, 1, 1, 2, 2, 0, 0, 0, 0, 1, false, true, false},
      {10, 9, 8, 7, 3, 2, 2, 3, 1, 2, 0, 2, 1, false, true, true},
      {8, 8, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 2, true, true, false},
      {6, 6, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1, 6, false, true, true},
      {30, 10, 6, 5, 6, 5, 1, 1, 0, 0, 0, 0, 1, false, true, false},
      {64, 13, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, false, true, true},
  };
  snow::Rng R(42);
  // Values with zeros of both signs, which the padding must not touch.
  auto Value = [&] {
    const double U = R.uniform();
    return U < 0.05 ? -0.0f : U < 0.1 ? 0.0f : float(R.uniform(-2, 2));
  };
  for (const Case &C : Cases) {
    Graph G;
    G.Input = {C.InC, C.H, C.W};
    // One more output row and column than the padded input holds in full:
    // windows there lie partly or wholly beyond it.
    const Shape Out = {C.OutC, (C.H + C.PadT + C.PadB - C.KH) / C.SH + 1 + (C.SH > 1),
                       (C.W + C.PadL + C.PadR - C.KW) / C.SW + 1 + (C.SW > 1)};
    Layer L = layer("c", LayerKind::Conv, {-1}, G.Input, Out);
    L.KH = C.KH, L.KW = C.KW, L.SH = C.SH, L.SW = C.SW;
    L.PadT = C.PadT, L.PadB = C.PadB, L.PadL = C.PadL, L.PadR = C.PadR;
    L.Groups = C.Groups;
    L.Relu = C.Relu;
    L.Weights.resize(size_t(C.OutC) * (C.InC / C.Groups) * C.KH * C.KW);
    for (float &W : L.Weights)
      W = Value();
    if (C.Bias)
      for (unsigned Oc = 0; Oc < C.OutC; ++Oc)
        L.Bias.push_back(Value());
    std::vector<float> In(G.Input.elems());
    for (float &X : In)
      X = Value();
    if (C.Residual) {
      ASSERT_EQ(In.size(), Out.elems());
      L.HasResidual = true;
      L.Residual = -1;
    }
    G.Layers = {L};
    ASSERT_FALSE(bool(checkFloatGraph(G, In.size())));
    const std::vector<float> Want = plainConv(L, In, C.Residual ? &In : nullptr);
    const std::vector<float> Got = runFloat(G, In);
    ASSERT_EQ(Got.size(), Want.size());
    for (size_t I = 0; I < Want.size(); ++I)
      ASSERT_EQ(std::bit_cast<uint32_t>(Got[I]), std::bit_cast<uint32_t>(Want[I]))
          << "output " << I << " of the " << C.KH << "x" << C.KW << " conv, " << C.InC << " -> "
          << C.OutC << " channels: " << Got[I] << " vs " << Want[I];
  }
}

TEST(FloatEval, PoolsConcatReluAndAddOnAPaddedWindow) {
  // Input 1x2x2 = ((1, -2), (3, 4)). 2x2 windows, stride 1, padding 1 at the
  // bottom and right: the max pool sees -inf padding, the average pool
  // divides by the whole window (4), padding included as 0.
  Graph G;
  G.Input = {1, 2, 2};
  Layer Max = layer("max", LayerKind::MaxPool, {-1}, G.Input, G.Input);
  Max.KH = Max.KW = 2;
  Max.PadB = Max.PadR = 1;
  Layer Avg = Max;
  Avg.Name = "avg";
  Avg.Kind = LayerKind::AvgPool;
  G.Layers = {Max, Avg, layer("relu", LayerKind::Relu, {-1}, G.Input, G.Input),
              layer("cat", LayerKind::Concat, {0, 2}, G.Input, {2, 2, 2}),
              layer("sum", LayerKind::Add, {1, -1}, G.Input, G.Input)};
  G.Layers[4].Relu = true;
  std::vector<std::vector<float>> Outs;
  const std::vector<float> Out = runFloat(G, {1, -2, 3, 4}, &Outs);
  ASSERT_EQ(Outs.size(), 5u);
  EXPECT_EQ(Outs[0], (std::vector<float>{4, 4, 4, 4}));
  EXPECT_EQ(Outs[1], (std::vector<float>{1.5f, 0.5f, 1.75f, 1}));
  EXPECT_EQ(Outs[2], (std::vector<float>{1, 0, 3, 4}));
  EXPECT_EQ(Outs[3], (std::vector<float>{4, 4, 4, 4, 1, 0, 3, 4})) << "channels in input order";
  EXPECT_EQ(Out, (std::vector<float>{2.5f, 0, 4.75f, 5})) << "add, then its relu";
  EXPECT_EQ(Out, Outs.back());
}

TEST(FloatEval, GroupedConvWithResidual) {
  // Two groups of one channel, 1x1 kernels 2 and -1, bias 0.5 and 0, plus
  // the input itself as the residual.
  Graph G;
  G.Input = {2, 1, 1};
  Layer C = layer("c", LayerKind::Conv, {-1}, G.Input, G.Input);
  C.Groups = 2;
  C.Weights = {2, -1};
  C.Bias = {0.5f, 0};
  C.HasResidual = true;
  C.Residual = -1;
  G.Layers = {C};
  EXPECT_EQ(runFloat(G, {3, 10}), (std::vector<float>{9.5f, 0}));
}

TEST(FloatEval, CheckNamesTheLayerItWouldMisread) {
  Graph G;
  G.Name = "m";
  G.Input = {1, 2, 2};
  Layer C = layer("c", LayerKind::Conv, {-1}, G.Input, G.Input);
  C.Weights = {1};
  G.Layers = {C};
  EXPECT_EQ(checkError(G, 4), "no error");
  EXPECT_EQ(checkError(G, 3), "model 'm': input has 3 values, the model expects 4");
  G.Layers[0].Weights.clear();
  EXPECT_EQ(checkError(G, 4), "f.yaml:3: layer 'c': has 0 float weights, expected 1");
  G.Layers[0].Weights = {1};
  G.Layers[0].Bias = {1, 2};
  EXPECT_EQ(checkError(G, 4), "f.yaml:3: layer 'c': has 2 biases, expected 1");
  G.Layers[0].Bias.clear();
  G.Layers[0].Inputs = {0};
  EXPECT_EQ(checkError(G, 4), "f.yaml:3: layer 'c': input 0 is not an earlier layer");
  G.Layers[0] = layer("bn", LayerKind::BatchNorm, {-1}, G.Input, G.Input);
  EXPECT_NE(checkError(G, 4).find("run ir::canonicalize first"), std::string::npos);
  G.Layers[0] = layer("cat", LayerKind::Concat, {-1, -1}, G.Input, {3, 2, 2});
  EXPECT_EQ(checkError(G, 4), "f.yaml:3: layer 'cat': inputs hold 8 values, the output 12");
  G.Layers[0] = layer("r", LayerKind::Relu, {-1}, {1, 1, 2}, {1, 1, 2});
  EXPECT_EQ(checkError(G, 4), "f.yaml:3: layer 'r': input holds 4 values, the layer's input "
                              "shape 2");
}
