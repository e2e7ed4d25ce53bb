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

/// Packs the weights of every conv plan into Data (the image starting at
/// DataAddr), in program order, and fills each plan's WAddr / WWords.
void packWeights(std::vector<LayerPlan> &Plans, const isa::HwConfig &Hw, uint64_t DataAddr,
                 std::vector<uint8_t> &Data);

} // namespace snow::compiler

#endif
