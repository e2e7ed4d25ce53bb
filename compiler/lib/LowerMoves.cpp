//===- LowerMoves.cpp - What the load and store units move in a step ------===//
//
// The loads of one step (its weights, in parts where EmitProgram.cpp spreads
// them; its maps, whole or chunk by chunk, and the waits before them; a
// residual, into the output region or with a dense producer's maps) and its
// stores. Split from Lower.cpp, which emits the step's compute and
// writeback; LowerDma.cpp turns each move into DMA instructions.
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"
#include "Rounds.h"
#include "WeightPack.h"
#include <algorithm>
#include <bit>
#include <cassert>
#include <map>
#include <tuple>

using namespace snow;
using namespace snow::compiler;

namespace {

/// The distinct tiles of a round with their CU masks (distinctMasks), the
/// [From, To)-th of them only.
std::vector<std::pair<int, uint32_t>> roundTiles(const Round &Rd, unsigned From = 0,
                                                 unsigned To = ~0u) {
  auto Tiles = distinctMasks(Rd, [](const Work &W) { return W.Tile; });
  Tiles.erase(Tiles.begin() + std::min<size_t>(To, Tiles.size()), Tiles.end());
  Tiles.erase(Tiles.begin(), Tiles.begin() + std::min<size_t>(From, Tiles.size()));
  return Tiles;
}

} // namespace

TileGeom snow::compiler::geometry(const LayerPlan &P, int Tile, bool Whole) {
  TileGeom T;
  if (Tile < 0)
    return T;
  const ir::Layer &L = *P.L;
  T.Active = true;
  T.Frame = P.frameOf(unsigned(Tile));
  T.OY0 = P.tileY0(unsigned(Tile));
  T.OX0 = P.tileX0(unsigned(Tile));
  T.VR = P.validRows(unsigned(Tile));
  T.VC = P.validCols(unsigned(Tile));
  T.IY0 = int(T.OY0 * L.SH) - int(L.PadT);
  T.IX0 = int(T.OX0 * L.SW) - int(L.PadL);
  if (Whole) { // the window's first row and column, outside the map or not
    T.IY0 = P.Window.span(P.rowBlock(unsigned(Tile)), true).first * int(L.SH) - int(L.PadT);
    T.IX0 = P.Window.span(P.colBlock(unsigned(Tile)), false).first * int(L.SW) - int(L.PadL);
  }
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

void Lowerer::loadWeightsPart(const Step &S, unsigned Part, unsigned NParts) {
  const LayerPlan &P = *S.P;
  if (S.PinReader || S.PinProducer) { // A pinned pair's plan's first step: its part.
    assert(NParts == 1 && "EmitProgram.cpp loads a pinned pair's weights at once");
    if (S.PinReader)
      return loadPinnedWeights(P, *S.PinReader, S.WBuf, false);
    return loadPinnedWeights(*S.PinProducer, P, S.WBuf, true);
  }
  // Run-time weights are another layer's output: wait for it as maps do.
  if (P.Dynamic && S.FirstOfLayer && Part == 0)
    for (; LayersSeenDone < P.NeedsDone; ++LayersSeenDone)
      E.wait(Unit::Load, LayerDone);
  if (Part == 0 && !S.TopW) // (at the top of its bank: taken where it would wait)
    E.wait(Unit::Load, WFree + S.WBuf);
  if (P.WeightsOnce) { // Every chunk's block, one after another.
    assert(NParts == 1 && "EmitProgram.cpp loads them at once");
    for (unsigned C = 0; C < P.NChunks; ++C)
      for (unsigned Vm = 0; Vm < P.loadingVmacs(Hw); ++Vm) {
        const unsigned K = P.wIndex(C, C, Vm, V);
        dma(Opcode::LD_WGT, P.WAddr[K], B.WBase[S.WBuf] + P.weightsOnceOffset(C), Vm, 1,
            P.WWords[K], 0, 0, AllMask, P.weightsWpix(Hw));
      }
    E.signal(Unit::Load, WFull + S.WBuf);
    return;
  }
  // Blocks [N * Part / NParts, N * (Part + 1) / NParts) of the N in order
  // (a co-located reader's after the step's own: Step::CoReader).
  const uint64_t N = weightBlocks(S);
  uint64_t I = 0;
  forEachWeightBlock(S,
                     [&](const LayerPlan &Q, unsigned K, unsigned Vm, uint32_t Mask, uint32_t Off) {
                       const uint64_t At = I++;
                       if (At < N * Part / NParts || At >= N * (Part + 1) / NParts)
                         return;
                       if (Q.Dynamic) // Two rows: s's word, then the zero bias word.
                         dma(Opcode::LD_WGT, Q.WAddr[K], B.WBase[S.WBuf], Vm, 2, 1,
                             int64_t(Q.ZeroWord) - int64_t(Q.WAddr[K]), 1, Mask, Q.weightsWpix(Hw));
                       else
                         dma(Opcode::LD_WGT, Q.WAddr[K], B.WBase[S.WBuf] + Off, Vm, 1, Q.WWords[K],
                             0, 0, Mask, Q.weightsWpix(Hw));
                     });
  if (Part + 1 == NParts)
    E.signal(Unit::Load, WFull + S.WBuf);
}

void Lowerer::loadPinnedWeights(const LayerPlan &D, const LayerPlan &P, unsigned Bank, bool Big) {
  const PinnedWeights W = *pinWeights(D, P, B.WCap);
  // Every CU gets every block: a round may give any CU any output group.
  const uint32_t Word = Hw.weightWordBytes();
  // The tails follow the kernel of each output group's first chunk in DRAM.
  auto Tails = [&](unsigned Bank) {
    for (unsigned Og = 0; Og < P.NOg; ++Og) {
      const unsigned C0 = P.ogChunks(Og).first;
      for (unsigned Vm = 0; Vm < P.loadingVmacs(Hw); ++Vm) {
        const unsigned K = P.wIndex(Og, C0, Vm, V);
        dma(Opcode::LD_WGT, P.WAddr[K] + uint64_t(P.kernelWords(C0)) * Word,
            B.WBase[Bank] + W.Tail[Og], Vm, 1, P.WWords[K] - P.kernelWords(C0), 0, 0, AllMask,
            P.weightsWpix(Hw));
      }
    }
  };
  E.wait(Unit::Load, WFree + Bank);
  if (Big) {
    for (unsigned Og = 0; Og < P.NOg; ++Og) {
      const auto [C0, C1] = P.ogChunks(Og);
      for (unsigned C = C0; C < C1; ++C)
        for (unsigned Vm = 0; Vm < P.loadingVmacs(Hw); ++Vm)
          dma(Opcode::LD_WGT, P.WAddr[P.wIndex(Og, C, Vm, V)],
              B.WBase[Bank] + W.Kernel[Og * P.NChunks + C], Vm, 1, P.kernelWords(C), 0, 0, AllMask,
              P.weightsWpix(Hw));
    }
  } else {
    for (unsigned C = 0; C < D.NChunks; ++C)
      for (unsigned Vm = 0; Vm < D.loadingVmacs(Hw); ++Vm) {
        const unsigned K = D.wIndex(C, C, Vm, V);
        dma(Opcode::LD_WGT, D.WAddr[K], B.WBase[Bank] + W.Producer[C], Vm, 1, D.WWords[K], 0, 0,
            AllMask, D.weightsWpix(Hw));
      }
  }
  if (W.TailsInBig == Big)
    Tails(Bank);
  E.signal(Unit::Load, WFull + Bank);
}

void Lowerer::forEachWeightBlock(
    const Step &S,
    llvm::function_ref<void(const LayerPlan &, unsigned, unsigned, uint32_t, uint32_t)> Fn) const {
  auto Blocks = [&](const LayerPlan &P, const Round &Rd, unsigned Chunk, uint32_t Off) {
    // CUs splitting an item's chunks (LayerPlan::Parts) load each its own.
    if (P.Parts > 1) {
      for (unsigned Cu = 0; Cu < P.Parts; ++Cu)
        if (Rd.Cus[Cu].active())
          for (unsigned Vm = 0; Vm < P.loadingVmacs(Hw); ++Vm)
            Fn(P, P.wIndex(unsigned(Rd.Cus[Cu].Og), P.partChunk(Chunk, Cu), Vm, V), Vm, 1u << Cu,
               Off);
      return;
    }
    // CUs computing the same output group share one load.
    // (A depthwise conv's output group reads its own chunk: where a round
    // gives its CUs different groups, LayerPlan::ReadsWindow, each its own.)
    for (auto [Og, Mask] : distinctMasks(Rd, [](const Work &W) { return W.Og; }))
      for (unsigned Vm = 0; Vm < P.loadingVmacs(Hw); ++Vm)
        Fn(P, P.wIndex(unsigned(Og), P.Depthwise ? unsigned(Og) : Chunk, Vm, V), Vm, Mask, Off);
  };
  Blocks(*S.P, S.round(), S.Chunk, S.TopW ? S.WOff : 0);
  if (S.CoReader)
    Blocks(*S.CoReader, S.CoReader->Rounds[S.CoRound], 0, S.P->coReaderOffset());
  for (const Step *R : S.Riders)
    Blocks(*R->P, R->round(), R->Chunk, R->WOff);
}

unsigned Lowerer::weightBlocks(const Step &S) const {
  unsigned N = 0;
  forEachWeightBlock(S, [&](const LayerPlan &, unsigned, unsigned, uint32_t, uint32_t) { ++N; });
  return N;
}

uint64_t Lowerer::weightBytes(const Step &S) const {
  uint64_t Words = 0;
  forEachWeightBlock(S, [&](const LayerPlan &P, unsigned K, unsigned, uint32_t, uint32_t) {
    Words += P.Dynamic ? 2 : P.WWords[K];
  });
  return Words * Hw.weightWordBytes();
}

void Lowerer::loadMaps(const Step &S) {
  const LayerPlan &P = *S.P;
  // Maps the conv before wrote on chip (FeedNext.cpp): the region only.
  if (S.Fed)
    return E.wait(Unit::Load, InFree + S.InBuf);
  // A step started on channels loads chunk by chunk, each part placed in
  // program order by EmitProgram.cpp (Step::ChunkAt), never here.
  assert(S.ChunkWaits.empty() && "EmitProgram.cpp loads it with loadMapsChunk");
  waitForRegion(S);
  // A full-depth producer's region too at once: a row of the tile is one
  // run of pixels in DRAM, where its chunks would be a DMA row a pixel each
  // (a region of chunks one after another, LayerPlan::PerBank: chunk by
  // chunk).
  if (P.PerBank) {
    for (unsigned Ch = 0; Ch < P.NChunks; ++Ch)
      loadRegionChunk(S, Ch);
    return regionLoaded(S);
  }
  loadRegion(S, P.In, inBase(S) + P.InSkew);
  if (P.groupResidual())
    loadGroupResidual(S, inBase(S) + P.residualOffset());
  if (P.Elementwise && P.L->Inputs.size() == 2 && !P.sameOperands())
    loadRegion(S, P.In2, inBase(S) + P.R * P.Wt * P.pixelStride(S.Chunk, Lanes));
  regionLoaded(S);
}

void Lowerer::loadMapsPart(const Step &S, unsigned Part, unsigned NParts) {
  const LayerPlan &P = *S.P;
  assert(!P.PerBank && !P.groupResidual() && !P.Elementwise &&
         "EmitProgram.cpp splits no region of chunks, residual or second operand");
  if (S.Fed) { // The region only, with the first part.
    if (Part == 0)
      loadMaps(S);
    return;
  }
  if (Part == 0)
    waitForRegion(S);
  const unsigned N = unsigned(roundTiles(S.round()).size());
  loadRegion(S, P.In, inBase(S) + P.InSkew, -1, N * Part / NParts, N * (Part + 1) / NParts);
  if (Part + 1 == NParts)
    regionLoaded(S);
}

void Lowerer::regionLoaded(const Step &S) {
  E.signal(Unit::Load, InFull + S.InBuf);
  if (S.TakeMid) // A full-depth pair's area: taken once its input is loaded.
    E.wait(Unit::Load, InFree + S.MidBuf);
  if (S.TakeOther) // A straddling area's part in the other region.
    E.wait(Unit::Load, InFree + (1 - S.MidBuf));
}

void Lowerer::waitForRegion(const Step &S) {
  // LayerDone is signalled once per layer, in layer order: consume the
  // signals up to the latest layer whose output this one reads.
  // A pipelined pool waits for the layers before the conv it reads, and
  // for that conv's rows band by band.
  if (S.FirstOfLayer || S.DoneUpTo >= 0) {
    const int UpTo = S.DoneUpTo >= 0 ? S.DoneUpTo : S.P->NeedsDone - (S.ReadsBeside ? 1 : 0);
    for (; LayersSeenDone < UpTo; ++LayersSeenDone)
      E.wait(Unit::Load, LayerDone);
  }
  for (unsigned F = 0; F < S.DoneWaits; ++F)
    E.wait(Unit::Load, RowsDone);
  if (!S.SharesRegion)
    E.wait(Unit::Load, InFree + S.InBuf);
}

void Lowerer::loadMapsChunk(const Step &S, unsigned Ch) {
  const LayerPlan &P = *S.P;
  assert(!S.Fed && "a fed conv starts on no channels");
  if (Ch == 0)
    waitForRegion(S);
  for (unsigned F = 0; F < (Ch < S.ChunkWaits.size() ? S.ChunkWaits[Ch] : 0); ++F)
    E.wait(Unit::Load, RowsDone);
  if (P.PerBank)
    loadRegionChunk(S, Ch);
  else
    loadRegion(S, P.In, inBase(S) + P.InSkew, int(Ch));
  if (Ch + 1 == P.NChunks)
    regionLoaded(S);
}

void Lowerer::loadRegionChunk(const Step &S, unsigned Ch) {
  const LayerPlan &P = *S.P;
  loadRegion(S, P.In, inBase(S) + P.InSkew, int(Ch));
  // A bank's last chunk, where the compute unit takes a token a bank.
  if (S.BankFull && Ch + 1 < P.NChunks && (Ch + 1) % P.PerBank == 0)
    E.signal(Unit::Load, InFull + S.InBuf);
}

void Lowerer::loadRegion(const Step &S, const TensorView &View, uint32_t Base, int OnlyChunk,
                         unsigned TileFrom, unsigned TileTo) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  const unsigned Cin = L.In.C;
  // A full-depth region holds every channel, whatever the step's chunk;
  // loaded one chunk at a time (OnlyChunk), at its offset in each pixel,
  // the padding with the first.
  const bool Part = OnlyChunk >= 0;
  const unsigned First = Part          ? P.chunkBegin(unsigned(OnlyChunk))
                         : P.FullDepth ? 0
                                       : P.chunkBegin(S.Chunk);
  const unsigned Count = Part          ? P.chunkSize(unsigned(OnlyChunk), Cin)
                         : P.FullDepth ? Cin
                                       : P.chunkSize(S.Chunk, Cin);
  if (Part) // at its offset in each pixel, or its own place (LayerPlan::PerBank)
    Base += P.PerBank ? P.chunkOffset(unsigned(OnlyChunk), Hw.mapsBankElems()) : First;
  const unsigned Stride = P.pixelStride(S.Chunk, Lanes);
  if (P.readsBanked())
    return loadBankedRegion(S, View, Base, First, Count, Stride, TileFrom, TileTo);
  const unsigned RowElems = P.ColsIn * Stride;
  // Padding (and windows past the input) is written with fills; identical
  // fills of several CUs become one fill with a wider CU mask. CUs working on
  // the same tile get it with one load.
  const auto Tiles = roundTiles(S.round(), TileFrom, TileTo);
  std::map<std::tuple<uint32_t, unsigned, unsigned>, uint32_t> Fills;
  for (auto [Tile, Mask] : Tiles) {
    TileGeom T = geometry(P, Tile, S.round().wholeWindows());
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
    if (OnlyChunk <= 0 || P.PerBank) // Chunk 0 starts at the pixel (C0 = 0); chunks apart each.
      fill(std::get<0>(Key), std::get<1>(Key), std::get<2>(Key), RowElems, Mask, P.PadValue);
  // A depthwise round may give its CUs output groups of their own (rounds
  // packed by channels): each loads its group's chunk of its tile, a DMA
  // series a distinct tile and group.
  // CUs splitting the tile's chunks (LayerPlan::Parts): each loads its own.
  const bool OwnChunks = P.Depthwise && !Part && !P.FullDepth;
  const bool PartChunks = P.Parts > 1 && !Part && !P.FullDepth;
  const int NOg = int(P.NOg), Parts = int(P.Parts);
  auto Loads = OwnChunks
                   ? distinctMasks(S.round(), [NOg](const Work &W) { return W.Tile * NOg + W.Og; })
                   : Tiles;
  if (PartChunks) {
    Loads.clear();
    for (auto [Tile, Mask] : Tiles)
      for (int Cu = 0; Cu < Parts; ++Cu)
        if (Mask >> Cu & 1)
          Loads.push_back({Tile * Parts + Cu, 1u << Cu});
  }
  auto ChunkOf = [&](int Key) {
    return OwnChunks ? unsigned(Key % NOg) : P.partChunk(S.Chunk, unsigned(Key % Parts));
  };
  for (auto [Key, Mask] : Loads) {
    const bool Own = OwnChunks || PartChunks;
    const int Tile = OwnChunks ? Key / NOg : PartChunks ? Key / Parts : Key;
    const unsigned C0 = Own ? P.chunkBegin(ChunkOf(Key)) : First;
    const unsigned Cn = Own ? P.chunkSize(ChunkOf(Key), Cin) : Count;
    TileGeom T = geometry(P, Tile, S.round().wholeWindows());
    if (T.Y1 <= T.Y0 || T.X1 <= T.X0)
      continue;
    // A concat laid out input by input (LayerPlan::InPieces): each input's
    // channels from its own tensor, a DMA row a pixel, whose rows follow
    // each other in DRAM where the input is read whole.
    if (&View == &P.In && !P.InPieces.empty()) {
      for (const OutPiece &Pc : P.InPieces) {
        const unsigned Lo = std::max(C0, Pc.Begin), Hi = std::min(C0 + Cn, Pc.Begin + Pc.Count);
        if (Lo >= Hi)
          continue;
        const TensorView V = Pc.View.frame(T.Frame);
        dmaSeries(T.Y1 - T.Y0, int64_t(P.StepY) * L.In.W * V.Stride * 2, RowElems, Opcode::LD_MAP,
                  V.at(uint64_t(T.IY0 + int(T.Y0 * P.StepY)), uint64_t(T.IX0 + int(T.X0 * P.StepX)),
                       Lo - Pc.Begin),
                  Base + T.Y0 * RowElems + T.X0 * Stride + (Lo - C0), 0, T.X1 - T.X0, Hi - Lo,
                  int64_t(P.StepX) * V.Stride * 2, Stride, Mask);
      }
      continue;
    }
    uint64_t RowAddr = uint64_t(P.StepY) * L.In.W * View.Stride * 2;
    auto DramAt = [&](unsigned Y, unsigned X) {
      return View.frame(T.Frame).at(uint64_t(T.IY0 + int(Y * P.StepY)),
                                    uint64_t(T.IX0 + int(X * P.StepX)), C0);
    };
    // A window whose CU's own tile the conv before wrote (FeedNext.cpp):
    // the bands around it only, a DMA a row where parted (whole pixels) or
    // a DMA a row of pixels (a chunk of them).
    if (!S.OwnAt.empty()) {
      assert(View.dense(Cin) && P.StepX == 1 && P.StepY == 1 && std::popcount(Mask) == 1 &&
             "FeedNext.cpp: unstrided windows, a tile a CU");
      const auto [OY, OX, OR, OC] = S.OwnAt[unsigned(std::countr_zero(Mask))];
      const bool Whole = Cn == Cin && Stride == Cin, Rows = TileFrom > 0 || TileTo != ~0u;
      auto Band = [&, Mask = Mask](unsigned Y0, unsigned Y1, unsigned X0, unsigned X1) {
        if (Y1 <= Y0 || X1 <= X0)
          return;
        if (!Whole)
          return dmaSeries(Y1 - Y0, int64_t(RowAddr), RowElems, Opcode::LD_MAP, DramAt(Y0, X0),
                           Base + Y0 * RowElems + X0 * Stride, 0, X1 - X0, Cn,
                           int64_t(View.Stride) * 2, Stride, Mask);
        for (unsigned Y = Y0; Y < Y1; Y += Rows ? 1 : Y1 - Y0)
          dma(Opcode::LD_MAP, DramAt(Y, X0), Base + Y * RowElems + X0 * Stride, 0,
              Rows ? 1 : Y1 - Y0, (X1 - X0) * Cin, int64_t(RowAddr), RowElems, Mask);
      };
      const unsigned Top = std::clamp(OY, T.Y0, T.Y1), Bottom = std::clamp(OY + OR, Top, T.Y1);
      Band(T.Y0, Top, T.X0, T.X1);
      Band(Top, Bottom, T.X0, std::min(OX, T.X1));
      Band(Top, Bottom, std::max(OX + OC, T.X0), T.X1);
      Band(Bottom, T.Y1, T.X0, T.X1);
      continue;
    }
    if (Cn == Cin && Stride == Cin && View.dense(Cin) && P.StepX == 1) {
      // Whole pixels: each input row of the region is one contiguous run.
      // A part spread over the steps of a group (loadMapsPart): a DMA a
      // row, so the stores of those steps, one request at a time, get the
      // channel between rows rather than between tiles (the channel takes
      // the oldest request: MobileNet v1's conv7 pair, 69 KB a tile, kept
      // an output group's stores waiting 7 k cycles).
      if (TileFrom > 0 || TileTo != ~0u) {
        for (unsigned Y = T.Y0; Y < T.Y1; ++Y)
          dma(Opcode::LD_MAP, DramAt(Y, T.X0), Base + Y * RowElems + T.X0 * Stride, 0, 1,
              (T.X1 - T.X0) * Cin, int64_t(RowAddr), RowElems, Mask);
        continue;
      }
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
                               unsigned Cn, unsigned Stride, unsigned TileFrom, unsigned TileTo) {
  // LayerPlan::Banked (a 1x1 conv, stride 1, unpadded: the region is the
  // tile): column x at column x / 2 of bank x % 2 of the region. Region
  // pixels past the input (a smaller tile of the round) are filled, so
  // every trace reads defined maps.
  const LayerPlan &P = *S.P;
  const unsigned Half = P.ColsIn / 2, RowElems = Half * Stride;
  const uint32_t Bank = Hw.mapsBankElems();
  for (auto [Tile, Mask] : roundTiles(S.round(), TileFrom, TileTo)) {
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

/// The output channels CU Cu produces in a writing step (none: NCh = 0) and
/// the buffer entry size.
void Lowerer::outputSlice(const Step &S, unsigned Cu, unsigned &Chan0, unsigned &NCh,
                          unsigned &Entry) const {
  const LayerPlan &P = *S.P;
  if (P.IsConv) {
    // An entry holds pix() pixels of ogChannels() each, pixel after pixel.
    const unsigned OgCh = P.ogChannels(G), End = P.OcBase + P.OcCount;
    // A depthwise conv's output group is its chunk: a reader of 32-element
    // pixels one pixel an entry fills half of each entry (a block triple's).
    const unsigned GroupCh = P.Depthwise ? P.Chunk : OgCh;
    Chan0 = P.OcBase + unsigned(S.round().Cus[Cu].Og) * GroupCh;
    NCh = Chan0 < End ? std::min(GroupCh, End - Chan0) : 0;
    Entry = OgCh;
    // CUs splitting the item's chunks (LayerPlan::Parts): CU 0 holds the sums.
    if (P.Parts > 1 && Cu != 0)
      NCh = 0;
  } else {
    // A framed pool's CUs pool chunks of their own (LayerPlan::framedPool).
    const unsigned Chunk = P.framedPool() ? unsigned(S.round().Cus[Cu].Og) : S.Chunk;
    Chan0 = P.chunkBegin(Chunk);
    NCh = P.chunkSize(Chunk, P.L->Out.C);
    Entry = P.pixelStride(Chunk, Lanes);
  }
}

/// Moves every CU's output tile of step S between the output region and the
/// tensor V (a store, or the load of a residual), one DMA per run of pixels
/// that is contiguous in DRAM. Only the layer's channels [First, First +
/// Count) move, to V's channels from 0 on (a piece of a merged conv's output).
void Lowerer::tileRuns(const Step &S, const TensorView &V, Opcode Op, unsigned First,
                       unsigned Count, unsigned Block) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  const Round &Rd = S.round();
  // Block > 1: the tile's block means, after it in the output region
  // (LayerPlan::blockMeansAt), a pixel a block.
  const uint32_t Base = B.OutBase[S.OutBuf] + (Block > 1 ? P.blockMeansAt(Rd.ExtR, Rd.ExtC, G) : 0);
  const unsigned ExtC = Rd.ExtC / Block;
  const int64_t DStride = int64_t(V.Stride) * 2;
  const uint64_t Last = uint64_t(First) + Count;
  for (unsigned Cu = 0; Cu < NCu; ++Cu) {
    if (!Rd.Cus[Cu].active())
      continue;
    unsigned Chan0, NCh, Entry;
    outputSlice(S, Cu, Chan0, NCh, Entry);
    TileGeom T = geometry(P, Rd.Cus[Cu].Tile);
    const unsigned Y0 = T.OY0 / Block, X0 = T.OX0 / Block, VR = T.VR / Block, VC = T.VC / Block;
    const unsigned Lo = std::max(Chan0, First);
    const unsigned Hi = unsigned(std::min<uint64_t>(uint64_t(Chan0) + NCh, Last));
    if (Lo >= Hi)
      continue;
    const TensorView F = V.frame(T.Frame);
    const uint32_t Buf = Base + (Lo - Chan0);
    if (Block == 1 && T.VC == L.Out.W && Rd.ExtC == T.VC) {
      // Whole output rows: the tile is one run of pixels. (Block means go a
      // row a DMA, as measured: one DMA moved the cycles of a few layers
      // by a few hundred either way.)
      dma(Op, F.at(Y0, 0, Lo - First), Buf, Cu, VR * VC, Hi - Lo, DStride, Entry, 1u << Cu);
      continue;
    }
    dmaSeries(VR, int64_t(V.W) * V.Stride * 2, ExtC * Entry, Op, F.at(Y0, X0, Lo - First), Buf, Cu,
              VC, Hi - Lo, DStride, Entry, 1u << Cu);
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
  if (S.P->PoolBlock) // a pool's means (blockMeans)
    tileRuns(S, S.P->PoolOut, Opcode::ST_MAP, 0, ~0u, S.P->PoolBlock);
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
  // CUs splitting the item's chunks (LayerPlan::Parts) add up their
  // accumulators: the residual goes to CU 0's (outputSlice), zeros to the
  // others' entries, so that it is added once.
  if (S.P->Parts > 1) {
    const Round &Rd = S.round();
    const unsigned Entries = Rd.ExtR * Rd.ExtC >> S.P->PixLog;
    fill(B.OutBase[S.OutBuf], 1, Entries * G, Entries * G, ((1u << NCu) - 1) & ~1u, 0);
  }
  E.signal(Unit::Load, ResFull + S.OutBuf);
}
