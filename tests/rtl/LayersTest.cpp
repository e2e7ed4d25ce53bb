//===- LayersTest.cpp - Randomized layers compiled by snowc, sim vs RTL ---===//
//
// The generators of the bit-exact tests (tests/e2e/RandomModels.h): single
// conv and pooling layers, conv/pool chains, depthwise and residual blocks,
// grouped convs (per group on vdw), fully connected and concat cases, compiled with snowc for the
// RTL's presets in turn and co-simulated. The simulator's outputs are checked against the reference
// by test_e2e; here the RTL must equal the simulator in every counter and every output byte. Conv
// cases get a smaller MAC budget than in test_e2e: the RTL simulates every cycle, about 10^5 per
// second on zc706. Replay one case with --gtest_filter='*RtlRandomConv*/7'.
//
//===----------------------------------------------------------------------===//

#include "CoSim.h"
#include "RandomModels.h"

using namespace snow;
using namespace snow::test;

namespace {

const char *presetFor(unsigned Seed) {
  static const char *const Presets[] = {"mini64", "zc706", "big1024"};
  return Presets[Seed % 3];
}

class RandomLayers : public CoSimTest, public ::testing::WithParamInterface<unsigned> {
protected:
  void check(const std::string &Yaml) {
    SCOPED_TRACE(std::string("hardware ") + presetFor(GetParam()) + ", model:\n" + Yaml);
    compileFor("m.bin", Yaml, presetFor(GetParam()));
    if (HasFatalFailure())
      return;
    EXPECT_TRUE(coSimulate("m.bin"));
  }
};

class RtlRandomConv : public RandomLayers {};
class RtlRandomPool : public RandomLayers {};
class RtlRandomChain : public RandomLayers {};
class RtlRandomBlock : public RandomLayers {};
class RtlRandomFc : public RandomLayers {};
class RtlRandomConcat : public RandomLayers {};
class RtlRandomGrouped : public RandomLayers {};

TEST_P(RtlRandomConv, SimAndRtlAgree) { check(convCase(GetParam(), 1'500'000)); }
TEST_P(RtlRandomPool, SimAndRtlAgree) { check(poolCase(GetParam())); }
TEST_P(RtlRandomChain, SimAndRtlAgree) { check(chainCase(GetParam())); }
TEST_P(RtlRandomBlock, SimAndRtlAgree) { check(blockCase(GetParam())); }
TEST_P(RtlRandomFc, SimAndRtlAgree) { check(fcCase(GetParam())); }
TEST_P(RtlRandomConcat, SimAndRtlAgree) { check(concatCase(GetParam())); }
TEST_P(RtlRandomGrouped, SimAndRtlAgree) { check(groupedCase(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomConv, ::testing::Range(0u, 36u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomPool, ::testing::Range(0u, 12u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomChain, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomBlock, ::testing::Range(0u, 12u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomFc, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomConcat, ::testing::Range(0u, 9u));
INSTANTIATE_TEST_SUITE_P(Cases, RtlRandomGrouped, ::testing::Range(0u, 12u));

} // namespace
