//===- FuseBlocks.cpp - An inverted residual block on chip ----------------===//
//
// A window pair (FuseWindows.cpp) keeps an inverted residual block's
// expanded map on chip, a fused depthwise / 1x1 pair (Fuse.cpp) its
// depthwise output; the block's projection then still reads one of the two
// back from DRAM, twice the 6x-wide map of the block's channels. A block
// triple keeps both: per round (a group of tiles, one a CU, of one window
// shape) and output group c of the expansion, every CU
//
//   computes the expansion's group c over its tile's depthwise window into
//     the area (as a window pair's producer),
//   runs the depthwise conv's group c over it, writing its output tile
//     back into the area's end (LayerPlan::MidOut), a lane group a pixel,
//   and traces the projection over that tile as its input chunk c, into
//     accumulator entries from AccBase on, which the other two leave alone
//     (their bands use the entries below: LayerPlan::AccLimit);
//
// after the last group the projection writes back (with its residual) and
// stores. A chunk's whole output is thus summed in the accumulators, as a
// chunked conv's is; the area holds one window and one chunk's tile, not a
// tile's channels. The price: the expansion computes its windows' overlap
// twice, on tiles no larger than half the accumulators, and the
// projection's weights load a chunk a round. The expansion may also be a
// network's stem (a 3x3 conv of 32 channels, two pixels an entry, as a
// window pair's stem is). docs/compiler.md, step 9f.
//
//===----------------------------------------------------------------------===//

#include "Cost.h"
#include "Fuse.h"
#include "FuseTriple.h"
#include "FuseWindows.h"
#include "PlanKeys.h"
#include "Rounds.h"
#include "snow/isa/Timing.h"
#include <algorithm>
#include <optional>

using namespace snow;
using namespace snow::compiler;

namespace {

/// Whether P is a 1x1 conv that can read depthwise conv Q's output groups
/// as its channel chunks: a whole plan of at most MaxOut output channels
/// at a pixel a trace, no activation table (the other two's vluts come
/// between its first chunk's, which loads its table, and its writeback).
/// A tiled triple's holds one output group of its tile in the accumulators
/// (MaxOut: a group's channels); a split triple's runs its groups after
/// every round (FuseSplitTriple.cpp: any).
bool projectionReader(const LayerPlan &P, const LayerPlan &Q, unsigned MaxOut) {
  const ir::Layer &L = *P.L;
  return P.IsConv && !P.Depthwise && !P.Elementwise && !P.GroupChunks && !P.Dynamic &&
         pointwise(L) && P.FirstPart && P.LastPart && !P.ToMid && !P.FromMid && !P.PoolBlock &&
         P.BesideOf < 0 && L.input() == int(Q.Index) && L.In.C == Q.L->Out.C && L.Out.C <= MaxOut &&
         L.QLut.empty() && P.Frames == Q.Frames;
}

/// The rounds of a triple: per group of tiles whose windows have one shape
/// (Mixed: one extent), NCu of them a round, each output group of the
/// expansion in turn on every CU (Exp and Dw); the projection's round is
/// the group's, its steps the chunks.
void tripleRounds(LayerPlan &Exp, LayerPlan &Dw, LayerPlan &Proj, unsigned NCu, bool Mixed,
                  bool Clip) {
  Exp.Rounds.clear();
  Dw.Rounds.clear();
  Proj.Rounds.clear();
  for (const std::vector<unsigned> &Tiles : windowGroups(Exp, Mixed))
    for (size_t I = 0; I < Tiles.size(); I += NCu) {
      const size_t N = std::min<size_t>(NCu, Tiles.size() - I);
      Round Re, Rq, Rp;
      const LayerPlan::WindowShape First = Exp.windowShape(Tiles[I]);
      Re.Mixed = Exp.writesPhases(); // (a round of one shape too)
      for (size_t J = 0; J < N; ++J) {
        const unsigned T = Tiles[I + J];
        Rp.Cus[J] = Re.Cus[J] = Work{0, int(T)};
        Re.ExtR = std::max(Re.ExtR, Exp.validRows(T));
        Re.ExtC = std::max(Re.ExtC, Exp.validCols(T));
        Rq.ExtR = std::max(Rq.ExtR, Dw.validRows(T));
        Rq.ExtC = std::max(Rq.ExtC, Dw.validCols(T));
        Re.Mixed |= Exp.windowShape(T) != First;
      }
      Re.ExtC = roundUp(Re.ExtC, Exp.pix()); // A multi-pixel trace takes pix() pixels.
      clipMixedRound(Re, Exp, Clip && !Exp.writesPhases());
      if (Exp.writesPhases()) // its windows' columns, all (LayerPlan::phaseEntries)
        Re.ExtC = First.Width;
      // (its entries' pixels, as the expansion's; a banked pool's tile of a
      // width not a multiple of its banks a column or more wider, which the
      // projection computes and does not store)
      // (A quarters reader's, whole entries of each bank: eight columns.)
      Rq.ExtC = roundUp(Rq.ExtC, Dw.readsQuarters()         ? 8
                                 : Dw.isPool() && Dw.Banked ? Dw.bankSides()
                                                            : Dw.pix());
      Rp.ExtR = Rq.ExtR;
      Rp.ExtC = Rq.ExtC;
      for (unsigned Og = 0; Og < Dw.NOg; ++Og) {
        for (size_t J = 0; J < N; ++J)
          Re.Cus[J] = Rq.Cus[J] = Work{int(Og), int(Tiles[I + J])};
        Exp.Rounds.push_back(Re);
        Dw.Rounds.push_back(Rq);
      }
      Proj.Rounds.push_back(Rp);
    }
}

/// The cheapest triple of expansion E, depthwise conv Q and projection P,
/// if any tile fits: with the projection's tile in at most half the
/// accumulators (Half), or in more, as many as the producer's bands leave
/// (the tiles the half search did not weigh).
std::optional<Triple> bestTriple(const LayerPlan &E, const LayerPlan &Q, const LayerPlan &P,
                                 const isa::HwConfig &Hw, const BufferMap &B,
                                 const CompileOptions &Opts, bool Half) {
  const ir::Layer &QL = *Q.L;
  const unsigned C = E.L->Out.C, NCu = Hw.cus(), Lanes = Hw.LanesPerVmac;
  const unsigned Gch = Hw.VmacsPerCu * Lanes;
  BufferMap EIn = B; // the expansion's input window: the first bank of either input region
  EIn.InCap = B.DwInCap;
  BufferMap Any = B; // the projection loads no maps
  Any.InCap = UINT32_MAX;
  // A projection of at most half an output group's channels reads two
  // pixels a trace, one from each of two banks (LayerPlan::Banked, as a
  // fused pair's 1x1 conv does): the depthwise conv writes its tile's even
  // columns at the end of the area's first bank and its odd ones at the
  // same offsets in the second, and an entry holds two pixels.
  const uint32_t Bank = Hw.mapsBankElems();
  // A pool in the middle (framedPoolReader: a network's stem, its pool and
  // the 1x1 conv after it, SqueezeNet's conv1, pool1 and fire2's squeeze)
  // reads its windows as a depthwise conv would, a lane word past them, and
  // writes its output group with vmax windows, a lane group of the CU a
  // pixel (Lowerer::poolLoop), banked as a depthwise conv's output is; its
  // stem may trace two pixels an entry (of at most half a group's
  // channels, the pool's chunk), not copied: the pool has no pixel pairs.
  // On a map of odd width a banked tile of odd width is traced one column
  // more (tripleRounds), which the pool reads inside its window's rows.
  const bool Pool = Q.isPool();
  const bool CanBank = P.L->Out.C <= Gch / 2 && Opts.MultiPixel && Opts.BankedReads &&
                       Hw.MapsPortsPerBank && Hw.VmacsPerCu % 2 == 0 && B.MidOffset == Bank &&
                       B.MidCap >= 2 * Bank && (QL.Out.W % 2 == 0 || Pool);
  // The expansion may trace two pixels an entry, as a window pair's stem
  // does (FuseWindows.cpp: vmacp or wide traces, or its second pixel group
  // reading a copy of its input window in the region's last bank), in
  // output groups of half a group's channels: 96 channels in three groups
  // of 32, every lane busy, where groups of 64 leave a quarter idle
  // (MobileNet v2's block2, 134,960 -> 106,157 cycles on zc706; its 144
  // channels, 4.5 groups of 32 against 2.25 of 64, in block4). The
  // depthwise conv then reads each group as a chunk of its own (32
  // elements a pixel), one pixel an entry (half its lanes: the block's
  // stride-2 depthwise convs, +8.4 k and +4.3 k, cannot take two pixels an
  // entry), and its output goes to the projection as that chunk, an output
  // group a pixel (LayerPlan::MidPitch).
  const unsigned MaxPix = producerPixLog(C, /*Chunked=*/!Pool, Hw, Opts);
  const unsigned CopyBank = windowCopyBank(Hw, B, Opts);
  // Where the depthwise conv is of stride 1 and reads 32-channel chunks,
  // it may trace two pixels an entry too (its second pixel group reads the
  // next pixel's channels, as dwPixelPairs), writing its tile packed at
  // the end of the area's first bank; the projection (of at most half a
  // group's channels) then reads pixel pairs from it and from a copy one
  // pixel over at the same offset in the second bank, made by one-tap
  // vmax windows before each chunk's traces (LayerPlan::CopyBanks, as a
  // copied region's), where a banked projection needs the depthwise conv
  // one pixel an entry: its even and odd columns go to two banks, and one
  // vwb of a two-pixel entry cannot split them.
  // Of stride 2, the same from windows its copied expansion writes in
  // halves, even columns then odd (LayerPlan::Halves): MobileNet v2's
  // block2 and block4 depthwise convs on every lane.
  const bool Halves = !Pool && dwHalves(QL, Hw, Opts);
  const bool CanCopyOut =
      CanBank && MaxPix && CopyBank && (dwPixelPairs(QL, Hw, Opts, /*Chunked=*/true) || Halves);
  // A projection of at most a quarter of a group's channels may read four
  // pixels a trace from four banks, the depthwise conv (one pixel an entry)
  // or pool writing each bank's columns in turn to its end: the area then
  // straddles both input regions (LayerPlan::Straddles, as a concat
  // pair's: FuseConcat.cpp), the expansion's window in the second region
  // in its last bank (a bank written by the load unit and by the compute
  // unit at once faults), where a copy of it has no room.
  const bool CanBank4 =
      CanBank && P.L->Out.C <= Gch / 4 && fourBankAreas(Hw, B, Opts) && (QL.Out.W % 4 == 0 || Pool);
  // A window copy on four banks (the region's last bank being the area's):
  // the first region's window's copy goes to the area's second bank, before
  // its share of the tile, the second's (in that region's last bank, past
  // the area) to the second output region, past the projection's output
  // tile (LayerPlan::InSkew). Not with a residual, which the load unit
  // writes there. MobileNet v2's block1 on zc706: its stem on pixel pairs
  // and its 16-channel projection on four banks.
  const bool CopyFour = CanBank4 && CopyBank == 2 && !P.L->HasResidual &&
                        B.InBase[1] + B.InCap + (CopyBank - 1) * Bank == B.OutBase[1];
  // A stride-1 depthwise conv may also trace two pixels an entry for such
  // a projection, x and x + 4, where its producer writes its windows in
  // quarters (LayerPlan::Quarters): a copied producer on four banks, its
  // copy four pixels over (MobileNet v2's block1 on zc706).
  const bool Quarters = CopyFour && !Pool && dwQuarters(QL, Hw, Opts);
  const unsigned Outs = Quarters ? 5 : CanBank4 ? 4 : CanCopyOut ? 3 : CanBank ? 2 : 1;
  std::optional<Triple> Best;
  for (unsigned Out = 0; Out < Outs; ++Out) {
    // Plain, banked, copied, banked in four banks, or that in quarters.
    const bool Quart = Out == 4;
    const bool Banked = Out == 1 || Out == 3 || Quart, CopyOut = Out == 2, Four = Out >= 3;
    if (CopyOut && !CanCopyOut)
      continue;
    const unsigned BankLog = Four ? 2 : Out ? 1 : 0; // the tile's pixels in 2^BankLog banks
    // The tile at the end of each bank it spans (banked or copied).
    const bool AtBankEnds = BankLog > 0;
    // The projection's entries (2^BankLog pixels each) in half the
    // accumulators, or in all but those the producer's bands need (a row
    // of its window at least: Qn.ColsIn <= AccBase below).
    const unsigned HalfPixels = Hw.AccEntries / 2 << BankLog;
    for (auto [Rq, Wq] : tileShapes(QL.Out.H, QL.Out.W, Half ? HalfPixels : 2 * HalfPixels)) {
      if (!Half && Rq * Wq <= HalfPixels)
        continue; // weighed by the half search
      for (unsigned Way = 0; Way <= 2 * MaxPix; ++Way) {
        const unsigned PixLog = Way > 0;
        const bool Copy = Way == 2;
        if ((Copy && (!CopyBank || (Four && !CopyFour))) || Wq % (1u << BankLog) ||
            (CopyOut && !PixLog) || (CopyOut && Halves && !Copy) ||
            (Quart && (!Copy || !quartersTileFits(Wq))) ||
            (Opts.ForceDwQuarters && Quarters && !Quart) ||
            (Opts.ForceDwHalves && CanCopyOut && Halves && !(CopyOut && Copy)))
          continue;
        // The projection's tile in the accumulators' last entries, the depthwise
        // output tile at the area's end (banked: each half at the end of a
        // bank; copied, the tile and a pooling unit's width the copy runs
        // past it), the expansion's window before it.
        const unsigned AccBase = Hw.AccEntries - (Rq * Wq >> BankLog);
        const uint64_t Tile =
            uint64_t(Rq * Wq >> BankLog) * Gch + (CopyOut ? LayerPlan::copyWidth(Hw) : 0);
        if (Tile >= (AtBankEnds ? Bank : B.MidCap))
          continue;
        const uint32_t MidOut = (AtBankEnds ? Bank : B.MidCap) - uint32_t(Tile);
        BufferMap Area = B;
        // A copy lies at the start of the region's last bank (the area's bank
        // CopyBank - 1): the window keeps the banks before it, and the copy
        // ends before the tile's part in that bank, if it holds one.
        const uint32_t CopyAt = (CopyBank - 1) * Bank;
        // On four banks the window, and so its copy, lies past as many
        // elements as the projection's output tile (LayerPlan::InSkew): the
        // second region's window's copy lands in the second output region,
        // past that tile (CopyFour).
        const uint32_t Skew = Copy && Four ? uint32_t(Rq * Wq >> BankLog) * Gch : 0;
        const uint32_t CopyRoom = AtBankEnds
                                      ? (CopyBank == 2 ? MidOut - std::min(MidOut, Skew) : Bank)
                                      : std::min(Bank, MidOut - std::min(MidOut, CopyAt));
        Area.InCap = Copy ? std::min(MidOut, CopyAt) : MidOut;
        LayerPlan Qn = plainFusedPlan(Q, E.Index);
        Qn.FromMid = Qn.ReadsWindow = Qn.ToMid = true;
        Qn.MidOut = MidOut;
        Qn.AccLimit = AccBase;
        Qn.Banked = Banked;
        Qn.BankLog = std::max(1u, BankLog);
        Qn.Straddles = Four;
        Qn.Chunk = Pool ? std::min(C, Gch >> PixLog) : Gch >> PixLog;
        Qn.NChunks = Qn.NOg = ceilDiv(C, Qn.Chunk);
        Qn.PixLog = CopyOut || Quart;
        Qn.Halves = CopyOut && Halves;
        Qn.Quarters = Quart;
        if (Qn.Halves && !halvesTileFits(QL, Wq))
          continue;
        if (!setTile(Qn, Rq, Wq, Qn.pixelStride(0, Lanes), Pool ? Lanes : 0, Area) ||
            Qn.ColsIn > AccBase)
          continue;
        if (Pool)
          Qn.Window.AreaCols = Qn.ColsIn; // Lowerer::poolLoop: rows ColsIn apart
        LayerPlan En = windowPlan(E, Qn.NOg);
        En.AccLimit = AccBase;
        En.Straddles = Four;
        En.InSkew = Skew;
        if (!traceProducerWay(En, Way, CopyBank, Hw, B, Opts) ||
            !setTile(En, Qn.RowsIn, Qn.ColsIn, En.pixelStride(0, Lanes), 0, EIn))
          continue;
        En.Halves = Qn.Halves;     // its copy two pixels over
        En.Quarters = Qn.Quarters; // four
        // A pool reads its lane words at the producer's pixel stride.
        if (Pool && Qn.pixelStride(0, Lanes) != En.ogChannels(Gch))
          continue;
        if (Copy && (!En.copyFits(En.Chunk, Hw) ||
                     En.copyElems(En.Chunk) + En.copyShift(En.Chunk) + En.copyWidth(Hw) > CopyRoom))
          continue;
        setWindow(En, Qn);
        En.Window.AreaCols = Qn.areaRowPixels();
        LayerPlan Pn = plainFusedPlan(P, E.Index);
        Pn.FromMid = true;
        Pn.ToMid = Pn.ReadsWindow = Pn.StoresToo = Pn.PinWeights = Pn.WeightsOnce = false;
        Pn.PerBank = 0;
        Pn.MidOut = MidOut;
        Pn.AccBase = AccBase;
        Pn.Banked = Banked;
        Pn.BankLog = std::max(1u, BankLog);
        Pn.Straddles = Four;
        Pn.PixLog = BankLog;
        Pn.CopyBanks = CopyOut;
        Pn.Chunk = Qn.Chunk;
        Pn.MidPitch = Gch >> Qn.PixLog;
        Pn.NChunks = Qn.NOg;
        Pn.NOg = 1;
        Pn.OcBase = 0;
        Pn.OcCount = P.L->Out.C;
        setTile(Pn, Rq, Wq, Gch, 0, Any);
        for (unsigned Way = 0; Way < 2; ++Way) {
          // (In phases every round traces its whole windows, whose columns
          // land in every phase, Lowerer::windowWriteBack.)
          const bool Mixed = Way == 1;
          if ((Mixed && !mixableWindows(En, Q, Opts)) || (En.writesPhases() && !Mixed))
            continue;
          tripleRounds(En, Qn, Pn, NCu, Mixed, Opts.ClippedWindows);
          if (Mixed && !En.mixedRounds())
            continue;
          const Cost Ct = windowPairCost(En, Qn, Hw, nullptr, &Pn);
          if (!Best || Ct < Best->Estimate)
            Best = Triple{En, Qn, Pn, Ct};
        }
      }
    }
  }
  return Best;
}

/// bestTriple, recalled where the same three plans were weighed before
/// (recallTriple).
std::optional<Triple> cachedTriple(const LayerPlan &E, const LayerPlan &Q, const LayerPlan &P,
                                   const isa::HwConfig &Hw, const BufferMap &B,
                                   const CompileOptions &EOpts, bool Half) {
  return recallTriple(E, Q, P, Hw, EOpts, Half ? "half" : "",
                      [&] { return bestTriple(E, Q, P, Hw, B, EOpts, Half); });
}

} // namespace

std::optional<Triple>
snow::compiler::recallTriple(const LayerPlan &E, const LayerPlan &Q, const LayerPlan &P,
                             const isa::HwConfig &Hw, const CompileOptions &EOpts,
                             const std::string &Tag,
                             llvm::function_ref<std::optional<Triple>()> Search) {
  PairChoice C = recallPair(&PlanCache::BlockTriples, {&E, &Q, &P}, EOpts, Tag, [&] {
    std::optional<Triple> Best = Search();
    return Best ? PairChoice{{std::move(Best->Exp), std::move(Best->Dw), std::move(Best->Proj)},
                             Best->Estimate.Cycles,
                             Best->Estimate.Bytes}
                : PairChoice{};
  });
  if (C.Plans.empty())
    return std::nullopt;
  return Triple{std::move(C.Plans[0]), std::move(C.Plans[1]), std::move(C.Plans[2]),
                Cost(C.Cycles, C.Bytes, Hw)};
}

void snow::compiler::fuseBlockTriples(const ir::Graph &G, const isa::HwConfig &Hw,
                                      const BufferMap &B, const CompileOptions &Opts,
                                      std::vector<LayerPlan> &Plans, const WholePlan &Whole) {
  if (!Opts.FuseBlocks || !Opts.FuseExpansions || !Opts.DoubleBuffer || !B.MidCap)
    return;
  const std::vector<unsigned> Readers = readerCounts(G);
  const unsigned Gch = Hw.VmacsPerCu * Hw.LanesPerVmac;
  for (size_t K = 0; K + 2 < Plans.size(); ++K) {
    // An expansion planned in two parts (LayerPlan::RestTiles: MobileNet
    // v2's 64 -> 384 at 14x14, six output groups on four CUs) is weighed in
    // one, as fuseWindowPairs weighs it; [K, EEnd) holds its parts.
    const size_t EEnd = layerEnd(Plans, K);
    std::optional<LayerPlan> WholeE;
    if (Whole && EEnd - K == 2 && Plans[K + 1].RestTiles && Plans[K].FirstPart)
      WholeE = Whole(Plans[K]);
    const LayerPlan &E = WholeE ? *WholeE : Plans[K];
    // An expansion, or a network's stem (MobileNet v2's conv1 before
    // block1_dw and block1_project: 1,961,138 -> 1,922,876 cycles on zc706,
    // 2026-12-04, its 32 channels on two pixels an entry, from a copied
    // window; one pixel an entry, forced, +27 k: a 3x3 stride-2 conv's
    // windows on tiles no larger than half the accumulators overlap too
    // much at half the lanes, and the estimate says so). Where the
    // 1x1 conv does not widen the map (a ShuffleNet unit's branch, 58
    // channels) the round trip saved is too small to pay for the windows'
    // overlap: its stage-2 units took triples on the estimate, measured
    // 6.5 k cycles faster with the hardware's format but 2.3 k slower with
    // calibrated ones (2026-12-04).
    // (A split triple's expansion traces chunks: any input channels.)
    const bool Producer = windowProducer(E, B);
    if ((!Producer && !windowProducer(E, B, /*Chunked=*/true)) || Readers[E.Index] != 1)
      continue;
    // (A split triple computes no window twice: a 1x1 conv that does not
    // widen the map may start one, ShuffleNet v2's 7x7 units.)
    const bool Widens = E.L->Out.C > E.L->In.C;
    size_t J = readerAfter(Plans, EEnd, E.Index);
    if (J == Plans.size() || Readers[Plans[J].Index] != 1 ||
        !(depthwiseReader(Plans[J], E) || framedPoolReader(Plans[J], E, Gch)) || Plans[J].PoolBlock)
      continue;
    size_t J2 = readerAfter(Plans, J + 1, Plans[J].Index);
    if (J2 == Plans.size())
      continue;
    // (A projection planned in two parts, LayerPlan::RestTiles, is weighed
    // whole for a split triple, as the expansion is.)
    std::optional<LayerPlan> WholeP;
    if (Whole && layerEnd(Plans, J2) - J2 == 2 && Plans[J2 + 1].RestTiles && Plans[J2].FirstPart)
      WholeP = Whole(Plans[J2]);
    const LayerPlan &P = WholeP ? *WholeP : Plans[J2];
    const bool Plain = Producer && Widens && projectionReader(Plans[J2], Plans[J], Gch);
    const bool CanSplit = depthwiseReader(Plans[J], E) && projectionReader(P, Plans[J], UINT32_MAX);
    if (!Plain && !CanSplit)
      continue;
    // The plans between the three move after them: the projection's
    // residual must not be one of theirs.
    bool ResidualBetween = false;
    for (size_t I = K + 1; I < J2; ++I)
      ResidualBetween |= Plans[J2].L->HasResidual && Plans[J2].L->Residual == int(Plans[I].Index);
    if (ResidualBetween)
      continue;
    // The expansion's switches decide for the triple (CompileOptions::LayerOff).
    std::optional<CompileOptions> Own;
    const CompileOptions &EOpts = Opts.forLayer(*E.L, Own);
    if (!EOpts.FuseBlocks || !EOpts.FuseExpansions || (Plans[J].isPool() && !EOpts.FuseConvPools))
      continue;
    // Whether the triple pays is weighed with the projection's tile in half
    // the accumulators; once it does, its tiles may take more (below).
    std::optional<Triple> Best =
        Plain ? cachedTriple(E, Plans[J], Plans[J2], Hw, B, EOpts, true) : std::nullopt;
    std::optional<Triple> Split =
        CanSplit ? cachedSplitTriple(E, Plans[J], P, Hw, B, EOpts) : std::nullopt;
    if (!Best && !Split)
      continue;
    // Against the better of the two pairs the three could form instead:
    // the depthwise conv and the projection (Fuse.cpp), which saves at
    // most the depthwise output's round trip, or the expansion computing
    // the depthwise windows (FuseWindows.cpp, as it would weigh that pair)
    // with the projection apart. (Taking the expanded map's whole round trip
    // off instead, MobileNet v2's stride-2 blocks stayed apart: 26.2 k
    // cycles lost on zc706.)
    // The depthwise conv and the projection as that pair would run
    // (fusePairs), where one fits: its estimate, not what it saves at most
    // (the projection's loads of the depthwise output may hide under its
    // traces, and then the pair saves only the stores: MobileNet v2's 14x14
    // blocks, taken apart at 46.2 k cycles estimated, ran 62.7 k apart and
    // 54.5 k as triples, 2026-12-05).
    // That pair's first group of tiles loads as the expansion stores its
    // rows, beside those stores: where the two take the channel longer
    // than the expansion's estimate, the expansion runs that much longer
    // (33.3 k cycles against 23.5 k estimated, there).
    // The projection's other parts (RestTiles, or output channels past a
    // part's: MobileNet v2's block 17, 320 in two) run apart too; the
    // depthwise pair below plans it whole. (Without them its layers apart
    // were weighed at 93.0 k cycles, the window pair and the projection's
    // first 256 channels, and ran 120.6 k; split, 101.0 k.)
    uint64_t POther = 0;
    for (size_t I = J2 + 1; I < layerEnd(Plans, J2); ++I)
      POther += Plans[I].EstCycles;
    uint64_t Apart = cyclesBeside(Plans[J], E.Index, Hw) + Plans[J2].EstCycles + POther, EBytes = 0,
             ECycles = 0;
    for (size_t I = K; I < EEnd; ++I) // Apart, E runs as planned.
      EBytes += Plans[I].EstDramBytes, ECycles += Plans[I].EstCycles;
    if (std::optional<PairEstimate> DwPair =
            depthwisePairCycles(Plans[J], Plans[J2], Hw, B, Opts)) {
      const uint64_t Shared = timing::dmaChannelCycles(Hw, EBytes + DwPair->FirstLoadBytes);
      Apart = std::min(Apart, DwPair->Cycles + (Shared > ECycles ? Shared - ECycles : 0));
    } else {
      Apart -= std::min(Apart, pairSaving(Plans[J], Hw));
    }
    Apart += ECycles;
    if (std::optional<uint64_t> Pair = windowPairCycles(E, Plans[J], Hw, B, EOpts))
      Apart = std::min(Apart, *Pair + Plans[J2].EstCycles + POther);
    // A projection that could compute its own depthwise reader's windows
    // (MobileNet v1's conv2 1x1 conv, conv3's) loses that pair in a triple:
    // without this, MobileNet v1's stem, conv2_dw and conv2's 1x1 conv made
    // a triple on the estimate and ran 65 k cycles slower (2026-12-04).
    const size_t Next = readerAfter(Plans, J2 + 1, Plans[J2].Index);
    if (Next < Plans.size() && windowProducer(Plans[J2], B) && Readers[Plans[J2].Index] == 1 &&
        depthwiseReader(Plans[Next], Plans[J2]))
      if (std::optional<uint64_t> Pair2 = windowPairCycles(Plans[J2], Plans[Next], Hw, B, EOpts)) {
        const uint64_t Two = Plans[J2].EstCycles + Plans[Next].EstCycles;
        Apart -= std::min(Apart, Two - std::min(Two, *Pair2));
      }
    // Only where it saves over 2 % (as pairs): on narrow8 MobileNet v2's
    // stem triple, in mixed rounds, weighed 0.3 % under its layers apart
    // and ran 45 % over them (0.55 M cycles of waiting on DRAM in the stem
    // and the projection that the estimate does not see; 2026-12-05).
    // (A split triple is taken where the expansion asks for the writeback
    // across CUs, "sum", as --tune may: the estimate of its layers apart
    // may be far under their cycles, as MobileNet v2's block 17's was
    // before its projection's second part counted, 93.0 k against 120.6 k
    // run, where the split triple's, 99.0 k, ran 101.1 k.)
    const bool ForceSplit = Split && EOpts.ForceCuSums;
    const bool TakeSplit = Split && (ForceSplit || !Best || Split->Estimate < Best->Estimate);
    if (!clearlyCheaper((TakeSplit ? Split : Best)->Estimate.Cycles, Apart) &&
        !EOpts.ForceBlockTriples && !ForceSplit)
      continue;
    if (TakeSplit)
      Best = std::move(Split);
    // Its tiles then in as many accumulators as the producer's bands leave
    // (MobileNet v2 on zc706: the stem's 9x14 tiles 13x14, block3's 14x8
    // 12x14, less of each window computed twice; 1,785,432 -> 1,776,375
    // cycles). Not to decide on the triple: with the larger tiles narrow8's
    // stem triple (5x5 tiles) weighed 21 % under its layers apart and ran
    // 32 % over them, the stem's DRAM waits again unseen.
    if (EOpts.LargeTripleTiles && !TakeSplit)
      if (std::optional<Triple> Larger = cachedTriple(E, Plans[J], Plans[J2], Hw, B, EOpts, false);
          Larger && Larger->Estimate < Best->Estimate)
        Best = std::move(Larger);
    std::vector<uint64_t> Shares;
    if (TakeSplit)
      splitTripleCost(Best->Exp, Best->Dw, Best->Proj, Hw, &Shares);
    else
      windowPairCost(Best->Exp, Best->Dw, Hw, &Shares, &Best->Proj);
    Best->Exp.EstCycles = Shares[0];
    Best->Exp.EstDramBytes = Best->Estimate.Bytes;
    Best->Dw.EstCycles = Shares[1];
    Best->Proj.EstCycles = Shares[2];
    Best->Dw.EstDramBytes = Best->Proj.EstDramBytes = 0; // all counted on the expansion
    // The projection's and the expansion's other parts go: the triple's
    // are the whole layers.
    if (TakeSplit && WholeP)
      Plans.erase(Plans.begin() + long(J2) + 1);
    Plans.erase(Plans.begin() + long(K) + 1, Plans.begin() + long(EEnd));
    J -= EEnd - K - 1;
    J2 -= EEnd - K - 1;
    // The three together, the plans between them after.
    Plans[J2] = std::move(Best->Proj);
    std::rotate(Plans.begin() + long(J) + 1, Plans.begin() + long(J2),
                Plans.begin() + long(J2) + 1);
    Plans[J] = std::move(Best->Dw);
    std::rotate(Plans.begin() + long(K) + 1, Plans.begin() + long(J), Plans.begin() + long(J) + 2);
    Plans[K] = std::move(Best->Exp);
  }
}
