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
// The normalised mode tabulates a function with f(x / 4) = 2 f(x), the
// reciprocal square root a LayerNorm needs, over a range of inputs no
// linear table spans: x > 0 is scaled by 4^m into [8192, 32767] (its
// leading bits), interpolated there, and the result scaled back by 2^m, as
// a floating-point unit would (the table's scale shift s keeps its entries
// in int16). Its segments are 1/32 .. 1/128 of the value they start at, so
// the chord error is at most 3/32 (1/32)^2 = 1e-4 of f wherever x lies.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_LUT_H
#define SNOW_ISA_LUT_H

#include "snow/isa/IsaConstants.h"
#include <algorithm>
#include <cstdint>

namespace snow::isa {

/// The control entry of a table: zoom z in the low LutZoomBits bits, the
/// identity upper tail in the next, the normalised mode in the one after
/// it, and that mode's scale shift from bit LutScaleLsb; the other bits are
/// ignored.
constexpr int16_t lutControl(unsigned Zoom, bool IdentityTail, bool Normalised = false,
                             unsigned Scale = 0) {
  return int16_t(Zoom | (unsigned(IdentityTail) << LutZoomBits) |
                 (unsigned(Normalised) << (LutZoomBits + 1)) | (Scale << LutScaleLsb));
}
constexpr bool lutNormalised(int16_t Control) {
  return (unsigned(uint16_t(Control)) >> (LutZoomBits + 1)) & 1;
}
constexpr unsigned lutScale(int16_t Control) {
  return (unsigned(uint16_t(Control)) >> LutScaleLsb) & ((1u << LutScaleBits) - 1);
}
/// The normalised mode's exponent of x > 0: the largest m with x * 4^m <=
/// 32767 (0 .. 7).
constexpr unsigned lutNormExponent(int16_t X) {
  unsigned M = 0;
  while ((int32_t(X) << (2 * (M + 1))) <= 32767)
    ++M;
  return M;
}
constexpr unsigned lutZoom(int16_t Control) {
  return unsigned(uint16_t(Control)) & ((1u << LutZoomBits) - 1);
}
constexpr bool lutIdentityTail(int16_t Control) {
  return (unsigned(uint16_t(Control)) >> LutZoomBits) & 1;
}

/// Linear interpolation within the table at W (-32768 .. 32767), rounded
/// half up.
inline int16_t lutInterp(const int16_t *T, int32_t W) {
  const uint32_t U = uint32_t(W + 32768);
  const uint32_t I = U >> LutSegmentBits, F = U & ((1u << LutSegmentBits) - 1);
  const int32_t D = int32_t(T[I + 1]) - int32_t(T[I]);
  // |D * F| < 2^16 * 2^8: no overflow; the result lies between T[I] and T[I+1].
  return int16_t(T[I] + ((D * int32_t(F) + (1 << (LutSegmentBits - 1))) >> LutSegmentBits));
}

/// lut(x) of a table T of LutEntries values.
inline int16_t lutLookup(const int16_t *T, int16_t X) {
  const int16_t Control = T[LutEnds];
  if (lutNormalised(Control)) {
    if (X <= 0)
      return T[0];
    const unsigned M = lutNormExponent(X), S = lutScale(Control);
    const int32_t V = lutInterp(T, int32_t(X) << (2 * M));
    if (M >= S)
      return int16_t(std::clamp<int32_t>(V * (1 << (M - S)), -32768, 32767));
    return int16_t((V + (1 << (S - M - 1))) >> (S - M));
  }
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
  return lutInterp(T, W);
}

} // namespace snow::isa

#endif
