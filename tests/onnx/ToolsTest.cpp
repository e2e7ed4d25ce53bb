//===- ToolsTest.cpp - ONNX through the command-line tools ----------------===//
//
// The conformance runner calls the libraries in process; these tests pin the
// same path through the real binaries, as a user runs it:
//   snowc model.onnx --const b=b.npy --const c=c.pb -o prog.bin
//   snowsim prog.bin --input a.npy --output-float y.npy      (a batch of N)
//   snowc model.yaml --export-onnx model.onnx
// and the one-line errors of the ONNX options.
//
//===----------------------------------------------------------------------===//

#include "../tools/ToolHarness.h"

#include "snow/ir/Onnx.h"
#include "snow/support/Npy.h"

#include <cmath>
#include <cstdlib>

using namespace snow;
using namespace snow::test;

namespace {

std::string backendTest(const std::string &Name) {
  const char *Env = std::getenv("SNOW_ONNX_TESTDATA");
  return std::string(Env && *Env ? Env : "/usr/share/libonnx-testdata/data") + "/" + Name;
}

class OnnxTools : public ToolTest {
protected:
  /// Writes the float32 TensorProto Pb as Name (.npy), keeping its dims.
  void pbToNpy(const std::string &Pb, const std::string &Name) {
    llvm::Expected<ir::OnnxTensor> T = ir::readOnnxTensor(Pb);
    ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
    NpyArray A;
    for (int64_t D : T->Dims)
      A.Shape.push_back(uint64_t(D));
    A.F32 = T->Floats;
    llvm::Error E = writeNpy(path(Name).string(), A);
    ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
  }
};

TEST_F(OnnxTools, ExportedYamlModelCompilesToTheSameProgram) {
  ASSERT_TRUE(succeeded(run("snowc", {tinyModel(), "--export-onnx", "tiny.onnx"})));
  ASSERT_TRUE(succeeded(run("snowc", {"tiny.onnx", "-o", "from-onnx.bin"})));
  ASSERT_TRUE(succeeded(run("snowc", {tinyModel(), "-o", "from-yaml.bin"})));
  EXPECT_EQ(read("from-onnx.bin"), read("from-yaml.bin"));
}

TEST_F(OnnxTools, GemmWithWeightsAsInputsRunsItsBatchFrameByFrame) {
  const std::string Dir = backendTest("node/test_gemm_default_vector_bias");
  ASSERT_TRUE(fs::exists(Dir + "/model.onnx")) << "install libonnx-testdata";
  const std::string Set = Dir + "/test_data_set_0/";
  pbToNpy(Set + "input_0.pb", "a.npy");
  pbToNpy(Set + "input_1.pb", "b.npy");
  // Constants may be .npy or the test's own .pb. --uniform-format: snowc
  // calibrates on the default input (uniform in [-1, 1]), whose outputs here
  // are smaller than the test's, so calibrated formats would saturate.
  ASSERT_TRUE(
      succeeded(run("snowc", {Dir + "/model.onnx", "--const", "b=b.npy", "--const",
                              "c=" + Set + "input_2.pb", "--uniform-format", "-o", "prog.bin"})));
  ASSERT_TRUE(succeeded(
      run("snowsim", {"prog.bin", "--input", "a.npy", "--output-float", "y.npy", "--quiet"})));
  llvm::Expected<NpyArray> Y = readNpy(path("y.npy").string());
  ASSERT_TRUE(bool(Y)) << llvm::toString(Y.takeError());
  llvm::Expected<ir::OnnxTensor> Want = ir::readOnnxTensor(Set + "output_0.pb");
  ASSERT_TRUE(bool(Want)) << llvm::toString(Want.takeError());
  ASSERT_EQ(Want->Dims.size(), 2u);
  EXPECT_EQ(Y->Shape,
            (std::vector<uint64_t>{uint64_t(Want->Dims[0]), uint64_t(Want->Dims[1]), 1, 1}));
  ASSERT_EQ(Y->F32.size(), Want->Floats.size());
  // Inputs in [0, 1) and a few products: Q7.8 inputs are off by 2^-9 at
  // most, so the outputs agree to a few hundredths (the conformance runner
  // checks the exact bound).
  for (size_t I = 0; I < Y->F32.size(); ++I)
    EXPECT_NEAR(Y->F32[I], Want->Floats[I], 0.05) << "value " << I;

  ASSERT_TRUE(
      succeeded(run("snowref", {Dir + "/model.onnx", "--const", "b=b.npy", "--const",
                                "c=" + Set + "input_2.pb", "--uniform-format", "--quiet"})));
}

TEST_F(OnnxTools, OnnxErrorsAreOneLine) {
  const std::string Gemm = backendTest("node/test_gemm_default_vector_bias/model.onnx");
  ASSERT_TRUE(fs::exists(Gemm)) << "install libonnx-testdata";
  EXPECT_TRUE(isCleanError(run("snowc", {Gemm, "-o", "p.bin"}),
                           {"model.onnx", "graph inputs 'a', 'b', 'c' have no value", "--const"}));
  EXPECT_TRUE(isCleanError(run("snowc", {Gemm, "--const", "b", "-o", "p.bin"}),
                           {"--const 'b': expected NAME=FILE"}));
  EXPECT_TRUE(isCleanError(run("snowc", {Gemm, "--const", "b=missing.npy", "-o", "p.bin"}),
                           {"missing.npy"}));
  EXPECT_TRUE(
      isCleanError(run("snowc", {backendTest("pytorch-converted/test_Conv2d_dilated/model.onnx"),
                                 "-o", "p.bin"}),
                   {"node 0 (Conv)", "attribute 'dilations' = [2, 2] is not supported"}));
  EXPECT_TRUE(
      isCleanError(run("snowc", {tinyModel(), "--const", "b=x.npy", "-o", "p.bin"}), {"--const"}));
  EXPECT_FALSE(exists("p.bin"));
}

} // namespace
