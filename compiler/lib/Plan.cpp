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

namespace {

/// Candidate output tiles (rows x cols per CU) with at most PMax pixels:
/// whole output rows first, then column splits.
std::vector<std::pair<unsigned, unsigned>> tileShapes(unsigned Hout, unsigned Wout,
                                                      unsigned PMax) {
  std::vector<std::pair<unsigned, unsigned>> S;
  unsigned LastWt = 0;
  for (unsigned K = 1; K <= std::min(Wout, 64u); ++K) {
    unsigned Wt = ceilDiv(Wout, K);
    if (Wt == LastWt || Wt > PMax)
      continue;
    LastWt = Wt;
    for (unsigned R = 1; R <= std::min(Hout, PMax / Wt); ++R)
      S.push_back({R, Wt});
  }
  return S;
}

struct Cost {
  uint64_t Cycles = UINT64_MAX, Bytes = UINT64_MAX;
  bool operator<(const Cost &O) const {
    return Cycles != O.Cycles ? Cycles < O.Cycles : Bytes < O.Bytes;
  }
};

} // namespace

/// Fills the tile fields of P for shape (R, Wt); false if the input region
/// does not fit.
static bool setTile(LayerPlan &P, unsigned R, unsigned Wt, unsigned Stride, unsigned Extra,
                    unsigned NCu, const BufferMap &B) {
  if (P.SplitChannels)
    NCu = 1; // Every CU works on the same tile.
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
  P.NGroups = ceilDiv(P.NTiles, NCu);
  P.OgSteps = P.SplitChannels ? ceilDiv(P.NOg, P.CusForSplit) : P.NOg;
  return true;
}

static Cost convCost(const LayerPlan &P, const isa::HwConfig &Hw, bool MapStationary) {
  const ir::Layer &L = *P.L;
  const uint64_t KK = uint64_t(L.KH) * L.KW, Cin = L.In.C;
  const uint64_t Pix = P.tilePixels(), V = Hw.VmacsPerCu;
  // Per step: the traces, ~20 cycles of synchronization and loop set-up per
  // chunk, the writeback (one cycle per vMAC per pixel) and the pipeline drain.
  uint64_t Compute = uint64_t(P.NGroups) * P.OgSteps *
                     (Pix * KK * Cin + 20 * P.NChunks + Pix * V + Hw.MacPipelineDepth);
  uint64_t RegionRows = std::min<uint64_t>(P.RowsIn, (L.In.H + L.PadT + L.PadB) / P.StepY);
  uint64_t RegionCols = std::min<uint64_t>(P.ColsIn, (L.In.W + L.PadL + L.PadR) / P.StepX);
  uint64_t MapBytes = uint64_t(P.NTiles) * RegionRows * RegionCols * Cin * 2;
  if (P.NChunks > 1 && !P.FullDepth) // Short DMA rows are rounded out to whole bursts.
    MapBytes = MapBytes / (P.Chunk * 2) * roundUp(P.Chunk * 2, Hw.DramBurstBytes);
  uint64_t WBytes = uint64_t(P.NOg) * V * Hw.LanesPerVmac * 2 * (KK * Cin + 1);
  uint64_t MapPasses, WPasses;
  const bool OneMapPerGroup = P.NChunks == 1 || P.FullDepth;
  if (!MapStationary) {
    MapPasses = OneMapPerGroup && P.NGroups == 1 ? 1 : P.OgSteps;
    WPasses = P.NChunks == 1 ? 1 : P.NGroups;
  } else {
    MapPasses = OneMapPerGroup ? 1 : P.OgSteps;
    WPasses = P.OgSteps == 1 && P.NChunks == 1 ? 1 : P.NGroups;
  }
  uint64_t Bytes = MapBytes * MapPasses + WBytes * WPasses + L.Out.elems() * 2;
  return {std::max(Compute, Hw.dramCycles(Bytes)), Bytes};
}

static Cost poolCost(const LayerPlan &P, const isa::HwConfig &Hw) {
  const ir::Layer &L = *P.L;
  const uint64_t KK = uint64_t(L.KH) * L.KW;
  uint64_t Groups = 0;
  for (unsigned C = 0; C < P.NChunks; ++C)
    Groups += ceilDiv(P.chunkSize(C, L.In.C), Hw.LanesPerVmac);
  // Each window costs KK cycles, but the control core needs ~3 instructions
  // to issue it, so short windows are issue-bound.
  uint64_t Compute = uint64_t(P.NGroups) * (P.tilePixels() * Groups * std::max<uint64_t>(KK, 3) +
                                            20 * P.NChunks);
  uint64_t Bytes = uint64_t(P.NTiles) * P.RowsIn * P.ColsIn * L.In.C * 2 + L.Out.elems() * 2;
  return {std::max(Compute, Hw.dramCycles(Bytes)), Bytes};
}

llvm::Expected<LayerPlan> snow::compiler::planLayer(const ir::Layer &L, unsigned Index,
                                                   const isa::HwConfig &Hw, const BufferMap &B,
                                                   const CompileOptions &Opts) {
  LayerPlan Best;
  Cost BestCost;
  LayerPlan P;
  P.L = &L;
  P.Index = Index;
  P.IsConv = L.Kind == ir::LayerKind::Conv;
  P.PadValue = L.Kind == ir::LayerKind::MaxPool ? INT16_MIN : 0;
  const unsigned NCu = Hw.cus(), Lanes = Hw.LanesPerVmac, G = Hw.VmacsPerCu * Lanes;
  const unsigned C = L.In.C, KK = L.KH * L.KW;

  P.Depthwise = P.IsConv && L.Groups > 1 && L.Groups == C && L.Groups == L.Out.C;
  P.Elementwise = L.Kind == ir::LayerKind::Add || L.Kind == ir::LayerKind::Relu;
  if (P.Elementwise) {
    // Operands go to the input region as accumulator-sized entries (one per
    // pixel, a group of channels each); an add needs room for both.
    const unsigned Operands = L.Kind == ir::LayerKind::Add ? 2 : 1;
    P.NOg = ceilDiv(L.Out.C, G);
    P.Chunk = G;
    P.NChunks = P.NOg;
    unsigned PMax = std::min({Hw.AccEntries, B.OutCap / G, B.InCap / (G * Operands), 4095u});
    for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax)) {
      if (!setTile(P, R, Wt, G * Operands, 0, NCu, B))
        continue;
      uint64_t Pix = P.tilePixels();
      uint64_t Compute = uint64_t(P.NGroups) * P.NOg * (Pix * Hw.VmacsPerCu * (Operands + 1) + 20);
      uint64_t Bytes = L.Out.elems() * 2 * (Operands + 1);
      Cost Ct{std::max(Compute, Hw.dramCycles(Bytes)), Bytes};
      if (Ct < BestCost) {
        BestCost = Ct;
        Best = P;
      }
    }
  } else if (P.Depthwise) {
    if (KK + 1 > B.WCap)
      return planError(L, fmt::format("a {}x{} depthwise kernel needs {} weight words per vMAC, "
                                      "but a weights bank holds {}",
                                      L.KH, L.KW, KK + 1, B.WCap));
    P.NOg = ceilDiv(L.Out.C, G);
    P.Chunk = G;
    P.NChunks = P.NOg;
    unsigned PMax = std::min({Hw.AccEntries, B.OutCap / G, 4095u});
    for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax)) {
      if (!setTile(P, R, Wt, G, 0, NCu, B))
        continue;
      uint64_t Pix = P.tilePixels();
      uint64_t Compute = uint64_t(P.NGroups) * P.NOg * (Pix * KK + 20 + Pix * Hw.VmacsPerCu);
      uint64_t Bytes = uint64_t(P.NTiles) * P.RowsIn * P.ColsIn * C * 2 + L.Out.elems() * 2;
      Cost Ct{std::max(Compute, Hw.dramCycles(Bytes)), Bytes};
      if (Ct < BestCost) {
        BestCost = Ct;
        Best = P;
      }
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
    unsigned PMax = std::min({Hw.AccEntries, B.OutCap / G, 4095u});
    unsigned MinChunks = ceilDiv(C, (B.WCap - 1) / KK);
    unsigned LastChunk = 0;
    for (unsigned N = MinChunks; N <= C && N < MinChunks + 4; ++N) {
      P.Chunk = ceilDiv(C, N);
      if (P.Chunk == LastChunk)
        continue;
      LastChunk = P.Chunk;
      P.NChunks = ceilDiv(C, P.Chunk);
      for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax))
        for (bool Split : {false, true})
        for (bool Full : {false, true}) {
        if (Split && (!Opts.SplitChannels || NCu == 1 || P.NOg == 1))
          continue;
        P.SplitChannels = Split;
        P.CusForSplit = NCu;
        // Full-depth tiles need a one-pixel-wide kernel (each trace row is
        // then one contiguous run of a chunk's channels) and several chunks.
        if (Full && (L.KW != 1 || P.NChunks == 1 || !Opts.FullDepthMaps))
          continue;
        P.FullDepth = Full;
        if (!setTile(P, R, Wt, Full ? C : P.Chunk, 0, NCu, B))
          continue;
        for (bool MS : {false, true}) {
          if (MS && !Opts.LoopReorder)
            continue;
          Cost Ct = convCost(P, Hw, MS);
          if (Ct < BestCost) {
            BestCost = Ct;
            Best = P;
            Best.MapStationary = MS;
          }
        }
        }
    }
    P.SplitChannels = false;
  } else {
    unsigned LastStride = 0;
    for (unsigned N = 1; N <= ceilDiv(C, Lanes); ++N) {
      P.Chunk = N == 1 ? C : roundUp(ceilDiv(C, N), Lanes);
      P.NChunks = ceilDiv(C, P.Chunk);
      unsigned Stride = roundUp(P.Chunk, Lanes);
      if (Stride == LastStride)
        continue;
      LastStride = Stride;
      unsigned PMax = std::min(B.OutCap / Stride, 4095u);
      for (auto [R, Wt] : tileShapes(L.Out.H, L.Out.W, PMax)) {
        if (!setTile(P, R, Wt, Stride, Lanes, NCu, B))
          continue;
        Cost Ct = poolCost(P, Hw);
        if (Ct < BestCost) {
          BestCost = Ct;
          Best = P;
        }
      }
      if (BestCost.Cycles != UINT64_MAX)
        break;
    }
  }
  if (BestCost.Cycles == UINT64_MAX)
    return planError(L, fmt::format("even a 1x1 output tile needs a {}x{} input window that does "
                                    "not fit the {}-element input region of the maps buffer",
                                    L.KH, L.KW, B.InCap));
  Best.EstCycles = BestCost.Cycles;
  Best.EstDramBytes = BestCost.Bytes;
  return Best;
}
