//===- Npy.h - Reading and writing NumPy .npy files -----------------*- C++ -*-===//
//
// The subset of the .npy format (versions 1.0-3.0) users hand us: C-order,
// little-endian float32 ("<f4") and int16 ("<i2") arrays of any rank. Writes
// version 1.0 files atomically (temporary file + rename).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_NPY_H
#define SNOW_SUPPORT_NPY_H

#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace snow {

struct NpyArray {
  enum class DType { F32, I16 } Type = DType::F32;
  std::vector<uint64_t> Shape;
  std::vector<float> F32;   ///< Filled when Type == F32.
  std::vector<int16_t> I16; ///< Filled when Type == I16.
  uint64_t elems() const;
};

/// Errors name the file and what was wrong (dtype, order, truncation).
llvm::Expected<NpyArray> readNpy(const std::string &Path);
/// The one NaN / Inf policy of every tool that reads a float input (snowsim,
/// snowref): refused, naming the file and the index of the first bad value
/// in C order. Saturating a NaN to 0 would turn a broken preprocessing step
/// into a plausible answer. Int16 arrays always pass.
llvm::Error checkFinite(const NpyArray &A, const std::string &Path);
llvm::Error writeNpy(const std::string &Path, const NpyArray &A);
/// The bytes of a .npy file holding A (Path only names it in errors).
llvm::Expected<std::string> encodeNpy(const NpyArray &A, const std::string &Path);

} // namespace snow

#endif
