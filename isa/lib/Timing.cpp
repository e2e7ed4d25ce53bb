//===- Timing.cpp - The cost of every operation, written once -------------===//
//
// See snow/isa/Timing.h. The simulator's timing engine and the compiler's
// cost model both call these functions; docs/timing.md lists who reads what.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Timing.h"
#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdlib>
#include <numeric>

using namespace snow;
using isa::Inst;
using isa::Opcode;

uint64_t timing::dmaRowBytes(const Inst &I, const isa::HwConfig &Hw) {
  return uint64_t(I.len) * 2 * (I.Op == Opcode::LD_WGT ? Hw.LanesPerVmac : 1);
}

uint64_t timing::dmaBurstBytes(const isa::HwConfig &Hw, uint64_t Addr, int64_t Stride,
                               uint64_t Rows, uint64_t RowBytes) {
  const uint64_t B = Hw.DramBurstBytes;
  // Rows that follow each other in DRAM (a run of pixels gathered from, or
  // scattered to, strided buffer rows) are one span: the engine packs them
  // into bursts.
  if (Hw.DmaMergeRows && Rows > 1 && Stride == int64_t(RowBytes)) {
    RowBytes *= Rows;
    Rows = 1;
  }
  auto Span = [&](uint64_t A) { return (A + RowBytes + B - 1) / B * B - A / B * B; };
  // Rows a whole number of bursts apart all start at the same offset in a
  // burst, so they all span the same number of bursts.
  if (Stride % int64_t(B) == 0)
    return Rows * Span(Addr);
  uint64_t Sum = 0;
  for (uint64_t R = 0; R < Rows; ++R)
    Sum += Span(uint64_t(int64_t(Addr) + int64_t(R) * Stride));
  return Sum;
}

bool timing::dramOverlap(const DramRows &A, const DramRows &B) {
  const int64_t ALo = int64_t(A.lo()), BLo = int64_t(B.lo());
  if (ALo >= int64_t(B.hi()) || BLo >= int64_t(A.hi()))
    return false;
  // Rows in increasing order, SA and SB apart (0: one row, which fits any).
  const int64_t SA = A.Rows > 1 ? std::abs(A.Stride) : 0;
  const int64_t SB = B.Rows > 1 ? std::abs(B.Stride) : 0;
  int64_t RA = int64_t(A.Rows), RB = int64_t(B.Rows);
  // The rows of the one with the longer step, where it is a multiple of the
  // other's, as every row of the shorter step between them (a superset: a
  // strided 1x1 conv's gathered pixels against whole pixels' stores).
  const int64_t S = SA == 0 ? SB : SB == 0 ? SA : std::min(SA, SB);
  if (S == 0 || (SA && SA % S) || (SB && SB % S))
    return true; // The envelopes meet (one row each, or steps of no common row).
  if (SA > S)
    RA = (RA - 1) * (SA / S) + 1;
  if (SB > S)
    RB = (RB - 1) * (SB / S) + 1;
  // Row i of A, [ALo + i S, + LA), meets row j of B, [BLo + j S, + LB), iff
  // -LB < D + k S < LA with D = BLo - ALo and k = j - i, which takes every
  // value in [-(RA - 1), RB - 1]: the first k with D + k S > -LB decides.
  const int64_t LA = int64_t(A.RowBytes), LB = int64_t(B.RowBytes);
  const int64_t X = BLo - ALo - (RA - 1) * S; // k = -(RA - 1)
  const int64_t M = X > -LB ? 0 : (-LB + 1 - X + S - 1) / S;
  return M <= RA + RB - 2 && X + M * S < LA;
}

uint64_t timing::dmaCycles(const isa::HwConfig &Hw, const DmaChannel &Channel, uint64_t Addr,
                           int64_t Stride, uint64_t Rows, uint64_t RowBytes) {
  // The datapath moves a beat a cycle, every row from a beat of its own:
  // merged rows smaller than the channel moves a cycle take a cycle each. A
  // row's own bursts never take fewer cycles than its beats.
  const uint64_t Beat = Channel.beatBytes();
  const uint64_t Beats = Rows * ((RowBytes + Beat - 1) / Beat);
  return std::max(Channel.cycles(dmaBurstBytes(Hw, Addr, Stride, Rows, RowBytes)), Beats);
}

uint64_t timing::rowSpanBytes(const isa::HwConfig &Hw, uint64_t RowBytes,
                              std::optional<uint64_t> Offset) {
  // A known offset repeats every row (a stride of a whole burst); an unknown
  // one is any 2-byte aligned offset, as rows 2 bytes apart take them all.
  return Offset ? stridedRowBytes(Hw, RowBytes, *Offset, Hw.DramBurstBytes)
                : stridedRowBytes(Hw, RowBytes, 0, 2);
}

uint64_t timing::stridedRowBytes(const isa::HwConfig &Hw, uint64_t RowBytes, uint64_t Offset,
                                 uint64_t Stride) {
  const uint64_t B = Hw.DramBurstBytes;
  if (B <= 1)
    return RowBytes;
  // The starts repeat after B / gcd(Stride, B) rows.
  const uint64_t Period = B / std::gcd(Stride, B);
  // Masks and shifts, not divisions: the planner asks for this for every
  // plan it weighs (validate() makes the burst a power of two).
  assert(std::has_single_bit(B) && "dram_burst_bytes is a power of two");
  const uint64_t Mask = B - 1;
  const int Shift = std::countr_zero(B);
  uint64_t Sum = 0;
  for (uint64_t K = 0; K < Period; ++K)
    Sum += (((Offset + K * Stride) & Mask) + RowBytes + Mask) >> Shift << Shift;
  return (Sum + Period / 2) / Period;
}

uint64_t timing::unitCycles(const Inst &I, const isa::HwConfig &Hw, uint64_t A2) {
  switch (I.Op) {
  case Opcode::VMAC:
    return macTraceCycles(Hw, uint64_t(I.rows), uint64_t(I.len));
  case Opcode::VMACP:
    return macTraceCycles(
        Hw, uint64_t(I.rows), uint64_t(I.len), unsigned(I.pix),
        groupsOwnBanks(Hw, A2, traceSpan(uint64_t(I.rows), I.bstride, I.len), I.cstride));
  case Opcode::VDW:
    return dwTraceCycles(Hw, uint64_t(I.rows), uint64_t(I.len));
  case Opcode::VMAX:
  case Opcode::VAVG:
    return traceCycles(uint64_t(I.rows), uint64_t(I.len));
  case Opcode::VWB:
    return writebackCycles(Hw, accMoveEntries(I)) + (I.sum ? CuSumCycles : 0);
  case Opcode::VPRE:
  case Opcode::VMUL:
    return writebackCycles(Hw, accMoveEntries(I));
  case Opcode::VLUT:
    return lutWords(Hw);
  case Opcode::FILL:
    return fillCycles(Hw, uint64_t(I.rows), uint64_t(I.len));
  case Opcode::LD_MAP:
  case Opcode::LD_WGT:
  case Opcode::ST_MAP:
  case Opcode::VBIAS:
  case Opcode::MARK:
  case Opcode::SYNC_LD_WAIT:
  case Opcode::SYNC_EX_WAIT:
  case Opcode::SYNC_ST_WAIT:
  case Opcode::SYNC_LD_SIGNAL:
  case Opcode::SYNC_EX_SIGNAL:
  case Opcode::SYNC_ST_SIGNAL:
    return UnitOpCycles;
  default:
    assert(false && "unitCycles of a control-core instruction");
    return UnitOpCycles;
  }
}
