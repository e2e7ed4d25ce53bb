//===- RefTestUtil.h - Hand-built graphs for the reference tests -*- C++ -*-===//
//
// The reference tests build small graphs by hand (no YAML, so each test
// states every number the arithmetic depends on), run them through the
// verifier and the fixed-point executor, and compare with values worked out
// in the test's comments. This header holds what they all need: the graph
// shell, a layer with a square window whose output shape follows the window
// rule, the verified run, and inputs on the Q8.8 grid for the float
// comparisons.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_REF_REFTESTUTIL_H
#define SNOW_TESTS_REF_REFTESTUTIL_H

#include "snow/ref/Reference.h"
#include "snow/support/Rng.h"
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace snow::test {

using V = std::vector<int16_t>;

/// A graph named Name whose input is In in Q.InputFrac, holding Layers.
inline ir::Graph graphOf(std::string Name, ir::Shape In, int InputFrac,
                         std::vector<ir::Layer> Layers = {}) {
  ir::Graph G;
  G.Name = std::move(Name);
  G.Input = In;
  G.InputFrac = InputFrac;
  G.Layers = std::move(Layers);
  return G;
}

/// A layer of Kind reading the In-shaped graph input through a K x K window
/// with stride S and Pad on every side; OutC channels of the size the window
/// rule gives. Formats and parameters are the caller's.
inline ir::Layer windowLayer(std::string Name, ir::LayerKind Kind, ir::Shape In, unsigned OutC,
                             unsigned K, unsigned S, unsigned Pad, bool CeilMode = false) {
  ir::Layer L;
  L.Name = std::move(Name);
  L.Kind = Kind;
  L.In = In;
  L.KH = L.KW = K;
  L.SH = L.SW = S;
  L.PadT = L.PadB = L.PadL = L.PadR = Pad;
  L.CeilMode = CeilMode;
  L.Out = {OutC, ref::windowOutputSize(In.H, K, S, Pad, Pad, CeilMode),
           ref::windowOutputSize(In.W, K, S, Pad, Pad, CeilMode)};
  return L;
}

/// Runs G on In after the verifier accepted it; a rejected graph fails the
/// test and yields an empty output.
inline V runOk(const ir::Graph &G, const V &In, unsigned AccBits = 48) {
  if (llvm::Error E = ref::verifyGraph(G)) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return {};
  }
  return ref::runFixed(G, In, AccBits);
}

/// The verifier's message, or "" if it accepts G.
inline std::string verifyMessage(const ir::Graph &G) {
  llvm::Error E = ref::verifyGraph(G);
  return E ? llvm::toString(std::move(E)) : "";
}

/// Elems seeded inputs on the Q8.8 grid (in [-1, 1)), in fixed point and as
/// the same floats, so input quantization is no part of a fixed/float error.
struct GridInput {
  V Fixed;
  std::vector<float> Float;
};

inline GridInput q88Input(uint64_t Elems, uint64_t Seed) {
  Rng R(Seed);
  GridInput In;
  for (uint64_t I = 0; I < Elems; ++I) {
    In.Fixed.push_back(int16_t(std::lround(R.uniform(-256, 256))));
    In.Float.push_back(float(In.Fixed.back()) / 256.0f);
  }
  return In;
}

} // namespace snow::test

#endif
