//===- Stats.h - Finishing a run's statistics ---------------------*- C++ -*-===//
//
// The simulator and the RTL harness (snowrtl) gather the same raw counters
// (each unit's busy and wait cycles, per-layer MAC cycles, DRAM bytes and
// compute-unit cycles, the cycles at which layer marks started) and turn them
// into SimStats here, in one place, so the two can only agree: layer spans
// from the marks (docs/architecture.md §3.5), the prologue (work dispatched
// before the first mark) merged into the first marked layer, and the idle
// cycles that make every unit's counters add up to the total (§4).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SIM_STATS_H
#define SNOW_SIM_STATS_H

#include "snow/isa/Program.h"
#include "snow/sim/Simulator.h"
#include <cstdint>
#include <utility>
#include <vector>

namespace snow::sim {

/// Layer marks as (layer, cycle the compute unit started the mark), in order.
using LayerMarks = std::vector<std::pair<uint32_t, uint64_t>>;

/// Starts S.Layers from the program's layer table (name, type, MACs); a
/// program without one gets a single "(program)" layer.
void initLayerStats(SimStats &S, const isa::Program &P);

/// Completes S once a run has ended after TotalCycles: S.Cycles, the unit
/// counters' Idle, each layer's Cycles and compute Idle, the prologue merged
/// into the first marked layer (layer 0 without marks) and S.Macs. The unit
/// counters other than Idle, the per-layer counters and the global counters
/// must already hold the run's values.
void finishStats(SimStats &S, const LayerMarks &Marks, const LayerStats &Prologue,
                 uint64_t TotalCycles);

} // namespace snow::sim

#endif
