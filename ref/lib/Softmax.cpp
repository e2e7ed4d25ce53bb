//===- Softmax.cpp - The host's softmax and the top classes ---------------===//
//
// Double precision throughout: this is a report, and with 1000 classes the
// probabilities of the runners-up are small enough that float rounding would
// reorder near-ties between the fixed and the float path for no real reason.
//
//===----------------------------------------------------------------------===//

#include "snow/ref/Softmax.h"

#include <algorithm>
#include <cmath>

using namespace snow::ref;

std::vector<double> snow::ref::softmax(const std::vector<double> &Logits) {
  if (Logits.empty())
    return {};
  const double Max = *std::max_element(Logits.begin(), Logits.end());
  std::vector<double> P(Logits.size());
  double Sum = 0;
  for (size_t I = 0; I < Logits.size(); ++I) {
    P[I] = std::exp(Logits[I] - Max);
    Sum += P[I];
  }
  for (double &X : P)
    X /= Sum; // Sum >= 1: the maximum contributes exp(0).
  return P;
}

std::vector<double> snow::ref::softmax(const std::vector<double> &Logits, size_t Count,
                                       size_t Inner) {
  if (Count == 0 || Logits.empty())
    return softmax(Logits);
  std::vector<double> Out(Logits.size()), Group(Count);
  const size_t Block = Count * Inner;
  for (size_t B = 0; B < Logits.size(); B += Block)
    for (size_t I = 0; I < Inner; ++I) {
      for (size_t K = 0; K < Count; ++K)
        Group[K] = Logits[B + K * Inner + I];
      std::vector<double> P = softmax(Group);
      for (size_t K = 0; K < Count; ++K)
        Out[B + K * Inner + I] = P[K];
    }
  return Out;
}

std::vector<double> snow::ref::dequantize(const std::vector<int16_t> &Fixed, int Frac) {
  std::vector<double> X(Fixed.size());
  for (size_t I = 0; I < Fixed.size(); ++I)
    X[I] = std::ldexp(double(Fixed[I]), -Frac);
  return X;
}

std::vector<ClassScore> snow::ref::topClasses(const std::vector<double> &Probabilities, size_t K) {
  std::vector<ClassScore> All(Probabilities.size());
  for (size_t I = 0; I < Probabilities.size(); ++I)
    All[I] = {I, Probabilities[I]};
  K = std::min(K, All.size());
  std::partial_sort(All.begin(), All.begin() + K, All.end(),
                    [](const ClassScore &A, const ClassScore &B) {
                      if (A.Probability != B.Probability)
                        return A.Probability > B.Probability;
                      return A.Index < B.Index;
                    });
  All.resize(K);
  return All;
}
