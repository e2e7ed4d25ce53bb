//===- Lut.h - The activation table lookup of vwb ----------------*- C++ -*-===//
//
// The ISA contract's interpolation (Snow.td, vwb and vlut). A table holds
// LutEnds int16 values, a function at the ends of 2^(16 - LutSegmentBits)
// equal segments, and a control entry: zoom z and the upper tail. The
// segments cover w = x * 2^z, i.e. the int16 range of w and the central
// 1 / 2^z of x's, so that a function curved only near zero (SiLU, GELU,
// HardSwish) gets 2^z times narrower segments, 4^z times less interpolation
// error, than one spread over x's whole range. Below the table the lookup
// gives the first end; above it the last end, or with the identity tail the
// last end plus how far x lies past the table (a function that becomes
// y = x, with x and y in one format). A value within is interpolated
// linearly and rounded half up. The simulator applies it; the compiler
// (ir::buildLut) measures every table's error with it. The reference executor
// keeps its own copy (ref/lib/Execute.cpp), so that a change here shows up as
// a mismatch instead of passing silently.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_LUT_H
#define SNOW_ISA_LUT_H

#include "snow/isa/IsaConstants.h"
#include <algorithm>
#include <cstdint>

namespace snow::isa {

/// The control entry of a table: zoom z in the low LutZoomBits bits, the
/// identity upper tail in the next; the other bits are ignored.
constexpr int16_t lutControl(unsigned Zoom, bool IdentityTail) {
  return int16_t(Zoom | (unsigned(IdentityTail) << LutZoomBits));
}
constexpr unsigned lutZoom(int16_t Control) {
  return unsigned(uint16_t(Control)) & ((1u << LutZoomBits) - 1);
}
constexpr bool lutIdentityTail(int16_t Control) {
  return (unsigned(uint16_t(Control)) >> LutZoomBits) & 1;
}

/// lut(x) of a table T of LutEntries values.
inline int16_t lutLookup(const int16_t *T, int16_t X) {
  const int16_t Control = T[LutEnds];
  const unsigned Z = lutZoom(Control);
  const int32_t W = int32_t(X) * (1 << Z); // |W| < 2^23.
  if (W < -32768)
    return T[0];
  if (W > 32767) {
    if (!lutIdentityTail(Control))
      return T[LutEnds - 1];
    const int32_t Y = int32_t(T[LutEnds - 1]) + int32_t(X) - (32768 >> Z);
    return int16_t(std::clamp<int32_t>(Y, -32768, 32767));
  }
  const uint32_t U = uint32_t(W + 32768);
  const uint32_t I = U >> LutSegmentBits, F = U & ((1u << LutSegmentBits) - 1);
  const int32_t D = int32_t(T[I + 1]) - int32_t(T[I]);
  // |D * F| < 2^16 * 2^8: no overflow; the result lies between T[I] and T[I+1].
  return int16_t(T[I] + ((D * int32_t(F) + (1 << (LutSegmentBits - 1))) >> LutSegmentBits));
}

} // namespace snow::isa

#endif
