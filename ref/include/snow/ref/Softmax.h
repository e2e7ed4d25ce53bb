//===- Softmax.h - The host's softmax and the top classes -----------*- C++ -*-===//
//
// A classifier whose last layer is a softmax ends on the accelerator at the
// logits (Graph::HostSoftmax); the host dequantizes them and runs the softmax
// in floating point (docs/fixed-point.md). snowref does the same to report
// the classes a user would see, next to the float path's answer, because a
// changed top-1 says more about the cost of Q8.8 than an RMS error does.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_REF_SOFTMAX_H
#define SNOW_REF_SOFTMAX_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace snow::ref {

/// exp(x_i - max x) / sum_j exp(x_j - max x), in double; subtracting the
/// maximum keeps exp from overflowing and does not change the result.
std::vector<double> softmax(const std::vector<double> &Logits);

/// The softmax along one axis of a tensor: every group of Count values
/// Inner apart (Logits.size() a multiple of Count * Inner) normalized on its
/// own. Count 0 is the whole vector (ir::Graph::SoftmaxCount).
std::vector<double> softmax(const std::vector<double> &Logits, size_t Count, size_t Inner);

/// The logits of a fixed-point output: q / 2^Frac, exact in double.
std::vector<double> dequantize(const std::vector<int16_t> &Fixed, int Frac);

struct ClassScore {
  size_t Index = 0;
  double Probability = 0;
};

/// The K most probable classes (fewer if there are fewer), most probable
/// first; equal probabilities keep the lower index first, so the order is
/// deterministic.
std::vector<ClassScore> topClasses(const std::vector<double> &Probabilities, size_t K);

} // namespace snow::ref

#endif
