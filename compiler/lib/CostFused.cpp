//===- CostFused.cpp - The cost model's estimates of fusions --------------===//
//
// See Cost.h: fused pairs (a depthwise conv, a pool or a dense conv and the
// 1x1 convs that read it on chip), window pairs and block triples, built
// of the terms the single layers' costs use (Cost.cpp, CostTerms.h).
//
//===----------------------------------------------------------------------===//

#include "Cost.h"
#include "CostTerms.h"
#include "snow/isa/Timing.h"
#include <algorithm>
#include <vector>

using namespace snow;
using namespace snow::compiler;

/// The bytes of every chunk's weights for one output group of conv plan P
/// (ogWeightBytes, chunk by chunk).
static uint64_t ogAllWeightBytes(const LayerPlan &P, const isa::HwConfig &Hw) {
  uint64_t Bytes = 0;
  for (unsigned C = 0; C < P.NChunks; ++C)
    Bytes += ogWeightBytes(P, C, Hw);
  return Bytes;
}

/// The code of conv plan P's steps that a group of tiles fetches, counted
/// as convCost counts it: every step's trace loop and weight loads (one
/// output group a round: a block per vMAC).
static uint64_t stepsCode(const LayerPlan &P, const isa::HwConfig &Hw) {
  return uint64_t(P.NOg) * P.NChunks * (TraceLoopCode + Hw.VmacsPerCu * 3 + 2);
}

/// One phase of a dense or concat pair's group of tiles, each group alike:
/// the longer of its compute and its channel time (its Bytes and the Code
/// it fetches a group), over all Groups.
static uint64_t phaseCycles(uint64_t Compute, uint64_t Bytes, uint64_t Code, uint64_t Groups,
                            const isa::HwConfig &Hw) {
  return std::max(Compute, timing::dmaChannelCycles(Hw, Bytes) + Groups * fetchCycles(Hw, Code)) /
         Groups;
}

/// A fused pair whose producer is a dense conv that stores too
/// (LayerPlan::StoresToo), group of tiles by group: the producer's steps,
/// whose channel time is its stores and weights (and its residual, where
/// that loads one step ahead into the output region), then the 1x1 convs'
/// steps, whose channel time is their weights and stores and the next
/// group's producer maps (and its residual, where that comes with them:
/// LayerPlan::groupResidual). Each phase takes the longer of its compute
/// and its channel time (ResNet-50's layer1 pairs with the residual step
/// by step: 65 k cycles a group of 2x56 tiles, 456 k in all, as simulated).
static Cost densePairCost(const LayerPlan &D, const std::vector<LayerPlan> &Ps,
                          const isa::HwConfig &Hw, std::vector<uint64_t> *Shares) {
  const ir::Layer &L = *D.L;
  const uint64_t Groups = std::max<uint64_t>(1, D.Rounds.size() / D.NOg);
  auto Blocks = [&](const LayerPlan &P) { return ogAllWeightBytes(P, Hw); };
  const uint64_t Out = uint64_t(D.Frames) * L.Out.elems() * 2;
  // Chunked, the maps load again for each output group; a full-depth
  // producer loads them once a group, its residual with them, under the
  // 1x1 steps of the group before (LayerPlan::groupResidual).
  const uint64_t Res = L.HasResidual ? Out : 0;
  const uint64_t Maps =
      uint64_t(D.NTiles) * D.R * D.Wt * L.In.C * 2 * (D.NChunks > 1 && !D.FullDepth ? D.NOg : 1) +
      (D.groupResidual() ? Res : 0);
  const uint64_t DBytes = Out + (D.groupResidual() ? 0 : Res) + Groups * D.NOg * Blocks(D);
  const uint64_t CD = convCompute(D, summarize(D, Hw.cus()), Hw);
  uint64_t CP = 0, PBytes = Maps;
  std::vector<uint64_t> Own;
  for (const LayerPlan &P : Ps) {
    Own.push_back(convCompute(P, summarize(P, Hw.cus()), Hw));
    CP += Own.back();
    PBytes += Groups * P.NOg * Blocks(P) + uint64_t(P.Frames) * P.L->Out.elems() * 2;
  }
  // The code each group fetches over the channel: its steps' (stepsCode),
  // the producer's maps (each chunk's, or once a group full depth), and
  // each writing step's moves (the producer's stores, area copy and a
  // residual loaded step by step; the 1x1 convs' stores).
  const uint64_t Cus = std::min<uint64_t>(Hw.cus(), D.NTiles);
  const uint64_t Move = seriesCode(D.Wt >= L.Out.W ? 1 : D.R);
  const uint64_t MapLoads = D.FullDepth ? 1 : uint64_t(D.NOg) * D.NChunks;
  const uint64_t CodeD = stepsCode(D, Hw) + MapLoads * (Cus * (seriesCode(D.RowsIn) + 4) + 2) +
                         D.NOg * (Cus * Move * (L.HasResidual && !D.groupResidual() ? 3 : 2) + 6);
  uint64_t CodeP = 0;
  for (const LayerPlan &P : Ps)
    CodeP += stepsCode(P, Hw) + P.NOg * (Cus * Move + 6);
  const uint64_t PhaseD = phaseCycles(CD, DBytes, CodeD, Groups, Hw);
  const uint64_t PhaseP = phaseCycles(CP, PBytes, CodeP, Groups, Hw);
  const uint64_t Exposed = timing::dmaChannelCycles(Hw, Maps / Groups);
  const Cost Total(Groups * (PhaseD + PhaseP) + Exposed, DBytes + PBytes, Hw);
  if (Shares) {
    Shares->assign(1, Groups * PhaseD + Exposed);
    for (uint64_t O : Own)
      Shares->push_back(Groups * PhaseP * O / std::max<uint64_t>(1, CP));
  }
  return Total;
}

Cost snow::compiler::concatPairCost(const std::vector<LayerPlan> &Ds,
                                    const std::vector<LayerPlan> &Ps, const isa::HwConfig &Hw,
                                    std::vector<uint64_t> *Shares) {
  const LayerPlan &D0 = Ds.front();
  const uint64_t Groups = std::max<uint64_t>(1, D0.Rounds.size() / D0.NOg);
  const uint64_t Cus = std::min<uint64_t>(Hw.cus(), D0.NTiles);
  // Each producer loads its own (haloed) tile for each output group where
  // it has several chunks, once a group where it has one.
  uint64_t CD = 0, DBytes = 0, Maps = 0, FirstMaps = 0, CodeD = 0;
  std::vector<uint64_t> Own;
  for (const LayerPlan &D : Ds) {
    Own.push_back(convCompute(D, summarize(D, Hw.cus()), Hw));
    CD += Own.back();
    const uint64_t Loads = D.NChunks > 1 ? D.NOg : 1;
    Maps += uint64_t(D.NTiles) * D.RowsIn * D.ColsIn * D.L->In.C * 2 * Loads;
    FirstMaps += firstGroupBytes(D, Hw) * Loads;
    DBytes += Groups * D.NOg * ogAllWeightBytes(D, Hw);
    CodeD +=
        stepsCode(D, Hw) + uint64_t(D.NOg) * D.NChunks * (Cus * (seriesCode(D.RowsIn) + 4) + 2);
  }
  uint64_t CP = 0, PBytes = Maps, CodeP = 0;
  const uint64_t Move = seriesCode(D0.Wt >= D0.L->Out.W ? 1 : D0.R);
  for (const LayerPlan &P : Ps) {
    Own.push_back(convCompute(P, summarize(P, Hw.cus()), Hw));
    CP += Own.back();
    PBytes += Groups * P.NOg * ogAllWeightBytes(P, Hw) + uint64_t(P.Frames) * P.L->Out.elems() * 2;
    CodeP += stepsCode(P, Hw) + P.NOg * (Cus * Move + 6);
  }
  const uint64_t PhaseD = phaseCycles(CD, DBytes, CodeD, Groups, Hw);
  const uint64_t PhaseP = phaseCycles(CP, PBytes, CodeP, Groups, Hw);
  const uint64_t Exposed = timing::dmaChannelCycles(Hw, FirstMaps);
  // Each step loads its weights under the step before it (two weights
  // banks): a group's steps in turn, the first producer's after the group
  // before's last reader step. What a step's compute leaves of the next
  // one's weights waits (a 1x1 producer's step of a few hundred cycles
  // before a 48-channel reader's 25 KB, every group: +9 % on a fire
  // module with a 5x5 expand, 2026-12-06).
  std::vector<std::pair<uint64_t, uint64_t>> Seq; // (weights' channel cycles, compute)
  auto AddSteps = [&](const LayerPlan &P, uint64_t Compute) {
    const uint64_t Steps = Groups * P.NOg * P.NChunks;
    for (unsigned C = 0; C < P.NChunks; ++C)
      for (unsigned Og = 0; Og < P.NOg; ++Og)
        Seq.push_back({timing::dmaChannelCycles(Hw, ogWeightBytes(P, C, Hw)),
                       Compute / std::max<uint64_t>(1, Steps)});
  };
  for (size_t K = 0; K < Ds.size(); ++K)
    AddSteps(Ds[K], Own[K]);
  for (size_t K = 0; K < Ps.size(); ++K)
    AddSteps(Ps[K], Own[Ds.size() + K]);
  uint64_t WaitW = 0;
  for (size_t I = 0; I < Seq.size(); ++I) {
    const uint64_t Under = Seq[(I + Seq.size() - 1) % Seq.size()].second;
    WaitW += Seq[I].first > Under ? Seq[I].first - Under : 0;
  }
  WaitW *= Groups;
  if (Shares) {
    Shares->clear();
    for (size_t K = 0; K < Ds.size(); ++K)
      Shares->push_back((Groups * PhaseD + Exposed) * Own[K] / std::max<uint64_t>(1, CD));
    for (size_t K = Ds.size(); K < Own.size(); ++K)
      Shares->push_back((Groups * PhaseP + WaitW) * Own[K] / std::max<uint64_t>(1, CP));
  }
  return Cost(Groups * (PhaseD + PhaseP) + Exposed + WaitW, DBytes + PBytes, Hw);
}

uint64_t snow::compiler::firstGroupBytes(const LayerPlan &D, const isa::HwConfig &Hw) {
  return uint64_t(std::min(Hw.cus(), D.NTiles)) * D.RowsIn * D.ColsIn * D.L->In.C * 2;
}

Cost snow::compiler::fusedCost(const LayerPlan &D, const std::vector<LayerPlan> &Ps,
                               const isa::HwConfig &Hw, std::vector<uint64_t> *Shares,
                               uint64_t *ComputeOut) {
  if (D.StoresToo)
    return densePairCost(D, Ps, Hw, Shares);
  const ir::Layer &DL = *D.L;
  // The depthwise maps of every tile and chunk (each CU loads its own tile),
  // a weight block per vMAC and round of every plan, the 1x1 outputs.
  const uint64_t TileBytes = uint64_t(D.RowsIn) * D.ColsIn * DL.In.C * 2;
  uint64_t Compute = D.IsConv ? depthwiseCompute(D, Hw) : poolCompute(D, Hw);
  // Pinned (LayerPlan::PinWeights), each weight block loads once.
  const bool Pin = D.PinWeights;
  uint64_t Bytes = D.NTiles * TileBytes +
                   (D.IsConv ? (Pin ? D.NChunks : D.Rounds.size()) * ogWeightBytes(D, 0, Hw) : 0);
  std::vector<uint64_t> Own = {Compute};
  uint64_t FirstWeights = 0; // the first 1x1 step's weights, in bytes
  uint64_t PinnedBytes = 0;  // a pinned reader's
  for (const LayerPlan &P : Ps) {
    const RoundSummary S = summarize(P, Hw.cus());
    Own.push_back(convCompute(P, S, Hw));
    Compute += Own.back();
    const uint64_t Loads = Pin ? P.NOg : S.OgLoads;
    PinnedBytes += P.NOg * ogAllWeightBytes(P, Hw);
    Bytes += Loads * ogAllWeightBytes(P, Hw) + P.L->Out.elems() * 2;
    if (!FirstWeights)
      FirstWeights = S.Rounds.front().Ogs * ogWeightBytes(P, 0, Hw);
  }
  // A group's 1x1 traces wait for all its producer chunks, whose loads
  // overlap only the producer's short traces: the first group's loads are
  // exposed, and in the later groups those of all but the two chunks that
  // load during the group before (Sequence.cpp); so is each group's first
  // 1x1 weights load, issued during the last producer step, behind its
  // maps. The channel, if it is the bound, waits only for the first chunk.
  // A full-depth producer's group of tiles loads at once into the region
  // the group before has finished reading, under that group's last two 1x1
  // steps (EmitProgram.cpp loads a fused step's maps two steps ahead):
  // ResNet-50's pool1 at batch 16 feeds five 1x1 steps a group, and its
  // loads hid under two.
  const uint64_t GroupLoad = timing::dmaChannelCycles(Hw, firstGroupBytes(D, Hw));
  const uint64_t Groups = std::max<uint64_t>(1, D.Rounds.size() / D.NOg);
  uint64_t Steps = 0; // 1x1 steps a group
  for (const LayerPlan &P : Ps)
    Steps += uint64_t(P.NOg) * P.NChunks;
  // Pinned, no weights queue before it: a full-depth group's load hides
  // under all the group before's 1x1 steps (MobileNet v1's conv5 pair: the
  // next group's 230 KB loaded behind the third and fourth output groups'
  // weights, under two steps, and waited 7.5 k cycles a group).
  const uint64_t Under = (Compute - Own[0]) / Groups *
                         (Pin && D.FullDepth ? Steps : std::min<uint64_t>(2, Steps)) /
                         std::max<uint64_t>(1, Steps);
  // Chunk by chunk, the two that load ahead do so behind the 1x1 steps'
  // weights in the load queue, two and one steps ahead: no earlier than a
  // full-depth group's (MobileNet v1's conv5 pair, two chunks of 56x56
  // maps, waited 12 k cycles a group for them; compiler-costs.md).
  const uint64_t Exposed2 = GroupLoad > Under ? GroupLoad - Under : 0;
  const uint64_t Later =
      D.FullDepth ? Exposed2
                  : std::max(Exposed2, GroupLoad * (D.NChunks > 2 ? D.NChunks - 2 : 0) / D.NChunks);
  // A full-depth producer's first group loads chunk by chunk as the layer
  // before stores each (RowSignals.cpp: startOnRows): its last chunk waits.
  // A squeeze-and-excitation scale (run-time weights) reads a map stored
  // before its squeeze convs, not by the layer before: where its chunks
  // go last first (a last chunk of fewer than a group's channels,
  // Sequence.cpp: fusedSteps), its first step waits for the whole group's
  // load (EfficientNet-B0's 28x28 scales, estimated on one chunk's load,
  // took two groups of 7x14 tiles: block 5's pair 70.0 k cycles, against
  // 67.9 k on four of 7x7).
  const bool AllFirst =
      D.Dynamic && D.Depthwise && DL.Out.C % (Hw.VmacsPerCu * Hw.LanesPerVmac) != 0;
  const uint64_t First = D.FullDepth && !AllFirst ? GroupLoad / D.NChunks : GroupLoad;
  // Pinned, the reader's weights (all its output groups) load once, where
  // its first group's would.
  const uint64_t WeightsExposed = Pin ? timing::dmaChannelCycles(Hw, PinnedBytes)
                                      : Groups * timing::dmaChannelCycles(Hw, FirstWeights);
  const uint64_t Exposed = First + (Groups - 1) * Later + WeightsExposed;
  const Cost Total(
      std::max(Compute + Exposed, timing::dmaChannelCycles(Hw, Bytes) + GroupLoad / D.NChunks),
      Bytes, Hw);
  if (ComputeOut)
    *ComputeOut = Compute;
  if (Shares) {
    // The layers' cycles as the simulator counts them: the exposed loads
    // are the depthwise steps' (the compute unit waits in them), the rest
    // goes by each plan's compute.
    Own[0] += Exposed;
    const uint64_t Sum = Compute + Exposed;
    Shares->clear();
    for (uint64_t O : Own)
      Shares->push_back(Total.Cycles * O / std::max<uint64_t>(1, Sum));
  }
  return Total;
}

Cost snow::compiler::windowPairCost(const LayerPlan &D, const LayerPlan &Q, const isa::HwConfig &Hw,
                                    std::vector<uint64_t> *Shares, const LayerPlan *Proj) {
  const ir::Layer &DL = *D.L;
  // Each tile's window of D's input, as loaded (the region rows inside the
  // input), a row of a tile's pixels a DMA row; again in each round whose
  // tiles differ from the round before (LayerPlan::Window's rounds).
  auto WindowBytes = [&](unsigned T) {
    const uint64_t Rows = std::min<uint64_t>((D.validRows(T) - 1) * DL.SH + DL.KH, DL.In.H);
    const uint64_t Cols = std::min<uint64_t>((D.validCols(T) - 1) * DL.SW + DL.KW, DL.In.W);
    return Rows * timing::rowSpanBytes(Hw, Cols * DL.In.C * 2, std::nullopt);
  };
  uint64_t MapBytes = 0, Groups = 0; // groups of tiles: rounds whose tiles change
  const Round *Prev = nullptr;
  for (const Round &Rd : D.Rounds) {
    std::vector<int> Tiles;
    for (const Work &W : Rd.Cus)
      if (W.active() && std::find(Tiles.begin(), Tiles.end(), W.Tile) == Tiles.end())
        Tiles.push_back(W.Tile);
    bool Same = Prev != nullptr;
    for (size_t Cu = 0; Prev && Cu < Rd.Cus.size(); ++Cu)
      Same &= Rd.Cus[Cu].Tile == Prev->Cus[Cu].Tile;
    Groups += !Same;
    if (!Same)
      for (int T : Tiles)
        MapBytes += WindowBytes(unsigned(T));
    Prev = &Rd;
  }
  // Each round's output groups' weights, D's and (a depthwise reader, whose
  // steps come between D's) Q's.
  // A block triple's 1x1 conv loads a chunk's weights a round too.
  const uint64_t QWeights = (Q.IsConv ? ogWeightBytes(Q, 0, Hw) : 0) +
                            (Proj ? ogWeightBytes(*Proj, Proj->NChunks > 1, Hw) : 0);
  const RoundSummary S = summarize(D, Hw.cus());
  const uint64_t Own[3] = {convCompute(D, S, Hw),
                           Q.IsConv ? depthwiseCompute(Q, Hw) : poolCompute(Q, Hw),
                           Proj ? convCompute(*Proj, summarize(*Proj, Hw.cus()), Hw) : 0};
  // A depthwise reader's steps come between D's, and the two weights banks
  // alternate between them: D's next weights load once D's step is done,
  // under the reader's short step only (MobileNet v2's 960-channel
  // expansions load 82 KB a round under 0.5 k cycles of vdw).
  // A block triple's next windows load in parts over its group's first
  // steps (EmitProgram.cpp), ahead of the expansion's second output
  // group's weights, which wait for them behind a pool's short steps:
  // SqueezeNet 1.1's stem, pool and squeeze on narrow8, four groups a
  // tile, waited 1 k cycles a tile, 50.8 k in all, over the three apart.
  // (Counted for a depthwise middle too, MobileNet v2's triples on zc706
  // took other tiles and ran 1.5 k cycles slower.)
  // Co-located (LayerPlan::CoWeights), the reader's weights load with D's
  // into one bank, a later round's into the other under both steps of the
  // round before (the first round's, as D's alone, under the step before).
  const bool Co = D.CoWeights && !Proj;
  uint64_t WBytes = 0, Exposed = 0;
  bool GroupStart = false;
  for (const RoundInfo &R : S.Rounds) {
    const bool Later = &R != &S.Rounds.front();
    const bool Second = Proj && !Q.IsConv && GroupStart && !R.TileChanged;
    GroupStart = R.TileChanged;
    if (!R.OgChanged && !Q.IsConv && !Proj) // (a block triple's load a round)
      continue;
    WBytes += R.Ogs * (ogWeightBytes(D, 0, Hw) + QWeights);
    if (Q.IsConv || Proj) {
      const uint64_t Load =
          timing::dmaChannelCycles(Hw, R.Ogs * (ogWeightBytes(D, 0, Hw) + (Co ? QWeights : 0)) +
                                           (Second ? MapBytes / std::max<uint64_t>(1, Groups) : 0));
      const uint64_t Under =
          (Own[1] + Own[2] + (Co && Later ? Own[0] : 0)) / std::max<size_t>(1, S.Rounds.size());
      Exposed += Load > Under ? Load - Under : 0;
    }
  }
  const LayerPlan &Out = Proj ? *Proj : Q;
  const uint64_t Bytes =
      MapBytes + WBytes +
      uint64_t(Out.Frames) * Out.L->Out.elems() * 2 * (Out.L->HasResidual ? 2 : 1);
  // The first group's windows load before anything computes.
  const uint64_t First =
      timing::dmaChannelCycles(Hw, MapBytes * std::min<uint64_t>(Hw.cus(), D.NTiles) / D.NTiles);
  const Cost Total(
      std::max(Own[0] + Own[1] + Own[2] + Exposed, timing::dmaChannelCycles(Hw, Bytes)) + First,
      Bytes, Hw);
  if (Shares) {
    Shares->clear();
    const uint64_t Sum = std::max<uint64_t>(1, Own[0] + Own[1] + Own[2]);
    Shares->push_back(Total.Cycles - Total.Cycles * (Own[1] + Own[2]) / Sum);
    Shares->push_back(Total.Cycles * Own[1] / Sum);
    if (Proj)
      Shares->push_back(Total.Cycles * Own[2] / Sum);
  }
  return Total;
}

Cost snow::compiler::splitTripleCost(const LayerPlan &D, const LayerPlan &Q, const LayerPlan &Proj,
                                     const isa::HwConfig &Hw, std::vector<uint64_t> *Shares) {
  const ir::Layer &DL = *D.L;
  const unsigned NCu = Hw.cus();
  // D's input, the whole map, loaded once into every CU (one DMA a row).
  const uint64_t MapBytes =
      uint64_t(DL.In.H) * timing::rowSpanBytes(Hw, uint64_t(DL.In.W) * DL.In.C * 2, std::nullopt);
  const uint64_t Own[3] = {convCompute(D, summarize(D, NCu), Hw), depthwiseCompute(Q, Hw),
                           convCompute(Proj, summarize(Proj, NCu), Hw)};
  // A round loads a block of D's for each CU a chunk, each under the step
  // before (the round's first under Q's step), and a block of Q's.
  uint64_t RoundBytes = NCu * ogWeightBytes(Q, 0, Hw);
  for (unsigned C = 0; C < D.NChunks; ++C)
    RoundBytes += NCu * ogWeightBytes(D, C, Hw);
  const size_t Rounds = std::max<size_t>(1, D.Rounds.size());
  const uint64_t DSteps = Rounds * D.NChunks;
  uint64_t Exposed = 0;
  const uint64_t DLoad = timing::dmaChannelCycles(Hw, RoundBytes / D.NChunks);
  const uint64_t DUnder = (Own[0] + Own[1]) / DSteps;
  if (DLoad > DUnder)
    Exposed += (DSteps - 1) * (DLoad - DUnder);
  // Proj's steps: a chunk's block for each CU, loaded under the step
  // before (each CU's first chunk carries the bias word).
  const unsigned Steps = Proj.NChunks / Proj.Parts;
  uint64_t ProjBytes = 0;
  for (unsigned C = 0; C < Steps; ++C)
    ProjBytes += NCu * ogWeightBytes(Proj, C, Hw);
  const uint64_t StepLoad = timing::dmaChannelCycles(Hw, ProjBytes / std::max(1u, Steps));
  const uint64_t StepCompute = Own[2] / std::max<uint64_t>(1, uint64_t(Proj.NOg) * Steps);
  if (StepLoad > StepCompute)
    Exposed += (uint64_t(Proj.NOg) * Steps - 1) * (StepLoad - StepCompute);
  const uint64_t Bytes =
      MapBytes + Rounds * RoundBytes + Proj.NOg * ProjBytes +
      uint64_t(Proj.Frames) * Proj.L->Out.elems() * 2 * (Proj.L->HasResidual ? 2 : 1);
  // The map loads before anything computes, and the first round's weights
  // as far as they do not load under the layer before (PrefetchWindow);
  // the last output group's stores after.
  const uint64_t RoundLoad0 = DLoad;
  const uint64_t First =
      timing::dmaChannelCycles(Hw, MapBytes) +
      (RoundLoad0 > D.PrefetchWindow ? RoundLoad0 - D.PrefetchWindow : 0) +
      timing::dmaChannelCycles(Hw, Proj.L->Out.elems() * 2 / std::max(1u, Proj.NOg));
  const Cost Total(
      std::max(Own[0] + Own[1] + Own[2] + Exposed, timing::dmaChannelCycles(Hw, Bytes)) + First,
      Bytes, Hw);
  if (Shares) {
    const uint64_t Sum = std::max<uint64_t>(1, Own[0] + Own[1] + Own[2]);
    *Shares = {Total.Cycles - Total.Cycles * (Own[1] + Own[2]) / Sum, Total.Cycles * Own[1] / Sum,
               Total.Cycles * Own[2] / Sum};
  }
  return Total;
}
