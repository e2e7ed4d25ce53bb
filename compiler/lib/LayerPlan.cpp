//===- LayerPlan.cpp - A plan's buffers, tiles and strides ----------------===//
//
// The geometry every planner shares: how the maps and weights buffers are
// divided into double-buffered regions (BufferMap), the tile shapes worth
// trying, and what a tile of a LayerPlan occupies (its input window, pixel
// stride, valid rows and columns). Plan.cpp chooses among plans; this file
// only measures them.
//
//===----------------------------------------------------------------------===//

#include "LayerPlan.h"
#include "Rounds.h"
#include <algorithm>
#include <cassert>

using namespace snow;
using namespace snow::compiler;

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
  if (InBanks >= 2) {
    B.DwInCap = Bank;
    B.MidOffset = Bank;
    B.MidCap = (InBanks - 1) * Bank;
  }
  B.WCap = Hw.weightsWords() / 2;
  B.WBase[0] = 0;
  B.WBase[1] = B.WCap;
  return B;
}

unsigned LayerPlan::pixelStride(unsigned C, unsigned Lanes) const {
  if (FullDepth && !PerBank) // Also a fused depthwise producer's whole-region input.
    return L->In.C;
  if (readsMidOut()) // its depthwise producer's output group, a lane group of the CU
    return MidPitch ? MidPitch : Chunk;
  if (Depthwise || Elementwise)
    return Chunk; // vMAC v reads channels [v * lanes, (v + 1) * lanes) of the group.
  unsigned N = chunkSize(C, L->In.C);
  return IsConv ? N : roundUp(N, Lanes);
}

uint64_t LayerPlan::inputElems(unsigned Lanes) const {
  assert(!Elementwise && "an elementwise region holds its operands' entries");
  // The slack setTile adds: a grouped conv's shifted passes, a pool's lanes.
  const unsigned Extra = IsConv ? 2 * InSkew : Lanes;
  return uint64_t(RowsIn) * ColsIn * pixelStride(0, Lanes) + Extra;
}

unsigned LayerPlan::kernelWords(unsigned C) const {
  // CUs splitting an item's chunks trace chunks of one size (a block
  // triple's last may lie partly or wholly past the channels: zeros).
  const unsigned Cn = Parts > 1 ? Chunk : chunkSize(C, L->In.C);
  // (A quarters reader's kernel for each bank it writes: WeightPack.cpp.)
  return L->KH * traceCols() * (Depthwise ? passes() : Cn) * (readsQuarters() ? 4 : 1);
}

LayerPlan::WindowShape LayerPlan::windowShape(unsigned T) const {
  const auto [Y0, Y1] = Window.span(rowBlock(T), true);
  const auto [X0, X1] = Window.span(colBlock(T), false);
  return {
      unsigned(std::max(0, -Y0)), unsigned(std::max(0, Y1 - int(Window.InH))), unsigned(Y1 - Y0),
      unsigned(std::max(0, -X0)), unsigned(std::max(0, X1 - int(Window.InW))), unsigned(X1 - X0)};
}

unsigned LayerPlan::validRows(unsigned T) const {
  if (Window.R) { // The reader's window of the tile, inside the map.
    const auto [Lo, Hi] = Window.span(rowBlock(T), true);
    return unsigned(std::min(Hi, int(Window.InH)) - std::max(Lo, 0));
  }
  if (EvenRows)
    return L->Out.H / NRowBlocks + (rowBlock(T) < L->Out.H % NRowBlocks);
  return std::min(R, L->Out.H - tileY0(T));
}

std::pair<size_t, size_t> LayerPlan::outRows(unsigned T) const {
  if (!FlatW) {
    const size_t Y0 = size_t(frameOf(T)) * L->Out.H + tileY0(T);
    return {Y0, Y0 + validRows(T)};
  }
  // A run of pixels of a flattened map (one frame: planFlatPointwise).
  return flatRows(tileX0(T), tileX0(T) + validCols(T));
}

unsigned LayerPlan::validCols(unsigned T) const {
  if (Window.R) {
    const auto [Lo, Hi] = Window.span(colBlock(T), false);
    return unsigned(std::min(Hi, int(Window.InW)) - std::max(Lo, 0));
  }
  return std::min(Wt, L->Out.W - tileX0(T));
}

std::vector<std::pair<unsigned, unsigned>> snow::compiler::tileShapes(unsigned Hout, unsigned Wout,
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

bool snow::compiler::setTile(LayerPlan &P, unsigned R, unsigned Wt, unsigned Stride, unsigned Extra,
                             const BufferMap &B) {
  const ir::Layer &L = *P.L;
  P.R = R;
  P.Wt = Wt;
  // Row blocks of R rows: a plan given even ones (EvenRows) keeps them only
  // for the tile it was chosen on, and a fused pair decides them for both
  // its layers (a reader planned with even row blocks, re-tiled as its
  // producer's, computed rows its producer had not written).
  P.EvenRows = false;
  P.RowsIn = (R - 1) * P.bufStrideY() + L.KH;
  P.ColsIn = (roundUp(Wt, P.pix()) - 1) * P.bufStrideX() + L.KW;
  const unsigned RowPixels = P.Depthwise ? P.areaRowPixels() : P.ColsIn;
  if (uint64_t(P.RowsIn) * RowPixels * Stride + Extra > B.InCap)
    return false;
  P.NRowBlocks = ceilDiv(L.Out.H, R);
  P.NColBlocks = ceilDiv(L.Out.W, Wt);
  P.NTiles = P.NRowBlocks * P.NColBlocks * P.Frames;
  return true;
}
