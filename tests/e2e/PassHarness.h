//===- PassHarness.h - What the compiler-pass tests share -------*- C++ -*-===//
//
// Helpers of PassesTest.cpp and OverlapTest.cpp: a model compiled with a
// pass on and off (both runs bit-exact against the reference executor),
// instruction and wait counts of a program, a layer's stats; and the two
// models every switch is turned off on (Passes.EverySwitchOffKeepsValues).
//
//===----------------------------------------------------------------------===//

#ifndef SNOW_TESTS_E2E_PASSHARNESS_H
#define SNOW_TESTS_E2E_PASSHARNESS_H

#include "Harness.h"
#include "RandomModels.h"
#include "snow/isa/Isa.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <string>

namespace snow::test {

inline std::string header(const std::string &Name, unsigned C, unsigned H, unsigned W) {
  return modelHeader(Name, C, H, W, 5);
}

/// MobileNet v2's stem (3 -> 32, stride 2) and block1 without an expansion
/// (a 3x3 depthwise conv of 32 channels, a 16-channel projection) at
/// 224x224: a block triple whose projection reads four pixels a step.
inline std::string stemBlock1(const std::string &Name) {
  return header(Name, 3, 224, 224) + R"(
  - {name: c, type: conv, out_channels: 32, kernel: 3, stride: 2, pad: 1, relu: true}
  - {name: d, type: conv, out_channels: 32, kernel: 3, pad: 1, groups: 32, relu: true}
  - {name: p, type: conv, out_channels: 16, kernel: 1}
)";
}

/// Runs Yaml with Opts on Hw and checks it bit-exact; returns the total cycles.
inline uint64_t cyclesOf(const std::string &Yaml, const std::string &Hw,
                         const compiler::CompileOptions &Opts, RunResult *Out = nullptr) {
  RunResult R;
  EXPECT_TRUE(runModel(Yaml, Hw, R, Opts));
  EXPECT_TRUE(sameBits(R));
  if (Out)
    *Out = R;
  return R.Stats.Cycles;
}

/// One model compiled with a pass on (the default) and with it off, both
/// runs checked bit-exact.
struct OnOff {
  RunResult On, Off;
};

inline OnOff withAndWithout(const std::string &Yaml, const std::string &Hw,
                            bool compiler::CompileOptions::*Pass,
                            const compiler::CompileOptions &On = {}) {
  compiler::CompileOptions Off = On;
  Off.*Pass = false;
  OnOff R;
  cyclesOf(Yaml, Hw, On, &R.On);
  cyclesOf(Yaml, Hw, Off, &R.Off);
  return R;
}

/// How many instructions of the program Pred holds for (every word must
/// decode).
inline unsigned countInsts(const isa::Program &P,
                           llvm::function_ref<bool(const isa::Inst &)> Pred) {
  unsigned N = 0;
  for (const isa::Word128 &W : P.Code) {
    auto I = isa::decode(W);
    EXPECT_TRUE(bool(I)) << llvm::toString(I.takeError());
    N += I && Pred(*I);
  }
  return N;
}

/// How many instructions of the program have opcode Op.
inline unsigned countOps(const isa::Program &P, isa::Opcode Op) {
  return countInsts(P, [Op](const isa::Inst &I) { return I.Op == Op; });
}

/// How many of the program's load-unit waits are on one of Sems.
inline unsigned loadWaits(const isa::Program &P, std::initializer_list<unsigned> Sems) {
  return countInsts(P, [&](const isa::Inst &I) {
    return I.Op == isa::Opcode::SYNC_LD_WAIT &&
           std::find(Sems.begin(), Sems.end(), unsigned(I.idx)) != Sems.end();
  });
}

/// The stats of the layer named Name.
inline const sim::LayerStats *layerNamed(const RunResult &R, const std::string &Name) {
  for (const sim::LayerStats &L : R.Stats.Layers)
    if (L.Name == Name)
      return &L;
  ADD_FAILURE() << "no layer " << Name;
  return nullptr;
}

/// Layer Name, and the whole run, take fewer cycles with the pass than
/// without.
inline void expectFaster(const OnOff &R, const std::string &Name) {
  const sim::LayerStats *On = layerNamed(R.On, Name), *Off = layerNamed(R.Off, Name);
  ASSERT_TRUE(On && Off);
  EXPECT_LT(On->Cycles, Off->Cycles) << Name;
  EXPECT_LT(R.On.Stats.Cycles, R.Off.Stats.Cycles);
}

// ShuffleNet v2's stage-4 branch at 7x7: 1x1, 3x3 depthwise, 1x1, 232
// channels throughout (four output groups, the last of 40), no widening;
// two 108 KB weight sets around 4 KB (SplitTriplesTest, WeightRidersTest).
inline const std::string ShuffleBranch7 = header("branch7", 232, 7, 7) + R"(
  - {name: e, type: conv, out_channels: 232, kernel: 1, relu: true}
  - {name: d, type: conv, out_channels: 232, kernel: 3, pad: 1, groups: 232}
  - {name: p, type: conv, out_channels: 232, kernel: 1, relu: true}
)";

// 16 and 48 output channels leave 3/4 and 1/4 of the lanes of a 64-channel
// output group idle; 208 = 3 x 64 + 16 is planned in two parts.
inline const std::string FewChannels =
    header("few", 40, 20, 24) +
    R"(  - {name: a, type: conv, out_channels: 16, kernel: 3, pad: 1, relu: true}
  - {name: b, type: conv, out_channels: 48, kernel: 1, relu: true}
  - {name: c, type: conv, out_channels: 208, kernel: 3, pad: 1}
  - {name: d, type: conv, out_channels: 24, kernel: 3, stride: 2}
)";

/// EfficientNet-like block layers: a 1x1 expansion Exp to E channels, a
/// 5x5 depthwise conv d, its squeeze-and-excitation (sp, sr of Squeeze
/// channels, se, sg, the scale s) and the projection p to P channels.
inline std::string seBlockLayers(const std::string &Exp, unsigned E, unsigned Squeeze, unsigned P) {
  return fmt::format(R"(
  - {{name: {0}, type: conv, out_channels: {1}, kernel: 1, relu: true}}
  - {{name: d, type: conv, out_channels: {1}, kernel: 5, pad: 2, groups: {1}, relu: true}}
  - {{name: sp, type: global_avgpool}}
  - {{name: sr, type: conv, out_channels: {2}, kernel: 1, relu: true}}
  - {{name: se, type: conv, out_channels: {1}, kernel: 1}}
  - {{name: sg, type: sigmoid}}
  - {{name: s, type: scale, inputs: [d, sg]}}
  - {{name: p, type: conv, out_channels: {3}, kernel: 1}}
)",
                     Exp, E, Squeeze, P);
}

/// MobileNet-like pairs: a depthwise conv and the 1x1 convs that alone read
/// it. Fused (Fuse.cpp), the depthwise output stays on chip: the depthwise
/// layer stores nothing. The pairs cover a chunk of fewer than 64 channels
/// (96 = 64 + 32, 130), a table activation (ReLU6), a fused residual on the
/// 1x1 conv, stride 2 and a 5x5 kernel, and two 1x1 convs reading one
/// depthwise output (as ShuffleNet v2's shuffled halves).
inline const std::string Pairs = header("pairs", 40, 20, 18) + R"(
  - {name: e1, type: conv, out_channels: 96, kernel: 1, relu: true}
  - {name: d1, type: conv, out_channels: 96, kernel: 3, pad: 1, groups: 96, bias: false}
  - {name: d1_bn, type: batchnorm}
  - {name: d1_r, type: relu6}
  - {name: p1, type: conv, out_channels: 40, kernel: 1}
  - {name: sum, type: add, inputs: [p1, data]}
  - {name: d2, type: conv, out_channels: 40, kernel: 5, stride: 2, pad: 2, groups: 40, relu: true}
  - {name: p2, type: conv, out_channels: 130, kernel: 1, relu: true}
  - {name: d3, type: conv, out_channels: 130, kernel: 3, pad: 1, groups: 130}
  - {name: p3, type: conv, out_channels: 24, kernel: 1}
  - {name: d4, type: conv, out_channels: 24, kernel: 3, pad: 1, groups: 24}
  - {name: q1, type: conv, input: d4, out_channels: 72, kernel: 1, relu: true}
  - {name: q2, type: conv, input: d4, out_channels: 40, kernel: 1}
  - {name: cat, type: concat, inputs: [q1, q2]}
)";

} // namespace snow::test

#endif // SNOW_TESTS_E2E_PASSHARNESS_H
