//===- HwExport.h - Hardware configs for scripts and docs ---------*- C++ -*-===//
//
// Scripts (bench/, explore/tools/, tests/**/*.py) need the same numbers the
// C++ reads: a preset's keys, its derived sizes and the ISA's machine
// constants. Rather than retyping them, they run `snowhw`, which prints this
// JSON, so the one sources stay isa/presets/*.yaml, HwConfig and isa/Snow.td.
// The presets table of docs/hardware-config.md is generated here for the same
// reason (tests/hw/PresetTableTest.cpp keeps the doc equal to it).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_HWEXPORT_H
#define SNOW_ISA_HWEXPORT_H

#include "snow/isa/HwConfig.h"
#include "llvm/Support/JSON.h"

namespace snow::isa {

/// Every key of C (as toYaml writes it, numbers as numbers) plus "derived":
/// cus, macs, peak_gops, maps_elems, weights_words, dram_bw_q8, onchip_bytes...
llvm::json::Object hwConfigJson(const HwConfig &C);

/// The ISA's machine constants (Snow.td's Const records), name -> value.
llvm::json::Object isaConstantsJson();

/// The Markdown table of every preset: shape, MACs, clock and peak GOPS, DRAM
/// bandwidth (also per cycle, as dramBwQ8), on-chip use against the budget.
std::string hwPresetTable();

} // namespace snow::isa

#endif
