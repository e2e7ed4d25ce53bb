//===- Rounds.cpp - Packing work items into rounds ------------------------===//
//
// See Rounds.h.
//
//===----------------------------------------------------------------------===//

#include "Rounds.h"
#include <algorithm>
#include <cassert>

using namespace snow;
using namespace snow::compiler;

/// Builds P.Rounds: the work items (every output group of every tile) in
/// loop order (output groups outermost unless map-stationary), NCu to a round.
void snow::compiler::makeRounds(LayerPlan &P, unsigned NCu, Packing How) {
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

RoundSummary snow::compiler::summarize(const LayerPlan &P, unsigned NCu) {
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

/// Whether some round gives CUs different output groups of one tile.
bool snow::compiler::splitsChannels(const LayerPlan &P) {
  for (const Round &Rd : P.Rounds)
    for (size_t A = 0; A < Rd.Cus.size(); ++A)
      for (size_t B = A + 1; B < Rd.Cus.size(); ++B)
        if (Rd.Cus[A].active() && Rd.Cus[A].Tile == Rd.Cus[B].Tile && Rd.Cus[A].Og != Rd.Cus[B].Og)
          return true;
  return false;
}
