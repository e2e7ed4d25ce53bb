//===- Lower.h - From layer plans to a synchronized instruction stream -*- C++ -*-===//
//
// A layer plan becomes a list of steps (one round of CU work items, one
// channel chunk). Each step has a load part (weights and maps
// into the free banks), a compute part and, when outputs are complete, a
// writeback and store part. Steps are emitted software-pipelined: the loads of
// step k+1 come before the compute of step k in program order, so the load
// unit fills one bank while the compute unit reads the other.
//
// Synchronization protocol (semaphores, docs/compiler.md): every wait is
// emitted after the signal it consumes, which rules out deadlock whatever the
// queue depth.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_LOWER_H
#define SNOW_COMPILER_LOWER_H

#include "Emitter.h"
#include "Plan.h"
#include <array>

namespace snow::compiler {

/// Semaphore numbers (two of each for the two banks).
enum Sem : unsigned {
  InFull = 0,     ///< load -> compute: input region b holds the step's maps
  InFree = 2,     ///< compute -> load: input region b may be overwritten
  WFull = 4,      ///< load -> compute: weights bank b loaded
  WFree = 6,      ///< compute -> load: weights bank b may be overwritten
  OutFull = 8,    ///< compute -> store: output region b written
  OutFree = 10,   ///< store -> compute: output region b stored
  LayerDone = 12, ///< store -> load: a layer's outputs are all in DRAM
  ResFull = 13,   ///< load -> compute: residual tile b is in output region b
  RowsDone = 15,  ///< store -> load: a conv stored more rows (pipelined pools)
};

struct Step {
  const LayerPlan *P = nullptr;
  unsigned RoundIdx = 0, Chunk = 0;
  bool NewMap = false, NewW = false;              ///< Needs a load.
  bool LastMapUse = false, LastWUse = false;      ///< Frees its bank afterwards.
  bool Writes = false;                            ///< Produces final outputs.
  bool FirstOfLayer = false, LastOfLayer = false; ///< Of the layer's first / last part.
  bool LastOfPlan = false;
  /// Another layer's step came just before (a pipelined pool): mark this
  /// layer again, so that its cycles are counted as its own.
  bool Remark = false;
  /// A pooling step pipelined beside the conv it reads, or a step of a conv
  /// started on the rows of the conv before it (RowSignals.cpp: pipeline,
  /// startOnRows): its loads wait for DoneWaits more of that conv's RowsDone
  /// signals instead of its LayerDone.
  bool Pipelined = false;
  /// A conv's step started on rows (not a fused 1x1 conv's): its first
  /// residual loads after the conv before it is done (emitProgram).
  bool OnRows = false;
  bool Late = false;        ///< Pipelined, right after the conv's last step: loads after it.
  bool ReadsBeside = false; ///< Pipelined, and reads the conv it runs beside or after.
  unsigned DoneWaits = 0;
  /// >= 0: the step's loads wait for the LayerDone of the layers up to this
  /// ordinal, first of its layer or not (a conv after a pool beside a conv:
  /// RowSignals.cpp, startAfterHost).
  int DoneUpTo = -1;
  /// A full-depth fused producer's load (LayerPlan::FullDepth, ToMid),
  /// started on rows: chunk c's DMAs wait for ChunkWaits[c] more RowsDone.
  std::vector<unsigned> ChunkWaits;
  /// ... and chunk c's loads are emitted after step ChunkAt[c]'s stores
  /// (the step of the layer before that stores its channels; indices into
  /// the program's steps), so the control core never queues loads that
  /// wait for steps it has not issued yet.
  std::vector<size_t> ChunkAt;
  /// A producer's first step whose region holds its chunks bank by bank
  /// (LayerPlan::PerBank) and whose steps take them in order, right after
  /// each other: each bank's load signals InFull, and the step of each
  /// bank's first chunk waits for one (WaitsBank), so a bank's chunks are
  /// traced while the layer before still stores the next bank's channels.
  bool BankFull = false, WaitsBank = false;
  /// A full-depth fused producer's first step, where no step before the
  /// pair frees the area's region (MidBuf): the load unit takes it (an
  /// InFree wait without a load), which the pair's last 1x1 step frees.
  bool TakeMid = false;
  /// RowsDone signals after this step's stores (conv beside a pipelined
  /// pool): 1 where its stores complete rows that a pool step waits for.
  unsigned DoneSignals = 0;
  unsigned InBuf = 0, WBuf = 0, OutBuf = 0; ///< Bank parities.
  /// Where in input region InBuf the step's maps go (elements; a pool
  /// sharing its conv's region: LayerPlan::ShareOffset).
  uint32_t InOffset = 0;
  /// A pipelined pool step right after a step of its conv, in the banks of
  /// that step's input region past the conv's maps: the region is the
  /// conv step's until the pool step has run, so the pool's load waits for
  /// no InFree (the conv step's load took the region), the conv step frees
  /// nothing (DeferInFree) and the pool step frees the region. The conv's
  /// next step loads into the other region as if no pool were between.
  bool SharesRegion = false;
  /// A fused pair's step (LayerPlan::ToMid / FromMid): the input region
  /// whose banks past the first hold the depthwise output (MidBase()). The
  /// pair's last depthwise step is the last to load into that region; it
  /// does not free it (DeferInFree): the pair's last 1x1 step does once its
  /// traces have read the area (FreeMid), so no later load overwrites it
  /// first.
  unsigned MidBuf = 0;
  bool DeferInFree = false, FreeMid = false;
  /// The last 1x1 step of a fusion whose area straddles both input
  /// regions (LayerPlan::Straddles) frees the region other than MidBuf
  /// too, in place of the fusion's last step that loaded there.
  bool FreeOther = false;
  /// The first step of a straddling fusion none of whose steps loads into
  /// the other input region: its load takes that region once it has
  /// loaded (as TakeMid).
  bool TakeOther = false;
  /// A pinned pair's weights (LayerPlan::PinWeights, PinnedWeights): the
  /// step's block lies WOff words into bank WBuf, and its tail (bias word,
  /// activation table) TailOff words into bank TailBank, not right after
  /// the block (TailBank -1): a 1x1 reader's lie apart.
  uint32_t WOff = 0, TailOff = 0;
  int TailBank = -1;
  /// The producer's first step loads its part (its blocks, and the
  /// reader's tails if they lie with them: PinReader, its reader), the
  /// reader's first the rest (PinProducer, its producer). The reader's last
  /// step frees the producer's bank too where its tails lie there (FreeW2).
  const LayerPlan *PinReader = nullptr, *PinProducer = nullptr;
  int FreeW2 = -1;
  /// A window pair's producer step whose load brings its depthwise
  /// reader's blocks for round CoRound too (LayerPlan::CoWeights), into
  /// bank WBuf from the producer's coReaderOffset() on; the reader's step
  /// (the next) loads none and frees the bank.
  const LayerPlan *CoReader = nullptr;
  unsigned CoRound = 0;
  /// The steps of the depthwise plan right after this one whose weight
  /// blocks this step's load brings too, each WOff words into bank WBuf
  /// (Sequence.cpp, "riders"): they load none and the last frees the bank,
  /// so the plan after them loads into the other bank under this step.
  std::vector<const Step *> Riders;
  /// This step's blocks came with the load of the step before its plan,
  /// or of step RideOn (>= 0; a 1x1 reader of a pair beside a conv, its
  /// blocks with that conv's first: FuseBeside.cpp).
  bool Rides = false;
  long RideOn = -1;
  /// Maps written on chip for the next conv (CompileOptions::FeedNext,
  /// FeedNext.cpp): a conv step that writes an output group writes it
  /// again into input region FeedBuf (>= 0) of that conv's first step:
  /// output group g FeedSpan elements after g - 1, laid out as in its output
  /// region (FeedAt empty), or each CU's tile at its place in that conv's
  /// window (FeedAt: the place's element offset and its CUs' mask; rows
  /// FeedPitch apart, pixels FeedStride apart, group g FeedSpan elements
  /// after g - 1, or at its chunk's place: LayerPlan::PerBank).
  int FeedBuf = -1;
  uint32_t FeedSpan = 0, FeedPitch = 0, FeedStride = 0;
  /// That conv (its chunks' places where it holds them bank by bank).
  const LayerPlan *FeedTo = nullptr;
  std::vector<std::pair<uint32_t, uint32_t>> FeedAt;
  /// A step of a 1x1 conv so fed: it reads them there, pixel (r, c) of its
  /// tile (r x FedCols + c) x FedW into each of FedSlabs output groups (its
  /// channels in order), FedSpan apart; its first step loads no maps (the
  /// load unit only takes the region).
  bool Fed = false;
  unsigned FedCols = 0, FedW = 0, FedSlabs = 0;
  uint32_t FedSpan = 0;
  /// A layer's first step whose weights lie at the top of its bank (WOff
  /// words in), above all the layer before puts there, and load over that
  /// layer's steps [TopFrom, TopLast], each part after a step's prefetch
  /// (TopWeights.cpp): the bank's WFree is taken where the load would have
  /// waited for it, WFull comes with the last part.
  bool TopW = false;
  size_t TopFrom = 0, TopLast = 0;
  /// The first step of a window producer whose CUs' own tiles the conv
  /// before wrote into its window: it loads the rest of each window
  /// (OwnAt[cu]: region row, column, rows and columns of CU cu's tile).
  std::vector<std::array<unsigned, 4>> OwnAt;
  const Round &round() const { return P->Rounds[RoundIdx]; }
  /// Whether the step completes its output group, which it then writes
  /// back: a conv's last input chunk of the group, a depthwise conv's or
  /// pool's every step (its chunk is its output group).
  bool completesGroup() const {
    return !P->IsConv || P->Depthwise || Chunk + 1 == P->ogChunks(round().firstOg()).second;
  }
};

/// The steps of plan P (rounds x the channel chunks of each).
size_t stepCount(const LayerPlan &P);

/// Marks the layers' first steps whose weights load at the top of their
/// bank under the layer before (Step::TopW; TopWeights.cpp).
void placeTopWeights(std::vector<Step> &Steps, const isa::HwConfig &Hw, uint32_t WCap,
                     const CompileOptions &Opts);

/// How many steps of pooling plan Q could run pipelined beside conv plan C
/// before C's last step (the others run after it): where C's stores complete
/// rows progressively, most; where they complete them only at the end, none.
/// ReadsC: Q reads C's output (else every step can). Shared: Q shares C's
/// input region (LayerPlan::ShareOffset), one of its steps at most between
/// two of C's. Between: pool steps may go between C's chunks where its
/// writing steps are too few (CompileOptions::PoolsBetweenChunks).
/// G: channelGroup's.
unsigned stepsBeside(const LayerPlan &C, const LayerPlan &Q, unsigned G, bool Between,
                     bool ReadsC = true, bool Shared = false);

/// The channels of an output group at one pixel per trace (vMACs x lanes),
/// by which a layer's steps wait for the ones of the conv before them that
/// store the channels they read; 0 where they wait for whole rows of every
/// output group (CompileOptions::StartOnChannels off).
unsigned channelGroup(const isa::HwConfig &Hw, const CompileOptions &Opts);

/// Builds the ordered step list of a whole program (parities assigned).
std::vector<Step> makeSteps(const std::vector<LayerPlan> &Plans, const isa::HwConfig &Hw,
                            const CompileOptions &Opts);

/// Emits the whole program for Steps into E.
void emitProgram(Emitter &E, const std::vector<Step> &Steps, const isa::HwConfig &Hw,
                 const BufferMap &B, const CompileOptions &Opts);

} // namespace snow::compiler

#endif
