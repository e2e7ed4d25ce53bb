//===- PlanReuseTest.cpp - Reused plans are the plans a search would find --===//
//
// The compiler plans each distinct layer geometry once (CompileOptions::
// ReusePlans). That is only an optimisation if every layer of a geometry
// would have found the same plan on its own: each network in models/
// compiled with and without reuse must give byte-identical programs.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "snow/isa/Program.h"
#include <fstream>
#include <sstream>

using namespace snow;
using namespace snow::test;

namespace {

/// Compiles Yaml for Hw with plan reuse on or off; the serialized program.
std::vector<uint8_t> compiled(const std::string &Yaml, const std::string &HwName, bool Reuse) {
  auto Hw = isa::loadHwConfig(HwName);
  EXPECT_TRUE(bool(Hw));
  auto G = ir::parseModel(Yaml, "test.yaml");
  EXPECT_TRUE(bool(G)) << llvm::toString(G.takeError());
  EXPECT_FALSE(bool(ir::canonicalize(*G)));
  auto F = ir::calibrate(*G, int(Hw->ActFracBits), ir::defaultInput(*G));
  EXPECT_TRUE(bool(F));
  EXPECT_FALSE(bool(ir::quantize(*G, *F)));
  compiler::CompileOptions Opts;
  Opts.ReusePlans = Reuse;
  auto P = compiler::compile(*G, *Hw, Opts);
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  return P ? isa::serialize(*P) : std::vector<uint8_t>();
}

std::string readModel(const std::string &Name) {
  std::ifstream In(std::string(SNOW_SOURCE_DIR) + "/models/" + Name + ".yaml");
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

class PlanReuse : public ::testing::TestWithParam<const char *> {};

TEST_P(PlanReuse, GivesTheProgramOfAFullSearch) {
  const std::string Yaml = readModel(GetParam());
  ASSERT_FALSE(Yaml.empty());
  for (const char *Hw : {"zc706", "mini64"}) {
    std::vector<uint8_t> With = compiled(Yaml, Hw, true), Without = compiled(Yaml, Hw, false);
    ASSERT_FALSE(With.empty());
    EXPECT_TRUE(With == Without) << GetParam() << " on " << Hw;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, PlanReuse,
                         ::testing::Values("alexnet", "googlenet", "mobilenet_v1", "mobilenet_v2",
                                           "resnet50", "resnext50_32x4d", "squeezenet1_1", "tiny"));

} // namespace
