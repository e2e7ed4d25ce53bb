//===- Limits.h - Checked size arithmetic and the resource caps -*- C++ -*-===//
//
// Every product of untrusted sizes (shapes from a model YAML or ONNX file,
// tensor and weight counts, offsets from a prog.bin) goes through these
// helpers, so that an overflow is an error naming the value rather than a
// wrapped number that later asks for terabytes or indexes out of bounds
// (issue 19). The caps below are what a tool will allocate for one input;
// each can be raised by an environment variable (docs/limits.md).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_LIMITS_H
#define SNOW_SUPPORT_LIMITS_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <optional>

namespace snow {

/// A * B, or nothing if it does not fit in 64 bits.
inline std::optional<uint64_t> checkedMul(uint64_t A, uint64_t B) {
  uint64_t R;
  if (__builtin_mul_overflow(A, B, &R))
    return std::nullopt;
  return R;
}

/// A + B, or nothing if it does not fit in 64 bits.
inline std::optional<uint64_t> checkedAdd(uint64_t A, uint64_t B) {
  uint64_t R;
  if (__builtin_add_overflow(A, B, &R))
    return std::nullopt;
  return R;
}

/// A * B for signed values (ONNX dimensions are int64), or nothing on
/// overflow.
inline std::optional<int64_t> checkedMulSigned(int64_t A, int64_t B) {
  int64_t R;
  if (__builtin_mul_overflow(A, B, &R))
    return std::nullopt;
  return R;
}

/// The product of Dims, or nothing if it overflows 64 bits.
inline std::optional<uint64_t> checkedProduct(llvm::ArrayRef<uint64_t> Dims) {
  uint64_t P = 1;
  for (uint64_t D : Dims) {
    auto Next = checkedMul(P, D);
    if (!Next)
      return std::nullopt;
    P = *Next;
  }
  return P;
}

/// The product of Dims, saturated at UINT64_MAX: for a size that is then
/// compared with a cap, where "too large" is the only answer an overflow needs.
inline uint64_t saturatingProduct(llvm::ArrayRef<uint64_t> Dims) {
  auto P = checkedProduct(Dims);
  return P ? *P : UINT64_MAX;
}

/// The product of signed dimensions (ONNX's int64), saturated at INT64_MAX
/// on overflow (any sign); negative factors (-1, "infer") multiply as usual.
inline int64_t saturatingProductSigned(llvm::ArrayRef<int64_t> Dims) {
  int64_t P = 1;
  for (int64_t D : Dims) {
    auto Next = checkedMulSigned(P, D);
    if (!Next)
      return INT64_MAX;
    P = *Next;
  }
  return P;
}

/// The most values one activation tensor (a model's input or a layer's
/// output) may hold: 2^26 = 67,108,864 (256 MiB as float32 in snowref; the
/// largest in models/ is VGG-16's 3.2 M), or SNOW_MAX_TENSOR_MVALUES million
/// where that environment variable is set. Weight arrays have their own cap,
/// 2^28 values (VGG-16's fc6 has 102.8 M).
uint64_t maxActivationValues();

/// The most activation values a whole model may have (its input and every
/// layer's output together; snowref holds them all, as float and as int16):
/// twice maxActivationValues(), 2^27 (VGG-16 has 15 M).
uint64_t maxModelActivationValues();

/// The most weights a whole model may have: 2^28 (VGG-16 has 138 M).
constexpr uint64_t MaxModelWeights = uint64_t(1) << 28;

/// The most multiply-accumulates of one frame: 64 G (VGG-16 has 15.5 G, which
/// snowref runs in about 16 s), or SNOW_MAX_GMACS billion.
uint64_t maxModelMacs();

/// The most bytes snowsim / snowrtl may allocate for the simulated machine
/// (on-chip buffers, the constant data, the input and output tensors):
/// 2 GiB, or SNOW_MAX_SIM_MB megabytes.
uint64_t maxSimBytes();

/// The default wall-clock limit of one simulated frame, in seconds (10; the
/// --max-seconds option of snowsim / snowrtl changes it, 0 = none).
constexpr double DefaultMaxSeconds = 10;

} // namespace snow

#endif
