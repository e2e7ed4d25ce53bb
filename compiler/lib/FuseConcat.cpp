//===- FuseConcat.cpp - The convs a concat joins, on chip for its readers -===//
//
// SqueezeNet's fire module ends in a concat of two expands, a 1x1 and a 3x3
// conv of one squeeze output, which only the next module's squeeze (a 1x1
// conv) reads. Apart, each expand stores its half of the concat and the
// squeeze reads it all back: at 55x55 that is 774 KB each way for fire2 /
// fire3, and the squeeze, 6.2 M MACs, waits on the channel three times as
// long as it computes. Fused, a group of tiles (one a CU) runs through all
// of them on chip:
//
//   for each conv the concat joins, shortest trace first: for each of its
//     output groups, load the tile's (haloed) maps chunk by chunk into the
//     first bank of an input region, trace, and after the last chunk write
//     back into the area at the concat's pixel stride (LayerPlan::MidPitch),
//     its channels at their offset in the concat (MidChannel);
//   for each 1x1 conv reading the concat: full-depth traces over the area,
//     write back and store as any conv.
//
// The same pair as a depthwise conv's (Fuse.cpp), with several producers:
// Sequence.cpp interleaves their steps group by group and keeps the area's
// region (that of the last producer's step) from the load unit until the
// readers are done. The 1x1 readers may read a banked area (two pixels a
// step from two banks: the producers trace and write a tile's even columns
// to one bank, its odd ones to the other), which a 16- or 32-channel
// squeeze needs to keep its lanes busy. The cost model (concatPairCost)
// weighs the pair against the layers apart.
//
//===----------------------------------------------------------------------===//

#include "Cost.h"
#include "Fuse.h"
#include "FuseWindows.h"
#include "Rounds.h"
#include <algorithm>
#include <array>
#include <optional>

using namespace snow;
using namespace snow::compiler;

namespace {

/// A concat pair's plans (its producers in program order, then its 1x1
/// readers) and their estimate.
struct ConcatPair {
  std::vector<LayerPlan> Ds, Ps;
  Cost Ct;
};

/// Whether plan D may write its channels of a concat into the area: a
/// dense conv of whole output groups, its own plan, no residual, fused with
/// nothing and beside nothing.
bool concatMember(const LayerPlan &D, unsigned Gch, const BufferMap &B) {
  const ir::Layer &L = *D.L;
  return D.IsConv && !D.Depthwise && !D.Elementwise && !D.GroupChunks && !D.Dynamic && !D.ToMid &&
         !D.FromMid && D.FusedWith < 0 && D.FirstPart && D.LastPart && D.OutIsSlice &&
         D.BesideOf < 0 && L.Groups == 1 && !L.HasResidual && L.Out.C % Gch == 0 &&
         L.KH * L.KW + D.TailWords <= B.WCap;
}

/// For each layer, the concat its output goes into, or -1.
std::vector<int> concatsOf(const ir::Graph &G) {
  std::vector<int> Of(G.Layers.size(), -1);
  for (size_t C = 0; C < G.Layers.size(); ++C)
    if (G.Layers[C].Kind == ir::LayerKind::Concat)
      for (int In : G.Layers[C].Inputs)
        if (In >= 0)
          Of[size_t(In)] = int(C);
  return Of;
}

/// One of a concat's producers: its plan and its first channel in the
/// concat.
struct Member {
  LayerPlan P;
  unsigned At = 0;
};

/// The cheapest concat pair of producers Ds (of a concat of Cc channels) and
/// 1x1 readers Ps (consumerPlan) on some tile,
/// with the first producer's options Opts (its rankN: the N+1-th cheapest):
/// every tile shape the area and the accumulators hold, the area plain or
/// banked. None where no tile fits.
std::optional<ConcatPair> bestConcatPair(const std::vector<Member> &Ds, unsigned Cc, unsigned Fid,
                                         const std::vector<LayerPlan> &Ps, const isa::HwConfig &Hw,
                                         const BufferMap &B, const CompileOptions &Opts) {
  const unsigned NCu = Hw.cus(), Gch = Hw.VmacsPerCu * Hw.LanesPerVmac;
  const uint32_t Bank = Hw.mapsBankElems();
  BufferMap DwIn = B; // a producer's maps: one bank of either input region
  DwIn.InCap = B.DwInCap;
  // A banked area of 2^Log banks where its readers fill the lanes better
  // with that many pixels a step than with fewer (Fuse.cpp:
  // bestFusedPair): one of them better, none worse (a 16-channel squeeze
  // and a 48-channel conv reading one concat). Four banks straddle both
  // input regions (LayerPlan::Straddles): from the first region's second
  // bank to the bank before the second region's last.
  std::array<bool, 3> CanBank{};
  std::array<uint32_t, 3> AreaCap = {B.MidCap, B.MidCap, 4 * Bank};
  for (unsigned Log = 1; Log <= 2; ++Log) {
    bool Can = Log == 1 ? Opts.MultiPixel && Opts.BankedReads && Hw.MapsPortsPerBank &&
                              Hw.VmacsPerCu % 2 == 0 && B.MidCap >= 2 * Bank
                        : fourBankAreas(Hw, B, Opts),
         Better = false;
    for (const LayerPlan &P : Ps) {
      const unsigned C = P.L->Out.C;
      Can &= laneSlots(C, Gch, Log) <= laneSlots(C, Gch, Log - 1);
      Better |= laneSlots(C, Gch, Log) < laneSlots(C, Gch, Log - 1);
    }
    CanBank[Log] = Can && Better;
  }
  // A producer's tile is one pixel an accumulator entry.
  const uint32_t Cap = CanBank[2] ? AreaCap[2] : B.MidCap;
  const unsigned PMax = std::min<unsigned>(Hw.AccEntries, Cap / Cc);
  const ir::Layer &L0 = *Ds.front().P.L;
  std::vector<ConcatPair> Kept;
  for (auto [R, Wt] : tileShapes(L0.Out.H, L0.Out.W, PMax))
    for (unsigned Log = 0; Log < 3; ++Log) {
      const bool Banked = Log > 0;
      const unsigned Sides = 1u << Log;
      // A banked round's columns come a column a bank (LayerPlan::
      // colGranule): a width not a multiple of the banks traces padding
      // columns too.
      if (uint64_t(R) * roundUp(Wt, Sides) * Cc > AreaCap[Log] ||
          (Banked && (!CanBank[Log] || R * roundUp(Wt, Sides) > Hw.AccEntries ||
                      uint64_t(R) * ceilDiv(Wt, Sides) * Cc > Bank)))
        continue;
      ConcatPair Try;
      bool Fits = true;
      for (size_t K = 0; K < Ds.size() && Fits; ++K) {
        LayerPlan Dn = plainFusedPlan(Ds[K].P, Fid);
        const ir::Layer &L = *Dn.L;
        Dn.NOg = L.Out.C / Gch;
        Dn.OcBase = 0;
        Dn.OcCount = L.Out.C;
        // Chunks of input channels whose weights fit a bank, each loaded
        // into the first bank in turn (fire8's 3x3 expand: 64 channels of
        // 9 words in a 512-word bank).
        const unsigned PerChunk = (B.WCap - Dn.TailWords) / (L.KH * L.KW);
        Dn.NChunks = ceilDiv(L.In.C, PerChunk);
        Dn.Chunk = ceilDiv(L.In.C, Dn.NChunks);
        Dn.NChunks = ceilDiv(L.In.C, Dn.Chunk);
        Dn.ToMid = true;
        Dn.StoresToo = Dn.PinWeights = Dn.WeightsOnce = false;
        Dn.PerBank = 0;
        Dn.Banked = Banked;
        Dn.BankLog = std::max(1u, Log);
        Dn.Straddles = Log == 2;
        Dn.MidPitch = Cc;
        Dn.MidChannel = Ds[K].At;
        Dn.R = R, Dn.Wt = Wt; // (bankedOverrun reads the tile's width)
        const unsigned Stride = Dn.pixelStride(0, Hw.LanesPerVmac);
        Fits = setTile(Dn, R, Wt, Stride, 2 * Dn.InSkew + Dn.bankedOverrun(Stride), DwIn);
        if (Fits)
          makeRounds(Dn, NCu, Packing::Tiles);
        Try.Ds.push_back(std::move(Dn));
      }
      if (!Fits)
        continue;
      Try.Ps = areaReaders(Ps, R, Wt, Log, Hw, B);
      for (LayerPlan &P : Try.Ps)
        P.Straddles = Log == 2;
      Try.Ct = concatPairCost(Try.Ds, Try.Ps, Hw);
      keepRanked(
          Kept, size_t(Opts.PlanRank) + 1, [&](const ConcatPair &E) { return Try.Ct < E.Ct; },
          [&] { return Try; });
    }
  if (Kept.empty())
    return std::nullopt;
  return std::move(Kept.back());
}

} // namespace

void snow::compiler::fuseConcatPairs(const ir::Graph &G, const isa::HwConfig &Hw,
                                     const BufferMap &B, const CompileOptions &Opts,
                                     std::vector<LayerPlan> &Plans) {
  if (!Opts.FuseConcats || !Opts.DoubleBuffer || !B.MidCap)
    return;
  const unsigned Gch = Hw.VmacsPerCu * Hw.LanesPerVmac;
  const std::vector<unsigned> Readers = readerCounts(G);
  const std::vector<int> ConcatOf = concatsOf(G);
  for (size_t K = 0; K < Plans.size(); ++K) {
    const LayerPlan &D = Plans[K];
    // The first producer's switches decide for the pair.
    std::optional<CompileOptions> Own;
    const CompileOptions &DOpts = Opts.forLayer(*D.L, Own);
    if (!DOpts.FuseConcats || !concatMember(D, Gch, B) || Readers[D.Index] != 1)
      continue;
    const int Cat = ConcatOf[D.Index];
    if (Cat < 0)
      continue;
    const ir::Layer &CL = G.Layers[size_t(Cat)];
    const size_t N = CL.Inputs.size();
    if (K + N >= Plans.size())
      continue;
    // Plans [K, K + N): the concat's inputs, each one plan, in any order.
    std::vector<Member> Ds;
    bool Ok = true;
    for (size_t J = K; J < K + N && Ok; ++J) {
      const LayerPlan &P = Plans[J];
      unsigned At = 0;
      bool In = false;
      for (int I : CL.Inputs) {
        if (I == int(P.Index))
          In = true;
        if (!In && I >= 0)
          At += G.Layers[size_t(I)].Out.C;
      }
      Ok = In && concatMember(P, Gch, B) && Readers[P.Index] == 1 && P.Frames == D.Frames &&
           (J == K || P.Index != Plans[J - 1].Index);
      Ds.push_back({P, At});
    }
    if (!Ok)
      continue;
    // The longest trace last, right before the readers: the first reader's
    // weights load under that step (a 1x1 producer's step of a few hundred
    // cycles left a 48-channel reader's 25 KB exposed every group, +9 % on
    // a fire module with a 5x5 expand, 2026-12-06).
    auto Trace = [](const Member &M) { return M.P.L->KH * M.P.L->KW * M.P.L->In.C; };
    std::stable_sort(Ds.begin(), Ds.end(),
                     [&](const Member &A, const Member &B) { return Trace(A) < Trace(B); });
    // The pair's plans go by the first producer's index (LayerPlan::
    // FusedWith): the readers' residuals wait for the layers before it.
    const unsigned Fid = Ds.front().P.Index;
    // The 1x1 convs that read the concat, right after its inputs, all of
    // them; a reader's residual must come before the producers.
    std::vector<bool> Before(G.Layers.size(), false);
    for (size_t J = 0; J < K; ++J)
      Before[Plans[J].Index] = true;
    std::vector<LayerPlan> Ps;
    size_t End = K + N;
    while (Ok && Ps.size() < Readers[size_t(Cat)] && End < Plans.size()) {
      const LayerPlan &Q = Plans[End];
      const ir::Layer &L = *Q.L;
      Ok = fusableConsumer(Q) && L.input() == Cat && L.In.C == CL.Out.C && Q.Frames == D.Frames &&
           (!L.HasResidual || L.Residual < 0 || Before[size_t(L.Residual)]);
      if (Ok) {
        Ps.push_back(consumerPlan(Q, Hw, B));
        Ps.back().FusedWith = int(Fid);
      }
      End = layerEnd(Plans, End);
    }
    if (!Ok || Ps.size() != Readers[size_t(Cat)])
      continue;
    // No pool beside any of them.
    for (size_t J = K; Ok && J < std::min(Plans.size(), End + 1); ++J)
      for (size_t I = K; I < End; ++I)
        Ok &= Plans[J].BesideOf != int(Plans[I].Index);
    if (!Ok)
      continue;
    uint64_t Apart = 0;
    for (size_t J = K; J < End; ++J)
      Apart += Plans[J].EstCycles;
    std::optional<ConcatPair> Best = bestConcatPair(Ds, CL.Out.C, Fid, Ps, Hw, B, DOpts);
    if (!Best || !clearlyCheaper(Best->Ct.Cycles, Apart))
      continue;
    // The estimate split as the simulator counts the layers' cycles, the
    // bytes on the first producer (--emit=plan).
    std::vector<uint64_t> Shares;
    concatPairCost(Best->Ds, Best->Ps, Hw, &Shares);
    std::vector<LayerPlan> Fused;
    for (LayerPlan &P : Best->Ds)
      Fused.push_back(std::move(P));
    for (LayerPlan &P : Best->Ps)
      Fused.push_back(std::move(P));
    for (size_t I = 0; I < Fused.size(); ++I) {
      Fused[I].EstCycles = Shares[I];
      Fused[I].EstDramBytes = I == 0 ? Best->Ct.Bytes : 0;
    }
    Plans.erase(Plans.begin() + long(K), Plans.begin() + long(End));
    Plans.insert(Plans.begin() + long(K), std::make_move_iterator(Fused.begin()),
                 std::make_move_iterator(Fused.end()));
    K += Fused.size() - 1;
  }
}
