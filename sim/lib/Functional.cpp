//===- Functional.cpp - What each unit operation computes -----------------===//
//
// The functional half of the simulator: range checks and the data effect of
// every load, store, fill, trace, bias, writeback and pooling operation, in the
// fixed-point semantics of docs/fixed-point.md. Timing lives in Timing.cpp.
// Effects are applied when an operation starts; the hazard rules guarantee no
// other unit can observe the difference.
//
// The trace loop is the hot spot of a functional run: it is written so the
// lane loop vectorizes (lanes are contiguous in weights and accumulators).
//
//===----------------------------------------------------------------------===//

#include "Machine.h"
#include <algorithm>
#include <cstring>
#include <fmt/format.h>

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

/// acc[0..L) += sum over taps of M[tap] * W[tap*L .. +L).
template <unsigned L>
void traceFixed(int64_t *Acc, const int16_t *M, const int16_t *W, unsigned Rows, unsigned Len,
                unsigned MStride) {
  int64_t Sum[L] = {};
  for (unsigned R = 0; R < Rows; ++R) {
    const int16_t *Mr = M + size_t(R) * MStride;
    for (unsigned I = 0; I < Len; ++I) {
      int32_t X = Mr[I];
      const int16_t *Wi = W + (size_t(R) * Len + I) * L;
      for (unsigned Lane = 0; Lane < L; ++Lane)
        Sum[Lane] += X * int32_t(Wi[Lane]);
    }
  }
  for (unsigned Lane = 0; Lane < L; ++Lane)
    Acc[Lane] += Sum[Lane];
}

void traceAny(unsigned L, int64_t *Acc, const int16_t *M, const int16_t *W, unsigned Rows,
              unsigned Len, unsigned MStride) {
  switch (L) {
  case 16:
    return traceFixed<16>(Acc, M, W, Rows, Len, MStride);
  case 8:
    return traceFixed<8>(Acc, M, W, Rows, Len, MStride);
  case 32:
    return traceFixed<32>(Acc, M, W, Rows, Len, MStride);
  default:
    for (unsigned R = 0; R < Rows; ++R)
      for (unsigned I = 0; I < Len; ++I) {
        int32_t X = M[size_t(R) * MStride + I];
        const int16_t *Wi = W + (size_t(R) * Len + I) * L;
        for (unsigned Lane = 0; Lane < L; ++Lane)
          Acc[Lane] += X * int32_t(Wi[Lane]);
      }
  }
}

} // namespace

/// Extent in elements of a 2-D access: rows at Stride, Len each.
static uint64_t extent2d(uint64_t Rows, uint64_t Stride, uint64_t Len) {
  return Rows == 0 || Len == 0 ? 0 : (Rows - 1) * Stride + Len;
}

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

llvm::Error Machine::loadMaps(const Inst &I, const Entry &E, uint64_t T) {
  if (auto Err = checkMask(*this, E, T, I.mask))
    return Err;
  if (auto Err = checkDramRows(I, E, T, E.A1, uint64_t(I.len) * 2))
    return Err;
  if (auto Err = checkBuffer(*this, E, T, "maps buffer", E.A2, extent2d(I.rows, I.bstride, I.len),
                             Hw.mapsElems()))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu) {
    if (!((I.mask >> Cu) & 1))
      continue;
    for (int64_t R = 0; R < I.rows; ++R)
      std::memcpy(&Maps[Cu][E.A2 + R * I.bstride], Dram.get() + E.A1 + R * I.dstride,
                  size_t(I.len) * 2);
  }
  return llvm::Error::success();
}

llvm::Error Machine::loadWeights(const Inst &I, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac;
  if (auto Err = checkMask(*this, E, T, I.mask))
    return Err;
  if (I.idx >= Hw.VmacsPerCu)
    return fault(E, T, fmt::format("vMAC index {} out of range ({} per CU)", I.idx, Hw.VmacsPerCu));
  if (auto Err = checkDramRows(I, E, T, E.A1, uint64_t(I.len) * L * 2))
    return Err;
  if (auto Err = checkBuffer(*this, E, T, "weights buffer", E.A2,
                             extent2d(I.rows, I.bstride, I.len), Hw.weightsWords()))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu) {
    if (!((I.mask >> Cu) & 1))
      continue;
    auto &W = Weights[Cu * Hw.VmacsPerCu + I.idx];
    for (int64_t R = 0; R < I.rows; ++R)
      std::memcpy(&W[(E.A2 + R * I.bstride) * L], Dram.get() + E.A1 + R * I.dstride,
                  size_t(I.len) * L * 2);
  }
  return llvm::Error::success();
}

llvm::Error Machine::fillMaps(const Inst &I, const Entry &E, uint64_t T) {
  if (auto Err = checkMask(*this, E, T, I.mask))
    return Err;
  if (auto Err = checkBuffer(*this, E, T, "maps buffer", E.A2, extent2d(I.rows, I.bstride, I.len),
                             Hw.mapsElems()))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu)
    if ((I.mask >> Cu) & 1)
      for (int64_t R = 0; R < I.rows; ++R)
        std::fill_n(&Maps[Cu][E.A2 + R * I.bstride], I.len, int16_t(I.value));
  return llvm::Error::success();
}

llvm::Error Machine::storeMaps(const Inst &I, const Entry &E, uint64_t T) {
  if (I.idx >= Hw.cus())
    return fault(E, T, fmt::format("CU index {} out of range ({} CUs)", I.idx, Hw.cus()));
  if (auto Err = checkDramRows(I, E, T, E.A1, uint64_t(I.len) * 2))
    return Err;
  if (auto Err = checkBuffer(*this, E, T, "maps buffer", E.A2, extent2d(I.rows, I.bstride, I.len),
                             Hw.mapsElems()))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  for (int64_t R = 0; R < I.rows; ++R)
    std::memcpy(Dram.get() + E.A1 + R * I.dstride, &Maps[I.idx][E.A2 + R * I.bstride],
                size_t(I.len) * 2);
  return llvm::Error::success();
}

uint64_t Machine::vmacExtent(const Inst &I) const {
  uint64_t Groups = I.Op == isa::Opcode::VMACP ? uint64_t(1) << I.pix : 1;
  return (Groups - 1) * I.cstride + extent2d(I.rows, I.bstride, I.len);
}

llvm::Error Machine::vmac(const Inst &I, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac, V = Hw.VmacsPerCu;
  if (E.A1 >= Hw.AccEntries)
    return fault(E, T, fmt::format("accumulator {} out of range ({})", E.A1, Hw.AccEntries));
  // vmacp: 2^pix pixel groups of V / 2^pix vMACs each.
  const unsigned Pix = I.Op == isa::Opcode::VMACP ? 1u << I.pix : 1;
  if (Pix > V || V % Pix != 0)
    return fault(E, T,
                 fmt::format("pix={} asks for {} pixel groups, which do not divide the {} "
                             "vMACs of a CU",
                             I.pix, Pix, V));
  if (extent2d(I.rows, I.bstride, I.len) == 0)
    return fault(E, T, "maps buffer access is empty (rows and len must be > 0)");
  if (auto Err = checkBuffer(*this, E, T, "maps buffer", E.A2, vmacExtent(I), Hw.mapsElems()))
    return Err;
  if (auto Err = checkBuffer(*this, E, T, "weights buffer", E.A3, uint64_t(I.rows) * I.len,
                             Hw.weightsWords()))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  const unsigned PerPixel = V / Pix;
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu)
    for (unsigned V2 = 0; V2 < V; ++V2) {
      const int16_t *Mp = &Maps[Cu][E.A2 + uint64_t(V2 / PerPixel) * I.cstride];
      unsigned K = Cu * V + V2;
      int64_t *A = &Acc[K][size_t(E.A1) * L];
      if (I.init)
        std::copy_n(Bias[K].data(), L, A);
      traceAny(L, A, Mp, &Weights[K][size_t(E.A3) * L], I.rows, I.len, I.bstride);
      // Wrap at the accumulator width now, so long chains of traces can never
      // overflow the simulator's 64-bit sums.
      for (unsigned Lane = 0; Lane < L; ++Lane)
        A[Lane] = signExtend(A[Lane], Hw.AccBits);
    }
  return llvm::Error::success();
}

llvm::Error Machine::vdw(const Inst &I, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac, V = Hw.VmacsPerCu;
  if (E.A1 >= Hw.AccEntries)
    return fault(E, T, fmt::format("accumulator {} out of range ({})", E.A1, Hw.AccEntries));
  uint64_t Ext = I.rows == 0 || I.len == 0 ? 0
                                           : uint64_t(I.rows - 1) * I.bstride +
                                                 uint64_t(I.len - 1) * I.cstride + uint64_t(V) * L;
  if (auto Err = checkBuffer(*this, E, T, "maps buffer", E.A2, Ext, Hw.mapsElems()))
    return Err;
  if (auto Err = checkBuffer(*this, E, T, "weights buffer", E.A3, uint64_t(I.rows) * I.len,
                             Hw.weightsWords()))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu)
    for (unsigned V2 = 0; V2 < V; ++V2) {
      unsigned K = Cu * V + V2;
      int64_t *A = &Acc[K][size_t(E.A1) * L];
      if (I.init)
        std::copy_n(Bias[K].data(), L, A);
      const int16_t *W = &Weights[K][size_t(E.A3) * L];
      for (int64_t R = 0; R < I.rows; ++R)
        for (int64_t X = 0; X < I.len; ++X) {
          const int16_t *M = &Maps[Cu][E.A2 + R * I.bstride + X * I.cstride + V2 * L];
          const int16_t *Wt = W + (R * I.len + X) * L;
          for (unsigned Lane = 0; Lane < L; ++Lane)
            A[Lane] += int32_t(M[Lane]) * int32_t(Wt[Lane]);
        }
      for (unsigned Lane = 0; Lane < L; ++Lane)
        A[Lane] = signExtend(A[Lane], Hw.AccBits);
    }
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

/// vwb and vpre move `rows` accumulator entries to or from maps entries of
/// vmacs x lanes elements.
llvm::Error Machine::checkAccEntries(const Inst &I, const Entry &E, uint64_t T) {
  if (I.rows == 0 || E.A1 + uint64_t(I.rows) > Hw.AccEntries)
    return fault(
        E, T,
        fmt::format("accumulators [{}, {}) out of range ({})", E.A1, E.A1 + I.rows, Hw.AccEntries));
  return checkBuffer(*this, E, T, "maps buffer", E.A2,
                     extent2d(I.rows, I.bstride, uint64_t(Hw.VmacsPerCu) * Hw.LanesPerVmac),
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
  const unsigned Wb = std::min(Hw.WritebackWords, V);
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu)
    for (unsigned G0 = 0; G0 < V; G0 += Wb)
      for (int64_t Entry = 0; Entry < I.rows; ++Entry)
        for (unsigned V2 = G0; V2 < std::min(V, G0 + Wb); ++V2) {
          int16_t *Out = &Maps[Cu][E.A2 + Entry * I.bstride + V2 * L];
          const int64_t *Src = &Acc[Cu * V + V2][(E.A1 + Entry) * L];
          for (unsigned Lane = 0; Lane < L; ++Lane) {
            int16_t Y = saturate16(roundShift(signExtend(Src[Lane], Hw.AccBits), I.shift));
            Out[Lane] = I.relu && Y < 0 ? 0 : Y;
          }
        }
  return llvm::Error::success();
}

llvm::Error Machine::vpre(const Inst &I, const Entry &E, uint64_t T) {
  const unsigned L = Hw.LanesPerVmac, V = Hw.VmacsPerCu;
  if (auto Err = checkAccEntries(I, E, T))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu)
    for (unsigned V2 = 0; V2 < V; ++V2) {
      auto &A = Acc[Cu * V + V2];
      for (int64_t Entry = 0; Entry < I.rows; ++Entry) {
        const int16_t *In = &Maps[Cu][E.A2 + Entry * I.bstride + V2 * L];
        int64_t *Dst = &A[(E.A1 + Entry) * L];
        for (unsigned Lane = 0; Lane < L; ++Lane) {
          int64_t Add = int64_t(uint64_t(int64_t(In[Lane])) << I.shift);
          Dst[Lane] = signExtend((I.init ? 0 : Dst[Lane]) + Add, Hw.AccBits);
        }
      }
    }
  return llvm::Error::success();
}

llvm::Error Machine::vpool(const Inst &I, const Entry &E, uint64_t T, bool Max) {
  const unsigned L = Hw.LanesPerVmac;
  uint64_t Ext = I.rows == 0 || I.len == 0
                     ? 0
                     : uint64_t(I.rows - 1) * I.bstride + uint64_t(I.len - 1) * I.cstride + L;
  if (auto Err = checkBuffer(*this, E, T, "maps buffer (pool source)", E.A2, Ext, Hw.mapsElems()))
    return Err;
  if (auto Err = checkBuffer(*this, E, T, "maps buffer (pool result)", E.A1, L, Hw.mapsElems()))
    return Err;
  if (Opts.TimingOnly)
    return llvm::Error::success();
  for (unsigned Cu = 0; Cu < Hw.cus(); ++Cu) {
    auto &Mp = Maps[Cu];
    int64_t R[64];
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
