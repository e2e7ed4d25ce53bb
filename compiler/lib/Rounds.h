//===- Rounds.h - CU work items packed into lockstep rounds ---------*- C++ -*-===//
//
// A layer's work is the list of items (output-channel group, output tile);
// the CUs run them in rounds, one item per CU, in lockstep. How the items are
// packed into rounds decides which CUs share maps or weights and how long
// each round's trace loop is; the cost model needs a few counts per round.
// Internal to snow_compiler.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_ROUNDS_H
#define SNOW_COMPILER_ROUNDS_H

#include "Plan.h"

namespace snow::compiler {

inline unsigned ceilDiv(uint64_t A, uint64_t B) { return unsigned((A + B - 1) / B); }
inline unsigned roundUp(unsigned A, unsigned B) { return ceilDiv(A, B) * B; }

/// vmax / vavg instructions one pixel of Ch channels takes: its lane groups
/// in runs of the pooling unit's width (HwConfig::poolWords).
inline unsigned poolInsts(unsigned Ch, const isa::HwConfig &Hw) {
  return ceilDiv(ceilDiv(Ch, Hw.LanesPerVmac), Hw.poolWords());
}

/// How rounds are formed from the (output group, tile) work items.
enum class Packing {
  Tiles,    ///< CUs take consecutive tiles of one output group.
  Channels, ///< CUs take consecutive output groups of one tile.
  Mixed,    ///< Items in loop order, NCu to a round, whatever they are.
  Balanced, ///< As Mixed, but the largest tiles first (rounds of like sizes).
  Parts,    ///< An item a round, on every CU: each a share of its input
            ///< chunks (LayerPlan::Parts).
};

/// Whether two rounds give every CU the same Field of its work (and the same
/// CUs work).
inline bool sameWork(const Round &A, const Round &B, int Work::*Field) {
  for (size_t Cu = 0; Cu < A.Cus.size(); ++Cu)
    if (A.Cus[Cu].active() != B.Cus[Cu].active() ||
        (A.Cus[Cu].active() && A.Cus[Cu].*Field != B.Cus[Cu].*Field))
      return false;
  return true;
}

/// Builds P.Rounds from P's tile grid, output groups and loop order.
void makeRounds(LayerPlan &P, unsigned NCu, Packing How);

/// What the cost model needs of one round, independent of channel chunks.
struct RoundInfo {
  uint32_t Pixels = 0, Ogs = 0, Tiles = 0, Active = 0; ///< Pixels: entries (traces).
  uint32_t Rows = 0;                                   ///< Output rows the round's loop covers.
  bool OgChanged = true, TileChanged = true;
  bool operator==(const RoundInfo &) const = default;
};

/// ... and of a whole round list.
struct RoundSummary {
  std::vector<RoundInfo> Rounds;
  uint64_t Pixels = 0;
  uint64_t OgLoads = 0, OgLoadsOnChange = 0;     ///< Distinct output groups per round.
  uint64_t TileLoads = 0, TileLoadsOnChange = 0; ///< Distinct tiles per round.
  bool operator==(const RoundSummary &) const = default;
};

/// The summary of P.Rounds.
RoundSummary summarize(const LayerPlan &P, unsigned NCu);
/// The summary of the rounds makeRounds(P, NCu, How) would build, without
/// building them (P.Rounds is left alone).
RoundSummary summarizeRounds(const LayerPlan &P, unsigned NCu, Packing How);

/// Whether some round gives CUs different output groups of one tile.
bool splitsChannels(const LayerPlan &P);

} // namespace snow::compiler

#endif
