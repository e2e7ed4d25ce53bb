//===- CalibratedModelsTest.cpp - Per-layer formats on the six networks ---===//
//
// The reason calibration exists: with one Q8.8 format, ResNet-50's residual
// stream saturates from layer3 on and the fixed-point top-1 differs from the
// float one. After calibration every layer of every model must saturate on
// fewer than 1 % of its outputs and the fixed top-1 must be the float top-1.
// The models run at reduced input sizes where that keeps the test to seconds
// (the layer structure, and so the growth of the ranges, is unchanged); the
// full-size numbers are in snowref's report.
//
//===----------------------------------------------------------------------===//

#include "snow/ir/Calibrate.h"
#include "snow/ir/FloatEval.h"
#include "snow/ref/ErrorStats.h"
#include "snow/ref/Reference.h"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>

using namespace snow;

namespace {

struct ModelCase {
  const char *Name;
  unsigned Size;
};

/// Models/Name.yaml with its 224x224 input replaced by Size x Size.
std::string modelText(const std::string &Path, unsigned Size) {
  std::ifstream In(Path);
  std::stringstream S;
  S << In.rdbuf();
  return std::regex_replace(S.str(), std::regex(R"(shape: \[3, 224, 224\])"),
                            "shape: [3, " + std::to_string(Size) + ", " + std::to_string(Size) +
                                "]");
}

/// Index of the largest element; the first one on a tie.
template <typename T> size_t argMax(const std::vector<T> &V) {
  return size_t(std::max_element(V.begin(), V.end()) - V.begin());
}

class CalibratedModels : public ::testing::TestWithParam<ModelCase> {};

TEST_P(CalibratedModels, SaturateBelowOnePercentPerLayerAndKeepTheFloatTop1) {
  const ModelCase &C = GetParam();
  const std::string Path = std::string(SNOW_SOURCE_DIR) + "/models/" + C.Name + ".yaml";
  llvm::Expected<ir::Graph> G = ir::parseModel(modelText(Path, C.Size), Path);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  ASSERT_FALSE(bool(ir::canonicalize(*G)));
  constexpr int ActFrac = 8; // zc706's act_frac_bits.
  const std::vector<float> Input = ir::defaultInput(*G);
  std::vector<std::vector<float>> Float;
  llvm::Expected<ir::ActFormats> F = ir::calibrate(*G, ActFrac, Input, &Float);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  ASSERT_FALSE(bool(ir::quantize(*G, *F)));
  ASSERT_FALSE(bool(ref::verifyGraph(*G)));

  std::vector<int16_t> In;
  for (float X : Input)
    In.push_back(ir::toFixed(X, G->InputFrac));
  std::vector<std::vector<int16_t>> Fixed;
  ref::runFixed(*G, In, 48, &Fixed);
  for (size_t I = 0; I < G->Layers.size(); ++I) {
    const double Saturated = double(ref::countSaturated(Fixed[I])) / double(Fixed[I].size());
    EXPECT_LT(Saturated, 0.01) << "layer '" << G->Layers[I].Name << "' (Q"
                               << 15 - G->Layers[I].OutFrac << "." << G->Layers[I].OutFrac << ")";
  }
  EXPECT_EQ(argMax(Fixed.back()), argMax(Float.back())) << "fixed and float top-1 differ";
  const double Rel =
      ref::compareToFloat(Fixed.back(), G->output().OutFrac, Float.back()).relativeRms();
  RecordProperty("relative_rms", std::to_string(Rel));
  EXPECT_LT(Rel, 0.01) << "relative rms error of the output";
}

INSTANTIATE_TEST_SUITE_P(Six, CalibratedModels,
                         ::testing::Values(ModelCase{"alexnet", 224}, ModelCase{"googlenet", 96},
                                           ModelCase{"mobilenet_v1", 128},
                                           ModelCase{"resnet50", 112},
                                           ModelCase{"squeezenet1_1", 96}, ModelCase{"vgg16", 64}),
                         [](const ::testing::TestParamInfo<ModelCase> &I) {
                           return std::string(I.param.Name) + "_" + std::to_string(I.param.Size);
                         });

TEST(CalibratedModels, UniformQ88SaturatesResNet50) {
  // The problem calibration solves, pinned so that a change of the seeded
  // weights that made it vanish would be noticed (the test above would then
  // prove nothing about ResNet-50).
  const std::string Path = std::string(SNOW_SOURCE_DIR) + "/models/resnet50.yaml";
  llvm::Expected<ir::Graph> G = ir::parseModel(modelText(Path, 112), Path);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  ASSERT_FALSE(bool(ir::canonicalize(*G)));
  ir::quantize(*G, 8);
  std::vector<int16_t> In;
  for (float X : ir::defaultInput(*G))
    In.push_back(ir::toFixed(X, G->InputFrac));
  std::vector<std::vector<int16_t>> Fixed;
  ref::runFixed(*G, In, 48, &Fixed);
  double Worst = 0;
  for (const std::vector<int16_t> &L : Fixed)
    Worst = std::max(Worst, double(ref::countSaturated(L)) / double(L.size()));
  EXPECT_GT(Worst, 0.05);
}

} // namespace
