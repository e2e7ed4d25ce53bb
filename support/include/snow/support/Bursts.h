//===- Bursts.h - DRAM bursts a strided DMA row touches ----------*- C++ -*-===//
//
// Where a tensor lies in DRAM decides how many bursts its transfers take: a
// DMA row a pixel of a few channels starts or ends inside bursts, each of
// which the channel takes whole. Shared by the compiler's tensor placement
// (compiler/lib/Tensors.cpp) and the front end's order of a sliced conv's
// channels (compiler/ir/AlignSlices.cpp), which must count alike.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_BURSTS_H
#define SNOW_SUPPORT_BURSTS_H

#include <cstdint>
#include <numeric>

namespace snow {

/// Bursts a pixel (over the pixels' repeating pattern) of one DMA row a
/// pixel moving channels [Off, Off + Len) of a tensor of Stride channels a
/// pixel, bursts of Burst channels.
inline double rowBursts(unsigned Stride, unsigned Off, unsigned Len, unsigned Burst) {
  const unsigned Period = Burst / std::gcd(Stride, Burst);
  uint64_t Sum = 0;
  for (unsigned P = 0; P < Period; ++P) {
    const uint64_t Lo = uint64_t(P) * Stride + Off, Hi = Lo + Len;
    Sum += (Hi + Burst - 1) / Burst - Lo / Burst;
  }
  return double(Sum) / Period;
}

} // namespace snow

#endif // SNOW_SUPPORT_BURSTS_H
