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

#include "snow/isa/Word.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace snow::isa {

/// The values of isa/presets/zc706.yaml, generated from it: the defaults below
/// are the published point, typed only in the preset file.
namespace zc706 {
#define SNOW_HW_DEFAULT(KEY, VALUE) inline constexpr auto KEY = VALUE;
#include "snow/hw/Zc706Defaults.inc"
#undef SNOW_HW_DEFAULT
} // namespace zc706

struct HwConfig {
  std::string Name = zc706::name;
  double ClockMhz = zc706::clock_mhz;
  unsigned Clusters = zc706::clusters;
  unsigned CusPerCluster = zc706::cus_per_cluster;
  unsigned VmacsPerCu = zc706::vmacs_per_cu;
  unsigned LanesPerVmac = zc706::lanes_per_vmac;
  /// Per CU.
  unsigned MapsBufferKib = zc706::maps_buffer_kib;
  /// Per maps buffer; hazards are tracked per bank.
  unsigned MapsBanks = zc706::maps_banks;
  /// Per vMAC.
  unsigned WeightsBufferKib = zc706::weights_buffer_kib;
  unsigned WeightsBanks = zc706::weights_banks;
  /// Accumulators per lane.
  unsigned AccEntries = zc706::acc_entries;
  /// Accumulator width; sums wrap at this width.
  unsigned AccBits = zc706::acc_bits;
  /// Nominal DRAM bandwidth, 1e9 bytes/s (the interface's pin rate).
  double DramGbps = zc706::dram_gbps;
  /// Fraction of DramGbps the memory controller sustains (refresh, row
  /// switches, read/write turnarounds): the channel moves DramGbps x this.
  double DramEfficiency = zc706::dram_efficiency;
  unsigned DramLatencyCycles = zc706::dram_latency_cycles;
  /// Every DMA row is rounded out to whole aligned bursts.
  unsigned DramBurstBytes = zc706::dram_burst_bytes;
  /// 1: a DMA whose rows follow each other in DRAM (stride = row bytes) moves
  /// them as one span of bursts, packed one beat a cycle; 0: each row is a
  /// transfer of its own bursts.
  unsigned DmaMergeRows = zc706::dma_merge_rows;
  unsigned DramMib = zc706::dram_mib;
  /// Entries per unit queue.
  unsigned QueueDepth = zc706::queue_depth;
  /// Cycles from a trace's last issue to its accumulator write.
  unsigned MacPipelineDepth = zc706::mac_pipeline_depth;
  /// Cycles a MAC trace (vmac, vmacp, vdw) holds the compute unit before its
  /// first MAC: decoding it into the address generator, the buffer's read.
  unsigned TraceStartupCycles = zc706::trace_startup_cycles;
  /// 1: a trace that starts the cycle the trace before it ends, having been
  /// in the compute queue the cycle before, skips a cycle of its start-up
  /// (the sequencer loaded it during that trace's last tap); 0: every trace
  /// pays all of it.
  unsigned TraceLookahead = zc706::trace_lookahead;
  /// A vmac / vmacp trace row of len map elements takes len rounded up to a
  /// whole number of this many elements (1: one element a cycle, no rounding).
  unsigned TraceRowGranule = zc706::trace_row_granule;
  /// Distinct read addresses a CU's maps buffer serves per cycle for traces:
  /// vmacp's 2^pix pixel groups need one each.
  unsigned MapsReadPorts = zc706::maps_read_ports;
  /// 1: every maps bank has MapsReadPorts read addresses of its own, so a
  /// vmacp whose pixel groups read different banks takes one cycle a step;
  /// 0: the ports serve the whole buffer.
  unsigned MapsPortsPerBank = zc706::maps_ports_per_bank;
  /// 1: ld.wgt's wpix writes vMAC idx of every vmacp pixel group at once
  /// (one DRAM transfer for the blocks the groups share); 0: wpix must be 0.
  unsigned WpixLoads = zc706::wpix_loads;
  /// 1: a vwb with sum writes the sum of every CU's accumulator words (an
  /// adder tree across the CUs in the writeback path); 0: sum must be 0.
  unsigned CuSumWriteback = zc706::cu_sum_writeback;
  /// Lane words vwb / vpre / vmul move per cycle per CU.
  unsigned WritebackWords = zc706::writeback_words;
  /// 1: a vwb holds the compute unit one cycle and writes back beside the
  /// traces after it (architecture.md §3.2); 0: it holds the unit until done.
  unsigned WritebackOverlap = zc706::writeback_overlap;
  /// Lane words of channels a vmax / vavg computes at once (its words + 1 at
  /// most): the max / average unit's width per CU.
  unsigned PoolWords = zc706::pool_words;
  /// On-chip instruction memory: 0 for code preloaded whole and fetched for
  /// free (the idealized model), else a direct-mapped memory of this many KiB
  /// that the fetch engine fills from code in DRAM over the DMA channel
  /// (docs/architecture.md §3.1, "Instruction fetch").
  unsigned ImemKib = zc706::imem_kib;
  /// Instructions one fetch moves (a line of the instruction memory).
  unsigned FetchBlockInsts = zc706::fetch_block_insts;
  /// Default activation format: Q(15-f).f.
  unsigned ActFracBits = zc706::act_frac_bits;
  /// All buffers and accumulators together must fit.
  unsigned OnchipBudgetKib = zc706::onchip_budget_kib;

  // Derived. Valid after validate().
  unsigned cus() const { return Clusters * CusPerCluster; }
  unsigned macs() const { return cus() * VmacsPerCu * LanesPerVmac; }
  double peakGops() const { return 2.0 * macs() * ClockMhz / 1000.0; }
  uint32_t mapsElems() const { return MapsBufferKib * 1024 / 2; }
  uint32_t mapsBankElems() const { return mapsElems() / MapsBanks; }
  uint32_t weightWordBytes() const { return LanesPerVmac * 2; }
  uint32_t weightsWords() const { return WeightsBufferKib * 1024 / weightWordBytes(); }
  uint32_t weightsBankWords() const { return weightsWords() / WeightsBanks; }
  /// Bytes the DMA datapath moves a cycle (a beat): one weight word, widened
  /// to at least the channel's bytes a cycle, so that a transfer of whole
  /// bursts has moved its data when the channel is free again. A beat never
  /// spans two DMA rows.
  uint32_t dmaBeatBytes() const;
  /// vMACs whose words vwb / vpre / vmul move in one cycle (writeback_words,
  /// within the CU's vMACs).
  unsigned writebackWords() const {
    return WritebackWords < VmacsPerCu ? WritebackWords : VmacsPerCu;
  }
  /// Cycles vwb / vpre / vmul spend on one accumulator entry (all vMACs of a CU).
  unsigned writebackCyclesPerEntry() const {
    return (VmacsPerCu + WritebackWords - 1) / WritebackWords;
  }
  /// Lane words a vmax / vavg may compute at once (pool_words, within the
  /// CU's vMACs).
  unsigned poolWords() const { return PoolWords < VmacsPerCu ? PoolWords : VmacsPerCu; }
  uint64_t dramBytes() const { return uint64_t(DramMib) << 20; }
  /// Why an ld.wgt's wpix and vMAC index name no vMAC of 2^wpix pixel groups
  /// on this machine (the fault the simulator and the RTL report), or "".
  std::string wpixFault(unsigned Wpix, unsigned Idx) const;
  /// Why a vwb's sum cannot run here (no cu_sum_writeback).
  std::string sumFault() const;
  /// Whether instructions are fetched from DRAM (imem_kib > 0).
  bool fetchesCode() const { return ImemKib != 0; }
  /// Bytes of one fetch block (a line of the instruction memory). Inline:
  /// the simulator asks on every instruction it issues.
  uint64_t fetchBlockBytes() const { return uint64_t(FetchBlockInsts) * InstBytes; }
  /// Lines of the instruction memory (0 when code is preloaded).
  uint64_t imemLines() const { return uint64_t(ImemKib) * 1024 / fetchBlockBytes(); }
  /// Sustained DRAM bandwidth (dram_gbps x dram_efficiency) in 1/256 bytes
  /// per cycle (fixed point, so the RTL can match it).
  uint32_t dramBwQ8() const;
  /// Cycles the DRAM channel is busy moving Bytes (already burst-rounded).
  uint64_t dramCycles(uint64_t Bytes) const { return dramCyclesAt(dramBwQ8(), Bytes); }
  /// dramCycles at a bandwidth of BwQ8 (dramBwQ8(), worked out once by a
  /// caller that asks often).
  static uint64_t dramCyclesAt(uint32_t BwQ8, uint64_t Bytes);
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
