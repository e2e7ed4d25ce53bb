//===- Measure.cpp - A candidate plan played through the timing engine ----===//
//
// See Measure.h.
//
//===----------------------------------------------------------------------===//

#include "Measure.h"
#include "Emitter.h"
#include "Lower.h"
#include "WeightPack.h"
#include "snow/sim/Simulator.h"

using namespace snow;
using namespace snow::compiler;

/// Cycles of the one-layer program that runs plan P alone.
static std::optional<uint64_t> runAlone(const LayerPlan &P, const isa::HwConfig &Hw,
                                        const BufferMap &B, const CompileOptions &Opts) {
  constexpr uint64_t DataBase = 0x10000, Align = 4096;
  auto AlignUp = [](uint64_t V) { return (V + Align - 1) / Align * Align; };
  std::vector<LayerPlan> Plans{P};
  LayerPlan &Q = Plans.front();
  const ir::Layer &L = *Q.L;
  Q.Index = 0;
  Q.Ordinal = 0;
  Q.NeedsDone = -1; // Its maps come from the graph input: nothing to wait for.
  Q.BesideOf = -1;
  Q.Pieces.clear();
  // Weights first (their addresses only: a timing-only run reads no value),
  // then the input, the output and a residual, each of every frame.
  const WeightImage Image = layoutWeights(Plans, Hw, DataBase);
  uint64_t Next = AlignUp(DataBase + Image.Size);
  auto Place = [&](const ir::Shape &S, uint32_t W) {
    const uint64_t FrameBytes = uint64_t(S.C) * S.H * S.W * 2;
    TensorView V{Next, W, S.C, 0, FrameBytes};
    Next = AlignUp(Next + FrameBytes * Q.Frames);
    return V;
  };
  Q.In = Place(L.In, L.In.W);
  Q.Out = Place(L.Out, L.Out.W);
  if (L.HasResidual)
    Q.Res = Place(L.Out, L.Out.W);
  if (Next > Hw.dramBytes())
    return std::nullopt;

  isa::Program Prog;
  Prog.Hw = Hw;
  Prog.DataAddr = DataBase;
  Prog.SkippedDataBytes = Image.Size;
  Prog.Input = {"in", Q.In.Addr, L.In.C, L.In.H, L.In.W, 8};
  Prog.Output = {"out", Q.Out.Addr, L.Out.C, L.Out.H, L.Out.W, 8};
  Prog.Layers.push_back({L.Name, "conv", 0, L.Out.C, L.Out.H, L.Out.W});
  Emitter E;
  emitProgram(E, makeSteps(Plans, Opts), Hw, B, Opts);
  auto Words = E.finish();
  if (!Words) {
    llvm::consumeError(Words.takeError());
    return std::nullopt;
  }
  Prog.Code = std::move(*Words);
  sim::SimOptions SO;
  SO.TimingOnly = true;
  auto Sim = sim::Simulator::create(Prog, SO);
  if (!Sim) {
    llvm::consumeError(Sim.takeError());
    return std::nullopt;
  }
  auto Stats = (*Sim)->run();
  if (!Stats) {
    llvm::consumeError(Stats.takeError());
    return std::nullopt;
  }
  return Stats->Cycles;
}

std::optional<uint64_t>
snow::compiler::measurePlan(const LayerPlan &P, const isa::HwConfig &Hw, const BufferMap &B,
                            const CompileOptions &Opts,
                            const std::function<uint64_t(const LayerPlan &Prefix)> &Estimate) {
  if (P.Dynamic || !P.IsConv)
    return std::nullopt;
  const size_t Steps = P.Rounds.size() * P.NChunks;
  if (Steps <= MeasureSteps)
    return runAlone(P, Hw, B, Opts);
  // A prefix of whole rounds: the first rounds hold the layer's start-up,
  // and the rest repeat their pattern (edge tiles aside), so the model's
  // error there is its error on the whole plan.
  LayerPlan Prefix = P;
  Prefix.Rounds.resize(std::max<size_t>(1, MeasureSteps / P.NChunks));
  const std::optional<uint64_t> Measured = runAlone(Prefix, Hw, B, Opts);
  const uint64_t EstPrefix = Estimate(Prefix);
  if (!Measured || EstPrefix == 0)
    return std::nullopt;
  return uint64_t(double(Estimate(P)) * double(*Measured) / double(EstPrefix) + 0.5);
}
