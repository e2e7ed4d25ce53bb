//===- Word.h - A 128-bit instruction word --------------------------*- C++ -*-===//
//
// Instructions are 128 bits, stored as two little-endian 64-bit words (bits
// 0-63 first). Kept apart from Isa.h so the prog.bin container does not depend
// on the generated instruction tables.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_WORD_H
#define SNOW_ISA_WORD_H

#include <cstdint>

namespace snow::isa {

struct Word128 {
  uint64_t Lo = 0, Hi = 0;
  bool operator==(const Word128 &) const = default;
};

/// Bytes per instruction; Isa.h checks it against Snow.td's InstBits.
constexpr unsigned InstBytes = sizeof(Word128);

inline Word128 loadWord(const uint8_t *B) {
  Word128 W;
  for (int I = 7; I >= 0; --I) {
    W.Lo = (W.Lo << 8) | B[I];
    W.Hi = (W.Hi << 8) | B[8 + I];
  }
  return W;
}

inline void storeWord(Word128 W, uint8_t *B) {
  for (int I = 0; I < 8; ++I) {
    B[I] = uint8_t(W.Lo >> (8 * I));
    B[8 + I] = uint8_t(W.Hi >> (8 * I));
  }
}

} // namespace snow::isa

#endif
