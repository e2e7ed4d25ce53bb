//===- Lowerer.h - The code of one step --------------------------*- C++ -*-===//
//
// Emits the instructions of one step: its loads (weights, maps with their
// padding fills, a fused residual), its compute (trace, pooling or
// elementwise loops, bias, writeback) and its stores, with the semaphores of
// the double-buffering protocol (Lower.h). Sequence.cpp decides in which
// order the steps' parts are emitted. Defined in Lower.cpp (compute and
// writeback), LowerWindows.cpp (a window producer's writeback),
// LowerMoves.cpp (loads and stores) and LowerDma.cpp (the DMA operations
// and fills). Internal to snow_compiler.
//
// Register use in the emitted code:
//   r1, r2   DRAM and buffer addresses of the DMA operation being issued
//   r3       weights bank base          r4   entry (accumulator) counter
//   r5       input row base             r6   input window pointer
//   r7       end of the current row     r8   end of the loop
//   r9       pooling (or copy) result pointer   r10, r11  lane-group loop
//   r12      bias word address          r13  DMA loop counter
// Loads never touch r3-r12, so the next step's loads can be emitted between
// (and inside) the compute loops of another step.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_LOWERER_H
#define SNOW_COMPILER_LOWERER_H

#include "Lower.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <algorithm>
#include <utility>
#include <vector>

namespace snow::compiler {

/// The CU mask of every distinct value Key(work) among a round's active
/// CUs, in order of first appearance.
template <typename KeyFn> auto distinctMasks(const Round &Rd, KeyFn Key) {
  std::vector<std::pair<decltype(Key(Rd.Cus[0])), uint32_t>> Out;
  for (unsigned Cu = 0; Cu < Rd.Cus.size(); ++Cu) {
    if (!Rd.Cus[Cu].active())
      continue;
    const auto K = Key(Rd.Cus[Cu]);
    auto It = std::find_if(Out.begin(), Out.end(), [&](auto &E) { return E.first == K; });
    if (It == Out.end())
      Out.push_back({K, 1u << Cu});
    else
      It->second |= 1u << Cu;
  }
  return Out;
}

/// Where one CU's tile of a step lies, in output and input coordinates.
struct TileGeom {
  bool Active = false;
  unsigned Frame = 0;                        ///< Of a batch (LayerPlan::Frames).
  unsigned OY0 = 0, OX0 = 0, VR = 0, VC = 0; ///< Output origin and valid extent.
  int IY0 = 0, IX0 = 0;                      ///< Input origin of the region (may be < 0).
  unsigned Y0 = 0, Y1 = 0, X0 = 0, X1 = 0;   ///< Region rows/cols inside the input.
};

/// Tile's geometry; Whole, a window producer's region holding the input
/// of the tile's whole window, padding included (Round::Mixed: region row
/// y holds the input of window row y, y S - Pad on; the rows and columns
/// outside the map filled).
TileGeom geometry(const LayerPlan &P, int Tile, bool Whole = false);

using isa::Inst;

/// A vpre or vwb of Rows accumulator entries: accumulators from entry 0 (r4)
/// to or from the maps at r9, entries Bstride apart.
inline Inst accMove(isa::Opcode Op, uint32_t Rows, uint32_t Bstride) {
  Inst I;
  I.Op = Op;
  I.rs1 = 4;
  I.rs2 = 9;
  I.rows = Rows;
  I.bstride = Bstride;
  return I;
}
using isa::Opcode;
using isa::Unit;

class Lowerer {
public:
  Lowerer(Emitter &E, const isa::HwConfig &Hw, const BufferMap &B, bool DmaLoops)
      : E(E), Hw(Hw), B(B), NCu(Hw.cus()), Lanes(Hw.LanesPerVmac), V(Hw.VmacsPerCu), G(V * Lanes),
        AllMask((1u << NCu) - 1), DmaLoops(DmaLoops) {}

  void loadWeights(const Step &S) { loadWeightsPart(S, 0, 1); }
  /// Part Part of NParts of step S's weights load, its blocks split in
  /// order: the bank's WFree wait with the first part, its WFull with the
  /// last (EmitProgram.cpp spreads a layer's first weights over the steps
  /// of the layer before that leave their bank free).
  void loadWeightsPart(const Step &S, unsigned Part, unsigned NParts);
  /// A pinned pair's weights (producer D, reader P) into Bank, behind its
  /// WFree: the reader's part (Big) or the producer's.
  void loadPinnedWeights(const LayerPlan &D, const LayerPlan &P, unsigned Bank, bool Big);
  /// Bytes loadWeights(S) moves.
  uint64_t weightBytes(const Step &S) const;
  /// Weight blocks (DMAs) loadWeights(S) issues.
  unsigned weightBlocks(const Step &S) const;
  void loadMaps(const Step &S);
  /// Part Part of NParts of step S's maps (a full-depth producer's group of
  /// tiles, or a conv's round): the region's waits with the first, its
  /// InFull with the last, the round's tiles split in order between them
  /// (EmitProgram.cpp spreads them over the steps before).
  void loadMapsPart(const Step &S, unsigned Part, unsigned NParts);
  /// A full-depth fused producer's load (LayerPlan::FullDepth, ToMid), one
  /// chunk: the region's waits and padding with chunk 0, its InFull (and
  /// Step::TakeMid) with the last.
  void loadMapsChunk(const Step &S, unsigned Ch);
  /// Chunk Ch of a region of chunks one after another (LayerPlan::PerBank),
  /// at its place, and the bank's InFull after its last chunk where the
  /// compute unit takes a token a bank (Step::BankFull).
  void loadRegionChunk(const Step &S, unsigned Ch);
  /// The waits before step S's maps load: the layers it reads (LayerDone),
  /// their rows (RowsDone), its input region (InFree).
  void waitForRegion(const Step &S);
  /// After step S's maps: its InFull, and for the first step of a full-depth
  /// pair that takes its area's region (Step::TakeMid), that region's InFree.
  void regionLoaded(const Step &S);
  /// OnlyChunk >= 0: of a full-depth region, that chunk's channels only
  /// (at their offset), and the padding with chunk 0.
  /// Tiles [TileFrom, TileTo) of the round's distinct tiles only.
  void loadRegion(const Step &S, const TensorView &View, uint32_t Base, int OnlyChunk = -1,
                  unsigned TileFrom = 0, unsigned TileTo = ~0u);
  void loadResidual(const Step &S);
  /// A dense producer's residual tile of every output channel, for each
  /// CU, at Base of its input region (LayerPlan::groupResidual).
  void loadGroupResidual(const Step &S, uint32_t Base);
  /// Emits step S's compute; Mid (the next step's loads, or their tail) goes
  /// half way through its trace loop, or before it if the loop is too short.
  void compute(const Step &S, const Emitter::Block *Mid = nullptr);
  void store(const Step &S);

  /// Safe places to cut the code emitted since the last resetCuts() (not
  /// inside a loop), with the unit operations the program executes before
  /// each: (pc, operations).
  void resetCuts() { Cuts.clear(), Ops = 0; }
  const std::vector<std::pair<uint32_t, uint64_t>> &cuts() const { return Cuts; }
  uint64_t ops() const { return Ops; }

private:
  /// Fn(plan, weight block, vMAC, CU mask, word offset in the bank) for each
  /// load of step S's weights (and a co-located reader's: Step::CoReader).
  void forEachWeightBlock(
      const Step &S,
      llvm::function_ref<void(const LayerPlan &, unsigned, unsigned, uint32_t, uint32_t)> Fn) const;
  void outputSlice(const Step &S, unsigned Cu, unsigned &Chan0, unsigned &NCh,
                   unsigned &Entry) const;
  /// Block > 1: the block means of a pool the plan hosts instead
  /// (LayerPlan::PoolBlock), a pixel a Block x Block block of the tile.
  void tileRuns(const Step &S, const TensorView &V, Opcode Op, unsigned First = 0,
                unsigned Count = ~0u, unsigned Block = 1);
  /// Wpix: an ld.wgt's wpix (vMAC Idx of every pixel group).
  void dma(Opcode Op, uint64_t Dram, uint32_t Buf, unsigned Idx, unsigned Rows, unsigned Len,
           int64_t DStride, uint32_t BStride, uint32_t Mask, unsigned Wpix = 0);
  /// N DMA operations whose addresses advance by DStep bytes and BStep
  /// elements: a control-core loop when N is large (compact code), else N
  /// operations.
  void dmaSeries(unsigned N, int64_t DStep, int64_t BStep, Opcode Op, uint64_t Dram, uint32_t Buf,
                 unsigned Idx, unsigned Rows, unsigned Len, int64_t DStride, uint32_t BStride,
                 uint32_t Mask);
  void cut() { Cuts.push_back({E.pc(), Ops}); }
  /// A window producer's writeback (LayerPlan::Window with AreaCols):
  /// rows of a band to their places in its reader's window, and, after the
  /// last band, zeros in the window's padding.
  void windowWriteBack(const Step &S, unsigned RowBegin, unsigned Rows);
  /// The writeback Wb of output rows [RowBegin, RowBegin + Rows) again,
  /// into the next conv's input region (Step::FeedBuf; FeedNext.cpp); At:
  /// the rows' offset in the output region.
  void feedWriteBack(const Step &S, const Inst &Wb, unsigned RowBegin, unsigned Rows, uint32_t At);
  /// A host's block means (LayerPlan::PoolBlock): after its tile is written
  /// back, a vavg a block and run of pooling-unit words over the output
  /// region, into the means' place after the tile (blockMeansAt).
  void blockMeans(const Step &S);
  /// Where a fused pair's depthwise output lies (Step::MidBuf).
  uint32_t midBase(const Step &S) const;
  /// Where step S's bias word lies (the activation table after it): after
  /// its kernel block, or where a pinned pair keeps it (Step::TailBank).
  uint32_t tailAddr(const Step &S) const;
  /// Where step S's maps lie (Step::InBuf, InOffset).
  uint32_t inBase(const Step &S) const;
  void fill(uint32_t Buf, unsigned Rows, unsigned Len, uint32_t BStride, uint32_t Mask,
            int16_t Value);
  /// The traces of step S over output rows [RowBegin, RowBegin + Rows) of
  /// its round (Rows 0: all), into accumulator entries from 0.
  void convLoop(const Step &S, const Emitter::Block *Mid, unsigned RowBegin = 0, unsigned Rows = 0);
  /// The writeback of output rows [RowBegin, RowBegin + Rows) of step S's
  /// round from accumulator entries 0 on (a fused residual preloaded first).
  void writeBack(const Step &S, unsigned RowBegin, unsigned Rows);
  void poolLoop(const Step &S, const Emitter::Block *Mid);
  /// The copy of step S's input region its second pixel group reads
  /// (LayerPlan::CopyBanks).
  void copyRegion(const Step &S);
  /// loadRegion of a LayerPlan::Banked plan: channels [C0, C0 + Cn) of the
  /// even columns into the region's first bank, of the odd ones into its
  /// second.
  void loadBankedRegion(const Step &S, const TensorView &View, uint32_t Base, unsigned C0,
                        unsigned Cn, unsigned Stride, unsigned TileFrom = 0, unsigned TileTo = ~0u);
  /// Entry() for each of RowEntries entries of Rows rows RowPitch apart,
  /// into accumulator entries from Entry0 on (r4), Mid halfway through.
  template <typename EntryFn>
  void rowLoop(unsigned RowEntries, unsigned Rows, int64_t RowPitch, EntryFn Entry,
               const Emitter::Block *Mid, unsigned Entry0 = 0);
  void elementwise(const Step &S);

  Emitter &E;
  const isa::HwConfig &Hw;
  const BufferMap &B;
  const unsigned NCu, Lanes, V, G;
  const uint32_t AllMask;
  const bool DmaLoops;     ///< CompileOptions::DmaLoops.
  int LayersSeenDone = -1; ///< Last layer whose LayerDone the load unit consumed.
  std::vector<std::pair<uint32_t, uint64_t>> Cuts;
  uint64_t Ops = 0;
};

} // namespace snow::compiler

#endif
