//===- MacLoop.cpp - The yardstick of simulator speed: a scalar MAC loop --===//
//
// snow-macloop N [--kib K]
//
// Runs N int16 x int16 -> int64 multiply-accumulates as a plain scalar loop
// and prints the seconds it took. bench/sim-speed.sh divides the simulator's
// time by this one's for the same MAC count: "how many plain MAC loops does
// simulating the network cost" is a figure that does not depend on the
// machine the way seconds do.
//
// Why the loop is written as it is:
// * the data has a realistic footprint: activations and weights of K KiB in
//   all (default 512, an L2-sized working set like a conv layer's tile), read
//   in order, pass after pass;
// * it is the plain loop anyone would write, compiled like the rest of the
//   project (-O2, no -march): GCC 12 keeps it scalar (per MAC: two movswl
//   loads, imull, cltq, addq into the carried 64-bit sum; see the assembly
//   with -S), so the figure is one MAC per element at the compiler's normal
//   scalar code, not a SIMD kernel;
// * it cannot be dead code: the data is pseudo-random from a fixed seed,
//   every pass starts at a different offset (so no pass repeats another's
//   sum), and the final sum is printed.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

/// Sum over I of M[(Start + I) % Size] * W[(Start + I) % Size], I < Count,
/// as two plain loops (no modulo in the hot loop).
[[gnu::noinline]] int64_t macPass(const int16_t *M, const int16_t *W, size_t Size, size_t Start,
                                  size_t Count, int64_t Acc) {
  size_t First = Size - Start < Count ? Size - Start : Count;
  for (size_t I = 0; I < First; ++I)
    Acc += int64_t(int32_t(M[Start + I]) * int32_t(W[Start + I]));
  for (size_t I = 0; I < Count - First; ++I)
    Acc += int64_t(int32_t(M[I]) * int32_t(W[I]));
  return Acc;
}

int usage() {
  std::fprintf(stderr, "usage: snow-macloop N [--kib K]  (N MACs, K KiB of data, default 512)\n");
  return 1;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return usage();
  char *End = nullptr;
  double N = std::strtod(Argv[1], &End);
  if (*End != '\0' || !(N >= 1))
    return usage();
  size_t Kib = 512;
  if (Argc == 4 && std::strcmp(Argv[2], "--kib") == 0)
    Kib = std::strtoull(Argv[3], nullptr, 10);
  else if (Argc != 2)
    return usage();
  // Half the footprint is activations, half weights.
  size_t Size = Kib * 1024 / 4;
  if (Size < 64)
    return usage();
  std::vector<int16_t> M(Size), W(Size);
  uint64_t Seed = 0x9E3779B97F4A7C15ull;
  for (size_t I = 0; I < Size; ++I) {
    Seed = Seed * 6364136223846793005ull + 1442695040888963407ull;
    M[I] = int16_t(Seed >> 48);
    W[I] = int16_t(Seed >> 32);
  }

  const uint64_t Total = uint64_t(N);
  int64_t Acc = 0;
  auto Start = std::chrono::steady_clock::now();
  for (uint64_t Done = 0, Pass = 0; Done < Total; ++Pass) {
    size_t Count = size_t(std::min<uint64_t>(Size, Total - Done));
    Acc = macPass(M.data(), W.data(), Size, size_t(Pass * 7919 % Size), Count, Acc);
    Done += Count;
  }
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  std::printf("%.4f s for %llu scalar int16 MACs (%.2f G MAC/s, %zu KiB, sum %lld)\n", Secs,
              (unsigned long long)Total, Secs > 0 ? Total / Secs / 1e9 : 0.0, Kib, (long long)Acc);
  return 0;
}
