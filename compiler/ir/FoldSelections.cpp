//===- FoldSelections.cpp - YAML's channel moves folded into their readers -===//
//
// A YAML model writes ShuffleNet v2's channel_shuffle and x.chunk(2) as
// layers (`shuffle`, `slice`: selections, ir::makeSelection), which count
// and cost MACs as any 1x1 conv: as written, ShuffleNet v2 x1.0 is 450.8 M
// MACs a frame where torchvision counts 144.9 M. The ONNX importer never
// makes most of them (OnnxShuffle.cpp keeps a value's channel map pending
// and hands it to the conv that reads it); this is the same rewrite on a
// graph, in canonicalize() right after batchnorms are folded, so that both
// front ends compile the network in its efficient form:
//
// * a selection of a selection is one selection (the rows composed);
// * a conv with group 1 reading a selection reads the selection's input,
//   input channel i's weights moved to the channel the selection copies
//   (zero weights elsewhere): exact, since a selection's output is its
//   input's values and canonicalize() runs before any format is chosen;
// * a depthwise conv over a permutation computes the physical channels with
//   its weights and bias permuted, where every reader of it takes channels
//   in turn (a stride-2 unit's first branch after a shuffle);
// * a selection nothing reads any more is removed.
//
// A selection read by anything else (a concat: the half a unit passes on)
// stays, and splitConcatsByReader() then splits the concats whose readers
// use disjoint channels (ConcatSplit.cpp).
//
//===----------------------------------------------------------------------===//

#include "CanonSteps.h"
#include "ChannelMoves.h"

#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cassert>

using namespace snow;
using namespace snow::ir;
using namespace snow::ir::detail;

namespace {

/// Removes the selections nothing reads, until none is left.
bool removeUnread(Graph &G) {
  bool Removed = false;
  for (;;) {
    const std::vector<unsigned> Uses = useCounts(G);
    std::vector<int> Replace(G.Layers.size(), Keep);
    bool Any = false;
    for (size_t I = 0; I < G.Layers.size(); ++I)
      if (Uses[I] == 0 && G.Layers[I].isChannelCopy()) {
        Replace[I] = -1; // Nothing reads it: any replacement does.
        Any = true;
      }
    if (!Any)
      return Removed;
    eraseLayers(G, Replace);
    Removed = true;
  }
}

} // namespace

bool snow::ir::detail::isPlainDepthwise(const Layer &L) {
  return L.Kind == LayerKind::Conv && L.Inputs.size() == 1 && !L.HasResidual && !L.DynamicWeights &&
         !L.isChannelCopy() && L.Groups == L.In.C && L.Out.C == L.In.C;
}

void snow::ir::detail::permuteDepthwise(Layer &L, int X, const std::vector<uint32_t> &Rows) {
  materializeWeights(L);
  permuteChannels(L.Weights, Rows, size_t(L.KH) * L.KW);
  permuteChannels(L.Bias, Rows);
  L.Inputs = {X};
}

snow::ir::detail::ReaderLists::ReaderLists(const Graph &G)
    : Uses(useCounts(G)), Of(G.Layers.size()) {
  for (size_t I = 0; I < G.Layers.size(); ++I)
    for (int In : G.Layers[I].Inputs)
      if (In >= 0)
        Of[size_t(In)].push_back(I);
}

bool snow::ir::detail::ReaderLists::allTakeRows(const Graph &G, size_t I) const {
  return Uses[I] == Of[I].size() &&
         llvm::all_of(Of[I], [&](size_t R) { return takesRows(G.Layers[R]); });
}

bool snow::ir::detail::takesRows(const Layer &L) {
  return L.Kind == LayerKind::Conv && L.Inputs.size() == 1 && !L.HasResidual && !L.DynamicWeights &&
         (L.isChannelCopy() || L.Groups == 1);
}

void snow::ir::detail::readThrough(Layer &L, int X, const Shape &XS,
                                   const std::vector<uint32_t> &Rows) {
  if (L.isChannelCopy()) {
    std::vector<uint32_t> Own = selectRows(L);
    for (uint32_t &R : Own)
      R = Rows[R];
    Layer S = selectLayer(X, XS, Own);
    S.Name = std::move(L.Name);
    S.Loc = L.Loc;
    L = std::move(S);
    return;
  }
  materializeWeights(L); // Seeded weights are drawn where they are used.
  const size_t K = size_t(L.KH) * L.KW;
  std::vector<float> W(size_t(L.Out.C) * XS.C * K, 0.0f);
  for (uint32_t O = 0; O < L.Out.C; ++O)
    for (uint32_t I = 0; I < L.In.C; ++I)
      for (size_t T = 0; T < K; ++T)
        W[(size_t(O) * XS.C + Rows[I]) * K + T] += L.Weights[(size_t(O) * L.In.C + I) * K + T];
  L.Weights = std::move(W);
  L.Inputs = {X};
  L.In = XS;
}

bool snow::ir::detail::isPermutation(const std::vector<uint32_t> &Rows, uint32_t C) {
  if (Rows.size() != C)
    return false;
  std::vector<bool> Seen(C, false);
  for (uint32_t R : Rows) {
    if (R >= C || Seen[R])
      return false;
    Seen[R] = true;
  }
  return true;
}

bool snow::ir::detail::foldChannelMoves(Graph &G) {
  if (llvm::none_of(G.Layers, [](const Layer &L) {
        return L.isChannelCopy() && (L.TypeName == "shuffle" || L.TypeName == "slice");
      }))
    return false;
  const size_t N = G.Layers.size();
  const ReaderLists Readers(G);
  // Pending[I]: layer I computes its channels permuted; a reader's input
  // channel o is its physical channel Pending[I][o].
  std::vector<std::vector<uint32_t>> Pending(N);
  bool Changed = false;
  for (size_t I = 0; I < N; ++I) {
    Layer &L = G.Layers[I];
    if (L.Inputs.size() != 1 || L.input() < 0)
      continue;
    const int S = L.input();
    std::vector<uint32_t> Rows;
    int X = S;
    if (!Pending[size_t(S)].empty()) {
      Rows = Pending[size_t(S)];
    } else if (G.Layers[size_t(S)].isChannelCopy()) {
      Rows = selectRows(G.Layers[size_t(S)]);
      X = G.Layers[size_t(S)].input();
    } else {
      continue;
    }
    const Shape XS = X < 0 ? G.Input : G.Layers[size_t(X)].Out;
    // A conv reading a part of a selection's input reads all of it after
    // the fold (zero weights for the rest): not where that costs more MACs
    // than the selection itself (a half read by a 3x3 conv of many outputs;
    // ShuffleNet's 1x1 branch convs cost as much, and lose the extra where
    // their concat is split by reader).
    const bool Grows = X != S && !L.isChannelCopy() && !isPermutation(Rows, XS.C) &&
                       L.macs() / L.In.C * (XS.C - L.In.C) > G.Layers[size_t(S)].macs();
    if (takesRows(L) && !Grows) {
      readThrough(L, X, XS, Rows);
      Changed = true;
    } else if (isPlainDepthwise(L) && isPermutation(Rows, XS.C) && Readers.allTakeRows(G, I)) {
      permuteDepthwise(L, X, Rows);
      Pending[I] = std::move(Rows);
      Changed = true;
    }
  }
  Changed |= removeUnread(G);
  return Changed;
}
