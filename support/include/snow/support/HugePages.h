//===- HugePages.h - Advice for large, freshly allocated buffers -*- C++ -*-===//
//
// Loading a large program writes tens of MB into freshly allocated memory
// (the weights image, the decoded code, the simulated DRAM), and on a
// virtual machine the first-touch page faults cost more than the copies. One
// fault per 2 MiB instead of per 4 KiB removes most of that.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_HUGEPAGES_H
#define SNOW_SUPPORT_HUGEPAGES_H

#include <cstddef>

namespace snow {

/// Asks the OS for transparent huge pages over the whole 2 MiB pages inside
/// [P, P + Size). Call it before the memory is first written. Advice only:
/// where it is not available (or off Linux) nothing changes.
void adviseHugePages(void *P, size_t Size);

} // namespace snow

#endif
