//===- CompileRun.h - Import, compile and run a small ONNX model -*- C++ -*-===//
//
// Shared by the importer's pattern tests: the model from protobuf text (or
// its one-line error), and snowc's whole pipeline on it with the simulated
// and reference outputs.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_ONNX_COMPILERUN_H
#define SNOW_TESTS_ONNX_COMPILERUN_H

#include "../e2e/Harness.h"

#include "snow/ir/FloatEval.h"
#include "snow/ir/Onnx.h"
#include "snow/isa/Program.h"

#include <gtest/gtest.h>

namespace snow::onnxtest {

inline ir::OnnxModel import(const std::string &Text) {
  llvm::Expected<ir::OnnxModel> M = ir::parseOnnxText(Text, "m.onnx");
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return {};
  }
  return std::move(*M);
}

inline std::string importError(const std::string &Text) {
  llvm::Expected<ir::OnnxModel> M = ir::parseOnnxText(Text, "m.onnx");
  if (M) {
    ADD_FAILURE() << "the model imported";
    return "";
  }
  std::string Msg = llvm::toString(M.takeError());
  EXPECT_EQ(Msg.find('\n'), std::string::npos) << "one line: " << Msg;
  return Msg;
}

/// snowc's pipeline (canonicalize, calibrate on the default input, quantize,
/// compile for zc706), then the program on the simulator and the graph on
/// the reference executor. Returns the program bytes; R gets both outputs,
/// Quantized (when given) the graph as compiled.
inline std::vector<uint8_t> compileAndRun(const std::string &Text, test::RunResult &R,
                                          ir::Graph *Quantized = nullptr) {
  ir::OnnxModel M = import(Text);
  ir::Graph &G = M.G;
  if (G.Layers.empty())
    return {};
  auto Hw = isa::loadHwConfig("zc706");
  EXPECT_TRUE(bool(Hw)) << llvm::toString(Hw.takeError());
  if (!Hw)
    return {};
  llvm::Error E = canonicalize(G);
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
  auto F = calibrate(G, int(Hw->ActFracBits), defaultInput(G));
  EXPECT_TRUE(bool(F)) << llvm::toString(F.takeError());
  if (!F)
    return {};
  E = quantize(G, *F);
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
  // (Sliced convs' channels ordered by output groups as snowc orders them;
  // the reference runs the graph as canonicalized, as snowref does.)
  ir::Graph Aligned = G;
  compiler::alignSlices(Aligned, *Hw);
  auto P = compiler::compile(Aligned, *Hw);
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  if (!P)
    return {};
  std::vector<int16_t> In;
  for (float V : defaultInput(G))
    In.push_back(floatToFixed(V, G.InputFrac));
  EXPECT_TRUE(test::simulateOn(*P, In, /*TimingOnly=*/false, R.Stats, &R.Sim));
  R.Ref = ref::runFixed(G, In, Hw->AccBits);
  if (Quantized)
    *Quantized = G;
  return isa::serialize(*P);
}

/// Compiles Text, checks the simulator against the reference bit for bit,
/// and returns the run and the quantized graph.
inline test::RunResult expectBitExact(const std::string &Text, ir::Graph *Q = nullptr) {
  test::RunResult R;
  ir::Graph G;
  EXPECT_FALSE(compileAndRun(Text, R, &G).empty());
  EXPECT_TRUE(test::sameBits(R));
  // A selection layer copies values: its weights are exactly 0 and 1 in
  // their format, so each output is one input value, rounded only when
  // calibration gives the output fewer fraction bits than the input (a
  // concat's common format with larger values).
  for (const ir::Layer &L : G.Layers)
    if (L.TypeName == "select") {
      for (int16_t W : L.QWeights)
        EXPECT_TRUE(W == 0 || W == int16_t(1 << L.WFrac)) << L.Name << " " << W;
    }
  if (Q)
    *Q = std::move(G);
  return R;
}

/// The float result of M (canonicalized) on its default input, and that input.
inline std::vector<float> floatRun(ir::OnnxModel M, std::vector<float> &X) {
  X = ir::defaultInput(M.G);
  EXPECT_FALSE(bool(ir::canonicalize(M.G)));
  return ir::runFloat(M.G, X);
}

} // namespace snow::onnxtest

#endif
