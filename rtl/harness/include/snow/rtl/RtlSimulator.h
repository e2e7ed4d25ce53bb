//===- RtlSimulator.h - Run a prog.bin on the Verilated RTL ---------*- C++ -*-===//
//
// The RTL's counterpart of sim::Simulator, with the same shape (create, set
// input, run, read output) and the same results: SimStats built from the
// RTL's counters and per-layer events by the simulator's own finishStats, and
// program faults as sim::SimFault with the simulator's wording. The model is
// the Verilated snow_top of the hardware configuration the program was
// compiled for; one is built per preset in SNOW_RTL_CONFIGS.
//
// The harness owns DRAM (Hw.dramBytes() bytes, zero-filled) and serves the
// RTL's DRAM port; the image is laid out by the simulator's DramImage
// functions. The RTL always computes values: there is no timing-only mode.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_RTL_RTLSIMULATOR_H
#define SNOW_RTL_RTLSIMULATOR_H

#include "snow/isa/Isa.h"
#include "snow/isa/Program.h"
#include "snow/sim/Simulator.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace snow::rtl {

struct RtlOptions {
  uint64_t MaxCycles = sim::DefaultMaxCycles;
  /// Write an FST waveform of the run here ("" = no trace). The file is
  /// written under a temporary name and renamed when the run ends (also when
  /// the program faults: that is when a waveform is wanted).
  std::string TracePath;
};

/// The hardware presets with a model in this build, in SNOW_RTL_CONFIGS order.
std::vector<std::string> builtConfigs();
/// Whether the models were built with FST tracing (SNOW_RTL_TRACE).
bool traceSupported();

class RtlModel;
struct FreeDeleter {
  void operator()(uint8_t *P) const;
};

class RtlSimulator {
public:
  /// Decodes the program (as the simulator does) and picks the model built
  /// for its hardware; fails if there is none.
  static llvm::Expected<std::unique_ptr<RtlSimulator>> create(const isa::Program &P,
                                                              RtlOptions Opts = {});
  ~RtlSimulator();

  /// Input in CHW order, fixed point in the program's input format.
  llvm::Error setInput(const std::vector<int16_t> &Chw);
  /// Resets the model, loads the code and runs until the RTL reports done or
  /// a fault (or MaxCycles pass).
  llvm::Expected<sim::SimStats> run();
  /// The output tensor in CHW order.
  std::vector<int16_t> output() const;

  /// The preset of the model in use.
  const char *config() const;
  const isa::Program &program() const { return Prog; }

private:
  RtlSimulator(const isa::Program &P, RtlOptions Opts);
  const isa::Program &Prog;
  RtlOptions Opts;
  std::vector<isa::Inst> Code;
  std::unique_ptr<RtlModel> Model;
  std::unique_ptr<uint8_t, FreeDeleter> Dram;
};

} // namespace snow::rtl

#endif
