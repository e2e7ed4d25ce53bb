//===- Replan.cpp - Layers planned again once their neighbours are known ---===//
//
// The planner plans layers one by one, in parallel, before their order and
// the fused pairs are known. Three things it cannot see are settled here, in
// program order, by planning a layer again:
//
// * Prefetch windows. A conv's first weights load while the layer before
//   computes, but only under that layer's last step: the weights banks are
//   double-buffered, and the bank the next layer's first weights go to is
//   the one the step before the last used. Planned alone, they count as
//   prefetched; a plan whose first round gives each CU an output group of
//   its own needs a group's weights per CU first (ShuffleNet v2's conv5:
//   238 KB, 17.7 k channel cycles, behind a 3.6 k-cycle step). Such a conv
//   is planned again with the window the plans before leave
//   (LayerPlan::PrefetchWindow). Only windows that the chosen plan overruns
//   matter: a window only adds to costs, so a plan that fits it stays best.
// * Whole layers before fused pairs. A fused pair's producer loads its
//   input as the layer before stores it (startOnRows); a layer in two parts
//   over its output channels (RemainderTiles) stores its last channels only
//   at its end, and the pair waits (MobileNet v2's 14x14 expansions of six
//   output groups: 9 k cycles saved each, 10.4 k lost by the pair after).
//   Such a layer is planned again whole (and a dense producer in two parts
//   is weighed for a pair whole: fusePairs).
// * Flat 1x1 convs. Which 1x1 convs run alone, outside any fusion and with
//   no pool beside them, is known only now: each such conv is planned
//   again on its map as one row of pixels (LayerPlan::FlatW), where a small
//   map's pixels split evenly over the CUs.
//
//===----------------------------------------------------------------------===//

#include "Replan.h"
#include "Batch.h"
#include "Cost.h"
#include "Fuse.h"
#include "Lower.h"
#include "snow/isa/Timing.h"

using namespace snow;
using namespace snow::compiler;

/// The window the plans before Plans[K] leave for its first weights, as
/// EmitProgram.cpp loads them (Plans[Swap] replaced by *With, if given):
/// after a conv, with its last step's prefetch, under that step. After
/// layers without weights (pools), either with the last of those steps,
/// queued behind its maps and hidden under its windows' compute only, or
/// (EarlyWeights) beside the last step of the conv before them, under the
/// channel time that step leaves idle: whichever is longer. (After a conv,
/// the whole step: counting only the channel time it leaves idle replans
/// more layers than the simulator finds waiting, ResNet-50 +11 k cycles;
/// counting all the rounds SpreadWeights spreads over keeps plans it finds
/// slower, SqueezeNet 1.1 +7.7 k.)
static uint64_t windowBefore(const std::vector<LayerPlan> &Plans, size_t K,
                             const CompileOptions &Opts, const isa::HwConfig &Hw,
                             size_t Swap = SIZE_MAX, const LayerPlan *With = nullptr) {
  auto At = [&](size_t I) -> const LayerPlan & { return I == Swap ? *With : Plans[I]; };
  auto Steps = [](const LayerPlan &P) { return uint64_t(std::max<size_t>(stepCount(P), 1)); };
  if (K == 0)
    return 0;
  const LayerPlan &Prev = At(K - 1);
  if (Prev.IsConv)
    return Prev.EstCycles / Steps(Prev);
  const uint64_t Hide = lastStepHide(Prev, Steps(Prev), Hw);
  size_t C = K - 1;
  while (C > 0 && !At(C - 1).IsConv)
    --C;
  if (C == 0 || !Opts.EarlyWeights || At(C - 1).Depthwise)
    return Hide;
  const LayerPlan &Conv = At(C - 1);
  // The layers between that do not read the conv prefetch their maps
  // under its last step too, ahead of the weights' turn on the channel
  // (GoogLeNet's pool3 parts before i4a: three of four read older convs).
  uint64_t Between = 0;
  for (size_t J = C; J < K; ++J)
    if (At(J).L->input() != int(Conv.Index))
      Between += timing::dmaChannelCycles(Hw, At(J).EstDramBytes);
  const uint64_t Idle = lastStepIdle(Conv, Steps(Conv), Hw);
  return std::max(Hide, Idle > Between ? Idle - Between : 0);
}

/// Whether the layer whose plans end at Plans[End - 1] feeds the fused
/// pair planned right after it, which starts on its stores.
static bool feedsPair(const std::vector<LayerPlan> &Plans, size_t End) {
  return End < Plans.size() && Plans[End].ToMid &&
         Plans[End].L->input() == int(Plans[End - 1].Index);
}

/// Opts, without RemainderTiles where the layer feeds a fused pair.
static CompileOptions optionsFor(const std::vector<LayerPlan> &Plans, size_t End,
                                 const CompileOptions &Opts) {
  CompileOptions O = Opts;
  O.RemainderTiles &= !feedsPair(Plans, End);
  return O;
}

void snow::compiler::planWholeBeforePairs(const ir::Graph &G, const isa::HwConfig &Hw,
                                          const BufferMap &B, const CompileOptions &Opts,
                                          const std::vector<unsigned> &Frames,
                                          const std::vector<uint64_t> &Penalty,
                                          std::vector<LayerPlan> &Plans) {
  const std::vector<bool> HasBeside = poolsBeside(G, Plans);
  replanLayers(Plans, [&](size_t K, size_t End) -> std::optional<std::vector<LayerPlan>> {
    const unsigned I = Plans[K].Index;
    // (A layer with run-time weights runs as a copy per frame in a batch,
    // splitDynamicByFrame: left as planned.)
    if (!Plans[End - 1].RestTiles || !feedsPair(Plans, End) || HasBeside[I] || Plans[K].Dynamic)
      return std::nullopt;
    return planAgain(G, I, Hw, B, optionsFor(Plans, End, Opts), Frames[I], Penalty[I]);
  });
}

void snow::compiler::planPrefetchWindows(const ir::Graph &G, const isa::HwConfig &Hw,
                                         const BufferMap &B, const CompileOptions &Opts,
                                         const std::vector<unsigned> &Frames,
                                         const std::vector<uint64_t> &Penalty,
                                         std::vector<LayerPlan> &Plans) {
  if (!Opts.PrefetchWindows || !Opts.DoubleBuffer)
    return;
  const std::vector<bool> HasBeside = poolsBeside(G, Plans);
  replanLayers(Plans, [&](size_t K, size_t End) -> std::optional<std::vector<LayerPlan>> {
    const LayerPlan &P = Plans[K];
    const unsigned I = P.Index;
    // A pool beside a conv was planned for that conv's steps; a layer with
    // run-time weights loads them per frame (splitDynamicByFrame).
    if (!P.IsConv || P.Depthwise || P.Dynamic || P.BesideOf >= 0 || HasBeside[I] ||
        P.FusedWith >= 0)
      return std::nullopt;
    const uint64_t Window = windowBefore(Plans, K, Opts, Hw);
    const uint64_t Exposed = firstWeightsExposed(P, Hw, Window);
    if (!Exposed)
      return std::nullopt;
    auto Again =
        planAgain(G, I, Hw, B, optionsFor(Plans, End, Opts), Frames[I], Penalty[I], Window);
    // The next plan that takes weights loads its first under this layer's
    // last step: a plan of shorter steps narrows its window.
    size_t Next = End;
    while (Next < Plans.size() && !Plans[Next].IsConv)
      ++Next;
    auto NextExposed = [&](const LayerPlan &Last) {
      return Next < Plans.size() && Plans[Next].Index != I
                 ? firstWeightsExposed(Plans[Next], Hw,
                                       windowBefore(Plans, Next, Opts, Hw, End - 1, &Last))
                 : 0;
    };
    // Only a plan whose first weights, and the next layer's, wait less is
    // taken: one that waits as long won on other terms by less than the
    // estimate's error (an fc layer's rounds of one pixel: full depth or
    // not, the same weights).
    if (Again && firstWeightsExposed(Again->front(), Hw, Window) + NextExposed(Again->back()) >=
                     Exposed + NextExposed(Plans[End - 1]))
      return std::nullopt;
    return Again;
  });
}

/// Whether layer plans [K, End) are a conv that runs alone: no fusion, no
/// pool beside it, one frame (a fusion's area, a pool beside it and a
/// batch's frames are laid out by the map's rows), run-time weights none.
static bool runsAlone(const std::vector<LayerPlan> &Plans, size_t K, size_t End,
                      const std::vector<unsigned> &Frames, const std::vector<bool> &HasBeside) {
  const LayerPlan &P = Plans[K];
  if (!P.IsConv || P.Depthwise || P.Elementwise || P.Dynamic || Frames[P.Index] != 1 ||
      HasBeside[P.Index] || P.BesideOf >= 0)
    return false;
  for (size_t J = K; J < End; ++J)
    if (Plans[J].FusedWith >= 0 || Plans[J].ToMid || Plans[J].FromMid)
      return false;
  return true;
}

/// replanLayers over the convs that run alone (runsAlone): Again gets a
/// layer's plans [K, End), the layer, its options (CompileOptions::
/// forLayer) and whether its output is a slice of a concat's tensor.
static void
replanAlone(const ir::Graph &G, const CompileOptions &Opts, const std::vector<unsigned> &Frames,
            std::vector<LayerPlan> &Plans,
            llvm::function_ref<std::optional<std::vector<LayerPlan>>(
                size_t K, size_t End, const ir::Layer &L, const CompileOptions &LOpts, bool Sliced)>
                Again) {
  const std::vector<bool> HasBeside = poolsBeside(G, Plans);
  const std::vector<bool> Sliced = slicedOutputs(G);
  replanLayers(Plans, [&](size_t K, size_t End) -> std::optional<std::vector<LayerPlan>> {
    if (!runsAlone(Plans, K, End, Frames, HasBeside))
      return std::nullopt;
    const unsigned I = Plans[K].Index;
    std::optional<CompileOptions> Own;
    return Again(K, End, G.Layers[I], Opts.forLayer(G.Layers[I], Own), Sliced[I]);
  });
}

void snow::compiler::planFlatPointwise(const ir::Graph &G, const isa::HwConfig &Hw,
                                       const BufferMap &B, const CompileOptions &Opts,
                                       const std::vector<unsigned> &Frames,
                                       const std::vector<uint64_t> &Penalty,
                                       std::vector<LayerPlan> &Plans) {
  replanAlone(G, Opts, Frames, Plans,
              [&](size_t K, size_t End, const ir::Layer &L, const CompileOptions &LOpts,
                  bool Sliced) -> std::optional<std::vector<LayerPlan>> {
                const LayerPlan &P = Plans[K];
                const unsigned I = P.Index;
                // A layer given a rank (CompileOptions::LayerOff, rankN) takes its
                // N+1-th plan on rows: the ranks a search walks stay those of one list.
                if (!LOpts.FlatPointwise || LOpts.PlanRank || !pointwise(L) || L.Out.H < 2)
                  return std::nullopt;
                uint64_t Cycles = 0, Compute = 0;
                for (size_t J = K; J < End; ++J) {
                  Cycles += Plans[J].EstCycles;
                  Compute += convComputeCycles(Plans[J], Hw);
                }
                auto Flat = std::make_shared<ir::Layer>(L);
                Flat->In.W = Flat->Out.W = L.Out.H * L.Out.W;
                Flat->In.H = Flat->Out.H = 1;
                // (With the window its plan had for its first weights, if replanned
                // for one: planPrefetchWindows.)
                auto Again =
                    planLayer(*Flat, I, Sliced, Hw, B, Opts, 1, Penalty[I], P.PrefetchWindow);
                if (!Again) {
                  llvm::consumeError(Again.takeError());
                  return std::nullopt;
                }
                uint64_t FlatCycles = 0, FlatCompute = 0;
                for (LayerPlan &F : *Again) {
                  F.FlatW = L.Out.W;
                  F.Flat = Flat;
                  FlatCycles += F.EstCycles;
                  FlatCompute += convComputeCycles(F, Hw);
                }
                // Only where its rounds compute less (the pixels split more evenly)
                // and it saves over 2 % in all: the estimate is good to a few percent,
                // and a flattened plan's first step loads more of the map than a
                // tile of rows does, which the layer before's stores overlap less.
                // Without the first, GoogLeNet's i4c pool projection took two rounds
                // of 25-pixel runs for one of 7x7 tiles (estimated 3.5 % cheaper, ran
                // 2.3 k slower), MobileNet v2's block11 expansion short rounds that
                // issue-bound it (10 %, 3.7 k slower); without the second, ResNeXt-50's
                // layer4 1x1 convs ran 6.2 k slower each for 24 cycles estimated.
                if (FlatCompute >= Compute || !clearlyCheaper(FlatCycles, Cycles))
                  return std::nullopt;
                return std::move(*Again);
              });
}

void snow::compiler::planCuSums(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                                const CompileOptions &Opts, const std::vector<unsigned> &Frames,
                                const std::vector<uint64_t> &Penalty,
                                std::vector<LayerPlan> &Plans) {
  if (!Hw.CuSumWriteback || Hw.cus() < 2)
    return;
  replanAlone(G, Opts, Frames, Plans,
              [&](size_t K, size_t, const ir::Layer &L, const CompileOptions &LOpts,
                  bool Sliced) -> std::optional<std::vector<LayerPlan>> {
                // Only where asked (a layer's "sum", --tune's; measured: the estimates
                // of these plans were 8 % off either way on SqueezeNet 1.1's 13x13
                // convs, so taken by them GoogLeNet ran 12.6 k cycles slower).
                if (!LOpts.ForceCuSums || L.HasResidual)
                  return std::nullopt;
                CompileOptions Parts = LOpts;
                Parts.PartPlans = true;
                Parts.PlanRank = 0;
                const LayerPlan &P = Plans[K];
                auto Again = planLayer(L, P.Index, Sliced, Hw, B, Parts, 1, Penalty[P.Index],
                                       P.PrefetchWindow);
                if (!Again) {
                  llvm::consumeError(Again.takeError());
                  return std::nullopt;
                }
                if (Again->size() != 1 || Again->front().Parts < 2)
                  return std::nullopt; // none fits
                return std::move(*Again);
              });
}

void snow::compiler::replanLayers(std::vector<LayerPlan> &Plans, const PlansAgain &Again) {
  for (size_t K = 0; K < Plans.size();) {
    size_t End = layerEnd(Plans, K);
    if (auto New = Again(K, End)) {
      Plans.erase(Plans.begin() + ptrdiff_t(K), Plans.begin() + ptrdiff_t(End));
      Plans.insert(Plans.begin() + ptrdiff_t(K), New->begin(), New->end());
      End = K + New->size();
    }
    K = End;
  }
}

std::optional<std::vector<LayerPlan>>
snow::compiler::planAgain(const ir::Graph &G, unsigned I, const isa::HwConfig &Hw,
                          const BufferMap &B, const CompileOptions &Opts, unsigned Frames,
                          uint64_t SplitPenalty, uint64_t PrefetchWindow) {
  auto Plans = planLayer(G.Layers[I], I, slicedOutputs(G)[I], Hw, B, Opts, Frames, SplitPenalty,
                         PrefetchWindow);
  if (!Plans) {
    llvm::consumeError(Plans.takeError());
    return std::nullopt;
  }
  return std::move(*Plans);
}
