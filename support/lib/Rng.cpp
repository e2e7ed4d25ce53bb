//===- Rng.cpp - SplitMix64 drawn four at a time --------------------------===//
//
// uniformFloats gives the bits of the scalar loop float(uniform(Lo, Hi)):
// AVX2 has no 64-bit multiply, so each is three 32 x 32 -> 64 products
// (the high x high one only reaches bits 64 and up, dropped mod 2^64); and
// no 64-bit integer -> double conversion, so the 53 random bits go in two
// exact halves through the 2^52 magic number, then add exactly (the sum has
// 53 significant bits). The arithmetic after that is the scalar's, operation
// for operation: a multiply by 2^-53 (exact), Lo + (Hi - Lo) * u as a
// multiply then an add, both rounded, never fused (the function is compiled
// for AVX2 without FMA, so the compiler cannot contract them), and a
// conversion to float rounding to nearest as the scalar cast does.
//
//===----------------------------------------------------------------------===//

#include "snow/support/Rng.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

using namespace snow;

namespace {

#if defined(__x86_64__) || defined(__i386__)

[[gnu::target("avx2")]] inline __m256i mul64(__m256i A, __m256i B) {
  const __m256i Lo = _mm256_mul_epu32(A, B);
  const __m256i Cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(A, 32), B),
                                         _mm256_mul_epu32(A, _mm256_srli_epi64(B, 32)));
  return _mm256_add_epi64(Lo, _mm256_slli_epi64(Cross, 32));
}

/// Exactly double(X) for X < 2^52.
[[gnu::target("avx2")]] inline __m256d toDouble(__m256i X) {
  const __m256i Magic = _mm256_set1_epi64x(0x4330000000000000LL); // 2^52
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(X, Magic)), _mm256_castsi256_pd(Magic));
}

/// Draws N (a multiple of 4) values from the states S + Gamma, S + 2 Gamma...
[[gnu::target("avx2")]] void uniformFloatsAvx2(uint64_t S, uint64_t Gamma, float *Out, uint64_t N,
                                               double Lo, double Hi) {
  // Lane k holds S + (k + 1) Gamma: the state its first draw mixes.
  __m256i State = _mm256_set_epi64x(int64_t(S + 4 * Gamma), int64_t(S + 3 * Gamma),
                                    int64_t(S + 2 * Gamma), int64_t(S + Gamma));
  const __m256i Step = _mm256_set1_epi64x(int64_t(4 * Gamma));
  const __m256i M1 = _mm256_set1_epi64x(int64_t(0xbf58476d1ce4e5b9ULL));
  const __m256i M2 = _mm256_set1_epi64x(int64_t(0x94d049bb133111ebULL));
  const __m256i Low32 = _mm256_set1_epi64x(0xffffffffLL);
  const __m256d TwoTo32 = _mm256_set1_pd(0x1.0p32), TwoToMinus53 = _mm256_set1_pd(0x1.0p-53);
  const __m256d VLo = _mm256_set1_pd(Lo), Width = _mm256_set1_pd(Hi - Lo);
  for (uint64_t I = 0; I < N; I += 4) {
    __m256i Z = State;
    Z = mul64(_mm256_xor_si256(Z, _mm256_srli_epi64(Z, 30)), M1);
    Z = mul64(_mm256_xor_si256(Z, _mm256_srli_epi64(Z, 27)), M2);
    Z = _mm256_xor_si256(Z, _mm256_srli_epi64(Z, 31));
    const __m256i Bits = _mm256_srli_epi64(Z, 11); // 53 bits
    const __m256d Whole =
        _mm256_add_pd(_mm256_mul_pd(toDouble(_mm256_srli_epi64(Bits, 32)), TwoTo32),
                      toDouble(_mm256_and_si256(Bits, Low32)));
    const __m256d U = _mm256_mul_pd(Whole, TwoToMinus53);
    const __m256d V = _mm256_add_pd(VLo, _mm256_mul_pd(Width, U));
    _mm_storeu_ps(Out + I, _mm256_cvtpd_ps(V));
    State = _mm256_add_epi64(State, Step);
  }
}

/// uniformFloatsAvx2 eight at a time with AVX-512DQ, which has the 64-bit
/// multiply and the exact 64-bit integer -> double conversion AVX2 lacks.
/// The multiply and add go through the rounding-mode intrinsics: plain ones
/// the compiler may fuse into an FMA (AVX-512 has it), which would round
/// once where the scalar loop rounds twice.
// GCC 12's AVX-512 headers start some intrinsics from an undefined vector
// and then warn that it may be used uninitialized (a false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
[[gnu::target("avx512f,avx512dq")]] void uniformFloatsAvx512(uint64_t S, uint64_t Gamma, float *Out,
                                                             uint64_t N, double Lo, double Hi) {
  constexpr int Nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  __m512i State = _mm512_add_epi64(_mm512_set1_epi64(int64_t(S)),
                                   _mm512_mullo_epi64(_mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1),
                                                      _mm512_set1_epi64(int64_t(Gamma))));
  const __m512i Step = _mm512_set1_epi64(int64_t(8 * Gamma));
  const __m512i M1 = _mm512_set1_epi64(int64_t(0xbf58476d1ce4e5b9ULL));
  const __m512i M2 = _mm512_set1_epi64(int64_t(0x94d049bb133111ebULL));
  const __m512d TwoToMinus53 = _mm512_set1_pd(0x1.0p-53);
  const __m512d VLo = _mm512_set1_pd(Lo), Width = _mm512_set1_pd(Hi - Lo);
  for (uint64_t I = 0; I < N; I += 8) {
    __m512i Z = State;
    Z = _mm512_mullo_epi64(_mm512_xor_si512(Z, _mm512_srli_epi64(Z, 30)), M1);
    Z = _mm512_mullo_epi64(_mm512_xor_si512(Z, _mm512_srli_epi64(Z, 27)), M2);
    Z = _mm512_xor_si512(Z, _mm512_srli_epi64(Z, 31));
    const __m512d U =
        _mm512_mul_round_pd(_mm512_cvtepu64_pd(_mm512_srli_epi64(Z, 11)), TwoToMinus53, Nearest);
    const __m512d V = _mm512_add_round_pd(VLo, _mm512_mul_round_pd(Width, U, Nearest), Nearest);
    _mm256_storeu_ps(Out + I, _mm512_cvt_roundpd_ps(V, Nearest));
    State = _mm512_add_epi64(State, Step);
  }
}

#pragma GCC diagnostic pop

bool hasAvx512() {
  static const bool Has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  return Has;
}

bool hasAvx2() {
  static const bool Has = __builtin_cpu_supports("avx2");
  return Has;
}

#endif

} // namespace

void Rng::uniformFloats(float *Out, uint64_t N, double Lo, double Hi) {
  uint64_t I = 0;
#if defined(__x86_64__) || defined(__i386__)
  if (hasAvx512() && N >= 8) {
    const uint64_t Vec = N / 8 * 8;
    uniformFloatsAvx512(State, Gamma, Out, Vec, Lo, Hi);
    State += Vec * Gamma;
    I = Vec;
  }
  if (hasAvx2() && N - I >= 4) {
    const uint64_t Vec = (N - I) / 4 * 4;
    uniformFloatsAvx2(State, Gamma, Out + I, Vec, Lo, Hi);
    State += Vec * Gamma;
    I += Vec;
  }
#endif
  for (; I < N; ++I)
    Out[I] = float(uniform(Lo, Hi));
}
