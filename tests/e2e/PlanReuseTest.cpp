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

using namespace snow;
using namespace snow::test;

namespace {

/// Compiles Yaml for Hw with plan reuse on or off; the serialized program.
std::vector<uint8_t> compiled(const std::string &Yaml, const std::string &HwName, bool Reuse) {
  compiler::CompileOptions Opts;
  Opts.ReusePlans = Reuse;
  return compiledBytes(Yaml, HwName, Opts);
}

class PlanReuse : public ::testing::TestWithParam<const char *> {};

TEST_P(PlanReuse, GivesTheProgramOfAFullSearch) {
  const std::string Yaml = zooModel(GetParam());
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
