//===- Functional.cpp - What each unit operation computes -----------------===//
//
// The functional half of the simulator: range checks and the data effect of
// every load, store, fill, trace, bias, writeback and pooling operation, in the
// fixed-point semantics of docs/fixed-point.md. Timing lives in Timing.cpp.
// Effects are applied when an operation starts; the hazard rules guarantee no
// other unit can observe the difference.
//
// The trace loop is the hot spot of a functional run: on x86 with AVX2 it
// runs a pmaddwd kernel that is bit-identical to the plain loop (see
// traceAvx2); elsewhere the plain loop.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"
#include "snow/isa/Lut.h"
#include "snow/isa/Timing.h"
#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <llvm/ADT/SmallVector.h>
#include <type_traits>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

using namespace snow;
using namespace snow::sim;
using isa::Inst;

namespace {

int64_t signExtend(int64_t V, unsigned Bits) {
  if (Bits >= 64)
    return V;
  uint64_t M = uint64_t(1) << (Bits - 1);
  uint64_t U = uint64_t(V) & ((uint64_t(1) << Bits) - 1);
  return int64_t((U ^ M) - M);
}

int16_t saturate16(int64_t V) { return int16_t(std::clamp<int64_t>(V, INT16_MIN, INT16_MAX)); }

/// Round half up, then arithmetic shift (docs/fixed-point.md).
int64_t roundShift(int64_t V, unsigned Shift) {
  if (Shift == 0)
    return V;
  return (V + (int64_t(1) << (Shift - 1))) >> Shift;
}

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

/// Acc[0..L) += the trace of N taps; picks the AVX2 kernel where it applies.
void trace(int64_t *Acc, const int16_t *Taps, unsigned N, const int16_t *W, unsigned L) {
  if (avx2Lanes(L))
    traceAvx2(Acc, Taps, N, W, L);
  else
    tracePlain(Acc, Taps, N, W, L);
}

/// Acc[Lane] += sum over taps T < N of Rows[T][Lane] * W[T*L + Lane] (vdw).
void depthwise(int64_t *Acc, const int16_t *const *Rows, unsigned N, const int16_t *W, unsigned L) {
  if (avx2Lanes(L))
    return depthwiseAvx2(Acc, Rows, N, W, L);
  for (unsigned T = 0; T < N; ++T)
    for (unsigned Lane = 0; Lane < L; ++Lane)
      Acc[Lane] += int32_t(Rows[T][Lane]) * int32_t(W[size_t(T) * L + Lane]);
}

} // namespace

static llvm::Error checkBuffer(const Machine &M, const Entry &E, uint64_t T, const char *What,
                               uint64_t Lo, uint64_t Extent, uint64_t Size) {
  if (Extent == 0)
    return M.fault(E, T, fmt::format("{} access is empty (rows and len must be > 0)", What));
  if (Lo + Extent > Size)
    return M.fault(
        E, T,
        fmt::format("{} access [{}, {}) is out of range (size {})", What, Lo, Lo + Extent, Size));
  return llvm::Error::success();
}

/// The maps rows a load, fill or store moves: rows of len at bstride from Lo.
static llvm::Error checkMapsRows(const Machine &M, const Inst &I, const Entry &E, uint64_t T,
                                 uint64_t Lo) {
  return checkBuffer(M, E, T, "maps buffer", Lo, timing::traceSpan(I.rows, I.bstride, I.len),
                     M.Hw.mapsElems());
}

/// The accumulator entry rs1 of a vmac / vdw.
static llvm::Error checkAccumulator(const Machine &M, const Entry &E, uint64_t T) {
  if (E.A1 >= M.Hw.AccEntries)
    return M.fault(E, T, fmt::format("accumulator {} out of range ({})", E.A1, M.Hw.AccEntries));
  return llvm::Error::success();
}

/// The weights a trace reads from rs3 on: one word of lanes per tap.
static llvm::Error checkTraceWeights(const Machine &M, const Inst &I, const Entry &E, uint64_t T) {
  return checkBuffer(M, E, T, "weights buffer", E.A3, uint64_t(I.rows) * I.len,
                     M.Hw.weightsWords());
}

uint64_t Machine::vdwExtent(const Inst &I) const {
  return windowExtent(I, uint64_t(Hw.VmacsPerCu) * Hw.LanesPerVmac);
}

llvm::Error Machine::checkDramRows(const Inst &I, const Entry &E, uint64_t T, uint64_t Addr,
                                   uint64_t RowBytes) {
  int64_t First = int64_t(Addr);
  int64_t Last = First + int64_t(I.rows - 1) * I.dstride;
  int64_t Lo = std::min(First, Last), Hi = std::max(First, Last) + int64_t(RowBytes);
  if (Addr % 2 != 0 || I.dstride % 2 != 0)
    return fault(
        E, T,
        fmt::format("DRAM address {:#x} or stride {} is not 2-byte aligned", Addr, I.dstride));
  if (Lo < 0 || uint64_t(Hi) > DramSize)
    return fault(
        E, T,
        fmt::format("DRAM access [{:#x}, {:#x}) is outside DRAM ({} MiB)", Lo, Hi, DramSize >> 20));
  return llvm::Error::success();
}

static llvm::Error checkMask(const Machine &M, const Entry &E, uint64_t T, int64_t Mask) {
  if (Mask == 0 || (uint64_t(Mask) >> M.Hw.cus()) != 0)
    return M.fault(
        E, T,
        fmt::format("CU mask {:#x} is empty or names CUs beyond the {} present", Mask, M.Hw.cus()));
  return llvm::Error::success();
}

/// Calls F(Cu) for each CU that Mask names: loads and fills go to all of them.
template <class Fn> static void forMaskedCus(const Machine &M, int64_t Mask, Fn F) {
  for (unsigned Cu = 0; Cu < M.Hw.cus(); ++Cu)
    if ((Mask >> Cu) & 1)
      F(Cu);
}

llvm::Error Machine::checkMapsDram(const Inst &I, const Entry &E, uint64_t T) {
  if (auto Err = checkDramRows(I, E, T, E.A1, uint64_t(I.len) * 2))
    return Err;
  return checkMapsRows(*this, I, E, T, E.A2);
}

llvm::Error Machine::loadMaps(const Inst &I, const Entry &E, uint64_t T) {
  if (auto Err = checkMask(*this, E, T, I.mask))
    return Err;
  if (auto Err = checkMapsDram(I, E, T))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  forMaskedCus(*this, I.mask, [&](unsigned Cu) {
    for (int64_t R = 0; R < I.rows; ++R)
      std::memcpy(&Maps[Cu][E.A2 + R * I.bstride], Dram.get() + E.A1 + R * I.dstride,
                  size_t(I.len) * 2);
  });
  return llvm::Error::success();
}

llvm::Error Machine::loadWeights(const Inst &I, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac;
  if (auto Err = checkMask(*this, E, T, I.mask))
    return Err;
  if (I.idx >= Hw.VmacsPerCu)
    return fault(E, T, fmt::format("vMAC index {} out of range ({} per CU)", I.idx, Hw.VmacsPerCu));
  // wpix: vMAC idx of each of 2^wpix pixel groups (vmacp's), the vMACs v with
  // v % (VmacsPerCu >> wpix) == idx.
  if (std::string Why = Hw.wpixFault(I.wpix, I.idx); !Why.empty())
    return fault(E, T, Why);
  const unsigned Groups = 1u << I.wpix, PerGroup = Hw.VmacsPerCu >> I.wpix;
  if (auto Err = checkDramRows(I, E, T, E.A1, uint64_t(I.len) * L * 2))
    return Err;
  if (auto Err = checkBuffer(*this, E, T, "weights buffer", E.A2,
                             timing::traceSpan(I.rows, I.bstride, I.len), Hw.weightsWords()))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  forMaskedCus(*this, I.mask, [&](unsigned Cu) {
    for (unsigned G = 0; G < Groups; ++G) {
      auto &W = Weights[Cu * Hw.VmacsPerCu + G * PerGroup + I.idx];
      for (int64_t R = 0; R < I.rows; ++R)
        std::memcpy(&W[(E.A2 + R * I.bstride) * L], Dram.get() + E.A1 + R * I.dstride,
                    size_t(I.len) * L * 2);
    }
  });
  return llvm::Error::success();
}

llvm::Error Machine::fillMaps(const Inst &I, const Entry &E, uint64_t T) {
  if (auto Err = checkMask(*this, E, T, I.mask))
    return Err;
  if (auto Err = checkMapsRows(*this, I, E, T, E.A2))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  forMaskedCus(*this, I.mask, [&](unsigned Cu) {
    for (int64_t R = 0; R < I.rows; ++R)
      std::fill_n(&Maps[Cu][E.A2 + R * I.bstride], I.len, int16_t(I.value));
  });
  return llvm::Error::success();
}

llvm::Error Machine::storeMaps(const Inst &I, const Entry &E, uint64_t T) {
  if (I.idx >= Hw.cus())
    return fault(E, T, fmt::format("CU index {} out of range ({} CUs)", I.idx, Hw.cus()));
  if (auto Err = checkMapsDram(I, E, T))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  uint64_t Rails = 0;
  for (int64_t R = 0; R < I.rows; ++R) {
    const int16_t *Row = &Maps[I.idx][E.A2 + R * I.bstride];
    std::memcpy(Dram.get() + E.A1 + R * I.dstride, Row, size_t(I.len) * 2);
    // V is at a rail iff uint16(V - 32767) <= 1 (32767 -> 0, -32768 -> 1):
    // one compare per value, in 16-bit lanes the compiler vectorizes.
    uint32_t RowRails = 0;
    for (int64_t X = 0; X < I.len; ++X)
      RowRails += uint16_t(uint16_t(Row[X]) + uint16_t(32769)) < 2;
    Rails += RowRails;
  }
  layerStats(E.Layer).RailValues += Rails;
  return llvm::Error::success();
}

uint64_t Machine::vmacExtent(const Inst &I) const {
  uint64_t Groups = I.Op == isa::Opcode::VMACP ? uint64_t(1) << I.pix : 1;
  return (Groups - 1) * I.cstride + timing::traceSpan(I.rows, I.bstride, I.len);
}

llvm::Error Machine::vmac(const Inst &I, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac, V = Hw.VmacsPerCu;
  if (auto Err = checkAccumulator(*this, E, T))
    return Err;
  // vmacp: 2^pix pixel groups of V / 2^pix vMACs each.
  const unsigned Pix = I.Op == isa::Opcode::VMACP ? 1u << I.pix : 1;
  if (Pix > V || V % Pix != 0)
    return fault(E, T,
                 fmt::format("pix={} asks for {} pixel groups, which do not divide the {} "
                             "vMACs of a CU",
                             I.pix, Pix, V));
  if (timing::traceSpan(I.rows, I.bstride, I.len) == 0)
    return fault(E, T, "maps buffer access is empty (rows and len must be > 0)");
  if (auto Err = checkBuffer(*this, E, T, "maps buffer", E.A2, vmacExtent(I), Hw.mapsElems()))
    return Err;
  if (auto Err = checkTraceWeights(*this, I, E, T))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  // The maps taps of a trace, rows one after another: the same for every
  // vMAC of a pixel group, gathered once.
  const unsigned PerPixel = V / Pix, N = unsigned(I.rows) * I.len;
  llvm::SmallVector<int16_t, 1024> Taps(N);
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu)
    for (unsigned V2 = 0; V2 < V; ++V2) {
      if (V2 % PerPixel == 0) {
        const int16_t *Mp = &Maps[Cu][E.A2 + uint64_t(V2 / PerPixel) * I.cstride];
        for (unsigned R = 0; R < unsigned(I.rows); ++R)
          std::copy_n(Mp + size_t(R) * I.bstride, I.len, &Taps[size_t(R) * I.len]);
      }
      unsigned K = Cu * V + V2;
      int64_t *A = &Acc[K][size_t(E.A1) * L];
      if (I.init)
        std::copy_n(Bias[K].data(), L, A);
      trace(A, Taps.data(), N, &Weights[K][size_t(E.A3) * L], L);
      // Wrap at the accumulator width now, so long chains of traces can never
      // overflow the simulator's 64-bit sums.
      for (unsigned Lane = 0; Lane < L; ++Lane)
        A[Lane] = signExtend(A[Lane], Hw.AccBits);
    }
  return llvm::Error::success();
}

llvm::Error Machine::vdw(const Inst &I, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac, V = Hw.VmacsPerCu;
  if (auto Err = checkAccumulator(*this, E, T))
    return Err;
  if (auto Err = checkBuffer(*this, E, T, "maps buffer", E.A2, vdwExtent(I), Hw.mapsElems()))
    return Err;
  if (auto Err = checkTraceWeights(*this, I, E, T))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  // Each tap's maps row (lane-contiguous, one vMAC's channels).
  const unsigned N = unsigned(I.rows) * I.len;
  llvm::SmallVector<const int16_t *, 256> Rows(N);
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu)
    for (unsigned V2 = 0; V2 < V; ++V2) {
      unsigned K = Cu * V + V2;
      int64_t *A = &Acc[K][size_t(E.A1) * L];
      if (I.init)
        std::copy_n(Bias[K].data(), L, A);
      for (int64_t R = 0, T = 0; R < I.rows; ++R)
        for (int64_t X = 0; X < I.len; ++X)
          Rows[T++] = &Maps[Cu][E.A2 + R * I.bstride + X * I.cstride + V2 * L];
      depthwise(A, Rows.data(), N, &Weights[K][size_t(E.A3) * L], L);
      for (unsigned Lane = 0; Lane < L; ++Lane)
        A[Lane] = signExtend(A[Lane], Hw.AccBits);
    }
  return llvm::Error::success();
}

/// vlut: every CU's activation table from vMAC 0's weight words at rs3.
llvm::Error Machine::vlut(const Inst &, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac, V = Hw.VmacsPerCu;
  if (auto Err =
          checkBuffer(*this, E, T, "weights buffer", E.A3, timing::lutWords(Hw), Hw.weightsWords()))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu)
    std::copy_n(&Weights[Cu * V][size_t(E.A3) * L], isa::LutEntries, Lut[Cu].data());
  return llvm::Error::success();
}

llvm::Error Machine::vbias(const Inst &I, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac;
  if (auto Err = checkBuffer(*this, E, T, "weights buffer", E.A3, 1, Hw.weightsWords()))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  for (unsigned K = 0; K < Hw.cus() * Hw.VmacsPerCu; ++K)
    for (unsigned Lane = 0; Lane < L; ++Lane)
      Bias[K][Lane] = signExtend(
          int64_t(uint64_t(int64_t(Weights[K][size_t(E.A3) * L + Lane])) << I.shift), Hw.AccBits);
  return llvm::Error::success();
}

/// vwb, vpre and vmul move `rows` accumulator entries to or from maps entries of
/// vmacs x lanes elements.
llvm::Error Machine::checkAccEntries(const Inst &I, const Entry &E, uint64_t T) {
  if (I.rows == 0 || E.A1 + uint64_t(I.rows) > Hw.AccEntries)
    return fault(
        E, T,
        fmt::format("accumulators [{}, {}) out of range ({})", E.A1, E.A1 + I.rows, Hw.AccEntries));
  return checkBuffer(
      *this, E, T, "maps buffer", E.A2,
      timing::traceSpan(I.rows, I.bstride, uint64_t(Hw.VmacsPerCu) * Hw.LanesPerVmac),
      Hw.mapsElems());
}

llvm::Error Machine::vwb(const Inst &I, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac, V = Hw.VmacsPerCu;
  if (auto Err = checkAccEntries(I, E, T))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  // The hardware writes writeback_words vMACs' words per cycle: groups of
  // vMACs outermost, entries inside. Where a program makes entries overlap,
  // that order decides which value stays.
  const unsigned Wb = Hw.writebackWords();
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu) {
    if (I.skip >> Cu & 1)
      continue; // skip: this CU's buffer stays as it is
    for (unsigned G0 = 0; G0 < V; G0 += Wb)
      for (int64_t Entry = 0; Entry < I.rows; ++Entry)
        for (unsigned V2 = G0; V2 < std::min(V, G0 + Wb); ++V2) {
          int16_t *Out = &Maps[Cu][E.A2 + Entry * I.bstride + V2 * L];
          const int64_t *Src = &Acc[Cu * V + V2][(E.A1 + Entry) * L];
          for (unsigned Lane = 0; Lane < L; ++Lane) {
            int16_t Y = saturate16(roundShift(signExtend(Src[Lane], Hw.AccBits), I.shift));
            if (I.lut)
              Y = isa::lutLookup(Lut[Cu].data(), Y);
            Out[Lane] = I.relu && Y < 0 ? 0 : Y;
          }
        }
  }
  return llvm::Error::success();
}

/// vpre adds each lane's map element, shifted, to its accumulator; vmul
/// multiplies the accumulator, rounded and saturated to 16 bits as a
/// writeback would, by it (the lane's multiplier takes it in place of a
/// weight). Both walk the entries as vwb does.
llvm::Error Machine::accFromMaps(const Inst &I, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac, V = Hw.VmacsPerCu;
  if (auto Err = checkAccEntries(I, E, T))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  const bool Mul = I.Op == isa::Opcode::VMUL;
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu)
    for (unsigned V2 = 0; V2 < V; ++V2) {
      auto &A = Acc[Cu * V + V2];
      for (int64_t Entry = 0; Entry < I.rows; ++Entry) {
        const int16_t *In = &Maps[Cu][E.A2 + Entry * I.bstride + V2 * L];
        int64_t *Dst = &A[(E.A1 + Entry) * L];
        for (unsigned Lane = 0; Lane < L; ++Lane) {
          if (Mul) {
            int64_t X = saturate16(roundShift(signExtend(Dst[Lane], Hw.AccBits), I.shift));
            Dst[Lane] = signExtend(X * In[Lane], Hw.AccBits);
          } else {
            int64_t Add = int64_t(uint64_t(int64_t(In[Lane])) << I.shift);
            Dst[Lane] = signExtend((I.init ? 0 : Dst[Lane]) + Add, Hw.AccBits);
          }
        }
      }
    }
  return llvm::Error::success();
}

llvm::Error Machine::vpool(const Inst &I, const Entry &E, uint64_t T, bool Max) {
  if (unsigned(I.words) + 1 > Hw.poolWords())
    return fault(E, T,
                 fmt::format("words={} asks for {} lane words, more than the {} a pool computes "
                             "at once",
                             I.words, unsigned(I.words) + 1, Hw.poolWords()));
  const unsigned L = poolLanes(Hw, I);
  if (auto Err = checkBuffer(*this, E, T, "maps buffer (pool source)", E.A2, windowExtent(I, L),
                             Hw.mapsElems()))
    return Err;
  if (auto Err = checkBuffer(*this, E, T, "maps buffer (pool result)", E.A1, L, Hw.mapsElems()))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu) {
    auto &Mp = Maps[Cu];
    int64_t R[isa::MaxVmacs * 64];
    for (unsigned Lane = 0; Lane < L; ++Lane)
      R[Lane] = Max ? INT16_MIN : 0;
    for (int64_t Y = 0; Y < I.rows; ++Y)
      for (int64_t X = 0; X < I.len; ++X) {
        const int16_t *P = &Mp[E.A2 + Y * I.bstride + X * I.cstride];
        for (unsigned Lane = 0; Lane < L; ++Lane)
          R[Lane] = Max ? std::max<int64_t>(R[Lane], P[Lane]) : R[Lane] + P[Lane];
      }
    for (unsigned Lane = 0; Lane < L; ++Lane)
      Mp[E.A1 + Lane] =
          Max ? int16_t(R[Lane])
              : saturate16(roundShift(signExtend(R[Lane], Hw.AccBits) * int64_t(I.mult), I.shift));
  }
  return llvm::Error::success();
}
