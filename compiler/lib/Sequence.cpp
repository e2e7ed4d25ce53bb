//===- Sequence.cpp - Steps in program order ------------------------------===//
//
// makeSteps turns the layer plans into the program's step list (which steps
// load what, which banks they use, which signals they wait for);
// EmitProgram.cpp emits them. See Lower.h.
//
//===----------------------------------------------------------------------===//

#include "Cost.h"
#include "Lowerer.h"
#include <algorithm>
#include <cassert>
#include <optional>
#include <unordered_map>

using namespace snow;
using namespace snow::compiler;

/// The steps of one plan in its own order: (round, chunk), flags unset.
static std::vector<Step> planSteps(const LayerPlan &P) {
  std::vector<Step> Steps;
  auto Add = [&](unsigned RoundIdx, unsigned Chunk) {
    Step S;
    S.P = &P;
    S.RoundIdx = RoundIdx;
    S.Chunk = Chunk;
    S.InOffset = P.ShareOffset;
    // A fused depthwise step writes back on chip only (LayerPlan::ToMid).
    S.Writes = !P.ToMid && (!P.IsConv || P.Depthwise ||
                            Chunk + 1 == P.ogChunks(P.Rounds[RoundIdx].firstOg()).second);
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
  return Steps;
}

/// Calls Fn(row) for every row of C's output (all frames, frame after
/// frame: frame f's row y is f * H + y) that CU work W of step S covers.
template <typename RowFn> static void tileRows(const Step &S, const Work &W, unsigned H, RowFn Fn) {
  const LayerPlan &P = *S.P;
  const unsigned T = unsigned(W.Tile);
  const size_t Y0 = size_t(P.frameOf(T)) * H + T % P.tilesPerFrame() / P.NColBlocks * P.R;
  for (size_t Y = Y0; Y < Y0 + P.validRows(T); ++Y)
    Fn(Y);
}

/// How many rows of its input (all frames, frame after frame) pooling step
/// S reads up to: the end of the last row its tiles' regions load.
static size_t rowsNeeded(const Step &S) {
  const LayerPlan &P = *S.P;
  const ir::Layer &L = *P.L;
  size_t Need = 0;
  for (const Work &W : S.round().Cus) {
    if (!W.active())
      continue;
    const unsigned T = unsigned(W.Tile);
    const int Y0 = int(T % P.tilesPerFrame() / P.NColBlocks * P.R * L.SH) - int(L.PadT);
    const int End = std::clamp(Y0 + int((P.RowsIn - 1) * P.StepY + 1), 0, int(L.In.H));
    Need = std::max(Need, size_t(P.frameOf(T)) * L.In.H + size_t(End));
  }
  return Need;
}

/// Whether two rounds give every CU the same Field of its work (and the same
/// CUs work).
static bool sameWork(const Round &A, const Round &B, int Work::*Field) {
  for (size_t Cu = 0; Cu < A.Cus.size(); ++Cu)
    if (A.Cus[Cu].active() != B.Cus[Cu].active() ||
        (A.Cus[Cu].active() && A.Cus[Cu].*Field != B.Cus[Cu].*Field))
      return false;
  return true;
}

/// Whether step B, right after step A of the same plan, loads new maps:
/// some CU's tile changes, or the chunk (unless the region holds them all).
static bool newMaps(const Step &A, const Step &B) {
  return (A.Chunk != B.Chunk && !A.P->FullDepth) || !sameWork(A.round(), B.round(), &Work::Tile);
}

/// Whether pooling plan Q, right after conv plan C in program order, runs
/// pipelined beside it (CompileOptions::PipelinePools): placed there to
/// (LayerPlan::BesideOf), both whole layers over the same frames, and C the
/// last layer Q waits for (Q reads C's output, directly or through a
/// concat) or one after it (Q reads older layers only).
static bool pipelines(const LayerPlan &C, const LayerPlan &Q) {
  return Q.BesideOf == int(C.Index) && C.IsConv && C.FirstPart && C.LastPart && !Q.IsConv &&
         !Q.Elementwise && Q.FirstPart && Q.LastPart && Q.Frames == C.Frames &&
         Q.NeedsDone <= C.Ordinal;
}

/// The channels [first, second) of the tensor C writes that step S of C
/// (a writing step) stores for CU work W, or of the tensor Q reads that
/// step S of Q loads: an output group's, a depthwise conv's or a pool's
/// chunk's, a conv's input chunk's, or all of them (a full-depth region).
/// G: the machine's vMACs x lanes.
static std::pair<unsigned, unsigned> writtenChannels(const Step &S, const Work &W, unsigned G) {
  const LayerPlan &P = *S.P;
  const unsigned C = P.L->Out.C;
  unsigned Lo = 0, Hi = C;
  if (P.IsConv && !P.Depthwise && !P.Elementwise) {
    const unsigned OgCh = P.ogChannels(G);
    Lo = P.OcBase + unsigned(W.Og) * OgCh;
    Hi = std::min(P.OcBase + P.OcCount, Lo + OgCh);
  } else if (P.NChunks > 1) {
    Lo = P.chunkBegin(S.Chunk);
    Hi = Lo + P.chunkSize(S.Chunk, C);
  }
  return {P.Out.Offset + Lo, P.Out.Offset + Hi};
}

static std::pair<unsigned, unsigned> readChannels(const Step &S) {
  const LayerPlan &P = *S.P;
  const unsigned C = P.L->In.C;
  unsigned Lo = 0, Hi = C;
  if (P.NChunks > 1 && !P.FullDepth) {
    Lo = P.chunkBegin(S.Chunk);
    Hi = Lo + P.chunkSize(S.Chunk, C);
  }
  return {P.In.Offset + Lo, P.In.Offset + Hi};
}

/// For each step of Q (a pool beside C, or a conv starting on C's rows):
/// the first step of conv C after whose stores every pixel it reads is
/// stored (C's last step at the latest): every tile of every output group
/// covering its rows, from the first row on, and the channels it reads. A
/// load of some channels of a row while a store writes others is no DRAM
/// hazard (the rule sees the transfers' rows, not their envelopes:
/// docs/architecture.md 3.6), so a step of Q that reads one channel chunk
/// may load as soon as C's output groups over those channels are stored
/// (where C's output groups are outermost: ResNet's 1x1 convs, a
/// MobileNet's expansion before its depthwise conv). By whole rows of
/// every output group where G (channelGroup) is 0, and for a merged conv's
/// pieces.
static std::vector<size_t> readyAt(const std::vector<Step> &C, const std::vector<Step> &Q,
                                   unsigned G) {
  // (C may be a fused pair's steps: its 1x1 conv's write.)
  const LayerPlan &CP =
      *std::find_if(C.begin(), C.end(), [](const Step &S) { return S.Writes; })->P;
  const unsigned H = CP.L->Out.H;
  const LayerPlan &QP = *Q.front().P;
  // Channel blocks: the distinct channel ranges C's steps write, where Q
  // reads C's tensor at C's layout; otherwise one block, all channels.
  const bool ByChannels = G && CP.Pieces.empty() && QP.In.Addr == CP.Out.Addr &&
                          QP.In.Stride == CP.Out.Stride && QP.In.FrameBytes == CP.Out.FrameBytes;
  std::vector<std::pair<unsigned, unsigned>> Blocks;
  auto Block = [&](const Step &S, const Work &W) -> size_t {
    const auto R = ByChannels ? writtenChannels(S, W, G) : std::pair<unsigned, unsigned>{0, 0};
    auto It = std::find(Blocks.begin(), Blocks.end(), R);
    if (It != Blocks.end())
      return size_t(It - Blocks.begin());
    Blocks.push_back(R);
    return Blocks.size() - 1;
  };
  // DoneAt[row][block]: the last step of C storing that part of the row.
  std::vector<std::vector<size_t>> DoneAt(size_t(CP.Frames) * H);
  for (size_t K = 0; K < C.size(); ++K) {
    if (!C[K].Writes)
      continue;
    for (const Work &W : C[K].round().Cus) {
      if (!W.active())
        continue;
      const size_t B = Block(C[K], W);
      tileRows(C[K], W, H, [&](size_t Y) {
        std::vector<size_t> &Row = DoneAt[Y];
        if (Row.size() <= B)
          Row.resize(B + 1, 0);
        Row[B] = std::max(Row[B], K);
      });
    }
  }
  std::vector<size_t> At(Q.size(), 0);
  for (size_t J = 0; J < Q.size(); ++J) {
    const auto [Lo, Hi] = readChannels(Q[J]);
    const size_t Need = std::min(rowsNeeded(Q[J]), DoneAt.size());
    for (size_t Y = 0; Y < Need; ++Y)
      for (size_t B = 0; B < DoneAt[Y].size(); ++B)
        if (!ByChannels || (Blocks[B].first < Hi && Lo < Blocks[B].second))
          At[J] = std::max(At[J], DoneAt[Y][B]);
    At[J] = std::min(At[J], C.size() - 1);
  }
  return At;
}

size_t snow::compiler::stepCount(const LayerPlan &P) { return planSteps(P).size(); }

unsigned snow::compiler::channelGroup(const isa::HwConfig &Hw, const CompileOptions &Opts) {
  return Opts.StartOnChannels ? Hw.VmacsPerCu * Hw.LanesPerVmac : 0;
}

unsigned snow::compiler::stepsBeside(const LayerPlan &C, const LayerPlan &Q, unsigned G,
                                     bool ReadsC, bool Shared) {
  const std::vector<Step> CS = planSteps(C), QS = planSteps(Q);
  if (CS.size() < 2)
    return 0;
  const std::vector<size_t> At = ReadsC ? readyAt(CS, QS, G) : std::vector<size_t>(QS.size(), 0);
  if (!Shared) {
    unsigned N = 0;
    for (size_t K : At)
      N += K + 1 < CS.size();
    return N;
  }
  // As pipeline() places them: one after each writing step of C before a
  // step that loads new maps, once the rows it reads are stored; Q's last
  // step after C's.
  size_t J = 0;
  for (size_t K = 0; K + 1 < CS.size() && J + 1 < QS.size(); ++K)
    J += CS[K].Writes && newMaps(CS[K], CS[K + 1]) && At[J] < K;
  return unsigned(J);
}

/// RowsDone after each distinct step of C that some step of a layer reading
/// C waits for (At: readyAt's): sets those steps' DoneSignals and returns
/// their positions, in order.
static std::vector<size_t> signalRows(std::vector<Step> &C, std::vector<size_t> At) {
  std::sort(At.begin(), At.end());
  At.erase(std::unique(At.begin(), At.end()), At.end());
  for (size_t K : At)
    C[K].DoneSignals = 1;
  return At;
}

/// How many more of those signals a step waits for that reads the rows C's
/// step At completes, when Waited were consumed before it (updated).
static unsigned rowWaits(const std::vector<size_t> &Signals, size_t At, size_t &Waited) {
  const size_t Need =
      size_t(std::lower_bound(Signals.begin(), Signals.end(), At) - Signals.begin()) + 1;
  const unsigned N = unsigned(Need > Waited ? Need - Waited : 0);
  Waited = std::max(Waited, Need);
  return N;
}

/// Conv C's steps with pooling Q's steps among them, each of Q's steps once
/// C has stored every row it reads (docs/compiler.md, step 9a; a Q that
/// does not read C waits for nothing), and only where C's next step would
/// load new maps anyway.
/// C's store unit signals RowsDone after each step whose stores complete
/// rows that some step of Q waits for; Q's load unit waits for as many as it
/// needs. A step of Q goes after a writing step of C (C's accumulators are
/// then free), at least one step after the one that completed its rows: its
/// loads are emitted before the step before it runs, and must come after
/// the signal they wait for. Steps that find no such place, and Q's last,
/// follow C's last step, so that the layers still finish (and signal
/// LayerDone) in program order.
static std::vector<Step> pipeline(std::vector<Step> C, std::vector<Step> Q, unsigned G) {
  // One RowsDone after each distinct step of C that some step of Q waits
  // for, and each step of Q waits for those up to its own. A pool that does
  // not read C waits for none.
  const bool ReadsC = Q.front().P->NeedsDone == C.front().P->Ordinal;
  const bool Shares = Q.front().P->ShareOffset != 0;
  const std::vector<size_t> At = ReadsC ? readyAt(C, Q, G) : std::vector<size_t>(Q.size(), 0);
  const std::vector<size_t> Signals = ReadsC ? signalRows(C, At) : std::vector<size_t>();
  std::vector<Step> Out;
  size_t J = 0;
  size_t Waited = 0;
  auto Take = [&] {
    Step S = Q[J];
    S.DoneWaits = ReadsC ? rowWaits(Signals, At[J], Waited) : 0;
    ++J;
    S.Pipelined = true;
    S.ReadsBeside = ReadsC;
    Out.push_back(S);
  };
  for (size_t K = 0; K < C.size(); ++K) {
    Out.push_back(C[K]);
    // Only where C's next step loads maps anyway: after a step of Q (which
    // uses the other input bank) it would have to reload them.
    if (!C[K].Writes || K + 1 == C.size() || !newMaps(C[K], C[K + 1]))
      continue;
    // At most as many of Q's steps as keep Q's share of the remaining
    // places even, so its traffic spreads over C's traces; one if it
    // shares C's input region (its maps go where C's step leaves room).
    const size_t Left = C.size() - K - 1;
    size_t Quota = Shares ? 1 : (Q.size() - J + Left - 1) / Left;
    while (Quota-- > 0 && J + 1 < Q.size() && At[J] < K) {
      Take();
      Out.back().SharesRegion = Shares;
    }
  }
  // The first of these has its loads emitted before C's last step runs:
  // it loads only after C's LayerDone (Late), which follows that step's
  // signals in program order.
  const size_t FirstLate = Out.size();
  while (J < Q.size())
    Take();
  if (FirstLate < Out.size())
    Out[FirstLate].Late = true;
  if (ReadsC &&
      Waited < Signals.size()) // Every signal is consumed: the last step waits for the rest.
    Out.back().DoneWaits += unsigned(Signals.size() - Waited);
  return Out;
}

/// Whether Q, planned right after conv C, may start on the rows C has
/// stored (startOnRows): whole layers over the same frames, Q a conv that
/// reads the tensor C writes and nothing newer. C may be the 1x1 conv of a
/// fused pair, Q the producer of one.
static bool startsOnRowsOf(const LayerPlan &C, const LayerPlan &Q) {
  const ir::Layer &L = *Q.L;
  // Q's input is the tensor C writes: C's own, the concat C writes a slice
  // of (its other inputs are older), or a piece of a merged conv.
  bool Writes = Q.In.Addr == C.Out.Addr;
  for (const OutPiece &Piece : C.Pieces)
    Writes |= Q.In.Addr == Piece.View.Addr;
  return C.IsConv && !C.ToMid && C.FirstPart && C.LastPart && Q.IsConv && !Q.Elementwise &&
         !Q.Dynamic && !Q.FromMid && Q.FirstPart && Q.LastPart && Q.Frames == C.Frames &&
         Q.BesideOf < 0 && L.Inputs.size() == 1 && Writes && Q.NeedsDone == C.Ordinal &&
         !(L.HasResidual && (L.Residual == int(C.Index) || Q.Res.Addr == C.Out.Addr));
}

/// Q's steps, right after conv C's (startsOnRowsOf), each waiting for the
/// RowsDone signals of C's steps that store the rows it reads instead of
/// C's LayerDone (CompileOptions::StartOnRows): Q's first maps then load
/// while C's last step computes, not after its last stores. False (nothing
/// set) where Q's first step reads rows that only C's last step stores: its
/// loads are emitted before that step runs, and every wait must come after
/// the signal it consumes.
static bool startOnRows(std::vector<Step> &C, std::vector<Step> &Q, unsigned G) {
  // A full-depth producer's first step loads every chunk, each behind the
  // waits for its own channels (Step::ChunkWaits): one point a chunk.
  std::optional<LayerPlan> Chunked;
  std::vector<Step> Points;
  std::vector<size_t> Owner;
  for (size_t J = 0; J < Q.size(); ++J) {
    const LayerPlan &P = *Q[J].P;
    if (G && P.ToMid && P.FullDepth && J == 0) {
      Chunked = P;
      Chunked->FullDepth = false;
      for (unsigned Ch = 0; Ch < P.NChunks; ++Ch) {
        Step V = Q[J];
        V.P = &*Chunked;
        V.Chunk = Ch;
        Points.push_back(V);
        Owner.push_back(J);
      }
      continue;
    }
    Points.push_back(Q[J]);
    Owner.push_back(J);
  }
  const std::vector<size_t> At = readyAt(C, Points, G);
  if (At.front() + 1 >= C.size())
    return false;
  const std::vector<size_t> Signals = signalRows(C, At);
  size_t Waited = 0;
  for (size_t K = 0; K < Points.size(); ++K) {
    Step &S = Q[Owner[K]];
    const unsigned N = rowWaits(Signals, At[K], Waited);
    if (Points[K].P == &*Chunked) {
      S.ChunkWaits.push_back(N);
      S.ChunkAt.push_back(At[K]); // In C; makeSteps adds C's first index.
    } else
      S.DoneWaits = N;
    S.Pipelined = S.ReadsBeside = true;
    S.OnRows = !S.P->FromMid; // A fused pair's 1x1 conv reads the area.
  }
  assert(Waited == Signals.size() && "the step waiting for C's last signal consumes the rest");
  return true;
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
  const bool FirstFirst = G && D.Depthwise && D.L->Out.C % G == 0;
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
  for (size_t I = 0; I < Plans.size(); ++I) {
    if (Plans[I].ToMid) {
      std::vector<const LayerPlan *> Ps;
      while (I + 1 < Plans.size() && Plans[I + 1].FromMid)
        Ps.push_back(&Plans[++I]);
      assert(!Ps.empty() && "Fuse.cpp keeps pairs together");
      std::vector<Step> All = fusedSteps(Plans[I - Ps.size()], Ps, G);
      TryStartOnRows(Plans[I - Ps.size()], All);
      LastPlan = Ps.size() == 1 ? Ps.front() : nullptr;
      Last = Steps.size();
      Steps.insert(Steps.end(), All.begin(), All.end());
      continue;
    }
    std::vector<Step> Own = planSteps(Plans[I]);
    const bool Beside = Opts.PipelinePools && Opts.DoubleBuffer && I + 1 < Plans.size() &&
                        pipelines(Plans[I], Plans[I + 1]) && !Own.empty();
    // Not a conv with a pool beside it: the pool's steps, among its own,
    // wait for its rows on the same semaphore, and could take a signal
    // meant for it (a token is a token).
    if (!Beside)
      TryStartOnRows(Plans[I], Own);
    LastPlan = nullptr;
    if (Beside) {
      std::vector<Step> Both = pipeline(std::move(Own), planSteps(Plans[I + 1]), G);
      Steps.insert(Steps.end(), Both.begin(), Both.end());
      ++I;
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
  bool Taken = false; // A full-depth producer's area still to count.
  for (size_t K = 0; K < Steps.size(); ++K) {
    Step &S = Steps[K];
    const LayerPlan &P = *S.P;
    Step *PrevSame = PrevOf[&P];
    Step *Before = K > 0 ? &Steps[K - 1] : nullptr;
    S.FirstOfLayer = !PrevSame && P.FirstPart;
    S.LastOfPlan = ++Seen[&P] == Count[&P];
    S.LastOfLayer = S.LastOfPlan && P.LastPart;
    S.Remark = !S.FirstOfLayer && Before && Before->P->Index != P.Index;
    // A fused 1x1 step reads the depthwise output on chip: it loads no maps.
    S.NewMap = !P.FromMid && (!PrevSame || PrevSame != Before || newMaps(*PrevSame, S));
    // Weights stay across other plans' steps that load none (a pool's), not
    // across any that loads some (a fused pair's other layers).
    S.NewW = P.IsConv &&
             (!PrevSame || WCountAfter[&P] != WCount ||
              !sameWork(PrevSame->round(), S.round(), &Work::Og) || PrevSame->Chunk != S.Chunk);
    if (PrevSame && PrevSame == Before)
      PrevSame->LastMapUse = S.NewMap;
    if (PrevSame)
      PrevSame->LastWUse = S.NewW;
    if (Before && Before != PrevSame && !Before->P->FromMid)
      Before->LastMapUse = true; // Set already if it was its plan's last.
    if (S.LastOfPlan) {
      S.LastMapUse = !P.FromMid;
      S.LastWUse = true;
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
    WCount += S.NewW;
    S.InBuf = (InCount - 1) % Banks;
    S.WBuf = (WCount + 1) % Banks; // WCount may still be 0 for pooling layers.
    S.OutBuf = OutCount % Banks;
    OutCount += S.Writes;
    PrevOf[&P] = &S;
    WCountAfter[&P] = WCount;
  }
  // A fused pair's area lies in the input region of its last depthwise
  // step, which frees that region only after the pair's last 1x1 step.
  // A full-depth producer's area lies in the other region: the last step
  // before the pair to free that region frees it only after the pair (or,
  // if none has, the pair takes it from the load unit).
  for (size_t K = 0; K < Steps.size(); ++K) {
    if (!Steps[K].P->ToMid || !Steps[K].LastOfPlan)
      continue;
    Step &LastD = Steps[K];
    const bool Full = LastD.P->FullDepth;
    LastD.DeferInFree = !Full;
    size_t End = K;
    while (End + 1 < Steps.size() && Steps[End + 1].P->FromMid)
      ++End;
    assert(Steps[End].LastOfPlan && "a fused pair ends with its last 1x1 conv's last step");
    Steps[End].FreeMid = true;
    const unsigned Mid = Full ? 1 - LastD.InBuf : LastD.InBuf;
    size_t First = End + 1;
    for (size_t J = End + 1; J-- > 0 && Steps[J].P->FusedWith == LastD.P->FusedWith;)
      Steps[J].MidBuf = Mid, First = J;
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
  return Steps;
}
