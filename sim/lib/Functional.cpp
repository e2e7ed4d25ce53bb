//===- Functional.cpp - What each unit operation computes -----------------===//
//
// The functional half of the simulator: range checks and the data effect of
// every load, store, fill, trace, bias, writeback and pooling operation, in the
// fixed-point semantics of docs/fixed-point.md. Timing lives in Timing.cpp.
// Effects are applied when an operation starts; the hazard rules guarantee no
// other unit can observe the difference.
//
// The trace loop, the hot spot of a functional run, is MacKernels.cpp's.
//
//===----------------------------------------------------------------------===//

#include "MacKernels.h"
#include "Machine.h"
#include "snow/isa/Lut.h"
#include "snow/isa/Timing.h"
#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <llvm/ADT/SmallVector.h>

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

/// vwb, vpre and vmul move accumulator entries (rows, a vwb's of len each)
/// to or from maps entries of vmacs x lanes elements.
llvm::Error Machine::checkAccEntries(const Inst &I, const Entry &E, uint64_t T) {
  const uint64_t N = timing::accMoveEntries(I);
  if (N == 0 || E.A1 + N > Hw.AccEntries)
    return fault(
        E, T,
        fmt::format("accumulators [{}, {}) out of range ({})", E.A1, E.A1 + N, Hw.AccEntries));
  return checkBuffer(*this, E, T, "maps buffer", E.A2,
                     timing::accMoveSpan(I, uint64_t(Hw.VmacsPerCu) * Hw.LanesPerVmac),
                     Hw.mapsElems());
}

llvm::Error Machine::vwb(const Inst &I, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac, V = Hw.VmacsPerCu;
  if (auto Err = checkAccEntries(I, E, T))
    return Err;
  if (I.sum && !Hw.CuSumWriteback)
    return fault(E, T, Hw.sumFault());
  if (Opts.TimingOnly)
    return llvm::Error::success();
  // The hardware writes writeback_words vMACs' words per cycle: groups of
  // vMACs outermost, entries inside (row by row). Where a program makes
  // entries overlap, that order decides which value stays.
  const unsigned Wb = Hw.writebackWords();
  const uint64_t Cols = timing::accMoveCols(I);
  // sum: every CU writes the sum over all CUs of the words, wrapped to the
  // accumulators' width (their adder tree is acc_bits wide).
  auto Word = [&](unsigned Cu, unsigned V2, uint64_t Entry, unsigned Lane) {
    const uint64_t At = (E.A1 + Entry) * L + Lane;
    if (!I.sum)
      return signExtend(Acc[Cu * V + V2][At], Hw.AccBits);
    uint64_t Sum = 0;
    for (unsigned C = 0; C < Hw.cus(); ++C)
      Sum += uint64_t(Acc[C * V + V2][At]);
    return signExtend(int64_t(Sum), Hw.AccBits);
  };
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu) {
    if (I.skip >> Cu & 1)
      continue; // skip: this CU's buffer stays as it is
    for (unsigned G0 = 0; G0 < V; G0 += Wb)
      for (uint64_t Entry = 0; Entry < uint64_t(I.rows) * Cols; ++Entry)
        for (unsigned V2 = G0; V2 < std::min(V, G0 + Wb); ++V2) {
          const uint64_t At = E.A2 + Entry / Cols * I.bstride + Entry % Cols * I.cstride;
          int16_t *Out = &Maps[Cu][At + V2 * L];
          for (unsigned Lane = 0; Lane < L; ++Lane) {
            int16_t Y = saturate16(roundShift(Word(Cu, V2, Entry, Lane), I.shift));
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
