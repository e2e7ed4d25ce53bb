//===- TopWeights.cpp - A layer's first weights above the layer before's --===//
//
// A layer's first weights go into the bank that the layer before frees with
// its second-to-last step: loaded in its last step's prefetch, they hide
// under that step only (emitProgram). Where that step is short and the first
// weights many, the compute unit waits: MobileNet v2's conv_last, a group's
// weights for each CU in its first round (164 KB, 12.2 k channel cycles on
// zc706), behind the last 3.1 k-cycle step of the projection before it.
// But a layer whose steps each load a block of their own uses only the
// bottom of each bank (that projection: 65 words of a vMAC's 512): the
// next layer's first blocks fit above them, and may load there over all the
// steps of the layer before that use the bank, where its own loads leave
// the channel idle, nothing overwritten and nothing waited for.
//
// The semaphores keep their order. The parts follow the first load into the
// bank in the layer before (the WFree that load waited for was signalled
// after every older step using the bank), the last part signals WFull after
// that layer's last load into the bank (the compute unit's WFull waits meet
// the signals in program order), and where the first step's load would have
// waited for WFree the load unit takes it without a load, so that the next
// load into the bank waits for the first step's release as before.
// EmitProgram.cpp emits the parts (Step::TopFrom, TopLast).
//
//===----------------------------------------------------------------------===//

#include "Cost.h"
#include "Lower.h"
#include "snow/isa/Timing.h"

using namespace snow;
using namespace snow::compiler;

/// A step whose weights are its own blocks, loaded into the bottom of its
/// bank (no pinned pair, co-located reader or riders, run-time weights or
/// weights loaded once).
static bool ownBlocks(const Step &S) {
  const LayerPlan &P = *S.P;
  return P.IsConv && !P.Dynamic && !P.WeightsOnce && !P.PinWeights && !P.CoWeights &&
         !S.PinReader && !S.PinProducer && !S.Rides && S.Riders.empty() && !S.CoReader &&
         S.TailBank < 0 && S.WOff == 0 && S.FreeW2 < 0;
}

/// The most words a step of P takes in its bank: a chunk's kernel and the
/// tail (bias word, activation table).
static uint32_t stepWords(const LayerPlan &P) {
  uint32_t Words = 0;
  for (unsigned C = 0; C < P.NChunks; ++C)
    Words = std::max(Words, P.kernelWords(C) + P.TailWords);
  return Words;
}

void snow::compiler::placeTopWeights(std::vector<Step> &Steps, const isa::HwConfig &Hw,
                                     uint32_t WCap, const CompileOptions &Opts) {
  if (!Opts.TopWeights || !Opts.DoubleBuffer)
    return;
  for (size_t N = 2; N < Steps.size(); ++N) {
    Step &S = Steps[N];
    const LayerPlan &Q = *Steps[N - 1].P;
    if (!S.FirstOfLayer || !S.NewW || !ownBlocks(S) || S.P == &Q)
      continue;
    // The layer before, back to its first load into the bank: every step
    // loads its own blocks.
    size_t From = N, Last = N;
    bool Ok = true;
    for (size_t K = N; Ok && K-- > 0 && Steps[K].P == &Q;) {
      const Step &T = Steps[K];
      Ok = ownBlocks(T) && T.NewW;
      if (T.WBuf == S.WBuf) {
        From = K;
        Last = Last == N ? K : Last;
      }
    }
    // Above the blocks of the layer before, in hazard banks of their own
    // (isa/presets/zc706.yaml, weights_banks): the load unit writes them
    // while the compute unit reads those blocks.
    const uint32_t Words = stepWords(*S.P), BankWords = Hw.weightsBankWords();
    if (!Ok || From == N || Words > WCap ||
        (WCap - Words) / BankWords <= (stepWords(Q) - 1) / BankWords)
      continue;
    // Only where the last step of the layer before leaves them exposed,
    // and that layer leaves the channel idle as long: EfficientNet-B0's
    // squeeze-and-excitation convs, which stream their weights, ran 0.4 k
    // cycles longer with the expansions' first weights among the squeezes'.
    const uint64_t Window = Q.EstCycles / std::max<size_t>(stepCount(Q), 1);
    const uint64_t Exposed = firstWeightsExposed(*S.P, Hw, Window);
    const uint64_t Busy = timing::dmaChannelCycles(Hw, Q.EstDramBytes);
    if (!Exposed || Q.EstCycles < Busy + Exposed)
      continue;
    S.TopW = true;
    S.TopFrom = From;
    S.TopLast = Last;
    // It and its plan's steps after it that trace the same blocks (load
    // none) read them there.
    S.WOff = WCap - Words;
    for (size_t K = N + 1; K < Steps.size(); ++K) {
      if (Steps[K].P != S.P)
        continue;
      if (Steps[K].NewW)
        break;
      Steps[K].WOff = S.WOff;
    }
  }
}
