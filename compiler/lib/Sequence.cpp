//===- Sequence.cpp - Steps in program order ------------------------------===//
//
// makeSteps turns the layer plans into the program's step list (which steps
// load what, which banks they use); RowSignals.cpp decides which of them
// wait for the rows and channels the layer before stores; EmitProgram.cpp
// emits them. See Lower.h.
//
//===----------------------------------------------------------------------===//

#include "Cost.h"
#include "FeedNext.h"
#include "Lowerer.h"
#include "RowSignals.h"
#include "WeightPack.h"
#include <algorithm>
#include <cassert>
#include <optional>
#include <tuple>
#include <unordered_map>

using namespace snow;
using namespace snow::compiler;

std::vector<Step> snow::compiler::planSteps(const LayerPlan &P) {
  std::vector<Step> Steps;
  auto Add = [&](unsigned RoundIdx, unsigned Chunk) {
    Step S;
    S.P = &P;
    S.RoundIdx = RoundIdx;
    S.Chunk = Chunk;
    S.InOffset = P.ShareOffset;
    // A fused depthwise step writes back on chip only (LayerPlan::ToMid),
    // a fused dense one stores too.
    S.Writes = !P.areaOnly() && S.completesGroup();
    Steps.push_back(S);
  };
  for (unsigned Rd = 0; Rd < P.Rounds.size(); ++Rd) {
    if (P.Depthwise || P.Elementwise || P.framedPool()) {
      // Output group Og reads exactly input chunk Og (every CU of a round
      // has the same group, or each its own of one size: a depthwise conv's
      // rounds packed by channels, each CU loading its chunk, or reading a
      // window pair's area, LayerPlan::ReadsWindow, framedPool).
      Add(Rd, unsigned(P.Rounds[Rd].Cus[0].Og));
      continue;
    }
    // Every CU of a GroupChunks round has the same output group (Tiles
    // packing), whose chunks are the round's steps.
    auto [C0, C1] = P.ogChunks(P.Rounds[Rd].firstOg());
    for (unsigned C = C0; C < C1; ++C)
      Add(Rd, C);
  }
  return Steps;
}

bool snow::compiler::newMaps(const Step &A, const Step &B) {
  // A depthwise CU loads its output group's chunk: the round's may differ.
  return (A.Chunk != B.Chunk && !A.P->FullDepth) || !sameWork(A.round(), B.round(), &Work::Tile) ||
         (A.P->Depthwise && !A.P->FullDepth && !sameWork(A.round(), B.round(), &Work::Og));
}

/// Whether pooling plan Q, after conv plan C in program order (right after
/// it, or after the pool beside it), runs pipelined beside it
/// (CompileOptions::PipelinePools): placed there to (LayerPlan::BesideOf),
/// Q a whole layer over C's frames, C whole or the last part of its layer,
/// and C the last layer Q waits for (Q reads C's output, directly or
/// through a concat) or one after it (Q reads older layers only).
static bool pipelines(const LayerPlan &C, const LayerPlan &Q) {
  return Q.BesideOf == int(C.Index) && C.IsConv && C.LastPart && !Q.IsConv && !Q.Elementwise &&
         Q.FirstPart && Q.LastPart && Q.Frames == C.Frames && Q.NeedsDone <= C.Ordinal;
}

/// A fused pair's steps (LayerPlan::ToMid, FromMid): for each group of
/// CUs' tiles, the producer's steps (one per channel chunk), last chunk
/// first, then each 1x1 conv's steps (its output groups' chunks). A chunk's
/// writeback moves G channels a pixel (a pool's, whole lane groups): a
/// last chunk of fewer runs past its pixel into the next one's first
/// channels, which the chunks after it (in this order) then write; past the
/// tile's last pixel, into the area's slack (Fuse.cpp). G: channelGroup's.
static std::vector<Step> fusedSteps(const LayerPlan &D, const std::vector<const LayerPlan *> &Ps,
                                    unsigned G) {
  const std::vector<Step> DS = planSteps(D);
  // A window producer (LayerPlan::Window) and its reader: a step each a
  // round, the reader's right after the producer's (its CUs' area holds
  // one round's windows).
  // A block triple's 1x1 conv (LayerPlan::MidOut) takes the chunk each
  // round's depthwise step leaves in the area right after it; a split
  // triple's (LayerPlan::MidSlot) takes them all after the last round.
  if (D.Window.R) {
    std::vector<std::vector<Step>> QS;
    for (const LayerPlan *Q : Ps)
      QS.push_back(planSteps(*Q));
    assert(Ps.size() <= 2 && (Ps.size() == 1 || Ps[1]->readsMidOut()) &&
           "FuseWindows.cpp, FuseBlocks.cpp: a step each a round");
    // (A split triple's expansion may take several steps a round, its
    // chunks: the reader's step follows the round's last.)
    const bool Split = Ps.size() == 2 && Ps[1]->MidSlot;
    std::vector<Step> Out;
    size_t Round = 0;
    for (size_t K = 0; K < DS.size(); ++K) {
      Out.push_back(DS[K]);
      if (!DS[K].completesGroup())
        continue;
      for (size_t I = 0; I < QS.size() - Split; ++I) {
        assert(QS[I].size() == D.Rounds.size() && "a step each a round");
        Out.push_back(QS[I][Round]);
      }
      ++Round;
    }
    if (Split)
      Out.insert(Out.end(), QS[1].begin(), QS[1].end());
    return Out;
  }
  const size_t Groups = D.Rounds.size() / D.NOg;
  assert(Groups * D.NOg == D.Rounds.size() && DS.size() % Groups == 0 &&
         "Fuse.cpp plans the producer in whole groups of tiles");
  std::vector<std::vector<Step>> PS;
  for (const LayerPlan *P : Ps) {
    PS.push_back(planSteps(*P));
    assert(PS.back().size() == Groups * P->NOg * P->NChunks && "Fuse.cpp gives all the same tiles");
  }
  // Where no chunk's writeback runs past its channels (a depthwise
  // producer whose channels are whole output groups), first chunk first:
  // the order in which the conv before it stores them, so that its first
  // chunks may load while that conv still computes (startOnRows).
  const bool FirstFirst = (G && D.Depthwise && D.L->Out.C % G == 0) || D.StoresToo;
  std::vector<Step> Out;
  const size_t PerD = DS.size() / Groups;
  for (size_t Gr = 0; Gr < Groups; ++Gr) {
    if (FirstFirst)
      Out.insert(Out.end(), DS.begin() + Gr * PerD, DS.begin() + (Gr + 1) * PerD);
    else
      Out.insert(Out.end(), DS.rend() - (Gr + 1) * PerD, DS.rend() - Gr * PerD);
    for (const std::vector<Step> &S : PS) {
      const size_t PerP = S.size() / Groups;
      Out.insert(Out.end(), S.begin() + Gr * PerP, S.begin() + (Gr + 1) * PerP);
    }
  }
  return Out;
}

/// A concat pair's steps (FuseConcat.cpp): for each group of CUs' tiles,
/// each producer's steps (its output groups' chunks) in plan order, then
/// the 1x1 convs' steps.
static std::vector<Step> concatSteps(const std::vector<const LayerPlan *> &Ds,
                                     const std::vector<const LayerPlan *> &Ps) {
  std::vector<std::vector<Step>> All;
  for (const LayerPlan *D : Ds)
    All.push_back(planSteps(*D));
  for (const LayerPlan *P : Ps)
    All.push_back(planSteps(*P));
  const size_t Groups = Ds.front()->Rounds.size() / Ds.front()->NOg;
  std::vector<Step> Out;
  for (size_t Gr = 0; Gr < Groups; ++Gr)
    for (const std::vector<Step> &S : All) {
      assert(S.size() % Groups == 0 && "FuseConcat.cpp gives all the same tiles");
      const size_t Per = S.size() / Groups;
      Out.insert(Out.end(), S.begin() + long(Gr * Per), S.begin() + long((Gr + 1) * Per));
    }
  return Out;
}

namespace {
/// A pinned pair's banks (LayerPlan::PinWeights): the producer's blocks in
/// Small, the reader's kernels in Big.
struct PinnedPair {
  unsigned Small = 0, Big = 0;
  PinnedWeights W;
  const LayerPlan *D = nullptr;
};
} // namespace

/// Weights banks and offsets of step S of a pinned pair, in program order.
/// Each plan's first step loads its part as any load would, into the bank
/// freed first (WCount: loads so far, each into the other bank): the
/// producer's blocks (and the reader's tails where they do not fit the
/// reader's bank) first, then the reader's kernels, into the bank the
/// steps before the pair used last. The producer's steps read its bank,
/// the reader's theirs; the producer frees its own with its last step (or
/// the reader with its last, where its tails lie there), the reader its
/// own with its last: two loads on, the next goes into the producer's,
/// freed first.
static void pinStep(Step &S, const std::vector<LayerPlan> &Plans, uint32_t WCap, unsigned WCount,
                    std::unordered_map<int, PinnedPair> &Pinned) {
  const LayerPlan &P = *S.P;
  PinnedPair &Pair = Pinned[P.FusedWith];
  const unsigned Bank = (WCount + 1) % 2;
  if (P.ToMid) {
    if (S.NewW) {
      const auto Reader = std::find_if(Plans.begin(), Plans.end(), [&](const LayerPlan &Q) {
        return Q.FromMid && Q.FusedWith == P.FusedWith;
      });
      assert(Reader != Plans.end() && "Fuse.cpp pins a pair with its reader");
      Pair = {Bank, 0, *pinWeights(P, *Reader, WCap), &P};
      S.PinReader = &*Reader;
    }
    S.WBuf = Pair.Small;
    S.WOff = Pair.W.Producer[S.Chunk];
    S.LastWUse &= Pair.W.TailsInBig;
    return;
  }
  if (S.NewW) {
    Pair.Big = Bank;
    S.PinProducer = Pair.D;
  }
  S.WBuf = Pair.Big;
  const unsigned Og = S.round().firstOg();
  S.WOff = Pair.W.Kernel[Og * P.NChunks + S.Chunk];
  S.TailBank = int(Pair.W.TailsInBig ? Pair.Big : Pair.Small);
  S.TailOff = Pair.W.Tail[Og];
  if (S.LastOfPlan && !Pair.W.TailsInBig)
    S.FreeW2 = int(Pair.Small);
}

/// Step K, the first of a 1x1 reader of a pair beside a conv
/// (FuseBeside.cpp): every block of its plan rides with the conv's first
/// load (FirstW: each conv's first step that loads weights, by layer), after
/// the conv's block and the blocks that rode before (RideEnd: the next free
/// word of that bank), so the conv keeps its weights across the pair's
/// steps and neither reloads.
static void rideWithHost(std::vector<Step> &Steps, size_t K,
                         const std::unordered_map<unsigned, size_t> &FirstW,
                         std::unordered_map<size_t, uint32_t> &RideEnd, const isa::HwConfig &Hw) {
  const LayerPlan &P = *Steps[K].P;
  const LayerPlan *D = nullptr;
  for (size_t J = K; J-- > 0 && !D;)
    if (Steps[J].P->ToMid && Steps[J].P->FusedWith == P.FusedWith)
      D = Steps[J].P;
  const auto Host = D ? FirstW.find(unsigned(D->BesideOf)) : FirstW.end();
  if (Host == FirstW.end())
    return;
  Step &H = Steps[Host->second];
  uint32_t &End =
      RideEnd.try_emplace(Host->second, H.P->kernelWords(0) + H.P->TailWords).first->second;
  std::vector<std::pair<unsigned, unsigned>> Blocks; // (og, chunk) of P, by offset
  std::vector<uint32_t> At;
  for (size_t J = K; J < Steps.size(); ++J) {
    Step &T = Steps[J];
    if (T.P != &P)
      continue;
    const std::pair<unsigned, unsigned> Block = {T.round().firstOg(), T.Chunk};
    auto It = std::find(Blocks.begin(), Blocks.end(), Block);
    if (It == Blocks.end()) {
      Blocks.push_back(Block);
      At.push_back(End);
      End += P.kernelWords(T.Chunk) + P.TailWords;
      H.Riders.push_back(&T);
      It = Blocks.end() - 1;
    }
    T.Rides = true;
    T.RideOn = long(Host->second);
    T.WOff = At[size_t(It - Blocks.begin())];
  }
  assert(End <= Hw.weightsWords() / 2 && "FuseBeside.cpp fits them in the bank"); // WCap
  (void)Hw;
}

/// A conv whose bank carries a beside pair's blocks (RideEnd, rideWithHost)
/// frees it with the last of the riders' steps, after its own last.
static void freeRiderBanks(std::vector<Step> &Steps,
                           const std::unordered_map<size_t, uint32_t> &RideEnd) {
  for (const auto &[At, End] : RideEnd) {
    size_t LastRider = At;
    for (size_t K = At; K < Steps.size(); ++K) {
      Step &S = Steps[K];
      assert((S.P != Steps[At].P || K == At || !S.NewW) &&
             "FuseBeside.cpp: the conv keeps the weights its riders ride with");
      if (S.P == Steps[At].P && S.LastOfPlan)
        S.LastWUse = false;
      if (S.RideOn == long(At))
        S.LastWUse = false, LastRider = K;
    }
    Steps[LastRider].LastWUse = true;
  }
}

std::vector<Step> snow::compiler::makeSteps(const std::vector<LayerPlan> &Plans,
                                            const isa::HwConfig &Hw, const CompileOptions &Opts) {
  const unsigned G = channelGroup(Hw, Opts);
  // Program order: plan after plan, but a pooling layer pipelined beside
  // the conv it reads, where it can be, and a fused pair's steps
  // interleaved.
  std::vector<Step> Steps;
  // The steps appended last, from Steps[Last] on: all of LastPlan's and
  // nothing else but, for a fused pair whose 1x1 conv it is, its producer's.
  // The plan after it may start on the rows LastPlan stores.
  const LayerPlan *LastPlan = nullptr;
  size_t Last = 0;
  // The last plans appended, if a conv (Host) with the pools beside it
  // (Plans[HostAt + 1] on): its steps are Steps[Last] on. The plan after it
  // may start on the rows a pool stored before the conv's last step.
  const LayerPlan *Host = nullptr;
  size_t HostAt = 0, NHosted = 0;
  auto TryStartAfterHost = [&](std::vector<Step> &QSteps) {
    if (!Opts.StartAfterHost || !Opts.DoubleBuffer || !Host || QSteps.empty())
      return;
    const llvm::ArrayRef<Step> Group = llvm::ArrayRef(Steps).drop_front(Last);
    for (size_t J = 1; J <= NHosted; ++J)
      if (startAfterHost(Group, *Host, Plans[HostAt + J], QSteps, G))
        return;
  };
  auto TryStartOnRows = [&](const LayerPlan &Q, std::vector<Step> &QSteps) {
    if (!Opts.StartOnRows || !Opts.DoubleBuffer || !LastPlan || QSteps.empty() ||
        !startsOnRowsOf(*LastPlan, Q))
      return;
    std::vector<Step> C(Steps.begin() + long(Last), Steps.end());
    if (!startOnRows(C, QSteps, G))
      return;
    std::copy(C.begin(), C.end(), Steps.begin() + long(Last));
    for (Step &S : QSteps)
      for (size_t &At : S.ChunkAt)
        At += Last;
  };
  // Convs that write the next one's maps on chip (FeedNext.cpp): the
  // writer, its steps' first, the reader's first.
  std::vector<std::tuple<const LayerPlan *, size_t, size_t>> Feeds;
  for (size_t I = 0; I < Plans.size(); ++I) {
    if (Plans[I].ToMid) {
      // A concat's producers, one after another (FuseConcat.cpp).
      std::vector<const LayerPlan *> Ds = {&Plans[I]};
      while (I + 1 < Plans.size() && Plans[I].sameConcat(Plans[I + 1]))
        Ds.push_back(&Plans[++I]);
      std::vector<const LayerPlan *> Ps;
      while (I + 1 < Plans.size() && Plans[I + 1].FromMid)
        Ps.push_back(&Plans[++I]);
      assert(!Ps.empty() && "Fuse.cpp keeps pairs together");
      std::vector<Step> All = Ds.size() > 1 ? concatSteps(Ds, Ps) : fusedSteps(*Ds[0], Ps, G);
      if (Ds.size() == 1)
        TryStartOnRows(*Ds[0], All);
      // Its CUs' tiles of the conv before written on chip into its windows
      // (FeedNext.cpp).
      const bool OnRows = llvm::any_of(All, [](const Step &S) { return S.Pipelined; });
      if (Opts.FeedNext && Opts.DoubleBuffer && Ds.size() == 1 && LastPlan &&
          All.front().P == Ds[0] && feedsWindow(*LastPlan, *Ds[0], Hw, OnRows, All.front()))
        Feeds.push_back({LastPlan, Last, Steps.size()});
      // (A block triple's projection stores, as a pair's 1x1 conv does.)
      LastPlan =
          Ps.size() == 1 || (Ps.size() == 2 && Ps.back()->readsMidOut()) ? Ps.back() : nullptr;
      Host = nullptr;
      Last = Steps.size();
      Steps.insert(Steps.end(), All.begin(), All.end());
      continue;
    }
    std::vector<Step> Own = planSteps(Plans[I]);
    // The pools beside it: one or two, right after it (PipelinePools.cpp).
    size_t NBeside = 0;
    if (Opts.PipelinePools && Opts.DoubleBuffer && !Own.empty())
      for (unsigned Readers = 0; I + NBeside + 1 < Plans.size(); ++NBeside) {
        const LayerPlan &Q = Plans[I + NBeside + 1];
        // At most one reads it: RowsDone is one semaphore.
        Readers += readsHost(Plans[I], Q);
        if (!pipelines(Plans[I], Q) || Readers > 1)
          break;
      }
    const bool Beside = NBeside > 0;
    // Not a conv with a pool beside it: the pool's steps, among its own,
    // wait for its rows on the same semaphore, and could take a signal
    // meant for it (a token is a token).
    // Its maps written on chip by the conv before it (FeedNext.cpp): no
    // rows of that conv to wait for.
    if (Opts.FeedNext && Opts.DoubleBuffer && !Beside && LastPlan && !Own.empty() &&
        feedsOnChip(*LastPlan, Plans[I], Hw)) {
      markFed(Own, *LastPlan, Hw);
      Feeds.push_back({LastPlan, Last, Steps.size()});
    } else {
      if (!Beside)
        TryStartOnRows(Plans[I], Own);
      TryStartAfterHost(Own);
    }
    LastPlan = nullptr;
    Host = nullptr;
    if (Beside) {
      // A pool fused with its 1x1 readers beside the conv (FuseBeside.cpp)
      // brings their steps, a group of tiles' pool step and theirs
      // together (fusedSteps).
      std::vector<std::vector<Step>> Qs;
      size_t Hosted = 0;
      for (size_t J = 1; J <= NBeside; ++J) {
        const LayerPlan &Q = Plans[I + Hosted + 1];
        ++Hosted;
        if (!Q.ToMid) {
          Qs.push_back(planSteps(Q));
          continue;
        }
        std::vector<const LayerPlan *> Readers;
        while (I + Hosted + 1 < Plans.size() && Plans[I + Hosted + 1].FromMid &&
               Plans[I + Hosted + 1].FusedWith == Q.FusedWith)
          Readers.push_back(&Plans[I + ++Hosted]);
        assert(!Readers.empty() && "Fuse.cpp keeps a pair beside its conv together");
        Qs.push_back(fusedSteps(Q, Readers, G));
      }
      std::vector<Step> All = pipeline(std::move(Own), std::move(Qs), G, Opts.PoolsBetweenChunks);
      Last = Steps.size();
      Steps.insert(Steps.end(), All.begin(), All.end());
      Host = &Plans[I], HostAt = I, NHosted = Hosted;
      I += Hosted;
      continue;
    }
    LastPlan = &Plans[I];
    Last = Steps.size();
    Steps.insert(Steps.end(), Own.begin(), Own.end());
  }
  // Flags and bank parities, in program order. A step's maps can stay from
  // the step of its own plan before it only if that step is the one just
  // before (another layer's step in between loads its maps into the other
  // bank); weights only conv steps load, so they stay across a pool's steps.
  std::unordered_map<const LayerPlan *, size_t> Seen, Count;
  std::unordered_map<const LayerPlan *, Step *> PrevOf;
  std::unordered_map<const LayerPlan *, unsigned> WCountAfter; // after the plan's last step
  for (const Step &S : Steps)
    ++Count[S.P];
  unsigned InCount = 0, WCount = 0, OutCount = 0;
  // Each conv's first step that loads weights, by layer; the next free
  // word of its bank where blocks ride with it (a pair beside it).
  std::unordered_map<unsigned, size_t> FirstW;
  std::unordered_map<size_t, uint32_t> RideEnd;
  std::unordered_map<int, PinnedPair> Pinned; // by LayerPlan::FusedWith
  bool Taken = false;                         // A full-depth producer's area still to count.
  for (size_t K = 0; K < Steps.size(); ++K) {
    Step &S = Steps[K];
    const LayerPlan &P = *S.P;
    Step *PrevSame = PrevOf[&P];
    Step *Before = K > 0 ? &Steps[K - 1] : nullptr;
    S.FirstOfLayer = !PrevSame && P.FirstPart;
    S.LastOfPlan = ++Seen[&P] == Count[&P];
    S.LastOfLayer = S.LastOfPlan && P.LastPart;
    S.Remark = !S.FirstOfLayer && Before && Before->P->Index != P.Index;
    // A window reader's steps, between its producer's, load no maps: the
    // producer's maps stay across them (a tile's rounds of output groups).
    if (Before && Before->P->ReadsWindow && !P.FromMid && K > 1)
      Before = &Steps[K - 2];
    else if (Before && Before->P->readsMidOut() && !P.FromMid && K > 2) // a block triple's
      Before = &Steps[K - 3];
    // A fused 1x1 step reads the depthwise output on chip: it loads no maps.
    S.NewMap = !P.FromMid && (!PrevSame || PrevSame != Before || newMaps(*PrevSame, S));
    // Weights stay across other plans' steps that load none (a pool's), not
    // across any that loads some (a fused pair's other layers). A pinned
    // pair's stay for the pair.
    // (Loaded with the first step: LayerPlan::WeightsOnce.)
    S.NewW = P.IsConv && (!PrevSame || (!P.PinWeights && !P.WeightsOnce &&
                                        (WCountAfter[&P] != WCount ||
                                         !sameWork(PrevSame->round(), S.round(), &Work::Og) ||
                                         PrevSame->Chunk != S.Chunk)));
    // A window pair's producer loads its reader's weights for the round
    // too (LayerPlan::CoWeights), into its bank; the reader loads none.
    const Step *CoWith = K > 0 && Steps[K - 1].CoReader == &P ? &Steps[K - 1] : nullptr;
    if (CoWith)
      S.NewW = false;
    // A plain depthwise conv's blocks ride with the load of the step just
    // before its first (another plan's last, which loaded its own), where
    // they all fit in that bank after its block: the plan after it then
    // loads into the other bank while that step and the depthwise steps
    // run, rather than after the step frees its bank.
    if (!PrevSame && S.NewW && K > 0 && Opts.WeightRiders && Opts.DoubleBuffer && P.Depthwise &&
        P.GroupK == 1 && !P.Dynamic && !P.PinWeights && !P.WeightsOnce && !P.CoWeights &&
        !P.ReadsWindow && !P.ToMid && !P.FromMid && P.FusedWith < 0 && !P.Elementwise) {
      Step &H = Steps[K - 1];
      const LayerPlan &L = *H.P;
      const size_t N = Count[&P];
      // A step's block in its bank: the chunk's kernel and its tail.
      auto Words = [](const Step &T) { return T.P->kernelWords(T.Chunk) + T.P->TailWords; };
      bool Ok = L.IsConv && H.NewW && H.LastOfPlan && !L.WeightsOnce && !L.PinWeights &&
                !L.Dynamic && !H.CoReader && H.Riders.empty() && !H.Rides && H.TailBank < 0 &&
                !H.PinReader && !H.PinProducer && H.WOff == 0 && K + N <= Steps.size();
      uint32_t End = Words(H);
      for (size_t J = K; Ok && J < K + N; ++J) {
        Ok &= Steps[J].P == &P;
        End += Words(Steps[J]);
      }
      if (Ok && End <= Hw.weightsWords() / 2) { // BufferMap::WCap
        for (size_t J = K, Off = Words(H); J < K + N; Off += Words(Steps[J]), ++J) {
          Steps[J].Rides = true;
          Steps[J].WOff = uint32_t(Off);
          H.Riders.push_back(&Steps[J]);
        }
        H.LastWUse = false;
      }
    }
    if (!PrevSame && P.FromMid && P.ShareOffset && S.NewW)
      rideWithHost(Steps, K, FirstW, RideEnd, Hw);
    if (S.Rides)
      S.NewW = false;
    // (FuseWindows.cpp co-locates where every round changes the groups, so
    // the producer loads a block each step.)
    // (A split triple's depthwise conv too, LayerPlan::MidSlot, whose
    // projection's steps come after every round.)
    if (P.CoWeights && S.NewW && K + 1 < Steps.size() && Steps[K + 1].P->ReadsWindow &&
        (!Steps[K + 1].P->ToMid || Steps[K + 1].P->MidSlot) &&
        Steps[K + 1].P->FusedWith == P.FusedWith) {
      S.CoReader = Steps[K + 1].P;
      S.CoRound = Steps[K + 1].RoundIdx;
    }
    if (PrevSame && PrevSame == Before)
      PrevSame->LastMapUse = S.NewMap;
    if (PrevSame)
      PrevSame->LastWUse = S.NewW;
    if (Before && Before != PrevSame && !Before->P->FromMid)
      Before->LastMapUse = true; // Set already if it was its plan's last.
    if (S.LastOfPlan) {
      S.LastMapUse = !P.FromMid;
      S.LastWUse = true; // (pinStep: not where its bank holds a pinned reader's tails)
    }
    // Row signals are waited for by a step's map load (Lowerer::loadMaps):
    // a step that reads the rows of the one before it waits for none more.
    assert((S.NewMap || !S.DoneWaits) && "a step that waits for rows loads maps");
    if (S.SharesRegion) {
      assert(Before && Before->P->IsConv && Before->LastMapUse &&
             "a pool step shares the region of the conv step just before it");
      Before->DeferInFree = true;
    }
    unsigned Banks = Opts.DoubleBuffer ? 2 : 1;
    // A full-depth producer's input takes one region and its area the
    // other: both count (the area once the producer's steps are done), so
    // the next load goes to the input's region, which the pair frees first.
    InCount += Taken && !P.ToMid;
    Taken &= P.ToMid;
    InCount += S.NewMap && !S.SharesRegion;
    Taken |= P.ToMid && P.FullDepth && S.NewMap;
    S.InBuf = (InCount - 1) % Banks;
    // A step that keeps its maps reads the region they were loaded into,
    // whatever steps between counted (a whole-map window pair's producer,
    // full depth: one load, then its rounds of output groups, each
    // followed by its depthwise reader's, the first of which counts the
    // area).
    if (!S.NewMap && PrevSame && !P.FromMid)
      S.InBuf = PrevSame->InBuf;
    WCount += S.NewW;
    if (P.PinWeights)
      pinStep(S, Plans, Hw.weightsWords() / 2, WCount, Pinned); // BufferMap::WCap
    else if (P.WeightsOnce && !S.NewW)
      S.WBuf = PrevSame->WBuf;
    else
      S.WBuf = (WCount + 1) % Banks; // WCount may still be 0 for pooling layers.
    if (P.WeightsOnce)
      S.WOff = P.weightsOnceOffset(S.Chunk);
    if (CoWith)
      S.WBuf = CoWith->WBuf, S.WOff = CoWith->P->coReaderOffset();
    if (S.Rides)
      S.WBuf = Steps[S.RideOn >= 0 ? size_t(S.RideOn) : K - 1].WBuf;
    if (S.NewW && P.IsConv)
      FirstW.try_emplace(P.Index, K);
    S.OutBuf = OutCount % Banks;
    OutCount += S.Writes;
    PrevOf[&P] = &S;
    WCountAfter[&P] = WCount;
  }
  // A co-located pair's bank is free once the reader's step is done.
  for (size_t K = 0; K + 1 < Steps.size(); ++K)
    if (Steps[K].CoReader)
      Steps[K].LastWUse = false, Steps[K + 1].LastWUse = true;
  freeRiderBanks(Steps, RideEnd);
  // A producer whose region holds its chunks bank by bank, its steps taking
  // them in order right after each other: a token a bank (Step::BankFull).
  for (size_t K = 0; K < Steps.size(); ++K) {
    Step &S = Steps[K];
    const unsigned N = S.P->NChunks;
    if (!S.P->PerBank || !S.NewMap || S.Chunk != 0 || K + N > Steps.size())
      continue;
    bool InOrder = true;
    for (unsigned C = 1; C < N; ++C)
      InOrder &= Steps[K + C].P == S.P && Steps[K + C].Chunk == C && !Steps[K + C].NewMap;
    if (!InOrder)
      continue;
    S.BankFull = true;
    for (unsigned C = S.P->PerBank; C < N; C += S.P->PerBank)
      Steps[K + C].WaitsBank = true;
  }
  // A fused pair's area lies in the input region of its last depthwise
  // step, which frees that region only after the pair's last 1x1 step.
  // A full-depth producer's area lies in the other region: the last step
  // before the pair to free that region frees it only after the pair (or,
  // if none has, the pair takes it from the load unit).
  for (size_t K = 0; K < Steps.size(); ++K) {
    // (A block triple's depthwise conv, ToMid too, writes its producer's
    // area: FuseBlocks.cpp.)
    // (A pair beside a conv, FuseBeside.cpp: each group of tiles' pool
    // step, in its conv step's region, with its 1x1 steps right after.)
    const bool Beside = Steps[K].P->BesideOf >= 0;
    if (!Steps[K].P->ToMid || Steps[K].P->FromMid || !(Steps[K].LastOfPlan || Beside))
      continue;
    // (A concat's producers write one area: the last one's region holds it.)
    if (K + 1 < Steps.size() && Steps[K].P->sameConcat(*Steps[K + 1].P))
      continue;
    Step &LastD = Steps[K];
    const bool Full = LastD.P->FullDepth;
    LastD.DeferInFree = !Full;
    size_t End = K;
    while (End + 1 < Steps.size() && Steps[End + 1].P->FromMid)
      ++End;
    assert((Steps[End].LastOfPlan || Beside) &&
           "a fused pair ends with its last 1x1 conv's last step");
    Steps[End].FreeMid = true;
    const unsigned Mid = Full ? 1 - LastD.InBuf : LastD.InBuf;
    size_t First = End + 1;
    // (A pair beside a conv: this group of tiles' steps only.)
    const size_t From = Beside ? K : 0;
    for (size_t J = End + 1; J-- > From && Steps[J].P->FusedWith == LastD.P->FusedWith;)
      Steps[J].MidBuf = Mid, First = J;
    // A straddling area (LayerPlan::Straddles) lies in the other region
    // too: the fusion's last step there frees it after the readers, or if
    // none loads there, the fusion takes it from the load unit.
    if (LastD.P->Straddles) {
      Step *Other = nullptr; // the fusion's last step to free the other region
      for (size_t J = First; J < K; ++J)
        if (Steps[J].InBuf != Mid && Steps[J].LastMapUse)
          Other = &Steps[J];
      if (Other)
        Other->DeferInFree = true;
      else
        Steps[First].TakeOther = true;
      Steps[End].FreeOther = true;
    }
    if (!Full)
      continue;
    bool Deferred = false;
    for (size_t J = First; J-- > 0 && !Deferred;) {
      Step &Prev = Steps[J];
      if (Prev.FreeMid && Prev.MidBuf == Mid)
        Prev.FreeMid = false, Deferred = true;
      else if (Prev.InBuf == Mid && Prev.LastMapUse && !Prev.DeferInFree)
        Prev.DeferInFree = true, Deferred = true;
    }
    Steps[First].TakeMid = !Deferred;
  }
  for (auto [P, PFrom, QAt] : Feeds)
    feedSteps(Steps, *P, PFrom, QAt);
  placeTopWeights(Steps, Hw, Hw.weightsWords() / 2, Opts); // BufferMap::WCap
  return Steps;
}
