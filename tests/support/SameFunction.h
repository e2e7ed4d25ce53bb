//===- SameFunction.h - Two graphs computing one function --------*- C++ -*-===//
//
// A rewrite of a graph (canonicalize()'s channel-move fold, an ONNX export
// imported again) must compute what the graph computed: both are run in
// float on one input and compared. Shared by tests/ir and tests/onnx.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_SUPPORT_SAMEFUNCTION_H
#define SNOW_TESTS_SUPPORT_SAMEFUNCTION_H

#include "snow/ir/FloatEval.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <string>

namespace snow::test {

/// Expects the canonical graphs A and B to give the same float output on one
/// input (a fixed pattern in [-1.4, 1.4)), to 1e-5 of A's largest output
/// value, which must not be zero (a zero output would compare nothing).
inline void expectSameFunction(const ir::Graph &A, const ir::Graph &B, const std::string &What) {
  std::vector<float> In(A.Input.elems());
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = float(int(I * 7 % 23) - 11) / 8;
  const std::vector<float> YA = ir::runFloat(A, In), YB = ir::runFloat(B, In);
  ASSERT_EQ(YA.size(), YB.size()) << What;
  double Max = 0;
  for (float V : YA)
    Max = std::max(Max, double(std::fabs(V)));
  ASSERT_GT(Max, 0.0) << What << ": a model whose output is zero compares nothing";
  for (size_t I = 0; I < YA.size(); ++I)
    ASSERT_NEAR(YA[I], YB[I], 1e-5 * Max) << What << ", output element " << I;
}

} // namespace snow::test

#endif
