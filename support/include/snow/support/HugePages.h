//===- HugePages.h - Large buffers backed by huge pages ----------*- C++ -*-===//
//
// The compiler's and the simulator's largest buffers (seeded float weights,
// their int16 quantization, the DRAM image, a loaded program's weights and
// decoded code: hundreds of MB for VGG-16) are written once, right after
// they are allocated. Profiles showed that zero fill
// dominated by page faults, one per 4 KiB page, each expensive on a
// virtual machine. Where transparent huge pages are enabled "on request"
// (the usual Linux default), asking for them turns 512 of those faults into
// one. It is advice only: the values never change, and elsewhere it is a
// no-op.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_HUGEPAGES_H
#define SNOW_SUPPORT_HUGEPAGES_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace snow {

/// Asks the OS for transparent huge pages over the whole 2 MiB pages inside
/// [P, P + Size). Call it before the memory is first written. Advice only:
/// where it is not available (or off Linux) nothing changes.
void adviseHugePages(void *P, size_t Size);

/// Reserves room for N elements in V and, for large buffers (8 MiB and
/// more), advises huge pages over the reserved range before anything touches
/// it. Call before resize()/assign() on an empty vector.
template <class T> void reserveHuge(std::vector<T> &V, size_t N) {
  V.reserve(N);
  const size_t Bytes = V.capacity() * sizeof(T);
  if (Bytes >= (size_t(8) << 20))
    adviseHugePages(V.data(), Bytes);
}

} // namespace snow

#endif
