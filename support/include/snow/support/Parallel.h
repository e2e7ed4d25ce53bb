//===- Parallel.h - Splitting heavy loops over threads ------------*- C++ -*-===//
//
// The compiler's heavy loops (the float convolution of calibration, weight
// seeding, quantization, packing weights into the DRAM image) are sums of
// independent items whose values do not depend on which thread computes
// them, so they split a range into contiguous parts, one per thread, and
// results stay identical for any thread count. Threads are started per call:
// the calls are few and long (one per layer), so a pool would not pay for
// itself.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_PARALLEL_H
#define SNOW_SUPPORT_PARALLEL_H

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>
#ifdef __linux__
#include <sched.h>
#endif

namespace snow {

/// Threads to use: the CPUs this process may run on (what a batch scheduler
/// allocated, not the machine's count), capped at 8, past which the short
/// loops here gain little.
inline unsigned workerCount() {
  static const unsigned Count = [] {
    unsigned N = std::thread::hardware_concurrency();
#ifdef __linux__
    cpu_set_t Set;
    if (sched_getaffinity(0, sizeof(Set), &Set) == 0 && CPU_COUNT(&Set) > 0)
      N = unsigned(CPU_COUNT(&Set));
#endif
    return std::clamp(N, 1u, 8u);
  }();
  return Count;
}

/// Calls Body(Begin, End) on contiguous parts of [0, N) covering it once,
/// in parallel. Cost is the work per item in arbitrary units: below
/// MinCost per thread a part is not worth a thread, so small ranges run on
/// the caller alone. Body must not throw.
template <class Fn> void parallelFor(size_t N, double Cost, double MinCost, Fn &&Body) {
  size_t Parts = std::min<size_t>(workerCount(), N);
  if (Cost > 0)
    Parts = std::min(Parts, std::max<size_t>(1, size_t(double(N) * Cost / MinCost)));
  if (Parts <= 1) {
    if (N)
      Body(size_t(0), N);
    return;
  }
  auto Part = [&](size_t P) { Body(N * P / Parts, N * (P + 1) / Parts); };
  std::vector<std::thread> Threads;
  Threads.reserve(Parts - 1);
  size_t Started = 1;
  try {
    for (; Started < Parts; ++Started)
      Threads.emplace_back(Part, Started);
  } catch (const std::system_error &) {
    // No more threads to be had: the caller does the parts left over.
  }
  Part(0);
  for (size_t P = Started; P < Parts; ++P)
    Part(P);
  for (std::thread &T : Threads)
    T.join();
}

/// Calls Body(I) once for every I in [0, N), in parallel, handing items to
/// threads one at a time as they finish the last: for items of very uneven
/// cost (planning one layer takes from microseconds to milliseconds), where
/// parallelFor's equal contiguous parts would leave a thread idle. Body must
/// not throw and must write only to item I's own results, so the results do
/// not depend on the thread count.
template <class Fn> void parallelForEach(size_t N, Fn &&Body) {
  std::atomic<size_t> Next{0};
  parallelFor(std::min<size_t>(workerCount(), N), 0, 1, [&](size_t, size_t) {
    for (size_t I; (I = Next.fetch_add(1, std::memory_order_relaxed)) < N;)
      Body(I);
  });
}

} // namespace snow

#endif
