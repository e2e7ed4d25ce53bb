//===- LayerPlan.h - How one layer is broken down ------------------*- C++ -*-===//
//
// The types a layer's plan is made of: the buffer map every CU's maps
// buffer follows, tensors as a layer sees them in DRAM, the work of each CU
// in a round, and LayerPlan itself (chunks, tiles, output groups, trace
// modes, fusion). The planner that chooses a plan is Plan.h's; its methods
// are LayerPlan.cpp's.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_LAYERPLAN_H
#define SNOW_COMPILER_LAYERPLAN_H

#include "snow/compiler/Compiler.h"
#include "snow/ir/Graph.h"
#include "snow/isa/HwConfig.h"
#include "snow/isa/IsaConstants.h"
#include "llvm/Support/Error.h"
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace snow::compiler {

/// Partition of every CU's maps buffer (element addresses), fixed for a
/// program: two input regions and two output regions, each whole banks, so
/// the bank-level hazard rules see loads, compute and stores apart.
struct BufferMap {
  uint32_t InBase[2] = {0, 0}, InCap = 0;
  uint32_t OutBase[2] = {0, 0}, OutCap = 0;
  uint32_t WBase[2] = {0, 0}, WCap = 0; ///< Weights banks, in words.
  /// A fused depthwise / 1x1 pair (Fuse.cpp) uses only the first bank of
  /// each input region for the depthwise conv's maps (DwInCap elements),
  /// and the rest of one of them (MidOffset on, MidCap elements) for the
  /// depthwise output that the 1x1 conv reads. 0: no room to fuse.
  uint32_t DwInCap = 0, MidOffset = 0, MidCap = 0;
};

llvm::Expected<BufferMap> makeBufferMap(const isa::HwConfig &Hw);

/// A tensor in DRAM as one layer sees it: HWC int16 pixels of Stride
/// channels, of which this tensor is Channels [Offset, Offset + C). A concat's
/// inputs are views into the concat's tensor, so concatenation costs nothing.
struct TensorView {
  uint64_t Addr = 0;
  uint32_t W = 0;      ///< Pixels per row.
  uint32_t Stride = 0; ///< Channels per pixel in the underlying tensor.
  uint32_t Offset = 0; ///< First channel of this view.
  /// Bytes between two frames of a batched program's tensor (the frames of
  /// a tensor lie one after another; docs/batch.md).
  uint64_t FrameBytes = 0;
  /// The same view of frame F.
  TensorView frame(unsigned F) const {
    TensorView V = *this;
    V.Addr += F * FrameBytes;
    return V;
  }
  uint64_t at(uint64_t Y, uint64_t X, uint64_t C) const {
    return Addr + ((Y * W + X) * Stride + Offset + C) * 2;
  }
  bool dense(uint32_t C) const { return Offset == 0 && Stride == C; }
};

/// A run of a merged conv's output channels (ir canonicalize's sibling
/// merge): channels [Begin, Begin + Count) go to View's channels 0 on.
struct OutPiece {
  unsigned Begin = 0, Count = 0;
  TensorView View;
};

/// What one CU computes in a round: output-channel group Og of output tile
/// Tile (Tile < 0: the CU idles and its results are never stored).
struct Work {
  int Og = -1, Tile = -1;
  bool active() const { return Tile >= 0; }
  bool operator==(const Work &) const = default;
};

/// One round of a layer: every CU's work, run in lockstep. The trace loop
/// covers ExtR x ExtC output pixels, the largest valid extent among the
/// round's tiles, so a round of edge tiles costs only what they contain.
using isa::MaxCus; ///< CU masks have one bit per CU (Snow.td).
struct Round {
  std::array<Work, MaxCus> Cus{}; ///< CUs the machine does not have stay idle.
  unsigned ExtR = 0, ExtC = 0;
  /// A window producer's round whose CUs' windows differ in padding, not
  /// in extent (FuseWindows.cpp: windowRounds): each CU's region holds its
  /// whole window, padding included, ExtR x ExtC traced; the writeback
  /// puts every row in place and zeroes each CU's padding with vwbs the
  /// other CUs skip (Lowerer::windowWriteBack).
  bool Mixed = false;
  /// A Mixed round whose CUs trace only their windows' pixels inside the
  /// map, as rounds of one window shape do (ExtR x ExtC the largest of
  /// them), each CU's rows written back at its window's place by vwbs the
  /// others skip: the padding is zeroed, never computed
  /// (FuseWindows.cpp: clipMixedRound).
  bool Clipped = false;
  /// Whether each CU's region holds its whole window, padding included.
  bool wholeWindows() const { return Mixed && !Clipped; }
  unsigned pixels() const { return ExtR * ExtC; }
  /// The output group of the round's first active CU (0 if none is).
  unsigned firstOg() const {
    for (const Work &W : Cus)
      if (W.active())
        return unsigned(W.Og);
    return 0;
  }
};

/// How one conv or pooling layer is broken down.
struct LayerPlan {
  const ir::Layer *L = nullptr;
  unsigned Index = 0;
  bool IsConv = true;
  /// A max or average pool (a global one is an average pool by now).
  bool isPool() const {
    return L->Kind == ir::LayerKind::MaxPool || L->Kind == ir::LayerKind::AvgPool;
  }
  /// A pool reading its conv's windows laid out as its input region
  /// (FuseWindows.cpp: framedPoolReader): as a depthwise reader, each CU
  /// pools its own chunk (its output group), a step a round.
  bool framedPool() const { return isPool() && FromMid && Window.AreaCols; }
  /// Words after the kernel in a block that carries the bias: the bias word,
  /// then the activation table if the layer has one (vlut reads it).
  unsigned TailWords = 1;
  /// Words after the kernel in sub-block S's block that carries the bias:
  /// vlut reads the activation table from vMAC 0's words only, so only
  /// block 0 carries it (the other vMACs' weights keep its room unused).
  unsigned tailWords(unsigned S) const { return S == 0 ? TailWords : 1; }
  /// Tail words the Loads weight loads of one output group (loadingVmacs of
  /// a CU's Vmacs) move in all: those loading block 0 (one a pixel group
  /// without wpix, one with) the table too.
  unsigned ogTailWords(unsigned Loads, unsigned Vmacs) const {
    const unsigned WithTable = Loads / subBlocks(Vmacs);
    return WithTable * TailWords + (Loads - WithTable);
  }
  /// Depthwise conv on vdw: chunk c = output group c, pixel stride = group size.
  bool Depthwise = false;
  /// Grouped conv on vdw (Depthwise is set too): every group has GroupK input
  /// and GroupK output channels, and G % GroupK == 0, so output group c still
  /// reads exactly input chunk c. Each pixel takes passes() vdw traces; pass
  /// p reads the maps shifted by p - (GroupK - 1) channels, so lane o meets
  /// input channel o + shift, and the weight is zero where that channel is
  /// in another group. 1 for a depthwise conv (one pass, no shift).
  unsigned GroupK = 1;
  /// Grouped conv as a dense one in which output group c reads only the
  /// input chunks of its own groups' channels (chunks ogChunks(c)), so the
  /// multiplies by zero cross-group weights are those inside the output
  /// group only. For groups too wide for GroupK passes in a weights bank.
  bool GroupChunks = false;
  /// CUs that split each item's input chunks (cu_sum_writeback): every
  /// round is one item (output group, tile) on all Parts CUs, CU p tracing
  /// chunks partChunk(c, p) for its steps' chunks c < NChunks / Parts (all
  /// of one size), and one vwb with sum writes their partial sums added
  /// into CU 0, which stores them (Replan.cpp: planCuSums; docs/
  /// compiler.md, step 3). A map too small for a tile a CU keeps every CU
  /// busy so. 1: each CU traces all of its item's chunks.
  unsigned Parts = 1;
  /// The chunk CU Part traces in a step of chunk C (Parts > 1).
  unsigned partChunk(unsigned C, unsigned Part) const { return Part * (NChunks / Parts) + C; }
  /// Whether chunk C's weight blocks of output group Og carry a tail (the
  /// bias word, and the table): its first chunk's, a depthwise conv's
  /// every one, and with Parts each CU's first chunk's (vbias reads every
  /// CU's; the bias word is zero but in CU 0's).
  bool tailedChunk(unsigned C, unsigned Og) const {
    return C == ogChunks(Og).first || Depthwise || (Parts > 1 && C % (NChunks / Parts) == 0);
  }
  /// Elements of slack before (and after) the maps in the input region, so
  /// that shifted passes stay inside it: GroupK - 1. (Or, a block triple's
  /// copied stem on four banks, as many as its projection's output tile:
  /// the copy of its window in the second region lands in the second
  /// output region, past that tile; FuseBlocks.cpp.)
  unsigned InSkew = 0;
  /// Add, Mul or ReLU through the accumulators (vpre, vmul, vwb); chunks as
  /// Depthwise.
  bool Elementwise = false;
  /// Elementwise: whether the second operand is the first (a square, x * x):
  /// it is loaded once and both instructions read it.
  bool sameOperands() const { return L->Inputs.size() == 2 && L->Inputs[0] == L->Inputs[1]; }
  /// Conv whose kernel is one pixel wide and whose weights need several
  /// channel chunks: the input region holds every channel of its pixels, so
  /// the maps are loaded once for all chunks; chunk c's traces start at
  /// channel offset c * Chunk of each pixel.
  bool FullDepth = false;
  /// A full-depth depthwise producer of one group of tiles whose region
  /// holds its chunks one after another (each its own window at a pixel
  /// stride of Chunk), PerBank of them in each maps bank, not interleaved in
  /// every pixel: its chunks load as the layer before stores them, and a
  /// bank's chunks may be traced while the next bank's still load (a
  /// token a bank: Step::BankFull; docs/compiler.md, step 9b). 0: no.
  unsigned PerBank = 0;
  /// ... whose first step loads every chunk's weights (a depthwise block a
  /// chunk, one after another in its bank): its later chunks' weights do
  /// not queue behind the maps the layer before has yet to store.
  bool WeightsOnce = false;
  /// Where chunk C starts in such a region (elements; Bank: a maps bank's).
  uint32_t chunkOffset(unsigned C, uint32_t Bank) const {
    return C / PerBank * Bank + C % PerBank * chunkSpan();
  }
  /// One chunk's window in such a region.
  uint32_t chunkSpan() const { return RowsIn * ColsIn * Chunk + 2 * InSkew; }
  /// Where chunk C's weight block starts in its bank (WeightsOnce: blocks of
  /// kernel and tail one after another).
  uint32_t weightsOnceOffset(unsigned C) const { return C * (kernelWords(0) + TailWords); }
  /// A fused depthwise / 1x1 pair (Fuse.cpp): the depthwise plan writes its
  /// output tile back into the maps buffer's middle area (BufferMap::MidCap)
  /// at the 1x1 conv's pixel stride, its chunk at its channel offset, and
  /// stores nothing (ToMid); the 1x1 plans (one per layer that reads it),
  /// full depth, read that area instead of loading maps (FromMid). All have
  /// the same tiles, round after round: per group of CUs' tiles, the
  /// depthwise rounds (one per channel chunk), then each 1x1 conv's rounds
  /// (one per output group).
  bool ToMid = false, FromMid = false;
  /// A FromMid plan whose producer computes its input windows
  /// (LayerPlan::Window): a pool, or a depthwise conv that reads its
  /// windows in the area as from an input region (FuseWindows.cpp).
  bool ReadsWindow = false;
  /// A dense 1x1 conv as a fused pair's producer (Fuse.cpp): each output
  /// group's writeback goes to the output region and is stored, as any
  /// conv's (later layers and residuals read its tensor), and is written
  /// again into the area for the 1x1 convs after it (ResNet's block output
  /// and the next block's first conv).
  bool StoresToo = false;
  /// A fused producer that writes the area only and stores nothing (a
  /// depthwise conv or pool; a dense producer stores too).
  bool areaOnly() const { return ToMid && !StoresToo; }
  /// A block triple (FuseBlocks.cpp): a window pair's depthwise reader
  /// (FromMid, ReadsWindow) that is also ToMid writes each output group's
  /// tile MidOut elements into the area, pixels a lane group of the CU
  /// apart, instead of storing it; its 1x1 reader (FromMid, MidOut) reads
  /// that chunk there, one chunk a step, and accumulates its output over
  /// the chunks in accumulator entries from AccBase on, which the pair
  /// before it leaves alone (its bands use the AccLimit entries below:
  /// LayerPlan::accLimit). 0: no triple.
  uint32_t MidOut = 0;
  /// A block triple of one tile on CUs side by side (FuseBlocks.cpp:
  /// bestSplitTriple): the depthwise conv's round r writes its CUs' output
  /// groups MidSlot elements apart from MidOut on (slot r), and its 1x1
  /// reader, its input channels split over the CUs (Parts), reads the
  /// chunk of its step C in slot C, after every depthwise round. 0: one
  /// slot, read right after each round.
  uint32_t MidSlot = 0;
  /// Where a block triple's chunk C lies in the area (elements).
  uint32_t midChunkAt(unsigned C) const { return MidOut + C * MidSlot; }
  /// Elements a pixel of that tile takes in the area (the CU's lane groups;
  /// the 1x1 reader's chunk may be fewer channels: LayerPlan::pixelStride).
  /// On a concat's producer (ToMid, not FromMid; FuseConcat.cpp): the
  /// concat's channels, a pixel of the area its 1x1 readers read, of which
  /// this conv writes those from MidChannel on.
  unsigned MidPitch = 0, MidChannel = 0;
  /// One of the convs a concat joins, writing its channels of the area
  /// that the 1x1 convs reading the concat read (FuseConcat.cpp).
  bool concatProducer() const { return ToMid && !FromMid && MidPitch; }
  /// Whether this and plan Q are producers of one concat pair.
  bool sameConcat(const LayerPlan &Q) const {
    return concatProducer() && Q.concatProducer() && FusedWith == Q.FusedWith;
  }
  unsigned AccBase = 0, AccLimit = 0;
  /// Accumulator entries this plan's bands may use (from entry 0).
  unsigned accLimit(unsigned AccEntries) const { return AccLimit ? AccLimit : AccEntries; }
  /// The 1x1 reader of a block triple.
  bool readsMidOut() const { return MidOut && FromMid && !ToMid; }
  /// A fused pair of a depthwise producer and one 1x1 reader whose weight
  /// blocks all fit the weights buffer at once (WeightPack.h: pinWeights):
  /// each plan's first step loads its part, kept for the pair, instead of
  /// the reader's output groups again for each group of tiles (the
  /// producer's loads between the reader's took the other bank). Set on
  /// both plans.
  bool PinWeights = false;
  /// A window pair's producer (Window) whose depthwise reader's weights
  /// for each round load with its own, coReaderOffset() words into its
  /// bank (FuseWindows.cpp): the pair's next round loads into the other
  /// bank under both steps, where the reader's, in the other bank, left the
  /// producer's next blocks only the reader's short step to load under
  /// (EfficientNet-B0's 7x7 expansions of 1,152 channels, four groups'
  /// blocks a round). Every round changes the producer's output groups.
  bool CoWeights = false;
  /// Where a CoWeights producer's reader's blocks lie in its bank: past the
  /// producer's widest block (kernel, bias word and activation table).
  uint32_t coReaderOffset() const { return kernelWords(0) + TailWords; }
  /// A full-depth dense producer with a residual loads each group's
  /// residual tile (all its channels) into its input region after the maps,
  /// with them, while the group before runs its 1x1 steps, and vpre reads
  /// it there, not from the output region (Fuse.cpp).
  bool groupResidual() const { return StoresToo && FullDepth && L->HasResidual; }
  /// Where in the input region that residual tile starts: after the maps.
  unsigned residualOffset() const { return RowsIn * ColsIn * L->In.C; }
  /// A dense conv fused with the layer that alone reads it, a pool or a
  /// depthwise conv (FuseWindows.cpp): its tile T is the input window of the
  /// reader's tile T (ReaderWindow), inside the map (the reader's padding
  /// is not computed), written back into the area where the reader reads
  /// it, so neighbouring tiles overlap by the reader's kernel less its
  /// stride and compute those rows and columns twice. R 0: tiles of
  /// R x Wt side by side.
  struct ReaderWindow {
    unsigned R = 0, Wt = 0;      ///< The reader's output tile.
    unsigned KH = 1, KW = 1;     ///< Its kernel, ...
    unsigned SH = 1, SW = 1;     ///< ... strides, ...
    unsigned PadT = 0, PadL = 0; ///< ... padding ...
    unsigned OutH = 0, OutW = 0; ///< ... and output;
    unsigned InH = 0, InW = 0;   ///< its input (this layer's output).
    /// Pixels a row of the window takes in the area: a depthwise reader's
    /// ColsIn (its region layout); 0: the round's columns, rows back to
    /// back (a pool's). A pool reading such a layout (framed, its padding
    /// in the window: FuseWindows.cpp) has its own ColsIn here.
    unsigned AreaCols = 0;
    /// The reader's window of tile T (rows or columns [Lo, Hi) of this
    /// layer's output, Lo < 0 or Hi > In in its padding), along one axis:
    /// Block the tile's row or column block.
    std::pair<int, int> span(unsigned Block, bool Rows) const {
      const unsigned N = Rows ? R : Wt, Out = Rows ? OutH : OutW;
      const unsigned S = Rows ? SH : SW, K = Rows ? KH : KW;
      const int Lo = int(Block * N * S) - int(Rows ? PadT : PadL);
      return {Lo, Lo + int((std::min(N, Out - Block * N) - 1) * S + K)};
    }
  } Window;
  /// Tile T's reader window (LayerPlan::Window): the rows and columns of
  /// padding on each side of the map, and its extent.
  struct WindowShape {
    unsigned Top = 0, Bottom = 0, Height = 0, Left = 0, Right = 0, Width = 0;
    bool operator==(const WindowShape &) const = default;
  };
  WindowShape windowShape(unsigned T) const;
  /// Some round's CUs have windows of different padding (Round::Mixed).
  bool mixedRounds() const {
    return std::any_of(Rounds.begin(), Rounds.end(), [](const Round &Rd) { return Rd.Mixed; });
  }
  /// Some such round's CUs trace only their windows' pixels inside the map
  /// (Round::Clipped).
  bool clippedRounds() const {
    return std::any_of(Rounds.begin(), Rounds.end(), [](const Round &Rd) { return Rd.Clipped; });
  }
  unsigned rowBlock(unsigned T) const { return T % tilesPerFrame() / NColBlocks; }
  unsigned colBlock(unsigned T) const { return T % NColBlocks; }
  /// The first output row and column of tile T (of its frame).
  unsigned tileY0(unsigned T) const {
    if (Window.R)
      return unsigned(std::max(0, Window.span(rowBlock(T), true).first));
    if (!EvenRows)
      return rowBlock(T) * R;
    const unsigned Q = L->Out.H / NRowBlocks, Rest = L->Out.H % NRowBlocks, B = rowBlock(T);
    return B * Q + std::min(B, Rest);
  }
  unsigned tileX0(unsigned T) const {
    return Window.R ? unsigned(std::max(0, Window.span(colBlock(T), false).first))
                    : colBlock(T) * Wt;
  }
  /// The depthwise layer of the fused pair (-1: not fused), and for a 1x1
  /// plan the ordinal of that layer (Compiler.cpp).
  int FusedWith = -1, ProducerOrdinal = -1;
  /// Rounds were packed by tile size and may give the CUs of one round
  /// different output-channel groups (workload balancing; for --emit=plan).
  bool Balanced = false;
  /// Some round gives CUs different output groups of one tile.
  bool SplitChannels = false;
  /// Multi-pixel traces (vmacp): the vMACs of a CU form 2^PixLog groups, each
  /// computing its own pixel, so an output group has vmacs x lanes / 2^PixLog
  /// channels and an accumulator entry holds 2^PixLog consecutive pixels of a
  /// row. Layers with few output channels keep every lane busy this way.
  unsigned PixLog = 0;
  /// Multi-pixel traces on plain vmac, for machines whose vMACs share one
  /// maps read address (maps_read_ports < pix(), where a vmacp step takes
  /// several cycles): every pixel group reads one widened window of
  /// traceCols() = KW + (pix() - 1) x-steps per kernel row (the pixels'
  /// windows overlap), and group g's weights are its kernel shifted g x-steps
  /// along it, zero elsewhere. Entries, tiles and stores are vmacp's.
  bool Wide = false;
  /// Multi-pixel traces (PixLog 1) whose two pixel groups each read a bank
  /// of their own (maps_ports_per_bank), a step a cycle on one read port per
  /// bank: a fused pair's area holds the tile's even columns in its first
  /// bank and its odd columns at the same offsets in its second (the
  /// depthwise producer, also Banked, traces a band's even columns, then its
  /// odd ones, and writes each half back with one vwb). Entries, tiles and
  /// stores are vmacp's.
  bool Banked = false;
  /// A banked area spans 2^BankLog banks, column x of a tile at column
  /// x >> BankLog of bank x mod 2^BankLog: two (pixel pairs), or four where
  /// the readers trace four pixels a step (a 16-channel 1x1 conv; the area
  /// then straddles both input regions).
  unsigned BankLog = 1;
  unsigned bankSides() const { return Banked ? 1u << BankLog : 1; }
  /// A banked writer's entries in each bank of a row ExtC columns wide (a
  /// quarters reader's entry holds two of its bank's pixels, x and x + 4).
  unsigned bankEntries(unsigned ExtC) const {
    return ExtC / bankSides() >> (readsQuarters() ? 1 : 0);
  }
  /// A plan of a fusion whose area straddles both input regions (four
  /// banks): from the first region's second bank into the second region,
  /// whose last bank holds the fusion's maps loaded there (Lowerer::
  /// midBase, inBase); the fusion's last step frees both regions
  /// (Sequence.cpp, Step::FreeOther).
  bool Straddles = false;
  /// Multi-pixel traces (PixLog 1) on vmacp whose second pixel group reads
  /// a copy of the input region shifted by one output column (bufStrideX()
  /// pixels), CopyBanks banks after the region's first, so that each group
  /// reads a bank of its own (maps_ports_per_bank), a step a cycle, over the
  /// kernel's own width: a 3-channel stride-2 stem traces 27 steps for two
  /// pixels where Wide traces take 45. Once the region has loaded, the
  /// compute unit writes the copy with one-tap vmax windows, poolWords lane
  /// words a cycle (Lowerer::copyRegion). 0: no copy.
  unsigned CopyBanks = 0;
  /// A stride-2 depthwise conv on pixel pairs (PixLog 1, 32-channel chunks)
  /// and the producer that computes its windows (a copied expansion or
  /// stem of a block triple or window pair: FuseBlocks.cpp,
  /// FuseWindows.cpp). Output pixels o and o + 1 read input
  /// columns two apart, which vdw's second pixel group (its vMACs past the
  /// first half, a pixel's channels past the first group's) can only read
  /// where each window row holds its even columns, then its odd ones
  /// (phasePixels() each): column x at x / 2 of half x mod 2, so that two
  /// columns apart are a pixel apart. The depthwise conv traces each entry
  /// twice, over its even kernel columns, then its odd ones (its weights
  /// packed so); the producer computes columns x and x + 2 an entry (its
  /// copy shifted two pixels), a row's half-0 entries (x mod 4 = 0) in
  /// turn, then its half-1 ones, and writes each half with one vwb.
  bool Halves = false;
  /// A stride-1 depthwise conv on pixel pairs (one 32-channel chunk) whose
  /// output a projection reads four pixels a step from four banks (a block
  /// triple's: FuseBlocks.cpp), and the copied producer that computes its
  /// windows. An entry of the projection's input holds pixels x and x + 4
  /// (x mod 8 < 4) in bank x mod 4, so the depthwise conv computes those
  /// two a trace: its windows' rows hold their columns by x mod 4 (four
  /// quarters of phasePixels() each, column x at x / 4 of quarter x mod 4),
  /// so that four columns apart are a pixel apart. The depthwise conv
  /// traces an entry's kernel columns a run of quarters at a time (a run
  /// ends where the next column wraps to quarter 0, a pixel on: one or two
  /// traces an entry), its weights packed so for each quarter it starts
  /// in; the producer computes columns x and x + 4 an entry (its copy
  /// shifted four pixels), a quarter at a time, and writes each quarter
  /// with one vwb (as Halves, with four phases).
  bool Quarters = false;
  bool readsHalves() const { return Halves && Depthwise; }
  bool readsQuarters() const { return Quarters && Depthwise; }
  /// A quarters reader's first run of kernel columns for the entries of
  /// bank Side: [0, quarterRun) from quarter Side on, the rest (a second
  /// trace) from quarter 0 a pixel on.
  static unsigned quarterRun(unsigned KW, unsigned Side) { return std::min(KW, 4 - Side); }
  /// A producer writing its windows in phases (Halves: 2, Quarters: 4).
  unsigned phases() const { return Quarters ? 4 : Halves ? 2 : 1; }
  bool writesPhases() const { return (Halves || Quarters) && !Depthwise; }
  /// A producer's entries in phase Side of N of a row of a round ExtC
  /// columns wide (its windows' width: tripleRounds, windowRounds):
  /// columns Side, Side + 2N, ... each with the one N over.
  static unsigned phaseEntries(unsigned N, unsigned Side, unsigned ExtC) {
    return Side < ExtC ? (ExtC - Side + 2 * N - 1) / (2 * N) : 0;
  }
  /// Pixels of each phase of a window row: the entries of the widest window's
  /// first phase (the depthwise conv's ColsIn columns; the producer's area
  /// rows, Window.AreaCols, are phases() phases), so no entry runs past its
  /// phase; and a window row's pixels in the area.
  unsigned phasePixels() const {
    return writesPhases() ? Window.AreaCols / phases() : 2 * phaseEntries(phases(), 0, ColsIn);
  }
  unsigned areaRowPixels() const { return phases() > 1 ? phases() * phasePixels() : ColsIn; }
  /// A producer's entries in all phases of a row ExtC columns wide.
  unsigned phasesEntries(unsigned ExtC) const {
    unsigned N = 0;
    for (unsigned Side = 0; Side < phases(); ++Side)
      N += phaseEntries(phases(), Side, ExtC);
    return N;
  }
  /// Elements of a region of Stride-element pixels the copy moves (the
  /// tile's window, whole rows; a vmax's width more is read past it and
  /// written past the copy), and how far the copy is shifted.
  uint64_t copyElems(unsigned Stride) const { return uint64_t(RowsIn) * ColsIn * Stride; }
  unsigned copyShift(unsigned Stride) const { return phases() * bufStrideX() * Stride; }
  /// Elements one copying vmax moves (the pooling unit's width), and how
  /// many copy a region of Stride-element pixels.
  static unsigned copyWidth(const isa::HwConfig &Hw) { return Hw.poolWords() * Hw.LanesPerVmac; }
  uint64_t copyVmaxes(unsigned Stride, const isa::HwConfig &Hw) const {
    return (copyElems(Stride) + copyWidth(Hw) - 1) / copyWidth(Hw);
  }
  /// Whether a copied region and its copy, each a vmax's width longer, lie
  /// in one bank each.
  bool copyFits(unsigned Stride, const isa::HwConfig &Hw) const {
    return copyElems(Stride) + copyShift(Stride) + copyWidth(Hw) <= Hw.mapsBankElems();
  }
  /// Each pixel group reads a maps bank of its own.
  bool ownBanks() const { return Banked || CopyBanks; }
  /// A Banked plan reads a banked region or area (a 1x1 conv), or writes a
  /// banked area (the depthwise producer of a fused pair).
  bool readsBanked() const { return Banked && !ToMid; }
  bool writesBanked() const { return Banked && ToMid; }
  /// The output channels this plan computes: a layer may be planned in two
  /// parts, whole output groups and a remainder with another PixLog, or
  /// (RestTiles, on the second part) the output groups of whole rounds of
  /// CUs and the rest on tiles of their own (CompileOptions::RemainderTiles).
  unsigned OcBase = 0, OcCount = 0;
  bool FirstPart = true, LastPart = true, RestTiles = false;
  /// The output is a channel slice of a concat's tensor, or pieces
  /// (Pieces): its pixels are not contiguous in DRAM.
  bool OutIsSlice = false;
  /// The region holds every StepY-th row / StepX-th column of the input (1x1
  /// strided convs without padding gather only the pixels the kernel reads).
  unsigned StepY = 1, StepX = 1;
  /// Position of this layer among the layers that have code (they signal
  /// LayerDone in this order), and the position of the latest of them whose
  /// output this layer reads (-1: only the graph input). Its loads wait until
  /// that layer's stores are done, and no longer.
  int Ordinal = 0, NeedsDone = -1;
  TensorView In, Out, Res; ///< Res: the fused residual's tensor (conv only).
  /// A depthwise conv that averages its tiles for the pool it hosts
  /// (hostBlock): the side of the blocks, and the pool's tensor. Its tiles
  /// are whole blocks, and each round's means follow its tile in the output
  /// region (blockMeansAt).
  unsigned PoolBlock = 0;
  TensorView PoolOut;
  unsigned PoolMult = 0, PoolShift = 0; ///< The pool's vavg scaling (ir::Layer::AvgMult).
  /// Where the block means of a round of ExtR x ExtC output pixels start in
  /// the output region (elements past its base): after the tile's entries.
  uint32_t blockMeansAt(unsigned ExtR, unsigned ExtC, unsigned G) const {
    return ExtR * ExtC * ogChannels(G);
  }
  /// Output-region elements a tile of R x Wt takes with its block means
  /// (its rows a whole number of entries: pix() pixels each).
  uint64_t outElems(unsigned R, unsigned Wt, unsigned G) const {
    const uint64_t Cols = (Wt + pix() - 1) / pix() * pix();
    const uint64_t Blocks = PoolBlock ? uint64_t(R / PoolBlock) * (Cols / PoolBlock) : 0;
    return (R * Cols + Blocks) * ogChannels(G);
  }
  TensorView In2; ///< Second operand of an elementwise add.
  /// A conv merged from siblings has no tensor of its own: its stores write
  /// these pieces (empty: every channel goes to Out).
  std::vector<OutPiece> Pieces;
  /// A conv reading a concat laid out input by input (CompileOptions::
  /// BlockedConcats): channels [Begin, Begin + Count) of its input are
  /// View's channels 0 on, each input's tensor (empty: In holds them all).
  std::vector<OutPiece> InPieces;

  // Channel chunks: conv splits input channels (weights bank capacity),
  // pooling splits channels (buffer capacity). Chunk c covers channels
  // [c * Chunk, min(C, (c + 1) * Chunk)).
  unsigned Chunk = 0, NChunks = 1;
  // Output tile: R rows x Wt columns (a grid over the output; edge tiles are
  // smaller); the input region it reads (with multi-pixel traces, a row of
  // roundUp(Wt, pix()) pixels).
  unsigned R = 1, Wt = 1, RowsIn = 1, ColsIn = 1;
  unsigned NRowBlocks = 1, NColBlocks = 1, NTiles = 1;
  /// Row blocks of sizes within one of each other (the first H mod N one
  /// row taller), not R rows each and a shorter last one: the rounds of
  /// the last tiles then have no CUs idling on short tiles (tileY0,
  /// validRows).
  bool EvenRows = false;
  /// Frames of a batched program this plan runs (docs/batch.md): tile T is
  /// tile T % tilesPerFrame() of frame T / tilesPerFrame(), so rounds, loop
  /// order and the cost model see the batch's tiles as one layer's, and a
  /// kernel-stationary plan loads each kernel chunk once for every frame.
  /// Layers whose frames stack exactly (Compiler.cpp) run as one frame of
  /// stacked rows instead.
  unsigned Frames = 1;
  /// A layer with run-time weights (Dynamic) has other weights in every
  /// frame of a batch: it runs as one part per frame (Frames 1), part F
  /// over frame F of its tensors and of the weights' tensor.
  unsigned FrameShift = 0;
  bool PerFrame = false; ///< One of those per-frame parts.
  unsigned tilesPerFrame() const { return NRowBlocks * NColBlocks; }
  unsigned frameOf(unsigned T) const { return T / tilesPerFrame(); }
  /// A 1x1 conv planned on its map as one row of H x W pixels (Replan.cpp:
  /// planFlatPointwise): DRAM holds a map's pixels in order whatever the
  /// channel slice, so a tile may be any run of them, and a small map's
  /// pixels split evenly over the CUs (a 7x7 map as four runs of 13, 13, 13
  /// and 10 pixels, not tiles of 14, 14, 14 and 7). L is then Flat, a copy
  /// of the layer whose maps are 1 x (H x W); FlatW is the map's own width
  /// (0: not flattened), by which row signals map a run of pixels to the
  /// rows of the map it covers (RowSignals.cpp).
  unsigned FlatW = 0;
  std::shared_ptr<const ir::Layer> Flat;
  /// Rows [first, second) of the map (of all frames, frame after frame)
  /// that tile T's output pixels cover.
  std::pair<size_t, size_t> outRows(unsigned T) const;
  /// Rows [first, second) of a flattened map that its pixels [X0, X1)
  /// cover.
  std::pair<size_t, size_t> flatRows(size_t X0, size_t X1) const {
    return {X0 / FlatW, (X1 + FlatW - 1) / FlatW};
  }
  unsigned NOg = 1; ///< Conv: output-channel groups of vMACs x lanes.
  /// Tile-major rounds (maps stay while output groups change) rather than
  /// output-group-major (kernels stay while tiles change).
  bool MapStationary = false;
  /// A pooling layer that runs its steps beside the conv planned just before
  /// it (that conv's layer index; -1: none), as that conv stores the rows
  /// they read, or from the start if it reads older layers only
  /// (PipelinePools.cpp: pipelineOrder; RowSignals.cpp: pipeline).
  int BesideOf = -1;
  /// Such a pool's estimate there (pipelineOrder; reported, not planned
  /// on): its windows, and the steps that run after the conv's last, whose
  /// rows that step stores, as they would alone. 0: its windows only.
  uint64_t BesideCycles = 0;
  /// A pool beside a conv whose steps share the conv's input region
  /// (PipelinePools.cpp): each step's maps go at this element offset (whole
  /// banks past every step of the conv's maps), so a pool step between two
  /// conv steps leaves the other region to the conv's next step
  /// (Sequence.cpp: Step::SharesRegion). 0: the pool's steps take regions
  /// of their own.
  uint32_t ShareOffset = 0;
  std::vector<Round> Rounds; ///< In execution order.
  int16_t PadValue = 0;

  // Conv weights: DRAM address of block (og, chunk, vmac) and its words.
  std::vector<uint64_t> WAddr;
  std::vector<uint32_t> WWords;
  /// Run-time weights (ir::Layer::DynamicWeights): each block is one word of
  /// the weight tensor s in DRAM (WAddr) and a zero bias word at ZeroWord,
  /// loaded by one two-row ld.wgt; the loads wait for s like maps do.
  bool Dynamic = false;
  uint64_t ZeroWord = 0;

  // Estimates from the cost model (for --emit=plan and the ablation docs).
  uint64_t EstCycles = 0, EstDramBytes = 0;
  /// Channel cycles the layer before leaves for this plan's first weights:
  /// they load into the weights bank its last step does not use, under that
  /// step (Replan.cpp). Unknown (as planned first) counts as enough.
  uint64_t PrefetchWindow = UINT64_MAX;

  unsigned pix() const { return 1u << PixLog; }
  /// The columns a round's traces take together: pix() pixels a trace, or
  /// a column in each bank where the plan reads or writes a banked area (a
  /// fused pair's producer traces all of them: past a tile width that is
  /// not a multiple of the banks, padding columns whose windows run
  /// bankedOverrun() elements past its region's row).
  unsigned colGranule() const { return Banked ? bankSides() : pix(); }
  /// How far a banked producer's padding columns (colGranule) read past
  /// the end of its region's last row, where its tiles' width is not a
  /// multiple of the banks: its region keeps that much room after it
  /// (Fuse.cpp).
  unsigned bankedOverrun(unsigned Stride) const {
    const unsigned Sides = bankSides(), Odd = Wt % Sides;
    return writesBanked() && Odd ? (Sides - Odd) * bufStrideX() * Stride : 0;
  }
  /// vdw traces per pixel of a depthwise / grouped-vdw plan.
  unsigned passes() const { return 2 * GroupK - 1; }
  /// Output rows of round Rd traced and written back at once: all of them,
  /// or for a depthwise tile, or a window producer's tile (one channel
  /// chunk), larger than the accumulators (AccEntries) as many whole rows
  /// as fit them (Lowerer::compute's bands).
  unsigned bandRows(const Round &Rd, unsigned AccEntries) const {
    // An entry holds pix() pixels of a row.
    const unsigned RowEntries = writesPhases() ? phasesEntries(Rd.ExtC) : Rd.ExtC >> PixLog;
    return (Depthwise || Window.R) && Rd.ExtR * RowEntries > AccEntries ? AccEntries / RowEntries
                                                                        : Rd.ExtR;
  }
  /// Output channels of one output group for a machine of G = vmacs x lanes.
  unsigned ogChannels(unsigned G) const { return G >> PixLog; }
  /// Weight blocks per (output group, chunk): one per vMAC of a pixel group
  /// (the groups share them), or with Wide one per vMAC.
  unsigned subBlocks(unsigned Vmacs) const { return Wide ? Vmacs : Vmacs >> PixLog; }
  /// ld.wgt's wpix for this plan's weight blocks: with wpix_loads one load
  /// writes vMAC v of every pixel group, which share its block; 0 where each
  /// vMAC loads its own (one pixel a trace, Wide's shifted kernels, or a
  /// machine without wpix_loads).
  unsigned weightsWpix(const isa::HwConfig &Hw) const { return Hw.WpixLoads && !Wide ? PixLog : 0; }
  /// The vMACs of a CU whose loads carry an output group's blocks.
  unsigned loadingVmacs(const isa::HwConfig &Hw) const { return Hw.VmacsPerCu >> weightsWpix(Hw); }
  /// Weight words one output group's loads move for a chunk of KernelWords
  /// a block, with the tail words (bias, table) if Tail.
  uint64_t ogLoadWords(uint64_t KernelWords, bool Tail, const isa::HwConfig &Hw) const {
    const unsigned N = loadingVmacs(Hw);
    return uint64_t(N) * KernelWords + (Tail ? ogTailWords(N, Hw.VmacsPerCu) : 0);
  }
  /// Kernel columns a trace row covers (Wide: the pixel groups' windows).
  unsigned traceCols() const { return L->KW + (Wide ? (pix() - 1) * bufStrideX() : 0); }
  unsigned chunkBegin(unsigned C) const { return C * Chunk; }
  /// The input chunks output group Og reads: all of them, or with
  /// GroupChunks those of its own channels, [first, second).
  std::pair<unsigned, unsigned> ogChunks(unsigned Og) const {
    if (Parts > 1)
      return {0, NChunks / Parts};
    if (!GroupChunks)
      return {0, NChunks};
    return {Og * OgSpan, std::min(NChunks, (Og + 1) * OgSpan)};
  }
  /// GroupChunks: chunks per output group (its G channels / Chunk).
  unsigned OgSpan = 1;
  /// (0 for a chunk past the channels: a split triple's last, Parts.)
  unsigned chunkSize(unsigned C, unsigned Total) const {
    return C * Chunk >= Total ? 0 : std::min(Total, (C + 1) * Chunk) - C * Chunk;
  }
  /// Elements between two pixels in the buffer for chunk C.
  unsigned pixelStride(unsigned C, unsigned Lanes) const;
  /// Elements of its input region that a step of this conv or pool uses at
  /// most (the first chunk is the widest). Not for elementwise plans.
  uint64_t inputElems(unsigned Lanes) const;
  /// Kernel words per weight block of chunk C (without the bias word).
  unsigned kernelWords(unsigned C) const;
  /// Output rows and columns of tile T that exist (edge tiles are smaller).
  unsigned validRows(unsigned T) const;
  unsigned validCols(unsigned T) const;
  /// Output-pixel steps inside the buffer region.
  unsigned bufStrideY() const { return L->SH / StepY; }
  unsigned bufStrideX() const { return L->SW / StepX; }
  /// The weight block vMAC V loads for output group Og, chunk C.
  unsigned wIndex(unsigned Og, unsigned C, unsigned V, unsigned Vmacs) const {
    return (Og * NChunks + C) * subBlocks(Vmacs) + V % subBlocks(Vmacs);
  }
};

/// Candidate output tiles (rows x cols) with at most PMax pixels. For each
/// number of row blocks and of column blocks only the smallest tile that
/// reaches it is kept: a taller or wider tile with as many blocks only adds
/// pixels that do not exist.
std::vector<std::pair<unsigned, unsigned>> tileShapes(unsigned Hout, unsigned Wout, unsigned PMax);

/// Fills the tile fields of P for shape (R, Wt), in row blocks of R rows
/// (EvenRows off); false if the input region (Stride elements a pixel, Extra
/// more; a depthwise conv reading phases, rows of areaRowPixels()) does not
/// fit B's.
bool setTile(LayerPlan &P, unsigned R, unsigned Wt, unsigned Stride, unsigned Extra,
             const BufferMap &B);

} // namespace snow::compiler

#endif // SNOW_COMPILER_LAYERPLAN_H
