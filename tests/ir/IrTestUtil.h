//===- IrTestUtil.h - Parse a model text, or expect its error -*- C++ -*-===//
//
// Most front-end tests write a few lines of model YAML, parse them as
// "m.yaml" and look at the graph or at the error. These helpers are that
// plumbing, written once so that every test reports a failed parse the same
// way (the parser's own message) and checks an error by its parts: the
// "m.yaml:LINE:" prefix, the layer and the offending key or value.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_IR_IRTESTUTIL_H
#define SNOW_TESTS_IR_IRTESTUTIL_H

#include "../support/ScratchDir.h"
#include "snow/ir/Graph.h"
#include "snow/support/Npy.h"
#include <gtest/gtest.h>
#include <initializer_list>
#include <string>
#include <vector>

namespace snow::test {

/// "name: m", the input shape (as YAML, "[C, H, W]"), the seed, "layers:"
/// and Layers: the first layer is on line 5.
inline std::string seededModel(const std::string &InShape, const std::string &Seed,
                               const std::string &Layers) {
  return "name: m\ninput: {shape: " + InShape + "}\nweights: {seed: " + Seed + "}\nlayers:\n" +
         Layers;
}

/// Parses Text as "m.yaml"; a parse error fails the test and yields an empty graph.
inline ir::Graph parseOk(const std::string &Text) {
  auto G = ir::parseModel(Text, "m.yaml");
  EXPECT_TRUE(bool(G)) << llvm::toString(G.takeError());
  return G ? std::move(*G) : ir::Graph();
}

/// Expects Message to contain every one of Parts.
template <typename Part>
void expectMessageHas(const std::string &Message, std::initializer_list<Part> Parts) {
  for (const Part &P : Parts)
    EXPECT_NE(Message.find(P), std::string::npos) << "expected '" << P << "' in: " << Message;
}

/// The message parseModel gives for Text, or a marker if it succeeded.
inline std::string errorOf(const std::string &Text) {
  auto G = ir::parseModel(Text, "m.yaml");
  if (G)
    return "<no error>";
  return llvm::toString(G.takeError());
}

/// Expects parsing Text to fail with a message containing every one of Parts.
inline void expectError(const std::string &Text, std::initializer_list<const char *> Parts) {
  expectMessageHas(errorOf(Text), Parts);
}

/// A scratch directory for a model file m.yaml and the .npy files it names
/// (weights_file, gamma_file, ...), which are read relative to the model.
class ModelDirTest : public ScratchDirTest {
protected:
  explicit ModelDirTest(std::string Prefix) : ScratchDirTest(std::move(Prefix)) {}

  /// Writes a float32 .npy of Shape holding Values, padded with Pad.
  void writeArray(const std::string &Name, std::vector<uint64_t> Shape, std::vector<float> Values,
                  float Pad = 0.0f) {
    NpyArray A;
    A.Shape = std::move(Shape);
    A.F32 = std::move(Values);
    A.F32.resize(A.elems(), Pad);
    ASSERT_FALSE(llvm::errorToBool(writeNpy(path(Name), A)));
  }

  /// Writes Text as m.yaml and loads it (the path the user's tools take).
  llvm::Expected<ir::Graph> loadText(const std::string &Text) {
    return ir::loadModel(write("m.yaml", Text));
  }
};

} // namespace snow::test

#endif
