//===- PlanKeys.cpp - What a plan depends on, and the cache keyed by it ---===//
//
// Planning is a search: Compiler.cpp plans each distinct layer once
// (planKey), and a --tune search, whose thousands of programs differ in a
// layer or two, keeps layers' plans and the pairs it weighed across its
// compiles (PlanCache). A key must name everything the search reads, or a
// program made from the cache is not the one planned afresh
// (tests/e2e/PlanReuseTest.cpp, TuneTest.cpp check that none is).
//
//===----------------------------------------------------------------------===//

#include "PlanKeys.h"
#include <fmt/format.h>
#include <iterator>

using namespace snow;
using namespace snow::compiler;

/// What a layer's plan depends on: its geometry and kind, not its name,
/// position, neighbours, number formats or weight values. Layers with equal
/// keys (ResNet-50 repeats each bottleneck block's shapes up to six times)
/// get equal plans, so each key is planned once: planning is a search that
/// took a fifth of ResNet-50's compile time. tests/e2e/PlanReuseTest.cpp
/// checks that reuse changes no program.
std::string snow::compiler::planKey(const ir::Layer &L, bool OutIsSlice, unsigned Frames,
                                    uint64_t Penalty, const std::string &Tweak) {
  // A field added to ir::Layer must be added here if planning can read it
  // (Seeded holds weight values, which planning does not read);
  // this assertion fails so that nobody forgets (sizes on x86-64 Linux).
  static_assert(sizeof(ir::Layer) == 576, "ir::Layer changed: update planKey");
  return fmt::format("{} {} {}x{}x{} {}x{}x{} k{}x{} s{}x{} p{},{},{},{} c{} r{} g{} b{} "
                     "res{} avg{},{} in{} sl{} f{} lut{} pen{} pb{} ph{} off{}",
                     int(L.Kind), L.TypeName, L.In.C, L.In.H, L.In.W, L.Out.C, L.Out.H, L.Out.W,
                     L.KH, L.KW, L.SH, L.SW, L.PadT, L.PadB, L.PadL, L.PadR, L.CeilMode, L.Relu,
                     L.Groups, L.HasBias, L.HasResidual, L.AvgMult, L.AvgShift, L.Inputs.size(),
                     OutIsSlice, Frames, hasActivationTable(L), Penalty, L.PoolBlock,
                     L.PoolHost >= 0, Tweak);
}

std::string snow::compiler::planFingerprint(const LayerPlan &P) {
  // A field added to LayerPlan must be added here (unless it is derived
  // from these, as the rounds are); this assertion fails so that nobody
  // forgets (sizes on x86-64 Linux).
  static_assert(sizeof(LayerPlan) == 656, "LayerPlan changed: update planFingerprint");
  auto View = [](const TensorView &V) {
    return fmt::format("{},{},{},{},{}", V.Addr, V.W, V.Stride, V.Offset, V.FrameBytes);
  };
  const LayerPlan::ReaderWindow &W = P.Window;
  std::string S = fmt::format(
      "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} | {} {} {} {} {} {} {} {} {} {} {} {} {}",
      P.Index, P.IsConv, P.TailWords, P.Depthwise, P.GroupK, P.GroupChunks, P.InSkew, P.Elementwise,
      P.FullDepth, P.PerBank, P.WeightsOnce, P.ToMid, P.FromMid, P.ReadsWindow, P.StoresToo,
      P.PinWeights, P.CoWeights, W.R, W.Wt, W.KH, W.KW, W.SH, W.SW, W.PadT, W.PadL, W.OutH, W.OutW,
      W.InH, W.InW, W.AreaCols);
  fmt::format_to(std::back_inserter(S),
                 " | {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}", P.FusedWith,
                 P.ProducerOrdinal, P.Balanced, P.SplitChannels, P.PixLog, P.Wide, P.Banked,
                 P.CopyBanks, P.Halves, P.Quarters, P.OcBase, P.OcCount, P.FirstPart, P.LastPart,
                 P.RestTiles, P.OutIsSlice, P.StepY, P.StepX, P.Ordinal, P.NeedsDone);
  fmt::format_to(std::back_inserter(S), " | {} {} {} {} {} {} {} {}", P.MidOut, P.MidSlot,
                 P.MidPitch, P.MidChannel, P.AccBase, P.AccLimit, P.BankLog, P.Straddles);
  fmt::format_to(std::back_inserter(S), " | {} {} {} {} {} {} {} {}", View(P.In), View(P.Out),
                 View(P.Res), P.PoolBlock, View(P.PoolOut), P.PoolMult, P.PoolShift, View(P.In2));
  for (const OutPiece &Pc : P.Pieces)
    fmt::format_to(std::back_inserter(S), " piece {},{},{}", Pc.Begin, Pc.Count, View(Pc.View));
  for (const OutPiece &Pc : P.InPieces)
    fmt::format_to(std::back_inserter(S), " in {},{},{}", Pc.Begin, Pc.Count, View(Pc.View));
  fmt::format_to(std::back_inserter(S),
                 " | {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
                 P.Chunk, P.NChunks, P.R, P.Wt, P.RowsIn, P.ColsIn, P.NRowBlocks, P.NColBlocks,
                 P.NTiles, P.EvenRows, P.Frames, P.FrameShift, P.PerFrame, P.NOg, P.MapStationary,
                 P.BesideOf, P.BesideCycles, P.ShareOffset, P.PadValue, P.Dynamic, P.ZeroWord,
                 P.EstCycles, P.EstDramBytes, P.PrefetchWindow);
  fmt::format_to(std::back_inserter(S), " {} {} {}", P.OgSpan, P.FlatW, P.Parts);
  return S;
}

std::shared_ptr<PlanCache> snow::compiler::newPlanCache() { return std::make_shared<PlanCache>(); }

size_t snow::compiler::cachedPlans(const PlanCache &C) {
  std::lock_guard<std::mutex> Lock(C.M);
  return C.Plans.size();
}

size_t snow::compiler::cachedWindowPairs(const PlanCache &C) {
  std::lock_guard<std::mutex> Lock(C.M);
  return C.WindowPairs.size();
}

size_t snow::compiler::cachedFusedPairs(const PlanCache &C) {
  std::lock_guard<std::mutex> Lock(C.M);
  return C.FusedPairs.size();
}

size_t snow::compiler::cachedBlockTriples(const PlanCache &C) {
  std::lock_guard<std::mutex> Lock(C.M);
  return C.BlockTriples.size();
}

PairChoice snow::compiler::recallPair(PairTable PlanCache::*Table,
                                      const std::vector<const LayerPlan *> &Plans,
                                      const CompileOptions &DOpts, const std::string &Tag,
                                      llvm::function_ref<PairChoice()> Search) {
  if (!DOpts.Cache)
    return Search();
  std::string Key = DOpts.planningKey() + "|" + Tag;
  for (const LayerPlan *P : Plans)
    fmt::format_to(std::back_inserter(Key), "|{}|{}",
                   planKey(*P->L, P->OutIsSlice, P->Frames, 0, ""), planFingerprint(*P));
  PlanCache &C = *DOpts.Cache;
  {
    std::lock_guard<std::mutex> Lock(C.M);
    if (auto It = (C.*Table).find(Key); It != (C.*Table).end()) {
      PairChoice Found = It->second;
      // The layers are this compile's graph's.
      for (size_t I = 0; I < Found.Plans.size(); ++I)
        Found.Plans[I].L = Plans[I]->L;
      return Found;
    }
  }
  PairChoice Made = Search();
  std::lock_guard<std::mutex> Lock(C.M);
  (C.*Table).emplace(std::move(Key), Made);
  return Made;
}
