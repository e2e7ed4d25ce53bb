//===- CalibrateTest.cpp - The per-layer format rule on hand-built graphs --===//
//
// Pins docs/fixed-point.md, "Choosing formats": the 1.25x headroom and the
// cap at 15 fraction bits, the groups that pooling, relu, add and concat tie
// together, the graph input's group pinned to the hardware's format, the
// conv shift bound (applied until nothing changes), the errors for what
// cannot be met, and quantize()'s checks of whatever formats it is given.
// chooseFormats() is fed made-up layer ranges, so each case controls exactly
// what every layer wants; one case goes through calibrate()'s float run.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Calibrate.h"
#include "snow/ir/FloatEval.h"

#include <gtest/gtest.h>

using namespace snow::ir;

namespace {

/// A layer for the format rule: only the kind, the inputs and, for a conv,
/// the largest weight magnitude (which fixes WFrac) matter to it.
Layer layer(const std::string &Name, LayerKind Kind, std::vector<int> Inputs, float MaxW = 0.5f) {
  Layer L;
  L.Name = Name;
  L.Loc = {"calib.yaml", 1};
  L.Kind = Kind;
  L.Inputs = std::move(Inputs);
  if (Kind == LayerKind::Conv)
    L.Weights = {MaxW, -MaxW / 2};
  return L;
}

Graph graph(std::vector<Layer> Layers) {
  Graph G;
  G.Name = "calib";
  G.Input = {1, 1, 1};
  G.Layers = std::move(Layers);
  return G;
}

/// Float outputs whose largest magnitudes are Max (one value per layer).
std::vector<std::vector<float>> ranges(std::vector<float> Max) {
  std::vector<std::vector<float>> Outs;
  for (float M : Max)
    Outs.push_back({M / 2, -M});
  return Outs;
}

std::vector<int> formats(const Graph &G, int ActFrac, std::vector<float> Max) {
  llvm::Expected<ActFormats> F = chooseFormats(G, ActFrac, ranges(std::move(Max)));
  if (!F) {
    ADD_FAILURE() << llvm::toString(F.takeError());
    return {};
  }
  EXPECT_EQ(F->InputFrac, ActFrac) << "the graph input keeps the hardware's format";
  return F->OutFrac;
}

std::string errorOf(const Graph &G, int ActFrac, std::vector<float> Max) {
  llvm::Expected<ActFormats> F = chooseFormats(G, ActFrac, ranges(std::move(Max)));
  if (F)
    return "no error";
  return llvm::toString(F.takeError());
}

} // namespace

TEST(Calibrate, EachConvGetsTheFormatOfItsRangeWithHeadroom) {
  // Four convs on the input (InFrac 8 + WFrac 15 = 23 bounds nothing here).
  Graph G = graph({layer("a", LayerKind::Conv, {-1}), layer("b", LayerKind::Conv, {-1}),
                   layer("c", LayerKind::Conv, {-1}), layer("d", LayerKind::Conv, {-1})});
  // 100 -> 125 fits Q7.8 (32000); 110 would fit Q7.8 too, but 1.25 * 110 =
  // 137.5 does not (35200), so Q8.7; 0.1 and 0 would take more than 15 bits.
  EXPECT_EQ(formats(G, 8, {100, 110, 0.1f, 0}), (std::vector<int>{8, 7, 15, 15}));
  EXPECT_EQ(formats(G, 3, {1, 3e4f, 1e6f, 0.7f}), (std::vector<int>{14, 0, 0, 15}))
      << "1.25 -> Q1.14; beyond Q15.0 nothing fits, and 0 fraction bits is all there is";
}

TEST(Calibrate, PoolConcatAndAddShareOneFormatPerGroup) {
  Graph G = graph({
      layer("a", LayerKind::Conv, {-1}),       // 0: wants 14 (1.0)
      layer("b", LayerKind::Conv, {-1}),       // 1: wants 8 (100)
      layer("cat", LayerKind::Concat, {0, 1}), // 2: {a, b, cat, pool}
      layer("pool", LayerKind::MaxPool, {2}),  // 3
      layer("c", LayerKind::Conv, {3}),        // 4: wants 14 (1.0)
      layer("d", LayerKind::Conv, {3}),        // 5: wants 11 (10.0)
      layer("sum", LayerKind::Add, {4, 5}),    // 6: {c, d, sum}
      layer("avg", LayerKind::AvgPool, {6}),   // 7: {avg, r}: it rescales, wants 12 (5.0)
      layer("r", LayerKind::Relu, {7}),        // 8
      layer("e", LayerKind::Conv, {8}),        // 9: alone, wants 15 (0.5)
  });
  EXPECT_EQ(formats(G, 8, {1, 100, 100, 100, 1, 10, 11, 5, 5, 0.5f}),
            (std::vector<int>{8, 8, 8, 8, 11, 11, 11, 12, 12, 15}))
      << "a group takes the fewest fraction bits any member needs";
}

TEST(Calibrate, TheInputGroupKeepsTheHardwareFormat) {
  Graph G = graph({
      layer("pool", LayerKind::MaxPool, {-1}), // 0: wants 15, pinned to 8
      layer("r", LayerKind::Relu, {0}),        // 1: same group
      layer("a", LayerKind::Conv, {-1}),       // 2: wants 0 (1e5), pinned to 8
      layer("cat", LayerKind::Concat, {-1, 2}),
      layer("b", LayerKind::Conv, {1}), // 4: its own group, wants 12 (5.0)
  });
  EXPECT_EQ(formats(G, 8, {0.1f, 0.1f, 1e5f, 1e5f, 5}), (std::vector<int>{8, 8, 8, 8, 12}));
  EXPECT_EQ(formats(G, 4, {0.1f, 0.1f, 0.1f, 0.1f, 5}), (std::vector<int>{4, 4, 4, 4, 12}));
}

TEST(Calibrate, ConvOutputNeverHasMoreBitsThanInputPlusWeights) {
  // Input Q13.2; weights up to 1000 are Q10.5 (1000 * 32 = 32000): a's
  // accumulator has 2 + 5 = 7 fraction bits, so its output cannot have more
  // than 7 (a left shift), however small its range.
  Graph G = graph({layer("a", LayerKind::Conv, {-1}, 1000), layer("b", LayerKind::Conv, {0})});
  EXPECT_EQ(formats(G, 2, {0.01f, 1}), (std::vector<int>{7, 14}));
  EXPECT_EQ(formats(G, 2, {300, 1}), (std::vector<int>{6, 14})) << "below the bound: the range";
}

TEST(Calibrate, LoweringAGroupLowersTheBoundOfEarlierConvs) {
  // b (layer 1) reads a; a shares a group with c through the concat, and c's
  // weights (40000: WFrac 0) cap the group at 8. Only then does b's bound,
  // a + WFrac 2 (5000 * 4 = 20000), drop from 17 to 10: the rule must revisit
  // b after lowering the group at layer 2.
  Graph G =
      graph({layer("a", LayerKind::Conv, {-1}), layer("b", LayerKind::Conv, {0}, 5000),
             layer("c", LayerKind::Conv, {-1}, 40000), layer("cat", LayerKind::Concat, {0, 2})});
  EXPECT_EQ(formats(G, 8, {0.1f, 0.1f, 0.1f, 0.1f}), (std::vector<int>{8, 10, 8, 8}));
}

TEST(Calibrate, AFusedResidualThatCannotBeAlignedIsAnError) {
  // r is Q0.15; x accumulates with 8 + 0 fraction bits and could only add r
  // by shifting it right. Nothing is lowered: it is reported.
  Layer X = layer("x", LayerKind::Conv, {-1}, 40000);
  X.HasResidual = true;
  X.Residual = 0;
  Graph G = graph({layer("r", LayerKind::Conv, {-1}), X});
  const std::string E = errorOf(G, 8, {0.5f, 1});
  EXPECT_NE(E.find("calib.yaml:1: layer 'x'"), std::string::npos) << E;
  EXPECT_NE(E.find("residual"), std::string::npos) << E;
  // With ordinary weights the same residual fits: 8 + 15 >= 15.
  G.Layers[1].Weights = {0.5f};
  EXPECT_EQ(formats(G, 8, {0.5f, 1}), (std::vector<int>{15, 14}));
}

TEST(Calibrate, AConvThatWouldLowerTheInputGroupIsAnError) {
  // c can produce at most 4 + 0 fraction bits, but the add ties it to the
  // graph input, which stays at 8.
  Graph G = graph({layer("d", LayerKind::Conv, {-1}), layer("c", LayerKind::Conv, {0}, 40000),
                   layer("sum", LayerKind::Add, {-1, 1})});
  const std::string E = errorOf(G, 8, {1000, 1, 1});
  EXPECT_NE(E.find("layer 'c'"), std::string::npos) << E;
  EXPECT_NE(E.find("graph input"), std::string::npos) << E;
}

TEST(Calibrate, NonCanonicalGraphsAreRefused) {
  Graph G = graph({layer("bn", LayerKind::BatchNorm, {-1})});
  EXPECT_NE(errorOf(G, 8, {1}).find("canonicalize"), std::string::npos);
  llvm::Expected<ActFormats> F = calibrate(G, 8, {1.0f});
  ASSERT_FALSE(F);
  EXPECT_NE(llvm::toString(F.takeError()).find("canonicalize"), std::string::npos);
}

TEST(Calibrate, MeasuresRangesWithTheFloatPath) {
  // A 1x1 conv scaling by 40 and a relu, on inputs of magnitude up to 1.5:
  // the conv's largest output is 60, 75 with headroom, which Q7.8 holds
  // (19200) and Q6.9 does not (38400); the relu keeps the input's format.
  Graph G = graph({layer("c", LayerKind::Conv, {-1}), layer("r", LayerKind::Relu, {-1})});
  G.Input = {1, 1, 2};
  for (Layer &L : G.Layers)
    L.In = L.Out = G.Input;
  G.Layers[0].Weights = {40.0f};
  G.Layers[0].Bias = {0.0f};
  std::vector<std::vector<float>> Outs;
  llvm::Expected<ActFormats> F = calibrate(G, 6, {1.5f, -0.25f}, &Outs);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_EQ(F->OutFrac, (std::vector<int>{8, 6}));
  EXPECT_EQ(Outs, (std::vector<std::vector<float>>{{60.0f, -10.0f}, {1.5f, 0.0f}}));
  ASSERT_FALSE(bool(quantize(G, *F)));
  EXPECT_EQ(G.InputFrac, 6);
  EXPECT_EQ(G.Layers[0].InFrac, 6);
  EXPECT_EQ(G.Layers[0].WFrac, 9) << "40 * 2^9 = 20480";
  EXPECT_EQ(G.Layers[0].OutFrac, 8);
}

TEST(Calibrate, QuantizeTakesInAndResidualFormatsFromTheProducers) {
  Layer X = layer("x", LayerKind::Conv, {0});
  X.HasResidual = true;
  X.Residual = 1;
  Graph G = graph({layer("a", LayerKind::Conv, {-1}), layer("b", LayerKind::Conv, {-1}), X,
                   layer("p", LayerKind::MaxPool, {2})});
  ActFormats F;
  F.InputFrac = 7;
  F.OutFrac = {12, 10, 9, 9};
  ASSERT_FALSE(bool(quantize(G, F)));
  EXPECT_EQ(G.Layers[0].InFrac, 7);
  EXPECT_EQ(G.Layers[2].InFrac, 12);
  EXPECT_EQ(G.Layers[2].ResFrac, 10);
  EXPECT_EQ(G.Layers[3].InFrac, 9);
  EXPECT_EQ(G.Layers[3].OutFrac, 9);
}

TEST(Calibrate, QuantizeRefusesFormatsTheDatapathCannotProduce) {
  auto QuantizeError = [](Graph G, std::vector<int> Out, int In = 8) {
    ActFormats F;
    F.InputFrac = In;
    F.OutFrac = std::move(Out);
    llvm::Error E = quantize(G, F);
    return E ? llvm::toString(std::move(E)) : std::string("no error");
  };
  Graph G = graph({layer("c", LayerKind::Conv, {-1}, 40000), layer("p", LayerKind::MaxPool, {0})});
  EXPECT_EQ(QuantizeError(G, {8, 8}), "no error");
  EXPECT_NE(QuantizeError(G, {9, 9}).find("layer 'c': output format has 9 fraction bits, more "
                                          "than input 8 + weights 0"),
            std::string::npos);
  EXPECT_NE(QuantizeError(G, {8, 7}).find("layer 'p': 'maxpool' cannot rescale"),
            std::string::npos);
  EXPECT_NE(QuantizeError(G, {8, 16}).find("expected 0..15"), std::string::npos);
  EXPECT_NE(QuantizeError(G, {8}).find("1 activation formats for 2 layers"), std::string::npos);
  EXPECT_NE(QuantizeError(G, {8, 8}, -1).find("input format"), std::string::npos);
}

TEST(Calibrate, UniformQuantizeIsTheUniformFormats) {
  Graph G = graph({layer("a", LayerKind::Conv, {-1}), layer("p", LayerKind::AvgPool, {0})});
  G.Layers[1].KH = G.Layers[1].KW = 2;
  Graph H = G;
  quantize(G, 5);
  ASSERT_FALSE(bool(quantize(H, uniformFormats(H, 5))));
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    EXPECT_EQ(G.Layers[I].OutFrac, 5);
    EXPECT_EQ(G.Layers[I].OutFrac, H.Layers[I].OutFrac);
    EXPECT_EQ(G.Layers[I].QWeights, H.Layers[I].QWeights);
    EXPECT_EQ(G.Layers[I].AvgMult, H.Layers[I].AvgMult);
  }
}

TEST(CalibrateOnFrames, LargerFramesGetFewerFractionBitsTheInputsToo) {
  // data -> conv (one weight 0.5): the output is half the input.
  Graph G = graph({layer("c", LayerKind::Conv, {-1}, 0.5f)});
  G.Layers[0].Weights = {0.5f};
  G.Layers[0].Bias = {0.0f};
  G.Layers[0].In = G.Layers[0].Out = {1, 1, 1};
  auto Small = calibrateOnFrames(G, 8, {{1.0f}, {-2.0f}});
  auto Large = calibrateOnFrames(G, 8, {{10.0f}, {-20.0f}});
  ASSERT_TRUE(bool(Small)) << llvm::toString(Small.takeError());
  ASSERT_TRUE(bool(Large)) << llvm::toString(Large.takeError());
  // The input is no longer pinned to the hardware's 8 bits: max |x| 2 x 1.25
  // fits Q2.13; 20 x 1.25 = 25 fits Q5.10. Ten times the range, 3 bits fewer.
  EXPECT_EQ(Small->InputFrac, 13);
  EXPECT_EQ(Large->InputFrac, 10);
  // The conv's output (max 1 and 10, x 1.25) gets Q1.14 and Q4.11.
  EXPECT_EQ(Small->OutFrac[0], 14);
  EXPECT_EQ(Large->OutFrac[0], 11);
  // Every frame counts: the range is the largest over all of them.
  auto Mixed = calibrateOnFrames(G, 8, {{1.0f}, {-20.0f}});
  ASSERT_TRUE(bool(Mixed));
  EXPECT_EQ(Mixed->InputFrac, 10);
}
