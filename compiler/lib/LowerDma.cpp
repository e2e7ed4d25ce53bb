//===- LowerDma.cpp - DMA operations and fills of one step ----------------===//
//
// The load and store unit operations the Lowerer emits (Lowerer.h): a DMA
// split to fit its instruction's fields, a run of them as a control-core
// loop, a fill of the maps buffer. Split from Lower.cpp; LowerMoves.cpp
// decides what they move.
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"

using namespace snow;
using namespace snow::compiler;

namespace {

using isa::MaxLen, isa::MaxRows; // Largest rows / len fields (Snow.td).

/// A DMA operation on the addresses in r1 (DRAM) and r2 (buffer).
Inst dmaInst(Opcode Op, unsigned Idx, unsigned Rows, unsigned Len, int64_t DStride,
             uint32_t BStride, uint32_t Mask, unsigned Wpix = 0) {
  Inst I;
  I.Op = Op;
  I.rs1 = 1;
  I.rs2 = 2;
  I.rows = Rows;
  I.len = Len;
  I.dstride = DStride;
  I.bstride = BStride;
  // ld.wgt names a vMAC and st.map a CU in idx; loads write the CUs in mask.
  if (Op != Opcode::ST_MAP)
    I.mask = Mask;
  if (Op != Opcode::LD_MAP)
    I.idx = Idx;
  if (Op == Opcode::LD_WGT) // vMAC Idx of 2^Wpix pixel groups
    I.wpix = Wpix;
  return I;
}

} // namespace

void Lowerer::dma(Opcode Op, uint64_t Dram, uint32_t Buf, unsigned Idx, unsigned Rows, unsigned Len,
                  int64_t DStride, uint32_t BStride, uint32_t Mask, unsigned Wpix) {
  assert((Op == Opcode::LD_WGT || !Wpix) && Hw.wpixFault(Wpix, Idx).empty());
  // Split what does not fit the rows / len fields.
  if (Rows > MaxRows) {
    for (unsigned R0 = 0; R0 < Rows; R0 += MaxRows)
      dma(Op, Dram + R0 * DStride, Buf + R0 * BStride, Idx, std::min(MaxRows, Rows - R0), Len,
          DStride, BStride, Mask, Wpix);
    return;
  }
  if (Len > MaxLen) {
    const unsigned ElemBytes = Op == Opcode::LD_WGT ? 2 * Lanes : 2;
    for (unsigned L0 = 0; L0 < Len; L0 += MaxLen)
      dma(Op, Dram + uint64_t(L0) * ElemBytes, Buf + L0, Idx, Rows, std::min(MaxLen, Len - L0),
          DStride, BStride, Mask, Wpix);
    return;
  }
  cut();
  E.li(1, int64_t(Dram));
  E.li(2, Buf);
  E.emit(dmaInst(Op, Idx, Rows, Len, DStride, BStride, Mask, Wpix));
  ++Ops;
}

void Lowerer::dmaSeries(unsigned N, int64_t DStep, int64_t BStep, Opcode Op, uint64_t Dram,
                        uint32_t Buf, unsigned Idx, unsigned Rows, unsigned Len, int64_t DStride,
                        uint32_t BStride, uint32_t Mask) {
  // Hardware loop: 3 instructions to set up, 5 a turn (the operation, two
  // address steps, the counter and the branch) instead of 3 per operation
  // unrolled. Worth it from 4 operations on; an operation that must be
  // split (rows or len too long for their fields) stays unrolled.
  if (!DmaLoops || N < 4 || Rows > MaxRows || Len > MaxLen) {
    for (unsigned K = 0; K < N; ++K)
      dma(Op, uint64_t(int64_t(Dram) + K * DStep), uint32_t(int64_t(Buf) + K * BStep), Idx, Rows,
          Len, DStride, BStride, Mask);
    return;
  }
  cut();
  E.li(1, int64_t(Dram));
  E.li(2, Buf);
  E.li(13, N);
  auto Loop = E.newLabel();
  E.bind(Loop);
  E.emit(dmaInst(Op, Idx, Rows, Len, DStride, BStride, Mask));
  E.addi(1, 1, DStep);
  E.addi(2, 2, BStep);
  E.addi(13, 13, -1);
  E.branch(Opcode::BNE, 13, 0, Loop);
  Ops += N;
}

void Lowerer::fill(uint32_t Buf, unsigned Rows, unsigned Len, uint32_t BStride, uint32_t Mask,
                   int16_t Value) {
  if (Rows == 0 || Len == 0)
    return;
  if (Rows > MaxRows || Len > MaxLen) {
    for (unsigned R0 = 0; R0 < Rows; R0 += MaxRows)
      for (unsigned L0 = 0; L0 < Len; L0 += MaxLen)
        fill(Buf + R0 * BStride + L0, std::min(MaxRows, Rows - R0), std::min(MaxLen, Len - L0),
             BStride, Mask, Value);
    return;
  }
  cut();
  E.li(2, Buf);
  Inst I;
  I.Op = Opcode::FILL;
  I.rs2 = 2;
  I.rows = Rows;
  I.len = Len;
  I.bstride = BStride;
  I.mask = Mask;
  I.value = Value;
  E.emit(I);
  ++Ops;
}
