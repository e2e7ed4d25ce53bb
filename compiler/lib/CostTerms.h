//===- CostTerms.h - The terms the cost model's estimates share -*- C++ -*-===//
//
// Internal to Cost.cpp and CostFused.cpp: the compute-unit cycles of each
// layer kind's plan and the channel terms both files build their costs
// from. Their docs are at their definitions (Cost.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_COSTTERMS_H
#define SNOW_COMPILER_COSTTERMS_H

#include "Rounds.h"

namespace snow::compiler {

/// Instructions fetched for a series of N DMA operations.
uint64_t seriesCode(uint64_t N);
/// Instructions fetched for a step's trace loop (a body of about 12 once).
inline constexpr uint64_t TraceLoopCode = 16 + 12;
/// Channel cycles to fetch Insts instructions (0 where code is preloaded).
uint64_t fetchCycles(const isa::HwConfig &Hw, uint64_t Insts);
/// A conv plan's cycles on the compute unit.
uint64_t convCompute(const LayerPlan &P, const RoundSummary &S, const isa::HwConfig &Hw);
/// The bytes of chunk C's weights for one output group of conv plan P.
uint64_t ogWeightBytes(const LayerPlan &P, unsigned C, const isa::HwConfig &Hw);
/// A pooling plan's cycles on the compute unit.
uint64_t poolCompute(const LayerPlan &P, const isa::HwConfig &Hw);
/// A depthwise plan's cycles on the compute unit.
uint64_t depthwiseCompute(const LayerPlan &P, const isa::HwConfig &Hw);

} // namespace snow::compiler

#endif
