//===- ModelsTest.cpp - The six networks at reduced size, sim vs RTL ------===//
//
// models/*.yaml with the input shrunk (224x224 -> 32..64) and AlexNet's and
// VGG-16's 4096-wide fully connected layers narrowed to 256, so that all six
// fit the CI budget on the RTL (about 10^5 cycles per second on zc706; most
// of these cycles move the real weights of the convolutions, which do not
// shrink with the input). Everything else (layer structure, channel counts,
// seeded weights, calibrated formats) is the model as committed. The full
// networks at 224x224 are compared by scripts/rtl-long-tests.sh.
//
//===----------------------------------------------------------------------===//

#include "CoSim.h"

using namespace snow;
using namespace snow::test;

namespace {

struct ModelCase {
  const char *Model;
  unsigned Size;
  const char *Hw;
};

std::ostream &operator<<(std::ostream &OS, const ModelCase &C) {
  return OS << C.Model << " " << C.Size << "x" << C.Size << " on " << C.Hw;
}

const ModelCase Cases[] = {
    {"alexnet", 64, "zc706"},        {"googlenet", 48, "zc706"},     {"resnet50", 32, "zc706"},
    {"vgg16", 32, "zc706"},          {"mobilenet_v1", 32, "zc706"},  {"squeezenet1_1", 32, "zc706"},
    {"squeezenet1_1", 40, "mini64"}, {"mobilenet_v1", 32, "mini64"}, {"tiny", 0, "big1024"},
};

/// The model's YAML at Size x Size (0: as committed), fc layers at most 256 wide.
std::string reduced(const std::string &Yaml, unsigned Size) {
  std::string Y = Yaml;
  auto ReplaceAll = [&](const std::string &From, const std::string &To) {
    for (size_t At = Y.find(From); At != std::string::npos; At = Y.find(From, At + To.size()))
      Y.replace(At, From.size(), To);
  };
  if (Size)
    ReplaceAll("shape: [3, 224, 224]",
               "shape: [3, " + std::to_string(Size) + ", " + std::to_string(Size) + "]");
  ReplaceAll("out_features: 4096", "out_features: 256");
  return Y;
}

class RtlModels : public CoSimTest, public ::testing::WithParamInterface<ModelCase> {};

TEST_P(RtlModels, SimAndRtlAgree) {
  const ModelCase &C = GetParam();
  std::string Yaml = readBytes(SourceDir + "/models/" + C.Model + ".yaml");
  ASSERT_FALSE(Yaml.empty()) << "cannot read models/" << C.Model << ".yaml";
  std::string Small = reduced(Yaml, C.Size);
  if (C.Size) {
    ASSERT_NE(Small, Yaml) << "models/" << C.Model << ".yaml no longer has a 3x224x224 input";
  }
  compileFor("m.bin", Small, C.Hw);
  if (HasFatalFailure())
    return;
  EXPECT_TRUE(coSimulate("m.bin"));
}

INSTANTIATE_TEST_SUITE_P(Reduced, RtlModels, ::testing::ValuesIn(Cases),
                         [](const ::testing::TestParamInfo<ModelCase> &I) {
                           return std::string(I.param.Model) + "_" + std::to_string(I.param.Size) +
                                  "_" + I.param.Hw;
                         });

} // namespace
