//===- Cost.cpp - The planner's cost model --------------------------------===//
//
// See Cost.h.
//
//===----------------------------------------------------------------------===//

#include "Cost.h"
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
static uint64_t seriesCode(uint64_t N) { return N < 4 ? 3 * N : 8; }
/// Instructions fetched for a step's trace loop (a body of about 12 once).
static constexpr uint64_t TraceLoopCode = 16 + 12;
/// Channel cycles to fetch Insts instructions (0 where code is preloaded).
static uint64_t fetchCycles(const isa::HwConfig &Hw, uint64_t Insts) {
  return Hw.fetchesCode() ? ceilDiv(Insts * timing::fetchChannelCycles(Hw), Hw.FetchBlockInsts) : 0;
}

/// One trace of chunk C of a conv plan: the kernel window over the chunk's
/// channels.
static uint64_t chunkTrace(const LayerPlan &P, unsigned C, const isa::HwConfig &Hw) {
  const ir::Layer &L = *P.L;
  return timing::macTraceCycles(Hw, L.KH, uint64_t(P.traceCols()) * P.chunkSize(C, L.In.C),
                                P.Wide ? 0 : P.PixLog, P.ownBanks());
}

/// A conv plan's cycles on the compute unit: per output pixel (or pixel
/// group) a trace per chunk over the kernel window and the chunk's channels,
/// then the writeback of its accumulator entry; per round, the steps'
/// overhead and the MAC pipeline's drain.
static uint64_t convCompute(const LayerPlan &P, const RoundSummary &S, const isa::HwConfig &Hw) {
  uint64_t Trace = 0;
  for (unsigned C = 0; C < P.NChunks; ++C)
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
  return S.Pixels * (Trace + timing::writebackCycles(Hw, 1)) + Copies +
         S.Rounds.size() * (StepOverhead * P.NChunks + timing::accumulatorReady(Hw, 0));
}

/// The bytes of chunk C's weights for one output group: each vMAC gets its
/// block (the first chunk's carries the bias, block 0 the activation table
/// too); with multi-pixel traces the pixel groups' vMACs share the blocks:
/// one transfer for all with wpix_loads, one each without.
static uint64_t ogWeightBytes(const LayerPlan &P, unsigned C, const isa::HwConfig &Hw) {
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
  uint64_t MapLoads = Chunked ? S.TileLoads : S.TileLoadsOnChange;
  uint64_t WLoads = P.NChunks > 1 ? S.OgLoads : S.OgLoadsOnChange;
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
  for (const RoundInfo &I : S.Rounds)
    for (unsigned C = 0; C < P.NChunks; ++C) {
      const bool Last = C + 1 == P.NChunks;
      uint64_t Comp = I.Pixels * Trace[C] + StepOverhead;
      if (Last)
        Comp += I.Pixels * Wb + timing::accumulatorReady(Hw, 0);
      // Ctrl: instructions issued; Code: instructions fetched (a trace
      // loop's body of about 12 once).
      uint64_t In = 0, Ctrl = I.Pixels * 4 + I.Rows * 4 + 16, Code = TraceLoopCode;
      if (!FirstStep && (P.NChunks > 1 || I.OgChanged)) {
        In += I.Ogs * OgBytes(C);
        Ctrl += I.Ogs * V * 3 + 2;
        Code += I.Ogs * V * 3 + 2;
      }
      if (Chunked || (C == 0 && I.TileChanged)) {
        In += I.Tiles * TileBytes[C];
        Ctrl += I.Tiles * (Series(MapDmas) + 4) + 2;
        Code += I.Tiles * (seriesCode(MapDmas) + 4) + 2;
      }
      if (Last) {
        const uint64_t Moves = I.Active * (L.HasResidual ? 2 : 1);
        Ctrl += Moves * Series(WholeRows ? 1 : I.Rows) + 6;
        Code += Moves * seriesCode(WholeRows ? 1 : I.Rows) + 6;
      }
      if (Last && L.HasResidual) // The residual tile, loaded before the writeback.
        In += uint64_t(I.Active) * (I.Pixels << P.PixLog) * PixelOut;
      // The first weights load under the layer before's last step, as far
      // as the window it leaves (LayerPlan::PrefetchWindow); the rest
      // holds up the channel.
      if (FirstStep)
        ChanFree = exposedCycles(Channel.cycles(I.Ogs * OgBytes(C)), P.PrefetchWindow);
      uint64_t Start = std::max(ChanFree, CPrev2);
      const uint64_t Chan = Channel.cycles(In + Pending) + fetchCycles(Hw, Code);
      ChanFree = Start + Chan;
      uint64_t Ready = In ? Start + timing::dmaCompletion(Hw, Chan) : 0;
      Pending = Last ? uint64_t(I.Active) * (I.Pixels << P.PixLog) * PixelOut : 0;
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
static uint64_t poolCompute(const LayerPlan &P, const isa::HwConfig &Hw) {
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
      uint64_t Comp = Rd.pixels() * timing::macTraceCycles(Hw, L.KH, L.KW * Cn) + StepOverhead;
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
static uint64_t depthwiseCompute(const LayerPlan &P, const isa::HwConfig &Hw) {
  const ir::Layer &L = *P.L;
  uint64_t Bands = 0;
  for (const Round &Rd : P.Rounds)
    Bands += ceilDiv(Rd.ExtR, P.bandRows(Rd, P.accLimit(Hw.AccEntries)));
  // An entry a trace (two pixels of half an output group with PixLog 1).
  return (roundPixels(P) >> P.PixLog) *
             (P.passes() * timing::dwTraceCycles(Hw, L.KH, L.KW) + timing::writebackCycles(Hw, 1)) +
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

/// The bytes of every chunk's weights for one output group of conv plan P
/// (ogWeightBytes, chunk by chunk).
static uint64_t ogAllWeightBytes(const LayerPlan &P, const isa::HwConfig &Hw) {
  uint64_t Bytes = 0;
  for (unsigned C = 0; C < P.NChunks; ++C)
    Bytes += ogWeightBytes(P, C, Hw);
  return Bytes;
}

/// A fused pair whose producer is a dense conv that stores too
/// (LayerPlan::StoresToo), group of tiles by group: the producer's steps,
/// whose channel time is its stores and weights (and its residual, where
/// that loads one step ahead into the output region), then the 1x1 convs'
/// steps, whose channel time is their weights and stores and the next
/// group's producer maps (and its residual, where that comes with them:
/// LayerPlan::groupResidual). Each phase takes the longer of its compute
/// and its channel time (ResNet-50's layer1 pairs with the residual step
/// by step: 65 k cycles a group of 2x56 tiles, 456 k in all, as simulated).
static Cost densePairCost(const LayerPlan &D, const std::vector<LayerPlan> &Ps,
                          const isa::HwConfig &Hw, std::vector<uint64_t> *Shares) {
  const uint64_t V = Hw.VmacsPerCu;
  const ir::Layer &L = *D.L;
  const uint64_t Groups = std::max<uint64_t>(1, D.Rounds.size() / D.NOg);
  auto Blocks = [&](const LayerPlan &P) { return ogAllWeightBytes(P, Hw); };
  const uint64_t Out = uint64_t(D.Frames) * L.Out.elems() * 2;
  // Chunked, the maps load again for each output group; a full-depth
  // producer loads them once a group, its residual with them, under the
  // 1x1 steps of the group before (LayerPlan::groupResidual).
  const uint64_t Res = L.HasResidual ? Out : 0;
  const uint64_t Maps =
      uint64_t(D.NTiles) * D.R * D.Wt * L.In.C * 2 * (D.NChunks > 1 && !D.FullDepth ? D.NOg : 1) +
      (D.groupResidual() ? Res : 0);
  const uint64_t DBytes = Out + (D.groupResidual() ? 0 : Res) + Groups * D.NOg * Blocks(D);
  const uint64_t CD = convCompute(D, summarize(D, Hw.cus()), Hw);
  uint64_t CP = 0, PBytes = Maps;
  std::vector<uint64_t> Own;
  for (const LayerPlan &P : Ps) {
    Own.push_back(convCompute(P, summarize(P, Hw.cus()), Hw));
    CP += Own.back();
    PBytes += Groups * P.NOg * Blocks(P) + uint64_t(P.Frames) * P.L->Out.elems() * 2;
  }
  // The code each group fetches over the channel, counted as convCost
  // counts it: every step's trace loop and weight loads (one output group
  // a round: V blocks), the producer's maps (each chunk's, or once a group
  // full depth), and each writing step's moves (the producer's stores,
  // area copy and a residual loaded step by step; the 1x1 convs' stores).
  const uint64_t Cus = std::min<uint64_t>(Hw.cus(), D.NTiles);
  const uint64_t Move = seriesCode(D.Wt >= L.Out.W ? 1 : D.R);
  auto StepsCode = [&](const LayerPlan &P) {
    return uint64_t(P.NOg) * P.NChunks * (TraceLoopCode + V * 3 + 2);
  };
  const uint64_t MapLoads = D.FullDepth ? 1 : uint64_t(D.NOg) * D.NChunks;
  const uint64_t CodeD = StepsCode(D) + MapLoads * (Cus * (seriesCode(D.RowsIn) + 4) + 2) +
                         D.NOg * (Cus * Move * (L.HasResidual && !D.groupResidual() ? 3 : 2) + 6);
  uint64_t CodeP = 0;
  for (const LayerPlan &P : Ps)
    CodeP += StepsCode(P) + P.NOg * (Cus * Move + 6);
  const uint64_t PhaseD =
      std::max(CD, timing::dmaChannelCycles(Hw, DBytes) + Groups * fetchCycles(Hw, CodeD)) / Groups;
  const uint64_t PhaseP =
      std::max(CP, timing::dmaChannelCycles(Hw, PBytes) + Groups * fetchCycles(Hw, CodeP)) / Groups;
  const uint64_t Exposed = timing::dmaChannelCycles(Hw, Maps / Groups);
  const Cost Total(Groups * (PhaseD + PhaseP) + Exposed, DBytes + PBytes, Hw);
  if (Shares) {
    Shares->assign(1, Groups * PhaseD + Exposed);
    for (uint64_t O : Own)
      Shares->push_back(Groups * PhaseP * O / std::max<uint64_t>(1, CP));
  }
  return Total;
}

uint64_t snow::compiler::firstGroupBytes(const LayerPlan &D, const isa::HwConfig &Hw) {
  return uint64_t(std::min(Hw.cus(), D.NTiles)) * D.RowsIn * D.ColsIn * D.L->In.C * 2;
}

Cost snow::compiler::fusedCost(const LayerPlan &D, const std::vector<LayerPlan> &Ps,
                               const isa::HwConfig &Hw, std::vector<uint64_t> *Shares,
                               uint64_t *ComputeOut) {
  if (D.StoresToo)
    return densePairCost(D, Ps, Hw, Shares);
  const ir::Layer &DL = *D.L;
  // The depthwise maps of every tile and chunk (each CU loads its own tile),
  // a weight block per vMAC and round of every plan, the 1x1 outputs.
  const uint64_t TileBytes = uint64_t(D.RowsIn) * D.ColsIn * DL.In.C * 2;
  uint64_t Compute = D.IsConv ? depthwiseCompute(D, Hw) : poolCompute(D, Hw);
  // Pinned (LayerPlan::PinWeights), each weight block loads once.
  const bool Pin = D.PinWeights;
  uint64_t Bytes = D.NTiles * TileBytes +
                   (D.IsConv ? (Pin ? D.NChunks : D.Rounds.size()) * ogWeightBytes(D, 0, Hw) : 0);
  std::vector<uint64_t> Own = {Compute};
  uint64_t FirstWeights = 0; // the first 1x1 step's weights, in bytes
  uint64_t PinnedBytes = 0;  // a pinned reader's
  for (const LayerPlan &P : Ps) {
    const RoundSummary S = summarize(P, Hw.cus());
    Own.push_back(convCompute(P, S, Hw));
    Compute += Own.back();
    const uint64_t Loads = Pin ? P.NOg : S.OgLoads;
    PinnedBytes += P.NOg * ogAllWeightBytes(P, Hw);
    Bytes += Loads * ogAllWeightBytes(P, Hw) + P.L->Out.elems() * 2;
    if (!FirstWeights)
      FirstWeights = S.Rounds.front().Ogs * ogWeightBytes(P, 0, Hw);
  }
  // A group's 1x1 traces wait for all its producer chunks, whose loads
  // overlap only the producer's short traces: the first group's loads are
  // exposed, and in the later groups those of all but the two chunks that
  // load during the group before (Sequence.cpp); so is each group's first
  // 1x1 weights load, issued during the last producer step, behind its
  // maps. The channel, if it is the bound, waits only for the first chunk.
  // A full-depth producer's group of tiles loads at once into the region
  // the group before has finished reading, under that group's last two 1x1
  // steps (EmitProgram.cpp loads a fused step's maps two steps ahead):
  // ResNet-50's pool1 at batch 16 feeds five 1x1 steps a group, and its
  // loads hid under two.
  const uint64_t GroupLoad = timing::dmaChannelCycles(Hw, firstGroupBytes(D, Hw));
  const uint64_t Groups = std::max<uint64_t>(1, D.Rounds.size() / D.NOg);
  uint64_t Steps = 0; // 1x1 steps a group
  for (const LayerPlan &P : Ps)
    Steps += uint64_t(P.NOg) * P.NChunks;
  // Pinned, no weights queue before it: a full-depth group's load hides
  // under all the group before's 1x1 steps (MobileNet v1's conv5 pair: the
  // next group's 230 KB loaded behind the third and fourth output groups'
  // weights, under two steps, and waited 7.5 k cycles a group).
  const uint64_t Under = (Compute - Own[0]) / Groups *
                         (Pin && D.FullDepth ? Steps : std::min<uint64_t>(2, Steps)) /
                         std::max<uint64_t>(1, Steps);
  // Chunk by chunk, the two that load ahead do so behind the 1x1 steps'
  // weights in the load queue, two and one steps ahead: no earlier than a
  // full-depth group's (MobileNet v1's conv5 pair, two chunks of 56x56
  // maps, waited 12 k cycles a group for them; compiler-costs.md).
  const uint64_t Exposed2 = GroupLoad > Under ? GroupLoad - Under : 0;
  const uint64_t Later =
      D.FullDepth ? Exposed2
                  : std::max(Exposed2, GroupLoad * (D.NChunks > 2 ? D.NChunks - 2 : 0) / D.NChunks);
  // A full-depth producer's first group loads chunk by chunk as the layer
  // before stores each (RowSignals.cpp: startOnRows): its last chunk waits.
  // A squeeze-and-excitation scale (run-time weights) reads a map stored
  // before its squeeze convs, not by the layer before: where its chunks
  // go last first (a last chunk of fewer than a group's channels,
  // Sequence.cpp: fusedSteps), its first step waits for the whole group's
  // load (EfficientNet-B0's 28x28 scales, estimated on one chunk's load,
  // took two groups of 7x14 tiles: block 5's pair 70.0 k cycles, against
  // 67.9 k on four of 7x7).
  const bool AllFirst =
      D.Dynamic && D.Depthwise && DL.Out.C % (Hw.VmacsPerCu * Hw.LanesPerVmac) != 0;
  const uint64_t First = D.FullDepth && !AllFirst ? GroupLoad / D.NChunks : GroupLoad;
  // Pinned, the reader's weights (all its output groups) load once, where
  // its first group's would.
  const uint64_t WeightsExposed = Pin ? timing::dmaChannelCycles(Hw, PinnedBytes)
                                      : Groups * timing::dmaChannelCycles(Hw, FirstWeights);
  const uint64_t Exposed = First + (Groups - 1) * Later + WeightsExposed;
  const Cost Total(
      std::max(Compute + Exposed, timing::dmaChannelCycles(Hw, Bytes) + GroupLoad / D.NChunks),
      Bytes, Hw);
  if (ComputeOut)
    *ComputeOut = Compute;
  if (Shares) {
    // The layers' cycles as the simulator counts them: the exposed loads
    // are the depthwise steps' (the compute unit waits in them), the rest
    // goes by each plan's compute.
    Own[0] += Exposed;
    const uint64_t Sum = Compute + Exposed;
    Shares->clear();
    for (uint64_t O : Own)
      Shares->push_back(Total.Cycles * O / std::max<uint64_t>(1, Sum));
  }
  return Total;
}

Cost snow::compiler::windowPairCost(const LayerPlan &D, const LayerPlan &Q, const isa::HwConfig &Hw,
                                    std::vector<uint64_t> *Shares, const LayerPlan *Proj) {
  const ir::Layer &DL = *D.L;
  // Each tile's window of D's input, as loaded (the region rows inside the
  // input), a row of a tile's pixels a DMA row; again in each round whose
  // tiles differ from the round before (LayerPlan::Window's rounds).
  auto WindowBytes = [&](unsigned T) {
    const uint64_t Rows = std::min<uint64_t>((D.validRows(T) - 1) * DL.SH + DL.KH, DL.In.H);
    const uint64_t Cols = std::min<uint64_t>((D.validCols(T) - 1) * DL.SW + DL.KW, DL.In.W);
    return Rows * timing::rowSpanBytes(Hw, Cols * DL.In.C * 2, std::nullopt);
  };
  uint64_t MapBytes = 0;
  const Round *Prev = nullptr;
  for (const Round &Rd : D.Rounds) {
    std::vector<int> Tiles;
    for (const Work &W : Rd.Cus)
      if (W.active() && std::find(Tiles.begin(), Tiles.end(), W.Tile) == Tiles.end())
        Tiles.push_back(W.Tile);
    bool Same = Prev != nullptr;
    for (size_t Cu = 0; Prev && Cu < Rd.Cus.size(); ++Cu)
      Same &= Rd.Cus[Cu].Tile == Prev->Cus[Cu].Tile;
    if (!Same)
      for (int T : Tiles)
        MapBytes += WindowBytes(unsigned(T));
    Prev = &Rd;
  }
  // Each round's output groups' weights, D's and (a depthwise reader, whose
  // steps come between D's) Q's.
  // A block triple's 1x1 conv loads a chunk's weights a round too.
  const uint64_t QWeights = (Q.IsConv ? ogWeightBytes(Q, 0, Hw) : 0) +
                            (Proj ? ogWeightBytes(*Proj, Proj->NChunks > 1, Hw) : 0);
  const RoundSummary S = summarize(D, Hw.cus());
  const uint64_t Own[3] = {convCompute(D, S, Hw),
                           Q.IsConv ? depthwiseCompute(Q, Hw) : poolCompute(Q, Hw),
                           Proj ? convCompute(*Proj, summarize(*Proj, Hw.cus()), Hw) : 0};
  // A depthwise reader's steps come between D's, and the two weights banks
  // alternate between them: D's next weights load once D's step is done,
  // under the reader's short step only (MobileNet v2's 960-channel
  // expansions load 82 KB a round under 0.5 k cycles of vdw).
  uint64_t WBytes = 0, Exposed = 0;
  for (const RoundInfo &R : S.Rounds) {
    if (!R.OgChanged && !Q.IsConv)
      continue;
    WBytes += R.Ogs * (ogWeightBytes(D, 0, Hw) + QWeights);
    if (Q.IsConv) {
      const uint64_t Load = timing::dmaChannelCycles(Hw, R.Ogs * ogWeightBytes(D, 0, Hw));
      const uint64_t Under = (Own[1] + Own[2]) / std::max<size_t>(1, S.Rounds.size());
      Exposed += Load > Under ? Load - Under : 0;
    }
  }
  const LayerPlan &Out = Proj ? *Proj : Q;
  const uint64_t Bytes =
      MapBytes + WBytes +
      uint64_t(Out.Frames) * Out.L->Out.elems() * 2 * (Out.L->HasResidual ? 2 : 1);
  // The first group's windows load before anything computes.
  const uint64_t First =
      timing::dmaChannelCycles(Hw, MapBytes * std::min<uint64_t>(Hw.cus(), D.NTiles) / D.NTiles);
  const Cost Total(
      std::max(Own[0] + Own[1] + Own[2] + Exposed, timing::dmaChannelCycles(Hw, Bytes)) + First,
      Bytes, Hw);
  if (Shares) {
    Shares->clear();
    const uint64_t Sum = std::max<uint64_t>(1, Own[0] + Own[1] + Own[2]);
    Shares->push_back(Total.Cycles - Total.Cycles * (Own[1] + Own[2]) / Sum);
    Shares->push_back(Total.Cycles * Own[1] / Sum);
    if (Proj)
      Shares->push_back(Total.Cycles * Own[2] / Sum);
  }
  return Total;
}
