//===- FuseBeside.cpp - A pool and its 1x1 readers beside a conv ----------===//
//
// A pool planned beside a conv (PipelinePools.cpp, docs/compiler.md step
// 9a) moves its traffic under that conv's traces, but stores its output
// for the 1x1 convs that read it, which load it back alone afterwards:
// GoogLeNet's conv2_reduce and ResNet-50's layer1_0_conv1 (64 -> 64
// channels at 56x56) each move 401 KB in and 401 KB out for 12.8 M MACs,
// bound by the channel. Fused with its readers (Fuse.cpp) the pool would
// leave the conv, and its 1.2 MB of input would load with nothing to hide
// under. Here the pair stays beside the conv: each group of tiles' pool
// step goes between two of the conv's steps, as a pool step does, in the
// banks of the conv step's input region past the conv's maps (the pool's
// input in one bank, the area after it); the readers' steps follow it and
// read the area there, the last of them freeing the region. The readers'
// weights load once, with the conv's first weights, into the conv's bank
// after its block (weight riders, Sequence.cpp), so the conv keeps its
// weights across the pair's steps and neither reloads. The pool's output
// never crosses DRAM; the readers' stores run beside the conv's traces.
//
// Only where the conv has one weight block for all its steps (one output
// group, one chunk: a stem), the pool one chunk a group of tiles (at most a
// lane group's channels) and everything fits: the conv's block and the
// readers' all in one weights bank, the pool's tile in one maps bank and
// the area in what is left of the region.
//
//===----------------------------------------------------------------------===//

#include "Cost.h"
#include "Fuse.h"
#include "RowSignals.h"
#include "snow/isa/Timing.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <string>

using namespace snow;
using namespace snow::compiler;

std::optional<BesidePair> snow::compiler::besidePair(const std::vector<LayerPlan> &Plans, size_t K,
                                                     const LayerPlan &D,
                                                     const std::vector<LayerPlan> &Ps,
                                                     const isa::HwConfig &Hw, const BufferMap &B,
                                                     const CompileOptions &Opts,
                                                     const CompileOptions &DOpts) {
  // The conv the pool runs beside, right before it, hosting no other plan.
  if (D.BesideOf < 0 || K == 0 || Plans[K - 1].Index != unsigned(D.BesideOf) ||
      llvm::any_of(Plans, [&](const LayerPlan &Q) {
        return Q.BesideOf == D.BesideOf && Q.Index != D.Index;
      }))
    return std::nullopt;
  const LayerPlan &H = Plans[K - 1];
  const uint32_t Bank = Hw.mapsBankElems();
  if (!DOpts.BesidePairs || !Opts.PipelinePools || !Opts.SharePoolRegions || D.IsConv ||
      !D.ShareOffset || D.Frames != 1 || !D.FirstPart || !D.LastPart || !H.IsConv || !H.FirstPart ||
      !H.LastPart || H.Frames != 1 || H.NOg != 1 || H.NChunks != 1 || H.Dynamic || H.PinWeights ||
      H.WeightsOnce || H.CoWeights || H.ToMid || H.FromMid || H.Window.R || H.ReadsWindow ||
      H.BesideOf >= 0 || B.DwInCap != Bank || B.MidOffset != Bank ||
      D.ShareOffset + 2 * Bank > B.InCap)
    return std::nullopt;
  // (Every round of the conv on the same output groups: it never loads
  // its weights again, Sequence.cpp, where the readers' ride.)
  if (llvm::any_of(H.Rounds,
                   [&](const Round &Rd) { return !sameWork(H.Rounds[0], Rd, &Work::Og); }))
    return std::nullopt;
  // The pair in the banks the conv's steps leave: the pool's tile in the
  // first, the area in the rest (a plain area: not banked, not full depth,
  // no pinned weights, which take banks of their own).
  BufferMap Part = B;
  Part.InCap = B.InCap - D.ShareOffset;
  Part.MidCap = Part.InCap - Bank;
  CompileOptions Plain = DOpts;
  Plain.BankedReads = Plain.FullDepthPairs = Plain.PinPairWeights = Plain.FourBankAreas = false;
  const unsigned G = channelGroup(Hw, Opts);
  const uint64_t Busy = Hw.dramCycles(H.EstDramBytes), HostSteps = stepCount(H);
  // The channel time one of the conv's steps leaves idle, under which a
  // group's pool step loads its maps (its load is emitted before that
  // step's traces).
  const uint64_t Idle = H.EstCycles > Busy ? (H.EstCycles - Busy) / HostSteps : 0;
  // What pair Pair costs beside the conv: the pool's windows and the
  // readers' traces on the compute unit; the groups that find no place
  // between the conv's steps (a writing step's, its accumulators free) run
  // after its last, their traffic exposed; and the pair's traffic beyond
  // the channel time the conv leaves idle. Its tiles are chosen by that
  // and by each group's maps beyond the channel time the conv step before
  // it leaves idle (Score): the pool alone beside the conv is planned in
  // steps that fit there too (PipelinePools.cpp), and its estimate, which
  // this one is weighed against, does not count that either. None where
  // it does not fit.
  struct Weight {
    uint64_t Cycles, Score;
  };
  auto Weigh = [&](const PairPlans &Pair) -> std::optional<Weight> {
    const LayerPlan &Dn = Pair.Dn;
    if (Dn.NChunks != 1 || Dn.FullDepth || Dn.Banked || Dn.Straddles || Dn.PinWeights)
      return std::nullopt;
    // The conv's block and every reader block in one weights bank.
    uint64_t Words = H.kernelWords(0) + H.TailWords, Reload = 0, Compute = besideCost(Dn, Hw);
    const uint64_t Groups = Dn.Rounds.size();
    for (const LayerPlan &P : Pair.Pn) {
      if (P.Dynamic || P.PinWeights || P.WeightsOnce || P.NChunks != 1)
        return std::nullopt;
      Words += uint64_t(P.NOg) * (P.kernelWords(0) + P.TailWords);
      Compute += convComputeCycles(P, Hw);
      // (The pair's estimate loads the readers' weights each group of
      // tiles; beside the conv they load once.)
      Reload += uint64_t(P.L->In.C) * P.L->Out.C * 2 * (Groups - 1);
    }
    if (Words > B.WCap)
      return std::nullopt;
    const uint64_t Placed =
        stepsBeside(H, Dn, G, /*Between=*/false, readsHost(H, D), /*Shared=*/true);
    const uint64_t Dram = Hw.dramCycles(Pair.Bytes - std::min(Pair.Bytes, Reload));
    const uint64_t Load = timing::dmaChannelCycles(Hw, uint64_t(std::min(Hw.cus(), Dn.NTiles)) *
                                                           Dn.RowsIn * Dn.ColsIn * Dn.Chunk * 2);
    const uint64_t After = Groups - std::min(Groups, Placed);
    const uint64_t Exposed =
        Dram > Compute ? (Dram - Compute) * After / std::max<uint64_t>(1, Groups) : 0;
    const uint64_t Excess = Busy + Dram > H.EstCycles ? Busy + Dram - H.EstCycles : 0;
    const uint64_t Late = Load > Idle ? (Load - Idle) * std::min(Groups, Placed) : 0;
    return Weight{Compute + Exposed + Excess, Compute + Exposed + Excess + Late};
  };
  // The tiles the pair alone would take first (its producer's rankN, where
  // --tune or --layer-off asks for one), else the best of the first few
  // beside the conv: smaller groups hide their maps under one conv step.
  constexpr unsigned Ranks = 12;
  std::optional<PairPlans> Pair;
  Weight Best{UINT64_MAX, UINT64_MAX};
  for (unsigned Rank = DOpts.PlanRank; Rank < (DOpts.PlanRank ? DOpts.PlanRank + 1 : Ranks);
       ++Rank) {
    Plain.PlanRank = Rank;
    std::optional<PairPlans> Try =
        plainPairPlans(D, Ps, Hw, Part, Plain, "+beside" + std::to_string(D.ShareOffset));
    if (!Try)
      break;
    if (std::optional<Weight> W = Weigh(*Try); W && W->Score < Best.Score)
      Best = *W, Pair = std::move(Try);
  }
  if (!Pair)
    return std::nullopt;
  BesidePair Out{std::move(Pair->Dn), std::move(Pair->Pn), Best.Cycles};
  // The pool stays beside the conv, in its region's banks; the readers
  // read the area there.
  Out.Dn.BesideOf = D.BesideOf;
  Out.Dn.ShareOffset = D.ShareOffset;
  Out.Dn.EstCycles = Out.Dn.BesideCycles = besideCost(Out.Dn, Hw);
  Out.Dn.EstDramBytes = Pair->Bytes;
  for (LayerPlan &P : Out.Pn) {
    P.ShareOffset = D.ShareOffset;
    P.EstCycles = convComputeCycles(P, Hw);
    P.EstDramBytes = 0; // all counted on the pool's plan
  }
  return Out;
}
