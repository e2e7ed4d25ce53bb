//===- MacKernels.cpp - The arithmetic of a trace, plain and AVX2 ----------===//
//
// A vmac or vdw trace's multiply-accumulate over a vMAC's lanes, the hot spot
// of a functional run (Functional.cpp calls it). On x86 with AVX2 a pmaddwd
// kernel that is bit-identical to the plain loop (see the note before
// MaxPairs); elsewhere, and for lane counts it does not cover, the plain
// loop.
//
//===----------------------------------------------------------------------===//

#include "MacKernels.h"
#include <algorithm>
#include <cstring>
#include <type_traits>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

using namespace snow;

namespace {

/// Acc[0..L) += sum over taps T < N of Taps[T] * W[T*L + Lane]: the plain
/// loop, for any lane count and for machines without AVX2.
void tracePlain(int64_t *Acc, const int16_t *Taps, unsigned N, const int16_t *W, unsigned L) {
  for (unsigned T = 0; T < N; ++T) {
    int32_t X = Taps[T];
    const int16_t *Wt = W + size_t(T) * L;
    for (unsigned Lane = 0; Lane < L; ++Lane)
      Acc[Lane] += X * int32_t(Wt[Lane]);
  }
}

#if defined(__x86_64__) || defined(__i386__)
// The AVX2 trace. pmaddwd multiplies int16 pairs and adds each pair into an
// int32: interleaving the weights of taps T and T+1 lane by lane and
// broadcasting the maps pair (Taps[T], Taps[T+1]) gives, per lane,
// w[T]*m[T] + w[T+1]*m[T+1]. That sum lies in [-2^31 + 2^16, 2^31]: only
// (-32768)^2 * 2 = 2^31 does not fit an int32, and it wraps to INT32_MIN,
// which no true sum equals. Subtracting 2^16 (wrapping) therefore yields the
// true sum - 2^16 exactly, as an int32. Its high 16 bits (arithmetic) and low
// 16 bits (unsigned) are summed in separate int32 accumulators, which cannot
// overflow within MaxPairs steps; they are widened into the int64 sums after
// each block of pairs. The result is bit-identical to tracePlain.
constexpr unsigned MaxPairs = 32767;

/// Folds one block's split sums (lanes in pmaddwd's order) into Acc.
void foldBlock(int64_t *Acc, const int32_t *Hi, const int32_t *Lo, const unsigned *LaneOf,
               unsigned Lanes, unsigned Pairs) {
  for (unsigned J = 0; J < Lanes; ++J)
    Acc[LaneOf[J]] += int64_t(Hi[J]) * 65536 + Lo[J] + int64_t(Pairs) * 65536;
}

/// Lanes [0, 16) of one block: unpacklo/hi interleave within 128-bit halves.
constexpr unsigned LaneOf16[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
constexpr unsigned LaneOf8[8] = {0, 1, 2, 3, 4, 5, 6, 7};

/// The vector operations of a block, over 256-bit registers (16 lanes) or
/// 128-bit ones (8 lanes): one kernel serves both widths.
#define SNOW_AVX2 [[gnu::target("avx2"), gnu::always_inline]] static
struct Wide {
  using Vec = __m256i;
  static constexpr unsigned Width = 16; // int16 elements per register
  static constexpr const unsigned *LaneOf = LaneOf16;
  SNOW_AVX2 Vec zero() { return _mm256_setzero_si256(); }
  SNOW_AVX2 Vec splat(int32_t X) { return _mm256_set1_epi32(X); }
  /// Null loads zeros (the missing partner of an odd tap).
  SNOW_AVX2 Vec load(const int16_t *P) {
    return P ? _mm256_loadu_si256(reinterpret_cast<const __m256i *>(P)) : zero();
  }
  SNOW_AVX2 void store(int32_t *P, Vec X) { _mm256_store_si256(reinterpret_cast<__m256i *>(P), X); }
  SNOW_AVX2 Vec lo(Vec A, Vec B) { return _mm256_unpacklo_epi16(A, B); }
  SNOW_AVX2 Vec hi(Vec A, Vec B) { return _mm256_unpackhi_epi16(A, B); }
  SNOW_AVX2 Vec madd(Vec A, Vec B) { return _mm256_madd_epi16(A, B); }
  SNOW_AVX2 Vec add(Vec A, Vec B) { return _mm256_add_epi32(A, B); }
  SNOW_AVX2 Vec sub(Vec A, Vec B) { return _mm256_sub_epi32(A, B); }
  SNOW_AVX2 Vec high16(Vec A) { return _mm256_srai_epi32(A, 16); }
  SNOW_AVX2 Vec low16(Vec A) { return _mm256_and_si256(A, splat(0xffff)); }
};
struct Narrow {
  using Vec = __m128i;
  static constexpr unsigned Width = 8;
  static constexpr const unsigned *LaneOf = LaneOf8;
  SNOW_AVX2 Vec zero() { return _mm_setzero_si128(); }
  SNOW_AVX2 Vec splat(int32_t X) { return _mm_set1_epi32(X); }
  SNOW_AVX2 Vec load(const int16_t *P) {
    return P ? _mm_loadu_si128(reinterpret_cast<const __m128i *>(P)) : zero();
  }
  SNOW_AVX2 void store(int32_t *P, Vec X) { _mm_store_si128(reinterpret_cast<__m128i *>(P), X); }
  SNOW_AVX2 Vec lo(Vec A, Vec B) { return _mm_unpacklo_epi16(A, B); }
  SNOW_AVX2 Vec hi(Vec A, Vec B) { return _mm_unpackhi_epi16(A, B); }
  SNOW_AVX2 Vec madd(Vec A, Vec B) { return _mm_madd_epi16(A, B); }
  SNOW_AVX2 Vec add(Vec A, Vec B) { return _mm_add_epi32(A, B); }
  SNOW_AVX2 Vec sub(Vec A, Vec B) { return _mm_sub_epi32(A, B); }
  SNOW_AVX2 Vec high16(Vec A) { return _mm_srai_epi32(A, 16); }
  SNOW_AVX2 Vec low16(Vec A) { return _mm_and_si128(A, splat(0xffff)); }
};
#undef SNOW_AVX2

/// The split int32 sums of one block of lanes: high and low halves of the
/// two pmaddwd results (unpacklo lanes, unpackhi lanes).
template <class V> struct Split { typename V::Vec Hi0, Lo0, Hi1, Lo1; };

/// Where a trace's maps operands come from: one value per tap, broadcast to
/// every lane (vmac), or one row of lanes per tap (vdw, from Lane0 on).
struct Broadcast {
  const int16_t *Taps;
};
struct PerLane {
  const int16_t *const *Rows;
  unsigned Lane0;
};

/// One pair of taps over a block: A, B the two taps' weights, MLo / MHi the
/// maps operands interleaved like lo(A, B) / hi(A, B).
template <class V, class Vec = typename V::Vec>
[[gnu::target("avx2"), gnu::always_inline]] inline void step(Split<V> &S, Vec A, Vec B, Vec MLo,
                                                             Vec MHi) {
  const Vec Bias = V::splat(65536);
  Vec P0 = V::sub(V::madd(V::lo(A, B), MLo), Bias);
  Vec P1 = V::sub(V::madd(V::hi(A, B), MHi), Bias);
  S.Hi0 = V::add(S.Hi0, V::high16(P0));
  S.Lo0 = V::add(S.Lo0, V::low16(P0));
  S.Hi1 = V::add(S.Hi1, V::high16(P1));
  S.Lo1 = V::add(S.Lo1, V::low16(P1));
}

/// The maps pair of taps T and T + 1 (Odd: T + 1 is past the end, zero).
inline int32_t mapsPair(Broadcast M, unsigned T, bool Odd) {
  if (Odd)
    return int32_t(uint16_t(M.Taps[T]));
  int32_t Pair;
  std::memcpy(&Pair, M.Taps + T, 4);
  return Pair;
}

/// Lanes [B, B + V::Width) of a trace (W already offset by B).
template <class V, class Src>
[[gnu::target("avx2")]] void block(int64_t *Acc, Src M, unsigned N, const int16_t *W, unsigned L) {
  using Vec = typename V::Vec;
  for (unsigned T0 = 0; T0 < N; T0 += 2 * MaxPairs) {
    const unsigned T1 = std::min(N, T0 + 2 * MaxPairs);
    Split<V> S;
    S.Hi0 = S.Lo0 = S.Hi1 = S.Lo1 = V::zero();
    // An odd tap left at the end pairs with a zero weight and map.
    for (unsigned T = T0; T < T1; T += 2) {
      const bool Odd = T + 1 == T1;
      Vec A = V::load(W + size_t(T) * L), B = V::load(Odd ? nullptr : W + size_t(T + 1) * L);
      if constexpr (std::is_same_v<Src, Broadcast>) {
        Vec Pair = V::splat(mapsPair(M, T, Odd));
        step<V>(S, A, B, Pair, Pair);
      } else {
        Vec M0 = V::load(M.Rows[T] + M.Lane0);
        Vec M1 = V::load(Odd ? nullptr : M.Rows[T + 1] + M.Lane0);
        step<V>(S, A, B, V::lo(M0, M1), V::hi(M0, M1));
      }
    }
    constexpr unsigned H = V::Width / 2;
    alignas(32) int32_t Hi[V::Width], Lo[V::Width];
    V::store(Hi, S.Hi0);
    V::store(Hi + H, S.Hi1);
    V::store(Lo, S.Lo0);
    V::store(Lo + H, S.Lo1);
    foldBlock(Acc, Hi, Lo, V::LaneOf, V::Width, (T1 - T0 + 1) / 2);
  }
}

bool hasAvx2() {
  static const bool Has = __builtin_cpu_supports("avx2");
  return Has;
}

/// Lane counts the AVX2 trace covers: 16-lane blocks and one 8-lane block.
bool avx2Lanes(unsigned L) { return L % 8 == 0 && hasAvx2(); }

void traceAvx2(int64_t *Acc, const int16_t *Taps, unsigned N, const int16_t *W, unsigned L) {
  unsigned B = 0;
  for (; B + 16 <= L; B += 16)
    block<Wide>(Acc + B, Broadcast{Taps}, N, W + B, L);
  if (B < L)
    block<Narrow>(Acc + B, Broadcast{Taps}, N, W + B, L);
}

void depthwiseAvx2(int64_t *Acc, const int16_t *const *Rows, unsigned N, const int16_t *W,
                   unsigned L) {
  unsigned B = 0;
  for (; B + 16 <= L; B += 16)
    block<Wide>(Acc + B, PerLane{Rows, B}, N, W + B, L);
  if (B < L)
    block<Narrow>(Acc + B, PerLane{Rows, B}, N, W + B, L);
}
#else
bool avx2Lanes(unsigned) { return false; }
void traceAvx2(int64_t *, const int16_t *, unsigned, const int16_t *, unsigned) {}
void depthwiseAvx2(int64_t *, const int16_t *const *, unsigned, const int16_t *, unsigned) {}
#endif

} // namespace

void snow::sim::trace(int64_t *Acc, const int16_t *Taps, unsigned N, const int16_t *W, unsigned L) {
  if (avx2Lanes(L))
    traceAvx2(Acc, Taps, N, W, L);
  else
    tracePlain(Acc, Taps, N, W, L);
}

void snow::sim::depthwise(int64_t *Acc, const int16_t *const *Rows, unsigned N, const int16_t *W,
                          unsigned L) {
  if (avx2Lanes(L))
    return depthwiseAvx2(Acc, Rows, N, W, L);
  for (unsigned T = 0; T < N; ++T)
    for (unsigned Lane = 0; Lane < L; ++Lane)
      Acc[Lane] += int32_t(Rows[T][Lane]) * int32_t(W[size_t(T) * L + Lane]);
}
