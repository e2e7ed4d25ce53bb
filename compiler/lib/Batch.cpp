//===- Batch.cpp - The batch transforms of a batch-N program ----------------===//
//
// What a batch changes before and after planning (docs/batch.md): the graph
// planned for N frames, and a run-time-weights layer copied once per frame.
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
