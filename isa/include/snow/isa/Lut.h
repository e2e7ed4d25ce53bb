//===- Lut.h - The activation table lookup of vwb ----------------*- C++ -*-===//
//
// The ISA contract's interpolation (Snow.td, vwb and vlut): a table of
// LutEntries int16 values holds a function at the ends of 2^(16 -
// LutSegmentBits) equal segments of the int16 range; a value between two ends
// is interpolated linearly and rounded half up. The simulator applies it; the
// compiler (ir::buildLut) measures every table's error with it. The reference
// executor keeps its own copy (ref/lib/Execute.cpp), so that a change here
// shows up as a mismatch instead of passing silently.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_LUT_H
#define SNOW_ISA_LUT_H

#include "snow/isa/IsaConstants.h"
#include <cstdint>

namespace snow::isa {

/// lut(x) of a table T of LutEntries values.
inline int16_t lutLookup(const int16_t *T, int16_t X) {
  const uint32_t U = uint32_t(int32_t(X) + 32768);
  const uint32_t I = U >> LutSegmentBits, F = U & ((1u << LutSegmentBits) - 1);
  const int32_t D = int32_t(T[I + 1]) - int32_t(T[I]);
  // |D * F| < 2^16 * 2^8: no overflow; the result lies between T[I] and T[I+1].
  return int16_t(T[I] + ((D * int32_t(F) + (1 << (LutSegmentBits - 1))) >> LutSegmentBits));
}

} // namespace snow::isa

#endif
