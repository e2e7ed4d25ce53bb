//===- Plan.cpp - Workload breakdown: chunks, tiles and loop order --------===//
//
// For each layer, enumerates channel-chunk counts and output tile shapes that
// fit the buffers (weights bank for the kernel chunk, accumulators and output
// region for the tile, input region for the tile's receptive field), estimates
// cycles as max(compute, DRAM transfer) for kernel-stationary and
// map-stationary loop orders, and keeps the cheapest. The model is deliberately
// simple: the simulator, not this estimate, is the judge.
//
//===----------------------------------------------------------------------===//

#include "Plan.h"
#include <algorithm>
#include <optional>
#include <fmt/format.h>

using namespace snow;
using namespace snow::compiler;

static unsigned ceilDiv(uint64_t A, uint64_t B) { return unsigned((A + B - 1) / B); }
static unsigned roundUp(unsigned A, unsigned B) { return ceilDiv(A, B) * B; }

static llvm::Error planError(const ir::Layer &L, const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: layer '%s': %s",
                                 L.Loc.str().c_str(), L.Name.c_str(), Msg.c_str());
}

llvm::Expected<BufferMap> snow::compiler::makeBufferMap(const isa::HwConfig &Hw) {
  if (Hw.MapsBanks < 4)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "hardware '%s': maps_banks must be at least 4 (two input and "
                                   "two output regions for double buffering), got %u",
                                   Hw.Name.c_str(), Hw.MapsBanks);
  if (Hw.WeightsBanks < 2)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "hardware '%s': weights_banks must be at least 2, got %u",
                                   Hw.Name.c_str(), Hw.WeightsBanks);
  BufferMap B;
  const uint32_t Bank = Hw.mapsBankElems();
  unsigned OutBanks = std::max(1u, Hw.MapsBanks / 8);
  unsigned InBanks = (Hw.MapsBanks - 2 * OutBanks) / 2;
  B.InCap = InBanks * Bank;
  B.InBase[0] = 0;
  B.InBase[1] = B.InCap;
  B.OutCap = OutBanks * Bank;
  B.OutBase[0] = 2 * B.InCap;
  B.OutBase[1] = B.OutBase[0] + B.OutCap;
  B.WCap = Hw.weightsWords() / 2;
  B.WBase[0] = 0;
  B.WBase[1] = B.WCap;
  return B;
}

unsigned LayerPlan::pixelStride(unsigned C, unsigned Lanes) const {
  if (Depthwise || Elementwise)
    return Chunk; // vMAC v reads channels [v * lanes, (v + 1) * lanes) of the group.
  if (FullDepth)
    return L->In.C;
  unsigned N = chunkSize(C, L->In.C);
  return IsConv ? N : roundUp(N, Lanes);
}

unsigned LayerPlan::kernelWords(unsigned C) const {
  return L->KH * L->KW * (Depthwise ? 1 : chunkSize(C, L->In.C));
}

unsigned LayerPlan::validRows(unsigned T) const {
  return std::min(R, L->Out.H - T / NColBlocks * R);
}

unsigned LayerPlan::validCols(unsigned T) const {
  return std::min(Wt, L->Out.W - T % NColBlocks * Wt);
}

namespace {

/// Candidate output tiles (rows x cols) with at most PMax pixels. For each
/// number of row blocks and of column blocks only the smallest tile that
/// reaches it is kept: a taller or wider tile with as many blocks only adds
/// pixels that do not exist.
std::vector<std::pair<unsigned, unsigned>> tileShapes(unsigned Hout, unsigned Wout,
                                                      unsigned PMax) {
  auto Minimal = [](unsigned N) {
    std::vector<unsigned> V;
    for (unsigned K = 1; K <= std::min(N, 64u); ++K) {
      unsigned S = ceilDiv(N, K);
      if (V.empty() || S != V.back())
        V.push_back(S);
    }
    return V;
  };
  std::vector<std::pair<unsigned, unsigned>> S;
  for (unsigned Wt : Minimal(Wout))
    for (unsigned R : Minimal(Hout))
      if (R * Wt <= PMax)
        S.push_back({R, Wt});
  return S;
}

/// A plan's estimated cycles and DRAM bytes. Plans are ranked by Score:
/// the cycles plus a sixteenth of the channel time of the bytes. The estimate
/// is good to a percent or two, so between plans that close the one that
/// moves less data wins: it leaves the channel to the prefetches and stores
/// of the layers around it (and costs less energy).
struct Cost {
  uint64_t Cycles = UINT64_MAX, Bytes = UINT64_MAX, Score = UINT64_MAX;
  Cost() = default;
  Cost(uint64_t Cycles, uint64_t Bytes, const isa::HwConfig &Hw)
      : Cycles(Cycles), Bytes(Bytes), Score(Cycles + Hw.dramCycles(Bytes) / 16) {}
  bool operator<(const Cost &O) const {
    return Score != O.Score ? Score < O.Score : Cycles < O.Cycles;
  }
};

/// How rounds are formed from the (output group, tile) work items.
enum class Packing {
  Tiles,    ///< CUs take consecutive tiles of one output group.
  Channels, ///< CUs take consecutive output groups of one tile.
  Mixed,    ///< Items in loop order, NCu to a round, whatever they are.
  Balanced, ///< As Mixed, but the largest tiles first (rounds of like sizes).
};

} // namespace

/// Fills the tile fields of P for shape (R, Wt); false if the input region
/// does not fit.
static bool setTile(LayerPlan &P, unsigned R, unsigned Wt, unsigned Stride, unsigned Extra,
                    const BufferMap &B) {
  const ir::Layer &L = *P.L;
  P.R = R;
  P.Wt = Wt;
  P.RowsIn = (R - 1) * P.bufStrideY() + L.KH;
  P.ColsIn = (roundUp(Wt, P.pix()) - 1) * P.bufStrideX() + L.KW;
  if (uint64_t(P.RowsIn) * P.ColsIn * Stride + Extra > B.InCap)
    return false;
  P.NRowBlocks = ceilDiv(L.Out.H, R);
  P.NColBlocks = ceilDiv(L.Out.W, Wt);
  P.NTiles = P.NRowBlocks * P.NColBlocks;
  return true;
}

/// Builds P.Rounds: the work items (every output group of every tile) in
/// loop order (output groups outermost unless map-stationary), NCu to a round.
static void makeRounds(LayerPlan &P, unsigned NCu, Packing How) {
  assert(NCu <= MaxCus && "HwConfig validation limits the CUs to the mask width");
  P.Rounds.clear();
  const unsigned NOg = P.NOg, NT = P.NTiles;
  Round Rd;
  unsigned Filled = 0;
  auto Flush = [&] {
    if (!Filled)
      return;
    // Elementwise operands are accumulator entries laid out R x Wt in the
    // input region: the entries keep the region's pitch.
    if (P.Elementwise)
      Rd.ExtC = P.Wt;
    // A multi-pixel trace takes pix() pixels of one row.
    Rd.ExtC = roundUp(Rd.ExtC, P.pix());
    P.Rounds.push_back(Rd);
    Rd = Round();
    Filled = 0;
  };
  auto Put = [&](unsigned Cu, Work W) {
    Rd.Cus[Cu] = W;
    Rd.ExtR = std::max(Rd.ExtR, P.validRows(unsigned(W.Tile)));
    Rd.ExtC = std::max(Rd.ExtC, P.validCols(unsigned(W.Tile)));
    ++Filled;
  };
  if (How == Packing::Tiles || How == Packing::Channels) {
    // Aligned rounds: a group of NCu tiles (or output groups) never mixes
    // with the next output group (or tile).
    const bool ByTile = How == Packing::Tiles;
    const unsigned Outer = ByTile ? NOg : NT, Inner = ceilDiv(ByTile ? NT : NOg, NCu);
    auto Emit = [&](unsigned O, unsigned G) {
      for (unsigned Cu = 0; Cu < NCu; ++Cu) {
        unsigned K = G * NCu + Cu;
        if (K < (ByTile ? NT : NOg))
          Put(Cu, ByTile ? Work{int(O), int(K)} : Work{int(K), int(O)});
      }
      Flush();
    };
    // Kernel-stationary keeps output groups outermost, map-stationary tiles.
    const bool OuterFirst = ByTile != P.MapStationary;
    for (unsigned A = 0; A < (OuterFirst ? Outer : Inner); ++A)
      for (unsigned B = 0; B < (OuterFirst ? Inner : Outer); ++B)
        OuterFirst ? Emit(A, B) : Emit(B, A);
    return;
  }
  // Items in loop order; Balanced visits them largest tiles first (a tile's
  // size is one of at most four: whole or edge rows times whole or edge
  // columns), keeping the loop order within a size.
  std::vector<unsigned> Size(NT), Sizes;
  for (unsigned T = 0; T < NT; ++T)
    Size[T] = P.validRows(T) * P.validCols(T);
  if (How == Packing::Balanced) {
    for (unsigned T = 0; T < NT; ++T)
      if (std::find(Sizes.begin(), Sizes.end(), Size[T]) == Sizes.end())
        Sizes.push_back(Size[T]);
    std::sort(Sizes.rbegin(), Sizes.rend());
  } else {
    Sizes.push_back(0);
  }
  for (unsigned Sz : Sizes)
    for (unsigned A = 0; A < (P.MapStationary ? NT : NOg); ++A)
      for (unsigned B = 0; B < (P.MapStationary ? NOg : NT); ++B) {
        Work W = P.MapStationary ? Work{int(B), int(A)} : Work{int(A), int(B)};
        if (Sz && Size[unsigned(W.Tile)] != Sz)
          continue;
        Put(Filled, W);
        if (Filled == NCu)
          Flush();
      }
  Flush();
}

namespace {

/// What the cost model needs of one round, independent of channel chunks.
struct RoundInfo {
  uint32_t Pixels = 0, Ogs = 0, Tiles = 0, Active = 0; ///< Pixels: entries (traces).
  uint32_t Rows = 0; ///< Output rows the round's loop covers.
  bool OgChanged = true, TileChanged = true;
};

/// ... and of a whole round list.
struct RoundSummary {
  std::vector<RoundInfo> Rounds;
  uint64_t Pixels = 0;
  uint64_t OgLoads = 0, OgLoadsOnChange = 0;     ///< Distinct output groups per round.
  uint64_t TileLoads = 0, TileLoadsOnChange = 0; ///< Distinct tiles per round.
};

RoundSummary summarize(const LayerPlan &P, unsigned NCu) {
  RoundSummary S;
  const Round *Prev = nullptr;
  std::vector<int> Ogs, Tiles;
  for (const Round &Rd : P.Rounds) {
    Ogs.clear();
    Tiles.clear();
    RoundInfo I;
    I.OgChanged = I.TileChanged = !Prev;
    for (unsigned Cu = 0; Cu < NCu; ++Cu) {
      const Work &W = Rd.Cus[Cu];
      if (Prev && (Prev->Cus[Cu].Og != W.Og || Prev->Cus[Cu].active() != W.active()))
        I.OgChanged = true;
      if (Prev && Prev->Cus[Cu].Tile != W.Tile)
        I.TileChanged = true;
      if (!W.active())
        continue;
      ++I.Active;
      if (std::find(Ogs.begin(), Ogs.end(), W.Og) == Ogs.end())
        Ogs.push_back(W.Og);
      if (std::find(Tiles.begin(), Tiles.end(), W.Tile) == Tiles.end())
        Tiles.push_back(W.Tile);
    }
    I.Pixels = Rd.pixels() >> P.PixLog; // Traces: one per accumulator entry.
    I.Rows = Rd.ExtR;
    I.Ogs = uint32_t(Ogs.size());
    I.Tiles = uint32_t(Tiles.size());
    S.Pixels += I.Pixels;
    S.OgLoads += I.Ogs;
    S.TileLoads += I.Tiles;
    S.OgLoadsOnChange += I.OgChanged ? I.Ogs : 0;
    S.TileLoadsOnChange += I.TileChanged ? I.Tiles : 0;
    S.Rounds.push_back(I);
    Prev = &Rd;
  }
  return S;
}

} // namespace

/// The cost of a conv plan. A quick bound first, max(compute, DRAM transfer)
/// over the whole layer; if it cannot beat Bound, that is the answer.
/// Otherwise the steps are played through a model of the double-buffered
/// pipeline: a step's loads start once the channel is free and the bank they
/// overwrite has been computed on (two steps back), its compute once its data
/// has landed and the previous step's compute is done; a writing step's
/// stores share the channel with the next loads. The first step's weights
/// come early (prefetched during the layer before), its maps do not.
static Cost convCost(const LayerPlan &P, const RoundSummary &S, const isa::HwConfig &Hw,
                     uint64_t Bound) {
  const ir::Layer &L = *P.L;
  const uint64_t KK = uint64_t(L.KH) * L.KW, Cin = L.In.C, V = Hw.VmacsPerCu;
  const uint64_t OgCh = P.ogChannels(V * Hw.LanesPerVmac), Overhead = 20;
  const uint64_t Wb = Hw.writebackCyclesPerEntry();
  const uint64_t Rounds = S.Rounds.size();
  uint64_t Compute = S.Pixels * (KK * Cin + Wb) + Rounds * (Overhead * P.NChunks + Hw.MacPipelineDepth);
  uint64_t RegionRows = std::min<uint64_t>(P.RowsIn, (L.In.H + L.PadT + L.PadB) / P.StepY);
  uint64_t RegionCols = std::min<uint64_t>(P.ColsIn, (L.In.W + L.PadL + L.PadR) / P.StepX);
  const bool Chunked = P.NChunks > 1 && !P.FullDepth;
  // A tile's maps for chunk C; short DMA rows are rounded out to whole bursts.
  auto TileBytes = [&](unsigned C) {
    uint64_t PixelBytes = uint64_t(P.FullDepth ? Cin : P.chunkSize(C, Cin)) * 2;
    if (Chunked)
      PixelBytes = roundUp(unsigned(PixelBytes), Hw.DramBurstBytes);
    return RegionRows * RegionCols * PixelBytes;
  };
  // Each vMAC gets its block; with multi-pixel traces the groups' vMACs
  // load the same blocks (one transfer each).
  auto OgBytes = [&](unsigned C) { return V * Hw.LanesPerVmac * 2 * (KK * P.chunkSize(C, Cin) + (C == 0)); };
  uint64_t AllTileBytes = 0;
  for (unsigned C = 0; C < (Chunked ? P.NChunks : 1); ++C)
    AllTileBytes += TileBytes(C);
  if (!Chunked && P.NChunks > 1)
    AllTileBytes = TileBytes(0);
  // A CU stores its channels of each pixel; unless those are whole pixels of
  // the output tensor, every pixel is a DMA row of its own, rounded out to
  // whole bursts. A fused residual is loaded the same way before the
  // writeback.
  const uint64_t SliceBytes = std::min<uint64_t>(OgCh, P.OcCount) * 2;
  const bool WholePixels = !P.OutIsSlice && P.OcCount == L.Out.C && OgCh >= P.OcCount;
  const uint64_t PixelOut =
      WholePixels ? SliceBytes : roundUp(unsigned(SliceBytes), Hw.DramBurstBytes);
  const uint64_t PixelIo = PixelOut * (L.HasResidual ? 2 : 1);
  const uint64_t OutBytes = uint64_t(L.Out.H) * L.Out.W * ceilDiv(P.OcCount, OgCh) * PixelIo;
  // With several chunks every round reloads its chunks; with one, a round
  // loads only what differs from the round before.
  uint64_t MapLoads = Chunked ? S.TileLoads : S.TileLoadsOnChange;
  uint64_t WLoads = P.NChunks > 1 ? S.OgLoads : S.OgLoadsOnChange;
  uint64_t Bytes = AllTileBytes * MapLoads +
                   uint64_t(V) * Hw.LanesPerVmac * 2 * (KK * Cin + 1) * WLoads + OutBytes;
  uint64_t Quick = std::max(Compute, Hw.dramCycles(Bytes));
  if (Quick >= Bound)
    return {Quick, Bytes, Hw};

  // The control core issues one instruction a cycle, in program order: the
  // trace loop (4 per trace, 4 per row), 3 per DMA operation (two address
  // registers and the operation), fills and synchronization. A step whose
  // instructions outnumber its compute cycles is issue-bound.
  const uint64_t MapDmas = Chunked || P.StepX > 1 ? RegionRows : 1;
  const uint64_t StoreDmas = P.Wt >= L.Out.W ? 1 : 0; // Else one per tile row.
  uint64_t ChanFree = 0, CPrev = 0, CPrev2 = 0, Pending = 0, Issued = 0;
  bool FirstStep = true;
  for (const RoundInfo &I : S.Rounds)
    for (unsigned C = 0; C < P.NChunks; ++C) {
      const bool Last = C + 1 == P.NChunks;
      uint64_t Comp = I.Pixels * KK * P.chunkSize(C, Cin) + Overhead;
      if (Last)
        Comp += I.Pixels * Wb + Hw.MacPipelineDepth;
      uint64_t In = 0, Ctrl = I.Pixels * 4 + I.Rows * 4 + 16;
      if (!FirstStep && (P.NChunks > 1 || I.OgChanged)) {
        In += I.Ogs * OgBytes(C);
        Ctrl += I.Ogs * V * 3 + 2;
      }
      if (Chunked || (C == 0 && I.TileChanged)) {
        In += I.Tiles * TileBytes(C);
        Ctrl += I.Tiles * (MapDmas * 3 + 4) + 2;
      }
      if (Last) {
        uint64_t Dmas = I.Active * (StoreDmas ? 1 : I.Rows) * (L.HasResidual ? 2 : 1);
        Ctrl += Dmas * 3 + 6;
      }
      if (Last && L.HasResidual) // The residual tile, loaded before the writeback.
        In += uint64_t(I.Active) * (I.Pixels << P.PixLog) * PixelOut;
      uint64_t Start = std::max(ChanFree, CPrev2);
      ChanFree = Start + Hw.dramCycles(In + Pending);
      uint64_t Ready = In ? ChanFree + Hw.DramLatencyCycles : 0;
      Pending = Last ? uint64_t(I.Active) * (I.Pixels << P.PixLog) * PixelOut : 0;
      Issued += Ctrl;
      CPrev2 = CPrev;
      CPrev = std::max(std::max(CPrev, Ready) + Comp, Issued);
      FirstStep = false;
    }
  return {CPrev + Hw.dramCycles(Pending) + Hw.DramLatencyCycles, Bytes, Hw};
}

static Cost poolCost(const LayerPlan &P, const isa::HwConfig &Hw) {
  const ir::Layer &L = *P.L;
  const uint64_t KK = uint64_t(L.KH) * L.KW;
  uint64_t Groups = 0;
  for (unsigned C = 0; C < P.NChunks; ++C)
    Groups += ceilDiv(P.chunkSize(C, L.In.C), Hw.LanesPerVmac);
  uint64_t Pixels = 0;
  for (const Round &Rd : P.Rounds)
    Pixels += Rd.pixels();
  // Each window costs KK cycles, but the control core needs ~3 instructions
  // to issue it, so short windows are issue-bound.
  uint64_t Compute = Pixels * Groups * std::max<uint64_t>(KK, 3) + P.Rounds.size() * 20 * P.NChunks;
  uint64_t Bytes = uint64_t(P.NTiles) * P.RowsIn * P.ColsIn * L.In.C * 2 + L.Out.elems() * 2;
  return {std::max(Compute, Hw.dramCycles(Bytes)), Bytes, Hw};
}

/// Whether some round gives CUs different output groups of one tile.
static bool splitsChannels(const LayerPlan &P) {
  for (const Round &Rd : P.Rounds)
    for (size_t A = 0; A < Rd.Cus.size(); ++A)
      for (size_t B = A + 1; B < Rd.Cus.size(); ++B)
        if (Rd.Cus[A].active() && Rd.Cus[A].Tile == Rd.Cus[B].Tile && Rd.Cus[A].Og != Rd.Cus[B].Og)
          return true;
  return false;
}

/// Plans output channels [OcBase, OcBase + OcCount) of L with 2^PixLog-pixel
/// traces (PixLog > 0 only for dense convs).
static llvm::Expected<std::pair<LayerPlan, Cost>>
planPart(const ir::Layer &L, unsigned Index, bool OutIsSlice, const isa::HwConfig &Hw,
         const BufferMap &B, const CompileOptions &Opts, unsigned OcBase, unsigned OcCount,
         unsigned PixLog) {
  LayerPlan P;
  P.L = &L;
  P.Index = Index;
  P.OutIsSlice = OutIsSlice;
  P.OcBase = OcBase;
  P.OcCount = OcCount;
  P.PixLog = PixLog;
  P.IsConv = L.Kind == ir::LayerKind::Conv;
  P.PadValue = L.Kind == ir::LayerKind::MaxPool ? INT16_MIN : 0;
  const unsigned NCu = Hw.cus(), Lanes = Hw.LanesPerVmac, G = Hw.VmacsPerCu * Lanes;
  const unsigned C = L.In.C, KK = L.KH * L.KW;

  // The cheapest choice so far; the plan is rebuilt from it at the end.
  struct Choice {
    unsigned R = 0, Wt = 0, Chunk = 0;
    bool MS = false, Full = false;
    Packing How = Packing::Tiles;
  } Best;
  Cost BestCost;
  auto Consider = [&](const Cost &Ct, const Choice &Ch) {
    if (Ct < BestCost) {
      BestCost = Ct;
      Best = Ch;
    }
  };

  P.Depthwise = P.IsConv && L.Groups > 1 && L.Groups == C && L.Groups == L.Out.C;
  P.Elementwise = L.Kind == ir::LayerKind::Add || L.Kind == ir::LayerKind::Relu;
  // Per-channel-group layers (depthwise, elementwise, pooling): CUs take
  // different tiles of one group; output group g reads chunk g.
  unsigned Stride = 0, Extra = 0;
  if (P.Elementwise) {
    // Operands go to the input region as accumulator-sized entries (one per
    // pixel, a group of channels each); an add needs room for both.
    const unsigned Operands = L.Kind == ir::LayerKind::Add ? 2 : 1;
    P.NOg = ceilDiv(L.Out.C, G);
    P.Chunk = G;
    P.NChunks = P.NOg;
    Stride = G * Operands;
    unsigned PMax = std::min({Hw.AccEntries, B.OutCap / G, B.InCap / (G * Operands), 4095u});
    for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax)) {
      if (!setTile(P, R, Wt, Stride, 0, B))
        continue;
      makeRounds(P, NCu, Packing::Tiles);
      uint64_t Pix = 0;
      for (const Round &Rd : P.Rounds)
        Pix += Rd.pixels();
      uint64_t Compute = Pix * Hw.writebackCyclesPerEntry() * (Operands + 1) + P.Rounds.size() * 20;
      uint64_t Bytes = L.Out.elems() * 2 * (Operands + 1);
      Consider({std::max(Compute, Hw.dramCycles(Bytes)), Bytes, Hw}, {R, Wt, G});
    }
  } else if (P.Depthwise) {
    if (KK + 1 > B.WCap)
      return planError(L, fmt::format("a {}x{} depthwise kernel needs {} weight words per vMAC, "
                                      "but a weights bank holds {}",
                                      L.KH, L.KW, KK + 1, B.WCap));
    P.NOg = ceilDiv(L.Out.C, G);
    P.Chunk = G;
    P.NChunks = P.NOg;
    Stride = G;
    unsigned PMax = std::min({Hw.AccEntries, B.OutCap / G, 4095u});
    for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax)) {
      if (!setTile(P, R, Wt, Stride, 0, B))
        continue;
      makeRounds(P, NCu, Packing::Tiles);
      uint64_t Pix = 0;
      for (const Round &Rd : P.Rounds)
        Pix += Rd.pixels();
      uint64_t Compute = Pix * (KK + Hw.writebackCyclesPerEntry()) + P.Rounds.size() * 20;
      uint64_t Bytes = uint64_t(P.NTiles) * P.RowsIn * P.ColsIn * C * 2 + L.Out.elems() * 2;
      Consider({std::max(Compute, Hw.dramCycles(Bytes)), Bytes, Hw}, {R, Wt, G});
    }
  } else if (P.IsConv) {
    if (KK + 1 > B.WCap)
      return planError(L, fmt::format("a {}x{} kernel needs {} weight words per vMAC, but a "
                                      "weights bank holds {}",
                                      L.KH, L.KW, KK + 1, B.WCap));
    P.NOg = ceilDiv(OcCount, P.ogChannels(G));
    if (Opts.GatherStrided && KK == 1 && (L.SH > 1 || L.SW > 1) && !L.PadT && !L.PadB &&
        !L.PadL && !L.PadR) {
      P.StepY = L.SH;
      P.StepX = L.SW;
    }
    std::vector<Packing> Packings = {Packing::Tiles};
    if (NCu > 1 && Opts.SplitChannels) {
      if (P.NOg > 1)
        Packings.push_back(Packing::Channels);
      Packings.push_back(Packing::Mixed);
    }
    if (NCu > 1 && Opts.BalanceRounds)
      Packings.push_back(Packing::Balanced);
    const unsigned PMax = std::min({Hw.AccEntries, B.OutCap / G, 4095u}) * P.pix();
    const unsigned MinChunks = ceilDiv(C, (B.WCap - 1) / KK);
    for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax))
      for (bool MS : {false, true}) {
        if (R * roundUp(Wt, P.pix()) > PMax)
          continue;
        setTile(P, R, Wt, 0, 0, B);
        // With one output group or one tile both loop orders are the same.
        if (MS && (!Opts.LoopReorder || P.NOg == 1 || P.NTiles == 1))
          continue;
        for (Packing How : Packings) {
          // Skip packings that give the same rounds as another: Mixed is
          // Tiles with one output group and Channels with one tile;
          // Balanced is Mixed when every tile has the same size.
          if (How == Packing::Mixed && (P.NOg == 1 || P.NTiles == 1))
            continue;
          if (How == Packing::Balanced && L.Out.H % R == 0 && L.Out.W % Wt == 0)
            continue;
          P.MapStationary = MS;
          makeRounds(P, NCu, How);
          const RoundSummary S = summarize(P, NCu);
          unsigned LastChunk = 0;
          for (unsigned N = MinChunks; N <= C && N < MinChunks + 4; ++N) {
            P.Chunk = ceilDiv(C, N);
            if (P.Chunk == LastChunk)
              continue;
            LastChunk = P.Chunk;
            P.NChunks = ceilDiv(C, P.Chunk);
            for (bool Full : {false, true}) {
              // Full-depth tiles need a one-pixel-wide kernel (each trace row
              // is then one contiguous run of a chunk's channels) and several
              // chunks.
              if (Full && (L.KW != 1 || P.NChunks == 1 || !Opts.FullDepthMaps))
                continue;
              P.FullDepth = Full;
              if (!setTile(P, R, Wt, Full ? C : P.Chunk, 0, B))
                continue;
              Consider(convCost(P, S, Hw, BestCost.Score), {R, Wt, P.Chunk, MS, Full, How});
            }
          }
        }
      }
  } else {
    unsigned LastStride = 0;
    for (unsigned N = 1; N <= ceilDiv(C, Lanes); ++N) {
      P.Chunk = N == 1 ? C : roundUp(ceilDiv(C, N), Lanes);
      P.NChunks = ceilDiv(C, P.Chunk);
      unsigned S = roundUp(P.Chunk, Lanes);
      if (S == LastStride)
        continue;
      LastStride = S;
      unsigned PMax = std::min(B.OutCap / S, 4095u);
      for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax)) {
        if (!setTile(P, R, Wt, S, Lanes, B))
          continue;
        makeRounds(P, NCu, Packing::Tiles);
        Consider(poolCost(P, Hw), {R, Wt, P.Chunk});
      }
      if (BestCost.Cycles != UINT64_MAX) {
        Stride = S;
        Extra = Lanes;
        break;
      }
    }
  }
  if (BestCost.Cycles == UINT64_MAX)
    return planError(L, fmt::format("even a 1x1 output tile needs a {}x{} input window that does "
                                    "not fit the {}-element input region of the maps buffer",
                                    L.KH, L.KW, B.InCap));
  // Rebuild the chosen plan.
  P.Chunk = Best.Chunk;
  P.NChunks = ceilDiv(C, P.Chunk);
  if (P.Depthwise || P.Elementwise)
    P.NChunks = P.NOg;
  P.FullDepth = Best.Full;
  P.MapStationary = Best.MS;
  if (P.IsConv && !P.Depthwise)
    Stride = Best.Full ? C : P.Chunk;
  bool Fits = setTile(P, Best.R, Best.Wt, Stride, Extra, B);
  assert(Fits && "the chosen tile was checked when it was considered");
  (void)Fits;
  makeRounds(P, NCu, Best.How);
  P.Balanced = Best.How == Packing::Balanced;
  P.SplitChannels = splitsChannels(P);
  P.EstCycles = BestCost.Cycles;
  P.EstDramBytes = BestCost.Bytes;
  return std::make_pair(std::move(P), BestCost);
}

llvm::Expected<std::vector<LayerPlan>> snow::compiler::planLayer(const ir::Layer &L,
                                                                unsigned Index, bool OutIsSlice,
                                                                const isa::HwConfig &Hw,
                                                                const BufferMap &B,
                                                                const CompileOptions &Opts) {
  const unsigned V = Hw.VmacsPerCu, G = V * Hw.LanesPerVmac, Cout = L.Out.C;
  auto Whole = planPart(L, Index, OutIsSlice, Hw, B, Opts, 0, Cout, 0);
  if (!Whole)
    return Whole.takeError();
  std::vector<LayerPlan> Best;
  Best.push_back(std::move(Whole->first));
  Cost BestCost = Whole->second;
  const bool Dense = L.Kind == ir::LayerKind::Conv && !Best[0].Depthwise;
  // Multi-pixel traces are for lanes that would idle: output channels that
  // do not fill whole groups of vmacs x lanes.
  if (!Dense || !Opts.MultiPixel || Cout % G == 0)
    return Best;
  // The whole layer with 2^K pixels per trace, or whole output groups of one
  // pixel and the remaining channels with 2^K pixels.
  const unsigned Whole1 = Cout / G * G;
  std::optional<std::pair<LayerPlan, Cost>> WholeGroups;
  if (Whole1 > 0) {
    auto A = planPart(L, Index, OutIsSlice, Hw, B, Opts, 0, Whole1, 0);
    if (!A)
      return A.takeError(); // The whole layer planned, so should its first groups.
    WholeGroups = std::move(*A);
  }
  for (unsigned K = 1; (1u << K) <= V; ++K) {
    if (V % (1u << K) != 0)
      continue;
    auto One = planPart(L, Index, OutIsSlice, Hw, B, Opts, 0, Cout, K);
    if (One && One->second < BestCost) {
      BestCost = One->second;
      Best.clear();
      Best.push_back(std::move(One->first));
    } else if (!One) {
      llvm::consumeError(One.takeError()); // This mode does not fit; others do.
    }
    if (!WholeGroups)
      continue;
    auto Rest = planPart(L, Index, OutIsSlice, Hw, B, Opts, Whole1, Cout - Whole1, K);
    if (!Rest) {
      llvm::consumeError(Rest.takeError());
      continue;
    }
    const auto &[A, ACost] = *WholeGroups;
    Cost Sum{ACost.Cycles + Rest->second.Cycles, ACost.Bytes + Rest->second.Bytes, Hw};
    if (Sum < BestCost) {
      BestCost = Sum;
      Best.clear();
      Best.push_back(A);
      Best.push_back(std::move(Rest->first));
      Best[0].LastPart = false;
      Best[1].FirstPart = false;
    }
  }
  return Best;
}
