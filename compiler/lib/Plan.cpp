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

struct Cost {
  uint64_t Cycles = UINT64_MAX, Bytes = UINT64_MAX;
  bool operator<(const Cost &O) const {
    return Cycles != O.Cycles ? Cycles < O.Cycles : Bytes < O.Bytes;
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
  P.ColsIn = (Wt - 1) * P.bufStrideX() + L.KW;
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
  P.Rounds.clear();
  const unsigned NOg = P.NOg, NT = P.NTiles;
  auto Push = [&](std::vector<Work> Cus) {
    Round Rd;
    Rd.Cus = std::move(Cus);
    for (const Work &W : Rd.Cus)
      if (W.active()) {
        Rd.ExtR = std::max(Rd.ExtR, P.validRows(unsigned(W.Tile)));
        Rd.ExtC = std::max(Rd.ExtC, P.validCols(unsigned(W.Tile)));
      }
    // Elementwise operands are accumulator entries laid out R x Wt in the
    // input region: the entries keep the region's pitch.
    if (P.Elementwise && Rd.ExtC)
      Rd.ExtC = P.Wt;
    P.Rounds.push_back(std::move(Rd));
  };
  if (How == Packing::Tiles || How == Packing::Channels) {
    // Aligned rounds: a group of NCu tiles (or output groups) never mixes
    // with the next output group (or tile).
    const bool ByTile = How == Packing::Tiles;
    const unsigned Outer = ByTile ? NOg : NT, Inner = ceilDiv(ByTile ? NT : NOg, NCu);
    auto Emit = [&](unsigned O, unsigned G) {
      std::vector<Work> Cus(NCu);
      for (unsigned Cu = 0; Cu < NCu; ++Cu) {
        unsigned K = G * NCu + Cu;
        if (K < (ByTile ? NT : NOg))
          Cus[Cu] = ByTile ? Work{int(O), int(K)} : Work{int(K), int(O)};
      }
      Push(std::move(Cus));
    };
    // Kernel-stationary keeps output groups outermost, map-stationary tiles.
    const bool OuterFirst = ByTile != P.MapStationary;
    for (unsigned A = 0; A < (OuterFirst ? Outer : Inner); ++A)
      for (unsigned B = 0; B < (OuterFirst ? Inner : Outer); ++B)
        OuterFirst ? Emit(A, B) : Emit(B, A);
    return;
  }
  std::vector<Work> Items;
  Items.reserve(size_t(NOg) * NT);
  for (unsigned A = 0; A < (P.MapStationary ? NT : NOg); ++A)
    for (unsigned B = 0; B < (P.MapStationary ? NOg : NT); ++B)
      Items.push_back(P.MapStationary ? Work{int(B), int(A)} : Work{int(A), int(B)});
  if (How == Packing::Balanced)
    std::stable_sort(Items.begin(), Items.end(), [&](const Work &X, const Work &Y) {
      return P.validRows(X.Tile) * P.validCols(X.Tile) > P.validRows(Y.Tile) * P.validCols(Y.Tile);
    });
  for (size_t I = 0; I < Items.size(); I += NCu) {
    std::vector<Work> Cus(NCu);
    for (unsigned Cu = 0; Cu < NCu && I + Cu < Items.size(); ++Cu)
      Cus[Cu] = Items[I + Cu];
    Push(std::move(Cus));
  }
}

namespace {

/// What the cost model needs of a round list, independent of channel chunks.
struct RoundSummary {
  uint64_t Rounds = 0, Pixels = 0;
  uint64_t OgLoads = 0, OgLoadsOnChange = 0;     ///< Distinct output groups per round.
  uint64_t TileLoads = 0, TileLoadsOnChange = 0; ///< Distinct tiles per round.
  uint64_t FirstTiles = 0; ///< Distinct tiles of the first round.
};

RoundSummary summarize(const LayerPlan &P) {
  RoundSummary S;
  const Round *Prev = nullptr;
  std::vector<int> Ogs, Tiles;
  for (const Round &Rd : P.Rounds) {
    Ogs.clear();
    Tiles.clear();
    bool OgChanged = !Prev, TileChanged = !Prev;
    for (size_t Cu = 0; Cu < Rd.Cus.size(); ++Cu) {
      const Work &W = Rd.Cus[Cu];
      if (Prev && (Prev->Cus[Cu].Og != W.Og || Prev->Cus[Cu].active() != W.active()))
        OgChanged = true;
      if (Prev && Prev->Cus[Cu].Tile != W.Tile)
        TileChanged = true;
      if (!W.active())
        continue;
      if (std::find(Ogs.begin(), Ogs.end(), W.Og) == Ogs.end())
        Ogs.push_back(W.Og);
      if (std::find(Tiles.begin(), Tiles.end(), W.Tile) == Tiles.end())
        Tiles.push_back(W.Tile);
    }
    if (!Prev)
      S.FirstTiles = Tiles.size();
    ++S.Rounds;
    S.Pixels += Rd.pixels();
    S.OgLoads += Ogs.size();
    S.TileLoads += Tiles.size();
    if (OgChanged)
      S.OgLoadsOnChange += Ogs.size();
    if (TileChanged)
      S.TileLoadsOnChange += Tiles.size();
    Prev = &Rd;
  }
  return S;
}

} // namespace

static Cost convCost(const LayerPlan &P, const RoundSummary &S, const isa::HwConfig &Hw) {
  const ir::Layer &L = *P.L;
  const uint64_t KK = uint64_t(L.KH) * L.KW, Cin = L.In.C, V = Hw.VmacsPerCu;
  // Per round: the traces, ~20 cycles of synchronization and loop set-up per
  // chunk, the writeback (one cycle per vMAC per pixel) and the pipeline drain.
  uint64_t Compute = S.Pixels * (KK * Cin + V) + S.Rounds * (20 * P.NChunks + Hw.MacPipelineDepth);
  uint64_t RegionRows = std::min<uint64_t>(P.RowsIn, (L.In.H + L.PadT + L.PadB) / P.StepY);
  uint64_t RegionCols = std::min<uint64_t>(P.ColsIn, (L.In.W + L.PadL + L.PadR) / P.StepX);
  uint64_t TileBytes = RegionRows * RegionCols * Cin * 2;
  if (P.NChunks > 1 && !P.FullDepth) // Short DMA rows are rounded out to whole bursts.
    TileBytes = TileBytes / (P.Chunk * 2) * roundUp(P.Chunk * 2, Hw.DramBurstBytes);
  const uint64_t OgBytes = V * Hw.LanesPerVmac * 2 * (KK * Cin + 1);
  // With several chunks every round reloads its chunks; with one, a round
  // loads only what differs from the round before.
  uint64_t MapLoads = P.NChunks > 1 && !P.FullDepth ? S.TileLoads : S.TileLoadsOnChange;
  uint64_t WLoads = P.NChunks > 1 ? S.OgLoads : S.OgLoadsOnChange;
  uint64_t Bytes = TileBytes * MapLoads + OgBytes * WLoads + L.Out.elems() * 2;
  // The first round's maps wait for the layer's inputs to be stored: their
  // transfer is exposed (the weights were prefetched during the layer before).
  uint64_t FirstMaps = S.FirstTiles * TileBytes / (P.FullDepth ? 1 : P.NChunks);
  uint64_t Exposed = Hw.dramCycles(FirstMaps) + Hw.DramLatencyCycles;
  return {std::max(Compute, Hw.dramCycles(Bytes)) + Exposed, Bytes};
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
  return {std::max(Compute, Hw.dramCycles(Bytes)), Bytes};
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

llvm::Expected<LayerPlan> snow::compiler::planLayer(const ir::Layer &L, unsigned Index,
                                                   const isa::HwConfig &Hw, const BufferMap &B,
                                                   const CompileOptions &Opts) {
  LayerPlan P;
  P.L = &L;
  P.Index = Index;
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
      uint64_t Compute = Pix * Hw.VmacsPerCu * (Operands + 1) + P.Rounds.size() * 20;
      uint64_t Bytes = L.Out.elems() * 2 * (Operands + 1);
      Consider({std::max(Compute, Hw.dramCycles(Bytes)), Bytes}, {R, Wt, G});
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
      uint64_t Compute = Pix * (KK + Hw.VmacsPerCu) + P.Rounds.size() * 20;
      uint64_t Bytes = uint64_t(P.NTiles) * P.RowsIn * P.ColsIn * C * 2 + L.Out.elems() * 2;
      Consider({std::max(Compute, Hw.dramCycles(Bytes)), Bytes}, {R, Wt, G});
    }
  } else if (P.IsConv) {
    if (KK + 1 > B.WCap)
      return planError(L, fmt::format("a {}x{} kernel needs {} weight words per vMAC, but a "
                                      "weights bank holds {}",
                                      L.KH, L.KW, KK + 1, B.WCap));
    P.NOg = ceilDiv(L.Out.C, G);
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
    const unsigned PMax = std::min({Hw.AccEntries, B.OutCap / G, 4095u});
    const unsigned MinChunks = ceilDiv(C, (B.WCap - 1) / KK);
    for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax))
      for (bool MS : {false, true}) {
        if (MS && !Opts.LoopReorder)
          continue;
        for (Packing How : Packings) {
          if (!setTile(P, R, Wt, 0, 0, B))
            continue;
          P.MapStationary = MS;
          makeRounds(P, NCu, How);
          const RoundSummary S = summarize(P);
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
              Consider(convCost(P, S, Hw), {R, Wt, P.Chunk, MS, Full, How});
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
  return P;
}
