//===- PipelinePools.cpp - Pools placed to run beside their convs ---------===//
//
// The layer order and plan costs of pipelined pools (docs/compiler.md, step
// 9a): a pool moves to right after the conv it reads where that conv leaves
// the DRAM channel idle long enough, and the conv's plan pays for orders
// that would keep the pool waiting. Sequence.cpp interleaves their steps.
//
//===----------------------------------------------------------------------===//

#include "PipelinePools.h"
#include "Lower.h"
#include <algorithm>
#include <functional>

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
        G.Layers[size_t(C)].Kind != ir::LayerKind::Conv || Frames[size_t(C)] != Frames[Q])
      continue;
    auto Plan = planLayer(Pool, unsigned(Q), SlicedOut[Q], Hw, B, Opts, Frames[Q]);
    if (!Plan) {
      llvm::consumeError(Plan.takeError()); // Reported when the pool itself is planned.
      continue;
    }
    if (Plan->size() == 1 && Plan->front().Rounds.size() > 1)
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
  for (size_t Q = 0; Q < Plans.size(); ++Q) {
    if (Plans[Q].IsConv || Plans[Q].Elementwise || !Whole(Plans[Q]))
      continue;
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
    if (Big < 0)
      continue;
    bool Free = true;
    for (int K = Big + 1; K <= Last && Free; ++K)
      Free = !Reads(Plans[size_t(K)], Plans[size_t(Big)].Index);
    const LayerPlan &Beside = Plans[size_t(Free ? Big : Last)];
    if (!Free && (!Beside.IsConv || !Whole(Beside)))
      continue;
    // The pool's traffic hides only where the conv leaves the DRAM channel
    // idle for as long (estimates): beside a conv that streams its own maps
    // and weights all the time, it would slow the conv down by as much as it
    // saves (SqueezeNet's conv1 and pool1), and it stays where the layer
    // scheduler put it.
    const uint64_t Busy = Hw.dramCycles(Beside.EstDramBytes);
    const uint64_t PoolDram = Hw.dramCycles(Plans[Q].EstDramBytes);
    if (Beside.EstCycles < Busy + PoolDram)
      continue;
    // A pool step loads its maps while one step of the conv runs: its steps
    // must be small enough for the channel time one conv step leaves idle
    // (at most one for every two of the conv's steps).
    const size_t ConvSteps = stepCount(Beside);
    const uint64_t Idle = std::max<uint64_t>(1, (Beside.EstCycles - Busy) / ConvSteps);
    const unsigned Want = unsigned(std::min<uint64_t>(ConvSteps / 2, (PoolDram + Idle - 1) / Idle));
    // Nor where the conv completes its rows too late for most of the pool's
    // steps to go before its end (its output groups outermost, say; a pool
    // of one step, or beside a conv of one, never): the move would only cost.
    auto Pipelines = [&](const LayerPlan &Pool) {
      return 2 * stepsBeside(Beside, Pool) > stepCount(Pool);
    };
    bool Finer = false;
    if (stepCount(Plans[Q]) < Want) {
      auto Pool = planPoolBeside(Plans[Q], Hw, B, Opts, Want);
      if (!Pool)
        llvm::consumeError(Pool.takeError()); // No tile shape has the steps.
      else if ((Finer = Pipelines(*Pool)))
        Plans[Q] = std::move(*Pool);
    }
    if (!Finer && !Pipelines(Plans[Q]))
      continue;
    if (Free && Big != Last)
      std::rotate(Plans.begin() + Big, Plans.begin() + Big + 1, Plans.begin() + Last + 1);
    std::rotate(Plans.begin() + Last + 1, Plans.begin() + long(Q), Plans.begin() + long(Q) + 1);
    Plans[size_t(Last) + 1].Beside = true;
  }
}
