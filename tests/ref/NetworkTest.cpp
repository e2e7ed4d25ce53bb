//===- NetworkTest.cpp - A small network of every canonical kind ----------===//
//
// The end-to-end sanity check of the new semantics: a hand-built network with
// grouped and depthwise convs, a fused residual, pooling of both kinds, concat,
// an unfused add, a relu and a classifier conv, quantized by the front end's
// quantize(), must come out of the fixed path within a few LSB of the float
// path. The hand-computed tests pin each rule; this one catches a rule that is
// right alone but wired wrongly into a graph (an input index, a residual
// format, a concat offset).
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"
#include "snow/ir/FloatEval.h"
#include "snow/ref/ErrorStats.h"
#include "snow/ref/Reference.h"
#include "snow/support/Rng.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace snow;
using snow::ir::LayerKind;
using snow::ir::Shape;

namespace {

class Builder {
public:
  ir::Graph G;
  explicit Builder(Shape In) : R(11) {
    G.Name = "every-kind";
    G.Input = In;
  }

  int conv(int Input, unsigned OutC, unsigned K, unsigned Stride, unsigned Groups, bool Relu,
           double Range, int Residual = -2) {
    ir::Layer L = layer(LayerKind::Conv, {Input});
    L.KH = L.KW = K;
    L.SH = L.SW = Stride;
    L.PadT = L.PadB = L.PadL = L.PadR = K / 2;
    L.Groups = Groups;
    L.Relu = Relu;
    L.Out = {OutC, ref::windowOutputSize(L.In.H, K, Stride, K / 2, K / 2, false),
             ref::windowOutputSize(L.In.W, K, Stride, K / 2, K / 2, false)};
    for (uint64_t I = 0; I < uint64_t(OutC) * (L.In.C / Groups) * K * K; ++I)
      L.Weights.push_back(float(R.uniform(-Range, Range)));
    for (unsigned I = 0; I < OutC; ++I)
      L.Bias.push_back(float(R.uniform(-0.1, 0.1)));
    if (Residual != -2) {
      L.HasResidual = true;
      L.Residual = Residual;
    }
    return push(L);
  }

  int pool(int Input, LayerKind Kind, unsigned K, unsigned Stride, unsigned Pad) {
    ir::Layer L = layer(Kind, {Input});
    L.KH = L.KW = K;
    L.SH = L.SW = Stride;
    L.PadT = L.PadB = L.PadL = L.PadR = Pad;
    L.Out = {L.In.C, ref::windowOutputSize(L.In.H, K, Stride, Pad, Pad, false),
             ref::windowOutputSize(L.In.W, K, Stride, Pad, Pad, false)};
    return push(L);
  }

  int join(LayerKind Kind, std::vector<int> Inputs, bool Relu = false) {
    ir::Layer L = layer(Kind, Inputs);
    L.Out = L.In;
    if (Kind == LayerKind::Concat) {
      L.Out.C = 0;
      for (int P : Inputs)
        L.Out.C += shapeOf(P).C;
    }
    L.Relu = Relu;
    return push(L);
  }

private:
  Rng R;
  const Shape &shapeOf(int P) const { return P < 0 ? G.Input : G.Layers[P].Out; }
  ir::Layer layer(LayerKind Kind, std::vector<int> Inputs) {
    ir::Layer L;
    L.Name = "l" + std::to_string(G.Layers.size());
    L.Kind = Kind;
    L.Inputs = std::move(Inputs);
    L.In = shapeOf(L.input());
    return L;
  }
  int push(const ir::Layer &L) {
    G.Layers.push_back(L);
    return int(G.Layers.size()) - 1;
  }
};

ir::Graph everyKind() {
  Builder B({4, 12, 12});
  int Stem = B.conv(-1, 8, 3, 1, 1, true, 0.2);                   // 8x12x12
  int Dw = B.conv(Stem, 8, 3, 1, 8, true, 0.3);                   // depthwise
  int Res = B.conv(Dw, 8, 1, 1, 2, true, 0.3, /*Residual=*/Stem); // grouped + residual
  int Max = B.pool(Res, LayerKind::MaxPool, 3, 2, 1);             // 8x6x6
  int Side = B.conv(Max, 4, 3, 1, 4, false, 0.3);                 // g = 4: 8 -> 4
  int Cat = B.join(LayerKind::Concat, {Side, Max});               // 12x6x6
  int Sum = B.join(LayerKind::Add, {Cat, Cat});
  int Act = B.join(LayerKind::Relu, {Sum});
  int Avg = B.pool(Act, LayerKind::AvgPool, 3, 1, 1); // K = 9, padded
  int Gap = B.pool(Avg, LayerKind::AvgPool, 6, 6, 0); // global, K = 36
  B.conv(Gap, 5, 1, 1, 1, false, 0.3);                // the classifier
  return B.G;
}

TEST(RefNetwork, EveryKindFixedAgreesWithFloat) {
  ir::Graph G = everyKind();
  ir::quantize(G, 8);
  if (llvm::Error E = ref::verifyGraph(G))
    FAIL() << llvm::toString(std::move(E));

  // Input on the Q8.8 grid, so input quantization is not part of the error.
  const auto [Fixed, Float] = test::q88Input(G.Input.elems(), 5);
  std::vector<std::vector<int16_t>> FixedLayers;
  std::vector<std::vector<float>> FloatLayers;
  ref::runFixed(G, Fixed, 48, &FixedLayers);
  ir::runFloat(G, Float, &FloatLayers);
  ASSERT_EQ(FixedLayers.size(), G.Layers.size());
  ASSERT_EQ(FloatLayers.size(), G.Layers.size());

  // Every layer, not just the output: the roundings add up to about 2 LSB
  // (0.5 per conv, pooling and the classifier amplify them little with
  // weights this small), while a wiring error is off by whole values.
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const ir::Layer &L = G.Layers[I];
    ref::ErrorStats S = ref::compareToFloat(FixedLayers[I], L.OutFrac, FloatLayers[I]);
    EXPECT_EQ(S.Saturated, 0u) << L.Name;
    EXPECT_GT(S.FloatRms, 0.01) << L.Name << " should not collapse to zero";
    EXPECT_LT(S.MaxAbsError, 4.0 / 256) << L.Name << " (" << ir::kindName(L.Kind) << ")";
  }
}

} // namespace
