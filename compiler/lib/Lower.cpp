//===- Lower.cpp - The code of one step: loads, compute, stores ------------===//
//
// See Lowerer.h (and Lower.h for the step model and the semaphores).
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"
#include "Rounds.h"
#include <algorithm>
#include <cassert>
#include <map>
#include <tuple>

using namespace snow;
using namespace snow::compiler;

namespace {

/// Where one CU's tile of a step lies, in output and input coordinates.
struct TileGeom {
  bool Active = false;
  unsigned Frame = 0;                        ///< Of a batch (LayerPlan::Frames).
  unsigned OY0 = 0, OX0 = 0, VR = 0, VC = 0; ///< Output origin and valid extent.
  int IY0 = 0, IX0 = 0;                      ///< Input origin of the region (may be < 0).
  unsigned Y0 = 0, Y1 = 0, X0 = 0, X1 = 0;   ///< Region rows/cols inside the input.
};

TileGeom geometry(const LayerPlan &P, int Tile) {
  TileGeom T;
  if (Tile < 0)
    return T;
  const ir::Layer &L = *P.L;
  T.Active = true;
  T.Frame = P.frameOf(unsigned(Tile));
  T.OY0 = unsigned(Tile) % P.tilesPerFrame() / P.NColBlocks * P.R;
  T.OX0 = unsigned(Tile) % P.NColBlocks * P.Wt;
  T.VR = P.validRows(unsigned(Tile));
  T.VC = P.validCols(unsigned(Tile));
  T.IY0 = int(T.OY0 * L.SH) - int(L.PadT);
  T.IX0 = int(T.OX0 * L.SW) - int(L.PadL);
  // Region row y holds input row Lo + y * Step; [A, B) are the rows inside
  // the input. (Step > 1 only without padding, so Lo >= 0 then.)
  auto Clip = [](int Lo, unsigned N, unsigned Size, unsigned Step, unsigned &A, unsigned &B) {
    A = unsigned(std::clamp(-Lo, 0, int(N)));
    int Inside = int(Size) - Lo > 0 ? (int(Size) - Lo + int(Step) - 1) / int(Step) : 0;
    B = unsigned(std::clamp(Inside, int(A), int(N)));
  };
  Clip(T.IY0, P.RowsIn, L.In.H, P.StepY, T.Y0, T.Y1);
  Clip(T.IX0, P.ColsIn, L.In.W, P.StepX, T.X0, T.X1);
  return T;
}

/// The CU mask of every distinct value Key(work) among a round's active CUs,
/// in order of first appearance.
template <typename KeyFn>
std::vector<std::pair<int, uint32_t>> distinctMasks(const Round &Rd, KeyFn Key) {
  std::vector<std::pair<int, uint32_t>> Out;
  for (unsigned Cu = 0; Cu < Rd.Cus.size(); ++Cu) {
    if (!Rd.Cus[Cu].active())
      continue;
    int K = Key(Rd.Cus[Cu]);
    auto It = std::find_if(Out.begin(), Out.end(), [&](auto &E) { return E.first == K; });
    if (It == Out.end())
      Out.push_back({K, 1u << Cu});
    else
      It->second |= 1u << Cu;
  }
  return Out;
}

/// A vpre or vwb of Rows accumulator entries: accumulators from entry 0 (r4)
/// to or from the maps at r9, entries Bstride apart.
Inst accMove(Opcode Op, uint32_t Rows, uint32_t Bstride) {
  Inst I;
  I.Op = Op;
  I.rs1 = 4;
  I.rs2 = 9;
  I.rows = Rows;
  I.bstride = Bstride;
  return I;
}

} // namespace

void Lowerer::loadWeightsPart(const Step &S, unsigned Part, unsigned NParts) {
  const LayerPlan &P = *S.P;
  // Run-time weights are another layer's output: wait for it as maps do.
  if (P.Dynamic && S.FirstOfLayer && Part == 0)
    for (; LayersSeenDone < P.NeedsDone; ++LayersSeenDone)
      E.wait(Unit::Load, LayerDone);
  if (Part == 0)
    E.wait(Unit::Load, WFree + S.WBuf);
  // Blocks [N * Part / NParts, N * (Part + 1) / NParts) of the N in order.
  const uint64_t N = weightBlocks(S);
  uint64_t I = 0;
  forEachWeightBlock(S, [&](unsigned K, unsigned Vm, uint32_t Mask) {
    const uint64_t At = I++;
    if (At < N * Part / NParts || At >= N * (Part + 1) / NParts)
      return;
    if (P.Dynamic) // Two rows: s's word, then the zero bias word.
      dma(Opcode::LD_WGT, P.WAddr[K], B.WBase[S.WBuf], Vm, 2, 1,
          int64_t(P.ZeroWord) - int64_t(P.WAddr[K]), 1, Mask);
    else
      dma(Opcode::LD_WGT, P.WAddr[K], B.WBase[S.WBuf], Vm, 1, P.WWords[K], 0, 0, Mask);
  });
  if (Part + 1 == NParts)
    E.signal(Unit::Load, WFull + S.WBuf);
}

void Lowerer::forEachWeightBlock(const Step &S,
                                 llvm::function_ref<void(unsigned, unsigned, uint32_t)> Fn) const {
  // CUs computing the same output group share one load.
  for (auto [Og, Mask] : distinctMasks(S.round(), [](const Work &W) { return W.Og; }))
    for (unsigned Vm = 0; Vm < V; ++Vm)
      Fn(S.P->wIndex(unsigned(Og), S.Chunk, Vm, V), Vm, Mask);
}

unsigned Lowerer::weightBlocks(const Step &S) const {
  unsigned N = 0;
  forEachWeightBlock(S, [&](unsigned, unsigned, uint32_t) { ++N; });
  return N;
}

uint64_t Lowerer::weightBytes(const Step &S) const {
  uint64_t Words = 0;
  forEachWeightBlock(
      S, [&](unsigned K, unsigned, uint32_t) { Words += S.P->Dynamic ? 2 : S.P->WWords[K]; });
  return Words * Hw.weightWordBytes();
}

void Lowerer::loadMaps(const Step &S) {
  const LayerPlan &P = *S.P;
  // A step started on channels loads chunk by chunk, each part placed in
  // program order by EmitProgram.cpp (Step::ChunkAt), never here.
  assert(S.ChunkWaits.empty() && "EmitProgram.cpp loads it with loadMapsChunk");
  waitForRegion(S);
  // A full-depth producer's region too at once: a row of the tile is one
  // run of pixels in DRAM, where its chunks would be a DMA row a pixel each.
  loadRegion(S, P.In, inBase(S) + P.InSkew);
  if (P.groupResidual())
    loadGroupResidual(S, inBase(S) + P.residualOffset());
  if (P.Elementwise && P.L->Inputs.size() == 2 && !P.sameOperands())
    loadRegion(S, P.In2, inBase(S) + P.R * P.Wt * P.pixelStride(S.Chunk, Lanes));
  regionLoaded(S);
}

void Lowerer::regionLoaded(const Step &S) {
  E.signal(Unit::Load, InFull + S.InBuf);
  if (S.TakeMid) // A full-depth pair's area: taken once its input is loaded.
    E.wait(Unit::Load, InFree + S.MidBuf);
}

void Lowerer::waitForRegion(const Step &S) {
  // LayerDone is signalled once per layer, in layer order: consume the
  // signals up to the latest layer whose output this one reads.
  // A pipelined pool waits for the layers before the conv it reads, and
  // for that conv's rows band by band.
  if (S.FirstOfLayer)
    for (; LayersSeenDone < S.P->NeedsDone - (S.ReadsBeside ? 1 : 0); ++LayersSeenDone)
      E.wait(Unit::Load, LayerDone);
  for (unsigned F = 0; F < S.DoneWaits; ++F)
    E.wait(Unit::Load, RowsDone);
  if (!S.SharesRegion)
    E.wait(Unit::Load, InFree + S.InBuf);
}

void Lowerer::loadMapsChunk(const Step &S, unsigned Ch) {
  const LayerPlan &P = *S.P;
  if (Ch == 0)
    waitForRegion(S);
  for (unsigned F = 0; F < (Ch < S.ChunkWaits.size() ? S.ChunkWaits[Ch] : 0); ++F)
    E.wait(Unit::Load, RowsDone);
  loadRegion(S, P.In, inBase(S) + P.InSkew, int(Ch));
  if (Ch + 1 == P.NChunks)
    regionLoaded(S);
}

void Lowerer::loadRegion(const Step &S, const TensorView &View, uint32_t Base, int OnlyChunk) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  const unsigned Cin = L.In.C;
  // A full-depth region holds every channel, whatever the step's chunk;
  // loaded one chunk at a time (OnlyChunk), at its offset in each pixel,
  // the padding with the first.
  const bool Part = OnlyChunk >= 0;
  const unsigned C0 = Part          ? P.chunkBegin(unsigned(OnlyChunk))
                      : P.FullDepth ? 0
                                    : P.chunkBegin(S.Chunk);
  const unsigned Cn = Part          ? P.chunkSize(unsigned(OnlyChunk), Cin)
                      : P.FullDepth ? Cin
                                    : P.chunkSize(S.Chunk, Cin);
  if (Part)
    Base += C0;
  const unsigned Stride = P.pixelStride(S.Chunk, Lanes);
  if (P.readsBanked())
    return loadBankedRegion(S, View, Base, C0, Cn, Stride);
  const unsigned RowElems = P.ColsIn * Stride;
  // Padding (and windows past the input) is written with fills; identical
  // fills of several CUs become one fill with a wider CU mask. CUs working on
  // the same tile get it with one load.
  const auto Tiles = distinctMasks(S.round(), [](const Work &W) { return W.Tile; });
  std::map<std::tuple<uint32_t, unsigned, unsigned>, uint32_t> Fills;
  for (auto [Tile, Mask] : Tiles) {
    TileGeom T = geometry(P, Tile);
    auto AddFill = [&, Mask = Mask](uint32_t Addr, unsigned Rows, unsigned Len) {
      if (Rows && Len)
        Fills[{Addr, Rows, Len}] |= Mask;
    };
    AddFill(Base, T.Y0, RowElems);
    AddFill(Base + T.Y1 * RowElems, P.RowsIn - T.Y1, RowElems);
    if (T.Y1 > T.Y0) {
      AddFill(Base + T.Y0 * RowElems, T.Y1 - T.Y0, T.X0 * Stride);
      AddFill(Base + T.Y0 * RowElems + T.X1 * Stride, T.Y1 - T.Y0, (P.ColsIn - T.X1) * Stride);
    }
  }
  for (const auto &[Key, Mask] : Fills)
    if (OnlyChunk <= 0) // Chunk 0 starts at the pixel (C0 = 0).
      fill(std::get<0>(Key), std::get<1>(Key), std::get<2>(Key), RowElems, Mask, P.PadValue);
  for (auto [Tile, Mask] : Tiles) {
    TileGeom T = geometry(P, Tile);
    if (T.Y1 <= T.Y0 || T.X1 <= T.X0)
      continue;
    uint64_t RowAddr = uint64_t(P.StepY) * L.In.W * View.Stride * 2;
    auto DramAt = [&](unsigned Y, unsigned X) {
      return View.frame(T.Frame).at(uint64_t(T.IY0 + int(Y * P.StepY)),
                                    uint64_t(T.IX0 + int(X * P.StepX)), C0);
    };
    if (Cn == Cin && Stride == Cin && View.dense(Cin) && P.StepX == 1) {
      // Whole pixels: each input row of the region is one contiguous run.
      dma(Opcode::LD_MAP, DramAt(T.Y0, T.X0), Base + T.Y0 * RowElems + T.X0 * Stride, 0,
          T.Y1 - T.Y0, (T.X1 - T.X0) * Cin, int64_t(RowAddr), RowElems, Mask);
      continue;
    }
    dmaSeries(T.Y1 - T.Y0, int64_t(RowAddr), RowElems, Opcode::LD_MAP, DramAt(T.Y0, T.X0),
              Base + T.Y0 * RowElems + T.X0 * Stride, 0, T.X1 - T.X0, Cn,
              int64_t(P.StepX) * View.Stride * 2, Stride, Mask);
  }
}

void Lowerer::loadBankedRegion(const Step &S, const TensorView &View, uint32_t Base, unsigned C0,
                               unsigned Cn, unsigned Stride) {
  // LayerPlan::Banked (a 1x1 conv, stride 1, unpadded: the region is the
  // tile): column x at column x / 2 of bank x % 2 of the region. Region
  // pixels past the input (a smaller tile of the round) are filled, so
  // every trace reads defined maps.
  const LayerPlan &P = *S.P;
  const unsigned Half = P.ColsIn / 2, RowElems = Half * Stride;
  const uint32_t Bank = Hw.mapsBankElems();
  const auto Tiles = distinctMasks(S.round(), [](const Work &W) { return W.Tile; });
  for (auto [Tile, Mask] : Tiles) {
    const TileGeom T = geometry(P, Tile);
    assert(T.Y0 == 0 && T.X0 == 0 && "an unpadded tile");
    for (unsigned Side = 0; Side < 2; ++Side) {
      const uint32_t At = Base + Side * Bank;
      const unsigned N = (T.X1 + 1 - Side) / 2; // Columns of this parity.
      if (T.Y1 < P.RowsIn)
        fill(At + T.Y1 * RowElems, P.RowsIn - T.Y1, RowElems, RowElems, Mask, P.PadValue);
      if (N < Half && T.Y1)
        fill(At + N * Stride, T.Y1, (Half - N) * Stride, RowElems, Mask, P.PadValue);
      if (!T.Y1 || !N)
        continue;
      const TensorView F = View.frame(T.Frame);
      dmaSeries(T.Y1, int64_t(P.L->In.W) * View.Stride * 2, RowElems, Opcode::LD_MAP,
                F.at(uint64_t(T.IY0), uint64_t(T.IX0) + Side, C0), At, 0, N, Cn,
                int64_t(2) * View.Stride * 2, Stride, Mask);
    }
  }
}

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
  const unsigned Stride = P.pixelStride(S.Chunk, Lanes);
  const bool First = P.Depthwise || S.Chunk == P.ogChunks(S.round().firstOg()).first;
  if (First && RowBegin == 0) { // Bias and table stay for a tile's later bands.
    E.li(12, B.WBase[S.WBuf] + P.kernelWords(S.Chunk));
    Inst Bias;
    Bias.Op = Opcode::VBIAS;
    Bias.rs3 = 12;
    Bias.shift = L.InFrac + L.WFrac - L.BFrac;
    E.emit(Bias);
    if (!L.QLut.empty()) {
      // The table follows the bias word; every writeback of the layer reads it.
      E.li(12, B.WBase[S.WBuf] + P.kernelWords(S.Chunk) + 1);
      Inst Lut;
      Lut.Op = Opcode::VLUT;
      Lut.rs3 = 12;
      E.emit(Lut);
    }
  }
  // A full-depth region holds all channels: this chunk starts at its offset.
  const unsigned Offset = P.FullDepth ? P.chunkBegin(S.Chunk) : 0;
  const unsigned Cn = P.Depthwise ? 1 : P.chunkSize(S.Chunk, L.In.C);
  // One trace per accumulator entry: pix() pixels of a row with vmacp.
  const Round &Rd = S.round();
  const unsigned RowEntries = Rd.ExtC >> P.PixLog;
  // A fused 1x1 conv reads its producer's output, rows of the round's ExtC
  // pixels (Lowerer::writeBack); banked, half of them in each of two banks.
  const unsigned Cols = P.FromMid ? Rd.ExtC : P.ColsIn;
  const int64_t Pitch =
      int64_t(P.FromMid ? 1 : P.bufStrideY()) * (P.readsBanked() ? Cols / 2 : Cols) * Stride;
  if (Rows == 0)
    Rows = Rd.ExtR;
  const uint32_t Maps = P.FromMid ? midBase(S) : inBase(S) + P.InSkew;
  E.li(3, B.WBase[S.WBuf]);
  E.li(4, 0);
  E.li(5, Maps + Offset + RowBegin * Pitch);
  E.addi(6, 5, 0);
  Inst Mac;
  Mac.rs1 = 4;
  Mac.rs2 = 6;
  Mac.rs3 = 3;
  Mac.rows = L.KH;
  Mac.bstride = P.ColsIn * Stride;
  Mac.init = First;
  if (P.Depthwise) {
    Mac.Op = Opcode::VDW;
    Mac.len = L.KW;
    Mac.cstride = Stride;
  } else {
    Mac.Op = P.PixLog && !P.Wide ? Opcode::VMACP : Opcode::VMAC;
    // Contiguous: Stride == Cn, or KW == 1 for full depth. A wide trace's
    // row spans its pixel groups' windows (their weights are shifted).
    Mac.len = P.traceCols() * Cn;
    if (Mac.Op == Opcode::VMACP) {
      Mac.pix = P.PixLog;
      // The next pixel of the row: next to this one, or banked, at the same
      // offset in the next bank.
      Mac.cstride = P.Banked ? Hw.mapsBankElems() : P.bufStrideX() * Stride;
    }
  }
  // Banked (a fused 1x1 conv and its depthwise producer): an entry's pixel
  // pair is one column of each bank's half; the producer traces the even
  // columns, then the odd ones, two columns apart.
  const int64_t Step = int64_t(P.Banked ? 1 : P.pix()) * P.bufStrideX() * Stride;
  const bool Halves = P.writesBanked();
  const unsigned KK = L.KH * L.KW;
  auto Entry = [&] {
    if (P.passes() == 1) {
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
    E.addi(6, 6, Halves ? 2 * Step : Step);
  };
  if (!Halves) {
    rowLoop(RowEntries, Rows, Pitch, Entry, Mid);
    return;
  }
  rowLoop(Rd.ExtC / 2, Rows, Pitch, Entry, Mid);
  E.li(5, Maps + Offset + RowBegin * Pitch + Step); // Column 1.
  E.addi(6, 5, 0);
  rowLoop(Rd.ExtC / 2, Rows, Pitch, Entry, nullptr, Rows * Rd.ExtC / 2);
}

void Lowerer::poolLoop(const Step &S, const Emitter::Block *Mid) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  const unsigned Stride = P.pixelStride(S.Chunk, Lanes);
  const unsigned Groups = ceilDiv(P.chunkSize(S.Chunk, L.In.C), Lanes);
  // A fused pool writes its chunk into the area, pixels L.Out.C apart
  // (Lowerer::writeBack), the output region pixels Groups x lanes apart.
  const int64_t PixelGap = P.ToMid ? int64_t(L.Out.C) - int64_t(Groups) * Lanes : 0;
  E.li(9, P.ToMid ? midBase(S) + P.chunkBegin(S.Chunk) : B.OutBase[S.OutBuf]);
  // A full-depth region holds all channels: this chunk starts at its offset.
  const unsigned Offset = P.FullDepth ? P.chunkBegin(S.Chunk) : 0;
  E.li(5, inBase(S) + Offset);
  E.addi(6, 5, 0);
  E.li(4, 0);
  const Round &Rd = S.round();
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
  Max.bstride = P.ColsIn * Stride;
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
  // A banked area (LayerPlan::Banked): the even columns into its first
  // bank, then the odd ones into its second, two columns a step.
  const bool Halves = P.writesBanked();
  const int64_t Step = int64_t(L.SW) * Stride * (Halves ? 2 : 1);
  const unsigned RowPixels = Halves ? Rd.ExtC / 2 : Rd.ExtC;
  const int64_t Pitch = int64_t(L.SH) * P.ColsIn * Stride;
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
  if (!Halves)
    return;
  E.li(9, midBase(S) + Hw.mapsBankElems() + P.chunkBegin(S.Chunk));
  E.li(5, inBase(S) + Offset + L.SW * Stride); // Column 1.
  E.addi(6, 5, 0);
  E.li(4, 0);
  rowLoop(RowPixels, Rd.ExtR, Pitch, Pixel, nullptr);
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
  const unsigned Band = P.IsConv ? P.bandRows(Rd, Hw.AccEntries) : Rd.ExtR;
  assert(Band > 0 && "the planner keeps a depthwise row within the accumulators");
  if (Mid && (P.Elementwise || Band < 2)) {
    E.append(*Mid); // No loop to put it in.
    Mid = nullptr;
  }
  if (S.NewMap)
    E.wait(Unit::Compute, InFull + S.InBuf);
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
    }
    if (S.Writes || P.areaOnly()) // a dense producer's last chunk only
      writeBack(S, R0, Rows);
    if (R0 + Rows == Rd.ExtR && FreeIn && P.groupResidual())
      E.signal(Unit::Compute, InFree + S.InBuf);
  }
  if (S.Writes)
    E.signal(Unit::Compute, OutFull + S.OutBuf);
  if (S.FreeMid)
    E.signal(Unit::Compute, InFree + S.MidBuf);
}

uint32_t Lowerer::midBase(const Step &S) const { return B.InBase[S.MidBuf] + B.MidOffset; }

uint32_t Lowerer::inBase(const Step &S) const { return B.InBase[S.InBuf] + S.InOffset; }

void Lowerer::writeBack(const Step &S, unsigned RowBegin, unsigned Rows) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  const Round &Rd = S.round();
  // Entry e of the tile (pix() pixels of a row each) lives at OutBase + e * G;
  // a fused depthwise output's pixel e at pixel e of the area, its chunk's
  // channels at their offset in the 1x1 conv's full depth (only the compute
  // unit touches the area: no semaphore).
  const bool Area = P.areaOnly();
  const unsigned Pitch = Area ? L.Out.C : G;
  const uint32_t Base = Area ? midBase(S) + P.chunkBegin(S.Chunk) : B.OutBase[S.OutBuf];
  // A banked area (LayerPlan::Banked) holds half of each row in each bank.
  const bool Halves = P.writesBanked();
  const uint32_t Row0 = Halves ? RowBegin * (Rd.ExtC / 2) : RowBegin * Rd.ExtC >> P.PixLog;
  // A dense producer's output group, at its channels of each pixel (C
  // apart) in the area and in its group residual.
  const uint32_t OgAt =
      P.StoresToo ? P.OcBase + Rd.firstOg() * P.ogChannels(G) + Row0 * L.Out.C : 0;
  E.li(4, 0);
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
  if (!Halves) {
    E.emit(Wb);
    return;
  }
  // The band's even columns, traced first, to the first bank; its odd ones
  // to the second.
  const unsigned Half = Rows * Rd.ExtC / 2;
  Wb.rows = Half;
  E.emit(Wb);
  E.li(4, Half);
  E.li(9, Base + Hw.mapsBankElems() + Row0 * Pitch);
  E.emit(Wb);
}

/// The output channels CU Cu produces in a writing step (none: NCh = 0) and
/// the buffer entry size.
void Lowerer::outputSlice(const Step &S, unsigned Cu, unsigned &Chan0, unsigned &NCh,
                          unsigned &Entry) const {
  const LayerPlan &P = *S.P;
  if (P.IsConv) {
    // An entry holds pix() pixels of ogChannels() each, pixel after pixel.
    const unsigned OgCh = P.ogChannels(G), End = P.OcBase + P.OcCount;
    Chan0 = P.OcBase + unsigned(S.round().Cus[Cu].Og) * OgCh;
    NCh = Chan0 < End ? std::min(OgCh, End - Chan0) : 0;
    Entry = OgCh;
  } else {
    Chan0 = P.chunkBegin(S.Chunk);
    NCh = P.chunkSize(S.Chunk, P.L->Out.C);
    Entry = P.pixelStride(S.Chunk, Lanes);
  }
}

/// Moves every CU's output tile of step S between the output region and the
/// tensor V (a store, or the load of a residual), one DMA per run of pixels
/// that is contiguous in DRAM. Only the layer's channels [First, First +
/// Count) move, to V's channels from 0 on (a piece of a merged conv's output).
void Lowerer::tileRuns(const Step &S, const TensorView &V, Opcode Op, unsigned First,
                       unsigned Count) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  const uint32_t Base = B.OutBase[S.OutBuf];
  const int64_t DStride = int64_t(V.Stride) * 2;
  const Round &Rd = S.round();
  const uint64_t Last = uint64_t(First) + Count;
  for (unsigned Cu = 0; Cu < NCu; ++Cu) {
    if (!Rd.Cus[Cu].active())
      continue;
    unsigned Chan0, NCh, Entry;
    outputSlice(S, Cu, Chan0, NCh, Entry);
    TileGeom T = geometry(P, Rd.Cus[Cu].Tile);
    const unsigned Lo = std::max(Chan0, First);
    const unsigned Hi = unsigned(std::min<uint64_t>(uint64_t(Chan0) + NCh, Last));
    if (Lo >= Hi)
      continue;
    const TensorView F = V.frame(T.Frame);
    const uint32_t Buf = Base + (Lo - Chan0);
    if (T.VC == L.Out.W && Rd.ExtC == T.VC) {
      // Whole output rows: the tile is one run of pixels.
      dma(Op, F.at(T.OY0, 0, Lo - First), Buf, Cu, T.VR * T.VC, Hi - Lo, DStride, Entry, 1u << Cu);
      continue;
    }
    dmaSeries(T.VR, int64_t(V.W) * V.Stride * 2, Rd.ExtC * Entry, Op,
              F.at(T.OY0, T.OX0, Lo - First), Buf, Cu, T.VC, Hi - Lo, DStride, Entry, 1u << Cu);
  }
}

void Lowerer::loadGroupResidual(const Step &S, uint32_t Base) {
  const LayerPlan &P = *S.P;
  const unsigned C = P.L->Out.C;
  const TensorView &V = P.Res;
  const Round &Rd = S.round();
  for (unsigned Cu = 0; Cu < NCu; ++Cu) {
    if (!Rd.Cus[Cu].active())
      continue;
    TileGeom T = geometry(P, Rd.Cus[Cu].Tile);
    const TensorView F = V.frame(T.Frame);
    // Pixel (r, c) of the tile at (r x ExtC + c) x C, as the writeback's
    // entries and the area.
    dmaSeries(T.VR, int64_t(V.W) * V.Stride * 2, Rd.ExtC * C, Opcode::LD_MAP, F.at(T.OY0, T.OX0, 0),
              Base, Cu, T.VC, C, int64_t(V.Stride) * 2, C, 1u << Cu);
  }
}

void Lowerer::store(const Step &S) {
  E.wait(Unit::Store, OutFull + S.OutBuf);
  if (S.P->Pieces.empty())
    tileRuns(S, S.P->Out, Opcode::ST_MAP);
  for (const OutPiece &Pc : S.P->Pieces)
    tileRuns(S, Pc.View, Opcode::ST_MAP, Pc.Begin, Pc.Count);
  E.signal(Unit::Store, OutFree + S.OutBuf);
}

void Lowerer::loadResidual(const Step &S) {
  // The residual goes where the writeback will put the outputs, entry by
  // entry, so it must wait for that region to be stored, like the writeback.
  // A fused 1x1 conv loads no maps, whose wait for the layers it reads
  // covers the residual's: it waits for the layers before its depthwise
  // conv here (the depthwise conv signals LayerDone only after its last
  // group, which comes after this one).
  if (S.P->FromMid && S.FirstOfLayer)
    for (; LayersSeenDone < S.P->ProducerOrdinal - 1; ++LayersSeenDone)
      E.wait(Unit::Load, LayerDone);
  // A conv that started on the rows of the conv before it waits for that
  // conv's last stores before its first residual: until then that conv's
  // compute unit waits for OutFree too (emitProgram, ResidualAfterDone).
  if (S.OnRows)
    for (; LayersSeenDone < S.P->NeedsDone; ++LayersSeenDone)
      E.wait(Unit::Load, LayerDone);
  E.wait(Unit::Load, OutFree + S.OutBuf);
  tileRuns(S, S.P->Res, Opcode::LD_MAP);
  E.signal(Unit::Load, ResFull + S.OutBuf);
}
