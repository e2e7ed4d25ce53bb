//===- EmitProgram.cpp - Steps emitted software pipelined -----------------===//
//
// emitProgram emits the steps makeSteps ordered (Sequence.cpp), software
// pipelined: the next step's loads before (or, balanced, inside) this step's
// compute, a fused pair's next chunks and a next layer's first weights
// early where they hide, the layer's LayerDone after its last stores. See
// Lower.h.
//
//===----------------------------------------------------------------------===//

#include "Cost.h"
#include "Lowerer.h"
#include <algorithm>
#include <cassert>
#include <numeric>

using namespace snow;
using namespace snow::compiler;

void snow::compiler::emitProgram(Emitter &E, const std::vector<Step> &Steps,
                                 const isa::HwConfig &Hw, const BufferMap &B,
                                 const CompileOptions &Opts) {
  Lowerer Low(E, Hw, B, Opts.DmaLoops);
  E.beginRegion("prologue");
  // Both banks of every double-buffered resource start free.
  for (unsigned Bank = 0; Bank < 2; ++Bank) {
    E.signal(Unit::Compute, InFree + Bank);
    E.signal(Unit::Compute, WFree + Bank);
    E.signal(Unit::Store, OutFree + Bank);
  }
  // Maps of fused depthwise steps loaded two steps ahead, and weights of a
  // layer loaded across a pool before it (both below).
  std::vector<bool> Preloaded(Steps.size(), false), WPreloaded(Steps.size(), false);
  // Residuals loaded early (below), and the steps after whose prefetch each
  // goes.
  std::vector<bool> ResPreloaded(Steps.size(), false);
  std::vector<std::vector<size_t>> ResidualAt(Steps.size());
  // A conv started on the rows of the conv before it (startOnRows): its
  // first step's maps load before that conv's last step runs, but not its
  // residual. A residual load takes the output region's OutFree before the
  // compute unit would, and the conv before, which has none, waits for
  // OutFree itself: the two units would race for one signal. So it comes
  // after that conv's LayerDone (Lowerer::loadResidual waits for it).
  auto ResidualAfterDone = [](const Step &S) { return S.FirstOfLayer && S.OnRows; };
  // A layer's LayerDone says its output is all in DRAM. A block triple's
  // expansion and depthwise conv store nothing (they write the area): they
  // signal it with their first step, in layer order still, so that the
  // next block, started on the rows of the triple's projection
  // (startOnRows), waits only for those rows and not for the two layers'
  // last steps, in the triple's last group of tiles.
  auto DoneFirst = [](const Step &S) {
    const LayerPlan &P = *S.P;
    return P.ToMid && !P.StoresToo && P.AccLimit && P.FirstPart && P.LastPart;
  };
  auto SignalsDone = [&](const Step &S) { return DoneFirst(S) ? S.FirstOfLayer : S.LastOfLayer; };
  auto Loads = [&](const Step &S, bool Weights, bool Maps, bool Residual) {
    const size_t I = size_t(&S - Steps.data());
    if (Weights && S.NewW && !WPreloaded[I])
      Low.loadWeights(S);
    else if (Weights && S.TopW) // loaded at the top of its bank: WFree taken
      E.wait(Unit::Load, WFree + S.WBuf);
    if (Maps && S.NewMap && !Preloaded[I] && S.ChunkAt.empty())
      Low.loadMaps(S);
    if (Residual && S.Writes && S.P->L->HasResidual && !S.P->groupResidual() && !ResPreloaded[I])
      Low.loadResidual(S);
  };
  // A fused 1x1 conv's step's stores, where the next step is its plan's,
  // come after that step's compute in program order: a full store queue
  // (28 DMAs an output group of 7x7 tiles) then stalls the control core
  // with the next traces already queued, not before them (MobileNet v1's
  // conv4 and conv5 pairs: 4.4 k cycles; on other plans no gain).
  // Not where a residual, a row signal or the layer's end must follow the
  // stores.
  const Step *Deferred = nullptr;
  // Likewise a fused 1x1 conv's step whose output goes to several slices
  // of other tensors (LayerPlan::Pieces: a DMA a slice a pixel), where the
  // next step is its producer's: ShuffleNet v2's units, whose outputs the
  // channel shuffles split, stalled the control core on the store queue
  // with the producer's next traces not yet issued (zc706 -2.1 k cycles,
  // zc706_paper -1.5 k; the other networks have no such pieces;
  // --no-defer-piece-stores).
  auto PiecesBeforeProducer = [&](size_t I) {
    const LayerPlan &P = *Steps[I].P, &N = *Steps[I + 1].P;
    return Opts.DeferPieceStores && P.Pieces.size() > 1 && N.ToMid && !N.FromMid &&
           int(N.Index) == P.FusedWith;
  };
  auto Body = [&](const Step &S, const Emitter::Block *Mid) {
    if (S.FirstOfLayer || S.Remark) {
      E.beginRegion("layer '" + S.P->L->Name + "'");
      E.mark(S.P->Index);
    }
    Low.compute(S, Mid);
    if (Deferred)
      Low.store(*Deferred);
    Deferred = nullptr;
    const size_t I = size_t(&S - Steps.data());
    const bool Defer = S.Writes && S.P->IsConv && S.P->FromMid && !S.P->L->HasResidual &&
                       !S.LastOfPlan && !S.DoneSignals && I + 1 < Steps.size() &&
                       (Steps[I + 1].P == S.P || PiecesBeforeProducer(I));
    if (Defer)
      Deferred = &S;
    else if (S.Writes)
      Low.store(S);
    for (unsigned F = 0; F < S.DoneSignals; ++F)
      E.signal(Unit::Store, RowsDone);
  };
  if (!Opts.DoubleBuffer) {
    for (const Step &S : Steps) {
      if (S.FirstOfLayer) {
        E.beginRegion("layer '" + S.P->L->Name + "'");
        E.mark(S.P->Index);
      }
      Loads(S, true, true, true);
      Low.compute(S);
      if (S.Writes)
        Low.store(S);
      if (S.LastOfLayer)
        E.signal(Unit::Store, LayerDone);
    }
    E.halt();
    return;
  }
  // FreedBy[J]: the step whose compute signals the InFree that step J's
  // maps load waits for (the last before J to use J's input region), or -1.
  std::vector<long> FreedBy(Steps.size(), -1);
  {
    long Last[2] = {-1, -1};
    for (size_t J = 0; J < Steps.size(); ++J) {
      FreedBy[J] = Last[Steps[J].InBuf];
      if (Steps[J].LastMapUse && !Steps[J].DeferInFree)
        Last[Steps[J].InBuf] = long(J);
      if (Steps[J].FreeMid)
        Last[Steps[J].MidBuf] = long(J);
      if (Steps[J].FreeOther)
        Last[1 - Steps[J].MidBuf] = long(J);
    }
  }
  // A full-depth producer's next group of tiles, tile by tile over the 1x1
  // steps of the group before, from the first after the step that frees
  // its region: each part after that step's weights in the load queue, so
  // neither waits for the other (loaded at once two steps ahead, MobileNet
  // v1's conv5 and conv7 groups of 230 and 276 KB held the channel while
  // output groups' stores waited: 7.2 k cycles in all; a DMA a row,
  // loadRegion, 15.4 k more). Likewise a conv's next round, over the
  // steps of the round before that load no maps (its output groups on
  // them), from the layer's first step on where its region was free
  // before: loaded one step ahead, under the round's last output group
  // only, GoogLeNet's i3b reduce convs' second round of 200 KB left the
  // traces waiting 7 k cycles (SpreadMapLoads). The steps between load no
  // maps, so the round's row waits (RowsDone) stay in program order.
  std::vector<std::vector<std::pair<size_t, unsigned>>> MapPartsAt(Steps.size());
  std::vector<unsigned> MapParts(Steps.size(), 0);
  // Step J's maps spread: a part a tile of its round at most, part p loaded
  // with the prefetch of step At[p].
  auto SpreadMaps = [&](size_t J, const std::vector<size_t> &At) {
    const Round &Rd = Steps[J].round();
    const unsigned Tiles = unsigned(
        std::count_if(Rd.Cus.begin(), Rd.Cus.end(), [](const Work &W) { return W.active(); }));
    const unsigned N = unsigned(std::min<size_t>(At.size(), std::max(1u, Tiles)));
    MapParts[J] = N;
    Preloaded[J] = true;
    for (unsigned Part = 0; Part < N; ++Part)
      MapPartsAt[At[Part]].push_back({J, Part});
  };
  for (size_t J = 1; J < Steps.size(); ++J) {
    const Step &S = Steps[J];
    const LayerPlan &P = *S.P;
    if (!S.NewMap || S.FirstOfLayer || !S.ChunkAt.empty() || FreedBy[J] < 0 || P.PerBank ||
        P.groupResidual())
      continue;
    size_t K0 = size_t(FreedBy[J]) + 1;
    // Whether the steps [K0, J), at least three, all load under Pred.
    auto Under = [&](auto Pred) {
      bool All = K0 + 2 < J;
      for (size_t K = K0; All && K < J; ++K)
        All = Pred(K, Steps[K]);
      return All;
    };
    bool Readers = false;
    if (P.ToMid && P.FullDepth && !P.Banked && Opts.SpreadGroupLoads) {
      Readers = Under(
          [&](size_t, const Step &T) { return T.P->FromMid && T.P->FusedWith == P.FusedWith; });
    } else if (Opts.SpreadMapLoads && P.ToMid && !P.FromMid && P.AccLimit) {
      // A block triple's next group of tiles (FuseBlocks.cpp), window by
      // window over the group before's steps from its first that loads no
      // maps: loaded a step ahead, under a chunk's projection only,
      // MobileNet v2's block3 waited 2.1 k cycles for each group's windows.
      for (size_t K = K0; K < J; ++K)
        if (Steps[K].NewMap)
          K0 = K + 1;
      Readers = Under([&](size_t, const Step &T) { return T.P->FusedWith == P.FusedWith; });
    } else if (Opts.SpreadMapLoads && P.IsConv && !P.ToMid && !P.FromMid && !P.Depthwise &&
               !P.Elementwise && !P.CopyBanks && !S.round().Mixed && !S.Late && !S.SharesRegion) {
      while (K0 < J && Steps[K0].P != &P)
        ++K0;
      Readers = Under([&](size_t K, const Step &T) { return T.P == &P && (K == K0 || !T.NewMap); });
    }
    if (!Readers)
      continue;
    std::vector<size_t> At(J - 1 - K0);
    std::iota(At.begin(), At.end(), K0); // the steps from K0 on
    SpreadMaps(J, At);
  }
  // A fused pair's next group of tiles: its first depthwise chunks load
  // while the 1x1 steps before them compute (they load no maps, so both
  // input regions are free), up to two steps ahead, once the region's
  // InFree has been signalled (every wait after the signal it consumes).
  auto Preload = [&](size_t K) {
    const size_t J = K + 2;
    if (J >= Steps.size())
      return;
    const Step &S = Steps[J], &Between = Steps[J - 1];
    if (!S.P->ToMid || !S.NewMap || S.FirstOfLayer || Preloaded[J] || !S.ChunkAt.empty() ||
        FreedBy[J] >= long(K) || (Between.NewMap && !Preloaded[J - 1]))
      return;
    Low.loadMaps(S);
    Preloaded[J] = true;
  };
  // The step after K's next steps of layers without weights (a pool's)
  // that is a conv's or loads weights (or the end); K + 1 where the next
  // is one.
  auto PastWeightless = [&](size_t K) {
    size_t J = K + 1;
    while (J < Steps.size() && !Steps[J].P->IsConv && !Steps[J].NewW)
      ++J;
    return J;
  };
  // Whether step J, past such steps, loads weights that may load ahead of
  // them, where nothing loads them already.
  auto LoadsAhead = [&](size_t K, size_t J) {
    const Step &T = Steps[J];
    return J != K + 1 && J < Steps.size() && T.NewW && !T.P->Dynamic && !T.PinReader &&
           !T.P->WeightsOnce && !WPreloaded[J];
  };
  // A layer boundary through layers without weights (conv, pool, conv): the
  // pool's maps wait for this layer's LayerDone, and the next conv's first
  // weights, prefetched with the pool's last step, queue behind its maps and
  // hide only under its windows' compute. Loaded now instead, beside this
  // step's compute, into the bank the step before this one freed (its
  // signal is emitted already), they hide under the channel time this last
  // step leaves idle: a step's share of the layer's estimate less its share
  // of the layer's stores (a last step prefetches no maps); what sticks out
  // delays this step's stores, which the pool waits for. Whichever leaves
  // less exposed wins, a tie stays late: tiny.yaml's first conv is too short
  // for its second conv's weights (1,256 cycles lost if loaded early). Not
  // after a depthwise conv: its estimate is its traffic (EfficientNet-B0's
  // squeeze-excitation boundaries lost 1,198 to 5,324 cycles on four
  // presets under a plain idle-time test).
  auto PreloadWeights = [&](size_t K) {
    const LayerPlan &P = *Steps[K].P;
    if (K + 1 >= Steps.size() || !Steps[K + 1].FirstOfLayer || !P.IsConv || P.Depthwise)
      return;
    const size_t J = PastWeightless(K);
    if (!LoadsAhead(K, J) || !Steps[J].FirstOfLayer || Steps[J].P->FromMid)
      return;
    const uint64_t Idle = lastStepIdle(P, stepCount(P), Hw);
    const uint64_t W = Hw.dramCycles(Low.weightBytes(Steps[J]));
    // Loaded late, they queue behind the maps of the step before J and hide
    // only under that step's compute: a pool's windows (besideCost).
    const LayerPlan &Q = *Steps[J - 1].P;
    const uint64_t Hide = lastStepHide(Q, stepCount(Q), Hw);
    auto Exposed = [&](uint64_t Under) { return W > Under ? W - Under : 0; };
    if (Exposed(Idle) >= Exposed(Hide))
      return;
    Low.loadWeights(Steps[J]);
    WPreloaded[J] = true;
  };
  // A step of a layer without weights between two steps of convs, where
  // its maps load early, for it does not read the conv before (GoogLeNet's
  // inception pool reads the block's input; its 1x1 conv reads it on chip,
  // a group of tiles at a time): the next conv step's weights, loaded with
  // the pool's last step (its channel chunks are steps), queued only once
  // the control core had queued the pool's other chunks' windows, behind a
  // full compute queue, and the 1x1 conv waited for them (2 to 4 k cycles
  // a group of tiles, i3b to i4e). Loaded right behind the pool's maps
  // instead, they come in no later whatever the steps' lengths (the load
  // queue is in order and the pool's steps load no weights), where their
  // bank was freed by a step before this one. They go ahead of the maps
  // of the pool's later steps, if it loads any: GoogLeNet's 7x7 pools
  // (i5a, i5b) then wait up to 1.5 k cycles more, and their 1x1 convs
  // 3.9 k less.
  auto PreloadBehindMaps = [&](size_t K) {
    if (K + 1 >= Steps.size() || Steps[K + 1].P->Dynamic)
      return;
    const size_t J = PastWeightless(K);
    if (!LoadsAhead(K, J) || !Steps[J].P->IsConv || Steps[J].PinProducer || Steps[J].Rides)
      return;
    const Step &T = Steps[J];
    // Past one layer's steps only, and no step from this one on frees T's
    // bank: the WFree it waits for was signalled by a step whose compute is
    // emitted already.
    for (size_t L = K; L < J; ++L)
      if ((L > K && Steps[L].P != Steps[K + 1].P) ||
          (Steps[L].LastWUse && Steps[L].WBuf == T.WBuf) || Steps[L].FreeW2 >= 0)
        return;
    Low.loadWeights(T);
    WPreloaded[J] = true;
  };
  // A layer's first weights go into the bank the layer before has left
  // free since its own weights loaded: loaded one step ahead (above), they
  // hide under that layer's last step only, and a kernel-stationary layer
  // that keeps one weight set over many rounds (ShuffleNet v2's 7x7 1x1
  // convs: seven rounds on 108 KB of weights) leaves the channel idle
  // through the others, then waits for them. Spread instead, their blocks
  // in order, over the steps since that layer's weights were loaded: each
  // part after those steps' own prefetch, the bank's WFree wait with the
  // first part (the step that signals it comes before in program order,
  // so no load behind it waits for a step not yet issued), WFull with
  // the last.
  std::vector<std::vector<std::pair<size_t, unsigned>>> WPartsAt(Steps.size());
  std::vector<unsigned> WParts(Steps.size(), 0);
  if (Opts.SpreadWeights) {
    long LastNewW = -1;
    for (size_t J = 0; J < Steps.size(); ++J) {
      const Step &S = Steps[J];
      if (!S.NewW)
        continue;
      const long From = LastNewW;
      LastNewW = long(J);
      // (A pinned pair's load takes both banks: not spread.)
      if (!S.FirstOfLayer || S.P->Dynamic || S.PinReader || S.PinProducer || S.P->WeightsOnce ||
          From < 0 || J - size_t(From) < 2)
        continue;
      // Only over one conv's steps (its rounds on one weight set): across
      // a pool the EarlyWeights rule above decides.
      bool OneConv = true;
      for (size_t K = size_t(From); K < J; ++K)
        OneConv &= Steps[K].P == Steps[size_t(From)].P || Steps[K].Rides;
      if (!OneConv)
        continue;
      const unsigned N = unsigned(J - size_t(From));
      WParts[J] = N;
      WPreloaded[J] = true;
      for (unsigned Part = 0; Part < N; ++Part)
        WPartsAt[size_t(From) + Part].push_back({J, Part});
    }
  }
  // A layer's first weights at the top of their bank (TopWeights.cpp): a
  // part after each prefetch of the layer before's steps from its first
  // load into the bank on, the last after its last load there.
  for (size_t J = 0; J < Steps.size(); ++J) {
    const Step &S = Steps[J];
    if (!S.TopW)
      continue;
    // (The step before it loads its own blocks: never spread above.)
    assert(!WPreloaded[J] && "a step at the top of its bank is spread by nothing else");
    const unsigned N = unsigned(S.TopLast - S.TopFrom + 1);
    WParts[J] = N;
    WPreloaded[J] = true;
    for (unsigned Part = 0; Part < N; ++Part)
      WPartsAt[S.TopFrom + Part].push_back({J, Part});
  }
  // A full-depth fused producer started on rows loads chunk by chunk, each
  // part after the step of the layer before it that stores the part's
  // channels (Step::ChunkAt): in program order after the signals it waits
  // for, and spread over that layer's steps, so the load queue never holds
  // loads waiting for steps the control core has yet to issue. Not right
  // after that step but after the one after it: the control core passes a
  // step as soon as it has queued its traces, long before its stores are
  // done, and a part queued then holds the load queue (the next steps'
  // weights behind it) until they are; a part of a few dozen DMAs fills it,
  // and the control core, stalled on it, leaves the compute unit without
  // traces (MobileNet v1's and v2's last groups of tiles before a full-depth
  // pair: 14 k and 13 k cycles in all, zc706).
  std::vector<std::vector<std::pair<size_t, unsigned>>> PartsAfter(Steps.size());
  // DoneAt[n]: the step after which the n-th LayerDone is signalled.
  std::vector<size_t> DoneAt;
  for (size_t K = 0; K < Steps.size(); ++K)
    if (SignalsDone(Steps[K]))
      DoneAt.push_back(K);
  for (size_t J = 0; J < Steps.size(); ++J) {
    const Step &S = Steps[J];
    if (S.ChunkAt.empty())
      continue;
    // Not before the InFree the first part waits for is signalled, nor
    // before the LayerDone signals it waits for (Lowerer::waitForRegion).
    size_t At = size_t(std::max<long>(FreedBy[J], 0));
    // (Layers up to ordinal NeedsDone, or the one before where it reads
    // the layer it starts beside.)
    const long Needed = S.FirstOfLayer ? S.P->NeedsDone + (S.ReadsBeside ? 0 : 1) : 0;
    if (Needed > 0 && size_t(Needed) <= DoneAt.size())
      At = std::max(At, DoneAt[size_t(Needed) - 1]);
    for (unsigned Ch = 0; Ch < S.ChunkAt.size(); ++Ch) {
      At = std::max(At, S.ChunkAt[Ch]);
      assert(At < J && "a chunk loads after the step storing it");
      PartsAfter[std::min(At + 1, J - 1)].push_back({J, Ch});
    }
  }
  // A block triple's first group of tiles, started on the rows of the
  // block triple before it (startOnRows), window by window over that
  // triple's last steps, from the first after the signals its loads wait
  // for (the InFree of its region, the RowsDone of the rows it reads and the
  // LayerDone of the layers before: a triple's expansion and depthwise conv
  // signal theirs with their first steps, DoneFirst), and after the steps
  // that load maps. Loaded one step ahead of the block's first step, behind
  // the last group's weights, they came in over the channel the group had
  // left idle through its traces: MobileNet v2's block4 waited 3.4 k cycles
  // for its first windows after block3's last trace.
  if (Opts.EarlyBlockWindows)
    for (size_t J = 1; J < Steps.size(); ++J) {
      const Step &S = Steps[J];
      const LayerPlan &P = *S.P;
      if (!S.FirstOfLayer || !S.NewMap || !S.ReadsBeside || S.Late || S.DoneUpTo >= 0 ||
          Preloaded[J] || !S.ChunkAt.empty() || FreedBy[J] < 0 || !P.ToMid || P.FromMid ||
          !P.AccLimit || P.PerBank || P.groupResidual() || !Steps[J - 1].P->AccBase)
        continue;
      // The RowsDone signals consumed up to J's loads, and the step that
      // emits the last of them.
      uint64_t Waits = S.DoneWaits, Signals = 0;
      for (size_t K = 0; K < J; ++K) {
        Waits += Steps[K].DoneWaits;
        for (unsigned W : Steps[K].ChunkWaits)
          Waits += W;
      }
      size_t K0 = size_t(FreedBy[J]) + 1;
      for (size_t K = 0; K < J && Signals < Waits; ++K)
        if ((Signals += Steps[K].DoneSignals) >= Waits)
          K0 = std::max(K0, K + 1);
      const long UpTo = P.NeedsDone - 1; // (ReadsBeside: the layers before the conv it reads)
      if (Signals < Waits || (UpTo > 0 && size_t(UpTo) > DoneAt.size()))
        continue;
      if (UpTo > 0)
        K0 = std::max(K0, DoneAt[size_t(UpTo) - 1] + 1);
      for (size_t K = K0; K < J; ++K)
        if (Steps[K].NewMap)
          K0 = K + 1;
      // Over the triple before's steps only, none waiting for rows, and
      // every other step's chunk waits (PartsAfter) on their side of J's in
      // program order: RowsDone signals go to waits in that order.
      bool Over = K0 + 2 < J;
      for (size_t K = K0; Over && K < J; ++K)
        Over = Steps[K].P->FusedWith == Steps[J - 1].P->FusedWith && !Steps[K].DoneWaits &&
               Steps[K].ChunkWaits.empty();
      for (size_t K = 0; Over && K < J; ++K)
        for (auto [Jp, Ch] : PartsAfter[K])
          Over &= K < K0 && Jp < J;
      // Each part ahead of an expansion step, the triple's longest: ahead of
      // a depthwise or projection step, a part held the next step's weights
      // (behind it in the load queue) past that short step's end, and
      // MobileNet v2's block2 waited 1.3 k cycles in its last rounds.
      std::vector<size_t> At;
      for (size_t K = K0; Over && K + 1 < J; ++K)
        if (Steps[K + 1].P->ToMid && !Steps[K + 1].P->FromMid)
          At.push_back(K);
      if (Over && !At.empty())
        SpreadMaps(J, At);
    }
  // A fused 1x1 conv's residual loads, one step ahead of its writeback, into the
  // output region once the store unit has read the group of tiles before
  // out of it (Lowerer::loadResidual). In a block triple that step is its
  // group's last depthwise one: the channel idles through the group's
  // other steps (their maps are on chip), and at the block's end the next
  // block's first windows queue behind the residual (MobileNet v2's block3
  // on zc706: a 37 KB residual from 3.3 k cycles before the block's end,
  // block4's windows after it, its first trace 4.8 k cycles after block3's
  // last). Loaded half way through the group's steps instead, after the
  // stores of the group before in program order (the OutFree it waits for
  // is theirs), it comes in under the group's traces; at least two steps
  // after those stores, so that the loads queued behind it (the next steps'
  // weights) do not wait for them. The first group's from the fusion's
  // first step on, where that step's maps (which waited for the layer
  // they read) are the block's input, the residual. Only a triple's
  // projection: a fused pair's 1x1 conv shares the channel with its
  // depthwise conv's loads, and EfficientNet-B0's pairs so ran 18.0 k
  // cycles longer.
  // The load unit reaches the residual's OutFree wait only after the
  // weights queued before it, whose WFree a step after From signals: by
  // then the compute unit has passed every writeback before, which waits
  // for OutFree too (the two units would race for one signal otherwise;
  // the fusion's steps between write the area, not the output region).
  if (Opts.EarlyResiduals)
    for (size_t J = 1; J < Steps.size(); ++J) {
      const Step &S = Steps[J];
      const LayerPlan &P = *S.P;
      if (!S.Writes || !P.FromMid || !P.MidOut || P.ToMid || !P.L->HasResidual ||
          P.groupResidual() || ResidualAfterDone(S))
        continue;
      // The step that wrote the group before, with only the fusion's steps
      // since, or the fusion's first.
      size_t From = J;
      bool Group = false;
      for (size_t K = J; K-- > 0 && Steps[K].P->FusedWith == P.FusedWith;) {
        From = K;
        if ((Group = Steps[K].P == &P && Steps[K].Writes))
          break;
      }
      if (!Group && !(Steps[From].NewMap && Steps[From].P->L->input() == P.L->Residual))
        continue;
      const size_t At = From + std::max<size_t>(2, (J - From) / 2);
      if (At + 1 >= J)
        continue;
      const Step &W = Steps[At + 1], &Before = Steps[At - 1];
      if (!W.NewW || WPreloaded[At + 1] || !Before.LastWUse || Before.WBuf != W.WBuf)
        continue;
      ResidualAt[At].push_back(J);
      ResPreloaded[J] = true;
    }
  if (!Steps.empty())
    Loads(Steps[0], true, true, true);
  for (size_t K = 0; K < Steps.size(); ++K) {
    const Step &S = Steps[K];
    const Step *Next = K + 1 < Steps.size() ? &Steps[K + 1] : nullptr;
    // Prefetch: the next step's weights always; its maps within the layer,
    // or for a new layer that does not read this one's output (its maps
    // only wait for older layers, whose LayerDone was signalled already).
    // A fused 1x1 step's maps are on chip: only a residual, of older layers.
    // Not where this step frees the region they go to (a straddling
    // fusion's last step frees both, Step::FreeOther): loaded before its
    // compute, they would wait for it with its traces not yet issued, and
    // where they outnumber a queue (big4096's sixteen CUs, a region a CU)
    // the control core would stall on them before issuing those traces.
    const bool FreesNext = Next && (S.FreeOther || (S.FreeMid && S.MidBuf == Next->InBuf));
    const bool EarlyMaps =
        Next && !FreesNext &&
        (Next->P == S.P || Next->P->FromMid ||
         (Next->DoneUpTo >= 0 ? Next->DoneUpTo : Next->P->NeedsDone) < S.P->Ordinal ||
         (Next->Pipelined && !Next->Late));
    // A pinned pair's last step frees both weights banks (Step::FreeW2):
    // the next step's weights load after it.
    const bool LateWeights = S.FreeW2 >= 0;
    // Memory-access balancing: the load unit starts the next step's loads
    // with a wait for banks that this step's predecessor frees, so they queue
    // up behind it. If they fill the queue, the control core would stall on
    // it before it had issued this step's traces, and the compute unit would
    // idle; the loads beyond three quarters of a queue go half way through
    // this step's trace loop instead. (Half a queue, the first choice, moved
    // loads that fit: the many-chunk convs of GoogLeNet and VGG-16 then
    // waited for their maps, 0.3 points of their conv-layer efficiency.)
    Emitter::Block Tail;
    if (Next) {
      const uint32_t From = E.pc();
      Low.resetCuts();
      // Run-time weights of a new layer wait for their producer like maps.
      Loads(*Next, (EarlyMaps || !Next->P->Dynamic) && !LateWeights, EarlyMaps,
            EarlyMaps && !ResidualAfterDone(*Next));
      Preload(K);
      if (!EarlyMaps && Opts.EarlyWeights && !LateWeights)
        PreloadWeights(K);
      if (EarlyMaps && Opts.EarlyWeights && !LateWeights)
        PreloadBehindMaps(K);
      for (auto [J, Part] : WPartsAt[K])
        Low.loadWeightsPart(Steps[J], Part, WParts[J]);
      for (auto [J, Part] : MapPartsAt[K])
        Low.loadMapsPart(Steps[J], Part, MapParts[J]);
      for (size_t J : ResidualAt[K])
        Low.loadResidual(Steps[J]);
      const uint64_t Room = Hw.QueueDepth * 3 / 4;
      if (Opts.BalanceLoads && Low.ops() > Room) {
        // Cut at the last safe place with at most three quarters of a
        // queue of operations before it.
        uint32_t Cut = 0;
        for (auto [Pc, Ops] : Low.cuts())
          if (Ops <= Room && Pc > From)
            Cut = Pc;
        if (Cut) {
          Emitter::Block All = E.takeFrom(From);
          Tail = All.splitAt(Cut - From);
          E.append(All);
        }
      }
    }
    Body(S, Tail.size() ? &Tail : nullptr);
    if (Next && LateWeights && !Next->P->Dynamic)
      Loads(*Next, true, false, false);
    if (SignalsDone(S))
      E.signal(Unit::Store, LayerDone);
    if (S.LastOfLayer) {
      if (Next && !EarlyMaps)
        Loads(*Next, Next->P->Dynamic, true, true);
      else if (Next && ResidualAfterDone(*Next))
        Loads(*Next, false, false, true);
    } else if (FreesNext) {
      Loads(*Next, false, true, !ResidualAfterDone(*Next));
    }
    // (Run-time weights after the LayerDone their producer may wait for.)
    if (Next && LateWeights && Next->P->Dynamic && EarlyMaps)
      Loads(*Next, true, false, false);
    for (auto [J, Ch] : PartsAfter[K])
      Low.loadMapsChunk(Steps[J], Ch);
  }
  E.halt();
}
