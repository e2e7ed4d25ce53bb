//===- Lower.cpp - The code of one step: compute and writeback ------------===//
//
// See Lowerer.h (and Lower.h for the step model and the semaphores). The
// step's loads and stores are LowerMoves.cpp's; a window producer's
// writeback into its reader's windows is LowerWindows.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"
#include "Rounds.h"
#include <algorithm>
#include <cassert>

using namespace snow;
using namespace snow::compiler;

/// The loop over a round's rows: r4 counts entries, r7 is the end of the
/// current row, r8 the end of the loop, r5 the row's base in the input region
/// and r6 the entry's. Entry() emits one entry's work, advancing r6 (and what
/// else it walks). With Mid the loop stops after half the rows, Mid's
/// instructions follow, and a second copy of the loop finishes the rest.
template <typename EntryFn>
void Lowerer::rowLoop(unsigned RowEntries, unsigned Rows, int64_t RowPitch, EntryFn Entry,
                      const Emitter::Block *Mid, unsigned Entry0) {
  const unsigned Split = Mid ? Rows / 2 : Rows;
  assert(Split > 0 && "compute() emits Mid before loops of one row");
  E.li(7, Entry0 + RowEntries);
  E.li(8, Entry0 + Split * RowEntries);
  auto Loop = [&] {
    auto Top = E.newLabel();
    E.bind(Top);
    Entry();
    E.addi(4, 4, 1);
    E.branch(Opcode::BLT, 4, 7, Top);
    E.addi(7, 7, RowEntries);
    E.addi(5, 5, RowPitch);
    E.addi(6, 5, 0);
    E.branch(Opcode::BLT, 4, 8, Top);
  };
  Loop();
  if (Split == Rows)
    return;
  E.append(*Mid);
  E.li(8, Entry0 + Rows * RowEntries);
  Loop();
}

void Lowerer::convLoop(const Step &S, const Emitter::Block *Mid, unsigned RowBegin, unsigned Rows) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  // Fed (FeedNext.cpp): a pixel's channels are its runs in the output
  // groups the conv before wrote, FedSpan apart.
  const unsigned Stride = S.Fed ? S.FedW : P.pixelStride(S.Chunk, Lanes);
  const bool First = P.Depthwise || S.Chunk == P.ogChunks(S.round().firstOg()).first;
  if (First && RowBegin == 0) { // Bias and table stay for a tile's later bands.
    E.li(12, tailAddr(S));
    Inst Bias;
    Bias.Op = Opcode::VBIAS;
    Bias.rs3 = 12;
    Bias.shift = L.InFrac + L.WFrac - L.BFrac;
    E.emit(Bias);
    if (!L.QLut.empty()) {
      // The table follows the bias word; every writeback of the layer reads it.
      E.li(12, tailAddr(S) + 1);
      Inst Lut;
      Lut.Op = Opcode::VLUT;
      Lut.rs3 = 12;
      E.emit(Lut);
    }
  }
  // A full-depth region holds all channels: this chunk starts at its offset.
  const unsigned Offset = P.PerBank     ? P.chunkOffset(S.Chunk, Hw.mapsBankElems())
                          : P.FullDepth ? P.chunkBegin(S.Chunk)
                                        : 0;
  const unsigned Cn = P.Depthwise ? 1 : P.chunkSize(S.Chunk, L.In.C);
  // One trace per accumulator entry: pix() pixels of a row with vmacp.
  const Round &Rd = S.round();
  const unsigned RowEntries = Rd.ExtC >> P.PixLog;
  // A fused 1x1 conv reads its producer's output, rows of the round's ExtC
  // pixels (Lowerer::writeBack); banked, a share of them in each bank.
  // A depthwise conv reading its windows (ReadsWindow) finds them in the
  // area laid out as its input region.
  const bool AreaTile = P.FromMid && !P.ReadsWindow;
  // (A depthwise conv reading windows in phases, rows of areaRowPixels().)
  const unsigned WindowCols = S.Fed ? S.FedCols : P.Depthwise ? P.areaRowPixels() : P.ColsIn;
  const unsigned Cols = AreaTile ? Rd.ExtC : WindowCols;
  const int64_t Pitch = int64_t(AreaTile ? 1 : P.bufStrideY()) *
                        (P.readsBanked() ? Cols / P.bankSides() : Cols) * Stride;
  if (Rows == 0)
    Rows = Rd.ExtR;
  // A block triple's 1x1 conv reads its depthwise producer's chunk
  // (LayerPlan::MidOut) and accumulates from entry AccBase on.
  // (A split triple's, LayerPlan::MidSlot: the slot of its step's chunk.)
  const uint32_t Maps = P.readsMidOut() ? midBase(S) + P.midChunkAt(S.Chunk)
                        : P.FromMid     ? midBase(S)
                                        : inBase(S) + P.InSkew;
  E.li(3, B.WBase[S.WBuf] + S.WOff);
  E.li(4, P.AccBase);
  E.li(5, Maps + Offset + RowBegin * Pitch);
  E.addi(6, 5, 0);
  Inst Mac;
  Mac.rs1 = 4;
  Mac.rs2 = 6;
  Mac.rs3 = 3;
  Mac.rows = L.KH;
  Mac.bstride = WindowCols * Stride;
  Mac.init = First;
  if (P.Depthwise) {
    Mac.Op = Opcode::VDW;
    // In halves, the even kernel columns a pixel apart in the first half
    // (then the odd ones in the second: Entry below).
    Mac.len = P.readsHalves() ? (L.KW + 1) / 2 : L.KW;
    // In quarters, the kernel columns of a run a quarter apart.
    Mac.cstride = P.readsQuarters() ? P.phasePixels() * Stride : Stride;
  } else {
    Mac.Op = P.PixLog && !P.Wide ? Opcode::VMACP : Opcode::VMAC;
    // Contiguous: Stride == Cn, or KW == 1 for full depth. A wide trace's
    // row spans its pixel groups' windows (their weights are shifted).
    Mac.len = P.traceCols() * Cn;
    if (S.Fed) {
      Mac.rows = S.FedSlabs;
      Mac.len = S.FedW;
      Mac.bstride = S.FedSpan;
    }
    if (Mac.Op == Opcode::VMACP) {
      Mac.pix = P.PixLog;
      // The next pixel of the row: next to this one, banked, at the same
      // offset in the next bank, or copied, in the copy's bank.
      Mac.cstride = P.Banked      ? Hw.mapsBankElems()
                    : P.CopyBanks ? P.CopyBanks * Hw.mapsBankElems()
                                  : P.bufStrideX() * Stride;
    }
  }
  // Banked (a fused 1x1 conv and its producer): an entry's pixels are one
  // column of each bank's share; the producer traces the columns of each
  // bank in turn (x mod Sides = 0 first), Sides columns apart.
  // In halves, the next pixel pair of a depthwise conv's row reads the
  // next two pixels of each half; a producer's entries of a half are four
  // columns apart, its half-1 entries start a column in.
  // In quarters, a depthwise conv's entries of bank x mod 4 (pixels x and
  // x + 4) start in quarter x mod 4, a pixel pair apart; a producer's
  // entries of a phase are 2 x phases() columns apart.
  const int64_t Step =
      int64_t(P.Banked ? 1 : P.pix()) * (P.readsHalves() ? 1 : P.bufStrideX()) * Stride;
  const unsigned Sides = P.writesBanked() ? P.bankSides() : P.writesPhases() ? P.phases() : 1;
  const int64_t SideStep = P.writesPhases()    ? int64_t(P.bufStrideX()) * Stride
                           : P.readsQuarters() ? int64_t(P.phasePixels()) * Stride
                                               : Step;
  const int64_t Advance = P.readsQuarters() ? 2 * int64_t(Stride) : Sides * Step;
  const unsigned KK = L.KH * L.KW;
  // A quarters reader's runs of kernel columns for entries of bank Side
  // (LayerPlan::quarterRun), their weights KK words a bank (WeightPack.cpp),
  // in r14 and r15 (registers no load, store or loop of a step uses).
  unsigned Side = 0;
  auto Entry = [&] {
    if (P.readsQuarters()) {
      const unsigned Run0 = LayerPlan::quarterRun(L.KW, Side);
      Inst Run = Mac;
      Run.len = Run0;
      Run.rs3 = 14;
      E.emit(Run);
      if (Run0 < L.KW) {
        Run.len = L.KW - Run0;
        Run.init = false;
        Run.rs2 = 10;
        Run.rs3 = 15;
        E.addi(10, 6, int64_t(Stride) - int64_t(Side) * int64_t(P.phasePixels()) * Stride);
        E.emit(Run);
      }
    } else if (P.readsHalves()) {
      E.emit(Mac);
      Inst Odd = Mac; // the odd kernel columns, their weights after the even ones'
      Odd.len = L.KW / 2;
      Odd.init = false;
      Odd.rs2 = 10;
      Odd.rs3 = 11;
      E.addi(10, 6, int64_t(P.phasePixels()) * Stride);
      E.addi(11, 3, int64_t(L.KH) * Mac.len);
      E.emit(Odd);
    } else if (P.passes() == 1) {
      E.emit(Mac);
    } else {
      // Grouped conv on vdw: pass Pass reads the pixel's channels shifted
      // by Pass - (GroupK - 1), with its own KK weight words.
      for (unsigned Pass = 0; Pass < P.passes(); ++Pass) {
        Inst M = Mac;
        M.init = First && Pass == 0;
        M.rs2 = 10;
        M.rs3 = 11;
        E.addi(10, 6, int64_t(Pass) - int64_t(P.GroupK - 1));
        E.addi(11, 3, int64_t(Pass) * KK);
        E.emit(M);
      }
    }
    E.addi(6, 6, Advance);
  };
  if (Sides == 1) {
    rowLoop(RowEntries, Rows, Pitch, Entry, Mid, P.AccBase);
    return;
  }
  assert(!P.AccBase && "a banked producer's entries start at 0");
  unsigned Entry0 = 0;
  for (Side = 0; Side < Sides; ++Side) {
    const unsigned Share =
        P.writesPhases() ? LayerPlan::phaseEntries(Sides, Side, Rd.ExtC) : P.bankEntries(Rd.ExtC);
    if (Side) { // Column Side.
      E.li(5, Maps + Offset + RowBegin * Pitch + Side * SideStep);
      E.addi(6, 5, 0);
    }
    if (P.readsQuarters()) { // Bank Side's weights: its runs' words.
      const uint32_t W = B.WBase[S.WBuf] + S.WOff + Side * KK;
      E.li(14, W);
      E.li(15, W + L.KH * LayerPlan::quarterRun(L.KW, Side));
    }
    if (Share)
      rowLoop(Share, Rows, Pitch, Entry, Side ? nullptr : Mid, Entry0);
    Entry0 += Rows * Share;
  }
}

void Lowerer::copyRegion(const Step &S) {
  const LayerPlan &P = *S.P;
  assert(P.IsConv && !P.Depthwise && !P.FullDepth && P.PixLog == 1 &&
         "a copied region holds one chunk for two pixel groups");
  // One-tap windows: each vmax moves poolWords lane words a cycle.
  const unsigned Width = LayerPlan::copyWidth(Hw), Stride = P.pixelStride(S.Chunk, Lanes);
  const uint32_t Base = P.readsMidOut() ? midBase(S) + P.midChunkAt(S.Chunk) : inBase(S) + P.InSkew;
  const uint32_t Src = Base + P.copyShift(Stride);
  E.li(9, Base + P.CopyBanks * Hw.mapsBankElems());
  E.li(6, Src);
  E.li(7, Src + P.copyVmaxes(Stride, Hw) * Width); // r6's end
  Inst Copy;
  Copy.Op = Opcode::VMAX;
  Copy.rs1 = 9;
  Copy.rs2 = 6;
  Copy.rows = 1;
  Copy.len = 1;
  Copy.words = Hw.poolWords() - 1;
  auto Top = E.newLabel();
  E.bind(Top);
  E.emit(Copy);
  E.addi(9, 9, Width);
  E.addi(6, 6, Width);
  E.branch(Opcode::BLT, 6, 7, Top);
}

void Lowerer::poolLoop(const Step &S, const Emitter::Block *Mid) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  const unsigned Stride = P.pixelStride(S.Chunk, Lanes);
  const unsigned Groups = ceilDiv(P.chunkSize(S.Chunk, L.In.C), Lanes);
  // A fused pool writes its chunk into the area, pixels L.Out.C apart
  // (Lowerer::writeBack), the output region pixels Groups x lanes apart; a
  // block triple's (LayerPlan::MidOut) its output group at the area's end,
  // a lane group of the CU a pixel, where its 1x1 reader reads it.
  const int64_t PixelGap = P.ToMid ? int64_t(P.MidOut ? G : L.Out.C) - int64_t(Groups) * Lanes : 0;
  const uint32_t AreaAt = P.MidOut ? P.MidOut : P.chunkBegin(S.Chunk); // in the area's banks
  E.li(9, P.ToMid ? midBase(S) + AreaAt : B.OutBase[S.OutBuf]);
  // A full-depth region holds all channels: this chunk starts at its offset.
  const unsigned Offset = P.FullDepth ? P.chunkBegin(S.Chunk) : 0;
  // A pool fused after a conv (FuseWindows.cpp) reads the conv's window in
  // the area: rows of the conv's round's columns, which are those of this
  // round's windows (LayerPlan::Window), or, framed (Window.AreaCols), laid
  // out as its input region, padding and all.
  E.li(5, P.FromMid ? midBase(S) : inBase(S) + Offset);
  E.addi(6, 5, 0);
  E.li(4, 0);
  const Round &Rd = S.round();
  const unsigned Cols = P.FromMid && !P.framedPool() ? (Rd.ExtC - 1) * L.SW + L.KW : P.ColsIn;
  Inst Max;
  Max.Op = L.Kind == ir::LayerKind::AvgPool ? Opcode::VAVG : Opcode::VMAX;
  if (Max.Op == Opcode::VAVG) {
    Max.mult = L.AvgMult;
    Max.shift = L.AvgShift;
  }
  Max.rs1 = 9;
  Max.rs2 = 6;
  Max.rows = L.KH;
  Max.len = L.KW;
  Max.bstride = Cols * Stride;
  Max.cstride = Stride;
  // A pixel's lane groups in runs as wide as the pooling unit: Whole runs
  // of Width words, then one of the rest.
  const unsigned Width = Hw.poolWords(), Whole = Groups / Width, Rest = Groups % Width;
  auto OneRun = [&](unsigned Words) {
    Max.words = Words - 1;
    E.emit(Max);
    E.addi(9, 9, Words * Lanes);
    E.addi(6, 6, Words * Lanes);
  };
  // A banked area (LayerPlan::Banked): the columns of each bank in turn
  // (x mod Sides = 0 first), Sides columns a step.
  const unsigned Sides = P.writesBanked() ? P.bankSides() : 1;
  const int64_t Step = int64_t(L.SW) * Stride * Sides;
  const unsigned RowPixels = Rd.ExtC / Sides;
  const int64_t Pitch = int64_t(L.SH) * Cols * Stride;
  auto Pixel = [&] {
    if (Whole <= 8) {
      for (unsigned Run = 0; Run < Whole; ++Run)
        OneRun(Width);
    } else {
      E.li(10, 0);
      E.li(11, Whole);
      auto Inner = E.newLabel();
      E.bind(Inner);
      OneRun(Width);
      E.addi(10, 10, 1);
      E.branch(Opcode::BLT, 10, 11, Inner);
    }
    if (Rest)
      OneRun(Rest);
    E.addi(6, 6, Step - int64_t(Groups) * Lanes);
    if (PixelGap)
      E.addi(9, 9, PixelGap);
  };
  rowLoop(RowPixels, Rd.ExtR, Pitch, Pixel, Mid);
  for (unsigned Side = 1; Side < Sides; ++Side) { // Column Side.
    E.li(9, midBase(S) + Side * Hw.mapsBankElems() + AreaAt);
    E.li(5, (P.FromMid ? midBase(S) : inBase(S) + Offset) + Side * L.SW * Stride);
    E.addi(6, 5, 0);
    E.li(4, 0);
    rowLoop(RowPixels, Rd.ExtR, Pitch, Pixel, nullptr);
  }
}

void Lowerer::elementwise(const Step &S) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  // Operands are laid out R x Wt in the buffer, so the entries keep that
  // pitch (makeRounds gives elementwise rounds the full tile width).
  const uint32_t Pix = S.round().pixels(), In = inBase(S);
  const uint32_t Operand2 = P.sameOperands() ? 0 : P.R * P.Wt * G;
  auto Pre = [&](Opcode Op, uint32_t Addr, bool Init) {
    E.li(9, Addr);
    Inst I = accMove(Op, Pix, G);
    I.init = Init;
    E.emit(I);
  };
  E.li(4, 0);
  Pre(Opcode::VPRE, In, true);
  if (L.Kind == ir::LayerKind::Add)
    Pre(Opcode::VPRE, In + Operand2, false);
  else if (L.Kind == ir::LayerKind::Mul)
    Pre(Opcode::VMUL, In + Operand2, false); // a, exact in the accumulator, times b.
  // A fused pair that takes this region for its area frees it in this
  // step's stead (Step::DeferInFree, FreeMid): a second token would let a
  // later load into the region run ahead of its readers (ConvNeXt's
  // LayerNorm products before its depthwise pairs).
  if (!S.DeferInFree)
    E.signal(Unit::Compute, InFree + S.InBuf);
  E.wait(Unit::Compute, OutFree + S.OutBuf);
  E.li(9, B.OutBase[S.OutBuf]);
  Inst Wb = accMove(Opcode::VWB, Pix, G);
  if (L.Kind == ir::LayerKind::Mul)
    Wb.shift = L.InFrac + L.WFrac - L.OutFrac;
  Wb.relu = L.Relu || L.Kind == ir::LayerKind::Relu;
  E.emit(Wb);
  E.signal(Unit::Compute, OutFull + S.OutBuf);
}

void Lowerer::compute(const Step &S, const Emitter::Block *Mid) {
  const LayerPlan &P = *S.P;
  const Round &Rd = S.round();
  // A depthwise tile larger than the accumulators runs in bands of whole
  // rows (LayerPlan::bandRows), each traced into entries from 0 and written
  // back to its place in the output tile; every other step is one band.
  const unsigned Band = P.IsConv ? P.bandRows(Rd, P.accLimit(Hw.AccEntries)) : Rd.ExtR;
  assert(Band > 0 && "the planner keeps a depthwise row within the accumulators");
  if (Mid && (P.Elementwise || Band < 2)) {
    E.append(*Mid); // No loop to put it in.
    Mid = nullptr;
  }
  if ((S.NewMap && !S.Fed) || S.WaitsBank)
    E.wait(Unit::Compute, InFull + S.InBuf);
  // A block triple's projection copies each chunk's tile its depthwise
  // conv has just written (FuseBlocks.cpp).
  if (P.CopyBanks && (S.NewMap || P.readsMidOut())) {
    // A copy in an output region (a block triple's on four banks, its
    // second region's window: FuseBlocks.cpp) first waits for the store
    // unit to have read the region's last tile (no unit writes a bank
    // another is reading), and gives the signal back for the writeback it
    // was meant for.
    const uint32_t To = inBase(S) + P.InSkew + P.CopyBanks * Hw.mapsBankElems();
    if (!P.readsMidOut() && To >= B.OutBase[0]) {
      const unsigned Region = To >= B.OutBase[1] ? 1 : 0;
      E.wait(Unit::Compute, OutFree + Region);
      E.signal(Unit::Compute, OutFree + Region);
    }
    copyRegion(S);
  }
  if (P.Elementwise)
    return elementwise(S);
  if (!P.IsConv) {
    if (!P.ToMid)
      E.wait(Unit::Compute, OutFree + S.OutBuf);
    poolLoop(S, Mid);
    if (S.LastMapUse && !S.DeferInFree)
      E.signal(Unit::Compute, InFree + S.InBuf);
    if (S.Writes)
      E.signal(Unit::Compute, OutFull + S.OutBuf);
    if (S.FreeMid)
      E.signal(Unit::Compute, InFree + S.MidBuf);
    return;
  }
  assert((Band == Rd.ExtR || S.Writes || P.ToMid) &&
         "a depthwise step is its output group's only step");
  if (S.NewW)
    E.wait(Unit::Compute, WFull + S.WBuf);
  // A group residual is read by the writeback: the region is free after it.
  const bool FreeIn = S.LastMapUse && !S.DeferInFree;
  for (unsigned R0 = 0; R0 < Rd.ExtR; R0 += Band) {
    const unsigned Rows = std::min(Band, Rd.ExtR - R0);
    convLoop(S, R0 == 0 ? Mid : nullptr, R0, Rows);
    if (R0 + Rows == Rd.ExtR) {
      if (FreeIn && !P.groupResidual())
        E.signal(Unit::Compute, InFree + S.InBuf);
      if (S.LastWUse)
        E.signal(Unit::Compute, WFree + S.WBuf);
      if (S.FreeW2 >= 0)
        E.signal(Unit::Compute, WFree + unsigned(S.FreeW2));
    }
    // A producer writing the area only, once its output group is complete.
    if (S.Writes || (P.areaOnly() && S.completesGroup()))
      writeBack(S, R0, Rows);
    if (R0 + Rows == Rd.ExtR && FreeIn && P.groupResidual())
      E.signal(Unit::Compute, InFree + S.InBuf);
  }
  if (S.Writes && P.PoolBlock)
    blockMeans(S);
  if (S.Writes)
    E.signal(Unit::Compute, OutFull + S.OutBuf);
  if (S.FreeMid)
    E.signal(Unit::Compute, InFree + S.MidBuf);
  if (S.FreeOther)
    E.signal(Unit::Compute, InFree + (1 - S.MidBuf));
}

void Lowerer::blockMeans(const Step &S) {
  const LayerPlan &P = *S.P;
  const Round &Rd = S.round();
  // The round's tiles are whole blocks (the planner's tiles, the map a
  // whole number of blocks): every CU's blocks lie alike, pixel (r, c) of
  // the tile at (r x ExtC + c) x OgCh, as its stores read them. A CU whose
  // tile is smaller than the round's averages stale pixels in the blocks
  // past it, which it does not store.
  const unsigned F = P.PoolBlock, OgCh = P.ogChannels(G);
  const unsigned BR = Rd.ExtR / F, BC = Rd.ExtC / F;
  const uint32_t Base = B.OutBase[S.OutBuf], Means = Base + P.blockMeansAt(Rd.ExtR, Rd.ExtC, G);
  Inst Avg;
  Avg.Op = Opcode::VAVG;
  Avg.mult = P.PoolMult;
  Avg.shift = P.PoolShift;
  Avg.rs1 = 9;
  Avg.rs2 = 6;
  Avg.rows = F;
  Avg.len = F;
  Avg.bstride = Rd.ExtC * OgCh;
  Avg.cstride = OgCh;
  const unsigned Words = ceilDiv(OgCh, Lanes), Width = Hw.poolWords();
  // The pool's work, in its cycle span: the conv's resumes after it.
  E.mark(unsigned(P.L->HostedPool));
  for (unsigned By = 0; By < BR; ++By)
    for (unsigned Bx = 0; Bx < BC; ++Bx) {
      E.li(6, Base + (By * F * Rd.ExtC + Bx * F) * OgCh);
      E.li(9, Means + (By * BC + Bx) * OgCh);
      for (unsigned W0 = 0; W0 < Words; W0 += Width) {
        const unsigned N = std::min(Width, Words - W0);
        if (W0) {
          E.addi(6, 6, Width * Lanes);
          E.addi(9, 9, Width * Lanes);
        }
        Avg.words = N - 1;
        E.emit(Avg);
      }
    }
  E.mark(P.Index);
}

uint32_t Lowerer::tailAddr(const Step &S) const {
  return S.TailBank >= 0 ? B.WBase[S.TailBank] + S.TailOff
                         : B.WBase[S.WBuf] + S.WOff + S.P->kernelWords(S.Chunk);
}

// A straddling area (LayerPlan::Straddles) starts at the first region's
// second bank whatever MidBuf is, and the fusion's maps loaded into the
// second region lie in that region's last bank, past the area (the load
// unit and the compute unit writing one bank at once would fault).
uint32_t Lowerer::midBase(const Step &S) const {
  // (A pair beside a conv lies past the conv's maps: LayerPlan::ShareOffset.)
  return B.InBase[S.P->Straddles ? 0 : S.MidBuf] + S.P->ShareOffset + B.MidOffset;
}

uint32_t Lowerer::inBase(const Step &S) const {
  const bool Past = S.P->Straddles && S.InBuf == 1;
  return B.InBase[S.InBuf] + S.InOffset + (Past ? B.InCap - Hw.mapsBankElems() : 0);
}

void Lowerer::writeBack(const Step &S, unsigned RowBegin, unsigned Rows) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  const Round &Rd = S.round();
  // Entry e of the tile (pix() pixels of a row each) lives at OutBase + e * G;
  // a fused depthwise output's pixel e at pixel e of the area, its chunk's
  // channels at their offset in the 1x1 conv's full depth (only the compute
  // unit touches the area: no semaphore).
  const bool Area = P.areaOnly();
  if (Area && P.Window.AreaCols)
    return windowWriteBack(S, RowBegin, Rows);
  // (A depthwise producer's entry of two pixels, dwPixelPairs, is two
  // pixels of the area: its channels are half an output group.)
  // A block triple's depthwise conv writes its output group alone, a lane
  // group of the CU a pixel, where its 1x1 reader reads it (MidOut).
  // A concat's producer writes its output group at its channels of the
  // concat's pixels (FuseConcat.cpp).
  const bool Concat = P.concatProducer();
  const unsigned Pitch = Concat ? P.MidPitch : Area && !P.MidOut ? L.Out.C << P.PixLog : G;
  const uint32_t Base =
      Concat ? midBase(S) + P.MidChannel + Rd.firstOg() * P.ogChannels(G)
      : Area ? midBase(S) + (P.MidOut ? P.midChunkAt(S.Chunk) : P.chunkBegin(S.Chunk))
             : B.OutBase[S.OutBuf];
  // A banked area (LayerPlan::Banked) holds a share of each row in each
  // bank.
  const unsigned Sides = P.writesBanked() ? P.bankSides() : 1;
  const unsigned SideEntries = P.bankEntries(Rd.ExtC);
  const uint32_t Row0 = Sides > 1 ? RowBegin * SideEntries : RowBegin * Rd.ExtC >> P.PixLog;
  // A dense producer's output group, at its channels of each pixel (C
  // apart) in the area and in its group residual.
  const uint32_t OgAt =
      P.StoresToo ? P.OcBase + Rd.firstOg() * P.ogChannels(G) + Row0 * L.Out.C : 0;
  E.li(4, P.AccBase);
  E.li(9, Base + Row0 * Pitch);
  auto AccMove = [&](Opcode Op, int64_t Shift) {
    Inst I = accMove(Op, Rows * Rd.ExtC >> P.PixLog, Pitch);
    I.shift = Shift;
    return I;
  };
  if (P.groupResidual()) {
    // The residual came with the group's maps (InFull): its output group's
    // channels of each pixel, C apart.
    if (RowBegin == 0)
      E.wait(Unit::Compute, OutFree + S.OutBuf);
    E.li(9, inBase(S) + P.residualOffset() + OgAt);
    Inst Pre = accMove(Opcode::VPRE, Rows * Rd.ExtC >> P.PixLog, L.Out.C);
    Pre.shift = L.InFrac + L.WFrac - L.ResFrac;
    E.emit(Pre);
    E.li(9, Base + Row0 * Pitch);
  } else if (L.HasResidual) {
    // The load unit already waited for the output region (loadResidual).
    if (RowBegin == 0)
      E.wait(Unit::Compute, ResFull + S.OutBuf);
    E.emit(AccMove(Opcode::VPRE, L.InFrac + L.WFrac - L.ResFrac));
  } else if (RowBegin == 0 && !Area) {
    E.wait(Unit::Compute, OutFree + S.OutBuf);
  }
  Inst Wb = AccMove(Opcode::VWB, L.InFrac + L.WFrac - L.writebackFrac());
  Wb.relu = L.Relu;
  Wb.lut = !L.QLut.empty();
  if (P.Parts > 1) {
    // CUs splitting the item's chunks: their partial sums, added, into CU
    // 0, which stores them (the others' bias words are zeros).
    Wb.sum = 1;
    Wb.skip = ((1u << NCu) - 1) & ~1u;
  }
  if (P.StoresToo) {
    // The same entries again (vwb leaves the accumulators as they are)
    // into the area, the output group's channels at their offset of each
    // pixel: the 1x1 convs after it read them there.
    E.emit(Wb);
    E.li(4, 0);
    E.li(9, midBase(S) + OgAt);
    Inst Copy = Wb;
    Copy.bstride = L.Out.C;
    E.emit(Copy);
    return;
  }
  if (Sides == 1) {
    E.emit(Wb);
    if (S.FeedBuf >= 0)
      feedWriteBack(S, Wb, RowBegin, Rows, Row0 * Pitch);
    return;
  }
  // The band's columns of each bank, traced in turn (x mod Sides = 0
  // first), each to its bank.
  const unsigned Share = Rows * SideEntries;
  Wb.rows = Share;
  for (unsigned Side = 0; Side < Sides; ++Side) {
    if (Side) {
      E.li(4, Side * Share);
      E.li(9, Base + Side * Hw.mapsBankElems() + Row0 * Pitch);
    }
    E.emit(Wb);
  }
}
