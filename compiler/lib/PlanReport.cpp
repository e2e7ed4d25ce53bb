//===- PlanReport.cpp - The compiler's plan with its exact timing ---------===//
//
// See snow/compiler/PlanReport.h.
//
//===----------------------------------------------------------------------===//

#include "snow/compiler/PlanReport.h"
#include "Cost.h"
#include "Plan.h"
#include "snow/sim/Report.h"
#include "snow/sim/Simulator.h"
#include <fmt/format.h>
#include <map>

using namespace snow;
using namespace snow::compiler;
namespace json = llvm::json;

PlanPart snow::compiler::describePart(const LayerPlan &P, const ir::Graph &G,
                                      const isa::HwConfig &Hw) {
  const ir::Layer &L = *P.L;
  PlanPart D;
  D.Layer = L.Name;
  D.Name = L.Name;
  if (P.OcCount != L.Out.C)
    D.Name += fmt::format("[{}:{}]", P.OcBase, P.OcBase + P.OcCount);
  if (P.PerFrame) // Run-time weights in a batch: one part per frame.
    D.Name += fmt::format("@frame{}", P.FrameShift);
  D.Type = ir::kindName(L.Kind);
  D.Chunks = P.NChunks;
  D.ChunkChannels = P.Chunk;
  D.TileRows = P.R;
  D.TileCols = P.Wt;
  D.Rounds = unsigned(P.Rounds.size());
  D.OutputGroups = P.NOg;
  D.Order =
      fmt::format("{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}", P.MapStationary ? "maps" : "kernel",
                  P.SplitChannels ? "+split" : "", P.Balanced ? "+balance" : "",
                  P.Parts > 1 ? fmt::format("+sum{}", P.Parts) : "",
                  P.PixLog ? fmt::format("+{}{}",
                                         P.Wide        ? "wide"
                                         : P.Banked    ? "banked"
                                         : P.CopyBanks ? "copied"
                                                       : "pix",
                                         P.pix())
                           : "",
                  P.Halves     ? "+halves"
                  : P.Quarters ? "+quarters"
                               : "",
                  P.FullDepth ? "+fulldepth" : "", P.StepY * P.StepX > 1 ? "+gather" : "",
                  P.GroupChunks ? "+gchunks" : "",
                  !P.Depthwise   ? ""
                  : P.GroupK > 1 ? fmt::format("+gdw{}", P.passes())
                                 : "+dw",
                  P.ToMid && P.FromMid ? "+fused<>" // a block triple's depthwise conv
                  : P.ToMid            ? "+fused>"
                  : P.FromMid          ? "+fused<"
                                       : "",
                  P.framedPool() ? "+framed" : "", P.PinWeights ? "+pinned" : "",
                  P.EvenRows ? "+even" : "", P.ShareOffset ? "+shared" : "",
                  P.BesideOf >= 0 ? "+beside" : "", P.mixedRounds() ? "+mixed" : "",
                  P.MidOut || P.AccLimit ? "+block" : "", // a block triple's
                  P.clippedRounds() ? "+clipped" : "", P.FlatW ? "+flat" : "");
  if (P.BesideOf >= 0)
    D.Beside = G.Layers[size_t(P.BesideOf)].Name;
  D.EstCycles = P.BesideOf < 0 ? P.EstCycles : P.BesideCycles ? P.BesideCycles : besideCost(P, Hw);
  if (P.PoolBlock) {
    D.Hosted = G.Layers[size_t(L.HostedPool)].Name;
    D.HostedEstCycles = std::min(D.EstCycles, blockMeanCycles(P, Hw));
    D.EstCycles -= D.HostedEstCycles;
  }
  D.EstDramBytes = P.EstDramBytes;
  if (P.PrefetchWindow != UINT64_MAX)
    D.PrefetchWindow = P.PrefetchWindow;
  return D;
}

llvm::Expected<std::string> snow::compiler::planJson(const isa::Program &Prog,
                                                     const std::vector<PlanPart> &Parts) {
  sim::SimOptions Opts;
  Opts.TimingOnly = true;
  auto Sim = sim::Simulator::create(Prog, Opts);
  if (!Sim)
    return Sim.takeError();
  auto Stats = (*Sim)->run();
  if (!Stats)
    return Stats.takeError();
  json::Object Root = sim::toJsonObject(*Stats, Prog);

  std::map<std::string, json::Array> PartsOf;
  std::map<std::string, uint64_t> EstimateOf;
  uint64_t Estimate = 0;
  for (const PlanPart &D : Parts) {
    PartsOf[D.Layer].push_back(json::Object{{"part", D.Name},
                                            {"chunks", int64_t(D.Chunks)},
                                            {"chunk_channels", int64_t(D.ChunkChannels)},
                                            {"tile_rows", int64_t(D.TileRows)},
                                            {"tile_cols", int64_t(D.TileCols)},
                                            {"rounds", int64_t(D.Rounds)},
                                            {"output_groups", int64_t(D.OutputGroups)},
                                            {"order", D.Order},
                                            {"estimate_cycles", int64_t(D.EstCycles)},
                                            {"estimate_dram_bytes", int64_t(D.EstDramBytes)},
                                            {"out_pixel_stride", int64_t(D.OutPixelStride)}});
    if (!D.Beside.empty())
      PartsOf[D.Layer].back().getAsObject()->try_emplace("beside", D.Beside);
    if (D.PrefetchWindow)
      PartsOf[D.Layer].back().getAsObject()->try_emplace("prefetch_window_cycles",
                                                         int64_t(*D.PrefetchWindow));
    if (!D.LayerOff.empty())
      PartsOf[D.Layer].back().getAsObject()->try_emplace("layer_off", D.LayerOff);
    EstimateOf[D.Layer] += D.EstCycles;
    Estimate += D.EstCycles;
    if (!D.Hosted.empty()) { // the block means, in the hosted pool's span
      EstimateOf[D.Hosted] += D.HostedEstCycles;
      Estimate += D.HostedEstCycles;
    }
  }
  if (json::Array *Layers = Root.getArray("layers"))
    for (json::Value &V : *Layers) {
      json::Object *O = V.getAsObject();
      llvm::Optional<llvm::StringRef> Name = O ? O->getString("name") : llvm::None;
      if (!Name)
        continue;
      auto It = PartsOf.find(Name->str());
      // Concats are views (no code) and a final softmax runs on the host.
      O->try_emplace("plan", It == PartsOf.end() ? json::Array{} : std::move(It->second));
      O->try_emplace("estimate_cycles", int64_t(EstimateOf[Name->str()]));
    }
  if (json::Object *Total = Root.getObject("total"))
    Total->try_emplace("estimate_cycles", int64_t(Estimate));
  Root.try_emplace("source", "cycles: the compiled program played through snowsim's timing engine "
                             "(exact, as snowsim --timing-only); estimate_cycles: the planner's "
                             "cost model, per part, before scheduling and overlap between layers");
  return sim::jsonText(std::move(Root));
}
