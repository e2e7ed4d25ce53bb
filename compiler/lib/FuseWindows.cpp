//===- FuseWindows.cpp - A conv computing its reader's windows on chip ----===//
//
// A dense conv whose output only one layer reads, a pool or a depthwise
// conv, computes that reader's input windows instead of storing its map
// (a window pair): on zc706 SqueezeNet 1.1's conv1 spent more of its time
// storing its 111x111x64 output than multiplying, and pool1 as long again
// reading it back; MobileNet v2's expansions write maps of 6x the block's
// channels that the depthwise convs read back. Per round, every CU:
//
//   loads the conv's input over the reader's window of its tile (the first
//     bank of an input region), traces it (in bands of whole rows that fit
//     the accumulators) and writes it back into the area (BufferMap::
//     MidOffset), laid out as the reader's input region would be; a
//     depthwise reader's padding gets zeros (Lowerer::windowWriteBack),
//     as does a pool's whose windows reach past the map (framedPoolReader);
//   then the reader runs over the area and stores as it would otherwise.
//
// Neighbouring tiles' windows overlap by the reader's kernel less its
// stride: those rows and columns are computed twice (LayerPlan::Window), so
// large tiles pay. A depthwise reader takes one output group of the conv a
// CU (its chunk), and a round's tiles have windows of one shape
// (windowGroups), as compute instructions address every CU's buffer alike.
// The steps are a fused pair's (Sequence.cpp: the producer ToMid, the
// reader FromMid and ReadsWindow), with the pair's area and semaphores; the
// cost model (windowPairCost) weighs the pair against the two apart.
// docs/compiler.md, steps 9c and 9d.
//
//===----------------------------------------------------------------------===//

#include "FuseWindows.h"
#include "Cost.h"
#include "Fuse.h"
#include "PlanKeys.h"
#include "Rounds.h"
#include "WeightPack.h"
#include "snow/isa/Timing.h"
#include <algorithm>
#include <optional>

using namespace snow;
using namespace snow::compiler;

/// Whether plan Q is a depthwise conv that can read dense conv D's output
/// from the area, chunk by chunk: its padding is written with zeros there
/// (Lowerer::windowWriteBack).
bool snow::compiler::depthwiseReader(const LayerPlan &Q, const LayerPlan &D) {
  const ir::Layer &L = *Q.L;
  return Q.IsConv && Q.Depthwise && Q.GroupK == 1 && !Q.Dynamic && Q.FirstPart && Q.LastPart &&
         !Q.ToMid && !Q.FromMid && !Q.OutIsSlice && !L.HasResidual && Q.Frames == D.Frames &&
         L.input() == int(D.Index);
}

LayerPlan snow::compiler::plainFusedPlan(const LayerPlan &P, unsigned FusedWith) {
  LayerPlan Pn = P;
  Pn.PixLog = 0;
  Pn.Wide = Pn.Banked = Pn.FullDepth = false;
  Pn.CopyBanks = 0;
  Pn.Balanced = Pn.SplitChannels = Pn.RestTiles = false;
  Pn.MapStationary = true;
  Pn.StepY = Pn.StepX = 1;
  Pn.ShareOffset = 0;
  Pn.BesideOf = -1;
  Pn.FusedWith = int(FusedWith);
  return Pn;
}

/// D planned again as the producer of a window pair: plain traces, one
/// channel chunk, the area as its output; Nog output groups.
LayerPlan snow::compiler::windowPlan(const LayerPlan &D, unsigned Nog) {
  const ir::Layer &L = *D.L;
  LayerPlan Dn = plainFusedPlan(D, D.Index);
  Dn.NOg = Nog;
  Dn.OcBase = 0;
  Dn.OcCount = L.Out.C;
  Dn.Chunk = L.In.C;
  Dn.NChunks = 1;
  Dn.ToMid = true;
  return Dn;
}

unsigned snow::compiler::producerPixLog(unsigned C, bool Chunked, const isa::HwConfig &Hw,
                                        const CompileOptions &Opts) {
  const unsigned Gch = Hw.VmacsPerCu * Hw.LanesPerVmac;
  return Opts.MultiPixel && (Chunked || C <= Gch / 2) && Hw.VmacsPerCu % 2 == 0 ? 1 : 0;
}

unsigned snow::compiler::windowCopyBank(const isa::HwConfig &Hw, const BufferMap &B,
                                        const CompileOptions &Opts) {
  const uint32_t Bank = Hw.mapsBankElems();
  const unsigned CopyBank = B.MidCap / Bank; // the area starts a bank in
  const bool CanCopy = Opts.CopiedWindows && Hw.MapsPortsPerBank && Hw.MapsReadPorts < 2 &&
                       B.MidOffset == Bank && B.MidCap % Bank == 0 && CopyBank >= 2;
  return CanCopy ? CopyBank : 0;
}

bool snow::compiler::traceProducerWay(LayerPlan &Dn, unsigned Way, unsigned CopyBank,
                                      const isa::HwConfig &Hw, const BufferMap &B,
                                      const CompileOptions &Opts) {
  const bool Copy = Way == 2;
  if (Copy && !CopyBank)
    return false;
  Dn.PixLog = Way > 0;
  Dn.Wide = !Copy && Hw.MapsReadPorts < Dn.pix();
  Dn.CopyBanks = Copy ? CopyBank : 0;
  if (Dn.Wide && !Opts.WideTraces)
    return false; // vmacp steps of several cycles: no gain
  // A wide trace's kernel (KW + 1 columns) may overflow a weights bank.
  return Dn.kernelWords(0) + Dn.TailWords <= B.WCap;
}

/// The reader Qn's tile grid on its producer Dn (LayerPlan::Window).
void snow::compiler::setWindow(LayerPlan &Dn, const LayerPlan &Qn) {
  const ir::Layer &QL = *Qn.L;
  Dn.Window = {Qn.R,    Qn.Wt,   QL.KH,    QL.KW,    QL.SH,   QL.SW,
               QL.PadT, QL.PadL, QL.Out.H, QL.Out.W, QL.In.H, QL.In.W};
  Dn.NRowBlocks = Qn.NRowBlocks;
  Dn.NColBlocks = Qn.NColBlocks;
  Dn.NTiles = Qn.NTiles;
}

/// The index in Plans of the first plan of the layer that reads layer I,
/// among the 8 plans from From on (the scheduler may have put independent
/// layers between); Plans.size(): none.
size_t snow::compiler::readerAfter(const std::vector<LayerPlan> &Plans, size_t From, unsigned I) {
  const size_t End = std::min(Plans.size(), From + 8);
  for (size_t J = From; J < End; ++J)
    if (Plans[J].L->input() == int(I))
      return J;
  return Plans.size();
}

/// Whether a round of window producer Dn and its reader Q may give its CUs
/// windows of different padding (Round::Mixed): each CU's region then holds
/// the input of its whole window, padding included (LowerMoves.cpp:
/// geometry, Whole; rows and columns outside the map are filled), so its
/// traces and writebacks address every CU's window alike. Any producer of
/// plain steps: a 1x1 stride-1 expansion, or a network's stem, a 3x3
/// stride-2 conv whose window of a tile at the map's edge starts with
/// input rows before the map (filled), computed and then zeroed with the
/// window's padding (MobileNet v1's conv1: 40 tiles in 14 rounds of one
/// shape, most of them giving one or two CUs work; now 32 in 8; 2026-12-05).
/// One pixel an entry or two (vmacp, or its second pixel group reading a
/// copy: the area's layout is the same; Lowerer::windowWriteBack keeps the
/// pixel a pair's zeros run into). The reader a depthwise conv, or a
/// framed pool (framedPoolReader: zeros stand for its fill).
bool snow::compiler::mixableWindows(const LayerPlan &Dn, const LayerPlan &Q,
                                    const CompileOptions &Opts) {
  return Opts.MixedWindows && ((Q.IsConv && Q.Depthwise) || Q.isPool()) && !Dn.Wide;
}

void snow::compiler::clipMixedRound(Round &Rd, const LayerPlan &Win, bool Clip) {
  if (!Rd.Mixed)
    return;
  // Each CU's traced rows and columns go to its window's place (its Top
  // and Left padding on); those past its own pixels land in its padding,
  // zeroed after the round's last band (Lowerer::windowWriteBack).
  std::optional<LayerPlan::WindowShape> First;
  bool Fits = Clip;
  for (const Work &W : Rd.Cus)
    if (W.active()) {
      const LayerPlan::WindowShape S = Win.windowShape(unsigned(W.Tile));
      First = First ? First : S;
      Fits &= S.Top + Rd.ExtR <= S.Height && S.Left + Rd.ExtC <= S.Width;
    }
  Rd.Clipped = Fits;
  if (!Fits) {
    Rd.ExtR = First->Height;
    Rd.ExtC = roundUp(First->Width, Win.pix());
  }
}

/// Win's tiles by the shape of their windows (LayerPlan::windowShape): compute
/// instructions address every CU's buffer alike, so a round's writebacks
/// and zeros land in the same places for all its CUs only if its tiles'
/// windows have one shape (Lowerer::windowWriteBack), or, Mixed, one
/// extent (their padding zeroed CU by CU). The border tiles of each kind,
/// the interior ones.
std::vector<std::vector<unsigned>> snow::compiler::windowGroups(const LayerPlan &Win, bool Mixed) {
  std::vector<std::pair<LayerPlan::WindowShape, std::vector<unsigned>>> Kinds;
  for (unsigned T = 0; T < Win.NTiles; ++T) {
    LayerPlan::WindowShape K = Win.windowShape(T);
    if (Mixed) // the extent only
      K = {0, 0, K.Height, 0, 0, K.Width};
    auto It = std::find_if(Kinds.begin(), Kinds.end(), [&](auto &E) { return E.first == K; });
    if (It == Kinds.end())
      Kinds.push_back({K, {T}});
    else
      It->second.push_back(T);
  }
  std::vector<std::vector<unsigned>> Out;
  for (auto &KT : Kinds)
    Out.push_back(std::move(KT.second));
  return Out;
}

/// What fusing layer Q with the 1x1 convs that read it (Fuse.cpp) saves at
/// most: its output's round trip through DRAM.
uint64_t snow::compiler::pairSaving(const LayerPlan &Q, const isa::HwConfig &Hw) {
  return timing::dmaChannelCycles(Hw, 4 * uint64_t(Q.Frames) * Q.L->Out.elems());
}

/// Whether plan D is a dense conv that can compute its reader's windows
/// into the area: one channel chunk, its own plan, no residual.
bool snow::compiler::windowProducer(const LayerPlan &D, const BufferMap &B, bool Chunked) {
  const ir::Layer &L = *D.L;
  return D.IsConv && !D.Depthwise && !D.Elementwise && !D.GroupChunks && !D.Dynamic && !D.ToMid &&
         !D.FromMid && D.FirstPart && D.LastPart && !D.OutIsSlice && D.BesideOf < 0 &&
         L.Groups == 1 && !L.HasResidual &&
         (Chunked || L.KH * L.KW * L.In.C + D.TailWords <= B.WCap);
}

namespace {

/// A window pair's plans (FuseWindows.cpp) and their estimate.
struct WindowPair {
  LayerPlan Producer, Reader;
  Cost Estimate;
};

/// Whether plan Q is a max or average pool that can read conv D's output
/// from the area as the conv's tiles: D of one output group (Gch), no
/// padding, and (no ceil mode) every window inside the map, as the conv
/// computes nothing else.
bool poolReader(const LayerPlan &Q, const LayerPlan &D, unsigned Gch) {
  const ir::Layer &L = *Q.L;
  return Q.isPool() && D.L->Out.C == Gch && Q.FirstPart && Q.LastPart && !Q.ToMid && !Q.FromMid &&
         Q.Frames == D.Frames && L.input() == int(D.Index) && L.In.C == D.L->Out.C && !L.PadT &&
         !L.PadB && !L.PadL && !L.PadR && (L.Out.H - 1) * L.SH + L.KH <= L.In.H &&
         (L.Out.W - 1) * L.SW + L.KW <= L.In.W;
}

} // namespace

/// Whether plan Q is a max or average pool that can read conv D's output
/// from the area in windows laid out as its input region would be (a
/// depthwise reader's layout), where its windows reach past the map
/// (padding, or a ceil mode's last window): the conv writes zeros there
/// (Lowerer::windowWriteBack). Zeros are an average pool's own fill; for a
/// max pool they stand for its fill (-32768) only where no value of D is
/// below zero (a ReLU and no table) and every window holds a pixel of the
/// map. D of at most one output group (Gch), its channels a pixel, or of
/// whole groups, one a CU, as a depthwise reader's chunks (LayerPlan::
/// framedPool).
bool snow::compiler::framedPoolReader(const LayerPlan &Q, const LayerPlan &D, unsigned Gch) {
  const ir::Layer &L = *Q.L, &DL = *D.L;
  if (!Q.isPool() || !Q.FirstPart || !Q.LastPart || Q.ToMid || Q.FromMid || Q.Frames != D.Frames ||
      L.input() != int(D.Index) || L.In.C != DL.Out.C || (DL.Out.C > Gch && DL.Out.C % Gch))
    return false;
  // Window y spans rows [y S - Pad, y S - Pad + K): the first and the last
  // must reach into the map.
  auto Covered = [](unsigned Out, unsigned S, unsigned K, unsigned Pad, unsigned In) {
    return K > Pad && (Out - 1) * S < In + Pad;
  };
  // Whether a window reaches past the map, where the pool reads zeros.
  auto Past = [](unsigned Out, unsigned S, unsigned K, unsigned Pad, unsigned In) {
    return Pad > 0 || (Out - 1) * S + K > In;
  };
  const bool Zeros =
      Past(L.Out.H, L.SH, L.KH, L.PadT, L.In.H) || Past(L.Out.W, L.SW, L.KW, L.PadL, L.In.W);
  return (!Zeros || L.Kind == ir::LayerKind::AvgPool || (DL.Relu && DL.QLut.empty())) &&
         Covered(L.Out.H, L.SH, L.KH, L.PadT, L.In.H) &&
         Covered(L.Out.W, L.SW, L.KW, L.PadL, L.In.W);
}

namespace {

/// How many layers of G read layer I's output as dense stride-1 1x1 convs
/// (what a fused pair's consumer is, Fuse.cpp).
unsigned pointwiseReaders(const ir::Graph &G, unsigned I) {
  unsigned N = 0;
  for (const ir::Layer &L : G.Layers)
    N += L.Kind == ir::LayerKind::Conv && L.input() == int(I) && pointwise(L);
  return N;
}

/// Whether every layer that reads layer I is a 1x1 conv (at least one)
/// and none of them is Taken: I may still fuse with them (Fuse.cpp).
bool pointwiseFree(const ir::Graph &G, const std::vector<unsigned> &Readers,
                   const std::vector<bool> &Taken, unsigned I) {
  bool Free = Readers[I] > 0 && Readers[I] == pointwiseReaders(G, I);
  for (const ir::Layer &L : G.Layers)
    Free &= L.input() != int(I) || !Taken[size_t(&L - G.Layers.data())];
  return Free;
}

/// Rounds for a window producer with a depthwise reader, and the reader
/// (the same for both; Win the producer): every tile takes its output
/// groups on CUs side by side, a round as many tiles as have all their
/// groups on its CUs, tiles of one window shape (windowGroups), or, Mixed,
/// of one extent: a producer's round whose windows then differ traces
/// them whole (Round::Mixed).
void windowRounds(LayerPlan &P, const LayerPlan &Win, unsigned NCu, bool Packed, bool Mixed,
                  bool Clip) {
  P.Rounds.clear();
  for (const std::vector<unsigned> &Tiles : windowGroups(Win, Mixed)) {
    // Each tile's output groups in turn, NCu of them a round: Packed, a
    // round may end inside a tile's groups (every CU busy, the windows
    // loaded again where a round's tiles change); otherwise as many whole
    // tiles' groups as fit a round.
    std::vector<Work> Items;
    const unsigned PerRound = Packed ? NCu : std::max(1u, NCu / P.NOg) * std::min(P.NOg, NCu);
    for (unsigned T : Tiles)
      for (unsigned Og0 = 0; Og0 < P.NOg; Og0 += NCu) {
        for (unsigned Og = Og0; Og < std::min(P.NOg, Og0 + NCu); ++Og)
          Items.push_back(Work{int(Og), int(T)});
        // Unpacked, a tile's groups beyond a round's CUs start a round.
        while (!Packed && Items.size() % PerRound && P.NOg > NCu)
          Items.push_back(Work());
      }
    for (size_t I = 0; I < Items.size(); I += PerRound) {
      Round Rd;
      for (size_t J = I; J < std::min(Items.size(), I + PerRound); ++J) {
        const Work W = Items[J];
        if (!W.active())
          continue;
        Rd.Cus[J - I] = W;
        Rd.ExtR = std::max(Rd.ExtR, P.validRows(unsigned(W.Tile)));
        Rd.ExtC = std::max(Rd.ExtC, P.validCols(unsigned(W.Tile)));
      }
      Rd.ExtC = roundUp(Rd.ExtC, P.pix()); // A multi-pixel trace takes pix() pixels.
      const LayerPlan::WindowShape First = Win.windowShape(unsigned(Rd.Cus[0].Tile));
      // (A producer in phases traces its whole windows in every round,
      // their own width: LayerPlan::phaseEntries.)
      Rd.Mixed = P.ToMid &&
                 (P.writesPhases() || std::any_of(Rd.Cus.begin(), Rd.Cus.end(), [&](const Work &W) {
                    return W.active() && Win.windowShape(unsigned(W.Tile)) != First;
                  }));
      clipMixedRound(Rd, Win, Clip && !P.writesPhases());
      if (P.writesPhases())
        Rd.ExtC = First.Width;
      P.Rounds.push_back(Rd);
    }
  }
}

/// The cheapest window pair of producer D and its reader Q (a pool or a
/// depthwise conv: poolReader, depthwiseReader), if any tile fits; with
/// Opts.PlanRank N (the producer's rankN), the N+1-th cheapest, or the last.
/// Chunked: a depthwise reader may take the producer's output groups of
/// half a group's channels as its chunks, whatever its channels
/// (producerPixLog).
std::optional<WindowPair> bestWindowPair(const LayerPlan &D, const LayerPlan &Q,
                                         const isa::HwConfig &Hw, const BufferMap &B,
                                         const CompileOptions &Opts, bool Chunked) {
  const ir::Layer &QL = *Q.L;
  const unsigned C = D.L->Out.C, NCu = Hw.cus(), Lanes = Hw.LanesPerVmac;
  const unsigned Gch = Hw.VmacsPerCu * Lanes;
  // A pool reading the conv's tiles (poolReader, a whole output group), or
  // windows laid out as its input region (framedPoolReader), as a depthwise
  // reader does.
  const bool Pool = poolReader(Q, D, Gch), Framed = Q.isPool() && !Pool;
  BufferMap DIn = B; // the producer's window: the first bank of either input region
  DIn.InCap = B.DwInCap;
  std::vector<WindowPair> Kept; // cheapest first
  // A producer of at most half an output group's channels (a network's
  // 32-channel stem), or of any number (Chunked: a depthwise reader taking
  // its output groups as chunks), may trace two pixels an entry
  // (producerPixLog, traceProducerWay): its reader's chunk is then 32
  // channels, 32 elements a pixel. (A Framed pool's chunk is then those 32
  // elements a pixel too.) Its second pixel group may read a copy of the
  // window instead, in the region's last bank where the area's other banks
  // hold the reader's windows (windowCopyBank).
  const unsigned MaxPix = Pool ? 0 : producerPixLog(C, Chunked, Hw, Opts);
  const unsigned CopyBank = windowCopyBank(Hw, B, Opts);
  const uint32_t Bank = Hw.mapsBankElems();
  // Reader tiles whose windows fit the area, a row of them the
  // accumulators.
  for (auto [Rq, Wq] : tileShapes(QL.Out.H, QL.Out.W, QL.Out.H * QL.Out.W))
    for (unsigned Way = 0; Way <= 2 * MaxPix; ++Way) {
      const unsigned PixLog = Way > 0;
      const bool Copy = Way == 2;
      LayerPlan Dn = windowPlan(D, 1);
      if (!traceProducerWay(Dn, Way, CopyBank, Hw, B, Opts))
        continue;
      BufferMap Area = B; // a depthwise reader's window: the area
      Area.InCap = Copy ? B.MidCap - Bank : B.MidCap;
      LayerPlan Qn = plainFusedPlan(Q, D.Index);
      Qn.FromMid = true;
      Qn.ReadsWindow = true;
      Dn.NOg = ceilDiv(C, Dn.ogChannels(Gch));
      if (Pool) {
        Qn.Chunk = C;
        Qn.NChunks = 1;
        const unsigned Rd = (Rq - 1) * QL.SH + QL.KH, Wd = (Wq - 1) * QL.SW + QL.KW;
        if (uint64_t(Rd) * Wd * C > Area.InCap || Wd > Hw.AccEntries ||
            uint64_t(Rq) * Wq * roundUp(C, Lanes) > B.OutCap)
          continue;
        setTile(Qn, Rq, Wq, 0, 0, B); // Qn reads the area, not a region.
      } else {
        Qn.Chunk = Dn.ogChannels(Gch);
        Qn.NChunks = Qn.NOg = ceilDiv(C, Qn.Chunk);
        // Half an output group's channels a pixel (the wide producer's
        // 32): with stride 1, vMACs past the first half read the next
        // pixel's channels (vdw's v x lanes offset), so an entry traces
        // two pixels and no lane idles (LayerPlan::PixLog on vdw).
        if (PixLog && dwPixelPairs(QL, Hw, Opts, Chunked))
          Qn.PixLog = 1;
        // Of stride 2, from windows in halves written by a copied
        // producer (LayerPlan::Halves).
        if (Copy && dwHalves(QL, Hw, Opts) && halvesTileFits(QL, Wq))
          Qn.PixLog = Qn.Halves = true;
        else if (Opts.ForceDwHalves && MaxPix && CopyBank && dwHalves(QL, Hw, Opts))
          continue;
        // A depthwise reader reads one chunk's window a step, laid out as
        // its own input region would be, in the area (windowRounds), with
        // an entry of slack after it (Lowerer::windowWriteBack).
        if (Qn.PoolBlock && (Rq % Qn.PoolBlock || Wq % Qn.PoolBlock))
          continue; // tiles of whole blocks (LayerPlan::PoolBlock)
        // A framed pool reads its lane words at the producer's pixel
        // stride (its chunk rounded up to lanes), and a lane word past it.
        if (Framed && Qn.pixelStride(0, Lanes) != Dn.ogChannels(Gch))
          continue;
        const unsigned Slack = (PixLog ? Gch : 0) + (Framed ? Lanes : 0);
        if (Qn.outElems(Rq, Wq, Gch) > B.OutCap ||
            !setTile(Qn, Rq, Wq, Qn.pixelStride(0, Lanes), Slack, Area) ||
            Qn.ColsIn > Hw.AccEntries)
          continue;
        if (Framed)
          Qn.Window.AreaCols = Qn.ColsIn; // Lowerer::poolLoop: rows ColsIn apart
      }
      // The producer's input is laid out as the reader's window, padding
      // included (Lowerer::loadRegion), in the first bank of either input
      // region. A window of the whole map (one tile, the producer's output
      // groups on CUs side by side: no halo computed twice) that does not
      // fit there may take a whole input region, its maps loaded once, the
      // area in the other (LayerPlan::FullDepth, as a full-depth pair's
      // producer; Sequence.cpp).
      if (!setTile(Dn, Qn.RowsIn, Qn.ColsIn, Dn.pixelStride(0, Lanes), 0, DIn)) {
        if (!Opts.WholeMapWindows || Qn.NTiles != 1 || Dn.NChunks != 1)
          continue;
        Dn.FullDepth = true;
        if (!setTile(Dn, Qn.RowsIn, Qn.ColsIn, Dn.pixelStride(0, Lanes), 0, B))
          continue;
      }
      // The copy's last vmax reads and writes a pooling unit's width past
      // the window and its copy, still in their banks (in halves, a copy
      // two pixels over).
      Dn.Halves = Qn.Halves;
      if (Copy && !Dn.copyFits(Dn.Chunk, Hw))
        continue;
      setWindow(Dn, Qn);
      if (Pool) {
        makeRounds(Dn, NCu, Packing::Tiles);
        makeRounds(Qn, NCu, Packing::Tiles);
      } else {
        Dn.Window.AreaCols = Qn.areaRowPixels();
      }
      // Rounds of windows of one shape, then (where the pair allows) of
      // one extent; a tie stays with the first.
      for (unsigned Way2 = 0; Way2 < 4; ++Way2) {
        const bool Packed = Way2 & 1, Mixed = Way2 & 2;
        if ((Pool && Packed) || (Mixed && (Pool || !mixableWindows(Dn, Q, Opts))) ||
            (Qn.Halves && !Mixed))
          continue;
        if (!Pool) {
          windowRounds(Dn, Dn, NCu, Packed, Mixed, Opts.ClippedWindows);
          windowRounds(Qn, Dn, NCu, Packed, Mixed, Opts.ClippedWindows);
          if (Mixed && !Dn.mixedRounds())
            continue; // the same rounds as above
        }
        Dn.SplitChannels = splitsChannels(Dn);
        Qn.SplitChannels = splitsChannels(Qn);
        Dn.CoWeights =
            Opts.ColocatedWeights && Opts.DoubleBuffer && colocatesWeights(Dn, Qn, B.WCap);
        const Cost Ct = windowPairCost(Dn, Qn, Hw);
        keepRanked(
            Kept, size_t(Opts.PlanRank) + 1, [&](const WindowPair &E) { return Ct < E.Estimate; },
            [&] {
              return WindowPair{Dn, Qn, Ct};
            });
      }
    }
  if (Kept.empty())
    return std::nullopt;
  return std::move(Kept.back());
}

/// bestWindowPair, recalled where the same pair was weighed before
/// (recallPair): weighing every window pair again in every compile was
/// three quarters of MobileNet v2's --tune search (2026-12-02).
std::optional<WindowPair> cachedWindowPair(const LayerPlan &D, const LayerPlan &Q,
                                           const isa::HwConfig &Hw, const BufferMap &B,
                                           const CompileOptions &DOpts, bool Chunked = false) {
  PairChoice C =
      recallPair(&PlanCache::WindowPairs, {&D, &Q}, DOpts, Chunked ? "chunked" : "", [&] {
        std::optional<WindowPair> Best = bestWindowPair(D, Q, Hw, B, DOpts, Chunked);
        return Best ? PairChoice{{std::move(Best->Producer), std::move(Best->Reader)},
                                 Best->Estimate.Cycles,
                                 Best->Estimate.Bytes}
                    : PairChoice{};
      });
  if (C.Plans.empty())
    return std::nullopt;
  return WindowPair{std::move(C.Plans[0]), std::move(C.Plans[1]), Cost(C.Cycles, C.Bytes, Hw)};
}

} // namespace

std::optional<uint64_t> snow::compiler::windowPairCycles(const LayerPlan &D, const LayerPlan &Q,
                                                         const isa::HwConfig &Hw,
                                                         const BufferMap &B,
                                                         const CompileOptions &DOpts) {
  std::optional<WindowPair> Best = cachedWindowPair(D, Q, Hw, B, DOpts);
  if (!Best)
    return std::nullopt;
  return Best->Estimate.Cycles;
}

void snow::compiler::fuseWindowPairs(const ir::Graph &G, const isa::HwConfig &Hw,
                                     const BufferMap &B, const CompileOptions &Opts,
                                     std::vector<LayerPlan> &Plans, const WholePlan &Whole) {
  if ((!Opts.FuseConvPools && !Opts.FuseExpansions) || !Opts.DoubleBuffer || !B.MidCap)
    return;
  const std::vector<unsigned> Readers = readerCounts(G);
  const unsigned Gch = Hw.VmacsPerCu * Hw.LanesPerVmac;
  // Last first: a pair's reader whose own 1x1 reader has become a window
  // producer already (MobileNet v1's conv2 depthwise conv, once conv2's
  // 1x1 conv computes conv3's windows) can no longer fuse with it.
  // Block triples (FuseBlocks.cpp, before) have taken theirs: a depthwise
  // conv whose 1x1 reader expands a triple cannot fuse with it.
  std::vector<bool> Taken(G.Layers.size(), false);
  for (const LayerPlan &P : Plans)
    Taken[P.Index] = Taken[P.Index] || P.ToMid || P.FromMid;
  for (size_t K = Plans.size() - 1; K-- > 0;) {
    // A conv planned in two parts (LayerPlan::RestTiles) is weighed in one,
    // as Whole plans it; [K, DEnd) holds its parts.
    const size_t DEnd = layerEnd(Plans, K);
    std::optional<LayerPlan> WholeD;
    if (Whole && DEnd - K == 2 && Plans[K + 1].RestTiles && Plans[K].FirstPart)
      WholeD = Whole(Plans[K]);
    const LayerPlan &D = WholeD ? *WholeD : Plans[K];
    if (!windowProducer(D, B) || Readers[D.Index] != 1)
      continue;
    // The reader, among the next few plans (the scheduler may have put
    // independent layers between, ShuffleNet's other branch): nothing runs
    // between the two halves of a pair, so those move after it if it fuses.
    const size_t J = readerAfter(Plans, DEnd, D.Index);
    if (J == Plans.size() || (J > DEnd && !Plans[J].FirstPart))
      continue;
    const LayerPlan &Q = Plans[J];
    // The producer's switches decide for the pair (CompileOptions::LayerOff).
    std::optional<CompileOptions> Own;
    const CompileOptions &DOpts = Opts.forLayer(*D.L, Own);
    const bool Pool = DOpts.FuseConvPools && (poolReader(Q, D, Gch) || framedPoolReader(Q, D, Gch));
    const bool Dw = DOpts.FuseExpansions && depthwiseReader(Q, D);
    if (!Pool && !Dw)
      continue;
    // Apart: the two as planned (a pool beside the conv, its windows
    // only). A reader whose own readers are all 1x1 convs, none taken yet,
    // may fuse with them instead (Fuse.cpp), which saves at most its
    // output's round trip through DRAM; fused here it cannot, so that
    // counts against this pair (a 3x3 average pool of stride 1 before a 1x1
    // conv computes most conv rows three times here, and loses).
    uint64_t Apart = cyclesBeside(Q, D.Index, Hw);
    uint64_t DCycles = 0;
    for (size_t I = K; I < DEnd; ++I) // Apart, D runs as planned.
      DCycles += Plans[I].EstCycles;
    if (pointwiseFree(G, Readers, Taken, Q.Index)) {
      // Where the reader has one 1x1 reader, the pair they would make: its
      // estimate less the 1x1 conv's own, not the reader's output's whole
      // round trip (the 1x1 conv's loads of it may hide under its traces;
      // MobileNet v1 on mini64, v2 on big1024 and zc706_paper took window
      // pairs that way, 2026-12-05). (Not with the channel the pair's first
      // group shares with D's stores, as block triples weigh it: MobileNet
      // v2's block 11 on zc706 then took a window pair, 6.4 k cycles slower.)
      const size_t R = readerAfter(Plans, J + 1, Q.Index);
      std::optional<PairEstimate> QPair;
      if (Readers[Q.Index] == 1 && R < Plans.size() && Plans[R].FirstPart && Plans[R].LastPart)
        QPair = depthwisePairCycles(Q, Plans[R], Hw, B, Opts);
      if (QPair)
        Apart = std::min(Apart + Plans[R].EstCycles, QPair->Cycles) -
                std::min(QPair->Cycles, Plans[R].EstCycles);
      else
        Apart -= std::min(Apart, pairSaving(Q, Hw));
    }
    Apart += DCycles;
    // Likewise, where the pair's rounds mix window shapes (a pair the
    // planner took only since 2026-12-03), a producer that is itself a 1x1
    // reader of a depthwise conv whose readers are all 1x1 convs, none
    // taken yet: that pair (Fuse.cpp) is lost too (MobileNet v1 at
    // 12.8 GB/s: conv2's 1x1 conv computing conv3's mixed windows broke
    // conv2's own pair and took conv1 into a window pair, 36.6 k cycles
    // lost). Not held against pairs of one shape, which may well be
    // cheaper than a pair Fuse.cpp would not make (big1024's stems).
    uint64_t LostPair = 0;
    if (D.L->input() >= 0) {
      const unsigned In = unsigned(D.L->input());
      const ir::Layer &IL = G.Layers[In];
      const bool Lost = IL.Kind == ir::LayerKind::Conv && IL.Groups > 1 && IL.Groups == IL.In.C &&
                        IL.Groups == IL.Out.C && !Taken[In] && pointwiseFree(G, Readers, Taken, In);
      for (size_t I = 0; Lost && I < K; ++I)
        if (Plans[I].Index == In && Plans[I].LastPart) {
          LostPair = pairSaving(Plans[I], Hw);
          break;
        }
    }
    // A depthwise reader whose readers are not all 1x1 convs (a squeeze-
    // and-excitation's pool reads EfficientNet-B0's) takes the producer's
    // output groups of half a group's channels as chunks (producerPixLog):
    // two pixels an entry fill the lanes of a 96- or 144-channel expansion
    // (EfficientNet-B0 2,941,298 -> 2,927,218 cycles on zc706, mini64
    // -78 k). Not where the depthwise conv could pair with its 1x1 readers
    // instead: that pair's estimate runs far over its cycles on mini64
    // (MobileNet v2's block2_dw: 152.6 k estimated, 93.2 k run), so the
    // window pair on pixel pairs won there on the estimate and ran 70 k
    // cycles slower (2026-12-04).
    const bool Chunked = Dw && !pointwiseFree(G, Readers, Taken, Q.Index);
    std::optional<WindowPair> Best = cachedWindowPair(D, Q, Hw, B, DOpts, Chunked);
    if (Best && Best->Producer.mixedRounds())
      Apart -= std::min(Apart, LostPair);
    // Only where it saves over 2 % of the layers apart, as a dense pair
    // (Fuse.cpp): a stem's mixed window pair, weighed 1.6 % under its
    // layers apart (a 41x36 map, its depthwise conv taken from its 1x1
    // reader), ran 5.4 % slower (Passes.AStemWindowRoundMixesPaddingShapes).
    if (!Best || !clearlyCheaper(Best->Estimate.Cycles, Apart))
      continue;
    std::vector<uint64_t> Shares;
    windowPairCost(Best->Producer, Best->Reader, Hw, &Shares);
    Best->Producer.EstCycles = Shares[0];
    Best->Producer.EstDramBytes = Best->Estimate.Bytes;
    Best->Reader.EstCycles = Shares[1];
    Best->Reader.EstDramBytes = 0; // all counted on the producer
    Taken[D.Index] = Taken[Q.Index] = true;
    Plans[J] = std::move(Best->Reader);
    std::rotate(Plans.begin() + long(DEnd), Plans.begin() + long(J), Plans.begin() + long(J) + 1);
    Plans[K] = std::move(Best->Producer);
    Plans.erase(Plans.begin() + long(K) + 1, Plans.begin() + long(DEnd));
  }
}
