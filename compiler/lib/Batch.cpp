//===- Batch.cpp - The batch transforms of a batch-N program ----------------===//
//
// What a batch changes before and after planning (docs/batch.md): the graph
// planned for N frames, a run-time-weights layer copied once per frame, and
// the order that lets a pool run frame-pipelined beside the conv it reads,
// with the cost a conv's plan pays where that pipelining would be lost.
//
//===----------------------------------------------------------------------===//

#include "Batch.h"
#include <algorithm>

using namespace snow;
using namespace snow::compiler;

namespace {

/// Whether the frames of layer L's tensors stack exactly: with the batch's
/// frames one after another in DRAM, the layer over the tensor of Batch x H
/// rows computes each frame's output rows from that frame's input rows only.
/// True of fc layers (a conv whose kernel covers its input, output 1 x W)
/// and global pooling: no vertical padding, and one output row per frame
/// whose window is the frame's every row (the stride becomes H).
bool stacksFrames(const ir::Layer &L) {
  return !isView(L) && L.PadT == 0 && L.PadB == 0 && L.Out.H == 1 && L.KH == L.In.H;
}

} // namespace

/// For each conv of a batch that a pooling layer reads directly: what
/// planning it in two parts costs beyond its own cycles. pipelineOrder runs
/// such a pool frame-pipelined beside a conv planned whole, hiding its
/// cycles; beside a conv in parts it runs after it. The pool's estimate is
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
        G.Layers[size_t(C)].Kind != ir::LayerKind::Conv || Frames[Q] < 2 ||
        Frames[size_t(C)] != Frames[Q])
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

/// Run-time weights differ per frame, so a batch-N program runs such a
/// layer (planned for one frame: batchGraph) as N copies of its parts, copy
/// F over frame F (LayerPlan::FrameShift). The copies are parts of one
/// layer: LayerDone follows the last, and each loads its own weights.
void snow::compiler::splitDynamicByFrame(std::vector<LayerPlan> &Plans, unsigned N) {
  std::vector<LayerPlan> Out;
  for (size_t I = 0; I < Plans.size();) {
    size_t End = I + 1; // The layer's parts: [I, End).
    while (End < Plans.size() && Plans[End].Index == Plans[I].Index)
      ++End;
    for (unsigned F = 0; F < (Plans[I].Dynamic ? N : 1); ++F)
      for (size_t K = I; K < End; ++K) {
        Out.push_back(Plans[K]);
        LayerPlan &Q = Out.back();
        Q.FrameShift = F;
        Q.PerFrame = Plans[I].Dynamic;
        Q.FirstPart = Plans[K].FirstPart && F == 0;
        Q.LastPart = Plans[K].LastPart && (!Plans[I].Dynamic || F + 1 == N);
      }
    I = End;
  }
  Plans = std::move(Out);
}

/// The graph a batch-N program is planned from (docs/batch.md), and the
/// frames each layer's plan runs per frame: layers whose frames stack become
/// one layer over N x H rows (stride H: the fc weights are loaded once per
/// tile of frames); the others keep one frame's shapes and run N frames.
///
/// An fc layer over an H x W input whose tensor is dense (not a channel
/// slice of a concat) is also flattened into a 1x1 conv over H*W*C channels:
/// the frame's HWC pixels are one run of memory either way, and a one-pixel
/// kernel takes chunks of up to a weights bank of channels instead of
/// 1 / (H*W) of that, so each step loads one run per frame instead of a DMA
/// per pixel row (AlexNet's fc6: 19 chunks of 14 channels, 576 map DMAs a
/// step). Its weights are reordered to match (input channel (y*W + x)*C + c).
ir::Graph snow::compiler::batchGraph(const ir::Graph &G, unsigned N,
                                     std::vector<unsigned> &Frames) {
  ir::Graph B = G;
  Frames.assign(G.Layers.size(), N);
  const std::vector<bool> SlicedOut = slicedOutputs(G);
  for (size_t I = 0; I < B.Layers.size(); ++I) {
    ir::Layer &L = B.Layers[I];
    std::vector<float>().swap(L.Weights); // Packing reads QWeights only.
    if (L.DynamicWeights)                 // One frame at a time: splitDynamicByFrame.
      Frames[I] = 1;
    if (N == 1 || !stacksFrames(L))
      continue;
    Frames[I] = 1;
    const bool Flatten = L.Kind == ir::LayerKind::Conv && L.Groups == 1 && !L.HasResidual &&
                         L.In.H * L.In.W > 1 && L.KW == L.In.W && L.PadL == 0 && L.PadR == 0 &&
                         (L.input() < 0 || !SlicedOut[size_t(L.input())]);
    if (Flatten) {
      const unsigned C = L.In.C, KK = L.KH * L.KW, Cout = L.Out.C;
      const std::vector<int16_t> Q = ir::quantizedWeights(L);
      std::vector<int16_t> W(Q.size());
      for (unsigned O = 0; O < Cout; ++O)
        for (unsigned Ci = 0; Ci < C; ++Ci)
          for (unsigned K = 0; K < KK; ++K)
            W[(size_t(O) * KK + K) * C + Ci] = Q[(size_t(O) * C + Ci) * KK + K];
      L.QWeights = std::move(W);
      L.Seeded.reset(); // Reordered: QWeights holds them now.
      L.In = {C * KK, N, 1};
      L.KH = L.KW = L.SH = L.SW = 1;
      L.Out.H = N;
      L.Out.W = 1;
      continue;
    }
    L.SH = L.In.H;
    L.In.H *= N;
    L.Out.H = N;
  }
  return B;
}

/// With CompileOptions::PipelinePools: moves each whole pooling layer of a
/// batch to right after the conv that last produces its input, where
/// Sequence.cpp runs it frame-pipelined beside that conv. When the pool reads
/// a concat, the biggest of the concat's producing convs (an inception
/// block's 3x3 rather than its 5x5) is moved to be the last one first, so the
/// pool's traffic hides under the most traces. Legal: the pool's inputs are
/// complete where it goes and the layers it jumps over ran before it, so none
/// reads it; the moved conv jumps only over layers that do not read it.
void snow::compiler::pipelineOrder(const ir::Graph &G, std::vector<LayerPlan> &Plans) {
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
    // A pool of one round, or beside a conv of one, would run after the conv
    // anyway (Sequence.cpp: pipeline), and the move would only cost.
    if (Plans[Q].IsConv || Plans[Q].Elementwise || !Whole(Plans[Q]) || Plans[Q].Frames < 2 ||
        Plans[Q].Rounds.size() < 2)
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
    if (Big != Last) {
      bool Free = true;
      for (int K = Big + 1; K <= Last && Free; ++K)
        Free = !Reads(Plans[size_t(K)], Plans[size_t(Big)].Index);
      if (Free)
        std::rotate(Plans.begin() + Big, Plans.begin() + Big + 1, Plans.begin() + Last + 1);
      else if (!Plans[size_t(Last)].IsConv || !Whole(Plans[size_t(Last)]))
        continue;
    }
    std::rotate(Plans.begin() + Last + 1, Plans.begin() + long(Q), Plans.begin() + long(Q) + 1);
  }
}
