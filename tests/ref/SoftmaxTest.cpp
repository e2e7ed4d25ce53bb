//===- SoftmaxTest.cpp - The host's softmax and the top classes -----------===//
//
// snowref reports classes the way the host would compute them: dequantize the
// int16 logits, softmax in floating point, sort. Pinned on values that can be
// checked by hand (logits log 1 and log 3 give 1/4 and 3/4).
//
//===----------------------------------------------------------------------===//

#include "snow/ref/Softmax.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace snow;

namespace {

TEST(RefSoftmax, ProbabilitiesOfHandPickedLogits) {
  std::vector<double> P = ref::softmax({0.0, std::log(3.0)});
  ASSERT_EQ(P.size(), 2u);
  EXPECT_NEAR(P[0], 0.25, 1e-15);
  EXPECT_NEAR(P[1], 0.75, 1e-15);
  // Shifting every logit changes nothing.
  std::vector<double> Q = ref::softmax({100.0, 100.0 + std::log(3.0)});
  EXPECT_NEAR(Q[0], 0.25, 1e-12);
  // Logits far apart do not overflow: exp(1000) alone would.
  std::vector<double> R = ref::softmax({1000.0, 0.0});
  EXPECT_DOUBLE_EQ(R[0], 1.0);
  EXPECT_TRUE(ref::softmax({}).empty());
}

TEST(RefSoftmax, OneAxisNormalizesEachGroupOnItsOwn) {
  // A 2 x 3 tensor (row-major): over the 2 rows (Count 2, Inner 3) each
  // column sums to 1; over the 3 columns (Count 3, Inner 1) each row does.
  const double L3 = std::log(3.0);
  std::vector<double> X = {0.0, 5.0, L3, L3, 5.0, 0.0};
  std::vector<double> Rows = ref::softmax(X, 2, 3);
  EXPECT_NEAR(Rows[0], 0.25, 1e-15);
  EXPECT_NEAR(Rows[3], 0.75, 1e-15);
  EXPECT_NEAR(Rows[1], 0.5, 1e-15);
  EXPECT_NEAR(Rows[2], 0.75, 1e-15);
  EXPECT_NEAR(Rows[5], 0.25, 1e-15);
  std::vector<double> Cols = ref::softmax(X, 3, 1);
  EXPECT_NEAR(Cols[0] + Cols[1] + Cols[2], 1.0, 1e-15);
  EXPECT_NEAR(Cols[3] + Cols[4] + Cols[5], 1.0, 1e-15);
  EXPECT_EQ(ref::softmax(X, 0, 1), ref::softmax(X)) << "Count 0: the whole vector";
}

TEST(RefSoftmax, DequantizeIsExact) {
  // Q8.8: 384 = 1.5, -1 = -1/256, 32767 = 127.99609375.
  EXPECT_EQ(ref::dequantize({384, -1, 32767}, 8),
            (std::vector<double>{1.5, -0.00390625, 127.99609375}));
}

TEST(RefTopClasses, MostProbableFirstTiesByIndex) {
  std::vector<double> P = {0.1, 0.3, 0.05, 0.3, 0.25};
  std::vector<ref::ClassScore> Top = ref::topClasses(P, 3);
  ASSERT_EQ(Top.size(), 3u);
  EXPECT_EQ(Top[0].Index, 1u); // Tied with 3; the lower index first.
  EXPECT_EQ(Top[1].Index, 3u);
  EXPECT_EQ(Top[2].Index, 4u);
  EXPECT_DOUBLE_EQ(Top[2].Probability, 0.25);
  EXPECT_EQ(ref::topClasses(P, 10).size(), 5u); // Fewer classes than asked.
  EXPECT_TRUE(ref::topClasses({}, 5).empty());
}

} // namespace
