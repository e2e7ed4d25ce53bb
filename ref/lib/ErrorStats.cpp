//===- ErrorStats.cpp - Quantization error of a fixed-point output --------===//
//
// Dequantizes with an exact power-of-two scale (ldexp) rather than the front
// end's fromFixed, so the report measures the executor's output and nothing
// else; sums are in double because a 224x224x64 output has millions of terms.
//
//===----------------------------------------------------------------------===//

#include "snow/ref/ErrorStats.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

using namespace snow::ref;

double ErrorStats::relativeRms() const {
  if (FloatRms == 0)
    return RmsError == 0 ? 0 : std::numeric_limits<double>::infinity();
  return RmsError / FloatRms;
}

namespace {
bool isSaturated(int16_t Q) {
  return Q == std::numeric_limits<int16_t>::max() || Q == std::numeric_limits<int16_t>::min();
}
} // namespace

uint64_t snow::ref::countSaturated(const std::vector<int16_t> &Fixed) {
  return uint64_t(std::count_if(Fixed.begin(), Fixed.end(), isSaturated));
}

ErrorStats snow::ref::compareToFloat(const std::vector<int16_t> &Fixed, int Frac,
                                     const std::vector<float> &Float) {
  assert(Fixed.size() == Float.size() && "compared outputs differ in size");
  ErrorStats S;
  S.Count = Fixed.size();
  double SumSqError = 0, SumSqFloat = 0;
  for (size_t I = 0; I < Fixed.size(); ++I) {
    const int16_t Q = Fixed[I];
    const double Err = std::ldexp(double(Q), -Frac) - double(Float[I]);
    S.MaxAbsError = std::max(S.MaxAbsError, std::fabs(Err));
    SumSqError += Err * Err;
    SumSqFloat += double(Float[I]) * double(Float[I]);
    if (isSaturated(Q))
      ++S.Saturated;
    if (Q == 0)
      ++S.Zero;
  }
  if (S.Count) {
    S.RmsError = std::sqrt(SumSqError / double(S.Count));
    S.FloatRms = std::sqrt(SumSqFloat / double(S.Count));
  }
  return S;
}
