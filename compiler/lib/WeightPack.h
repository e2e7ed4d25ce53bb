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

/// Lays out the weights of every conv plan in the image starting at
/// DataAddr, in program order, and fills each plan's WAddr / WWords.
WeightImage layoutWeights(std::vector<LayerPlan> &Plans, const isa::HwConfig &Hw,
                          uint64_t DataAddr);

} // namespace snow::compiler

#endif
