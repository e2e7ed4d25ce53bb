//===- Prefetch.cpp - Plans that see the layer before's prefetch window ----===//
//
// A conv's first weights load while the layer before computes, but only
// under that layer's last step: the weights banks are double-buffered, and
// the bank the next layer's first weights go to is the one the step before
// the last used. The planner plans layers one by one, before their order is
// known, and counts the first weights as prefetched; a plan whose first
// round gives each CU an output group of its own needs a group's weights
// per CU first (ShuffleNet v2's conv5: 238 KB, 17.7 k channel cycles,
// behind a 3.6 k-cycle step). Once the order is known, such a conv is
// planned again with the window the plan before leaves: its estimated
// cycles over its steps. Only windows that the chosen plan overruns matter:
// a window only adds to costs, so a plan that fits it stays the best.
//
//===----------------------------------------------------------------------===//

#include "Prefetch.h"
#include "Batch.h"
#include "Cost.h"

using namespace snow;
using namespace snow::compiler;

/// The estimated cycles of a plan's last step: its estimate over its steps.
static uint64_t lastStepCycles(const LayerPlan &P) {
  const uint64_t Steps = uint64_t(std::max<size_t>(P.Rounds.size(), 1)) * std::max(P.NChunks, 1u);
  return P.EstCycles / Steps;
}

/// Whether a plan's steps take a weights bank (a pool's or an elementwise
/// layer's do not, so the next conv's first weights load under them too).
static bool usesWeights(const LayerPlan &P) { return P.IsConv && !P.Elementwise; }

/// The window the plans before Plans[K] leave for its first weights, Last
/// standing for Plans[K - 1]: the last step of the latest plan that takes a
/// weights bank, and all the plans after it. (Their cycles, not the
/// channel's idle time in them: counting only that, by the estimates'
/// bytes, replans more layers than the simulator finds waiting; ResNet-50
/// +11 k cycles. Nor all the rounds of a kernel-stationary plan that keep
/// its last weight set, over which SpreadWeights spreads the next layer's
/// first weights: that keeps plans the simulator finds slower; SqueezeNet
/// 1.1 +7.7 k, ShuffleNet v2 +3.5 k.)
static uint64_t windowBefore(const std::vector<LayerPlan> &Plans, size_t K,
                             const LayerPlan *Last = nullptr) {
  uint64_t W = 0;
  for (bool First = true; K-- > 0; First = false) {
    const LayerPlan &P = First && Last ? *Last : Plans[K];
    if (usesWeights(P))
      return W + lastStepCycles(P);
    W += P.EstCycles;
  }
  return W;
}

void snow::compiler::planPrefetchWindows(const ir::Graph &G, const isa::HwConfig &Hw,
                                         const BufferMap &B, const CompileOptions &Opts,
                                         const std::vector<unsigned> &Frames,
                                         const std::vector<uint64_t> &Penalty,
                                         std::vector<LayerPlan> &Plans) {
  if (!Opts.PrefetchWindows || !Opts.DoubleBuffer)
    return;
  const std::vector<bool> HasBeside = poolsBeside(G, Plans);
  const std::vector<bool> SlicedOut = slicedOutputs(G);
  for (size_t K = 0; K < Plans.size();) {
    const LayerPlan &P = Plans[K];
    const unsigned I = P.Index;
    size_t End = layerEnd(Plans, K);
    // A pool beside a conv was planned for that conv's steps; a layer with
    // run-time weights loads them per frame (splitDynamicByFrame).
    const bool Replan = P.IsConv && !P.Depthwise && !P.Elementwise && !P.Dynamic &&
                        P.BesideOf < 0 && !HasBeside[I] && P.FusedWith < 0;
    const uint64_t Window = windowBefore(Plans, K);
    const uint64_t Exposed = Replan ? firstWeightsExposed(P, Hw, Window) : 0;
    if (Exposed) {
      auto Again =
          planLayer(G.Layers[I], I, SlicedOut[I], Hw, B, Opts, Frames[I], Penalty[I], Window);
      // The next plan that takes weights loads its first under this
      // layer's last step: a plan of shorter steps narrows its window.
      size_t Next = End;
      while (Next < Plans.size() && !usesWeights(Plans[Next]))
        ++Next;
      auto NextExposed = [&](const LayerPlan &Last) {
        return Next < Plans.size() && Plans[Next].Index != I
                   ? firstWeightsExposed(Plans[Next], Hw, windowBefore(Plans, Next, &Last))
                   : 0;
      };
      // Only a plan whose first weights, and the next layer's, wait less is
      // taken: one that waits as long won on other terms by less than the
      // estimate's error (an fc layer's rounds of one pixel: full depth or
      // not, the same weights).
      if (!Again) // It planned without the window, so it plans with it.
        llvm::consumeError(Again.takeError());
      else if (firstWeightsExposed(Again->front(), Hw, Window) + NextExposed(Again->back()) <
               Exposed + NextExposed(Plans[End - 1])) {
        Plans.erase(Plans.begin() + ptrdiff_t(K), Plans.begin() + ptrdiff_t(End));
        Plans.insert(Plans.begin() + ptrdiff_t(K), Again->begin(), Again->end());
        End = K + Again->size();
      }
    }
    K = End;
  }
}
