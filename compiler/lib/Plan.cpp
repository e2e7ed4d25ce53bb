//===- Plan.cpp - Workload breakdown: chunks, tiles, rounds, trace mode ---===//
//
// For each layer, enumerates channel-chunk counts and output tile shapes that
// fit the buffers (weights bank for the kernel chunk, accumulators and output
// region for the tile, input region for the tile's receptive field), the ways
// of packing work items into rounds (Rounds.h), both loop orders and, for
// convolutions whose channels leave lanes idle, multi-pixel traces over the
// whole layer or its remainder; each candidate is costed (Cost.h) and the
// cheapest kept.
//
//===----------------------------------------------------------------------===//

#include "Plan.h"
#include "Cost.h"
#include "PlanKeys.h"
#include "snow/isa/Timing.h"
#include <algorithm>
#include <cassert>
#include <fmt/format.h>
#include <optional>

using namespace snow;
using namespace snow::compiler;

static llvm::Error planError(const ir::Layer &L, const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: layer '%s': %s",
                                 L.Loc.str().c_str(), L.Name.c_str(), Msg.c_str());
}

/// Whether grouped conv L can run per group on vdw (LayerPlan::GroupK): as
/// many input as output channels per group, groups that do not straddle an
/// output group of G channels.
static bool groupedVdwFits(const ir::Layer &L, unsigned G) {
  if (L.Kind != ir::LayerKind::Conv || L.Groups <= 1 || L.In.C != L.Out.C)
    return false;
  const unsigned K = L.In.C / L.Groups;
  return K > 1 && G % K == 0;
}

/// How a grouped conv is lowered (groupedVdwFits for the last two).
enum class GroupMode {
  Dense,  ///< Zero cross-group weights (or a depthwise conv on vdw).
  Vdw,    ///< LayerPlan::GroupK shifted vdw passes.
  Chunks, ///< LayerPlan::GroupChunks.
};

/// How a plan's pixel groups read their maps (PixLog > 0).
enum class PixMode {
  Vmacp,  ///< vmacp, the groups' pixels next to each other.
  Wide,   ///< LayerPlan::Wide.
  Banked, ///< LayerPlan::Banked.
  Copied, ///< LayerPlan::CopyBanks.
};

/// Whether a Banked plan's region fits: each half (the even and the odd
/// columns, a padding column where the tile's width is odd) within a bank.
static bool bankedFits(const LayerPlan &P, unsigned Stride, const isa::HwConfig &Hw) {
  return P.ColsIn % 2 == 0 && uint64_t(P.RowsIn) * (P.ColsIn / 2) * Stride <= Hw.mapsBankElems();
}

/// Whether L is a depthwise conv whose entries may hold two pixels, where
/// Opts allow it: its vMACs in two pixel groups.
static bool pairableDepthwise(const ir::Layer &L, const isa::HwConfig &Hw,
                              const CompileOptions &Opts) {
  return Opts.MultiPixel && Opts.DwPixelPairs && L.Kind == ir::LayerKind::Conv && L.Groups > 1 &&
         L.Groups == L.In.C && L.Groups == L.Out.C && Hw.VmacsPerCu % 2 == 0;
}

bool snow::compiler::dwPixelPairs(const ir::Layer &L, const isa::HwConfig &Hw,
                                  const CompileOptions &Opts, bool Chunked) {
  const unsigned G = Hw.VmacsPerCu * Hw.LanesPerVmac;
  return pairableDepthwise(L, Hw, Opts) && (Chunked || L.Out.C <= G / 2) && L.SW == 1;
}

bool snow::compiler::dwHalves(const ir::Layer &L, const isa::HwConfig &Hw,
                              const CompileOptions &Opts) {
  return pairableDepthwise(L, Hw, Opts) && Opts.DwHalves && L.SW == 2 && L.KW > 1;
}

bool snow::compiler::dwQuarters(const ir::Layer &L, const isa::HwConfig &Hw,
                                const CompileOptions &Opts) {
  return pairableDepthwise(L, Hw, Opts) && Opts.DwQuarters && L.SW == 1 && L.KW <= 5 &&
         Hw.VmacsPerCu % 4 == 0;
}

/// Plans output channels [OcBase, OcBase + OcCount) of L with 2^PixLog-pixel
/// traces (PixLog > 0 for dense convs, read as Pix says, and PixLog 1 for
/// depthwise convs where dwPixelPairs allows), grouped convs as Mode says.
static llvm::Expected<std::pair<LayerPlan, Cost>>
planPart(const ir::Layer &L, unsigned Index, bool OutIsSlice, const isa::HwConfig &Hw,
         const BufferMap &B, const CompileOptions &Opts, unsigned OcBase, unsigned OcCount,
         unsigned PixLog, unsigned Frames, GroupMode Mode = GroupMode::Dense,
         PixMode Pix = PixMode::Vmacp, uint64_t OrderPenalty = 0, unsigned MinSteps = 0,
         uint64_t PrefetchWindow = UINT64_MAX) {
  LayerPlan P;
  P.PrefetchWindow = PrefetchWindow;
  P.Wide = Pix == PixMode::Wide && PixLog > 0;
  P.Banked = Pix == PixMode::Banked && PixLog == 1;
  P.CopyBanks = Pix == PixMode::Copied && PixLog == 1 ? 1 : 0; // the region's second bank
  P.L = &L;
  P.Frames = Frames;
  P.Index = Index;
  P.OutIsSlice = OutIsSlice;
  P.OcBase = OcBase;
  P.OcCount = OcCount;
  P.PixLog = PixLog;
  P.IsConv = L.Kind == ir::LayerKind::Conv;
  P.TailWords = 1 + (hasActivationTable(L) ? unsigned(timing::lutWords(Hw)) : 0);
  P.PadValue = L.Kind == ir::LayerKind::MaxPool ? INT16_MIN : 0;
  const unsigned NCu = Hw.cus(), Lanes = Hw.LanesPerVmac, G = Hw.VmacsPerCu * Lanes;
  const unsigned C = L.In.C, KK = L.KH * L.KW;

  // The cheapest choices so far, cheapest first: Opts.PlanRank + 1 of them
  // (CompileOptions::LayerOff); the plan is rebuilt from the last at the end.
  // A choice of a kept one's tiles and chunks, estimated exactly as it
  // (cycles and bytes), is not kept beside it: packings and loop orders
  // that give the same rounds (one tile a CU) would otherwise fill the
  // ranks the search tries with one plan (GoogLeNet's i4c 1x1s: ranks 0 to
  // 5). Other tiles estimated alike make other programs, and stay.
  struct Choice {
    unsigned R = 0, Wt = 0, Chunk = 0;
    bool MS = false, Full = false;
    Packing How = Packing::Tiles;
  };
  std::vector<std::pair<Cost, Choice>> Kept;
  const size_t Keep = size_t(Opts.PlanRank) + 1;
  // What a choice must beat to be kept.
  auto Bar = [&] { return Kept.size() < Keep ? Cost() : Kept.back().first; };
  auto Consider = [&](const Cost &Ct, const Choice &Ch) {
    if (!(Ct < Bar()) || std::any_of(Kept.begin(), Kept.end(), [&](const auto &E) {
          const Choice &K = E.second;
          return E.first.Cycles == Ct.Cycles && E.first.Bytes == Ct.Bytes && K.R == Ch.R &&
                 K.Wt == Ch.Wt && K.Chunk == Ch.Chunk && K.Full == Ch.Full;
        }))
      return;
    keepRanked(
        Kept, Keep, [&](const auto &E) { return Ct < E.first; },
        [&] { return std::make_pair(Ct, Ch); });
  };
  // A dense conv's cost with OrderPenalty where its rounds complete rows
  // (and a batch's frames) only at the end: packed by tile size, or a
  // kernel-stationary order of several output groups (rows are whole in
  // its last group's pass). A pool beside the conv then waits (GoogLeNet's
  // pool3 part of its 3x3 branch, at batch 1: 32.6 k cycles).
  auto Penalized = [&](const Cost &Ct, Packing How, bool MS) {
    const bool Late = How == Packing::Balanced || (!MS && P.NOg > 1 && P.NTiles > 1);
    return Late && OrderPenalty ? Cost(Ct.Cycles + OrderPenalty, Ct.Bytes, Hw) : Ct;
  };
  // Whether a plan whose cost is at least Bound can still be chosen (ties
  // in Score go to fewer cycles, so only a greater Score rules it out).
  auto CanWin = [&](const Cost &Bound) { return !(Bar().Score < Bound.Score); };

  P.Depthwise = P.IsConv && L.Groups > 1 && L.Groups == C && L.Groups == L.Out.C;
  P.PoolBlock = P.Depthwise ? hostBlock(L, Opts) : 0;
  P.Dynamic = L.DynamicWeights;
  if (Mode == GroupMode::Vdw) {
    assert(groupedVdwFits(L, G) && "planLayer checks the grouping");
    P.Depthwise = true;
    P.GroupK = C / L.Groups;
    P.InSkew = P.GroupK - 1;
  }
  P.Elementwise =
      L.Kind == ir::LayerKind::Add || L.Kind == ir::LayerKind::Mul || L.Kind == ir::LayerKind::Relu;
  // Per-channel-group layers (depthwise, elementwise, pooling): CUs take
  // different tiles of one group; output group g reads chunk g.
  unsigned Stride = 0, Extra = 0;
  if (P.Elementwise) {
    // Operands go to the input region as accumulator-sized entries (one per
    // pixel, a group of channels each); an add or mul needs room for both,
    // unless they are one tensor.
    const unsigned Operands = P.sameOperands() ? 1 : unsigned(L.Inputs.size());
    P.NOg = ceilDiv(L.Out.C, G);
    P.Chunk = G;
    P.NChunks = P.NOg;
    Stride = G * Operands;
    unsigned PMax = std::min({Hw.AccEntries, B.OutCap / G, B.InCap / (G * Operands), 4095u});
    for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax)) {
      if (!setTile(P, R, Wt, Stride, 0, B))
        continue;
      makeRounds(P, NCu, Packing::Tiles);
      Consider(elementwiseCost(P, Operands, Hw), {R, Wt, G});
    }
  } else if (P.Depthwise) {
    if (KK * P.passes() + P.TailWords > B.WCap)
      return planError(L,
                       fmt::format("a {}x{} depthwise kernel ({} passes) needs {} weight "
                                   "words per vMAC, but a weights bank holds {}",
                                   L.KH, L.KW, P.passes(), KK * P.passes() + P.TailWords, B.WCap));
    // PixLog 1 (dwPixelPairs): half an output group's channels a pixel.
    P.Chunk = P.ogChannels(G);
    P.NOg = ceilDiv(L.Out.C, P.Chunk);
    P.NChunks = P.NOg;
    Stride = P.Chunk;
    Extra = 2 * P.InSkew;
    // A depthwise tile may outgrow the accumulators: it is traced and
    // written back in bands of whole rows (LayerPlan::bandRows), so only
    // a row must fit them; the output region bounds it. Bigger tiles load
    // less halo, which is what a depthwise conv (DRAM-bound) pays for. Not
    // for grouped convs' shifted passes, bound by their traces (ResNeXt-50
    // lost 14 k cycles to bigger tiles).
    unsigned PMax = std::min(B.OutCap / G, 4095u);
    if (P.GroupK > 1)
      PMax = std::min(PMax, Hw.AccEntries);
    for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax)) {
      // A conv averaging blocks for the pool it hosts: tiles of whole
      // blocks, their means after them in the output region.
      if (P.PoolBlock && (R % P.PoolBlock || Wt % P.PoolBlock || P.outElems(R, Wt, G) > B.OutCap))
        continue;
      if (Wt > Hw.AccEntries || !setTile(P, R, Wt, Stride, Extra, B) ||
          !CanWin(transferBound(P, Hw)))
        continue;
      // CUs take tiles of one output group a round, or (fewer tiles than
      // CUs: EfficientNet-B0's 7x7 maps of 1,152 channels, one tile) output
      // groups of their own, each loading its own chunk of the tile. A tie
      // (the channel bounds both) goes to the packing tried first: the one
      // that fills the CUs.
      const bool FewTiles = P.NTiles < NCu;
      for (Packing How : {FewTiles ? Packing::Channels : Packing::Tiles, Packing::Mixed,
                          FewTiles ? Packing::Tiles : Packing::Channels}) {
        if (How != Packing::Tiles && (NCu == 1 || P.NOg == 1 || !Opts.SplitChannels ||
                                      (How == Packing::Mixed && P.NTiles == 1)))
          continue;
        makeRounds(P, NCu, How);
        Consider(depthwiseCost(P, Hw), {R, Wt, P.Chunk, false, false, How});
      }
    }
  } else if (Mode == GroupMode::Chunks) {
    // Output group c reads only input channels [c * G, (c + 1) * G) (L has
    // as many input as output channels, and no group straddles G), in the
    // widest chunks that divide G and fit a weights bank.
    assert(groupedVdwFits(L, G) && "planLayer checks the grouping");
    P.GroupChunks = true;
    P.NOg = ceilDiv(L.Out.C, G);
    P.Chunk = G;
    while (P.Chunk > 1 && (KK * P.Chunk + P.TailWords > B.WCap || G % P.Chunk != 0))
      --P.Chunk;
    if (KK * P.Chunk + P.TailWords > B.WCap)
      return planError(L, "a kernel of one channel does not fit a weights bank");
    P.NChunks = ceilDiv(C, P.Chunk);
    P.OgSpan = G / P.Chunk;
    Stride = P.Chunk;
    unsigned PMax = std::min({Hw.AccEntries, B.OutCap / G, 4095u});
    for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax)) {
      if (!setTile(P, R, Wt, Stride, 0, B))
        continue;
      makeRounds(P, NCu, Packing::Tiles);
      Consider(groupChunksCost(P, Hw), {R, Wt, P.Chunk});
    }
  } else if (P.IsConv) {
    // Weight words per input channel of a block: KH x KW taps, or a wide
    // trace's widened rows.
    const unsigned KKw = L.KH * P.traceCols();
    if (KKw + P.TailWords > B.WCap)
      return planError(L, fmt::format("a {}x{} kernel needs {} weight words per vMAC, but a "
                                      "weights bank holds {}",
                                      L.KH, P.traceCols(), KKw + P.TailWords, B.WCap));
    P.NOg = ceilDiv(OcCount, P.ogChannels(G));
    if (Opts.GatherStrided && KK == 1 && (L.SH > 1 || L.SW > 1) && !L.PadT && !L.PadB && !L.PadL &&
        !L.PadR) {
      P.StepY = L.SH;
      P.StepX = L.SW;
    }
    std::vector<Packing> Packings = {Packing::Tiles};
    if (NCu > 1 && Opts.SplitChannels) {
      if (P.NOg > 1)
        Packings.push_back(Packing::Channels);
      Packings.push_back(Packing::Mixed);
    }
    if (NCu > 1 && Opts.BalanceRounds)
      Packings.push_back(Packing::Balanced);
    const unsigned PMax = std::min({Hw.AccEntries, B.OutCap / G, 4095u}) * P.pix();
    const unsigned MinChunks = ceilDiv(C, (B.WCap - P.TailWords) / KKw);
    // A tile shape and loop order to weigh: its entries within the
    // accumulators, and map-stationary only where that is another order.
    auto Shape = [&](unsigned R, unsigned Wt, bool MS) {
      if (R * roundUp(Wt, P.pix()) > PMax)
        return false;
      setTile(P, R, Wt, 0, 0, B);
      // With one output group or one tile both loop orders are the same.
      return !MS || (Opts.LoopReorder && P.NOg > 1 && P.NTiles > 1);
    };
    // Every CU on one item, each tracing a share of its input chunks, the
    // writeback adding them up (LayerPlan::Parts): weighed only where
    // Replan.cpp's planCuSums asks, for a conv that runs alone. Chunks of
    // one size, as many as CUs or a multiple. (ForceCuSums, for tests: the
    // other plans only where none of these fits.)
    // (Multi-pixel traces too, each pixel group reading its own pixel of
    // the CU's chunk; not banked, wide or copied regions, laid out for a
    // chunk of all CUs.)
    if (Opts.PartPlans && NCu > 1 && Hw.CuSumWriteback && !P.Wide && !P.Banked && !P.CopyBanks &&
        !L.HasResidual && L.Groups == 1) {
      P.Parts = NCu;
      for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax))
        for (bool MS : {false, true}) {
          if (!Shape(R, Wt, MS))
            continue;
          P.MapStationary = MS;
          const RoundSummary S = summarizeRounds(P, NCu, Packing::Parts);
          for (unsigned N = roundUp(MinChunks, NCu), Tried = 0; N <= C && Tried < 3; N += NCu) {
            if (C % N)
              continue;
            ++Tried;
            P.Chunk = C / N;
            P.NChunks = N;
            P.FullDepth = false;
            if (!setTile(P, R, Wt, P.Chunk, 0, B))
              continue;
            Consider(Penalized(convCost(P, S, Hw, Bar().Score), Packing::Parts, MS),
                     {R, Wt, P.Chunk, MS, false, Packing::Parts});
          }
        }
      P.Parts = 1;
    }
    const bool PartsOnly = Opts.ForceCuSums && Opts.PartPlans && !Kept.empty();
    const auto Shapes = PartsOnly ? std::vector<std::pair<unsigned, unsigned>>()
                                  : tileShapes(L.Out.H, L.Out.W, PMax);
    for (auto [R, Wt] : Shapes)
      for (bool MS : {false, true}) {
        if (!Shape(R, Wt, MS))
          continue;
        for (Packing How : Packings) {
          // Skip packings that give the same rounds as another: Mixed is
          // Tiles with one output group and Channels with one tile;
          // Balanced is Mixed when every tile has the same size.
          if (How == Packing::Mixed && (P.NOg == 1 || P.NTiles == 1))
            continue;
          if (How == Packing::Balanced && L.Out.H % R == 0 && L.Out.W % Wt == 0)
            continue;
          P.MapStationary = MS;
          const RoundSummary S = summarizeRounds(P, NCu, How);
          unsigned LastChunk = 0;
          for (unsigned N = MinChunks; N <= C && N < MinChunks + 4; ++N) {
            P.Chunk = ceilDiv(C, N);
            if (P.Chunk == LastChunk)
              continue;
            LastChunk = P.Chunk;
            P.NChunks = ceilDiv(C, P.Chunk);
            for (bool Full : {false, true}) {
              // Full-depth tiles need a one-pixel-wide kernel (each trace row
              // is then one contiguous run of a chunk's channels) and several
              // chunks.
              if (Full && (L.KW != 1 || P.NChunks == 1 || !Opts.FullDepthMaps))
                continue;
              P.FullDepth = Full;
              if (!setTile(P, R, Wt, Full ? C : P.Chunk, 0, B) ||
                  (P.Banked && !bankedFits(P, Full ? C : P.Chunk, Hw)) ||
                  (P.CopyBanks && (Full || !P.copyFits(P.Chunk, Hw))))
                continue;
              Consider(Penalized(convCost(P, S, Hw, Bar().Score), How, MS),
                       {R, Wt, P.Chunk, MS, Full, How});
            }
          }
        }
      }
  } else {
    unsigned LastStride = 0;
    for (unsigned N = 1; N <= ceilDiv(C, Lanes); ++N) {
      P.Chunk = N == 1 ? C : roundUp(ceilDiv(C, N), Lanes);
      P.NChunks = ceilDiv(C, P.Chunk);
      unsigned S = roundUp(P.Chunk, Lanes);
      if (S == LastStride)
        continue;
      LastStride = S;
      unsigned PMax = std::min(B.OutCap / S, 4095u);
      for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax)) {
        if (!setTile(P, R, Wt, S, Lanes, B) || !CanWin(transferBound(P, Hw)))
          continue;
        makeRounds(P, NCu, Packing::Tiles);
        if (P.Rounds.size() * P.NChunks < MinSteps)
          continue; // Too coarse to run beside a conv (planPoolBeside).
        Consider(poolCost(P, Hw), {R, Wt, P.Chunk});
      }
      if (!Kept.empty()) {
        Stride = S;
        Extra = Lanes;
        break;
      }
    }
  }
  if (Kept.empty())
    return planError(L, fmt::format("even a 1x1 output tile needs a {}x{} input window that does "
                                    "not fit the {}-element input region of the maps buffer",
                                    L.KH, L.KW, B.InCap));
  // Rebuild the chosen plan.
  Cost BestCost = Kept.back().first;
  const Choice Best = Kept.back().second;
  P.Chunk = Best.Chunk;
  P.NChunks = ceilDiv(C, P.Chunk);
  if (P.Depthwise || P.Elementwise)
    P.NChunks = P.NOg;
  P.FullDepth = Best.Full;
  P.MapStationary = Best.MS;
  if (P.IsConv && !P.Depthwise)
    Stride = Best.Full ? C : P.Chunk;
  P.Parts = Best.How == Packing::Parts ? NCu : 1;
  bool Fits = setTile(P, Best.R, Best.Wt, Stride, Extra, B);
  assert(Fits && "the chosen tile was checked when it was considered");
  (void)Fits;
  makeRounds(P, NCu, Best.How);
  // Row blocks of even sizes (LayerPlan::EvenRows) on the tile chosen,
  // where the cost model says that pays (the rounds of a short last row
  // block leave CUs idle). Weighed over every tile shape, the estimate
  // chose shapes that lost: ResNet-50 +43 k cycles, MobileNet v2 +49 k.
  if (Opts.EvenRows && L.Out.H % P.R != 0 && !P.Elementwise && P.GroupK <= 1 && !P.GroupChunks &&
      !P.PoolBlock) {
    LayerPlan Even = P;
    Even.EvenRows = true;
    makeRounds(Even, NCu, Best.How);
    const Cost Ct = !P.IsConv ? poolCost(Even, Hw)
                    : P.Depthwise
                        ? depthwiseCost(Even, Hw)
                        : Penalized(convCost(Even, summarize(Even, NCu), Hw, BestCost.Score),
                                    Best.How, Best.MS);
    if (Ct < BestCost) {
      BestCost = Ct;
      P = std::move(Even);
    }
  }
  P.Balanced = Best.How == Packing::Balanced;
  P.SplitChannels = splitsChannels(P);
  P.EstCycles = BestCost.Cycles;
  P.EstDramBytes = BestCost.Bytes;
  return std::make_pair(std::move(P), BestCost);
}

/// planLayer, searched afresh.
static llvm::Expected<std::vector<LayerPlan>>
planFresh(const ir::Layer &L, unsigned Index, bool OutIsSlice, const isa::HwConfig &Hw,
          const BufferMap &B, const CompileOptions &Opts, unsigned Frames, uint64_t SplitPenalty,
          uint64_t PrefetchWindow) {
  const unsigned V = Hw.VmacsPerCu, G = V * Hw.LanesPerVmac, Cout = L.Out.C;
  auto Whole = planPart(L, Index, OutIsSlice, Hw, B, Opts, 0, Cout, 0, Frames, GroupMode::Dense,
                        PixMode::Vmacp, SplitPenalty, 0, PrefetchWindow);
  if (!Whole)
    return Whole.takeError();
  std::vector<LayerPlan> Best;
  Best.push_back(std::move(Whole->first));
  Cost BestCost = Whole->second;
  // Forced (tests): the whole layer with its CUs splitting the chunks, if
  // that fits (planPart weighed only those then).
  if (Opts.ForceCuSums && Opts.PartPlans && Best.front().Parts > 1)
    return Best;
  // A grouped conv per group on vdw, if that is cheaper than the best dense
  // plan (which then is the whole layer: a grouped conv has no remainder
  // worth multi-pixel traces that would beat it).
  auto TryGroupedVdw = [&] {
    if (!Opts.GroupedVdw || !groupedVdwFits(L, G))
      return;
    for (GroupMode Mode : {GroupMode::Vdw, GroupMode::Chunks}) {
      auto Gv = planPart(L, Index, OutIsSlice, Hw, B, Opts, 0, Cout, 0, Frames, Mode,
                         PixMode::Vmacp, 0, 0, PrefetchWindow);
      if (!Gv) {
        llvm::consumeError(Gv.takeError()); // Too many passes for a weights bank.
        continue;
      }
      if (Gv->second < BestCost) {
        BestCost = Gv->second;
        Best.clear();
        Best.push_back(std::move(Gv->first));
      }
    }
  };
  // A layer in two parts over its output channels, if their sum beats the
  // best so far.
  auto TryParts = [&](LayerPlan A, LayerPlan Rest, const Cost &Sum, bool RestTiles) {
    if (!(Sum < BestCost))
      return;
    BestCost = Sum;
    Best = {std::move(A), std::move(Rest)};
    Best[0].LastPart = false;
    Best[1].FirstPart = false;
    Best[1].RestTiles = RestTiles;
  };
  const bool Dense = L.Kind == ir::LayerKind::Conv && !Best[0].Depthwise;
  // Output groups that do not fill whole rounds of CUs (GoogLeNet's 7x7
  // convs of five and six groups on four CUs): the groups of whole rounds
  // on the tiles they take best, the rest on tiles of their own, so that
  // their items fill the CUs of their rounds too.
  const unsigned NCu = Hw.cus(), NOg = ceilDiv(Cout, G);
  if (Opts.RemainderTiles && Dense && NCu > 1 && NOg > NCu && NOg % NCu != 0) {
    const unsigned WholeRounds = NOg / NCu * NCu * G;
    auto A = planPart(L, Index, OutIsSlice, Hw, B, Opts, 0, WholeRounds, 0, Frames,
                      GroupMode::Dense, PixMode::Vmacp, SplitPenalty, 0, PrefetchWindow);
    auto Rest =
        planPart(L, Index, OutIsSlice, Hw, B, Opts, WholeRounds, Cout - WholeRounds, 0, Frames);
    if (A && Rest) {
      const Cost Sum{A->second.Cycles + Rest->second.Cycles + SplitPenalty,
                     A->second.Bytes + Rest->second.Bytes, Hw};
      TryParts(std::move(A->first), std::move(Rest->first), Sum, /*RestTiles=*/true);
    } else {
      if (!A)
        llvm::consumeError(A.takeError());
      if (!Rest)
        llvm::consumeError(Rest.takeError());
    }
  }
  // Multi-pixel traces are for lanes that would idle: output channels that
  // do not fill whole groups of vmacs x lanes.
  // A depthwise conv of at most half an output group's channels traces two
  // pixels an entry where that is cheaper (dwPixelPairs).
  if (Best.size() == 1 && Best[0].Depthwise && dwPixelPairs(L, Hw, Opts)) {
    auto Two = planPart(L, Index, OutIsSlice, Hw, B, Opts, 0, Cout, 1, Frames, GroupMode::Dense,
                        PixMode::Vmacp, SplitPenalty, 0, PrefetchWindow);
    if (!Two)
      return Two.takeError();
    if (!(BestCost < Two->second)) { // a tie too: fewer traces, the channel the bound
      BestCost = Two->second;
      Best[0] = std::move(Two->first);
    }
  }
  if (!Dense || !Opts.MultiPixel || Cout % G == 0) {
    TryGroupedVdw();
    return Best;
  }
  // The whole layer with 2^K pixels per trace, or whole output groups of one
  // pixel and the remaining channels with 2^K pixels.
  const unsigned Whole1 = Cout / G * G;
  std::optional<std::pair<LayerPlan, Cost>> WholeGroups;
  if (Whole1 > 0) {
    auto A = planPart(L, Index, OutIsSlice, Hw, B, Opts, 0, Whole1, 0, Frames, GroupMode::Dense,
                      PixMode::Vmacp, SplitPenalty, 0, PrefetchWindow);
    if (!A)
      return A.takeError(); // The whole layer planned, so should its first groups.
    WholeGroups = std::move(*A);
  }
  // Wide traces only where vmacp steps are slow (fewer read ports than
  // pixels) and the pixels' windows overlap (a kernel wider than a column);
  // banked regions where they are slow and the kernel is one pixel (its
  // region is the tile, split by columns over two banks).
  const bool OnePixel =
      L.KH == 1 && L.KW == 1 && L.SH == 1 && L.SW == 1 && !L.PadT && !L.PadB && !L.PadL && !L.PadR;
  for (unsigned K = 1; (1u << K) <= V; ++K)
    for (PixMode Pix : {PixMode::Vmacp, PixMode::Wide, PixMode::Banked, PixMode::Copied}) {
      const bool Slow = Hw.MapsReadPorts < (1u << K);
      if (V % (1u << K) != 0 ||
          (Pix == PixMode::Wide && (!Opts.WideTraces || !Slow || L.KW <= L.SW)) ||
          (Pix == PixMode::Banked &&
           (!Opts.BankedReads || !Hw.MapsPortsPerBank || !Slow || K != 1 || !OnePixel)) ||
          (Pix == PixMode::Copied && (!Opts.CopiedWindows || !Hw.MapsPortsPerBank || !Slow ||
                                      K != 1 || L.KW <= L.SW || B.InCap < 2 * Hw.mapsBankElems())))
        continue;
      auto One = planPart(L, Index, OutIsSlice, Hw, B, Opts, 0, Cout, K, Frames, GroupMode::Dense,
                          Pix, SplitPenalty, 0, PrefetchWindow);
      if (One && One->second < BestCost) {
        BestCost = One->second;
        Best.clear();
        Best.push_back(std::move(One->first));
      } else if (!One) {
        llvm::consumeError(One.takeError()); // This mode does not fit; others do.
      }
      // Not a banked remainder: the split it makes worth taking costs more
      // than the model sees where the map is small (MobileNet v2's 7x7
      // 160-channel projections: 3.7 k cycles more each, and their
      // neighbours as much again), though GoogLeNet's 28x28 and 14x14
      // remainders would save 31 k cycles (docs/compiler-costs.md).
      if (!WholeGroups || Pix == PixMode::Banked)
        continue;
      auto Rest = planPart(L, Index, OutIsSlice, Hw, B, Opts, Whole1, Cout - Whole1, K, Frames,
                           GroupMode::Dense, Pix);
      if (!Rest) {
        llvm::consumeError(Rest.takeError());
        continue;
      }
      const auto &[A, ACost] = *WholeGroups;
      const Cost Sum{ACost.Cycles + Rest->second.Cycles + SplitPenalty,
                     ACost.Bytes + Rest->second.Bytes, Hw};
      TryParts(A, std::move(Rest->first), Sum, /*RestTiles=*/false);
    }
  TryGroupedVdw();
  return Best;
}

llvm::Expected<std::vector<LayerPlan>>
snow::compiler::planLayer(const ir::Layer &L, unsigned Index, bool OutIsSlice,
                          const isa::HwConfig &Hw, const BufferMap &B, const CompileOptions &Opts,
                          unsigned Frames, uint64_t SplitPenalty, uint64_t PrefetchWindow) {
  if (Opts.tweaked(L)) // Options of this layer (CompileOptions::LayerOff).
    return planLayer(L, Index, OutIsSlice, Hw, B, Opts.forLayer(L), Frames, SplitPenalty,
                     PrefetchWindow);
  if (!Opts.Cache)
    return planFresh(L, Index, OutIsSlice, Hw, B, Opts, Frames, SplitPenalty, PrefetchWindow);
  // A plan depends on the layer's key (as planAll's reuse), the options and
  // the prefetch window; the graph and hardware are the cache's.
  const std::string Key = fmt::format("{}|{}|{}", planKey(L, OutIsSlice, Frames, SplitPenalty, ""),
                                      Opts.planningKey(), PrefetchWindow);
  {
    std::lock_guard<std::mutex> Lock(Opts.Cache->M);
    if (auto It = Opts.Cache->Plans.find(Key); It != Opts.Cache->Plans.end()) {
      std::vector<LayerPlan> Parts = It->second;
      for (LayerPlan &P : Parts) {
        P.L = &L;
        P.Index = Index;
      }
      return Parts;
    }
  }
  auto Parts = planFresh(L, Index, OutIsSlice, Hw, B, Opts, Frames, SplitPenalty, PrefetchWindow);
  if (Parts) {
    std::lock_guard<std::mutex> Lock(Opts.Cache->M);
    Opts.Cache->Plans.emplace(Key, *Parts);
  }
  return Parts;
}

llvm::Expected<LayerPlan>
snow::compiler::planPoolBeside(const LayerPlan &Pool, const isa::HwConfig &Hw, const BufferMap &B,
                               const CompileOptions &Opts, unsigned MinSteps) {
  auto P = planPart(*Pool.L, Pool.Index, Pool.OutIsSlice, Hw, B, Opts.forLayer(*Pool.L), 0,
                    Pool.L->Out.C, 0, Pool.Frames, GroupMode::Dense, PixMode::Vmacp, 0, MinSteps);
  if (!P)
    return P.takeError();
  return std::move(P->first);
}

std::vector<bool> snow::compiler::slicedOutputs(const ir::Graph &G) {
  std::vector<bool> In(G.Layers.size(), false);
  for (const ir::Layer &L : G.Layers)
    if (L.Kind == ir::LayerKind::Concat || L.Kind == ir::LayerKind::Slice)
      for (int I : L.Inputs)
        if (I >= 0)
          In[size_t(I)] = true;
  return In;
}

std::vector<bool> snow::compiler::poolsBeside(const ir::Graph &G,
                                              const std::vector<LayerPlan> &Plans) {
  std::vector<bool> Has(G.Layers.size(), false);
  for (const LayerPlan &P : Plans)
    if (P.BesideOf >= 0)
      Has[size_t(P.BesideOf)] = true;
  return Has;
}

bool snow::compiler::isView(const ir::Layer &L) {
  return L.Kind == ir::LayerKind::Concat || L.Kind == ir::LayerKind::Slice;
}
