//===- Tensor.h - Fixed-point conversion and tensor files -----------*- C++ -*-===//
//
// The float <-> fixed-point rule of docs/fixed-point.md and the loading of a
// user's input tensor (.npy, float32 or int16, CHW or 1xCHW) shared by the
// tools (snowsim, snowref, snowrtl), so every tool reads inputs the same way.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_TENSOR_H
#define SNOW_SUPPORT_TENSOR_H

#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace snow {

/// float -> int16 in Q(15-Frac).Frac: round half away from zero, saturate.
int16_t floatToFixed(float X, int Frac);
float fixedToFloat(int16_t X, int Frac);

/// Reads an input tensor of shape (C, H, W) or (1, C, H, W): float32 values are
/// quantized with floatToFixed, int16 values are taken as raw fixed point.
llvm::Expected<std::vector<int16_t>> readInputTensor(const std::string &Path, uint32_t C,
                                                     uint32_t H, uint32_t W, int Frac);

/// The .npy bytes of int16 CHW data of shape (C, H, W); with FloatFrac >= 0,
/// dequantized to float32 instead.
llvm::Expected<std::string> encodeOutputTensor(const std::string &Path,
                                               const std::vector<int16_t> &Chw, uint32_t C,
                                               uint32_t H, uint32_t W, int FloatFrac = -1);

} // namespace snow

#endif
