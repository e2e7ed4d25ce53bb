//===- Crc32.cpp - The standard CRC-32, fast on x86 -----------------------===//
//
// Folding by carry-less multiplication, after Gopal et al., "Fast CRC
// Computation for Generic Polynomials Using PCLMULQDQ Instruction" (Intel,
// 2009), in the bit-reflected form zlib uses (the constants are the paper's
// for the polynomial 0x04C11DB7). Four 128-bit lanes fold 64 bytes per step;
// the folded remainder is reduced to 32 bits by Barrett reduction. Whatever
// does not fill a 16-byte block, and every CPU without PCLMULQDQ, goes
// through llvm::crc32 (zlib's tables), so the result is the same everywhere.
//
//===----------------------------------------------------------------------===//

#include "snow/support/Crc32.h"
#include "llvm/Support/CRC.h"
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
namespace {

[[gnu::target("pclmul,sse4.1"), gnu::always_inline]] inline __m128i load(const uint8_t *P) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i *>(P));
}

/// X folded 128 bits ahead (constants K), plus the next block.
[[gnu::target("pclmul,sse4.1"), gnu::always_inline]] inline __m128i fold(__m128i K, __m128i X,
                                                                         __m128i Next) {
  __m128i Lo = _mm_clmulepi64_si128(X, K, 0x00);
  __m128i Hi = _mm_clmulepi64_si128(X, K, 0x11);
  return _mm_xor_si128(_mm_xor_si128(Hi, Lo), Next);
}

/// The CRC register (inverted, as zlib keeps it) after Len bytes at Buf;
/// Len >= 64 and a multiple of 16.
[[gnu::target("pclmul,sse4.1")]] uint32_t foldClmul(const uint8_t *Buf, size_t Len, uint32_t Crc) {
  alignas(16) static const uint64_t K1K2[] = {0x0154442bd4, 0x01c6e41596};
  alignas(16) static const uint64_t K3K4[] = {0x01751997d0, 0x00ccaa009e};
  alignas(16) static const uint64_t K5K0[] = {0x0163cd6124, 0x0000000000};
  alignas(16) static const uint64_t Poly[] = {0x01db710641, 0x01f7011641};

  __m128i X1 = _mm_xor_si128(load(Buf), _mm_cvtsi32_si128(int(Crc)));
  __m128i X2 = load(Buf + 16), X3 = load(Buf + 32), X4 = load(Buf + 48);
  __m128i K = _mm_load_si128(reinterpret_cast<const __m128i *>(K1K2));
  Buf += 64;
  Len -= 64;
  for (; Len >= 64; Buf += 64, Len -= 64) {
    X1 = fold(K, X1, load(Buf));
    X2 = fold(K, X2, load(Buf + 16));
    X3 = fold(K, X3, load(Buf + 32));
    X4 = fold(K, X4, load(Buf + 48));
  }
  // Fold the four lanes into one, then the remaining 16-byte blocks.
  K = _mm_load_si128(reinterpret_cast<const __m128i *>(K3K4));
  X1 = fold(K, X1, X2);
  X1 = fold(K, X1, X3);
  X1 = fold(K, X1, X4);
  for (; Len >= 16; Buf += 16, Len -= 16)
    X1 = fold(K, X1, load(Buf));

  // 128 bits to 64.
  __m128i Mask = _mm_setr_epi32(~0, 0, ~0, 0);
  X2 = _mm_clmulepi64_si128(X1, K, 0x10);
  X1 = _mm_xor_si128(_mm_srli_si128(X1, 8), X2);
  K = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(K5K0));
  X2 = _mm_srli_si128(X1, 4);
  X1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(X1, Mask), K, 0x00), X2);
  // Barrett reduction to 32 bits.
  K = _mm_load_si128(reinterpret_cast<const __m128i *>(Poly));
  X2 = _mm_clmulepi64_si128(_mm_and_si128(X1, Mask), K, 0x10);
  X2 = _mm_clmulepi64_si128(_mm_and_si128(X2, Mask), K, 0x00);
  return uint32_t(_mm_extract_epi32(_mm_xor_si128(X1, X2), 1));
}

bool hasClmul() {
  static const bool Has = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return Has;
}

} // namespace
#endif

uint32_t snow::crc32(uint32_t Crc, llvm::ArrayRef<uint8_t> Data) {
#if defined(__x86_64__) || defined(__i386__)
  if (Data.size() >= 64 && hasClmul()) {
    size_t Blocks = Data.size() & ~size_t(15);
    Crc = ~foldClmul(Data.data(), Blocks, ~Crc);
    return llvm::crc32(Crc, Data.drop_front(Blocks));
  }
#endif
  return llvm::crc32(Crc, Data);
}

uint32_t snow::crc32(llvm::ArrayRef<uint8_t> Data) { return snow::crc32(0, Data); }
