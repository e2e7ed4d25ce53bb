//===- Crc32.h - The standard CRC-32, fast on x86 ---------------*- C++ -*-===//
//
// The CRC-32 of zlib / PNG / Ethernet (what llvm::crc32 computes), by
// carry-less multiplication (PCLMULQDQ) where the CPU has it: prog.bin's
// checksum covers tens of MB of weights, and the table-driven CRC took a third
// of a timing-only simulation of ResNet-50.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_CRC32_H
#define SNOW_SUPPORT_CRC32_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>

namespace snow {

/// Equal to llvm::crc32(Data) for every input.
uint32_t crc32(llvm::ArrayRef<uint8_t> Data);

/// The CRC of the bytes so far (Crc) extended by Data: equal to
/// llvm::crc32(Crc, Data).
uint32_t crc32(uint32_t Crc, llvm::ArrayRef<uint8_t> Data);

} // namespace snow

#endif
