//===- ChannelMoves.h - Selections folded away, concats split ----*- C++ -*-===//
//
// Private to compiler/ir. A *selection* is a 1x1 conv with one weight 1.0
// per output channel and no bias: a layer that only moves channels (YAML's
// `shuffle` and `slice`, the ONNX importer's `select`). The accelerator
// cannot move channels without computing, so the front ends fold them into
// the convs that read them where they can: the ONNX importer on import
// (OnnxShuffle.cpp), canonicalize() for YAML models (FoldSelections.cpp);
// both then split concats by reader (ConcatSplit.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_IR_CHANNELMOVES_H
#define SNOW_IR_CHANNELMOVES_H

#include "snow/ir/Graph.h"
#include <algorithm>
#include <cassert>
#include <vector>

namespace snow::ir::detail {

// A selection is a conv of TypeName select, shuffle or slice
// (ir::makeSelection's weights): Layer::isChannelCopy.

/// Whether Rows names each of C channels exactly once.
bool isPermutation(const std::vector<uint32_t> &Rows, uint32_t C);

/// Values holds Map.size() channels of K values each in logical order;
/// afterwards logical channel i's values are physical channel Map[i]'s (Map
/// a permutation): a depthwise conv's weights and bias, a batchnorm's
/// statistics, computing the physical channels of a permuted input.
template <typename T>
void permuteChannels(std::vector<T> &Values, const std::vector<uint32_t> &Map, size_t K = 1) {
  assert(Values.size() == Map.size() * K && "K values a channel");
  std::vector<T> P(Values.size());
  for (size_t I = 0; I < Map.size(); ++I)
    std::copy_n(&Values[I * K], K, &P[Map[I] * K]);
  Values = std::move(P);
}

/// For a selection layer, the input channel each output channel copies.
std::vector<uint32_t> selectRows(const Layer &L);

/// A selection layer (TypeName "select") reading Input of shape In, whose
/// output channel I is input channel Rows[I], grouped where the 0/1 matrix
/// is block diagonal.
Layer selectLayer(int Input, const Shape &In, const std::vector<uint32_t> &Rows);

/// A layer that can read its input through a channel map (readThrough): a
/// selection, or a conv with group 1 of one input and weights of its own.
bool takesRows(const Layer &L);

/// Each layer's readers (the layers reading it as an input, in order) and
/// its uses (useCounts: residuals and the host's read of the last layer too).
struct ReaderLists {
  std::vector<unsigned> Uses;
  std::vector<std::vector<size_t>> Of;
  ReaderLists(const Graph &G);
  /// Whether every use of layer I is a reader that takes rows (takesRows).
  bool allTakeRows(const Graph &G, size_t I) const;
};

/// A depthwise conv of one input and weights of its own, which can compute
/// its channels in any order (permuteDepthwise).
bool isPlainDepthwise(const Layer &L);

/// Depthwise L reads X, whose physical channel Rows[o] is L's input's
/// logical channel o; afterwards L's physical channel Rows[o] is its logical
/// channel o (its weights and bias permuted), which its readers must take.
void permuteDepthwise(Layer &L, int X, const std::vector<uint32_t> &Rows);

/// L (a selection, or a conv with group 1 and one input) reads X, of shape
/// XS, instead of its input, whose channel i is X's channel Rows[i]: a
/// selection's rows composed, a conv's weights moved (summed where two
/// channels land on one; seeded weights drawn). FoldSelections.cpp.
void readThrough(Layer &L, int X, const Shape &XS, const std::vector<uint32_t> &Rows);

/// The layer a concat split made Name a part of ("conv" for "conv_part1"
/// or "conv_part0.1", a part of a part); empty if it is no part.
std::string splitBase(const std::string &Name);

/// One sweep over the concats: each concat whose readers are convs with
/// group 1 or selections using disjoint channels becomes one concat per
/// reader of just the channels it uses, the layers writing into it split by
/// output channels alike (ConcatSplit.cpp). Returns whether any was split.
bool splitConcatsByReader(Graph &G);

/// Where a selection is a permutation of a concat that only it reads, and
/// only a concat reads it (the half a ShuffleNet v2 unit passes on), the
/// reading concat takes the first's inputs in its place and its readers the
/// permutation; concats are split by reader again after each. Returns
/// whether any was replaced (PassThrough.cpp).
bool passHalvesThrough(Graph &G);

/// Where a graph has `shuffle` or `slice` layers (YAML), folds every
/// selection into the layers that read it: a selection of a selection is
/// one selection, a conv with group 1 takes the rows into its weights (where
/// that costs no more MACs than the selection), and a
/// depthwise conv over a permutation whose readers all take channels
/// permutes its own weights and hands the permutation on. Selections left
/// without readers are removed. Runs after batchnorms are folded and before
/// relus are (FoldSelections.cpp). Returns whether anything changed.
bool foldChannelMoves(Graph &G);

} // namespace snow::ir::detail

#endif
