//===- ShuffleTest.cpp - Channel shuffle, Split and Slice of channels -----===//
//
// ShuffleNet v2's channel moves (compiler/ir/OnnxShuffle.cpp) and the shape
// arithmetic PyTorch writes around them (OnnxConstFold.cpp):
//
// * channel_shuffle (Reshape to 5-D, Transpose, Reshape back) for g = 2 and
//   3, read by a relu (one 1x1 selection layer of 0/1 weights) and by a conv
//   (no layer: the conv's weights take the order);
// * Split into 2 and 3 outputs, equal and unequal, with the sizes as an
//   input (opset 13) or an attribute (opset 11), and Slice of channels with
//   step 1 (opsets 13 and 9);
// * x.chunk(2, dim=1) as exported: Shape, Gather, Add, Div, Mul, Slice;
// * the refusals, one line each naming node, op and reason.
//
// Each float result is checked against the ONNX semantics computed here, and
// each model compiles to a program whose simulated output equals the
// reference executor's bit for bit.
//
//===----------------------------------------------------------------------===//

#include "CompileRun.h"
#include "OnnxBuilder.h"

#include "snow/ir/FloatEval.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace snow;
using namespace snow::ir;
using namespace snow::onnxtest;

namespace {

std::string ints(const std::string &Name, const std::vector<double> &V) {
  return init(Name, {int64_t(V.size())}, V, /*Int64=*/true);
}

/// channel_shuffle(In, G) as PyTorch exports it, C channels of H x W.
std::vector<std::string> shuffle(const std::string &In, const std::string &Out, int64_t C,
                                 int64_t G, int64_t H, int64_t W) {
  return {ints("s5", {1, double(G), double(C / G), double(H), double(W)}),
          ints("s4", {1, -1, double(H), double(W)}), node("Reshape", "r5", {In, "s5"}, {"t5"}),
          node("Transpose", "tr", {"t5"}, {"u5"}, {intsAttr("perm", {0, 2, 1, 3, 4})}),
          node("Reshape", "r4", {"u5", "s4"}, {Out})};
}

/// Input channel of the shuffle's output channel K: [G, C/G] read as
/// [C/G, G], so K = b * G + a comes from a * (C/G) + b.
int64_t shuffledFrom(int64_t K, int64_t C, int64_t G) { return (K % G) * (C / G) + K / G; }

/// Each output channel K of Got (HW positions) equals input channel From[K]
/// of X, after a relu when Relu: an exact copy.
void expectChannels(const std::vector<float> &Got, const std::vector<float> &X,
                    const std::vector<int64_t> &From, size_t HW, bool Relu) {
  ASSERT_EQ(Got.size(), From.size() * HW);
  for (size_t K = 0; K < From.size(); ++K)
    for (size_t P = 0; P < HW; ++P) {
      float V = X[size_t(From[K]) * HW + P];
      ASSERT_EQ(Got[K * HW + P], Relu ? std::max(V, 0.0f) : V) << "channel " << K << " pos " << P;
    }
}

size_t countType(const Graph &G, const char *Type) {
  size_t N = 0;
  for (const Layer &L : G.Layers)
    N += L.TypeName == Type;
  return N;
}

//===-- The channel shuffle ----------------------------------------------===//

std::string shuffleRelu(int64_t G) {
  return model(
      std::vector<std::string>{input("x", {1, 6, 3, 4})} + shuffle("x", "s", 6, G, 3, 4) +
      std::vector<std::string>{node("Relu", "relu", {"s"}, {"y"}), output("y", {1, 6, 3, 4})});
}

TEST(OnnxShuffle, AShuffleReadByARelu_IsOneSelectionLayer) {
  for (int64_t G : {2, 3}) {
    SCOPED_TRACE("g = " + std::to_string(G));
    OnnxModel M = import(shuffleRelu(G));
    ASSERT_EQ(M.G.Layers.size(), 2u);
    const Layer &S = M.G.Layers[0];
    EXPECT_EQ(S.TypeName, "select");
    EXPECT_EQ(S.KH * S.KW, 1u);
    EXPECT_FALSE(S.HasBias);
    for (float W : S.Weights)
      EXPECT_TRUE(W == 0.0f || W == 1.0f);
    std::vector<int64_t> From;
    for (int64_t K = 0; K < 6; ++K)
      From.push_back(shuffledFrom(K, 6, G));
    std::vector<float> X;
    std::vector<float> Got = floatRun(std::move(M), X);
    expectChannels(Got, X, From, 12, /*Relu=*/true);
    expectBitExact(shuffleRelu(G));
  }
}

TEST(OnnxShuffle, AShuffleIsTheGraphOutput) {
  std::string Text =
      model(std::vector<std::string>{input("x", {1, 6, 3, 4})} + shuffle("x", "y", 6, 3, 3, 4) +
            std::vector<std::string>{output("y", {1, 6, 3, 4})});
  OnnxModel M = import(Text);
  ASSERT_EQ(M.G.Layers.size(), 1u);
  std::vector<int64_t> From;
  for (int64_t K = 0; K < 6; ++K)
    From.push_back(shuffledFrom(K, 6, 3));
  std::vector<float> X;
  expectChannels(floatRun(std::move(M), X), X, From, 12, false);
  // On the accelerator too every value is the input's, exactly.
  Graph Q;
  test::RunResult R = expectBitExact(Text, &Q);
  ASSERT_EQ(R.Sim.size(), 6u * 12);
  for (size_t K = 0; K < 6; ++K)
    for (size_t P = 0; P < 12; ++P)
      ASSERT_EQ(fromFixed(R.Sim[K * 12 + P], Q.output().OutFrac),
                fromFixed(toFixed(X[size_t(From[K]) * 12 + P], Q.InputFrac), Q.InputFrac))
          << K << " " << P;
}

TEST(OnnxShuffle, AConvAfterAShuffleTakesItIntoItsWeights) {
  // x -> shuffle (g = 3) -> 3x3 conv -> y: no layer for the shuffle.
  std::vector<double> W = weights(4 * 6 * 9, 5);
  std::string Text =
      model(std::vector<std::string>{input("x", {1, 6, 5, 5}), init("W", {4, 6, 3, 3}, W)} +
            shuffle("x", "s", 6, 3, 5, 5) +
            std::vector<std::string>{
                node("Conv", "conv", {"s", "W"}, {"y"}, {intsAttr("pads", {1, 1, 1, 1})}),
                output("y", {1, 4, 5, 5})});
  OnnxModel M = import(Text);
  ASSERT_EQ(M.G.Layers.size(), 1u);
  EXPECT_EQ(M.G.Layers[0].In.C, 6u);
  std::vector<float> X;
  std::vector<float> Got = floatRun(std::move(M), X);
  ASSERT_EQ(Got.size(), 4u * 25);
  for (int O = 0; O < 4; ++O)
    for (int Y = 0; Y < 5; ++Y)
      for (int Xo = 0; Xo < 5; ++Xo) {
        double Sum = 0;
        for (int I = 0; I < 6; ++I)
          for (int Ky = 0; Ky < 3; ++Ky)
            for (int Kx = 0; Kx < 3; ++Kx) {
              int Iy = Y + Ky - 1, Ix = Xo + Kx - 1;
              if (Iy < 0 || Iy >= 5 || Ix < 0 || Ix >= 5)
                continue;
              Sum += W[size_t(((O * 6 + I) * 3 + Ky) * 3 + Kx)] *
                     X[size_t((shuffledFrom(I, 6, 3) * 5 + Iy) * 5 + Ix)];
            }
        ASSERT_NEAR(Got[size_t((O * 5 + Y) * 5 + Xo)], Sum, 1e-5) << O << " " << Y << " " << Xo;
      }
  expectBitExact(Text);
}

TEST(OnnxShuffle, ABatchNormAfterAShuffledDepthwiseConvPermutesItsStatistics) {
  // x -> shuffle (g = 3) -> depthwise 3x3 conv -> BatchNormalization -> 1x1
  // conv -> y, the batchnorm a node of its own (an export that does not fold
  // it: the YAML ShuffleNet v2's). The depthwise conv and the batchnorm
  // compute the physical channels with their weights and statistics
  // permuted; the 1x1 conv takes the order: no selection layer.
  const std::vector<double> Dw = weights(6 * 9, 7), Pw = weights(4 * 6, 8), Gamma = weights(6, 9),
                            Beta = weights(6, 10), Mean = weights(6, 11);
  std::vector<double> Var;
  for (double V : weights(6, 12))
    Var.push_back(0.5 + V * V);
  std::string Text = model(
      std::vector<std::string>{input("x", {1, 6, 5, 5}), init("Dw", {6, 1, 3, 3}, Dw),
                               init("Pw", {4, 6, 1, 1}, Pw), init("g", {6}, Gamma),
                               init("b", {6}, Beta), init("m", {6}, Mean), init("v", {6}, Var)} +
      shuffle("x", "s", 6, 3, 5, 5) +
      std::vector<std::string>{node("Conv", "dw", {"s", "Dw"}, {"d"},
                                    {intAttr("group", 6), intsAttr("pads", {1, 1, 1, 1})}),
                               node("BatchNormalization", "bn", {"d", "g", "b", "m", "v"}, {"n"},
                                    {floatAttr("epsilon", 1e-3)}),
                               node("Conv", "pw", {"n", "Pw"}, {"y"}), output("y", {1, 4, 5, 5})});
  OnnxModel M = import(Text);
  EXPECT_EQ(countType(M.G, "select"), 0u) << "the batchnorm takes the permutation";
  std::vector<float> X;
  std::vector<float> Got = floatRun(std::move(M), X);
  ASSERT_EQ(Got.size(), 4u * 25);
  std::vector<double> N(6 * 25); // the batchnorm's output, logical channels
  for (int C = 0; C < 6; ++C)
    for (int Y = 0; Y < 5; ++Y)
      for (int Xo = 0; Xo < 5; ++Xo) {
        double Sum = 0;
        for (int Ky = 0; Ky < 3; ++Ky)
          for (int Kx = 0; Kx < 3; ++Kx) {
            int Iy = Y + Ky - 1, Ix = Xo + Kx - 1;
            if (Iy >= 0 && Iy < 5 && Ix >= 0 && Ix < 5)
              Sum += Dw[size_t((C * 3 + Ky) * 3 + Kx)] *
                     X[size_t((shuffledFrom(C, 6, 3) * 5 + Iy) * 5 + Ix)];
          }
        N[size_t((C * 5 + Y) * 5 + Xo)] =
            Gamma[size_t(C)] * (Sum - Mean[size_t(C)]) / std::sqrt(Var[size_t(C)] + 1e-3) +
            Beta[size_t(C)];
      }
  for (int O = 0; O < 4; ++O)
    for (int P = 0; P < 25; ++P) {
      double Sum = 0;
      for (int C = 0; C < 6; ++C)
        Sum += Pw[size_t(O * 6 + C)] * N[size_t(C * 25 + P)];
      ASSERT_NEAR(Got[size_t(O * 25 + P)], Sum, 1e-4) << O << " " << P;
    }
  expectBitExact(Text);
}

//===-- Split ------------------------------------------------------------===//

/// x [1, 7, 2, 3] split into Sizes (as an input from opset 13, as an
/// attribute before; none: equal parts), the parts concatenated in reverse
/// order after a relu each.
std::string splitModel(const std::vector<int64_t> &Sizes, int Opset, size_t Parts, int64_t C = 7) {
  std::vector<std::string> Outs, Relus, P, ReluNodes;
  for (size_t I = 0; I < Parts; ++I) {
    Outs.push_back("p" + std::to_string(I));
    Relus.insert(Relus.begin(), "q" + std::to_string(I));
    ReluNodes.push_back(node("Relu", "relu" + std::to_string(I), {Outs.back()}, {Relus.front()}));
  }
  std::vector<std::string> Attrs = {intAttr("axis", 1)};
  std::vector<std::string> Ins = {"x"};
  if (!Sizes.empty() && Opset >= 13) {
    P.push_back(ints("split", std::vector<double>(Sizes.begin(), Sizes.end())));
    Ins.push_back("split");
  } else if (!Sizes.empty()) {
    Attrs.push_back(intsAttr("split", Sizes));
  }
  P.push_back(node("Split", "split", Ins, Outs, Attrs));
  P = P + ReluNodes;
  P.push_back(node("Concat", "cat", Relus, {"y"}, {intAttr("axis", 1)}));
  return model(P + std::vector<std::string>{input("x", {1, C, 2, 3}), output("y", {1, C, 2, 3})},
               Opset);
}

TEST(OnnxSplit, TwoAndThreeOutputsEqualAndUnequalAsInputOrAttribute) {
  struct Case {
    std::vector<int64_t> Sizes;
    size_t Parts;
    int64_t C;
  };
  for (int Opset : {11, 13})
    for (const Case &K : {Case{{3, 4}, 2, 7}, Case{{2, 4, 1}, 3, 7}, Case{{}, 2, 6}, Case{{}, 3, 6},
                          Case{{3, 3}, 2, 6}}) {
      SCOPED_TRACE(::testing::Message() << "opset " << Opset << ", " << K.Parts << " parts of "
                                        << K.C << " channels, sizes " << K.Sizes.size());
      std::string Text = splitModel(K.Sizes, Opset, K.Parts, K.C);
      std::vector<int64_t> Sizes = K.Sizes;
      if (Sizes.empty())
        Sizes.assign(K.Parts, K.C / int64_t(K.Parts));
      // The concat of the parts in reverse order.
      std::vector<int64_t> From, Begins = {0};
      for (int64_t S : Sizes)
        Begins.push_back(Begins.back() + S);
      for (size_t I = Sizes.size(); I-- > 0;)
        for (int64_t Ch = Begins[I]; Ch < Begins[I + 1]; ++Ch)
          From.push_back(Ch);
      OnnxModel M = import(Text);
      EXPECT_EQ(countType(M.G, "select"), K.Parts) << "one selection per part";
      std::vector<float> X;
      expectChannels(floatRun(std::move(M), X), X, From, 6, /*Relu=*/true);
      expectBitExact(Text);
    }
}

//===-- Slice ------------------------------------------------------------===//

/// x [1, 8, 3, 3] -> Slice of channels -> Relu -> y.
std::string sliceModel(const std::vector<double> &Starts, const std::vector<double> &Ends,
                       const std::vector<double> &Axes, int64_t OutC, int Opset = 13,
                       const std::vector<double> &Steps = {}) {
  std::vector<std::string> P = {input("x", {1, 8, 3, 3}), output("y", {1, OutC, 3, 3})};
  if (Opset < 10) {
    std::vector<int64_t> S(Starts.begin(), Starts.end()), E(Ends.begin(), Ends.end()),
        A(Axes.begin(), Axes.end());
    P.push_back(node("Slice", "slice", {"x"}, {"s"},
                     {intsAttr("starts", S), intsAttr("ends", E), intsAttr("axes", A)}));
  } else {
    P = P + std::vector<std::string>{ints("st", Starts), ints("en", Ends), ints("ax", Axes)};
    std::vector<std::string> Ins = {"x", "st", "en", "ax"};
    if (!Steps.empty()) {
      P.push_back(ints("sp", Steps));
      Ins.push_back("sp");
    }
    P.push_back(node("Slice", "slice", Ins, {"s"}));
  }
  P.push_back(node("Relu", "relu", {"s"}, {"y"}));
  return model(P, Opset);
}

TEST(OnnxSlice, ARangeOfChannelsWithStepOne) {
  const double Big = 9.2e18; // INT64_MAX-like "to the end", as exporters write
  struct Case {
    std::vector<double> Starts, Ends, Axes, Steps;
    int64_t Begin, End;
    int Opset;
  };
  for (const Case &K :
       {Case{{2}, {6}, {1}, {}, 2, 6, 13}, Case{{-3}, {Big}, {1}, {1}, 5, 8, 13},
        Case{{0, 1}, {Big, -1}, {2, 1}, {1, 1}, 1, 7, 13}, Case{{3}, {5}, {1}, {}, 3, 5, 9}}) {
    SCOPED_TRACE(::testing::Message()
                 << "channels [" << K.Begin << ", " << K.End << ") opset " << K.Opset);
    std::string Text = sliceModel(K.Starts, K.Ends, K.Axes, K.End - K.Begin, K.Opset, K.Steps);
    std::vector<int64_t> From;
    for (int64_t Ch = K.Begin; Ch < K.End; ++Ch)
      From.push_back(Ch);
    OnnxModel M = import(Text);
    EXPECT_EQ(countType(M.G, "select"), 1u);
    std::vector<float> X;
    expectChannels(floatRun(std::move(M), X), X, From, 9, /*Relu=*/true);
    expectBitExact(Text);
  }
}

TEST(OnnxSlice, ChunkAsPyTorchExportsIt_AShuffleNetBlock) {
  // ShuffleNet v2's stride-1 block on 8 channels: x1, x2 = shuffled.chunk(2)
  // with the bounds computed from Shape; y = cat(x1, relu(conv1x1(x2))).
  std::vector<double> W = weights(4 * 4, 9);
  std::string Text = model(
      std::vector<std::string>{input("x", {1, 8, 3, 3}), init("W", {4, 4, 1, 1}, W),
                               ints("one", {1}), ints("two", {2}), ints("zero", {0})} +
      shuffle("x", "s", 8, 2, 3, 3) +
      std::vector<std::string>{
          node("Shape", "shape", {"s"}, {"sh"}),
          node("Gather", "gather", {"sh", "one"}, {"c"}, {intAttr("axis", 0)}),
          node("Add", "add", {"c", "one"}, {"c1"}), node("Div", "div", {"c1", "two"}, {"half"}),
          node("Mul", "mul1", {"half", "one"}, {"e1"}),
          node("Mul", "mul2", {"half", "two"}, {"e2"}),
          node("Slice", "slice1", {"s", "zero", "e1", "one"}, {"x1"}),
          node("Slice", "slice2", {"s", "e1", "e2", "one"}, {"x2"}),
          node("Conv", "conv", {"x2", "W"}, {"z"}), node("Relu", "relu", {"z"}, {"rz"}),
          node("Concat", "cat", {"x1", "rz"}, {"y"}, {intAttr("axis", 1)}),
          output("y", {1, 8, 3, 3})});
  OnnxModel M = import(Text);
  // x1 is a selection; x2 goes into the conv's weights (8 input channels).
  EXPECT_EQ(countType(M.G, "select"), 1u);
  for (const Layer &L : M.G.Layers)
    if (L.Name == "conv") {
      EXPECT_EQ(L.In.C, 8u);
    }
  std::vector<float> X;
  std::vector<float> Got = floatRun(std::move(M), X);
  ASSERT_EQ(Got.size(), 8u * 9);
  for (int K = 0; K < 4; ++K)
    for (int P = 0; P < 9; ++P)
      ASSERT_EQ(Got[size_t(K * 9 + P)], X[size_t(shuffledFrom(K, 8, 2) * 9 + P)]);
  for (int O = 0; O < 4; ++O)
    for (int P = 0; P < 9; ++P) {
      double Sum = 0;
      for (int I = 0; I < 4; ++I)
        Sum += W[size_t(O * 4 + I)] * X[size_t(shuffledFrom(4 + I, 8, 2) * 9 + P)];
      ASSERT_NEAR(Got[size_t((4 + O) * 9 + P)], std::max(Sum, 0.0), 1e-5) << O << " " << P;
    }
  expectBitExact(Text);
}

/// ShuffleNet v2's stride-1 blocks, Blocks of them on C channels of H x W:
/// x1, x2 = channel_shuffle(x, 2).chunk(2); x = cat(x1, relu(conv(x2))),
/// then one last shuffle read by a relu. The 1x1 convs' weights are W[B].
std::string shuffleBlocks(int Blocks, int64_t C, int64_t H, int64_t W,
                          const std::vector<std::vector<double>> &Wts) {
  const double Half = double(C / 2), Full = double(C);
  std::vector<std::string> P = {input("x", {1, C, H, W}),
                                ints("s5", {1, 2, Half, double(H), double(W)}),
                                ints("s4", {1, -1, double(H), double(W)}),
                                ints("zero", {0}),
                                ints("half", {Half}),
                                ints("full", {Full}),
                                ints("ax1", {1}),
                                output("y", {1, C, H, W})};
  std::string In = "x";
  for (int B = 0; B <= Blocks; ++B) {
    std::string K = std::to_string(B);
    P = P + std::vector<std::string>{node("Reshape", "r5_" + K, {In, "s5"}, {"t5_" + K}),
                                     node("Transpose", "tr_" + K, {"t5_" + K}, {"u5_" + K},
                                          {intsAttr("perm", {0, 2, 1, 3, 4})}),
                                     node("Reshape", "r4_" + K, {"u5_" + K, "s4"}, {"s_" + K})};
    if (B == Blocks) {
      P.push_back(node("Relu", "out", {"s_" + K}, {"y"}));
      break;
    }
    P = P + std::vector<std::string>{
                init("W" + K, {C / 2, C / 2, 1, 1}, Wts[size_t(B)]),
                node("Slice", "x1_" + K, {"s_" + K, "zero", "half", "ax1"}, {"a_" + K}),
                node("Slice", "x2_" + K, {"s_" + K, "half", "full", "ax1"}, {"b_" + K}),
                node("Conv", "conv_" + K, {"b_" + K, "W" + K}, {"c_" + K}),
                node("Relu", "relu_" + K, {"c_" + K}, {"d_" + K}),
                node("Concat", "cat_" + K, {"a_" + K, "d_" + K}, {"e_" + K}, {intAttr("axis", 1)})};
    In = "e_" + K;
  }
  return model(P);
}

TEST(OnnxShuffle, ChainedBlocksKeepTheOrderPendingThroughConcats) {
  // Three blocks: each x1 is a selection in its input's order, each concat
  // keeps the order pending, each conv takes it into its weights, and the
  // concats split by reader.
  const int Blocks = 3;
  const int64_t C = 12, HW = 4;
  std::vector<std::vector<double>> Wts;
  for (int B = 0; B < Blocks; ++B)
    Wts.push_back(weights(size_t(C / 2 * C / 2), 20 + uint64_t(B)));
  std::string Text = shuffleBlocks(Blocks, C, 2, 2, Wts);
  OnnxModel M = import(Text);
  // Each concat but the last is read by two convs using disjoint halves
  // (ConcatSplit.cpp): it and the layers writing into it split in two,
  // so each branch conv reads just the C/2 channels it uses. The branch
  // convs writing into a split concat split too (conv_K_part0, _part1),
  // their outputs adding up to C/2 (the last block's concat, read by the
  // relu, stays whole); from block 1 on they read C/2 channels (block 0's
  // read the shuffled graph input whole, zero weights for half). The half
  // each block passes on is no selection but the parts of the concat
  // before it, standing in its place (PassThrough.cpp): the selections
  // left read the graph input (block 0's half, in parts) or put the last
  // concat in order for the relu that reads it.
  for (const Layer &L : M.G.Layers)
    if (L.TypeName == "select") {
      EXPECT_TRUE(L.input() < 0 || L.Name == "out_select") << L.Name;
    }
  EXPECT_EQ(countType(M.G, "select"), 4u);
  for (int B = 0; B < Blocks; ++B) {
    uint32_t OutC = 0;
    for (const Layer &L : M.G.Layers)
      if (L.Name.rfind("conv_" + std::to_string(B), 0) == 0) {
        OutC += L.Out.C;
        EXPECT_EQ(L.In.C, uint32_t(B == 0 ? C : C / 2)) << L.Name;
      }
    EXPECT_EQ(OutC, uint32_t(C / 2)) << "block " << B;
  }
  // The ONNX semantics, in double.
  std::vector<float> X;
  std::vector<float> Got = floatRun(std::move(M), X);
  std::vector<double> V(X.begin(), X.end());
  auto Shuffle = [&](const std::vector<double> &T) {
    std::vector<double> S(T.size());
    for (int64_t K = 0; K < C; ++K)
      for (int64_t P = 0; P < HW; ++P)
        S[size_t(K * HW + P)] = T[size_t(shuffledFrom(K, C, 2) * HW + P)];
    return S;
  };
  for (int B = 0; B < Blocks; ++B) {
    std::vector<double> S = Shuffle(V), Next = S;
    for (int64_t O = 0; O < C / 2; ++O)
      for (int64_t P = 0; P < HW; ++P) {
        double Sum = 0;
        for (int64_t I = 0; I < C / 2; ++I)
          Sum += Wts[size_t(B)][size_t(O * C / 2 + I)] * S[size_t((C / 2 + I) * HW + P)];
        Next[size_t((C / 2 + O) * HW + P)] = std::max(Sum, 0.0);
      }
    V = Next;
  }
  V = Shuffle(V);
  ASSERT_EQ(Got.size(), V.size());
  for (size_t I = 0; I < V.size(); ++I)
    ASSERT_NEAR(Got[I], std::max(V[I], 0.0), 1e-5) << I;
  expectBitExact(Text);
}

//===-- Refusals ---------------------------------------------------------===//

TEST(OnnxShuffle, WhatMovesDataBetweenAxesIsRefused) {
  EXPECT_EQ(importError(sliceModel({0}, {2}, {2}, 8)),
            "m.onnx: node 0 'slice' (Slice): a slice [0, 2) of axis 2 of input [1, 8, 3, 3] is "
            "not supported: only the channel axis (1) is sliced, every other axis kept whole");
  EXPECT_EQ(importError(sliceModel({0}, {8}, {1}, 4, 13, {2})),
            "m.onnx: node 0 'slice' (Slice): step 2 on axis 1 is not supported: only steps of 1 "
            "(a range of channels)");
  EXPECT_NE(importError(model({input("x", {1, 6, 2, 3}),
                               node("Split", "split", {"x"}, {"a", "b"}, {intAttr("axis", 2)}),
                               node("Concat", "cat", {"a", "b"}, {"y"}, {intAttr("axis", 1)}),
                               output("y", {1, 12, 1, 3})}))
                .find("node 0 'split' (Split): attribute 'axis' = 2 on input [1, 6, 2, 3] is "
                      "not supported: only a split of the channels (axis 1)"),
            std::string::npos);
  EXPECT_NE(importError(splitModel({3, 3}, 13, 2, 7))
                .find("(Split): sizes [3, 3] do not split 7 channels into 2 non-empty outputs"),
            std::string::npos);
  EXPECT_NE(
      importError(model({input("x", {1, 6, 2, 3}),
                         node("Transpose", "t", {"x"}, {"y"}, {intsAttr("perm", {0, 1, 3, 2})}),
                         output("y", {1, 6, 3, 2})}))
          .find("node 0 't' (Transpose): perm [0, 1, 3, 2] on input [1, 6, 2, 3] is not "
                "supported: the accelerator moves no data between axes"),
      std::string::npos);
  // The 5-D middle of a shuffle read by anything but the Transpose.
  EXPECT_NE(importError(model({input("x", {1, 6, 2, 3}), ints("s5", {1, 2, 3, 2, 3}),
                               node("Reshape", "r5", {"x", "s5"}, {"t"}),
                               node("Relu", "relu", {"t"}, {"y"}), output("y", {1, 2, 3, 2, 3})}))
                .find("node 1 'relu' (Relu): input 't' [1, 2, 3, 2, 3] is the middle of a "
                      "channel shuffle"),
            std::string::npos);
  EXPECT_NE(importError(model({input("x", {1, 6, 2, 3}), init("k", {1}, {2.0}),
                               node("Div", "div", {"k", "x"}, {"y"}), output("y", {1, 6, 2, 3})}))
                .find("node 0 'div' (Div): 'k' divided by a map"),
            std::string::npos);
}

} // namespace
