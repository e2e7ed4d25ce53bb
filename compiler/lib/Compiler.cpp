//===- Compiler.cpp - The snowc driver: plan, pack, lower, package --------===//
//
// Checks the graph against what the hardware and this compiler support, plans
// every layer, lays out DRAM (constant weights first, then the input and one
// tensor per layer output), packs the weights in exactly the order the load
// unit fetches them, emits the code and wraps everything into a Program.
//
//===----------------------------------------------------------------------===//

#include "snow/compiler/Compiler.h"
#include "Batch.h"
#include "Emitter.h"
#include "Fuse.h"
#include "Lower.h"
#include "PipelinePools.h"
#include "Plan.h"
#include "PlanKeys.h"
#include "Replan.h"
#include "Schedule.h"
#include "Tensors.h"
#include "WeightPack.h"
#include "snow/isa/Timing.h"
#include "snow/support/HugePages.h"
#include "snow/support/Parallel.h"
#include "llvm/Support/TimeProfiler.h"
#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <optional>
#include <unordered_map>

using namespace snow;
using namespace snow::compiler;
using isa::HostSoftmaxType;

namespace {

constexpr uint64_t DataBase = 0x10000; ///< Leave the first 64 KiB unused: a stray 0 faults.
constexpr uint64_t TensorAlign = 4096;

uint64_t alignTo(uint64_t V, uint64_t A) { return (V + A - 1) / A * A; }

llvm::Error compileError(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// Whether L can be compiled: a canonical kind and (with Formats) formats
/// and quantized weights the hardware can use.
llvm::Error checkLayer(const ir::Layer &L, const isa::HwConfig &Hw, bool Formats = true) {
  auto Err = [&](const std::string &Msg) {
    return compileError(fmt::format("{}: layer '{}': {}", L.Loc.str(), L.Name, Msg));
  };
  switch (L.Kind) {
  case ir::LayerKind::Conv:
  case ir::LayerKind::MaxPool:
  case ir::LayerKind::AvgPool:
  case ir::LayerKind::Concat:
  case ir::LayerKind::Add:
  case ir::LayerKind::Mul:
  case ir::LayerKind::Relu:
  case ir::LayerKind::Slice:
    break;
  default:
    return Err(fmt::format("layer type '{}' must be removed by ir::canonicalize() before "
                           "compiling",
                           ir::kindName(L.Kind)));
  }
  if (L.Kind == ir::LayerKind::Conv && Formats) {
    int Shift = L.InFrac + L.WFrac - L.writebackFrac(), BShift = L.InFrac + L.WFrac - L.BFrac;
    int RShift = L.InFrac + L.WFrac - L.ResFrac;
    if (L.HasResidual && (RShift < 0 || RShift > 63))
      return Err(fmt::format("the residual's format ({} fraction bits) needs a shift outside "
                             "0..63",
                             L.ResFrac));
    if (Shift < 0 || Shift > 63 || BShift < 0 || BShift > 63)
      return Err(fmt::format("fixed-point formats (in {}, weights {}, bias {}, out {}) need "
                             "shifts outside 0..63",
                             L.InFrac, L.WFrac, L.BFrac, L.OutFrac));
    // quantize() leaves some deferred weights to the packer, and fills
    // QBias either way.
    const bool Deferred = L.packerDrawsWeights() && L.QBias.size() == L.Out.C;
    if (!L.DynamicWeights && !Deferred &&
        L.QWeights.size() != size_t(L.Out.C) * (L.In.C / L.Groups) * L.KH * L.KW)
      return Err("weights are not quantized (run ir::quantize first)");
  }
  return llvm::Error::success();
}

/// planLayer, for a conv hosting a pool's blocks (hostBlock) where no tile
/// of whole blocks fits (a 7x7 stride-2 depthwise window of 256 channels on
/// big4096): planned again without, and the pool then plans as any
/// (poolIsHosted).
llvm::Expected<std::vector<LayerPlan>> planLayerOrUnhosted(const ir::Layer &L, unsigned I,
                                                           bool OutIsSlice, const isa::HwConfig &Hw,
                                                           const BufferMap &B,
                                                           const CompileOptions &Opts,
                                                           unsigned Frames, uint64_t Penalty) {
  auto P = planLayer(L, I, OutIsSlice, Hw, B, Opts, Frames, Penalty);
  if (P || !hostBlock(L, Opts))
    return P;
  llvm::consumeError(P.takeError());
  CompileOptions Apart = Opts;
  Apart.HostBlockPools = false;
  return planLayer(L, I, OutIsSlice, Hw, B, Apart, Frames, Penalty);
}

/// Whether pool layer Q runs no code of its own: its conv computes it
/// (hostedPool) and has a plan that does (Plans: the plans so far, in any
/// order, its conv's among them).
bool poolIsHosted(const ir::Layer &Q, const CompileOptions &Opts,
                  const std::vector<LayerPlan> &Plans) {
  return hostedPool(Q, Opts) && llvm::any_of(Plans, [&](const LayerPlan &P) {
           return int(P.Index) == Q.PoolHost && P.PoolBlock;
         });
}

llvm::Expected<std::vector<LayerPlan>> planAll(const ir::Graph &G, const isa::HwConfig &Hw,
                                               const BufferMap &B, const CompileOptions &Opts,
                                               const std::vector<unsigned> &Frames,
                                               const std::vector<uint64_t> &Penalty,
                                               bool Formats = true) {
  const size_t N = G.Layers.size();
  const std::vector<bool> SlicedOut = slicedOutputs(G);
  // Each layer plans as its first layer with the same key (Reuse[I] = that
  // layer); the distinct ones in parallel, a plan depending only on its
  // layer, the hardware and the options. The first error in layer order is
  // reported, as a sequential loop would.
  std::vector<size_t> Reuse(N), Distinct;
  {
    std::unordered_map<std::string, size_t> First;
    for (size_t I = 0; I < N; ++I) {
      Reuse[I] = Opts.ReusePlans ? First
                                       .try_emplace(planKey(G.Layers[I], SlicedOut[I], Frames[I],
                                                            Penalty[I], Opts.tweakKey(G.Layers[I])),
                                                    I)
                                       .first->second
                                 : I;
      if (Reuse[I] == I)
        Distinct.push_back(I);
    }
  }
  std::vector<std::optional<llvm::Expected<std::vector<LayerPlan>>>> Parts(N);
  parallelForEach(Distinct.size(), [&](size_t K) {
    const size_t I = Distinct[K];
    if (auto Err = checkLayer(G.Layers[I], Hw, Formats))
      Parts[I].emplace(std::move(Err));
    else if (!isView(G.Layers[I]) && !hostedPool(G.Layers[I], Opts)) // No code of its own.
      Parts[I].emplace(planLayerOrUnhosted(G.Layers[I], unsigned(I), SlicedOut[I], Hw, B, Opts,
                                           Frames[I], Penalty[I]));
  });
  std::vector<LayerPlan> Plans;
  for (size_t I = 0; I < N; ++I) {
    // A pool whose conv could not host it plans as any (after the conv).
    if (hostedPool(G.Layers[I], Opts) && !Parts[I] && !poolIsHosted(G.Layers[I], Opts, Plans))
      Parts[I].emplace(
          planLayer(G.Layers[I], unsigned(I), SlicedOut[I], Hw, B, Opts, Frames[I], Penalty[I]));
    auto &Part = Parts[hostedPool(G.Layers[I], Opts) ? I : Reuse[I]];
    if (!Part)
      continue;
    if (!*Part) // Its first layer has the error, so no layer before it has one.
      return Part->takeError();
    for (const LayerPlan &P : **Part) {
      Plans.push_back(P);
      Plans.back().L = &G.Layers[I];
      Plans.back().Index = unsigned(I);
    }
  }
  return Plans;
}

/// Puts the plans in program order: the layer scheduler's (a layer's parts
/// stay together), then pools moved beside the convs they read (which may
/// plan such a pool again in smaller steps, and a conv whose pool did not
/// go beside it again without the penalty that was to keep it there).
void orderPlans(const ir::Graph &PG, const isa::HwConfig &Hw, const BufferMap &B,
                const CompileOptions &Opts, const std::vector<unsigned> &Frames,
                const std::vector<uint64_t> &Penalty, std::vector<LayerPlan> &Plans) {
  if (Opts.ScheduleLayers) {
    std::vector<uint64_t> Cycles(PG.Layers.size(), 0);
    for (const LayerPlan &P : Plans)
      Cycles[P.Index] += P.EstCycles;
    std::vector<unsigned> Rank(PG.Layers.size());
    std::vector<bool> Late;
    for (const auto &[Name, T] : Opts.LayerOff)
      if (T.Late) {
        Late.resize(PG.Layers.size(), false);
        for (size_t I = 0; I < PG.Layers.size(); ++I)
          if (PG.Layers[I].Name == Name)
            Late[I] = true;
      }
    std::vector<unsigned> Order = scheduleLayers(PG, Cycles, Late);
    for (unsigned K = 0; K < Order.size(); ++K)
      Rank[Order[K]] = K;
    std::stable_sort(Plans.begin(), Plans.end(), [&](const LayerPlan &A, const LayerPlan &B) {
      return Rank[A.Index] < Rank[B.Index];
    });
  }
  if (Opts.PipelinePools) {
    pipelineOrder(PG, Hw, B, Opts, Plans);
    dropUnusedPenalties(PG, Hw, B, Opts, Frames, Penalty, Plans);
  }
}

/// Fuses pairs (Fuse.cpp), then plans again what the pairs and the order
/// change (Replan.cpp).
void fuseAndReplan(const ir::Graph &PG, const isa::HwConfig &Hw, const BufferMap &B,
                   const CompileOptions &Opts, const std::vector<unsigned> &Frames,
                   const std::vector<uint64_t> &Penalty, std::vector<LayerPlan> &Plans) {
  // A dense producer planned in parts, weighed for a pair in one.
  auto Whole = [&](const LayerPlan &P) -> std::optional<LayerPlan> {
    CompileOptions O = Opts;
    O.RemainderTiles = false;
    auto W = planAgain(PG, P.Index, Hw, B, O, Frames[P.Index], Penalty[P.Index]);
    if (!W || W->size() != 1)
      return std::nullopt;
    return W->front();
  };
  fuseBlockTriples(PG, Hw, B, Opts, Plans, Whole);
  fuseWindowPairs(PG, Hw, B, Opts, Plans, Whole);
  fusePairs(PG, Hw, B, Opts, Plans, Whole);
  fuseConcatPairs(PG, Hw, B, Opts, Plans);
  planWholeBeforePairs(PG, Hw, B, Opts, Frames, Penalty, Plans);
  planPrefetchWindows(PG, Hw, B, Opts, Frames, Penalty, Plans);
  planFlatPointwise(PG, Hw, B, Opts, Frames, Penalty, Plans);
  planCuSums(PG, Hw, B, Opts, Frames, Penalty, Plans);
}

} // namespace

struct snow::compiler::LayerPlans {
  const ir::Graph *G;
  isa::HwConfig Hw;
  std::vector<uint64_t> Penalty;
  std::vector<LayerPlan> Plans;
};

llvm::Expected<LayerPlansPtr> snow::compiler::planLayers(const ir::Graph &G,
                                                         const isa::HwConfig &Hw,
                                                         const CompileOptions &Opts) {
  assert(Opts.Batch == 1 && "a batch is planned on its batched graph, inside compile()");
  auto B = makeBufferMap(Hw);
  if (!B)
    return B.takeError();
  const std::vector<unsigned> Frames(G.Layers.size(), 1);
  auto P = std::make_shared<LayerPlans>(
      LayerPlans{&G, Hw, splitPenalties(G, Hw, *B, Opts, Frames, slicedOutputs(G)), {}});
  auto Plans = planAll(G, Hw, *B, Opts, Frames, P->Penalty, /*Formats=*/false);
  if (!Plans)
    return Plans.takeError();
  P->Plans = std::move(*Plans);
  return LayerPlansPtr(std::move(P));
}

llvm::Error snow::compiler::checkLayerOff(const ir::Graph &G, const CompileOptions &Opts) {
  for (const auto &Off : Opts.LayerOff) {
    const std::string &Name = Off.first; // (clang 14 captures no structured binding)
    const auto L = llvm::find_if(G.Layers, [&](const ir::Layer &L) { return L.Name == Name; });
    if (L == G.Layers.end())
      return compileError(fmt::format("{}: --layer-off names layer '{}', which model '{}' does "
                                      "not have (snowc --emit=plan lists its layers as compiled)",
                                      G.Loc.str(), Name, G.Name));
    if (Off.second.Apart && L->Kind != ir::LayerKind::Conv)
      return compileError(fmt::format("{}: --layer-off keeps layer '{}' apart, but the graph "
                                      "compiled merges it (applyApart makes it a conv)",
                                      G.Loc.str(), Name));
  }
  return llvm::Error::success();
}

unsigned snow::compiler::alignSlices(ir::Graph &G, const isa::HwConfig &Hw) {
  return ir::alignSlices(G, Hw.VmacsPerCu * Hw.LanesPerVmac, Hw.DramBurstBytes / 2);
}

llvm::Expected<isa::Program> snow::compiler::compile(const ir::Graph &G, const isa::HwConfig &Hw,
                                                     const CompileOptions &Opts,
                                                     std::vector<PlanPart> *Parts,
                                                     isa::ImageFill *DeferredImage,
                                                     const LayerPlans *Planned) {
  if (G.Layers.empty())
    return compileError(G.Loc.str() + ": model has no layers");
  auto B = makeBufferMap(Hw);
  if (!B)
    return B.takeError();
  if (Opts.Batch == 0)
    return compileError("the batch must be at least one frame");
  if (auto Err = checkLayerOff(G, Opts))
    return Err;
  // A batch is planned from a graph whose fc-like layers run over the
  // stacked frames (PG); tensors, the layer table and the input and output
  // keep G's shapes of one frame.
  const unsigned N = Opts.Batch;
  std::vector<unsigned> Frames(G.Layers.size(), 1);
  std::optional<ir::Graph> Batched;
  if (N > 1)
    Batched = batchGraph(G, N, Frames);
  const ir::Graph &PG = Batched ? *Batched : G;
  llvm::TimeTraceScope Scope("compile");
  assert((!Planned || (N == 1 && Planned->G == &G && Planned->Hw == Hw)) &&
         "planLayers of this graph and hardware, one frame");
  const std::vector<uint64_t> Penalty =
      Planned ? Planned->Penalty : splitPenalties(PG, Hw, *B, Opts, Frames, slicedOutputs(PG));
  auto Plans = [&]() -> llvm::Expected<std::vector<LayerPlan>> {
    if (Planned) {
      // What planAll would have checked of the formats, in layer order.
      for (const ir::Layer &L : G.Layers)
        if (auto Err = checkLayer(L, Hw))
          return Err;
      return Planned->Plans;
    }
    llvm::TimeTraceScope Scope("plan layers");
    return planAll(PG, Hw, *B, Opts, Frames, Penalty);
  }();
  if (!Plans)
    return Plans.takeError();
  // Plans made before quantize() (planLayers) assumed which layers get an
  // activation table; a wrong guess would misplace every weight block.
  for (const LayerPlan &P : *Plans)
    if (P.TailWords != 1 + (P.L->QLut.empty() ? 0 : timing::lutWords(Hw)))
      return compileError(G.Loc.str() + ": internal error: layer '" + P.L->Name +
                          "' was planned for " + (P.TailWords > 1 ? "an" : "no") +
                          " activation table, but quantize() gave it " +
                          (P.L->QLut.empty() ? "none" : "one"));
  if (N > 1)
    splitDynamicByFrame(*Plans, N);

  isa::Program Prog;
  Prog.Hw = Hw;
  Prog.ModelName = G.Name;
  Prog.DataAddr = DataBase;
  Prog.Batch = N;
  orderPlans(PG, Hw, *B, Opts, Frames, Penalty, *Plans);
  fuseAndReplan(PG, Hw, *B, Opts, Frames, Penalty, *Plans);
  WeightImage Image = layoutWeights(*Plans, Hw, DataBase);
  if (DeferredImage) {
    Prog.SkippedDataBytes = Image.Size;
  } else {
    llvm::TimeTraceScope Scope("pack weights");
    snow::reserveHuge(Prog.Data, Image.Size);
    Prog.Data.resize(Image.Size);
    Image.fill(0, Image.Size, Prog.Data.data());
  }
  if (Parts)
    for (const LayerPlan &P : *Plans) {
      Parts->push_back(describePart(P, PG, Hw));
      if (auto It = Opts.LayerOff.find(P.L->Name); It != Opts.LayerOff.end())
        Parts->back().LayerOff = tweakSpec(It->second);
    }

  // Activations: the input, then one tensor per layer output.
  uint64_t Next = alignTo(DataBase + Prog.dataBytes(), TensorAlign);
  const uint64_t WeightBytes = Next - DataBase;
  auto Place = [&](uint32_t C, uint32_t H, uint32_t W) {
    uint64_t A = Next;
    Next = alignTo(Next + uint64_t(N) * C * H * W * 2, TensorAlign);
    return A;
  };
  Prog.Input = {G.InputName, Place(G.Input.C, G.Input.H, G.Input.W),
                G.Input.C,   G.Input.H,
                G.Input.W,   uint32_t(G.InputFrac)};
  const TensorView InView{Prog.Input.Addr, G.Input.W, G.Input.C, 0, Prog.Input.bytes()};
  std::vector<std::vector<OutPiece>> Pieces, InPieces;
  auto Views = placeTensors(G, *Plans, Place, Hw, Opts, Pieces, InPieces);
  if (!Views)
    return Views.takeError();
  auto ViewOf = [&](int Layer) { return Layer < 0 ? InView : (*Views)[Layer]; };
  if (Parts) // In program order, as Plans.
    for (size_t K = 0; K < Plans->size(); ++K) {
      const LayerPlan &P = (*Plans)[K];
      (*Parts)[Parts->size() - Plans->size() + K].OutPixelStride =
          P.areaOnly() || !Pieces[P.Index].empty() ? 0 : (*Views)[P.Index].Stride;
    }
  // Which planned layer each layer's data is complete after: its own
  // ordinal (the position of its plans in program order; every part of a
  // layer shares it, LayerDone is signalled after the last part), or for a
  // concat (no code) the latest of its inputs.
  std::vector<int> DoneAfter(G.Layers.size(), -1);
  {
    int Ordinal = -1;
    for (size_t K = 0; K < Plans->size(); ++K) {
      LayerPlan &P = (*Plans)[K];
      if (K == 0 || (*Plans)[K - 1].Index != P.Index)
        ++Ordinal;
      P.Ordinal = Ordinal;
      DoneAfter[P.Index] = Ordinal;
    }
    for (LayerPlan &P : *Plans)
      if (P.FromMid)
        P.ProducerOrdinal = DoneAfter[size_t(P.FusedWith)];
    for (size_t I = 0; I < G.Layers.size(); ++I) { // Inputs come first in the graph.
      if (isView(G.Layers[I]))
        for (int In : G.Layers[I].Inputs)
          if (In >= 0)
            DoneAfter[I] = std::max(DoneAfter[I], DoneAfter[In]);
      if (hostedPool(G.Layers[I], Opts) && DoneAfter[I] < 0) // Stored with its conv's tiles.
        DoneAfter[I] = DoneAfter[size_t(G.Layers[I].PoolHost)];
    }
  }
  for (LayerPlan &P : *Plans) {
    const ir::Layer &L = *P.L;
    std::vector<int> Reads = L.Inputs;
    if (L.HasResidual)
      Reads.push_back(L.Residual);
    for (int In : Reads)
      if (In >= 0)
        P.NeedsDone = std::max(P.NeedsDone, DoneAfter[In]);
    // Wait for the previous layer, whatever it is; a concat's producers
    // for the layer before the first of them, whose steps interleave with
    // theirs (FuseConcat.cpp).
    if (!Opts.PreciseLayerDeps)
      P.NeedsDone = (P.concatProducer() ? DoneAfter[size_t(P.FusedWith)] : P.Ordinal) - 1;
    P.In = ViewOf(L.input());
    if (L.input() >= 0)
      P.InPieces = InPieces[size_t(L.input())];
    if (L.In.C != G.Layers[P.Index].In.C) {
      // Flattened by batchGraph: each frame's dense H x W x C input is one
      // pixel of H*W*C channels.
      assert(P.In.dense(G.Layers[P.Index].In.C) && "batchGraph flattens dense inputs only");
      P.In.W = 1;
      P.In.Stride = L.In.C;
    }
    P.Out = ViewOf(int(P.Index));
    if (P.PoolBlock) {
      const ir::Layer &Pool = PG.Layers[size_t(L.HostedPool)];
      P.PoolOut = ViewOf(L.HostedPool);
      P.PoolMult = Pool.AvgMult;
      P.PoolShift = Pool.AvgShift;
    }
    P.Pieces = Pieces[P.Index];
    if (L.HasResidual)
      P.Res = ViewOf(L.Residual);
    if (P.Dynamic) {
      // Block (og, v) is s's word of channels og * G + v * lanes on: s is
      // C x 1 x 1, its channels one run in DRAM; a batch's part F runs
      // frame F of x, y and s.
      P.In = P.In.frame(P.FrameShift);
      P.Out = P.Out.frame(P.FrameShift);
      if (P.PoolBlock)
        P.PoolOut = P.PoolOut.frame(P.FrameShift);
      const TensorView S = ViewOf(L.Inputs[1]).frame(P.FrameShift);
      const unsigned Lanes = Hw.LanesPerVmac, V = Hw.VmacsPerCu, G = V * Lanes;
      P.WAddr.assign(size_t(P.NOg) * P.NChunks * P.subBlocks(V), 0);
      P.WWords.assign(P.WAddr.size(), 2);
      for (unsigned Og = 0; Og < P.NOg; ++Og)
        for (unsigned Sb = 0; Sb < P.subBlocks(V); ++Sb)
          P.WAddr[P.wIndex(Og, Og, Sb, V)] = S.Addr + 2 * (uint64_t(Og) * G + Sb * Lanes);
    }
    if (L.Kind == ir::LayerKind::Add || L.Kind == ir::LayerKind::Mul)
      P.In2 = ViewOf(L.Inputs[1]);
  }
  // Useful MACs of the whole batch (utilization is per program run; a
  // channel copy has none); shapes of one frame.
  for (const ir::Layer &L : G.Layers)
    Prog.Layers.push_back({L.Name, L.TypeName.empty() ? ir::kindName(L.Kind) : L.TypeName,
                           L.usefulMacs() * N, L.Out.C, L.Out.H, L.Out.W});
  // A final softmax runs on the host; it is listed so reports can say so.
  if (G.HostSoftmax)
    Prog.Layers.push_back(
        {"softmax", HostSoftmaxType, 0, G.output().Out.C, G.output().Out.H, G.output().Out.W});
  if (Next > Hw.dramBytes())
    return compileError(fmt::format(
        "{}: model '{}' needs {:.1f} MiB of DRAM (weights {:.1f} MiB, activations {:.1f} MiB) "
        "but hardware '{}' has {} MiB",
        G.Loc.str(), G.Name, Next / 1048576.0, WeightBytes / 1048576.0,
        (Next - DataBase - WeightBytes) / 1048576.0, Hw.Name, Hw.DramMib));
  const ir::Layer &Last = G.output();
  Prog.Output = {Last.Name,  Views->back().Addr, Last.Out.C,
                 Last.Out.H, Last.Out.W,         uint32_t(Last.OutFrac)};

  llvm::TimeTraceScope EmitScope("emit code");
  Emitter E;
  emitProgram(E, makeSteps(*Plans, Hw, Opts), Hw, *B, Opts);
  auto Words = E.finish();
  if (!Words)
    return Words.takeError();
  Prog.Code = std::move(*Words);
  if (DeferredImage) {
    // The image's blocks point at the plans, the plans at PG's layers:
    // both move into the filler (their elements stay where they are).
    struct Held {
      std::vector<LayerPlan> Plans;
      std::optional<ir::Graph> Batched;
      WeightImage Image;
    };
    auto H = std::make_shared<Held>(Held{std::move(*Plans), std::move(Batched), std::move(Image)});
    *DeferredImage = [H](uint64_t Begin, uint64_t End, uint8_t *Out) {
      H->Image.fill(Begin, End, Out);
    };
  }
  return Prog;
}

std::string snow::compiler::describePlan(const ir::Graph &G, const isa::HwConfig &Hw,
                                         const CompileOptions &Opts) {
  auto B = makeBufferMap(Hw);
  if (!B)
    return llvm::toString(B.takeError()) + "\n";
  std::string Out =
      fmt::format("{:<16} {:<8} {:>14} {:>9} {:>7} {:>4} {:<17} {:>12} {:>9}\n", "layer", "type",
                  "chunks", "tile", "rounds", "og", "order", "est cycles", "est MB");
  std::vector<unsigned> Frames(G.Layers.size(), 1);
  std::optional<ir::Graph> Batched;
  if (Opts.Batch > 1)
    Batched = batchGraph(G, Opts.Batch, Frames);
  const ir::Graph &PG = Batched ? *Batched : G;
  const std::vector<bool> SlicedOut = slicedOutputs(PG);
  const std::vector<uint64_t> Penalty = splitPenalties(PG, Hw, *B, Opts, Frames, SlicedOut);
  // Every layer planned (a failure is listed in the layer's row), then, if
  // all were, the program order's changes: pools beside their convs may be
  // planned again.
  std::vector<std::optional<std::vector<LayerPlan>>> ByLayer(PG.Layers.size());
  std::vector<std::string> Errors(PG.Layers.size());
  std::vector<LayerPlan> All;
  bool AllPlanned = true;
  for (unsigned I = 0; I < PG.Layers.size(); ++I) {
    if (isView(PG.Layers[I]) || poolIsHosted(PG.Layers[I], Opts, All))
      continue;
    auto Parts =
        planLayerOrUnhosted(PG.Layers[I], I, SlicedOut[I], Hw, *B, Opts, Frames[I], Penalty[I]);
    if (!Parts) {
      Errors[I] = llvm::toString(Parts.takeError());
      AllPlanned = false;
      continue;
    }
    All.insert(All.end(), Parts->begin(), Parts->end());
  }
  if (AllPlanned) {
    orderPlans(PG, Hw, *B, Opts, Frames, Penalty, All);
    fuseAndReplan(PG, Hw, *B, Opts, Frames, Penalty, All);
  }
  for (LayerPlan &P : All) {
    if (!ByLayer[P.Index])
      ByLayer[P.Index].emplace();
    ByLayer[P.Index]->push_back(P);
  }
  for (unsigned I = 0; I < PG.Layers.size(); ++I) {
    const ir::Layer &L = PG.Layers[I];
    if (L.Kind == ir::LayerKind::Concat) {
      Out += fmt::format("{:<16} {:<8} (a view: its inputs write into its tensor)\n", L.Name,
                         "concat");
      continue;
    }
    if (hostedPool(L, Opts) && !ByLayer[I]) {
      Out += fmt::format("{:<16} {:<8} (averaged by '{}' as it writes its tiles back)\n", L.Name,
                         "avgpool", PG.Layers[size_t(L.PoolHost)].Name);
      continue;
    }
    if (L.Kind == ir::LayerKind::Slice) {
      Out += fmt::format("{:<16} {:<8} (channels {}..{} of '{}', which writes them)\n", L.Name,
                         "slice", L.SliceBegin, L.SliceBegin + L.Out.C - 1,
                         PG.Layers[size_t(L.input())].Name);
      continue;
    }
    if (!ByLayer[I]) {
      Out += fmt::format("{:<16} {}\n", L.Name, Errors[I]);
      continue;
    }
    for (const LayerPlan &P : *ByLayer[I]) {
      PlanPart D = describePart(P, PG, Hw);
      Out += fmt::format("{:<16} {:<8} {:>14} {:>9} {:>7} {:>4} {:<17} {:>12} {:>9.2f}\n", D.Name,
                         D.Type, fmt::format("{}x{}", D.Chunks, D.ChunkChannels),
                         fmt::format("{}x{}", D.TileRows, D.TileCols), D.Rounds, D.OutputGroups,
                         D.Order, D.EstCycles, D.EstDramBytes / 1e6);
    }
  }
  return Out;
}
