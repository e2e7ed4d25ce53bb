//===- HugePages.h - Large buffers backed by huge pages ----------*- C++ -*-===//
//
// The compiler's largest buffers (seeded float weights, their int16
// quantization, the DRAM image: hundreds of MB for VGG-16) are written once,
// right after a std::vector zero-fills them. Profiles showed that zero fill
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
#ifdef __linux__
#include <sys/mman.h>
#endif

namespace snow {

/// Reserves room for N elements in V and, for large buffers, asks the
/// kernel to back the reserved range with huge pages before anything
/// touches it. Call before resize()/assign() on an empty vector.
template <class T> void reserveHuge(std::vector<T> &V, size_t N) {
  V.reserve(N);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t Huge = uintptr_t(2) << 20;
  const size_t Bytes = V.capacity() * sizeof(T);
  if (Bytes < 4 * Huge)
    return;
  const uintptr_t Begin = (reinterpret_cast<uintptr_t>(V.data()) + Huge - 1) & ~(Huge - 1);
  const uintptr_t End = (reinterpret_cast<uintptr_t>(V.data()) + Bytes) & ~(Huge - 1);
  if (End > Begin)
    (void)madvise(reinterpret_cast<void *>(Begin), End - Begin, MADV_HUGEPAGE);
#endif
}

} // namespace snow

#endif
