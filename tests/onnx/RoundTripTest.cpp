//===- RoundTripTest.cpp - YAML and ONNX give byte-identical programs -----===//
//
// Each reference network is loaded from its YAML, exported as ONNX (seeded
// weights as initializers), imported again, and both graphs go through the
// snowc pipeline (canonicalize, calibrate on the default input, quantize,
// compile for zc706). The two prog.bin images must be identical byte for
// byte: the ONNX front end then feeds the back end exactly what the YAML one
// does. The CI tier uses 64x64 inputs (full size costs a minute per model,
// mostly VGG-16's weights); scripts/onnx-long-tests.sh runs the full-size
// networks through the command line.
//
//===----------------------------------------------------------------------===//

#include "../support/SameFunction.h"

#include "snow/compiler/Compiler.h"
#include "snow/ir/Calibrate.h"
#include "snow/ir/Onnx.h"
#include "snow/isa/Program.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace snow;

namespace {

struct Case {
  const char *Model;
  unsigned Size; ///< Input height and width; 0 keeps the file's.
};

/// For test listings (and so CTest's names): "alexnet at 64x64".
[[maybe_unused]] void PrintTo(const Case &C, std::ostream *OS) {
  *OS << C.Model;
  if (C.Size)
    *OS << " at " << C.Size << "x" << C.Size;
}

std::string readText(const std::string &Path) {
  std::ifstream In(Path);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// snowc's pipeline after loading (compiler/tools/snowc.cpp).
std::vector<uint8_t> compileLikeSnowc(ir::Graph G, const isa::HwConfig &Hw) {
  if (llvm::Error E = ir::canonicalize(G)) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return {};
  }
  llvm::Expected<ir::ActFormats> F = ir::calibrate(G, int(Hw.ActFracBits), ir::defaultInput(G));
  if (!F) {
    ADD_FAILURE() << llvm::toString(F.takeError());
    return {};
  }
  if (llvm::Error E = ir::quantize(G, *F)) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return {};
  }
  llvm::Expected<isa::Program> P = compiler::compile(G, Hw);
  if (!P) {
    ADD_FAILURE() << llvm::toString(P.takeError());
    return {};
  }
  return isa::serialize(*P);
}

/// Text, exported as ONNX and imported again, compiles to the same program.
void expectSameProgram(const std::string &Text, const std::string &Model) {
  llvm::Expected<ir::Graph> Yaml = ir::parseModel(Text, Model + ".yaml");
  ASSERT_TRUE(bool(Yaml)) << llvm::toString(Yaml.takeError());
  llvm::Expected<std::string> Bytes = ir::exportOnnx(*Yaml);
  ASSERT_TRUE(bool(Bytes)) << llvm::toString(Bytes.takeError());
  llvm::Expected<ir::OnnxModel> Onnx = ir::parseOnnx(*Bytes, Model + ".onnx");
  ASSERT_TRUE(bool(Onnx)) << llvm::toString(Onnx.takeError());
  EXPECT_EQ(Onnx->G.Name, Yaml->Name);
  EXPECT_EQ(Onnx->G.Input, Yaml->Input);
  EXPECT_EQ(Onnx->G.macs(), Yaml->macs());
  EXPECT_EQ(Onnx->G.params(), Yaml->params());

  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw)) << llvm::toString(Hw.takeError());
  std::vector<uint8_t> FromYaml = compileLikeSnowc(std::move(*Yaml), *Hw);
  std::vector<uint8_t> FromOnnx = compileLikeSnowc(std::move(Onnx->G), *Hw);
  ASSERT_FALSE(FromYaml.empty());
  ASSERT_EQ(FromYaml.size(), FromOnnx.size());
  EXPECT_TRUE(FromYaml == FromOnnx) << Model << ": the programs differ";
}

class RoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(RoundTrip, OnnxExportCompilesToTheSameProgramAsTheYaml) {
  const Case &C = GetParam();
  std::string Text = readText(std::string(SNOW_SOURCE_DIR "/models/") + C.Model + ".yaml");
  ASSERT_FALSE(Text.empty());
  if (C.Size) {
    const std::string Full = "shape: [3, 224, 224]";
    size_t At = Text.find(Full);
    ASSERT_NE(At, std::string::npos) << C.Model << ".yaml no longer has a 224x224 input";
    Text.replace(At, Full.size(),
                 "shape: [3, " + std::to_string(C.Size) + ", " + std::to_string(C.Size) + "]");
  }
  expectSameProgram(Text, C.Model);
}

// mul layers (a product of two convs, a square, a product with the graph
// input) export as ONNX Mul nodes of two tensors and import as mul again.
TEST(RoundTripLayers, ProductsOfTwoMaps) {
  expectSameProgram(R"(name: products
input: {name: data, shape: [5, 9, 7]}
weights: {seed: 3}
layers:
  - {name: a, type: conv, out_channels: 5, kernel: 3, pad: 1}
  - {name: b, type: conv, input: data, out_channels: 5, kernel: 1}
  - {name: ab, type: mul, inputs: [a, b]}
  - {name: sq, type: mul, inputs: [ab, ab]}
  - {name: gate, type: sigmoid, input: a}
  - {name: g, type: mul, inputs: [sq, gate]}
  - {name: x, type: mul, inputs: [g, data]}
  - {name: proj, type: conv, out_channels: 3, kernel: 1}
)",
                    "products");
}

// shuffle and slice export as PyTorch writes channel_shuffle and chunk
// (Reshape, Transpose, Reshape; Slice), which the importer folds into the
// convs that read them, its own way (docs/onnx.md, "Channel moves"): fewer
// MACs than the selections as written, and the same function as the YAML
// model's canonical form, which folds them too (model-format.md, step 4b).
TEST(RoundTripLayers, ShufflesAndSlicesExportAsPyTorchWritesThem) {
  const std::string Text = R"(name: moves
input: {name: data, shape: [3, 8, 6]}
weights: {seed: 9}
layers:
  - {name: c0, type: conv, out_channels: 12, kernel: 3, pad: 1, relu: true}
  - {name: x1, type: slice, begin: 0, channels: 6}
  - {name: x2, type: slice, input: c0, begin: 6, channels: 6}
  - {name: a1, type: conv, out_channels: 6, kernel: 1, bias: false}
  - {name: a1_bn, type: batchnorm}
  - {name: a1_r, type: relu}
  - {name: a2, type: conv, out_channels: 6, kernel: 3, pad: 1, groups: 6}
  - {name: cat1, type: concat, inputs: [x1, a2]}
  - {name: sh1, type: shuffle, groups: 3}
  - {name: b1, type: conv, out_channels: 12, kernel: 3, stride: 2, pad: 1, groups: 12}
  - {name: b2, type: conv, out_channels: 6, kernel: 1, relu: true}
  - {name: d1, type: conv, input: sh1, out_channels: 6, kernel: 1, stride: 2, relu: true}
  - {name: cat2, type: concat, inputs: [b2, d1]}
  - {name: sh2, type: shuffle, groups: 2}
  - {name: out, type: conv, out_channels: 5, kernel: 1}
)";
  llvm::Expected<ir::Graph> Yaml = ir::parseModel(Text, "moves.yaml");
  ASSERT_TRUE(bool(Yaml)) << llvm::toString(Yaml.takeError());
  llvm::Expected<std::string> Bytes = ir::exportOnnx(*Yaml);
  ASSERT_TRUE(bool(Bytes)) << llvm::toString(Bytes.takeError());
  for (const char *Op : {"Reshape", "Transpose", "Slice"})
    EXPECT_NE(Bytes->find(Op), std::string::npos) << Op;
  llvm::Expected<ir::OnnxModel> Onnx = ir::parseOnnx(*Bytes, "moves.onnx");
  ASSERT_TRUE(bool(Onnx)) << llvm::toString(Onnx.takeError());
  EXPECT_LT(Onnx->G.macs(), Yaml->macs()) << "the moves import as moves, not as convs";
  ASSERT_FALSE(bool(ir::canonicalize(*Yaml)));
  ASSERT_FALSE(bool(ir::canonicalize(Onnx->G)));
  test::expectSameFunction(*Yaml, Onnx->G, "moves");
}

// layernorm exports as PyTorch writes LayerNorm2d at opset 13 (Transpose,
// ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add, Transpose) and
// imports as one layernorm again.
TEST(RoundTripLayers, LayerNorms) {
  expectSameProgram(R"(name: norms
input: {name: data, shape: [6, 8, 5]}
weights: {seed: 5}
layers:
  - {name: c, type: conv, out_channels: 12, kernel: 3, pad: 1}
  - {name: ln, type: layernorm, eps: 1e-6}
  - {name: pw, type: conv, out_channels: 6, kernel: 1}
  - {name: pool, type: global_avgpool}
  - {name: headln, type: layernorm}
  - {name: fc, type: fc, out_features: 4}
)",
                    "norms");
}

INSTANTIATE_TEST_SUITE_P(Models, RoundTrip,
                         ::testing::Values(Case{"tiny", 0}, Case{"alexnet", 64},
                                           Case{"googlenet", 64}, Case{"resnet50", 64},
                                           Case{"vgg16", 64}, Case{"mobilenet_v1", 64},
                                           Case{"squeezenet1_1", 64}, Case{"mobilenet_v2", 64},
                                           Case{"efficientnet_b0", 64}),
                         [](const ::testing::TestParamInfo<Case> &I) {
                           return std::string(I.param.Model);
                         });

} // namespace
