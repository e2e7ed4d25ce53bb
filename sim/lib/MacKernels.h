//===- MacKernels.h - The arithmetic of a trace -----------------*- C++ -*-===//
//
// Internal to snow_sim. See MacKernels.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SIM_MACKERNELS_H
#define SNOW_SIM_MACKERNELS_H

#include <cstdint>

namespace snow::sim {

/// Acc[0..L) += sum over taps T < N of Taps[T] * W[T*L + Lane] (vmac: one
/// map value a tap, broadcast to every lane); the AVX2 kernel where it
/// applies, bit-identical to the plain loop.
void trace(int64_t *Acc, const int16_t *Taps, unsigned N, const int16_t *W, unsigned L);

/// Acc[Lane] += sum over taps T < N of Rows[T][Lane] * W[T*L + Lane] (vdw:
/// a row of lanes a tap).
void depthwise(int64_t *Acc, const int16_t *const *Rows, unsigned N, const int16_t *W, unsigned L);

} // namespace snow::sim

#endif
