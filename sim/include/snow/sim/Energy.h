//===- Energy.h - Energy and power of a simulated run --------------*- C++ -*-===//
//
// An event-count energy model in the manner of Accelergy's energy reference
// tables: the simulator (or the RTL, through the same statistics) counts
// events, a per-hardware table gives the energy of each, and static power is
// charged for the run's time. The tables live apart from the hardware
// configs (sim/energy/NAME.yaml, embedded in the tools): one architecture
// may be built in different technologies, and nothing about energy changes a
// program or the RTL. docs/energy.md has the model, its sources and its band.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SIM_ENERGY_H
#define SNOW_SIM_ENERGY_H

#include "snow/isa/HwConfig.h"
#include "snow/sim/Simulator.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>

namespace snow::sim {

/// Energy of each event, from sim/energy/NAME.yaml.
struct EnergyModel {
  std::string Name, Technology;
  double MacPj = 0;          ///< One 16-bit MAC lane for one cycle of a trace.
  double BufferPjPerBit = 0; ///< An on-chip buffer bit read or written.
  double DramPjPerByte = 0;  ///< A DRAM byte read or written.
  double InstructionPj = 0;  ///< Fetching and decoding one instruction.
  double StaticW = 0;        ///< Power that does not depend on the work.
};

/// Parses an energy table; errors carry Name:line.
llvm::Expected<EnergyModel> parseEnergyModel(const std::string &Text, const std::string &Name);
/// A YAML file, or the name of a built-in table (sim/energy/*.yaml).
llvm::Expected<EnergyModel> loadEnergyModel(const std::string &NameOrPath);
/// The built-in table named like the hardware, if there is one.
std::optional<EnergyModel> builtinEnergyModel(const std::string &HwName);

/// Joules of one run (or one layer), by where they go.
struct Energy {
  double MacJ = 0, BufferJ = 0, DramJ = 0, ControlJ = 0, StaticJ = 0;
  double dynamicJ() const { return MacJ + BufferJ + DramJ + ControlJ; }
  double totalJ() const { return dynamicJ() + StaticJ; }
};

/// The events of a run or a layer, as the statistics count them.
struct EnergyEvents {
  uint64_t Cycles = 0, MacCycles = 0, DramReadBytes = 0, DramWriteBytes = 0, Instructions = 0;
};

/// Energy of the events on Hw: every lane of the array for each MAC cycle;
/// per MAC cycle and vMAC one weight word (lanes x 16 bits) and one map value
/// (16 bits) read; every DRAM byte read is written into a buffer and every
/// byte written was read from one (and written there by the writeback
/// first); static power for Cycles at the clock.
Energy energyOf(const EnergyModel &M, const isa::HwConfig &Hw, const EnergyEvents &E);
Energy energyOf(const EnergyModel &M, const isa::HwConfig &Hw, const SimStats &S);
Energy energyOf(const EnergyModel &M, const isa::HwConfig &Hw, const LayerStats &L);

} // namespace snow::sim

#endif
