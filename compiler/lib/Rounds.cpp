//===- Rounds.cpp - Packing work items into rounds ------------------------===//
//
// See Rounds.h.
//
//===----------------------------------------------------------------------===//

#include "Rounds.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <algorithm>
#include <cassert>

using namespace snow;
using namespace snow::compiler;

namespace {

/// Visits the rounds of P's work items (every output group of every tile)
/// in loop order (output groups outermost unless map-stationary), NCu to a
/// round, packed as How says, without keeping them: the planner only needs
/// their summary for most of the plans it weighs.
void forEachRound(const LayerPlan &P, unsigned NCu, Packing How,
                  llvm::function_ref<void(const Round &)> Visit) {
  assert(NCu <= MaxCus && "HwConfig validation limits the CUs to the mask width");
  const unsigned NOg = P.NOg, NT = P.NTiles;
  // Each tile's valid rows and columns, worked out once (Put asks for them
  // for every item): validRows of each row block's first tile, validCols of
  // each column block's, as tiles are numbered by frame, then row block,
  // then column block.
  assert(NT == P.Frames * P.NRowBlocks * P.NColBlocks && "setTile's tile grid");
  std::vector<std::pair<unsigned, unsigned>> Extent;
  Extent.reserve(NT);
  std::vector<unsigned> Cols(P.NColBlocks);
  for (unsigned Cb = 0; Cb < P.NColBlocks; ++Cb)
    Cols[Cb] = P.validCols(Cb);
  for (unsigned F = 0; F < P.Frames; ++F)
    for (unsigned Rb = 0; Rb < P.NRowBlocks; ++Rb) {
      const unsigned Rows = P.validRows(Rb * P.NColBlocks);
      for (unsigned Cb = 0; Cb < P.NColBlocks; ++Cb)
        Extent.push_back({Rows, Cols[Cb]});
    }
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
    Visit(Rd);
    // Only the first NCu entries are ever set.
    std::fill_n(Rd.Cus.begin(), NCu, Work());
    Rd.ExtR = Rd.ExtC = 0;
    Filled = 0;
  };
  auto Put = [&](unsigned Cu, Work W) {
    Rd.Cus[Cu] = W;
    Rd.ExtR = std::max(Rd.ExtR, Extent[unsigned(W.Tile)].first);
    Rd.ExtC = std::max(Rd.ExtC, Extent[unsigned(W.Tile)].second);
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
    Size[T] = Extent[T].first * Extent[T].second;
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

/// Builds a RoundSummary one round at a time.
class Summarizer {
public:
  Summarizer(const LayerPlan &P, unsigned NCu) : P(P), NCu(NCu) {
    S.Rounds.reserve(ceilDiv(uint64_t(P.NOg) * P.NTiles, NCu));
  }

  void add(const Round &Rd) {
    unsigned NumOgs = 0, NumTiles = 0;
    RoundInfo I;
    I.OgChanged = I.TileChanged = First;
    for (unsigned Cu = 0; Cu < NCu; ++Cu) {
      const Work &W = Rd.Cus[Cu];
      if (!First && (Prev[Cu].Og != W.Og || Prev[Cu].active() != W.active()))
        I.OgChanged = true;
      if (!First && Prev[Cu].Tile != W.Tile)
        I.TileChanged = true;
      Prev[Cu] = W;
      if (!W.active())
        continue;
      ++I.Active;
      if (std::find(Ogs, Ogs + NumOgs, W.Og) == Ogs + NumOgs)
        Ogs[NumOgs++] = W.Og;
      if (std::find(Tiles, Tiles + NumTiles, W.Tile) == Tiles + NumTiles)
        Tiles[NumTiles++] = W.Tile;
    }
    First = false;
    I.Pixels = Rd.pixels() >> P.PixLog; // Traces: one per accumulator entry.
    I.Rows = Rd.ExtR;
    I.Ogs = NumOgs;
    I.Tiles = NumTiles;
    S.Pixels += I.Pixels;
    S.OgLoads += I.Ogs;
    S.TileLoads += I.Tiles;
    S.OgLoadsOnChange += I.OgChanged ? I.Ogs : 0;
    S.TileLoadsOnChange += I.TileChanged ? I.Tiles : 0;
    S.Rounds.push_back(I);
  }

  RoundSummary take() { return std::move(S); }

private:
  const LayerPlan &P;
  const unsigned NCu;
  RoundSummary S;
  bool First = true;
  std::array<Work, MaxCus> Prev{}; ///< The previous round's items.
  int Ogs[MaxCus], Tiles[MaxCus];  ///< The current round's, distinct.
};

} // namespace

void snow::compiler::makeRounds(LayerPlan &P, unsigned NCu, Packing How) {
  P.Rounds.clear();
  P.Rounds.reserve(ceilDiv(uint64_t(P.NOg) * P.NTiles, NCu));
  forEachRound(P, NCu, How, [&](const Round &Rd) { P.Rounds.push_back(Rd); });
}

RoundSummary snow::compiler::summarize(const LayerPlan &P, unsigned NCu) {
  Summarizer S(P, NCu);
  for (const Round &Rd : P.Rounds)
    S.add(Rd);
  return S.take();
}

RoundSummary snow::compiler::summarizeRounds(const LayerPlan &P, unsigned NCu, Packing How) {
  Summarizer S(P, NCu);
  forEachRound(P, NCu, How, [&](const Round &Rd) { S.add(Rd); });
  return S.take();
}

/// Whether some round gives CUs different output groups of one tile.
bool snow::compiler::splitsChannels(const LayerPlan &P) {
  for (const Round &Rd : P.Rounds) {
    // The round's active items (the planner asks this of every plan it
    // makes: a pairwise scan of all MaxCus slots showed in --tune's profile).
    std::array<Work, MaxCus> Active;
    size_t N = 0;
    for (const Work &W : Rd.Cus)
      if (W.active())
        Active[N++] = W;
    for (size_t A = 0; A < N; ++A)
      for (size_t B = A + 1; B < N; ++B)
        if (Active[A].Tile == Active[B].Tile && Active[A].Og != Active[B].Og)
          return true;
  }
  return false;
}
