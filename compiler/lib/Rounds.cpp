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
/// Each tile's valid rows and columns, worked out once (rounds ask for them
/// for every item): validRows of each row block's first tile, validCols of
/// each column block's, as tiles are numbered by frame, then row block, then
/// column block.
std::vector<std::pair<unsigned, unsigned>> tileExtents(const LayerPlan &P) {
  assert(P.NTiles == P.Frames * P.NRowBlocks * P.NColBlocks && "setTile's tile grid");
  std::vector<std::pair<unsigned, unsigned>> Extent;
  Extent.reserve(P.NTiles);
  std::vector<unsigned> Cols(P.NColBlocks);
  for (unsigned Cb = 0; Cb < P.NColBlocks; ++Cb)
    Cols[Cb] = P.validCols(Cb);
  for (unsigned F = 0; F < P.Frames; ++F)
    for (unsigned Rb = 0; Rb < P.NRowBlocks; ++Rb) {
      const unsigned Rows = P.validRows(Rb * P.NColBlocks);
      for (unsigned Cb = 0; Cb < P.NColBlocks; ++Cb)
        Extent.push_back({Rows, Cols[Cb]});
    }
  return Extent;
}

/// A round's columns as its trace loop covers them: elementwise operands
/// keep the region's pitch (entries laid out R x Wt), a multi-pixel trace
/// takes pix() pixels of one row, and a banked area (a fused pair's, both
/// plans Banked) holds pairs of columns, one in each bank.
unsigned roundCols(const LayerPlan &P, unsigned ExtC) {
  return roundUp(P.Elementwise ? P.Wt : ExtC, P.colGranule());
}

void forEachRound(const LayerPlan &P, unsigned NCu, Packing How,
                  llvm::function_ref<void(const Round &)> Visit) {
  assert(NCu <= MaxCus && "HwConfig validation limits the CUs to the mask width");
  const unsigned NOg = P.NOg, NT = P.NTiles;
  const std::vector<std::pair<unsigned, unsigned>> Extent = tileExtents(P);
  Round Rd;
  unsigned Filled = 0;
  auto Flush = [&] {
    if (!Filled)
      return;
    Rd.ExtC = roundCols(P, Rd.ExtC);
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
  if (How == Packing::Parts) {
    for (unsigned A = 0; A < (P.MapStationary ? NT : NOg); ++A)
      for (unsigned B = 0; B < (P.MapStationary ? NOg : NT); ++B) {
        const Work W = P.MapStationary ? Work{int(B), int(A)} : Work{int(A), int(B)};
        for (unsigned Cu = 0; Cu < NCu; ++Cu)
          Put(Cu, W);
        Flush();
      }
    return;
  }
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

/// Appends round I to summary S.
void addRound(RoundSummary &S, const RoundInfo &I) {
  S.Pixels += I.Pixels;
  S.OgLoads += I.Ogs;
  S.TileLoads += I.Tiles;
  S.OgLoadsOnChange += I.OgChanged ? I.Ogs : 0;
  S.TileLoadsOnChange += I.TileChanged ? I.Tiles : 0;
  S.Rounds.push_back(I);
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
    // Traces: one per accumulator entry (a producer in phases: each
    // phase's own, LayerPlan::phaseEntries).
    I.Pixels = P.writesPhases() ? Rd.ExtR * P.phasesEntries(Rd.ExtC) : Rd.pixels() >> P.PixLog;
    I.Rows = Rd.ExtR;
    I.Ogs = NumOgs;
    I.Tiles = NumTiles;
    addRound(S, I);
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

/// summarizeRounds for aligned rounds (Packing::Tiles, Packing::Channels),
/// worked out per round without its CUs' items: a round is (outer item O,
/// inner group G), its CUs the group's Active consecutive tiles (or output
/// groups), so it changes output groups from the round before where O (or
/// G) or Active differs, and tiles where G (or O) or Active does
/// (Summarizer::add compares the items CU by CU to the same effect). The
/// planner summarizes every tile shape, loop order and packing it weighs:
/// the items were a fifth of a --tune search (2026-12-02).
RoundSummary summarizeAligned(const LayerPlan &P, unsigned NCu, bool ByTile) {
  const unsigned NOg = P.NOg, NT = P.NTiles, N = ByTile ? NT : NOg;
  const unsigned Outer = ByTile ? NOg : NT, Inner = ceilDiv(N, NCu);
  const std::vector<std::pair<unsigned, unsigned>> Extent = tileExtents(P);
  // Each inner group's CUs and (of tiles) largest extent.
  std::vector<unsigned> Active(Inner);
  std::vector<std::pair<unsigned, unsigned>> GroupExt(ByTile ? Inner : 0);
  for (unsigned G = 0; G < Inner; ++G) {
    Active[G] = std::min(NCu, N - G * NCu);
    for (unsigned K = G * NCu; ByTile && K < G * NCu + Active[G]; ++K) {
      GroupExt[G].first = std::max(GroupExt[G].first, Extent[K].first);
      GroupExt[G].second = std::max(GroupExt[G].second, Extent[K].second);
    }
  }
  RoundSummary S;
  S.Rounds.reserve(uint64_t(Outer) * Inner);
  bool First = true;
  unsigned PrevO = 0, PrevG = 0;
  auto Add = [&](unsigned O, unsigned G) {
    const auto [ExtR, ExtC] = ByTile ? GroupExt[G] : Extent[O];
    RoundInfo I;
    I.Active = Active[G];
    I.Ogs = ByTile ? 1 : Active[G];
    I.Tiles = ByTile ? Active[G] : 1;
    I.Pixels = ExtR * roundCols(P, ExtC) >> P.PixLog;
    I.Rows = ExtR;
    const bool Resized = !First && Active[G] != Active[PrevG];
    const bool OuterChanged = First || O != PrevO || Resized;
    const bool InnerChanged = First || G != PrevG || Resized;
    I.OgChanged = ByTile ? OuterChanged : InnerChanged;
    I.TileChanged = ByTile ? InnerChanged : OuterChanged;
    First = false;
    PrevO = O;
    PrevG = G;
    addRound(S, I);
  };
  // Kernel-stationary keeps output groups outermost, map-stationary tiles
  // (forEachRound).
  if (ByTile != P.MapStationary) {
    for (unsigned O = 0; O < Outer; ++O)
      for (unsigned G = 0; G < Inner; ++G)
        Add(O, G);
  } else {
    for (unsigned G = 0; G < Inner; ++G)
      for (unsigned O = 0; O < Outer; ++O)
        Add(O, G);
  }
  return S;
}

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
  if (How == Packing::Tiles || How == Packing::Channels)
    return summarizeAligned(P, NCu, How == Packing::Tiles);
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
