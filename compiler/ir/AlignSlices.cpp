//===- AlignSlices.cpp - A sliced conv's channels in whole output groups ---===//
//
// A conv read only through slices (a merged conv, or a ShuffleNet unit's
// last 1x1 conv, whose output goes to the next units in halves, quarters,
// ...: docs/model-format.md, step 4b) computes its output channels an
// output group at a time (the machine's vMACs x lanes, 64 on zc706) and
// stores each group's share of each slice. A slice that straddles a group
// boundary is stored in two pieces, each a short DMA row a pixel that
// starts or ends inside a DRAM burst: ShuffleNet v2's stage-3 units wrote
// their 58-channel half as 6 and 52 channels a pixel, in 12- and 104-byte
// rows 116 bytes apart (docs/compiler.md step 11, "Aligned slices").
// alignSlices orders such a conv's output channels so that its groups cut
// the slices where that costs least (sliceCutCost: the bursts a pixel a
// cut slice's pieces take beyond its bytes), where that is less than the
// order as written: the same values, each slice's channels still in order
// and together, only in another place of the conv's output (its weights
// and bias rows move, and each slice's SliceBegin). Nothing reads the conv
// but the slices, so no other layer sees the order.
//
//===----------------------------------------------------------------------===//

#include "ChannelMoves.h"
#include "snow/ir/Graph.h"
#include "snow/support/Bursts.h"
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

using namespace snow;
using namespace snow::ir;

namespace {

/// A run of the conv's output channels that moves as one: a slice's, or
/// channels no slice reads.
struct Run {
  unsigned Begin = 0, Count = 0;
};

/// What storing a run of C channels that starts at channel At of the conv
/// costs a pixel beyond its bytes, in bursts, where output groups of Group
/// channels store it: nothing where one group holds it (its pixels follow
/// each other in its tensor and move as one stream), else a DMA row a
/// pixel of each group's piece (a piece of one channel takes a burst a
/// pixel for two bytes).
double cutCost(unsigned At, unsigned C, unsigned Group, unsigned Burst) {
  if (At / Group == (At + C - 1) / Group)
    return 0;
  double Sum = 0;
  for (unsigned Lo = At; Lo < At + C;) {
    const unsigned Hi = std::min(At + C, (Lo / Group + 1) * Group);
    Sum += rowBursts(C, Lo - At, Hi - Lo, Burst);
    Lo = Hi;
  }
  return Sum - double(C) / Burst;
}

/// cutCost of every run, the runs in Order's order from channel 0.
double orderCost(const std::vector<Run> &Runs, const std::vector<size_t> &Order, unsigned Group,
                 unsigned Burst) {
  unsigned At = 0;
  double Cost = 0;
  for (size_t I : Order) {
    Cost += cutCost(At, Runs[I].Count, Group, Burst);
    At += Runs[I].Count;
  }
  return Cost;
}

/// The order of Runs that costs less than theirs (orderCost) and least, if
/// any, by a search over orders, longest runs tried first (one of each
/// length at each place), that gives up a branch once it costs as much as
/// the best so far. Runs are few (a ShuffleNet v2 unit's conv has eight);
/// more than MaxRuns keep their order (at most 10! orders to weigh).
std::optional<std::vector<size_t>> bestOrder(const std::vector<Run> &Runs, unsigned Group,
                                             unsigned Burst) {
  constexpr size_t MaxRuns = 10;
  if (Runs.size() > MaxRuns)
    return std::nullopt;
  std::vector<size_t> BySize(Runs.size());
  std::iota(BySize.begin(), BySize.end(), 0);
  double BestCost = orderCost(Runs, BySize, Group, Burst); // (the order as is)
  std::stable_sort(BySize.begin(), BySize.end(),
                   [&](size_t A, size_t B) { return Runs[A].Count > Runs[B].Count; });
  std::optional<std::vector<size_t>> Best;
  std::vector<size_t> Path;
  std::vector<bool> Used(Runs.size(), false);
  auto Search = [&](auto &Self, unsigned At, double Cost) -> void {
    if (Cost >= BestCost - 1e-9)
      return;
    if (Path.size() == Runs.size()) {
      Best = Path;
      BestCost = Cost;
      return;
    }
    unsigned Tried = 0; // runs of one length are interchangeable here: try one
    for (size_t I : BySize) {
      if (Used[I] || Runs[I].Count == Tried)
        continue;
      const unsigned C = Runs[I].Count;
      Tried = C;
      Used[I] = true;
      Path.push_back(I);
      Self(Self, At + C, Cost + cutCost(At, C, Group, Burst));
      Path.pop_back();
      Used[I] = false;
    }
  };
  Search(Search, 0, 0);
  return Best;
}

/// The runs of conv X's output channels (in channel order) that its
/// slices (Slices, by index; SliceRun gets each one's run) and the gaps
/// between them form; empty where slices overlap.
std::vector<Run> runsOf(const Graph &G, size_t X, const std::vector<size_t> &Slices,
                        std::vector<int> &SliceRun) {
  const Layer &L = G.Layers[X];
  std::vector<Run> Runs;
  SliceRun.assign(Slices.size(), -1);
  unsigned At = 0;
  for (size_t K = 0; K < Slices.size(); ++K) {
    const Layer &S = G.Layers[Slices[K]];
    if (S.SliceBegin < At || S.SliceBegin + S.Out.C > L.Out.C || S.Out.C == 0)
      return {};
    if (S.SliceBegin > At)
      Runs.push_back({At, S.SliceBegin - At});
    SliceRun[K] = int(Runs.size());
    Runs.push_back({S.SliceBegin, S.Out.C});
    At = S.SliceBegin + S.Out.C;
  }
  if (At < L.Out.C)
    Runs.push_back({At, L.Out.C - At});
  return Runs;
}

/// For each layer, the slices reading it (sorted by SliceBegin) where only
/// slices read it; empty otherwise.
std::vector<std::vector<size_t>> slicedBy(const Graph &G) {
  std::vector<std::vector<size_t>> Readers(G.Layers.size());
  std::vector<bool> Other(G.Layers.size(), false);
  for (size_t R = 0; R < G.Layers.size(); ++R) {
    const Layer &L = G.Layers[R];
    for (int In : L.Inputs)
      if (In >= 0) {
        if (L.Kind == LayerKind::Slice && L.Inputs.size() == 1)
          Readers[size_t(In)].push_back(R);
        else
          Other[size_t(In)] = true;
      }
    if (L.HasResidual && L.Residual >= 0)
      Other[size_t(L.Residual)] = true;
  }
  for (size_t X = 0; X < G.Layers.size(); ++X) {
    if (Other[X] || X + 1 == G.Layers.size())
      Readers[X].clear();
    std::sort(Readers[X].begin(), Readers[X].end(),
              [&](size_t A, size_t B) { return G.Layers[A].SliceBegin < G.Layers[B].SliceBegin; });
  }
  return Readers;
}

} // namespace

double snow::ir::sliceCutCost(const Graph &G, unsigned Group, unsigned Burst) {
  if (Group < 2 || Burst == 0)
    return 0;
  const std::vector<std::vector<size_t>> Readers = slicedBy(G);
  double Cost = 0;
  for (size_t X = 0; X < G.Layers.size(); ++X) {
    if (Readers[X].empty())
      continue;
    std::vector<int> SliceRun;
    const std::vector<Run> Runs = runsOf(G, X, Readers[X], SliceRun);
    std::vector<size_t> Now(Runs.size());
    std::iota(Now.begin(), Now.end(), 0);
    Cost += orderCost(Runs, Now, Group, Burst);
  }
  return Cost;
}

unsigned snow::ir::alignSlices(Graph &G, unsigned Group, unsigned Burst) {
  if (Group < 2 || Burst == 0)
    return 0;
  const std::vector<std::vector<size_t>> Readers = slicedBy(G);
  unsigned Moved = 0;
  for (size_t X = 0; X < G.Layers.size(); ++X) {
    Layer &L = G.Layers[X];
    if (L.Kind != LayerKind::Conv || Readers[X].empty() || L.Groups != 1 || L.DynamicWeights ||
        L.HasResidual || L.isChannelCopy() || L.Out.C <= Group)
      continue;
    std::vector<int> SliceRun;
    const std::vector<Run> Runs = runsOf(G, X, Readers[X], SliceRun);
    if (Runs.empty())
      continue;
    const std::optional<std::vector<size_t>> Order = bestOrder(Runs, Group, Burst);
    if (!Order)
      continue;
    // Map[old channel] = its new place; each run's new first channel.
    std::vector<uint32_t> Map(L.Out.C);
    std::vector<unsigned> NewBegin(Runs.size());
    unsigned Next = 0;
    for (size_t I : *Order) {
      NewBegin[I] = Next;
      for (unsigned C = 0; C < Runs[I].Count; ++C)
        Map[Runs[I].Begin + C] = Next + C;
      Next += Runs[I].Count;
    }
    // (Seeded weights are drawn where they are used; after quantize() the
    // integers move too, and the floats if it kept them.)
    materializeWeights(L);
    const size_t K = size_t(L.In.C) * L.KH * L.KW;
    auto Move = [&](auto &Values, size_t PerChannel) {
      if (Values.size() == Map.size() * PerChannel)
        detail::permuteChannels(Values, Map, PerChannel);
    };
    Move(L.Weights, K);
    Move(L.QWeights, K);
    Move(L.Bias, 1);
    Move(L.QBias, 1);
    for (size_t S = 0; S < Readers[X].size(); ++S)
      G.Layers[Readers[X][S]].SliceBegin = NewBegin[size_t(SliceRun[S])];
    ++Moved;
  }
  return Moved;
}
