//===- WeightPack.h - Conv weights laid out and packed into the image -*- C++ -*-===//
//
// The data image's weight blocks, in the order and word layout the lowered
// code's weight DMAs read (docs/compiler.md).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_WEIGHTPACK_H
#define SNOW_COMPILER_WEIGHTPACK_H

#include "Plan.h"
#include <cstdint>
#include <optional>
#include <vector>

namespace snow::compiler {

/// Where one block of packed weights goes: plan, output group, chunk,
/// sub-block, and its byte offset in the data image.
struct WeightBlock {
  LayerPlan *P;
  unsigned Og, C, S;
  uint64_t Offset;
};

/// A program's weight image, laid out: its size and its blocks, which point
/// at the plans (and through them at the graph's layers).
struct WeightImage {
  isa::HwConfig Hw;
  uint64_t Size = 0;
  std::vector<WeightBlock> Blocks; ///< By offset.
  /// Writes bytes [Begin, End) of the image to Out, on several threads: the
  /// blocks' words, zero between blocks. A block cut by Begin or End is
  /// packed whole aside and its part copied.
  void fill(uint64_t Begin, uint64_t End, uint8_t *Out) const;
};

/// Where a pinned pair's weights lie in the weights buffer
/// (LayerPlan::PinWeights), in words from the start of a weights bank, the
/// same in every vMAC. The producer's blocks (kernel and tail, chunk by
/// chunk) fill one bank (Small: its first step loads them, into the bank
/// freed first); the reader's kernel blocks, output group by group and
/// chunk by chunk, the other (Big: the reader's first step loads them), and
/// after them its tails (bias word and activation table, one an output
/// group) where they fit, else after the producer's blocks (MobileNet v1's
/// conv5_pw: 4 x 128 kernel words fill a 512-word bank). The reader reads
/// its bank to the pair's end, the producer its own to its last step, or to
/// the pair's end if the reader's tails lie there (Sequence.cpp: pinStep).
struct PinnedWeights {
  std::vector<uint32_t> Kernel;   ///< The reader's block (Og, C): Og * NChunks + C.
  std::vector<uint32_t> Tail;     ///< The reader's output group's tail.
  std::vector<uint32_t> Producer; ///< The producer's chunk's block.
  bool TailsInBig = true;
  uint32_t BigWords = 0, SmallWords = 0;
};

/// The pinned layout of depthwise producer D and its 1x1 reader P, if it
/// fits weights banks of WCap words.
std::optional<PinnedWeights> pinWeights(const LayerPlan &D, const LayerPlan &P, uint32_t WCap);

/// Whether window producer D may load its depthwise reader Q's weights
/// with its own, round by round, into one weights bank of WCap words
/// (LayerPlan::CoWeights): both blocks fit, and every round after the first
/// changes D's output groups, so D loads a block each round anyway.
bool colocatesWeights(const LayerPlan &D, const LayerPlan &Q, uint32_t WCap);

/// Lays out the weights of every conv plan in the image starting at
/// DataAddr, in program order, and fills each plan's WAddr / WWords.
WeightImage layoutWeights(std::vector<LayerPlan> &Plans, const isa::HwConfig &Hw,
                          uint64_t DataAddr);

} // namespace snow::compiler

#endif
