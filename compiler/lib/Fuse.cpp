//===- Fuse.cpp - Depthwise convs and pools fused with their 1x1 convs ----===//
//
// A depthwise conv is DRAM-bound (a MAC per weight and pixel, its output as
// large as its input) and the 1x1 conv after it (MobileNet's pointwise,
// EfficientNet's projection) mostly compute-bound: apart, the channel waits
// for the traces in one and the traces for the channel in the other, and
// the depthwise output crosses DRAM twice. A pool (GoogLeNet's branch pools,
// SqueezeNet's) only moves data, the same way. Fused, a group of tiles (one
// per CU) is computed through both layers on chip:
//
//   for each channel chunk c: load the tile's maps of chunk c (the first bank
//     of an input region), vdw traces (or pooling windows), write back into
//     the area (the input region's other banks) at the 1x1 conv's pixel
//     stride, chunk c's channels at their offset;
//   for each output group of the 1x1 conv: full-depth traces over the area,
//     write back and store as any conv.
//
// The 1x1 weights are loaded once per group of tiles, so tiles are as large
// as the area and the accumulators allow; the cost model (fusedCost) weighs
// that against the two layers apart. A pair of one group of tiles has no
// group before it to load under: its depthwise producer, where it fits,
// loads every chunk of its tile into one whole input region (full depth;
// EmitProgram.cpp emits the load chunk by chunk as the layer before stores
// each), and the area lies in the other region. With several groups, where
// the cost model prefers it, each group's tile loads full depth at once
// into that region once the group before has run its producer steps, under
// that group's 1x1 steps, instead of two chunks ahead (a pool of 480
// channels has eight). Sequence.cpp interleaves the pair's steps and keeps
// the area's region from the load unit until the 1x1 conv has read it
// (Step::DeferInFree, FreeMid, TakeMid). A batch's frames are tiles like
// any others.
//
//===----------------------------------------------------------------------===//

#include "Fuse.h"
#include "Cost.h"
#include "PlanKeys.h"
#include "Rounds.h"
#include "WeightPack.h"
#include "snow/isa/Timing.h"
#include <algorithm>
#include <optional>
#include <string>

using namespace snow;
using namespace snow::compiler;

namespace {

/// Plans after a depthwise conv among which its readers are looked for.
constexpr size_t Window = 8;

/// Whether every round of P gives all its active CUs one output group.
bool oneGroupRounds(const LayerPlan &P) {
  for (const Round &Rd : P.Rounds)
    for (const Work &W : Rd.Cus)
      if (W.active() && unsigned(W.Og) != Rd.firstOg())
        return false;
  return true;
}

/// Whether plan D is a depthwise conv, or a max / average pool, that can
/// write a fused area. A pool beside a conv (PipelinePools.cpp) leaves it
/// when fused.
bool fusableProducer(const LayerPlan &D, const isa::HwConfig &Hw) {
  if (!D.FirstPart || !D.LastPart || D.OutIsSlice || D.L->HasResidual || D.FromMid)
    return false;
  if (!D.IsConv)
    return D.isPool();
  // With fewer channels than a writeback entry, one vwb's entries overlap
  // in the area (each runs into the next pixel, which the next entry then
  // writes): in one cycle per entry only, as a writeback of several moves
  // every entry's first words before any entry's last (docs/architecture.md,
  // section 3.2), which would then land on the next pixel's first channels.
  const bool Overlaps = D.L->Out.C < Hw.VmacsPerCu * Hw.LanesPerVmac;
  return D.Depthwise && D.GroupK == 1 && (!Overlaps || Hw.writebackCyclesPerEntry() == 1);
}

/// Whether plan D is a dense 1x1 conv whose output groups can be written
/// into the area as well as stored (LayerPlan::StoresToo): whole output
/// groups, one pixel an accumulator entry, its own part of one plan.
bool denseProducer(const LayerPlan &D, const isa::HwConfig &Hw) {
  const ir::Layer &L = *D.L;
  return D.IsConv && !D.Depthwise && !D.Elementwise && !D.GroupChunks && !D.Dynamic && !D.ToMid &&
         !D.FromMid && D.FirstPart && D.LastPart && !D.OutIsSlice && D.BesideOf < 0 &&
         D.PixLog == 0 && L.Groups == 1 && L.KH == 1 && L.KW == 1 && L.SH == 1 && L.SW == 1 &&
         !L.PadT && !L.PadB && !L.PadL && !L.PadR &&
         L.Out.C % (Hw.VmacsPerCu * Hw.LanesPerVmac) == 0;
}

/// Channel cycles the maps of plan N's first step take: a tile of each CU
/// of its first round, its first chunk or (full depth) all of them.
uint64_t firstMapsCycles(const LayerPlan &N, const isa::HwConfig &Hw) {
  const unsigned Channels = N.FullDepth ? N.L->In.C : N.Chunk;
  return timing::dmaChannelCycles(Hw, uint64_t(std::min(Hw.cus(), N.NTiles)) * N.RowsIn * N.ColsIn *
                                          Channels * 2);
}

/// A fused pair's plans (its producer, then its 1x1 readers) and their
/// estimate.
struct FusedPair {
  LayerPlan Dn;
  std::vector<LayerPlan> Pn;
  Cost Ct;
  uint64_t Compute = 0; ///< The compute unit's cycles in Ct (fusedCost).
};

/// The cheapest pair of producer D and its 1x1 readers Ps (consumerPlan) on
/// some tile, with its producer's options DOpts (its rankN: the N+1-th
/// cheapest, or the last): tiles, the ways of reading the area, full depth,
/// then even row blocks and pinned weights where they pay. None where no
/// tile fits. Dense: D stores its output too (denseProducer).
std::optional<FusedPair> bestFusedPair(const LayerPlan &D, const std::vector<LayerPlan> &Ps,
                                       bool Dense, const isa::HwConfig &Hw, const BufferMap &B,
                                       const CompileOptions &DOpts, uint64_t NextLoad) {
  const unsigned NCu = Hw.cus(), Gch = Hw.VmacsPerCu * Hw.LanesPerVmac, Depth = D.L->Out.C;
  BufferMap DwIn = B; // the producer's maps: one bank of either input region
  DwIn.InCap = B.DwInCap;
  const unsigned Slack = Depth % Gch ? Gch - Depth % Gch : 0;
  const unsigned PMax = std::min(Hw.AccEntries, (B.MidCap - Slack) / Depth);
  // The 1x1 convs may read a banked area (LayerPlan::Banked): two pixels
  // a trace step, each from a bank of its own, in output groups of half
  // the channels. A round's columns pair up, its last pair with a padding
  // column where it has an odd number (LayerPlan::colGranule): the
  // producer traces that column too, its window running past the region's
  // row into the next one's (or, on the last row, into room kept after the
  // region: LayerPlan::bankedOverrun), into the odd bank's last place of
  // the row, and the 1x1 conv's second pixel there is written back but
  // never stored (MobileNet v2's 7x7 tiles of its 14x14 maps; until
  // 2026-12-02 only maps and tiles of even width banked). Where it fills
  // the lanes better: for at most half a group's channels, and for counts
  // that fill half groups better than whole ones (on zc706 MobileNet v2's
  // 96 and EfficientNet-B0's 80: every lane busy, or 5 of 6, instead of 3
  // of 4 or 5 of 8). Elsewhere the estimate finds it ahead where it is
  // not (EfficientNet-B0's block1 pair on narrow8, 16 channels in groups
  // of 8: estimated 1.4 k cycles faster, run 152 k slower, its producer's
  // chunks loading a pixel a DMA row where the plain pair loads full
  // depth).
  const uint32_t Bank = Hw.mapsBankElems();
  bool CanBank = !Dense && DOpts.MultiPixel && DOpts.BankedReads && Hw.MapsPortsPerBank &&
                 Hw.VmacsPerCu % 2 == 0 && B.MidCap >= 2 * Bank;
  for (const LayerPlan &P : Ps) {
    const unsigned C = P.L->Out.C, Half = Gch / 2;
    CanBank &= C <= Half || ceilDiv(C, Half) * Half < ceilDiv(C, Gch) * Gch;
  }
  // Four pixels a step from four banks (fourBankAreas, as a concat pair's
  // and a block triple's: FuseConcat.cpp, FuseBlocks.cpp), where every
  // reader fills the lanes at least as well with four pixels as with two
  // or one, and one better: EfficientNet-B0's projections of 16, 40, 80 and
  // 112 channels (groups of 16: all busy, or 5 of 6, where groups of 32 or
  // 64 leave a quarter to half idle). Not a producer's whole input in one
  // region (FullDepth): both regions hold the area.
  bool CanBank4 = !Dense && fourBankAreas(Hw, B, DOpts), Better4 = false;
  for (const LayerPlan &P : Ps) {
    const unsigned C = P.L->Out.C;
    const unsigned Fewer = std::min(laneSlots(C, Gch, 0), laneSlots(C, Gch, 1));
    CanBank4 &= laneSlots(C, Gch, 2) <= Fewer;
    Better4 |= laneSlots(C, Gch, 2) < Fewer;
  }
  CanBank4 &= Better4;
  // A banked 1x1 conv's entries hold two pixels each, so its tile may
  // have twice the accumulators' pixels, which a depthwise producer
  // traces in bands of rows that fit them (LayerPlan::bandRows): less
  // halo to load.
  const unsigned PMaxBanked =
      CanBank && D.Depthwise ? std::min(2 * Hw.AccEntries, 2 * ((Bank - Slack) / Depth)) : 0;
  const unsigned PMaxFour =
      CanBank4 && D.Depthwise ? std::min(4 * Hw.AccEntries, 4 * ((Bank - Slack) / Depth)) : 0;
  // A full-depth producer reads a chunk's channels at their offset in
  // each pixel: whole lane groups for a pool. A depthwise conv's last
  // chunk of fewer than a group's channels (ShuffleNet's 116 and 232,
  // EfficientNet-B0's 240 and 480) reads a group's width, past its pixel
  // into the next one's first channels (lanes whose results the chunks
  // after it, last first, overwrite in the area: Sequence.cpp), and past
  // the tile's last pixel into Slack kept after the region. Only over
  // several groups of tiles, where the cost model weighs it: with one
  // group (below) the chunks would go last first, so the first step would
  // wait for the channels the conv before stores last. A dense producer
  // goes full depth to bring its residual with its maps
  // (LayerPlan::groupResidual).
  const bool FullOk = Dense ? DOpts.FullDepthPairs && D.L->HasResidual
                            : DOpts.FullDepthPairs && (D.Depthwise || Depth % Hw.LanesPerVmac == 0);
  // The cheapest pairs so far, cheapest first (on a tie, full depth: a
  // DMA a region row, not one a pixel; then two pixels an entry: fewer
  // traces where the channel bounds the estimate; then fewer compute
  // cycles: the channel's bound is an estimate, and where it is loose
  // the traces decide, as in MobileNet v2's 7x7 blocks 14-16, whose pairs
  // on tiles of 2x7 and 7x2 estimated alike, the channel's, and ran
  // 4.5 k cycles apart, a banked 7x2 tile's seven two-pixel entries
  // against a 2x7 tile's eight): the producer's PlanRank + 1 of them
  // (CompileOptions::LayerOff: its rankN ranks its pairs too), the last
  // taken.
  std::vector<FusedPair> Kept;
  // The cheapest pair not on four banks, which the refinements below may
  // make cheaper than a four-bank pair ranked ahead of it.
  std::optional<FusedPair> BestPlain;
  // A four-bank pair's estimate with what it costs the plan after it,
  // which loads its first maps only once the readers are done (fusePairs).
  auto Priced = [&](const Cost &Ct, const LayerPlan &Dn) {
    return Dn.Straddles ? Cost(Ct.Cycles + NextLoad, Ct.Bytes, Hw) : Ct;
  };
  auto Ahead = [](const Cost &A, const LayerPlan &Ad, uint64_t ACompute, const FusedPair &B) {
    if (A < B.Ct || B.Ct < A)
      return A < B.Ct;
    if (Ad.FullDepth != B.Dn.FullDepth)
      return Ad.FullDepth;
    if (Ad.PixLog != B.Dn.PixLog)
      return Ad.PixLog > B.Dn.PixLog;
    return ACompute < B.Compute;
  };
  // A depthwise producer of half an output group's channels may trace two
  // pixels an entry (dwPixelPairs), its entries' two pixels adjacent in
  // the area (not banked).
  const bool CanPair = D.Depthwise && Depth == Gch / 2 && dwPixelPairs(*D.L, Hw, DOpts);
  for (auto [R, Wt] : tileShapes(D.L->Out.H, D.L->Out.W, std::max({PMax, PMaxBanked, PMaxFour})))
    for (unsigned Way = 0; Way < 4; ++Way) {
      const bool Four = Way == 3, Banked = Way == 1 || Four, Paired = Way == 2;
      const unsigned Sides = Four ? 4 : 2;
      if (Paired && !CanPair)
        continue;
      if (!Banked && R * Wt > PMax)
        continue;
      // Beyond PMax (tileShapes keeps R x Wt within PMaxBanked), a band
      // of at least a row must fit the accumulators.
      if (Banked && (!(Four ? CanBank4 : CanBank) ||
                     uint64_t(R) * ceilDiv(Wt, Sides) * Depth + Slack > Bank ||
                     (R * Wt > PMax && Wt > Hw.AccEntries) ||
                     R * Wt > std::max(PMax, Four ? PMaxFour : PMaxBanked) ||
                     R * ceilDiv(Wt, Sides) > Hw.AccEntries))
        continue;
      LayerPlan Dn = D;
      Dn.Banked = Banked;
      Dn.BankLog = Four ? 2 : 1;
      Dn.Straddles = Four;
      if (D.Depthwise) {
        Dn.PixLog = Paired;
        Dn.Chunk = Dn.ogChannels(Gch);
        Dn.NOg = Dn.NChunks = ceilDiv(Depth, Dn.Chunk);
      }
      Dn.ToMid = true;
      Dn.FusedWith = int(D.Index);
      Dn.MapStationary = true;
      Dn.BesideOf = -1;
      Dn.ShareOffset = 0;
      Dn.StoresToo = Dense;
      // Its rounds are the pair's, tiles of one group a round (a depthwise
      // conv planned alone may have given its CUs groups of their own).
      Dn.Balanced = Dn.SplitChannels = false;
      if (Dense) // Its maps chunk by chunk into the first bank, a tile a CU.
        Dn.FullDepth = false;
      if (!Dn.IsConv) { // a pool: chunks of at most G channels, lanes apart
        Dn.Chunk = std::min(roundUp(Depth, Hw.LanesPerVmac), Gch);
        Dn.NChunks = ceilDiv(Depth, Dn.Chunk);
      }
      const unsigned Extra = (Dn.IsConv ? 2 * Dn.InSkew : Hw.LanesPerVmac) +
                             Dn.bankedOverrun(Dn.pixelStride(0, Hw.LanesPerVmac));
      // Chunk by chunk into the first bank of either input region, or
      // (several groups of tiles) full depth into one whole region, the
      // area in the other: a group's tile then loads at once, under the
      // 1x1 steps of the group before, however many chunks it has.
      std::vector<LayerPlan> Ways;
      if (setTile(Dn, R, Wt, Dn.pixelStride(0, Hw.LanesPerVmac), Extra, DwIn))
        Ways.push_back(Dn);
      // (Not with a banked area: estimated ahead, measured behind,
      // MobileNet v1 +10 k cycles, v2 +2 k, 2026-12-02.)
      if (FullOk && !Banked) {
        LayerPlan Full = Dn;
        Full.FullDepth = true;
        const unsigned FullExtra = Dense ? R * Wt * Depth // the residual tile
                                         : Extra + (D.Depthwise ? Slack : 0);
        if (setTile(Full, R, Wt, Full.pixelStride(0, Hw.LanesPerVmac), FullExtra, B) &&
            Full.NTiles > NCu)
          Ways.push_back(std::move(Full));
      }
      for (LayerPlan &W : Ways) {
        makeRounds(W, NCu, Packing::Tiles);
        if (Four && W.Rounds.size() != W.NChunks)
          continue; // One group of tiles only (below).
        // One group of tiles: the producer's input full depth in one
        // whole input region, the area in the other (LayerPlan::
        // FullDepth): its chunks all load ahead, each as the layer
        // before stores it (RowSignals.cpp: startOnRows).
        if (DOpts.FullDepthPairs && W.Depthwise && !W.FullDepth && !W.Straddles &&
            W.Rounds.size() == W.NOg && W.L->Out.C % Gch == 0) {
          LayerPlan Full = W;
          Full.FullDepth = true;
          const unsigned Stride = Full.pixelStride(0, Hw.LanesPerVmac);
          if (setTile(Full, W.R, W.Wt, Stride, 2 * Full.InSkew + Full.bankedOverrun(Stride), B)) {
            // Its chunks one after another, whole chunks to a bank, where
            // they fill more than one (LayerPlan::PerBank); a padding
            // column's reads past the last stay in its bank.
            const unsigned Room = Bank - Full.bankedOverrun(Full.Chunk);
            const unsigned PerBank = Full.chunkSpan() ? Room / Full.chunkSpan() : 0;
            if (DOpts.ChunkBanks && PerBank && Full.NChunks > PerBank &&
                uint64_t(ceilDiv(Full.NChunks, PerBank)) * Bank <= B.InCap) {
              Full.PerBank = PerBank;
              Full.WeightsOnce = !Full.Dynamic && Full.weightsOnceOffset(Full.NChunks) <= B.WCap;
            }
            W = std::move(Full);
          }
        }
        std::vector<LayerPlan> Pn = areaReaders(Ps, R, Wt, Four ? 2 : Banked ? 1 : 0, Hw, B);
        for (LayerPlan &P : Pn)
          P.Straddles = Four;
        auto Keep = [&] {
          uint64_t Compute = 0;
          const Cost Ct = Priced(fusedCost(W, Pn, Hw, nullptr, &Compute), W);
          if (!Four && (!BestPlain || Ahead(Ct, W, Compute, *BestPlain)))
            BestPlain = FusedPair{W, Pn, Ct, Compute};
          keepRanked(
              Kept, size_t(DOpts.PlanRank) + 1,
              [&](const FusedPair &E) { return Ahead(Ct, W, Compute, E); },
              [&] {
                return FusedPair{W, Pn, Ct, Compute};
              });
        };
        Keep();
        // Row blocks of even sizes (LayerPlan::EvenRows) on every tile
        // shape: the rounds of a short last row block leave CUs idle
        // (MobileNet v1's conv7 pair, 14 rows in blocks of 4). Tried on the
        // cheapest pair's tiles only, they missed EfficientNet-B0's
        // 14x14 scale / projection pairs on tiles of 4x7 (rows 4, 4, 3,
        // 3): 9.6 k cycles each on zc706 (2026-12-05). (After the plain
        // tiles: where the estimates tie, those stay.)
        if (DOpts.EvenRows && D.L->Out.H % W.R != 0) {
          W.EvenRows = true;
          makeRounds(W, NCu, Packing::Tiles);
          for (LayerPlan &P : Pn) {
            P.EvenRows = true;
            makeRounds(P, NCu, Packing::Tiles);
          }
          Keep();
        }
      }
    }
  if (Kept.empty())
    return std::nullopt;
  // A pair, changed by Change on every plan, where the cost model says
  // that pays on its tiles.
  auto TryOn = [&](FusedPair &Best, auto Change) {
    FusedPair Try = Best;
    Change(Try.Dn);
    for (LayerPlan &P : Try.Pn)
      Change(P);
    Try.Ct = Priced(fusedCost(Try.Dn, Try.Pn, Hw), Try.Dn);
    if (Try.Ct < Best.Ct)
      Best = std::move(Try);
  };
  // A depthwise producer and one reader whose weights all fit at once
  // keep them for the pair (LayerPlan::PinWeights), where each reader
  // round gives its CUs one output group (one address serves all; Tiles
  // packing does) and the cost model says it pays on the tiles chosen
  // (weighed over all tile shapes, its estimate of fewer bytes chose
  // tiles that lost: MobileNet v2's block5 pair, 4.6 k cycles).
  auto Refine = [&](FusedPair &Best) {
    if (DOpts.PinPairWeights && Best.Dn.Depthwise && !Best.Dn.Dynamic && Best.Pn.size() == 1 &&
        !Best.Pn[0].Dynamic && oneGroupRounds(Best.Pn[0]) &&
        pinWeights(Best.Dn, Best.Pn[0], B.WCap).has_value())
      TryOn(Best, [](LayerPlan &P) { P.PinWeights = true; });
  };
  FusedPair Best = std::move(Kept.back());
  Refine(Best);
  // A four-bank pair against the best other one refined too (a 160-channel
  // depthwise conv and a 48-channel reader at 14x14: the four-bank pair
  // ranked ahead of the plain one, which pinned weights then made cheaper,
  // and ran 5 % slower than it).
  if (Best.Dn.Straddles && BestPlain && !DOpts.PlanRank) {
    Refine(*BestPlain);
    if (BestPlain->Ct < Best.Ct)
      Best = std::move(*BestPlain);
  }
  return Best;
}

/// bestFusedPair, recalled where the same pair was weighed before
/// (recallPair).
std::optional<FusedPair> cachedFusedPair(const LayerPlan &D, const std::vector<LayerPlan> &Ps,
                                         bool Dense, const isa::HwConfig &Hw, const BufferMap &B,
                                         const CompileOptions &DOpts, uint64_t NextLoad = 0,
                                         const std::string &Where = "") {
  std::vector<const LayerPlan *> Plans = {&D};
  for (const LayerPlan &P : Ps)
    Plans.push_back(&P);
  // NextLoad prices four-bank pairs only (Priced): elsewhere it is no key,
  // or a --tune search would weigh a pair again for each plan after it.
  if (Dense || !fourBankAreas(Hw, B, DOpts))
    NextLoad = 0;
  // (Where: the buffer map's part the pair is planned in, where not all
  // of B: FuseBeside.cpp.)
  const std::string Tag =
      std::string(Dense ? "dense" : "") + "+next" + std::to_string(NextLoad) + Where;
  PairChoice C = recallPair(&PlanCache::FusedPairs, Plans, DOpts, Tag, [&] {
    std::optional<FusedPair> Best = bestFusedPair(D, Ps, Dense, Hw, B, DOpts, NextLoad);
    PairChoice Made;
    if (Best) {
      Made.Plans.push_back(std::move(Best->Dn));
      for (LayerPlan &P : Best->Pn)
        Made.Plans.push_back(std::move(P));
      Made.Cycles = Best->Ct.Cycles;
      Made.Bytes = Best->Ct.Bytes;
    }
    return Made;
  });
  if (C.Plans.empty())
    return std::nullopt;
  FusedPair F{std::move(C.Plans[0]), {}, Cost(C.Cycles, C.Bytes, Hw)};
  F.Pn.assign(std::make_move_iterator(C.Plans.begin() + 1), std::make_move_iterator(C.Plans.end()));
  return F;
}

} // namespace

std::optional<PairPlans> snow::compiler::plainPairPlans(const LayerPlan &D,
                                                        const std::vector<LayerPlan> &Ps,
                                                        const isa::HwConfig &Hw, const BufferMap &B,
                                                        const CompileOptions &DOpts,
                                                        const std::string &Where) {
  std::optional<FusedPair> F = cachedFusedPair(D, Ps, /*Dense=*/false, Hw, B, DOpts, 0, Where);
  if (!F)
    return std::nullopt;
  return PairPlans{std::move(F->Dn), std::move(F->Pn), F->Ct.Cycles, F->Ct.Bytes};
}

LayerPlan snow::compiler::consumerPlan(const LayerPlan &Q, const isa::HwConfig &Hw,
                                       const BufferMap &B) {
  const ir::Layer &L = *Q.L;
  const unsigned G = Hw.VmacsPerCu * Hw.LanesPerVmac;
  LayerPlan P = Q;
  P.FromMid = true;
  P.OcBase = 0;
  P.OcCount = L.Out.C;
  P.FirstPart = P.LastPart = true;
  P.PixLog = 0;
  P.Wide = P.Banked = false;
  P.CopyBanks = 0;
  P.NOg = ceilDiv(L.Out.C, G);
  P.StepY = P.StepX = 1;
  P.FullDepth = true;
  P.MapStationary = true;
  P.Balanced = P.SplitChannels = P.GroupChunks = false;
  const unsigned PerBank = B.WCap - P.TailWords; // a 1x1 kernel: a word per channel
  P.NChunks = ceilDiv(L.In.C, PerBank);
  P.Chunk = ceilDiv(L.In.C, P.NChunks);
  P.NChunks = ceilDiv(L.In.C, P.Chunk);
  return P;
}

std::vector<LayerPlan> snow::compiler::areaReaders(const std::vector<LayerPlan> &Ps, unsigned R,
                                                   unsigned Wt, unsigned BankLog,
                                                   const isa::HwConfig &Hw, const BufferMap &B) {
  const unsigned G = Hw.VmacsPerCu * Hw.LanesPerVmac;
  std::vector<LayerPlan> Pn = Ps;
  for (LayerPlan &P : Pn) {
    if (BankLog) {
      P.PixLog = P.BankLog = BankLog;
      P.Banked = true;
      P.NOg = ceilDiv(P.L->Out.C, P.ogChannels(G));
    }
    setTile(P, R, Wt, 0, 0, B); // P reads the area, not a region.
    makeRounds(P, Hw.cus(), Packing::Tiles);
  }
  return Pn;
}

bool snow::compiler::fourBankAreas(const isa::HwConfig &Hw, const BufferMap &B,
                                   const CompileOptions &Opts) {
  const uint32_t Bank = Hw.mapsBankElems();
  return Opts.FourBankAreas && Opts.MultiPixel && Opts.BankedReads && Hw.MapsPortsPerBank &&
         Hw.VmacsPerCu % 4 == 0 && B.MidOffset == Bank && B.DwInCap == Bank && B.InCap >= 3 * Bank;
}

bool snow::compiler::fusableConsumer(const LayerPlan &P) {
  return P.IsConv && !P.Depthwise && !P.Dynamic && !P.ToMid && !P.FromMid && P.FirstPart &&
         pointwise(*P.L);
}

std::optional<PairEstimate>
snow::compiler::depthwisePairCycles(const LayerPlan &D, const LayerPlan &P, const isa::HwConfig &Hw,
                                    const BufferMap &B, const CompileOptions &Opts) {
  std::optional<CompileOptions> Own;
  const CompileOptions &DOpts = Opts.forLayer(*D.L, Own);
  if (!DOpts.FuseDepthwise || !DOpts.DoubleBuffer || !B.MidCap || !fusableProducer(D, Hw) ||
      !fusableConsumer(P) || P.Frames != D.Frames || P.L->input() != int(D.Index))
    return std::nullopt;
  std::vector<LayerPlan> Ps = {consumerPlan(P, Hw, B)};
  Ps.back().FusedWith = int(D.Index);
  std::optional<FusedPair> Best = cachedFusedPair(D, Ps, /*Dense=*/false, Hw, B, DOpts);
  if (!Best)
    return std::nullopt;
  // Its first group's tiles, whole (full depth) or a chunk of them.
  const LayerPlan &Dn = Best->Dn;
  return PairEstimate{Best->Ct.Cycles, firstGroupBytes(Dn, Hw) / (Dn.FullDepth ? 1 : Dn.NChunks)};
}

bool snow::compiler::pointwise(const ir::Layer &L) {
  return L.Groups == 1 && L.KH == 1 && L.KW == 1 && L.SH == 1 && L.SW == 1 && !L.PadT && !L.PadB &&
         !L.PadL && !L.PadR;
}

std::vector<unsigned> snow::compiler::readerCounts(const ir::Graph &G) {
  std::vector<unsigned> Readers(G.Layers.size(), 0);
  for (const ir::Layer &L : G.Layers) {
    for (int In : L.Inputs)
      if (In >= 0)
        ++Readers[size_t(In)];
    if (L.HasResidual && L.Residual >= 0) // -1: the graph input
      ++Readers[size_t(L.Residual)];
  }
  ++Readers[size_t(&G.output() - G.Layers.data())];
  return Readers;
}

void snow::compiler::fusePairs(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                               const CompileOptions &Opts, std::vector<LayerPlan> &Plans,
                               const WholePlan &Whole) {
  if (!Opts.FuseDepthwise || !Opts.DoubleBuffer || !B.MidCap)
    return;
  const std::vector<unsigned> Readers = readerCounts(G);
  for (size_t K = 0; K < Plans.size(); ++K) {
    // A dense conv planned in two parts (LayerPlan::RestTiles) is weighed
    // as a producer in one, as Whole plans it; [K, DEnd) holds its parts.
    const size_t DEnd = layerEnd(Plans, K);
    // The producer's switches decide for the pair (CompileOptions::LayerOff).
    std::optional<CompileOptions> Own;
    const CompileOptions &DOpts = Opts.forLayer(*Plans[K].L, Own);
    if (!DOpts.FuseDepthwise)
      continue;
    std::optional<LayerPlan> WholeD;
    if (DOpts.FuseDense && Whole && DEnd - K == 2 && Plans[K + 1].RestTiles)
      WholeD = Whole(Plans[K]);
    const LayerPlan &D = WholeD ? *WholeD : Plans[K];
    // A dense producer stores its output too: readers other than the 1x1
    // convs right after it read its tensor.
    const bool Dense = DOpts.FuseDense && denseProducer(D, Hw);
    if (!Dense && (!fusableProducer(D, Hw) || Readers[D.Index] > Window))
      continue;
    // The consumers: the layers that read D, each a 1x1 conv, planned after
    // D within Window plans (the scheduler may have put independent layers
    // between them, e.g. ShuffleNet's passthrough halves), each layer's parts
    // together; [DEnd, End) holds them and the plans in between, which move
    // after them (none reads D; a consumer's residual must come before D).
    const unsigned Depth = D.L->Out.C;
    std::vector<LayerPlan> Ps, Between;
    size_t End = DEnd;
    bool Ok = true;
    std::vector<bool> Before(G.Layers.size(), false); // planned before D
    for (size_t J = 0; J < DEnd; ++J)
      Before[Plans[J].Index] = true;
    while (Ok && (Dense || Ps.size() < Readers[D.Index]) && End < Plans.size() &&
           End < DEnd + Window) {
      const LayerPlan &Q = Plans[End];
      const unsigned Index = Q.Index;
      size_t Next = End;
      while (Next < Plans.size() && Plans[Next].Index == Index)
        ++Next;
      const ir::Layer &L = *Q.L;
      bool Reads = false;
      for (int In : L.Inputs)
        Reads |= In == int(D.Index);
      Reads |= L.HasResidual && L.Residual == int(D.Index);
      const bool Consumes = Reads && fusableConsumer(Q) && Q.Frames == D.Frames &&
                            L.input() == int(D.Index) && L.In.C == Depth &&
                            (!L.HasResidual || L.Residual < 0 || Before[size_t(L.Residual)]);
      if (Dense && !Consumes) // Only the convs right after it.
        break;
      if (!Reads) {
        Between.insert(Between.end(), Plans.begin() + long(End), Plans.begin() + long(Next));
      } else if (Consumes) {
        Ps.push_back(consumerPlan(Q, Hw, B));
        Ps.back().FusedWith = int(D.Index);
      } else {
        Ok = false;
      }
      End = Next;
    }
    // Every reader fused; no pool beside D or beside a consumer.
    for (size_t J = DEnd; Ok && J < std::min(Plans.size(), End + 1); ++J)
      for (const LayerPlan &P : Ps)
        Ok &= Plans[J].BesideOf != int(P.Index) && Plans[J].BesideOf != int(D.Index);
    if (!Ok || Ps.empty() || (!Dense && Ps.size() != Readers[D.Index]))
      continue;
    // D's and its consumers' own estimates; a pool beside a conv costs
    // only its windows there.
    uint64_t Apart = D.BesideOf >= 0 ? besideCost(D, Hw) : D.EstCycles;
    if (WholeD) // Apart, it runs as planned.
      Apart = Plans[K].EstCycles + Plans[K + 1].EstCycles;
    for (size_t J = DEnd; J < End; ++J)
      if (Plans[J].L->input() == int(D.Index))
        Apart += Plans[J].EstCycles;
    // A pair whose area straddles both input regions (four banks) holds
    // them until its readers are done: the plan after it loads its first
    // maps only then (EfficientNet-B0's block5 and block6 expansions each
    // waited 5 to 7 k cycles more after four-bank pairs of 7x28 tiles,
    // which they start on the rows of: RowSignals.cpp). Not a whole-map
    // window producer reading a reader's output, which loads only once
    // that reader is done anyway (startsOnRowsOf; block10's expansion
    // after block9's pair).
    const LayerPlan *Next = !Between.empty()     ? &Between.front()
                            : End < Plans.size() ? &Plans[End]
                                                 : nullptr;
    bool ReadsPair = false;
    for (const LayerPlan &P : Ps)
      ReadsPair |= Next && Next->L->input() == int(P.Index);
    const uint64_t NextLoad =
        Next && !(ReadsPair && Next->Window.R && Next->FullDepth) ? firstMapsCycles(*Next, Hw) : 0;
    std::optional<FusedPair> Best = cachedFusedPair(D, Ps, Dense, Hw, B, DOpts, NextLoad);
    // A dense pair only where it saves over 2 % of the two layers: its
    // estimate is good to a few percent, and the conv after the 1x1 convs
    // may lose what a closer call gains (ResNeXt-50's layer2 pairs, 1.1 %
    // saved by the estimate, lost 2.2 k cycles each in all).
    // Or the pair beside the conv its pool runs beside (FuseBeside.cpp),
    // where that costs less still.
    std::optional<BesidePair> Beside;
    if (!Dense && !WholeD)
      Beside = besidePair(Plans, K, D, Ps, Hw, B, Opts, DOpts);
    std::vector<LayerPlan> Fused;
    if (Beside && Beside->Cycles < Apart && (!Best || Beside->Cycles < Best->Ct.Cycles)) {
      Fused.push_back(std::move(Beside->Dn));
      for (LayerPlan &P : Beside->Pn)
        Fused.push_back(std::move(P));
    } else {
      if (!Best || (Dense ? !clearlyCheaper(Best->Ct.Cycles, Apart) : Best->Ct.Cycles >= Apart))
        continue;
      const Cost BestCost = Best->Ct;
      LayerPlan &Dn = Best->Dn;
      std::vector<LayerPlan> &Pn = Best->Pn;
      // The estimate split as the simulator counts the layers' cycles
      // (--emit=plan).
      std::vector<uint64_t> Shares;
      fusedCost(Dn, Pn, Hw, &Shares);
      Dn.EstCycles = Shares[0];
      Dn.EstDramBytes = BestCost.Bytes;
      Fused.push_back(std::move(Dn));
      for (size_t I = 0; I < Pn.size(); ++I) {
        Pn[I].EstCycles = Shares[I + 1];
        Pn[I].EstDramBytes = 0; // all counted on the depthwise plan
        Fused.push_back(std::move(Pn[I]));
      }
    }
    // The pair, then the plans that were between (each may still fuse).
    const size_t PairEnd = K + Fused.size();
    Fused.insert(Fused.end(), std::make_move_iterator(Between.begin()),
                 std::make_move_iterator(Between.end()));
    Plans.erase(Plans.begin() + long(K), Plans.begin() + long(End));
    Plans.insert(Plans.begin() + long(K), std::make_move_iterator(Fused.begin()),
                 std::make_move_iterator(Fused.end()));
    K = PairEnd - 1;
  }
}
