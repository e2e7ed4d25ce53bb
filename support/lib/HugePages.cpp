//===- HugePages.cpp - Advice for large, freshly allocated buffers ---------===//
//
// madvise(MADV_HUGEPAGE) over the 2 MiB-aligned interior of a buffer: works
// for memory from malloc, calloc or new (large blocks are their own mapping),
// which Linux's default "madvise" THP mode leaves on small pages otherwise.
//
//===----------------------------------------------------------------------===//

#include "snow/support/HugePages.h"
#include <cstdint>
#if defined(__linux__)
#include <sys/mman.h>
#endif

void snow::adviseHugePages(void *P, size_t Size) {
#ifdef MADV_HUGEPAGE
  const uintptr_t Huge = uintptr_t(2) << 20;
  uintptr_t Lo = (uintptr_t(P) + Huge - 1) & ~(Huge - 1);
  uintptr_t Hi = (uintptr_t(P) + Size) & ~(Huge - 1);
  if (P && Lo < Hi)
    madvise(reinterpret_cast<void *>(Lo), Hi - Lo, MADV_HUGEPAGE);
#else
  (void)P;
  (void)Size;
#endif
}
