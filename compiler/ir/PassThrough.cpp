//===- PassThrough.cpp - The half a ShuffleNet unit passes on, not copied -===//
//
// A stride-1 ShuffleNet v2 unit passes half of its input on untouched: after
// the shuffle is folded (FoldSelections.cpp, OnnxShuffle.cpp) and concats
// are split by reader (ConcatSplit.cpp), that half is a selection whose
// rows are a permutation of a concat that only it reads, and which only
// the next concat reads. Computed, it is a 1x1 conv of 0/1 weights over
// the whole half (a load, a pass of the MAC array and a store: 13.7 k
// cycles a unit of stage 3 on zc706). Yet nothing needs to move: the next
// concat can take the concat's inputs in their place, in the concat's
// order, and hand the permutation to its readers (a conv of group 1 moves
// its weights, a selection composes its rows, a depthwise conv whose readers
// all take rows computes its channels in the new order and hands it on: a
// stride-2 unit's first branch). Concats are split by reader again after
// each round, so that the halves each next unit passes on are again whole
// concats of their own.
//
// Each concat part then has more inputs (a unit's output reaches the units
// after it in halves, quarters, ...), which docs/compiler.md step 11 lays
// out; docs/model-format.md step 4b has what it is worth.
//
//===----------------------------------------------------------------------===//

#include "CanonSteps.h"
#include "ChannelMoves.h"

#include "llvm/ADT/STLExtras.h"

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

namespace {

/// Replaces one permutation selection between two concats by the inputs
/// of the first; whether it found one.
bool passOneThrough(Graph &G) {
  const size_t N = G.Layers.size();
  const ReaderLists Readers(G);
  const std::vector<unsigned> &Uses = Readers.Uses;
  // A depthwise reader computes its channels in the concat's new order and
  // hands the permutation on (a stride-2 unit's first branch).
  auto TakesMap = [&](size_t R) {
    return takesRows(G.Layers[R]) || (isPlainDepthwise(G.Layers[R]) && Readers.allTakeRows(G, R));
  };
  for (size_t D = 0; D + 1 < N; ++D) {
    Layer &Cat = G.Layers[D];
    if (Cat.Kind != LayerKind::Concat || Uses[D] != Readers.Of[D].size() ||
        !llvm::all_of(Readers.Of[D], TakesMap))
      continue;
    uint32_t Base = 0;
    for (size_t P = 0; P < Cat.Inputs.size(); Base += G.Layers[size_t(Cat.Inputs[P])].Out.C, ++P) {
      const int S = Cat.Inputs[P];
      if (S < 0 || Uses[size_t(S)] != 1 || !G.Layers[size_t(S)].isChannelCopy())
        continue;
      const int C = G.Layers[size_t(S)].input();
      if (C < 0 || Uses[size_t(C)] != 1 || G.Layers[size_t(C)].Kind != LayerKind::Concat)
        continue;
      const std::vector<uint32_t> Rows = selectRows(G.Layers[size_t(S)]);
      if (!isPermutation(Rows, G.Layers[size_t(C)].Out.C))
        continue;
      // Logical channel Base + o of the concat is physical channel
      // Base + Rows[o] once the first concat's inputs stand in the
      // selection's place.
      std::vector<uint32_t> Map(Cat.Out.C);
      for (uint32_t I = 0; I < Cat.Out.C; ++I)
        Map[I] = I >= Base && I < Base + Rows.size() ? Base + Rows[I - Base] : I;
      const std::vector<int> &Inner = G.Layers[size_t(C)].Inputs;
      Cat.Inputs.insert(Cat.Inputs.erase(Cat.Inputs.begin() + long(P)), Inner.begin(), Inner.end());
      Cat.In = Cat.Inputs[0] < 0 ? G.Input : G.Layers[size_t(Cat.Inputs[0])].Out;
      for (size_t R : Readers.Of[D]) {
        if (takesRows(G.Layers[R])) {
          readThrough(G.Layers[R], int(D), Cat.Out, Map);
          continue;
        }
        permuteDepthwise(G.Layers[R], int(D), Map);
        for (size_t Q : Readers.Of[R])
          readThrough(G.Layers[Q], int(R), G.Layers[R].Out, Map);
      }
      std::vector<int> Replace(N, Keep);
      Replace[size_t(S)] = Replace[size_t(C)] = -1; // Nothing reads them now.
      eraseLayers(G, Replace);
      return true;
    }
  }
  return false;
}

} // namespace

bool snow::ir::detail::passHalvesThrough(Graph &G) {
  bool Changed = false;
  while (passOneThrough(G)) {
    Changed = true;
    while (splitConcatsByReader(G))
      ;
  }
  return Changed;
}
