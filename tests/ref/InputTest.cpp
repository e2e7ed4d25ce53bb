//===- InputTest.cpp - Where a reference run's input comes from -----------===//
//
// Pins the input rules of snowref: float32 files are quantized by the
// contract's rule, int16 files are taken as raw fixed point, a leading batch
// of 1 is fine, and any other shape is an error naming the file and both
// shapes.
//
//===----------------------------------------------------------------------===//

#include "snow/ref/Input.h"
#include "RefTestUtil.h"
#include "snow/support/Npy.h"
#include "snow/support/Rng.h"

#include <gtest/gtest.h>

using namespace snow;

namespace {

ir::Graph inputGraph() { return test::graphOf("inputs", {2, 1, 3}, 8); }

std::string writeTemp(const std::string &Name, const NpyArray &A) {
  std::string Path = ::testing::TempDir() + "snowref_" + Name;
  if (llvm::Error E = writeNpy(Path, A))
    ADD_FAILURE() << llvm::toString(std::move(E));
  return Path;
}

TEST(RefInput, DefaultIsTheSeededInputQuantized) {
  ir::Graph G = inputGraph();
  ref::ModelInput In = ref::defaultModelInput(G);
  EXPECT_EQ(In.Float, defaultInputValues(6, "inputs"));
  ASSERT_EQ(In.Fixed.size(), 6u);
  for (size_t I = 0; I < 6; ++I)
    EXPECT_EQ(In.Fixed[I], ir::toFixed(In.Float[I], 8));
}

TEST(RefInput, Float32IsQuantized) {
  NpyArray A;
  A.Shape = {2, 1, 3};
  A.F32 = {0.5f, -1.0f, 1.0f / 512, -1.0f / 512, 200.0f, -200.0f};
  llvm::Expected<ref::ModelInput> In = ref::readModelInput(inputGraph(), writeTemp("f.npy", A));
  ASSERT_TRUE(bool(In)) << llvm::toString(In.takeError());
  // Half away from zero at 0.5 LSB; saturation past the Q7.8 range.
  EXPECT_EQ(In->Fixed, (std::vector<int16_t>{128, -256, 1, -1, 32767, -32768}));
  EXPECT_EQ(In->Float, A.F32); // The float path sees the original values.
}

TEST(RefInput, Int16IsRawFixedPointWithOptionalBatch) {
  NpyArray A;
  A.Type = NpyArray::DType::I16;
  A.Shape = {1, 2, 1, 3};
  A.I16 = {256, -128, 1, 0, 32767, -32768};
  llvm::Expected<ref::ModelInput> In = ref::readModelInput(inputGraph(), writeTemp("i.npy", A));
  ASSERT_TRUE(bool(In)) << llvm::toString(In.takeError());
  EXPECT_EQ(In->Fixed, A.I16);
  EXPECT_EQ(In->Float,
            (std::vector<float>{1.0f, -0.5f, 1.0f / 256, 0.0f, 32767.0f / 256, -128.0f}));
}

TEST(RefInput, WrongShapeNamesFileAndBothShapes) {
  NpyArray A;
  A.Shape = {3, 2};
  A.F32.assign(6, 0.0f);
  std::string Path = writeTemp("bad.npy", A);
  llvm::Expected<ref::ModelInput> In = ref::readModelInput(inputGraph(), Path);
  ASSERT_FALSE(bool(In));
  std::string M = llvm::toString(In.takeError());
  EXPECT_EQ(M, "input '" + Path +
                   "' has shape (3, 2), but model 'inputs' expects (2, 1, 3) or (1, 2, 1, 3)");
}

TEST(RefInput, NonFiniteFloatIsAnError) {
  NpyArray A;
  A.Shape = {2, 1, 3};
  A.F32 = {0, 0, 0, 0, std::nanf(""), 0};
  llvm::Expected<ref::ModelInput> In = ref::readModelInput(inputGraph(), writeTemp("n.npy", A));
  ASSERT_FALSE(bool(In));
  EXPECT_NE(llvm::toString(In.takeError()).find("element 4"), std::string::npos);
}

} // namespace
