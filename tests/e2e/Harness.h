//===- Harness.h - Compile, simulate and run the reference on one model -*- C++ -*-===//
//
// The bit-exact tests all do the same thing: parse a model from YAML text,
// quantize it for a hardware preset (per-layer formats from calibration, as
// snowc and snowref choose them by default), compile it, run the program on the
// simulator and the graph on the reference executor with the same input, and
// compare. This header does that once.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_E2E_HARNESS_H
#define SNOW_TESTS_E2E_HARNESS_H

#include "snow/compiler/Compiler.h"
#include "snow/ir/Calibrate.h"
#include "snow/ir/Graph.h"
#include "snow/isa/HwConfig.h"
#include "snow/isa/Isa.h"
#include "snow/isa/Program.h"
#include "snow/ref/Reference.h"
#include "snow/sim/Simulator.h"
#include "snow/support/Rng.h"
#include "snow/support/Tensor.h"
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace snow::test {

/// The text of models/NAME.yaml.
inline std::string zooModel(const std::string &Name) {
  std::ifstream In(std::string(SNOW_SOURCE_DIR) + "/models/" + Name + ".yaml");
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

/// Yaml parsed, canonicalized and quantized as snowc does by default
/// (calibrated formats, floats released once quantized), seeded weights
/// drawn as Values says; nullopt after a failure (which fails the test).
inline std::optional<ir::Graph> quantizedGraph(const std::string &Yaml, const isa::HwConfig &Hw,
                                               ir::SeededValues Values = ir::SeededValues::Eager) {
  auto G = ir::parseModel(Yaml, "test.yaml", Values);
  EXPECT_TRUE(bool(G)) << llvm::toString(G.takeError());
  if (!G)
    return std::nullopt;
  EXPECT_FALSE(bool(ir::canonicalize(*G)));
  auto F = ir::calibrate(*G, int(Hw.ActFracBits), ir::defaultInput(*G));
  EXPECT_TRUE(bool(F)) << llvm::toString(F.takeError());
  if (!F)
    return std::nullopt;
  EXPECT_FALSE(bool(ir::quantize(*G, *F, ir::FloatWeights::Release)));
  return std::move(*G);
}

/// quantizedGraph compiled for HwName with Opts: the serialized program,
/// empty after a failure.
inline std::vector<uint8_t> compiledBytes(const std::string &Yaml, const std::string &HwName,
                                          const compiler::CompileOptions &Opts,
                                          ir::SeededValues Values = ir::SeededValues::Eager) {
  auto Hw = isa::loadHwConfig(HwName);
  EXPECT_TRUE(bool(Hw)) << llvm::toString(Hw.takeError());
  if (!Hw)
    return {};
  std::optional<ir::Graph> G = quantizedGraph(Yaml, *Hw, Values);
  if (!G)
    return {};
  if (Opts.AlignSlices)
    compiler::alignSlices(*G, *Hw);
  auto P = compiler::compile(*G, *Hw, Opts);
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  return P ? isa::serialize(*P) : std::vector<uint8_t>();
}

struct RunResult {
  std::vector<int16_t> Sim, Ref;
  sim::SimStats Stats;
  isa::Program Prog;
  uint64_t Macs = 0;
  std::vector<int> OutFrac; ///< Each layer's output format, as quantized.
};

/// G's default input (defaultInputValues) in its input format.
inline std::vector<int16_t> fixedInput(const ir::Graph &G) {
  std::vector<int16_t> In;
  for (float V : defaultInputValues(G.Input.elems(), G.Name))
    In.push_back(floatToFixed(V, G.InputFrac));
  return In;
}

/// Runs Prog on In (every frame of a batch, stacked) with the tests' cycle
/// limit; fills Stats and, unless TimingOnly, *Out with the output tensor.
inline ::testing::AssertionResult simulateOn(const isa::Program &Prog,
                                             const std::vector<int16_t> &In, bool TimingOnly,
                                             sim::SimStats &Stats, std::vector<int16_t> *Out) {
  sim::SimOptions SO;
  SO.TimingOnly = TimingOnly;
  SO.MaxCycles = 2'000'000'000ULL;
  auto S = sim::Simulator::create(Prog, SO);
  if (!S)
    return ::testing::AssertionFailure() << llvm::toString(S.takeError());
  if (auto Err = (*S)->setInput(In))
    return ::testing::AssertionFailure() << llvm::toString(std::move(Err));
  auto Run = (*S)->run();
  if (!Run)
    return ::testing::AssertionFailure() << "simulate: " << llvm::toString(Run.takeError());
  Stats = *Run;
  if (!TimingOnly && Out)
    *Out = (*S)->output();
  return ::testing::AssertionSuccess();
}

/// Runs Yaml on preset Hw; any failure is returned as a test failure message.
/// UniformFormat quantizes with the hardware's one format, as --uniform-format.
inline ::testing::AssertionResult runModel(const std::string &Yaml, const std::string &HwName,
                                           RunResult &R, const compiler::CompileOptions &Opts = {},
                                           bool TimingOnly = false, bool UniformFormat = false) {
  auto Hw = isa::loadHwConfig(HwName);
  if (!Hw)
    return ::testing::AssertionFailure() << llvm::toString(Hw.takeError());
  auto G = ir::parseModel(Yaml, "test.yaml");
  if (!G)
    return ::testing::AssertionFailure() << llvm::toString(G.takeError());
  if (auto Err = ir::canonicalize(*G, {/*OneFormat=*/UniformFormat}))
    return ::testing::AssertionFailure() << llvm::toString(std::move(Err));
  if (UniformFormat) {
    ir::quantize(*G, int(Hw->ActFracBits));
  } else {
    auto F = ir::calibrate(*G, int(Hw->ActFracBits), ir::defaultInput(*G));
    if (!F)
      return ::testing::AssertionFailure() << "calibrate: " << llvm::toString(F.takeError());
    if (auto Err = ir::quantize(*G, *F))
      return ::testing::AssertionFailure() << "quantize: " << llvm::toString(std::move(Err));
  }
  R.OutFrac.clear();
  for (const ir::Layer &L : G->Layers)
    R.OutFrac.push_back(L.OutFrac);
  // Sliced convs' channels ordered by output groups (ir::alignSlices) and
  // members of merged convs kept apart as convs of their own, as snowc
  // compiles them; the reference runs the graph as canonicalized, as
  // snowref does.
  std::optional<ir::Graph> Aligned;
  if (Opts.AlignSlices) {
    Aligned = *G;
    if (!compiler::alignSlices(*Aligned, *Hw))
      Aligned.reset();
  }
  const ir::Graph &Compiled = Aligned ? *Aligned : *G;
  std::optional<ir::Graph> Apart;
  if (compiler::keepsApart(Opts)) {
    Apart = Compiled;
    if (auto Err = compiler::applyApart(*Apart, Opts))
      return ::testing::AssertionFailure() << "apart: " << llvm::toString(std::move(Err));
  }
  auto P = compiler::compile(Apart ? *Apart : Compiled, *Hw, Opts);
  if (!P)
    return ::testing::AssertionFailure() << "compile: " << llvm::toString(P.takeError());
  R.Prog = std::move(*P);
  const std::vector<int16_t> In = fixedInput(*G);
  if (auto Ok = simulateOn(R.Prog, In, TimingOnly, R.Stats, &R.Sim); !Ok)
    return Ok;
  R.Macs = G->usefulMacs();
  if (TimingOnly)
    return ::testing::AssertionSuccess();
  R.Ref = ref::runFixed(*G, In, Hw->AccBits);
  return ::testing::AssertionSuccess();
}

/// Bit-exact comparison with the first differing element named.
inline ::testing::AssertionResult sameBits(const RunResult &R) {
  if (R.Sim.size() != R.Ref.size())
    return ::testing::AssertionFailure()
           << "sizes differ: sim " << R.Sim.size() << " ref " << R.Ref.size();
  size_t Diff = 0, First = 0;
  for (size_t I = 0; I < R.Sim.size(); ++I)
    if (R.Sim[I] != R.Ref[I] && Diff++ == 0)
      First = I;
  if (Diff)
    return ::testing::AssertionFailure()
           << Diff << " of " << R.Sim.size() << " outputs differ; first at CHW index " << First
           << ": sim " << R.Sim[First] << " ref " << R.Ref[First];
  return ::testing::AssertionSuccess();
}

/// The layers' cycles add up to the run's total (every cycle is some layer's).
inline ::testing::AssertionResult layerCyclesAddUp(const sim::SimStats &S) {
  uint64_t Sum = 0;
  for (const sim::LayerStats &L : S.Layers)
    Sum += L.Cycles;
  if (Sum != S.Cycles)
    return ::testing::AssertionFailure()
           << "layer cycles add up to " << Sum << ", the total is " << S.Cycles;
  return ::testing::AssertionSuccess();
}

/// A bit-exact match on outputs that are all zero or all saturated proves
/// nothing: require a spread of real values.
inline ::testing::AssertionResult informative(const std::vector<int16_t> &Out) {
  size_t Zero = 0, Sat = 0;
  for (int16_t V : Out) {
    Zero += V == 0;
    Sat += V == INT16_MAX || V == INT16_MIN;
  }
  double N = double(Out.size());
  if (Zero / N > 0.8 || Sat / N > 0.05)
    return ::testing::AssertionFailure() << "uninformative output: " << 100 * Zero / N
                                         << " % zero, " << 100 * Sat / N << " % saturated";
  return ::testing::AssertionSuccess();
}

/// Runs Yaml on Hw into R and checks it as every end-to-end test does: the
/// simulator's output equals the reference's bit for bit and, when
/// RequireInformative and there are 256 outputs or more, is informative.
/// False, after a failure, when the run itself failed.
inline bool runAndCompare(const std::string &Yaml, const std::string &Hw, bool RequireInformative,
                          RunResult &R) {
  ::testing::AssertionResult Ran = runModel(Yaml, Hw, R);
  EXPECT_TRUE(Ran);
  if (!Ran)
    return false;
  EXPECT_TRUE(sameBits(R));
  if (RequireInformative && R.Ref.size() >= 256) {
    EXPECT_TRUE(informative(R.Ref));
  }
  return true;
}

/// GoogLeNet's pool3 in small (PassesTest, BatchTest): a stride-2 max pool
/// of an inception block's concat, which only it reads, so canonicalize
/// pools each branch instead (docs/model-format.md, step 7a).
/// The layer indices of the program's marks, in program order (a switch
/// between layers, as a pool's step among its conv's, re-marks one).
inline std::vector<int64_t> markOrder(const isa::Program &P) {
  std::vector<int64_t> Order;
  for (const isa::Word128 &W : P.Code)
    if (auto I = isa::decode(W); I && I->Op == isa::Opcode::MARK)
      Order.push_back(I->imm);
  return Order;
}

/// How many times a step of layer Pool runs between two steps of layer
/// Host (by their indices in the program's layer table).
inline unsigned stepsBetween(const isa::Program &P, int64_t Host, int64_t Pool) {
  const std::vector<int64_t> Marks = markOrder(P);
  unsigned N = 0;
  for (size_t K = 2; K < Marks.size(); ++K)
    N += Marks[K - 2] == Host && Marks[K - 1] == Pool && Marks[K] == Host;
  return N;
}

/// The same, by the layers' names.
inline unsigned stepsBetween(const isa::Program &P, const std::string &Host,
                             const std::string &Pool) {
  int64_t H = -1, Q = -1;
  for (size_t I = 0; I < P.Layers.size(); ++I) {
    H = P.Layers[I].Name == Host ? int64_t(I) : H;
    Q = P.Layers[I].Name == Pool ? int64_t(I) : Q;
  }
  return stepsBetween(P, H, Q);
}

inline const char *const PoolOfConcatYaml = R"(name: poolcat
input: {name: data, shape: [32, 28, 28]}
weights: {seed: 4}
layers:
  - {name: a, type: conv, input: data, out_channels: 64, kernel: 1, relu: true}
  - {name: r, type: conv, input: data, out_channels: 48, kernel: 1, relu: true}
  - {name: b, type: conv, out_channels: 96, kernel: 3, pad: 1, relu: true}
  - {name: ab, type: concat, inputs: [a, b]}
  - {name: p, type: maxpool, kernel: 3, stride: 2, ceil_mode: true}
  - {name: c, type: conv, out_channels: 32, kernel: 1, relu: true}
)";

} // namespace snow::test

#endif
