//===- RowSignals.cpp - Steps that wait for the rows the layer before stores -===//
//
// A pool beside the conv it reads, or a layer started on the rows (and
// channels) the conv before it has stored, waits step by step for RowsDone
// signals of that conv's steps instead of its LayerDone (docs/compiler.md,
// steps 9 and 9a): which of that conv's steps signal, and how many signals
// each step waits for. Sequence.cpp (makeSteps) calls these.
//
//===----------------------------------------------------------------------===//

#include "RowSignals.h"
#include "Lowerer.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cassert>
#include <optional>

using namespace snow;
using namespace snow::compiler;

/// Calls Fn(row) for every row of C's output (all frames, frame after
/// frame: frame f's row y is f * H + y) that CU work W of step S covers.
template <typename RowFn> static void tileRows(const Step &S, const Work &W, RowFn Fn) {
  const auto [Y0, Y1] = S.P->outRows(unsigned(W.Tile));
  for (size_t Y = Y0; Y < Y1; ++Y)
    Fn(Y);
}

/// The rows of its map a plan's output has (all frames): a flattened
/// plan's map's own (LayerPlan::FlatW).
static size_t mapRows(const LayerPlan &P) {
  return P.FlatW ? P.L->Out.W / P.FlatW : size_t(P.Frames) * P.L->Out.H;
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
    if (P.FlatW) {
      // A run of pixels of the map as one row, as loaded: a banked region's
      // padding column is the pixel after the run, in the next run, which
      // may start the next row of the map.
      const unsigned X0 = P.tileX0(T);
      Need = std::max(Need, P.flatRows(X0, std::min(X0 + P.ColsIn, L.In.W)).second);
      continue;
    }
    const int Y0 = int(P.tileY0(T) * L.SH) - int(L.PadT);
    const int End = std::clamp(Y0 + int((P.RowsIn - 1) * P.StepY + 1), 0, int(L.In.H));
    Need = std::max(Need, size_t(P.frameOf(T)) * L.In.H + size_t(End));
  }
  return Need;
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
    // A depthwise CU's chunk is its output group (a round may give its
    // CUs groups of their own).
    const unsigned Ch = P.Depthwise ? unsigned(W.Og) : S.Chunk;
    Lo = P.chunkBegin(Ch);
    Hi = Lo + P.chunkSize(Ch, C);
  }
  return {P.Out.Offset + Lo, P.Out.Offset + Hi};
}

static std::pair<unsigned, unsigned> readChannels(const Step &S) {
  const LayerPlan &P = *S.P;
  const unsigned C = P.L->In.C;
  unsigned Lo = 0, Hi = C;
  if (P.NChunks > 1 && !P.FullDepth) {
    // A depthwise step reads its CUs' chunks (their output groups): from
    // the first's to the last's (a mixed round's may leave a gap between,
    // which is only waited for too).
    unsigned First = S.Chunk, Last = S.Chunk;
    if (P.Parts > 1) // each CU its share's chunk (LayerPlan::partChunk)
      Last = P.partChunk(S.Chunk, P.Parts - 1);
    if (P.Depthwise)
      for (const Work &W : S.round().Cus)
        if (W.active()) {
          First = std::min(First, unsigned(W.Og));
          Last = std::max(Last, unsigned(W.Og));
        }
    Lo = P.chunkBegin(First);
    Hi = P.chunkBegin(Last) + P.chunkSize(Last, C);
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
  // (A dense producer's steps store its own tensor.)
  auto Stores = [](const Step &S) { return S.Writes && !S.P->ToMid; };
  const LayerPlan &CP = *std::find_if(C.begin(), C.end(), Stores)->P;
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
  std::vector<std::vector<size_t>> DoneAt(mapRows(CP));
  for (size_t K = 0; K < C.size(); ++K) {
    if (!Stores(C[K]))
      continue;
    for (const Work &W : C[K].round().Cus) {
      if (!W.active())
        continue;
      const size_t B = Block(C[K], W);
      tileRows(C[K], W, [&](size_t Y) {
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

/// Where pool steps may go among conv C's steps (true after C[K]): only
/// where C's next step loads new maps anyway (after a pool step, which
/// takes an input region, it would have to reload them), and after a step
/// that writes an output group, unless those are fewer than the Need pool
/// steps and Any (CompileOptions::PoolsBetweenChunks): then after any such
/// step. A pool uses no accumulators (vmax and vavg read and write the
/// maps buffer), so a conv's partial sums wait in them across a pool
/// step. GoogLeNet's 3x3 convs write once in four or five chunks: at batch
/// 16 their pools found 19 to 83 places for 48 to 88 steps.
static std::vector<bool> poolPlaces(const std::vector<Step> &C, size_t Need, bool Any) {
  std::vector<bool> New(C.size(), false), Place(C.size(), false);
  size_t Writing = 0;
  for (size_t K = 0; K + 1 < C.size(); ++K) {
    New[K] = newMaps(C[K], C[K + 1]);
    Writing += New[K] && C[K].Writes;
  }
  for (size_t K = 0; K < C.size(); ++K)
    Place[K] = New[K] && (C[K].Writes || (Any && Need > Writing));
  return Place;
}

unsigned snow::compiler::stepsBeside(const LayerPlan &C, const LayerPlan &Q, unsigned G,
                                     bool Between, bool ReadsC, bool Shared) {
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
  // As pipeline() places them: one in each of poolPlaces' places, once
  // the rows it reads are stored; Q's last step after C's.
  const std::vector<bool> Place = poolPlaces(CS, QS.size() - 1, Between);
  size_t J = 0;
  for (size_t K = 0; K + 1 < CS.size() && J + 1 < QS.size(); ++K)
    J += Place[K] && At[J] < K;
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

/// Conv C's steps with the steps of the pools in Qs among them (one or
/// two: docs/compiler.md, step 9a), each pool step once C has stored every
/// row it reads (a pool that does not read C waits for nothing), and only
/// where C's next step would load new maps anyway. At most one pool reads
/// C: RowsDone is one semaphore, and a token is a token.
/// C's store unit signals RowsDone after each step whose stores complete
/// rows that some step of that pool waits for; its load unit waits for as
/// many as it needs. A pool step goes in one of poolPlaces' places, at
/// least one step after the one that completed its rows: its loads are
/// emitted before the step before it runs, and must come after the signal
/// they wait for. Steps that find no
/// such place, and each pool's last, follow C's last step, pool after pool
/// in Qs' order, so that the layers still finish (and signal LayerDone) in
/// program order.
std::vector<Step> snow::compiler::pipeline(std::vector<Step> C, std::vector<std::vector<Step>> Qs,
                                           unsigned G, bool Between) {
  // A pool's steps go one at a time; a pool fused with its 1x1 readers
  // (FuseBeside.cpp) a group of tiles at a time, its pool step and theirs
  // (units), and only after a step of C that writes (the readers use the
  // accumulators, which a pool does not).
  struct Pool {
    std::vector<Step> S;
    bool ReadsC, Shares, Pair;
    std::vector<size_t> Unit; // Where each unit starts in S, and S.size().
    std::vector<size_t> At;   // readyAt's, by unit: the step of C storing the last row it reads.
    size_t J = 0;             // Units taken.
    size_t units() const { return Unit.size() - 1; }
  };
  std::vector<Pool> Ps;
  const Pool *Reader = nullptr;
  for (std::vector<Step> &Q : Qs) {
    const LayerPlan &QP = *Q.front().P;
    const bool ReadsC = readsHost(*C.front().P, QP);
    const bool Shares = QP.ShareOffset != 0;
    Pool P{std::move(Q), ReadsC, Shares, QP.ToMid, {}, {}};
    // The pool's own steps, each starting a unit with the readers' after it.
    std::vector<Step> Own;
    for (size_t K = 0; K < P.S.size(); ++K)
      if (!P.S[K].P->FromMid) {
        assert((!P.Pair || (K + 1 < P.S.size() && P.S[K + 1].P->FromMid)) &&
               "FuseBeside.cpp: one pool step a group, its readers' after it");
        P.Unit.push_back(K);
        Own.push_back(P.S[K]);
      }
    P.Unit.push_back(P.S.size());
    P.At = ReadsC ? readyAt(C, Own, G) : std::vector<size_t>(Own.size(), 0);
    Ps.push_back(std::move(P));
  }
  for (const Pool &P : Ps) {
    assert((!P.ReadsC || !Reader) && "one pool beside a conv reads it");
    if (P.ReadsC)
      Reader = &P;
  }
  // One RowsDone after each distinct step of C that the reading pool's
  // steps wait for, and each of them waits for those up to its own.
  const std::vector<size_t> Signals = Reader ? signalRows(C, Reader->At) : std::vector<size_t>();
  std::vector<Step> Out;
  size_t Waited = 0, LastRead = 0;
  auto Take = [&](Pool &P) {
    for (size_t K = P.Unit[P.J]; K < P.Unit[P.J + 1]; ++K) {
      Step S = P.S[K];
      const bool Own = !S.P->FromMid; // the pool's step: it loads maps
      S.DoneWaits = P.ReadsC && Own ? rowWaits(Signals, P.At[P.J], Waited) : 0;
      S.Pipelined = true;
      S.ReadsBeside = P.ReadsC && Own;
      Out.push_back(S);
      if (P.ReadsC && Own)
        LastRead = Out.size() - 1;
    }
    ++P.J;
  };
  size_t Need = 0; // Pool steps that could go between C's (each pool's last follows C).
  for (const Pool &P : Ps)
    Need += P.units() - 1;
  const std::vector<bool> Place = poolPlaces(C, Need, Between);
  for (size_t K = 0; K < C.size(); ++K) {
    Out.push_back(C[K]);
    if (!Place[K])
      continue;
    // Each pool takes at most as many steps as keep its share of the
    // remaining places even, so its traffic spreads over C's traces; a
    // step in C's input region (its maps go where C's step leaves room)
    // goes alone, right after C's step. Pools in program order.
    const size_t Left = C.size() - K - 1;
    bool Alone = false;
    for (Pool &P : Ps) {
      size_t Quota = P.Shares ? 1 : (P.units() - P.J + Left - 1) / Left;
      while (!Alone && Quota-- > 0 && P.J + 1 < P.units() && P.At[P.J] < K &&
             (!P.Shares || Out.back().P == C[K].P) && (!P.Pair || C[K].Writes)) {
        const size_t First = Out.size();
        Take(P);
        Out[First].SharesRegion = P.Shares;
        Alone = P.Shares;
      }
    }
  }
  // The first of these has its loads emitted before C's last step runs:
  // it loads only after C's LayerDone (Late), which follows that step's
  // signals in program order.
  const size_t FirstLate = Out.size();
  for (Pool &P : Ps)
    while (P.J < P.units())
      Take(P);
  if (FirstLate < Out.size())
    Out[FirstLate].Late = true;
  // Every signal is consumed: the reading pool's last step waits for the rest.
  if (Reader && Waited < Signals.size())
    Out[LastRead].DoneWaits += unsigned(Signals.size() - Waited);
  return Out;
}

/// Whether Q, planned right after conv C, may start on the rows C has
/// stored (startOnRows): whole layers over the same frames, Q a conv that
/// reads the tensor C writes and nothing newer. C may be the 1x1 conv of a
/// fused pair or a block triple's projection, Q the producer of a pair or
/// a window producer, whose steps' windows (the producer's regions, their
/// rows rowsNeeded's) wait for C's rows as any region does (MobileNet v2's
/// and EfficientNet-B0's expansions after the block before, 2026-12-06);
/// not a whole-map window producer, whose one region loads full depth.
bool snow::compiler::startsOnRowsOf(const LayerPlan &C, const LayerPlan &Q) {
  const ir::Layer &L = *Q.L;
  // Q's input is the tensor C writes: C's own, the concat C writes a slice
  // of (its other inputs are older), or a piece of a merged conv.
  // (Or an input of that concat, laid out input by input: Q.InPieces.)
  auto WritesAt = [&](uint64_t Addr) {
    return Addr == C.Out.Addr ||
           llvm::any_of(C.Pieces, [&](const OutPiece &Piece) { return Addr == Piece.View.Addr; });
  };
  const bool Writes = WritesAt(Q.In.Addr) || llvm::any_of(Q.InPieces, [&](const OutPiece &In) {
                        return WritesAt(In.View.Addr);
                      });
  return C.IsConv && !C.ToMid && C.FirstPart && C.LastPart && Q.IsConv && !Q.Elementwise &&
         !Q.Dynamic && !Q.FromMid && !(Q.Window.R && Q.FullDepth) && Q.FirstPart && Q.LastPart &&
         Q.Frames == C.Frames && Q.BesideOf < 0 && L.Inputs.size() == 1 && Writes &&
         Q.NeedsDone == C.Ordinal &&
         !(L.HasResidual && (L.Residual == int(C.Index) || Q.Res.Addr == C.Out.Addr));
}

bool snow::compiler::startAfterHost(llvm::ArrayRef<Step> Group, const LayerPlan &C,
                                    const LayerPlan &R, std::vector<Step> &QSteps, unsigned G) {
  const LayerPlan &Q = *QSteps.front().P;
  const ir::Layer &L = *Q.L;
  if (!C.IsConv || R.IsConv || R.BesideOf != int(C.Index) || !Q.IsConv || Q.Elementwise ||
      Q.Dynamic || Q.FromMid || Q.ToMid || Q.Window.R || !Q.FirstPart || !Q.LastPart ||
      Q.Frames != R.Frames || Q.BesideOf >= 0 || L.Inputs.size() != 1 || L.HasResidual ||
      Q.In.Addr != R.Out.Addr || Q.NeedsDone != R.Ordinal || !R.Pieces.empty())
    return false;
  std::vector<Step> RSteps;
  std::vector<size_t> Pos;
  size_t CLast = 0;
  for (size_t K = 0; K < Group.size(); ++K) {
    if (Group[K].P == &R)
      RSteps.push_back(Group[K]), Pos.push_back(K);
    if (Group[K].P == &C)
      CLast = K;
  }
  if (RSteps.empty())
    return false;
  const std::vector<size_t> At = readyAt(RSteps, QSteps, G);
  size_t J = 0;
  while (J < QSteps.size() && Pos[At[J]] < CLast)
    ++J;
  if (J == 0)
    return false;
  // (From J on, every step: the first of them to load maps waits.)
  for (size_t K = 0; K < QSteps.size(); ++K)
    QSteps[K].DoneUpTo = K < J ? C.Ordinal : Q.NeedsDone;
  return true;
}

/// Q's steps, right after conv C's (startsOnRowsOf), each waiting for the
/// RowsDone signals of C's steps that store the rows it reads instead of
/// C's LayerDone (CompileOptions::StartOnRows): Q's first maps then load
/// while C's last step computes, not after its last stores. False (nothing
/// set) where Q's first step reads rows that only C's last step stores: its
/// loads are emitted before that step runs, and every wait must come after
/// the signal it consumes.
bool snow::compiler::startOnRows(std::vector<Step> &C, std::vector<Step> &Q, unsigned G) {
  // A full-depth producer's first step loads every chunk, each behind the
  // waits for its own channels (Step::ChunkWaits): one point a chunk.
  std::optional<LayerPlan> Chunked;
  std::vector<Step> Points;
  std::vector<size_t> Owner;
  for (size_t J = 0; J < Q.size(); ++J) {
    const LayerPlan &P = *Q[J].P;
    if (G && P.ToMid && P.FullDepth && !P.StoresToo && J == 0) {
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
    if (Chunked && Points[K].P == &*Chunked) {
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
