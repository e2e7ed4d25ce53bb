//===- LayersHarness.h - What the randomized layer tests share --*- C++ -*-===//
//
// Helpers of LayersTest.cpp and FusedLayersTest.cpp: a model checked bit for
// bit on several presets, the preset a random case takes, and the parts of a
// model's plan on zc706 (--emit=plan's rows) with a test for their modes.
//
//===----------------------------------------------------------------------===//

#ifndef SNOW_TESTS_E2E_LAYERSHARNESS_H
#define SNOW_TESTS_E2E_LAYERSHARNESS_H

#include "Harness.h"
#include "llvm/ADT/STLExtras.h"
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace snow::test {

inline void check(const std::string &Yaml, bool RequireInformative = true,
                  std::vector<std::string> Hws = {"zc706", "mini64", "narrow8"}) {
  for (const std::string &Hw : Hws) {
    SCOPED_TRACE("hardware " + Hw + ", model:\n" + Yaml);
    RunResult R;
    if (!runAndCompare(Yaml, Hw, RequireInformative, R))
      return;
    EXPECT_TRUE(layerCyclesAddUp(R.Stats));
  }
}

/// One preset per random case, in turn: the cases cover all three.
inline std::vector<std::string> rotatedPreset(unsigned Seed) {
  static const char *const Presets[] = {"zc706", "mini64", "narrow8"};
  return {Presets[Seed % 3]};
}

/// The parts of Yaml's plan on Preset with Opts (--emit=plan's rows).
inline std::vector<compiler::PlanPart> planParts(const std::string &Yaml, const std::string &Preset,
                                                 const compiler::CompileOptions &Opts = {}) {
  std::vector<compiler::PlanPart> Parts;
  auto Hw = isa::loadHwConfig(Preset);
  EXPECT_TRUE(bool(Hw));
  std::optional<ir::Graph> G = Hw ? quantizedGraph(Yaml, *Hw) : std::nullopt;
  EXPECT_TRUE(G && compiler::compile(*G, *Hw, Opts, &Parts));
  return Parts;
}

/// The parts of Yaml's plan on zc706 with Opts.
inline std::vector<compiler::PlanPart> zc706Parts(const std::string &Yaml,
                                                  const compiler::CompileOptions &Opts = {}) {
  return planParts(Yaml, "zc706", Opts);
}

/// Whether Parts has a part of layer Name whose order has every one of Tags.
inline bool hasPart(const std::vector<compiler::PlanPart> &Parts, const std::string &Name,
                    std::initializer_list<const char *> Tags = {}) {
  return llvm::any_of(Parts, [&](const compiler::PlanPart &P) {
    return P.Name == Name &&
           llvm::all_of(Tags, [&](const char *T) { return P.Order.find(T) != std::string::npos; });
  });
}

} // namespace snow::test

#endif // SNOW_TESTS_E2E_LAYERSHARNESS_H
