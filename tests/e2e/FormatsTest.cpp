//===- FormatsTest.cpp - Calibrated and uniform formats, bit for bit ------===//
//
// The harness calibrates by default, so every other e2e test already runs
// per-layer formats; this one makes sure that is really so (a model whose
// layers end up in several formats, through concat, pooling, a fused
// residual, an unfused add and a standalone relu, which must all share
// formats where they cannot rescale) and keeps the uniform path, which
// --uniform-format still offers, bit-exact too.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include <set>

using namespace snow;
using namespace snow::test;

namespace {

const char *const Model = R"(name: formats
input: {name: data, shape: [8, 16, 16]}
weights: {seed: 5}
layers:
  - {name: a, type: conv, out_channels: 16, kernel: 3, pad: 1, relu: true}
  - {name: b, type: conv, input: data, out_channels: 16, kernel: 1}
  - {name: cat, type: concat, inputs: [a, b]}
  - {name: pool, type: maxpool, kernel: 2, stride: 2}
  - {name: c, type: conv, out_channels: 32, kernel: 3, pad: 1}
  - {name: sum, type: add, inputs: [c, pool], relu: true}
  - {name: d, type: conv, out_channels: 32, kernel: 1}
  - {name: r, type: relu}
  - {name: avg, type: avgpool, kernel: 2, stride: 2}
  - {name: mp, type: maxpool, input: sum, kernel: 2, stride: 2}
  - {name: both, type: add, inputs: [avg, mp]}
  - {name: head, type: conv, out_channels: 10, kernel: 1}
)";

TEST(Formats, CalibratedFormatsDifferPerLayerAndMatchBitForBit) {
  for (const char *Hw : {"zc706", "mini64"}) {
    SCOPED_TRACE(Hw);
    RunResult R;
    ASSERT_TRUE(runModel(Model, Hw, R));
    EXPECT_TRUE(sameBits(R));
    EXPECT_TRUE(informative(R.Ref));
    const std::set<int> Distinct(R.OutFrac.begin(), R.OutFrac.end());
    EXPECT_GE(Distinct.size(), 2u) << "calibration should give this model more than one format";
  }
}

TEST(Formats, UniformFormatStillMatchesBitForBit) {
  RunResult R;
  ASSERT_TRUE(runModel(Model, "zc706", R, {}, /*TimingOnly=*/false, /*UniformFormat=*/true));
  EXPECT_TRUE(sameBits(R));
  EXPECT_EQ(std::set<int>(R.OutFrac.begin(), R.OutFrac.end()), std::set<int>{8});
}

} // namespace
