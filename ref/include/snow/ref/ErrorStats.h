//===- ErrorStats.h - How far the fixed-point output is from float --*- C++ -*-===//
//
// The quantization report of snowref: the fixed-point output, dequantized,
// against the float execution of the same network. Saturated and zero counts
// are reported next to the error because they explain most bad results: a
// saturated output means the activation format is too narrow for the layer, a
// sea of zeros after ReLU means the signal vanished.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_REF_ERRORSTATS_H
#define SNOW_REF_ERRORSTATS_H

#include <cstdint>
#include <vector>

namespace snow::ref {

struct ErrorStats {
  uint64_t Count = 0;     ///< Number of outputs compared.
  double MaxAbsError = 0; ///< max |fromFixed(q) - f|.
  double RmsError = 0;    ///< sqrt(mean((fromFixed(q) - f)^2)).
  double FloatRms = 0;    ///< sqrt(mean(f^2)): the scale RmsError is judged by.
  uint64_t Saturated = 0; ///< Fixed outputs equal to 32767 or -32768.
  uint64_t Zero = 0;      ///< Fixed outputs exactly 0.

  /// RmsError / FloatRms; 0 when both are 0, +infinity when only FloatRms is.
  double relativeRms() const;
  double saturatedFraction() const { return Count ? double(Saturated) / Count : 0; }
  double zeroFraction() const { return Count ? double(Zero) / Count : 0; }
};

/// Int16 outputs equal to 32767 or -32768: the values the writeback clamped
/// (or copies of them, after pooling, concat or ReLU). snowref's per-layer
/// saturation table counts these in every layer of the fixed path.
uint64_t countSaturated(const std::vector<int16_t> &Fixed);

/// Compares Fixed (Frac fraction bits) with Float element by element; both must
/// have the same size (asserted).
ErrorStats compareToFloat(const std::vector<int16_t> &Fixed, int Frac,
                          const std::vector<float> &Float);

} // namespace snow::ref

#endif
