//===- ModelErrorsTest.cpp - Every model YAML error names file:line -------===//
//
// One test per rejected input of docs/model-format.md. Each checks the
// "FILE:LINE:" prefix, the layer and the offending key or value, because an
// error that does not point at the mistake sends the user hunting.
//
//===----------------------------------------------------------------------===//

#include "../support/ModelPrefix.h"
#include "IrTestUtil.h"

#include <gtest/gtest.h>

using namespace snow::ir;
using namespace snow::test;
using namespace snow::test::modelprefix;

TEST(ModelErrors, YamlSyntaxError) {
  expectError(Top + C1 + "  - {name: c2, type: conv\n", {"m.yaml:6: YAML syntax error"});
}

TEST(ModelErrors, TopLevelMustBeAMapping) {
  expectError("", {"m.yaml:1: expected a mapping"});
  expectError("- a\n- b\n", {"m.yaml:1: expected a mapping", "got a list"});
}

TEST(ModelErrors, UnknownTopLevelKey) {
  expectError(Top + C1 + "weight: {seed: 1}\n",
              {"m.yaml:5: unknown key 'weight' at top level", "known keys: name, input"});
}

TEST(ModelErrors, UnknownLayerKey) {
  expectError(Top + C1 + "  - {name: c2, type: conv, out_channels: 4, kernel: 3, strides: 2}\n",
              {"m.yaml:5: layer 'c2': unknown key 'strides' for type 'conv'"});
}

TEST(ModelErrors, ConvOnlyKeysAreUnknownOnPooling) {
  expectError(Top + C1 + "  - {name: p, type: maxpool, kernel: 2, relu: true}\n",
              {"m.yaml:5: layer 'p': unknown key 'relu' for type 'maxpool'"});
  expectError(Top + C1 + "  - {name: p, type: maxpool, kernel: 2, out_channels: 4}\n",
              {"m.yaml:5: layer 'p': unknown key 'out_channels' for type 'maxpool'"});
  expectError(Top + "  - {name: c, type: conv, out_channels: 4, kernel: 3, ceil_mode: true}\n",
              {"m.yaml:4: layer 'c': unknown key 'ceil_mode' for type 'conv'"});
}

TEST(ModelErrors, UnknownKeysInInputAndWeights) {
  expectError("name: m\ninput: {shap: [3, 8, 8]}\nlayers:\n" + C1,
              {"m.yaml:2: input: unknown key 'shap'"});
  expectError(Top + C1 + "weights: {sed: 1}\n", {"m.yaml:5: weights: unknown key 'sed'"});
}

TEST(ModelErrors, DuplicateKey) {
  expectError(Top + "  - {name: c, type: conv, out_channels: 4, kernel: 3, kernel: 5}\n",
              {"m.yaml:4: layer 'c': key 'kernel' is given twice"});
}

TEST(ModelErrors, UnsupportedLayerType) {
  expectError(Top + C1 + "  - {name: x, type: lrn, size: 5}\n",
              {"m.yaml:5: layer 'x': unsupported layer type 'lrn' (supported: conv, maxpool, "
               "avgpool, global_avgpool, fc, concat, add, mul, relu, batchnorm, layernorm, "
               "flatten, softmax, "
               "scale, shuffle, slice, relu6, clip, sigmoid, hardsigmoid, hardswish, silu, gelu, "
               "tanh, rsqrt)"});
}

TEST(ModelErrors, ActivationAndScaleKeys) {
  expectError(Top + C1 + "  - {name: x, type: clip, min: 2, max: 1}\n",
              {"layer 'x': 'max' (1) must be greater than 'min' (2)"});
  expectError(Top + C1 + "  - {name: x, type: clip, max: 1}\n",
              {"layer 'x': missing required key 'min'"});
  expectError(Top + C1 + "  - {name: x, type: hardsigmoid, alpha: -1}\n",
              {"'alpha' must be a positive number"});
  expectError(Top + C1 + "  - {name: x, type: scale, inputs: [c1, c1]}\n",
              {"the scale must hold one value per channel of the input"});
}

TEST(ModelErrors, MissingRequiredTopLevelKeys) {
  expectError("input: {shape: [3, 8, 8]}\nlayers:\n" + C1,
              {"m.yaml:1: missing required key 'name'"});
  expectError("name: m\nlayers:\n" + C1, {"m.yaml:1: missing required key 'input'"});
  expectError("name: m\ninput: {name: x}\nlayers:\n" + C1,
              {"m.yaml:2: input: missing required key 'shape'"});
  expectError("name: m\ninput: {shape: [3, 8, 8]}\n", {"m.yaml:1: missing required key 'layers'"});
}

TEST(ModelErrors, LayersMustBeANonEmptyList) {
  expectError(Top.substr(0, Top.size() - 1) + " []\n",
              {"m.yaml:3: 'layers' must be a non-empty list"});
  expectError(Top + "  foo: 1\n", {"m.yaml:4: 'layers' must be a non-empty list", "a mapping"});
}

TEST(ModelErrors, MissingRequiredLayerKeys) {
  expectError(Top + "  - {type: conv, out_channels: 4, kernel: 3}\n",
              {"m.yaml:4: layer #1: missing required key 'name'"});
  expectError(Top + C1 + "  - {name: c2, out_channels: 4, kernel: 3}\n",
              {"m.yaml:5: layer 'c2': missing required key 'type'"});
  expectError(Top + C1 + "  - {name: c2, type: conv, out_channels: 4}\n",
              {"m.yaml:5: layer 'c2': missing required key 'kernel'"});
  expectError(Top + C1 + "  - {name: c2, type: conv, kernel: 3}\n",
              {"m.yaml:5: layer 'c2': missing required key 'out_channels'"});
  expectError(Top + C1 + "  - {name: p, type: maxpool}\n",
              {"m.yaml:5: layer 'p': missing required key 'kernel'"});
}

TEST(ModelErrors, WrongValueTypes) {
  expectError(Top + "  - {name: c, type: conv, out_channels: 4, kernel: \"big\"}\n",
              {"m.yaml:4: layer 'c': 'kernel' must be a positive integer or [h, w], got 'big'"});
  expectError(Top + "  - {name: c, type: conv, out_channels: 4, kernel: \"3\"}\n",
              {"m.yaml:4: layer 'c': 'kernel' must be", "got '3'"});
  expectError(Top + "  - {name: c, type: conv, out_channels: 4, kernel: 2.5}\n",
              {"m.yaml:4: layer 'c': 'kernel'", "got '2.5'"});
  expectError(Top + "  - {name: c, type: conv, out_channels: 4, kernel: [3, 3, 3]}\n",
              {"m.yaml:4: layer 'c': 'kernel' must be", "got a list of 3"});
  expectError(Top + "  - {name: c, type: conv, out_channels: [4], kernel: 3}\n",
              {"m.yaml:4: layer 'c': 'out_channels' must be a positive integer, got a list"});
  expectError(
      Top + "  - {name: c, type: conv, out_channels: 4, kernel: 3, pad: [1, 1, 1]}\n",
      {"m.yaml:4: layer 'c': 'pad' must be", "[top, bottom, left, right]", "got a list of 3"});
  expectError(Top + "  - {name: c, type: conv, out_channels: 4, kernel: 3, relu: maybe}\n",
              {"m.yaml:4: layer 'c': 'relu' must be true or false, got 'maybe'"});
  expectError(Top + "  - {name: [c], type: conv, out_channels: 4, kernel: 3}\n",
              {"m.yaml:4: layer #1: 'name' must be a name, got a list"});
  expectError("name: m\ninput: {shape: [3, 8]}\nlayers:\n" + C1,
              {"m.yaml:2: input: 'shape' must be [channels, height, width]"});
  expectError(Top + C1 + "weights: {seed: -1}\n",
              {"m.yaml:5: weights: 'seed' must be a non-negative 64-bit integer, got '-1'"});
  expectError(Top + C1 + "  - c2\n", {"m.yaml:5: layer #2: expected a mapping", "got 'c2'"});
}

TEST(ModelErrors, ZeroOrNegativeSizes) {
  expectError(Top + "  - {name: c, type: conv, out_channels: 0, kernel: 3}\n",
              {"m.yaml:4: layer 'c': 'out_channels' must be positive, got '0'"});
  expectError(Top + "  - {name: c, type: conv, out_channels: 4, kernel: [3, -1]}\n",
              {"m.yaml:4: layer 'c': 'kernel' must be positive, got '-1'"});
  expectError(Top + "  - {name: c, type: conv, out_channels: 4, kernel: 3, stride: 0}\n",
              {"m.yaml:4: layer 'c': 'stride' must be positive, got '0'"});
  expectError(Top + "  - {name: c, type: conv, out_channels: 4, kernel: 3, pad: -1}\n",
              {"m.yaml:4: layer 'c': 'pad' must be non-negative, got '-1'"});
  expectError("name: m\ninput: {shape: [3, 0, 8]}\nlayers:\n" + C1,
              {"m.yaml:2: input: 'shape' must be positive, got '0'"});
  expectError(Top + "  - {name: c, type: conv, out_channels: 1000000, kernel: 3}\n",
              {"m.yaml:4: layer 'c': 'out_channels' is too large: '1000000'"});
}

TEST(ModelErrors, KernelLargerThanPaddedInput) {
  // c1 (3x3, no pad) takes 8x8 to 6x6 and p halves that, so c3's 5x5 kernel sees 3x3.
  expectError(Top + C1 +
                  "  - {name: p, type: maxpool, kernel: 2}\n"
                  "  - {name: c3, type: conv, out_channels: 4, kernel: 5}\n",
              {"m.yaml:6: layer 'c3': kernel 5x5 is larger than its padded input 3x3"});
  expectError(Top + "  - {name: c, type: conv, out_channels: 4, kernel: [11, 1], pad: [1, 0]}\n",
              {"m.yaml:4: layer 'c': kernel 11x1 is larger than its padded input 10x8"});
}

TEST(ModelErrors, PoolingPadAtMostHalfTheKernel) {
  expectError(Top + "  - {name: p, type: maxpool, kernel: 3, pad: 2}\n",
              {"m.yaml:4: layer 'p': pad '2' is more than half the kernel 3x3"});
  expectError(Top + "  - {name: p, type: maxpool, kernel: [4, 2], pad: [0, 0, 0, 2]}\n",
              {"m.yaml:4: layer 'p': pad '2' is more than half the kernel 4x2"});
  EXPECT_EQ(errorOf(Top + "  - {name: p, type: maxpool, kernel: [4, 2], pad: [2, 1]}\n"),
            "<no error>");
}

TEST(ModelErrors, DuplicateLayerName) {
  expectError(Top + C1 + "  - {name: c1, type: maxpool, kernel: 2}\n",
              {"m.yaml:5: layer 'c1': duplicate layer name (first defined at m.yaml:4)"});
}

TEST(ModelErrors, LayerNamedLikeTheGraphInput) {
  expectError(Top + "  - {name: data, type: maxpool, kernel: 2}\n",
              {"m.yaml:4: layer 'data': the name is already used by the graph input"});
}

TEST(ModelErrors, DanglingInput) {
  expectError(Top + C1 + "  - {name: c2, type: conv, input: c9, out_channels: 4, kernel: 3}\n",
              {"m.yaml:5: layer 'c2': input 'c9' is not defined"});
}

TEST(ModelErrors, ForwardReferenceIsACycleNotADanglingName) {
  expectError(
      Top + "  - {name: c1, type: conv, input: c2, out_channels: 4, kernel: 3}\n"
            "  - {name: c2, type: conv, input: c1, out_channels: 4, kernel: 3}\n",
      {"m.yaml:4: layer 'c1': input 'c2' names a later layer", "cycle or forward reference"});
  expectError(
      Top + "  - {name: c1, type: conv, input: c1, out_channels: 4, kernel: 3}\n",
      {"m.yaml:4: layer 'c1': input 'c1' is the layer itself", "cycle or forward reference"});
}

TEST(ModelErrors, ErrorsPointAtTheLineOfTheValueInBlockStyle) {
  expectError("name: m\n"
              "input: {shape: [3, 8, 8]}\n"
              "layers:\n"
              "  - name: c\n"
              "    type: conv\n"
              "    out_channels: 4\n"
              "    kernel: 3\n"
              "    stride: zero\n",
              {"m.yaml:8: layer 'c': 'stride' must be", "got 'zero'"});
}

TEST(ModelErrors, MissingModelFile) {
  auto G = loadModel("/nonexistent/dir/x.yaml");
  ASSERT_FALSE(bool(G));
  std::string E = llvm::toString(G.takeError());
  EXPECT_NE(E.find("/nonexistent/dir/x.yaml: cannot read model"), std::string::npos) << E;
}
