//===- ModelZooTest.cpp - The six reference CNNs of models/ ---------------===//
//
// Each model file must describe the network it names: its MAC and parameter
// counts must match the published figures (REFERENCE.md §2) within 1 %, as
// written and after canonicalize(), and the canonical graph must hold only
// the kinds the compiler maps, with every shape consistent with its inputs.
// A wrong stride, width or padding anywhere in a 150-layer file shows up as a
// count that is off, which is why the counts are checked exactly as well.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Graph.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace snow::ir;

namespace {

struct ZooModel {
  const char *File;
  double Macs, Params;             // published
  uint64_t ExactMacs, ExactParams; // what the file gives; pinned against drift
};

// Published figures (REFERENCE.md §2) and this toolchain's exact counts.
const ZooModel Zoo[] = {
    {"alexnet", 714.2e6, 61.10e6, 714188480, 61100840},
    {"googlenet", 1.583e9, 7.00e6, 1582671872, 6998552},
    {"resnet50", 4.089e9, 25.56e6, 4089184256, 25557032},
    {"vgg16", 15.47e9, 138.36e6, 15470264320, 138357544},
    {"mobilenet_v1", 0.569e9, 4.21e6, 568740352, 4231976},
    {"squeezenet1_1", 0.349e9, 1.235e6, 349151936, 1235496},
    // torchvision's resnext50_32x4d counts 4,230,479,872 MACs and 25,028,904
    // parameters the same way (conv and fc multiplies; weights, biases and
    // batchnorm scales and shifts).
    {"resnext50_32x4d", 4.23e9, 25.03e6, 4230479872, 25028904},
};

Graph load(const std::string &Name) {
  auto G = loadModel(std::string(SNOW_SOURCE_DIR) + "/models/" + Name + ".yaml");
  EXPECT_TRUE(bool(G)) << llvm::toString(G.takeError());
  return G ? std::move(*G) : Graph();
}

/// Every inconsistency in a canonical graph, one per line ("" if none).
std::string canonicalProblems(const Graph &G) {
  std::string P;
  auto ShapeOf = [&](int I) { return I < 0 ? G.Input : G.Layers[I].Out; };
  for (size_t I = 0; I < G.Layers.size(); ++I) {
    const Layer &L = G.Layers[I];
    auto Bad = [&](const std::string &Why) { P += fmt::format("{}: {}\n", L.Name, Why); };
    if (!isCanonicalKind(L.Kind))
      Bad(std::string("non-canonical kind ") + kindName(L.Kind));
    for (int In : L.Inputs)
      if (In < -1 || In >= int(I))
        Bad(fmt::format("input index {} is not an earlier layer", In));
    if (L.HasResidual && (L.Residual < -1 || L.Residual >= int(I)))
      Bad(fmt::format("residual index {} is not an earlier layer", L.Residual));
    if (!(L.In == ShapeOf(L.input())))
      Bad("In differs from the producer's output");
    bool Window =
        L.Kind == LayerKind::Conv || L.Kind == LayerKind::MaxPool || L.Kind == LayerKind::AvgPool;
    if (Window && (L.Out.H != windowOutSize(L.In.H, L.KH, L.SH, L.PadT, L.PadB, L.CeilMode) ||
                   L.Out.W != windowOutSize(L.In.W, L.KW, L.SW, L.PadL, L.PadR, L.CeilMode)))
      Bad("output size does not follow from the window");
    if (L.Kind == LayerKind::Conv) {
      if (L.Weights.size() != uint64_t(L.Out.C) * (L.In.C / L.Groups) * L.KH * L.KW)
        Bad("weight count");
      if (L.Bias.size() != L.Out.C)
        Bad("bias count");
      if (L.HasResidual && !(ShapeOf(L.Residual) == L.Out))
        Bad("residual shape");
    } else if (L.Kind == LayerKind::Concat) {
      uint32_t C = 0;
      for (int In : L.Inputs) {
        C += ShapeOf(In).C;
        if (ShapeOf(In).H != L.Out.H || ShapeOf(In).W != L.Out.W)
          Bad("concat input size");
      }
      if (C != L.Out.C)
        Bad("concat channels");
    } else if (L.Kind == LayerKind::Add) {
      if (!(ShapeOf(L.Inputs[0]) == L.Out) || !(ShapeOf(L.Inputs[1]) == L.Out))
        Bad("add shapes");
    } else if (Window || L.Kind == LayerKind::Relu) {
      if (L.Out.C != L.In.C)
        Bad("channels change");
    }
  }
  return P;
}

double relErr(double Got, double Want) { return std::fabs(Got - Want) / Want; }

class ModelZoo : public testing::TestWithParam<ZooModel> {};

} // namespace

TEST_P(ModelZoo, CountsMatchThePublishedFigures) {
  const ZooModel &M = GetParam();
  Graph G = load(M.File);
  EXPECT_LT(relErr(double(G.macs()), M.Macs), 0.01) << G.macs() << " MACs";
  EXPECT_LT(relErr(double(G.params()), M.Params), 0.01) << G.params() << " params";
  EXPECT_EQ(G.macs(), M.ExactMacs);
  EXPECT_EQ(G.params(), M.ExactParams);
  EXPECT_EQ(G.Input, (Shape{3, 224, 224}));
  EXPECT_EQ(G.Layers.back().Kind, LayerKind::Softmax);
}

TEST_P(ModelZoo, CanonicalFormIsConsistentAndKeepsTheMacs) {
  const ZooModel &M = GetParam();
  Graph G = load(M.File);
  uint64_t Macs = G.macs();
  ASSERT_FALSE(bool(canonicalize(G))) << "canonicalize failed";
  EXPECT_EQ(canonicalProblems(G), "");
  EXPECT_TRUE(G.HostSoftmax);
  EXPECT_EQ(G.macs(), Macs) << "MACs do not depend on the form";
  EXPECT_EQ(G.output().Out, (Shape{1000, 1, 1}));
  size_t Layers = G.Layers.size();
  ASSERT_FALSE(bool(canonicalize(G)));
  EXPECT_EQ(G.Layers.size(), Layers) << "canonicalize is idempotent";
  quantize(G, 8);
  for (const Layer &L : G.Layers)
    if (L.Kind == LayerKind::AvgPool) {
      EXPECT_GE(L.AvgMult, 32768u);
      EXPECT_LE(L.AvgMult, 65535u);
    }
}

INSTANTIATE_TEST_SUITE_P(Models, ModelZoo, testing::ValuesIn(Zoo),
                         [](const testing::TestParamInfo<ZooModel> &I) {
                           return std::string(I.param.File);
                         });

TEST(ModelZooShapes, ResNet50CanonicalFormFusesEveryBlock) {
  Graph G = load("resnet50");
  ASSERT_FALSE(bool(canonicalize(G)));
  unsigned Residual = 0;
  for (const Layer &L : G.Layers) {
    EXPECT_NE(L.Kind, LayerKind::Add) << L.Name << " was not fused";
    EXPECT_NE(L.Kind, LayerKind::Relu) << L.Name << " was not fused";
    if (L.HasResidual) {
      ++Residual;
      EXPECT_TRUE(L.Relu) << L.Name;
      EXPECT_NE(L.Name.find("conv3"), std::string::npos) << "the add goes into the block's conv3";
    }
  }
  EXPECT_EQ(Residual, 16u) << "3 + 4 + 6 + 3 bottlenecks";
  // conv1, 16 x 3 convs, 4 downsamples, 1 fc = 54 convs; one max pool, one average pool.
  EXPECT_EQ(G.Layers.size(), 56u);
  EXPECT_EQ(G.Layers[0].Out, (Shape{64, 112, 112}));
}

TEST(ModelZooShapes, GoogLeNetStagesHaveThePaperSizes) {
  Graph G = load("googlenet");
  auto Out = [&](const std::string &Name) {
    for (const Layer &L : G.Layers)
      if (L.Name == Name)
        return L.Out;
    ADD_FAILURE() << "no layer " << Name;
    return Shape{};
  };
  EXPECT_EQ(Out("pool1"), (Shape{64, 56, 56}));
  EXPECT_EQ(Out("pool2"), (Shape{192, 28, 28}));
  EXPECT_EQ(Out("i3a"), (Shape{256, 28, 28}));
  EXPECT_EQ(Out("i3b"), (Shape{480, 28, 28}));
  EXPECT_EQ(Out("i4e"), (Shape{832, 14, 14}));
  EXPECT_EQ(Out("i5b"), (Shape{1024, 7, 7}));
  EXPECT_EQ(Out("pool5"), (Shape{1024, 1, 1}));
}

TEST(ModelZooShapes, SummaryOfAlexNetListsEveryLayerAndTheTotals) {
  Graph G = load("alexnet");
  std::string S = summary(G);
  EXPECT_NE(S.find("model 'alexnet': input 'data' 3x224x224"), std::string::npos) << S;
  EXPECT_NE(S.find("conv1"), std::string::npos);
  EXPECT_NE(S.find("64x55x55"), std::string::npos);
  EXPECT_NE(S.find("70,276,800"), std::string::npos) << "conv1's MACs: 64*55*55*3*11*11";
  EXPECT_NE(S.find("flatten"), std::string::npos);
  EXPECT_NE(S.find("714,188,480"), std::string::npos) << S;
  EXPECT_NE(S.find("total: 0.714 G MACs (714.2 M), 61.101 M params"), std::string::npos) << S;
}
