//===- Cost.cpp - The planner's cost model --------------------------------===//
//
// See Cost.h. The costs of fusions (pairs, window pairs, block triples)
// are CostFused.cpp's, built of the same terms (CostTerms.h).
//
//===----------------------------------------------------------------------===//

#include "Cost.h"
#include "CostTerms.h"
#include "snow/isa/Timing.h"
#include <algorithm>
#include <optional>
#include <vector>

using namespace snow;
using namespace snow::compiler;

/// Cycles a step (one round, one chunk) spends on the compute unit outside
/// its traces: semaphore waits and signals, vbias, marks. An estimate shared
/// by every layer kind's cost below.
static constexpr uint64_t StepOverhead = 20;

// Code is fetched from DRAM over the channel the DMAs use (imem_kib > 0),
// and steps are straight-line code, so every step's instructions cost
// channel time once: a loop's body once, a DMA loop's 8. A plan of tiny
// tiles spends a sixth of its channel time fetching its code (ResNet-50's
// 64 -> 256 1x1 convs with their residuals, 4-pixel tiles).
/// Instructions fetched for a series of N DMA operations (Lowerer::dmaSeries:
/// unrolled, or from 4 on a loop whose body is fetched once).
uint64_t snow::compiler::seriesCode(uint64_t N) { return N < 4 ? 3 * N : 8; }
/// Channel cycles to fetch Insts instructions (0 where code is preloaded).
uint64_t snow::compiler::fetchCycles(const isa::HwConfig &Hw, uint64_t Insts) {
  return Hw.fetchesCode() ? ceilDiv(Insts * timing::fetchChannelCycles(Hw), Hw.FetchBlockInsts) : 0;
}

/// One trace of chunk C of a conv plan: the kernel window over the chunk's
/// channels. A step's traces run back to back, so all but its first skip
/// the start-up cycle a lookahead saves (timing::lookaheadSaving); the
/// first's is in StepOverhead.
static uint64_t chunkTrace(const LayerPlan &P, unsigned C, const isa::HwConfig &Hw) {
  const ir::Layer &L = *P.L;
  return timing::macTraceCycles(Hw, L.KH, uint64_t(P.traceCols()) * P.chunkSize(C, L.In.C),
                                P.Wide ? 0 : P.PixLog, P.ownBanks()) -
         timing::lookaheadSaving(Hw);
}

/// A conv plan's cycles on the compute unit: per output pixel (or pixel
/// group) a trace per chunk over the kernel window and the chunk's channels,
/// then the writeback of its accumulator entry; per round, the steps'
/// overhead and the MAC pipeline's drain.
uint64_t snow::compiler::convCompute(const LayerPlan &P, const RoundSummary &S,
                                     const isa::HwConfig &Hw) {
  // CUs splitting an item's chunks (LayerPlan::Parts) trace a share each,
  // and their writeback adds them up (a cycle more a round).
  const unsigned Steps = P.NChunks / P.Parts;
  uint64_t Trace = 0;
  for (unsigned C = 0; C < Steps; ++C)
    Trace += chunkTrace(P, C, Hw);
  // A copied region (LayerPlan::CopyBanks) is copied with its every load:
  // each chunk's, or a single chunk's in a round of new tiles; a vmax a
  // pooling unit's width.
  uint64_t Copies = 0;
  if (P.CopyBanks) {
    const uint64_t One = StepOverhead + P.copyVmaxes(P.Chunk, Hw);
    for (const RoundInfo &R : S.Rounds)
      Copies += (P.NChunks > 1 ? P.NChunks : R.TileChanged) * One;
  }
  const uint64_t Sum = P.Parts > 1 ? timing::CuSumCycles : 0;
  return S.Pixels * (Trace + timing::writebackCycles(Hw, 1)) + Copies +
         S.Rounds.size() * (StepOverhead * Steps + timing::accumulatorReady(Hw, 0) + Sum);
}

uint64_t snow::compiler::convComputeCycles(const LayerPlan &P, const isa::HwConfig &Hw) {
  return convCompute(P, summarize(P, Hw.cus()), Hw);
}

/// The bytes of chunk C's weights for one output group: each vMAC gets its
/// block (the first chunk's carries the bias, block 0 the activation table
/// too); with multi-pixel traces the pixel groups' vMACs share the blocks:
/// one transfer for all with wpix_loads, one each without.
uint64_t snow::compiler::ogWeightBytes(const LayerPlan &P, unsigned C, const isa::HwConfig &Hw) {
  return uint64_t(Hw.LanesPerVmac) * 2 * P.ogLoadWords(P.kernelWords(C), C == 0, Hw);
}

/// Channel cycles of Load beyond a prefetch window.
static uint64_t exposedCycles(uint64_t Load, uint64_t Window) {
  return Load > Window ? Load - Window : 0;
}

uint64_t snow::compiler::firstWeightsExposed(const LayerPlan &P, const isa::HwConfig &Hw,
                                             uint64_t Window) {
  if (P.Rounds.empty())
    return 0;
  const RoundInfo First = summarize(P, Hw.cus()).Rounds.front();
  return exposedCycles(timing::DmaChannel(Hw).cycles(First.Ogs * ogWeightBytes(P, 0, Hw)), Window);
}

/// The cost of a conv plan. A quick bound first, max(compute, DRAM transfer)
/// over the whole layer; if it cannot beat Bound, that is the answer.
/// Otherwise the steps are played through a model of the double-buffered
/// pipeline: a step's loads start once the channel is free and the bank they
/// overwrite has been computed on (two steps back), its compute once its data
/// has landed and the previous step's compute is done; a writing step's
/// stores share the channel with the next loads. The first step's weights
/// come early, prefetched under the layer before as far as
/// LayerPlan::PrefetchWindow allows; its maps do not.
Cost snow::compiler::convCost(const LayerPlan &P, const RoundSummary &S, const isa::HwConfig &Hw,
                              uint64_t Bound) {
  const ir::Layer &L = *P.L;
  const uint64_t KK = uint64_t(L.KH) * P.traceCols(), Cin = L.In.C, V = Hw.VmacsPerCu;
  const uint64_t OgCh = P.ogChannels(V * Hw.LanesPerVmac);
  uint64_t Compute = convCompute(P, S, Hw);
  const uint64_t Wb = timing::writebackCycles(Hw, 1);
  uint64_t RegionRows = std::min<uint64_t>(P.RowsIn, (L.In.H + L.PadT + L.PadB) / P.StepY);
  uint64_t RegionCols = std::min<uint64_t>(P.ColsIn, (L.In.W + L.PadL + L.PadR) / P.StepX);
  const bool Chunked = P.NChunks > 1 && !P.FullDepth;
  // A step reloads its maps and weights where the round has several steps
  // (chunks); a round of one step keeps what the round before loaded where
  // its tile (or output group) is the same. CUs splitting the chunks
  // (LayerPlan::Parts) take a step of one chunk each.
  const unsigned Steps = P.NChunks / P.Parts;
  const bool Reloads = Steps > 1 && !P.FullDepth;
  // A tile's maps for chunk C as the DMA rows the load moves
  // (Lowerer::loadRegion): a run of whole pixels per region row, or with
  // chunks (and gathered columns) a row per pixel; each row moves every burst
  // it touches (timing::dmaBurstBytes).
  std::vector<uint64_t> TileBytes(P.NChunks);
  for (unsigned C = 0; C < P.NChunks; ++C) {
    const uint64_t PixelBytes = uint64_t(P.FullDepth ? Cin : P.chunkSize(C, Cin)) * 2;
    const bool PerPixel = Chunked || P.StepX > 1 || P.readsBanked();
    const uint64_t Rows = RegionRows * (PerPixel ? RegionCols : 1);
    const uint64_t RowBytes = PerPixel ? PixelBytes : RegionCols * PixelBytes;
    // Pixels a whole number of bursts apart start every row at the chunk's
    // offset in its pixel; otherwise rows start anywhere in a burst.
    std::optional<uint64_t> Offset;
    if (Cin * 2 % Hw.DramBurstBytes == 0)
      Offset = PerPixel ? uint64_t(P.chunkBegin(C)) * 2 % Hw.DramBurstBytes : 0;
    TileBytes[C] = Rows * timing::rowSpanBytes(Hw, RowBytes, Offset);
  }
  auto OgBytes = [&](unsigned C) { return ogWeightBytes(P, C, Hw); };
  uint64_t AllTileBytes = 0;
  for (unsigned C = 0; C < (Chunked ? P.NChunks : 1); ++C)
    AllTileBytes += TileBytes[C];
  if (!Chunked && P.NChunks > 1)
    AllTileBytes = TileBytes[0];
  // A CU stores its channels of each pixel; unless those are whole pixels of
  // the output tensor, every pixel is a DMA row of its own, rounded out to
  // whole bursts. A fused residual is loaded the same way before the
  // writeback.
  const uint64_t SliceBytes = std::min<uint64_t>(OgCh, P.OcCount) * 2;
  const bool WholePixels = !P.OutIsSlice && P.OcCount == L.Out.C && OgCh >= P.OcCount;
  // Otherwise each CU's row starts at its channels' offset in a pixel of
  // Out.C channels (a concat's tensor, whose width the planner does not
  // know, anywhere in a burst): the mean burst span over its output groups
  // and the pixels' offsets. A 64-channel slice of a 144-channel tensor
  // touches 2.5 bursts a pixel on average, not 2.
  uint64_t PixelOut = SliceBytes;
  if (!WholePixels) {
    const uint64_t NOg = ceilDiv(P.OcCount, OgCh);
    uint64_t Sum = 0, WholeSpan = 0; // A whole group's row in a slice, once.
    for (uint64_t Og = 0; Og < NOg; ++Og) {
      const uint64_t First = P.OcBase + Og * OgCh;
      const uint64_t Row = std::min<uint64_t>(OgCh, P.OcBase + P.OcCount - First) * 2;
      if (!P.OutIsSlice)
        Sum += timing::stridedRowBytes(Hw, Row, First * 2, uint64_t(L.Out.C) * 2);
      else if (Row < OgCh * 2)
        Sum += timing::rowSpanBytes(Hw, Row, std::nullopt);
      else
        Sum += WholeSpan ? WholeSpan : (WholeSpan = timing::rowSpanBytes(Hw, Row, std::nullopt));
    }
    PixelOut = (Sum + NOg / 2) / NOg;
  }
  const uint64_t PixelIo = PixelOut * (L.HasResidual ? 2 : 1);
  const uint64_t OutBytes =
      uint64_t(P.Frames) * L.Out.H * L.Out.W * ceilDiv(P.OcCount, OgCh) * PixelIo;
  // With several chunks every round reloads its chunks; with one, a round
  // loads only what differs from the round before.
  uint64_t MapLoads = Reloads ? S.TileLoads : S.TileLoadsOnChange;
  uint64_t WLoads = Steps > 1 ? S.OgLoads : S.OgLoadsOnChange;
  uint64_t Bytes = AllTileBytes * MapLoads +
                   uint64_t(Hw.LanesPerVmac) * 2 * P.ogLoadWords(KK * Cin, true, Hw) * WLoads +
                   OutBytes;
  uint64_t Quick = std::max(Compute, timing::dmaChannelCycles(Hw, Bytes));
  if (Quick >= Bound)
    return {Quick, Bytes, Hw};

  // The control core issues one instruction a cycle, in program order: the
  // trace loop (4 per trace, 4 per row), 3 per DMA operation (two address
  // registers and the operation; 5 in a DMA loop), fills and synchronization. A step whose
  // instructions outnumber its compute cycles is issue-bound.
  // Instructions of a series of N DMA operations: unrolled, or a loop of 5
  // a turn from 4 on (Lowerer::dmaSeries).
  auto Series = [](uint64_t N) { return N < 4 ? 3 * N : 3 + 5 * N; };
  const timing::DmaChannel Channel(Hw);
  // Played through below once per step: worked out once per chunk.
  std::vector<uint64_t> Trace(P.NChunks);
  for (unsigned C = 0; C < P.NChunks; ++C)
    Trace[C] = chunkTrace(P, C, Hw);
  // A banked region loads each row's even and odd columns apart.
  const uint64_t MapDmas = P.readsBanked()          ? 2 * RegionRows
                           : Chunked || P.StepX > 1 ? RegionRows
                                                    : 1;
  const bool WholeRows = P.Wt >= L.Out.W; // A tile's stores: one DMA, else one per row.
  uint64_t ChanFree = 0, CPrev = 0, CPrev2 = 0, Pending = 0, Issued = 0;
  bool FirstStep = true;
  // CUs splitting an item's chunks (LayerPlan::Parts): a step's loads are
  // one a CU, each its own chunk; one CU stores the sums.
  const unsigned Parts = P.Parts;
  for (const RoundInfo &I : S.Rounds)
    for (unsigned C = 0; C < Steps; ++C) {
      const bool Last = C + 1 == Steps;
      const uint64_t Stored = I.Active / Parts;
      uint64_t Comp = I.Pixels * Trace[C] + StepOverhead;
      if (Last)
        Comp +=
            I.Pixels * Wb + timing::accumulatorReady(Hw, 0) + (Parts > 1 ? timing::CuSumCycles : 0);
      // Ctrl: instructions issued; Code: instructions fetched (a trace
      // loop's body of about 12 once).
      uint64_t In = 0, Ctrl = I.Pixels * 4 + I.Rows * 4 + 16, Code = TraceLoopCode;
      if (!FirstStep && (Steps > 1 || I.OgChanged)) {
        In += I.Ogs * Parts * OgBytes(C);
        Ctrl += I.Ogs * Parts * V * 3 + 2;
        Code += I.Ogs * Parts * V * 3 + 2;
      }
      if (Reloads || (C == 0 && I.TileChanged)) {
        In += I.Tiles * Parts * TileBytes[C];
        Ctrl += I.Tiles * Parts * (Series(MapDmas) + 4) + 2;
        Code += I.Tiles * Parts * (seriesCode(MapDmas) + 4) + 2;
      }
      if (Last) {
        const uint64_t Moves = Stored * (L.HasResidual ? 2 : 1);
        Ctrl += Moves * Series(WholeRows ? 1 : I.Rows) + 6;
        Code += Moves * seriesCode(WholeRows ? 1 : I.Rows) + 6;
      }
      if (Last && L.HasResidual) // The residual tile, loaded before the writeback.
        In += Stored * (I.Pixels << P.PixLog) * PixelOut;
      // The first weights load under the layer before's last step, as far
      // as the window it leaves (LayerPlan::PrefetchWindow); the rest
      // holds up the channel.
      if (FirstStep)
        ChanFree = exposedCycles(Channel.cycles(I.Ogs * Parts * OgBytes(C)), P.PrefetchWindow);
      uint64_t Start = std::max(ChanFree, CPrev2);
      const uint64_t Chan = Channel.cycles(In + Pending) + fetchCycles(Hw, Code);
      ChanFree = Start + Chan;
      uint64_t Ready = In ? Start + timing::dmaCompletion(Hw, Chan) : 0;
      Pending = Last ? Stored * (I.Pixels << P.PixLog) * PixelOut : 0;
      Issued += Ctrl;
      CPrev2 = CPrev;
      CPrev = std::max(std::max(CPrev, Ready) + Comp, Issued);
      FirstStep = false;
    }
  return {CPrev + timing::dmaCompletion(Hw, Channel.cycles(Pending)), Bytes, Hw};
}

/// Output pixels over all rounds (the work of the busiest CU of each round).
static uint64_t roundPixels(const LayerPlan &P) {
  uint64_t Pixels = 0;
  for (const Round &Rd : P.Rounds)
    Pixels += Rd.pixels();
  return Pixels;
}

/// A pooling plan's cycles on the compute unit: a KH x KW window a pixel
/// and run of lane groups as wide as the pooling unit (the control core
/// needs ~3 instructions to issue one, so short windows are issue-bound).
uint64_t snow::compiler::poolCompute(const LayerPlan &P, const isa::HwConfig &Hw) {
  const ir::Layer &L = *P.L;
  // A framed pool's round pools one chunk a CU, a step (LayerPlan::framedPool).
  const unsigned Steps = P.framedPool() ? 1 : P.NChunks;
  uint64_t Groups = 0;
  for (unsigned C = 0; C < Steps; ++C)
    Groups += poolInsts(P.chunkSize(C, L.In.C), Hw);
  return roundPixels(P) * Groups * std::max<uint64_t>(timing::traceCycles(L.KH, L.KW), 3) +
         P.Rounds.size() * StepOverhead * Steps;
}

uint64_t snow::compiler::besideCost(const LayerPlan &Pool, const isa::HwConfig &Hw) {
  return poolCompute(Pool, Hw);
}

uint64_t snow::compiler::lastStepIdle(const LayerPlan &P, uint64_t Steps, const isa::HwConfig &Hw) {
  const uint64_t Stores = Hw.dramCycles(P.L->Out.elems() * 2 * P.Frames / Steps);
  return std::max(P.EstCycles / Steps, Stores) - Stores;
}

uint64_t snow::compiler::lastStepHide(const LayerPlan &Q, uint64_t Steps, const isa::HwConfig &Hw) {
  return Q.isPool() ? besideCost(Q, Hw) / Steps : 0;
}

uint64_t snow::compiler::windowBytes(const LayerPlan &P) {
  const ir::Layer &L = *P.L;
  return uint64_t(P.NTiles) * P.RowsIn * P.ColsIn * L.In.C * 2 + P.Frames * L.Out.elems() * 2;
}

Cost snow::compiler::transferBound(const LayerPlan &P, const isa::HwConfig &Hw) {
  const uint64_t Bytes = windowBytes(P);
  return {timing::dmaChannelCycles(Hw, Bytes), Bytes, Hw};
}

Cost snow::compiler::poolCost(const LayerPlan &P, const isa::HwConfig &Hw) {
  uint64_t Compute = poolCompute(P, Hw);
  uint64_t Bytes = windowBytes(P);
  return {std::max(Compute, timing::dmaChannelCycles(Hw, Bytes)), Bytes, Hw};
}

Cost snow::compiler::elementwiseCost(const LayerPlan &P, unsigned Operands,
                                     const isa::HwConfig &Hw) {
  const ir::Layer &L = *P.L;
  // Each input is a vpre (or vmul) into the accumulators, then one vwb;
  // Operands is what is loaded (a square loads its one tensor once).
  uint64_t Compute = timing::writebackCycles(Hw, roundPixels(P)) * (L.Inputs.size() + 1) +
                     P.Rounds.size() * StepOverhead;
  uint64_t Bytes = P.Frames * L.Out.elems() * 2 * (Operands + 1);
  return {std::max(Compute, timing::dmaChannelCycles(Hw, Bytes)), Bytes, Hw};
}

Cost snow::compiler::groupChunksCost(const LayerPlan &P, const isa::HwConfig &Hw) {
  const ir::Layer &L = *P.L;
  const uint64_t KK = uint64_t(L.KH) * L.KW, V = Hw.VmacsPerCu, G = V * Hw.LanesPerVmac;
  const uint64_t Wb = timing::writebackCycles(Hw, 1);
  uint64_t Cycles = 0, Bytes = 0, PrevStores = 0;
  for (const Round &Rd : P.Rounds) {
    unsigned Tiles = 0;
    for (const Work &W : Rd.Cus)
      Tiles += W.active();
    auto [C0, C1] = P.ogChunks(Rd.firstOg());
    for (unsigned C = C0; C < C1; ++C) {
      const uint64_t Cn = P.chunkSize(C, L.In.C);
      uint64_t Comp = Rd.pixels() * (timing::macTraceCycles(Hw, L.KH, L.KW * Cn) -
                                     timing::lookaheadSaving(Hw)) +
                      StepOverhead;
      uint64_t In =
          uint64_t(Tiles) * P.RowsIn * P.ColsIn * roundUp(unsigned(Cn * 2), Hw.DramBurstBytes) +
          G * 2 * (KK * Cn + (C == C0));
      if (C + 1 == C1)
        Comp += Rd.pixels() * Wb + timing::accumulatorReady(Hw, 0);
      Cycles += std::max(Comp, timing::dmaChannelCycles(Hw, In + PrevStores));
      Bytes += In;
      PrevStores = C + 1 == C1 ? uint64_t(Tiles) * Rd.pixels() * G * 2 : 0;
    }
  }
  Bytes += PrevStores;
  return {Cycles + timing::dmaChannelCycles(Hw, PrevStores), Bytes, Hw};
}

/// A depthwise plan's cycles on the compute unit: vdw traces over the
/// window and one writeback per pixel; a tile beyond the accumulators runs
/// in bands of whole rows, each waiting for the MAC pipeline before its
/// writeback.
uint64_t snow::compiler::depthwiseCompute(const LayerPlan &P, const isa::HwConfig &Hw) {
  const ir::Layer &L = *P.L;
  uint64_t Bands = 0;
  for (const Round &Rd : P.Rounds)
    Bands += ceilDiv(Rd.ExtR, P.bandRows(Rd, P.accLimit(Hw.AccEntries)));
  // An entry a trace (two pixels of half an output group with PixLog 1).
  return (roundPixels(P) >> P.PixLog) *
             (P.passes() * (timing::dwTraceCycles(Hw, L.KH, L.KW) - timing::lookaheadSaving(Hw)) +
              timing::writebackCycles(Hw, 1)) +
         P.Rounds.size() * StepOverhead + Bands * (timing::accumulatorReady(Hw, 0) + 8) +
         blockMeanCycles(P, Hw);
}

uint64_t snow::compiler::blockMeanCycles(const LayerPlan &P, const isa::HwConfig &Hw) {
  // A vavg of F x F cycles a block and run of pooling-unit words, two
  // address loads, a round's blocks.
  uint64_t Means = 0;
  if (const unsigned F = P.PoolBlock)
    for (const Round &Rd : P.Rounds)
      Means += uint64_t(Rd.ExtR / F) * (Rd.ExtC / F) *
               poolInsts(P.ogChannels(Hw.VmacsPerCu * Hw.LanesPerVmac), Hw) *
               (timing::traceCycles(F, F) + 2);
  return Means;
}

Cost snow::compiler::depthwiseCost(const LayerPlan &P, const isa::HwConfig &Hw) {
  const uint64_t Pixels = roundPixels(P), Passes = P.passes();
  const uint64_t Compute = depthwiseCompute(P, Hw);
  // Shifted passes: the control core issues 4 instructions a pixel for the
  // loop and 3 per pass (two address steps and the trace), which bounds
  // grouped 1x1 convs.
  const uint64_t Issue = Passes > 1 ? Pixels * (4 + 3 * Passes) : 0;
  uint64_t Bytes = windowBytes(P);
  if (const unsigned F = P.PoolBlock) // the block means' stores
    Bytes += P.L->Out.elems() * 2 / (F * F);
  return {std::max({Compute, Issue, timing::dmaChannelCycles(Hw, Bytes)}), Bytes, Hw};
}
