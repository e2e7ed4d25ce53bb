//===- HwConfig.h - Hardware configuration of the accelerator -----*- C++ -*-===//
//
// The one description of a hardware point: array shape, buffers, DRAM, clock.
// Loaded from YAML (a preset name from isa/presets or a file), validated
// strictly (unknown keys and impossible values are errors naming key and
// file:line), and embedded in every prog.bin in canonical text form so a
// program always says which machine it was compiled for.
//
// Derived quantities (MAC count, bank sizes, DRAM bytes per cycle) are computed
// here and only here; the simulator, compiler and RTL package read them.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_HWCONFIG_H
#define SNOW_ISA_HWCONFIG_H

#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace snow::isa {

struct HwConfig {
  std::string Name = "zc706";
  double ClockMhz = 250;
  unsigned Clusters = 1;
  unsigned CusPerCluster = 4;
  unsigned VmacsPerCu = 4;
  unsigned LanesPerVmac = 16;
  unsigned MapsBufferKib = 256;   ///< Per CU.
  unsigned MapsBanks = 8;         ///< Per maps buffer; hazards are tracked per bank.
  unsigned WeightsBufferKib = 32; ///< Per vMAC.
  unsigned WeightsBanks = 2;
  unsigned AccEntries = 128; ///< Accumulators per lane.
  unsigned AccBits = 48;     ///< Accumulator width; sums wrap at this width.
  double DramGbps = 4.2;     ///< Usable DRAM bandwidth, 1e9 bytes/s.
  unsigned DramLatencyCycles = 32;
  unsigned DramBurstBytes = 64; ///< Every DMA row is rounded out to whole aligned bursts.
  unsigned DramMib = 1024;
  unsigned QueueDepth = 64;        ///< Entries per unit queue.
  unsigned MacPipelineDepth = 4;   ///< Cycles from a trace's last issue to its accumulator write.
  unsigned WritebackWords = 4;     ///< Lane words vwb / vpre move per cycle per CU.
  unsigned ActFracBits = 8;        ///< Default activation format: Q(15-f).f.
  unsigned OnchipBudgetKib = 2395; ///< All buffers and accumulators together must fit.

  // Derived. Valid after validate().
  unsigned cus() const { return Clusters * CusPerCluster; }
  unsigned macs() const { return cus() * VmacsPerCu * LanesPerVmac; }
  double peakGops() const { return 2.0 * macs() * ClockMhz / 1000.0; }
  uint32_t mapsElems() const { return MapsBufferKib * 1024 / 2; }
  uint32_t mapsBankElems() const { return mapsElems() / MapsBanks; }
  uint32_t weightWordBytes() const { return LanesPerVmac * 2; }
  uint32_t weightsWords() const { return WeightsBufferKib * 1024 / weightWordBytes(); }
  uint32_t weightsBankWords() const { return weightsWords() / WeightsBanks; }
  /// Cycles vwb / vpre spend on one accumulator entry (all vMACs of a CU).
  unsigned writebackCyclesPerEntry() const {
    return (VmacsPerCu + WritebackWords - 1) / WritebackWords;
  }
  uint64_t dramBytes() const { return uint64_t(DramMib) << 20; }
  /// DRAM bandwidth in 1/256 bytes per cycle (fixed point, so the RTL can match it).
  uint32_t dramBwQ8() const;
  /// Cycles the DRAM channel is busy moving Bytes (already burst-rounded).
  uint64_t dramCycles(uint64_t Bytes) const;
  uint64_t onchipBytes() const;

  /// Canonical "key: value" text, one per line, in declaration order.
  std::string toYaml() const;
  bool operator==(const HwConfig &) const = default;
};

/// Names of the presets built into the tools (from isa/presets/*.yaml).
std::vector<std::string> hwPresetNames();

/// Loads a preset by name, or a YAML file by path. A file may start from a
/// preset with "base: NAME" and override keys.
llvm::Expected<HwConfig> loadHwConfig(const std::string &PresetOrFile);
/// Parses YAML text; File is used in messages.
llvm::Expected<HwConfig> parseHwConfig(const std::string &Text, const std::string &File);
/// Checks ranges and derived constraints (powers of two, on-chip budget...).
llvm::Error validate(const HwConfig &C, const std::string &Where);

/// The Markdown table of every YAML key (unit, zc706 value, allowed values,
/// meaning) generated from the parser's own key table; docs/hardware-config.md
/// embeds it and a test keeps the two equal.
std::string hwConfigKeyTable();

} // namespace snow::isa

#endif
