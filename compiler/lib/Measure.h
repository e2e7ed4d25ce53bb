//===- Measure.h - A candidate plan played through the timing engine -*- C++ -*-===//
//
// The planner ranks a layer's candidate plans with the cost model (Cost.h),
// which takes microseconds a plan but misses interactions the simulator sees
// (the order of the load unit's queue, DRAM latency on chains of small
// transfers, code fetch). Its few best candidates are then measured: each
// is lowered alone into a one-layer program and run through snowsim's timing
// engine, the same code that accounts every cycle the tools report, and the
// fastest measured one is kept (docs/compiler.md, step 6a).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_MEASURE_H
#define SNOW_COMPILER_MEASURE_H

#include "Plan.h"
#include <cstdint>
#include <functional>
#include <optional>

namespace snow::compiler {

/// Candidates of a conv layer measured (the cost model's best few).
constexpr size_t MeasureCandidates = 3;

/// Steps (rounds x chunks) beyond which a candidate is measured on a prefix
/// of its rounds and the rest extrapolated with the cost model's ratio.
constexpr unsigned MeasureSteps = 96;

/// Cycles of plan P run alone (its inputs in DRAM, its first weights not
/// prefetched), from the timing engine. Plans with many steps are measured
/// on their first rounds: the result is the cost model's estimate of the
/// whole plan scaled by measured / estimated cycles of those rounds
/// (Estimate gives the model's cost of a prefix of P's rounds). None if
/// the plan cannot be measured alone (run-time weights).
std::optional<uint64_t>
measurePlan(const LayerPlan &P, const isa::HwConfig &Hw, const BufferMap &B,
            const CompileOptions &Opts,
            const std::function<uint64_t(const LayerPlan &Prefix)> &Estimate);

} // namespace snow::compiler

#endif
