//===- PipelinePools.cpp - Pools placed to run beside their convs ---------===//
//
// The layer order and plan costs of pipelined pools (docs/compiler.md, step
// 9a): a pool moves to right after the conv it reads where that conv leaves
// the DRAM channel idle long enough, and the conv's plan pays for orders
// that would keep the pool waiting. Sequence.cpp interleaves their steps.
//
//===----------------------------------------------------------------------===//

#include "PipelinePools.h"
#include "Batch.h"
#include "Cost.h"
#include "Lower.h"
#include <algorithm>
#include <functional>
#include <optional>

using namespace snow;
using namespace snow::compiler;

/// For each conv that a pooling layer reads directly: what planning it in
/// two parts costs beyond its own cycles. pipelineOrder runs such a pool
/// beside a conv planned whole, hiding its cycles; beside a conv in parts it
/// runs after it. The pool's estimate is
/// the penalty (0 where nothing would pipeline).
std::vector<uint64_t> snow::compiler::splitPenalties(const ir::Graph &G, const isa::HwConfig &Hw,
                                                     const BufferMap &B, const CompileOptions &Opts,
                                                     const std::vector<unsigned> &Frames,
                                                     const std::vector<bool> &SlicedOut) {
  std::vector<uint64_t> Penalty(G.Layers.size(), 0);
  if (!Opts.PipelinePools)
    return Penalty;
  for (size_t Q = 0; Q < G.Layers.size(); ++Q) {
    const ir::Layer &Pool = G.Layers[Q];
    const int C = Pool.input();
    if ((Pool.Kind != ir::LayerKind::MaxPool && Pool.Kind != ir::LayerKind::AvgPool) || C < 0 ||
        G.Layers[size_t(C)].Kind != ir::LayerKind::Conv || Frames[size_t(C)] != Frames[Q] ||
        !Opts.on(Pool, &CompileOptions::PipelinePools))
      continue;
    auto Plan = planLayer(Pool, unsigned(Q), SlicedOut[Q], Hw, B, Opts, Frames[Q]);
    if (!Plan) {
      llvm::consumeError(Plan.takeError()); // Reported when the pool itself is planned.
      continue;
    }
    if (Plan->size() == 1)
      Penalty[size_t(C)] += Plan->front().EstCycles;
  }
  return Penalty;
}

/// With CompileOptions::PipelinePools: moves each whole pooling layer to
/// right after the conv that last produces its input, where Sequence.cpp
/// runs it pipelined beside that conv, row band by row band (and frame by
/// frame). When the pool reads a concat, the biggest of the concat's
/// producing convs (an inception block's 3x3 rather than its 5x5) is moved
/// to be the last one first, so the pool's traffic hides under the most
/// traces. Legal: the pool's inputs are complete where it goes and the
/// layers it jumps over ran before it, so none reads it; the moved conv
/// jumps only over layers that do not read it.
void snow::compiler::pipelineOrder(const ir::Graph &G, const isa::HwConfig &Hw, const BufferMap &B,
                                   const CompileOptions &Opts, std::vector<LayerPlan> &Plans) {
  auto Whole = [](const LayerPlan &P) { return P.FirstPart && P.LastPart; };
  // How far ahead a pool looks for a conv to run beside (plans).
  constexpr size_t Window = 12;
  // The layers whose outputs layer I's inputs are (through concats).
  std::function<void(int, std::vector<unsigned> &)> Sources = [&](int I,
                                                                  std::vector<unsigned> &Out) {
    if (I < 0)
      return;
    const ir::Layer &L = G.Layers[size_t(I)];
    if (!isView(L)) {
      Out.push_back(unsigned(I));
      return;
    }
    for (int In : L.Inputs)
      Sources(In, Out);
  };
  auto Reads = [&](const LayerPlan &P, unsigned Layer) {
    std::vector<unsigned> S;
    for (int In : P.L->Inputs)
      Sources(In, S);
    if (P.L->HasResidual)
      Sources(P.L->Residual, S);
    return std::find(S.begin(), S.end(), Layer) != S.end();
  };
  // Whether the plan at K has a pool placed beside it: it must stay just
  // before that pool.
  auto Hosts = [&](size_t K) {
    return K + 1 < Plans.size() && Plans[K + 1].BesideOf == int(Plans[K].Index);
  };
  // Whether Pool's traffic hides beside Conv (which it reads, or not): if so,
  // Pool is planned again in small enough steps where needed.
  // Other: a pool beside Conv already, whose traffic then keeps the
  // channel busy too.
  auto Fits = [&](const LayerPlan &Conv, LayerPlan &Pool, bool ReadsConv,
                  const LayerPlan *Other = nullptr) {
    // (Or the last part of a conv planned in whole output groups and the
    // rest, which the pool reading it follows: the first part's rows are
    // stored before it starts; a pool storing into a concat's slice only,
    // see BesideProducer.)
    if (!Conv.IsConv || !(Whole(Conv) || (ReadsConv && Conv.LastPart && Pool.OutIsSlice)) ||
        Conv.Frames != Pool.Frames || !Opts.on(*Pool.L, &CompileOptions::PipelinePools))
      return false;
    // The pool's traffic hides only where the conv leaves the DRAM channel
    // idle for as long (estimates): beside a conv that streams its own
    // maps and weights all the time, it would slow the conv down by as much
    // as it saves (SqueezeNet's conv1 and pool1), and it stays where the
    // layer scheduler put it.
    const uint64_t Busy = Hw.dramCycles(Conv.EstDramBytes + (Other ? Other->EstDramBytes : 0));
    const uint64_t PoolDram = Hw.dramCycles(Pool.EstDramBytes);
    if (Conv.EstCycles < Busy + PoolDram)
      return false;
    // A pool step loads its maps while one step of the conv runs: its steps
    // must be small enough for the channel time one conv step leaves idle
    // (at most one for every two of the conv's steps).
    const size_t ConvSteps = stepCount(Conv);
    const uint64_t Idle = std::max<uint64_t>(1, (Conv.EstCycles - Busy) / ConvSteps);
    const unsigned Want = unsigned(std::min<uint64_t>(ConvSteps / 2, (PoolDram + Idle - 1) / Idle));
    // Nor where the conv completes its rows too late for most of the pool's
    // steps to go before its end (its output groups outermost, say; a pool
    // of one step, or beside a conv of one, never), nor where the pool's
    // traffic is less than what its steps cost the conv: a conv step after
    // a pool step finds its maps not loaded (the pool used the other bank),
    // about one conv step's traffic each. There the move would only cost.
    auto Beside = [&](const LayerPlan &P) {
      return 2 * stepsBeside(Conv, P, channelGroup(Hw, Opts), Opts.PoolsBetweenChunks, ReadsConv) >
             stepCount(P);
    };
    auto Pipelines = [&](const LayerPlan &P) {
      return Beside(P) && PoolDram > stepCount(P) * Busy / ConvSteps;
    };
    std::optional<LayerPlan> Own; // In input regions of its own.
    if (stepCount(Pool) < Want) {
      auto Finer = planPoolBeside(Pool, Hw, B, Opts, Want);
      if (!Finer)
        llvm::consumeError(Finer.takeError()); // No tile shape has the steps.
      else if (Pipelines(*Finer))
        Own = std::move(*Finer);
    }
    if (!Own && Pipelines(Pool))
      Own = Pool;
    // Or in the banks of the conv's input region that the conv leaves
    // unused (LayerPlan::ShareOffset; planned again there): then a conv step
    // after a pool step finds its maps loaded, but the pool's tiles may be
    // smaller, and its traffic larger.
    std::optional<LayerPlan> Shared;
    const uint64_t Bank = Hw.mapsBankElems();
    const uint64_t Offset = Conv.CopyBanks
                                ? (Conv.CopyBanks + 1) * Bank // its copy's bank too
                                : (Conv.inputElems(Hw.LanesPerVmac) + Bank - 1) / Bank * Bank;
    if (Own && Opts.SharePoolRegions && !Conv.readsBanked() && Offset < B.InCap) {
      BufferMap Rest = B;
      Rest.InCap = B.InCap - uint32_t(Offset);
      // No more steps than in its own regions: each has its overheads.
      auto S =
          planPoolBeside(Pool, Hw, Rest, Opts, std::min<unsigned>(Want, unsigned(stepCount(*Own))));
      if (!S) {
        llvm::consumeError(S.takeError()); // No tile shape fits there.
      } else if (Beside(*S)) {
        Shared = std::move(*S);
        Shared->ShareOffset = uint32_t(Offset);
      }
    }
    // What each costs beside the conv (estimates): the pool's windows and
    // its traffic beyond what the conv leaves idle; then in regions of its
    // own a conv step's traffic for each pool step, sharing the traffic of
    // the pool's steps that run after the conv's last (one pool step at most
    // goes between two of the conv's: stepsBeside, Shared).
    auto Beyond = [&](const LayerPlan &P) {
      const uint64_t Dram = Hw.dramCycles(P.EstDramBytes), Steps = stepCount(P);
      const uint64_t Between = P.ShareOffset
                                   ? Dram *
                                         (Steps - stepsBeside(Conv, P, channelGroup(Hw, Opts),
                                                              Opts.PoolsBetweenChunks, ReadsConv,
                                                              /*Shared=*/true)) /
                                         Steps
                                   : Steps * Busy / ConvSteps;
      return besideCost(P, Hw) + (Busy + Dram > Conv.EstCycles ? Busy + Dram - Conv.EstCycles : 0) +
             Between;
    };
    // Smaller tiles in the conv's region move more halo: counted whole, as
    // the conv's idle channel time is an estimate (GoogLeNet's pool1 and
    // pool2 on narrow8 moved 2.4 times their traffic, and cost more than
    // the conv saved).
    auto More = [&](const LayerPlan &S, const LayerPlan &O) {
      return S.EstDramBytes > O.EstDramBytes ? Hw.dramCycles(S.EstDramBytes - O.EstDramBytes) : 0;
    };
    if (Shared && Beyond(*Shared) + More(*Shared, *Own) < Beyond(*Own))
      Own = std::move(Shared);
    if (!Own)
      return false;
    // What it then costs (LayerPlan::BesideCycles, reported): its windows,
    // and the steps after the conv's last as alone (a pool that reads older
    // layers has its input from the start: none waits for the conv's last).
    const uint64_t Steps = stepCount(*Own);
    const uint64_t After =
        ReadsConv
            ? Steps - std::min<uint64_t>(Steps, stepsBeside(Conv, *Own, channelGroup(Hw, Opts),
                                                            Opts.PoolsBetweenChunks, true,
                                                            Own->ShareOffset != 0))
            : 0;
    Own->BesideCycles =
        besideCost(*Own, Hw) + Own->EstCycles * After / std::max<uint64_t>(1, Steps);
    Pool = std::move(*Own);
    return true;
  };
  // Beside the conv that last produces the pool's input (the biggest one,
  // through a concat), which then signals the rows it has stored.
  auto BesideProducer = [&](size_t Q) {
    std::vector<unsigned> Src;
    for (int In : G.Layers[Plans[Q].Index].Inputs)
      Sources(In, Src);
    // The producers' plan positions; the last, and the biggest whole conv.
    int Last = -1, Big = -1;
    for (size_t K = 0; K < Q; ++K) {
      if (std::find(Src.begin(), Src.end(), Plans[K].Index) == Src.end())
        continue;
      Last = int(K);
      const LayerPlan &P = Plans[K];
      if (P.IsConv && Whole(P) && P.Frames == Plans[Q].Frames && P.Rounds.size() > 1 &&
          (Big < 0 || P.EstCycles > Plans[size_t(Big)].EstCycles))
        Big = int(K);
    }
    // Or, with no whole conv, the last part of a conv planned in whole
    // output groups and the rest (Fits), where it is (a layer's parts stay
    // together), and only for a pool that could not run fused with the 1x1
    // convs reading it instead (it stores into a concat's slice, as pool3's
    // part for GoogLeNet's 5x5 branch): the last part completes its rows
    // late, which the estimate of the steps beside it does not see (a
    // 16 -> 96-channel 5x5 conv and its pool at batch 4: 577,391 cycles
    // beside, 568,572 fused).
    if (Big < 0 && Last >= 0) {
      const LayerPlan &P = Plans[size_t(Last)];
      if (P.IsConv && P.LastPart && P.Frames == Plans[Q].Frames && P.Rounds.size() > 1 &&
          Plans[Q].OutIsSlice)
        Big = Last;
    }
    if (Big < 0)
      return false;
    // Neither the conv moved nor the pool put between a conv and its pool,
    // but a conv that hosts a pool which does not read it (an inception
    // block's branch pool) may host this one too, after that one: only one
    // pool beside a conv waits for its rows (RowSignals.cpp, pipeline).
    bool Free = !Hosts(size_t(Big));
    for (int K = Big + 1; K <= Last && Free; ++K)
      Free = !Reads(Plans[size_t(K)], Plans[size_t(Big)].Index);
    const size_t At = size_t(Last) + 1;
    const LayerPlan *Other = nullptr;
    if (Hosts(size_t(Last))) {
      Free = false; // Beside Last, where it is.
      const LayerPlan &O = Plans[At];
      if (!Opts.TwoPoolsBeside || Reads(O, Plans[size_t(Last)].Index) ||
          (At + 1 < Plans.size() && Plans[At + 1].BesideOf >= 0))
        return false;
      Other = &O;
    } else if (At < Plans.size() && Plans[At].BesideOf >= 0) {
      return false; // Last is a pool beside a conv, and another follows.
    }
    const size_t Host = size_t(Free ? Big : Last);
    if (!Fits(Plans[Host], Plans[Q], true, Other))
      return false;
    if (Free && Big != Last)
      std::rotate(Plans.begin() + Big, Plans.begin() + Big + 1, Plans.begin() + Last + 1);
    const size_t To = At + (Other ? 1 : 0);
    std::rotate(Plans.begin() + long(To), Plans.begin() + long(Q), Plans.begin() + long(Q) + 1);
    Plans[To].BesideOf = int(Plans[size_t(Last)].Index);
    return true;
  };
  // Beside a conv that comes later and reads nothing from the pool's place
  // on (an inception block's 3x3 beside its pool branch): that conv moves
  // to just before the pool. The pool's input is complete, so its steps
  // wait for nothing.
  auto BesideOther = [&](size_t Q) {
    std::vector<unsigned> Since; // Layers planned from Q on.
    int Best = -1;
    for (size_t K = Q + 1; K < Plans.size() && K <= Q + Window; ++K) {
      Since.push_back(Plans[K - 1].Index);
      const LayerPlan &C = Plans[K];
      bool Free = C.IsConv && !Hosts(K);
      for (unsigned L : Since)
        Free = Free && !Reads(C, L);
      if (Free && C.Rounds.size() > 1 && (Best < 0 || C.EstCycles > Plans[size_t(Best)].EstCycles))
        Best = int(K);
    }
    if (Best < 0 || !Fits(Plans[size_t(Best)], Plans[Q], false))
      return;
    std::rotate(Plans.begin() + long(Q), Plans.begin() + Best, Plans.begin() + Best + 1);
    Plans[Q + 1].BesideOf = int(Plans[Q].Index);
  };
  for (size_t Q = 0; Q < Plans.size(); ++Q) {
    if (Plans[Q].IsConv || Plans[Q].Elementwise || !Whole(Plans[Q]) || Plans[Q].BesideOf >= 0)
      continue;
    if (!BesideProducer(Q))
      BesideOther(Q);
  }
}

void snow::compiler::dropUnusedPenalties(const ir::Graph &G, const isa::HwConfig &Hw,
                                         const BufferMap &B, const CompileOptions &Opts,
                                         const std::vector<unsigned> &Frames,
                                         const std::vector<uint64_t> &Penalty,
                                         std::vector<LayerPlan> &Plans) {
  const std::vector<bool> HasBeside = poolsBeside(G, Plans);
  replanLayers(Plans, [&](size_t K, size_t End) -> std::optional<std::vector<LayerPlan>> {
    const unsigned I = Plans[K].Index;
    if (!Penalty[I] || HasBeside[I])
      return std::nullopt;
    auto Again = planAgain(G, I, Hw, B, Opts, Frames[I]);
    // A layer with run-time weights ran as a copy of its parts per frame
    // (splitDynamicByFrame): so does its new plan, or a batch's other
    // frames would go unscaled.
    unsigned Copies = 0;
    for (size_t J = K; J < End; ++J)
      Copies = std::max(Copies, Plans[J].PerFrame ? Plans[J].FrameShift + 1 : 1);
    if (Again && Copies > 1)
      splitDynamicByFrame(*Again, Copies);
    return Again;
  });
}
