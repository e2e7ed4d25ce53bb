//===- Sequence.cpp - Steps in program order ------------------------------===//
//
// makeSteps turns the layer plans into the program's step list (which steps
// load what, which banks they use); emitProgram emits the steps software
// pipelined: the next step's loads before (or, balanced, inside) this step's
// compute, the layer's LayerDone after its last stores. See Lower.h.
//
//===----------------------------------------------------------------------===//

#include "Lowerer.h"

using namespace snow;
using namespace snow::compiler;

std::vector<Step> snow::compiler::makeSteps(const std::vector<LayerPlan> &Plans,
                                            const CompileOptions &Opts) {
  std::vector<Step> Steps;
  unsigned InCount = 0, WCount = 0, OutCount = 0;
  for (const LayerPlan &P : Plans) {
    size_t First = Steps.size();
    auto Add = [&](unsigned RoundIdx, unsigned Chunk) {
      Step S;
      S.P = &P;
      S.RoundIdx = RoundIdx;
      S.Chunk = Chunk;
      Steps.push_back(S);
    };
    for (unsigned Rd = 0; Rd < P.Rounds.size(); ++Rd) {
      if (P.Depthwise || P.Elementwise) {
        // Output group Og reads exactly input chunk Og (every CU of a round
        // has the same group).
        Add(Rd, unsigned(P.Rounds[Rd].Cus[0].Og));
        continue;
      }
      // Every CU of a GroupChunks round has the same output group (Tiles
      // packing), whose chunks are the round's steps.
      auto [C0, C1] = P.ogChunks(P.Rounds[Rd].firstOg());
      for (unsigned C = C0; C < C1; ++C)
        Add(Rd, C);
    }
    for (size_t K = First; K < Steps.size(); ++K) {
      Step &S = Steps[K];
      const Step *Prev = K > First ? &Steps[K - 1] : nullptr;
      S.FirstOfLayer = !Prev && P.FirstPart;
      S.LastOfPlan = K + 1 == Steps.size();
      S.LastOfLayer = S.LastOfPlan && P.LastPart;
      auto Same = [&](auto Field) {
        const Round &A = Prev->round(), &Bd = S.round();
        for (size_t Cu = 0; Cu < A.Cus.size(); ++Cu)
          if (A.Cus[Cu].active() != Bd.Cus[Cu].active() ||
              (A.Cus[Cu].active() && A.Cus[Cu].*Field != Bd.Cus[Cu].*Field))
            return false;
        return true;
      };
      S.NewMap = !Prev || !Same(&Work::Tile) || (Prev->Chunk != S.Chunk && !P.FullDepth);
      S.NewW = P.IsConv && (!Prev || !Same(&Work::Og) || Prev->Chunk != S.Chunk);
      S.Writes = !P.IsConv || P.Depthwise || S.Chunk + 1 == P.ogChunks(S.round().firstOg()).second;
      if (Prev) {
        Steps[K - 1].LastMapUse = S.NewMap;
        Steps[K - 1].LastWUse = S.NewW;
      }
      if (S.LastOfPlan)
        S.LastMapUse = S.LastWUse = true;
      unsigned Banks = Opts.DoubleBuffer ? 2 : 1;
      InCount += S.NewMap;
      WCount += S.NewW;
      S.InBuf = (InCount - 1) % Banks;
      S.WBuf = (WCount + 1) % Banks; // WCount may still be 0 for pooling layers.
      S.OutBuf = OutCount % Banks;
      OutCount += S.Writes;
    }
  }
  return Steps;
}

void snow::compiler::emitProgram(Emitter &E, const std::vector<Step> &Steps,
                                 const isa::HwConfig &Hw, const BufferMap &B,
                                 const CompileOptions &Opts) {
  Lowerer Low(E, Hw, B, Opts.DmaLoops);
  E.beginRegion("prologue");
  // Both banks of every double-buffered resource start free.
  for (unsigned Bank = 0; Bank < 2; ++Bank) {
    E.signal(Unit::Compute, InFree + Bank);
    E.signal(Unit::Compute, WFree + Bank);
    E.signal(Unit::Store, OutFree + Bank);
  }
  auto Loads = [&](const Step &S, bool Weights, bool Maps) {
    if (Weights && S.NewW)
      Low.loadWeights(S);
    if (Maps && S.NewMap)
      Low.loadMaps(S);
    if (Maps && S.Writes && S.P->L->HasResidual)
      Low.loadResidual(S);
  };
  auto Body = [&](const Step &S, const Emitter::Block *Mid) {
    if (S.FirstOfLayer) {
      E.beginRegion("layer '" + S.P->L->Name + "'");
      E.mark(S.P->Index);
    }
    Low.compute(S, Mid);
    if (S.Writes)
      Low.store(S);
  };
  if (!Opts.DoubleBuffer) {
    for (const Step &S : Steps) {
      if (S.FirstOfLayer) {
        E.beginRegion("layer '" + S.P->L->Name + "'");
        E.mark(S.P->Index);
      }
      Loads(S, true, true);
      Low.compute(S);
      if (S.Writes)
        Low.store(S);
      if (S.LastOfLayer)
        E.signal(Unit::Store, LayerDone);
    }
    E.halt();
    return;
  }
  if (!Steps.empty())
    Loads(Steps[0], true, true);
  for (size_t K = 0; K < Steps.size(); ++K) {
    const Step &S = Steps[K];
    const Step *Next = K + 1 < Steps.size() ? &Steps[K + 1] : nullptr;
    // Prefetch: the next step's weights always; its maps within the layer,
    // or for a new layer that does not read this one's output (its maps
    // only wait for older layers, whose LayerDone was signalled already).
    const bool EarlyMaps = Next && (Next->P == S.P || Next->P->NeedsDone < S.P->Ordinal);
    // Memory-access balancing: the load unit starts the next step's loads
    // with a wait for banks that this step's predecessor frees, so they queue
    // up behind it. If they outnumber half a queue, the control core would
    // stall on the full load queue before it had issued this step's traces,
    // and the compute unit would idle; the loads beyond half a queue go
    // half way through this step's trace loop instead.
    Emitter::Block Tail;
    if (Next) {
      const uint32_t From = E.pc();
      Low.resetCuts();
      Loads(*Next, true, EarlyMaps);
      if (Opts.BalanceLoads && Low.ops() > Hw.QueueDepth / 2) {
        // Cut at the last safe place with at most half a queue of
        // operations before it.
        uint32_t Cut = 0;
        for (auto [Pc, Ops] : Low.cuts())
          if (Ops <= Hw.QueueDepth / 2 && Pc > From)
            Cut = Pc;
        if (Cut) {
          Emitter::Block All = E.takeFrom(From);
          Tail = All.splitAt(Cut - From);
          E.append(All);
        }
      }
    }
    Body(S, Tail.size() ? &Tail : nullptr);
    if (S.LastOfLayer) {
      E.signal(Unit::Store, LayerDone);
      if (Next && !EarlyMaps)
        Loads(*Next, false, true);
    }
  }
  E.halt();
}
