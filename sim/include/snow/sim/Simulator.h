//===- Simulator.h - Cycle-accurate and functional simulator -------*- C++ -*-===//
//
// Runs a prog.bin on a model of the accelerator: the control core, the load,
// compute and store unit queues, the DRAM channel (bandwidth, burst rounding,
// latency), bank-level hazards on the on-chip buffers and the semaphores. It
// computes real int16 outputs (unless TimingOnly) and the exact cycle count
// defined by the timing contract in docs/architecture.md, which the RTL
// implements too.
//
// A program that breaks the rules (address out of range, reading a bank while
// a load into it is in flight, deadlock, running past MaxCycles) stops with a
// SimFault naming the PC and the instruction.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SIM_SIMULATOR_H
#define SNOW_SIM_SIMULATOR_H

#include "snow/isa/Program.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace snow::sim {

/// The default --max-cycles of snowsim and snowrtl and of every library run:
/// 40 s of machine time at 250 MHz, 130x the longest model in models/ on
/// zc706 (VGG-16, 76 M cycles), so that no real program on small hardware
/// meets it; a program that spins forever is stopped after it (docs/stats-json.md,
/// "Exit codes").
constexpr uint64_t DefaultMaxCycles = 10'000'000'000ULL;

class TraceRecorder;

struct SimOptions {
  bool TimingOnly = false; ///< Same cycles, no arithmetic.
  uint64_t MaxCycles = DefaultMaxCycles;
  /// Wall-clock limit of the run in seconds (0 = none): a runaway program
  /// faults, naming its PC, after this long whatever --max-cycles says.
  double MaxSeconds = 0;
  /// Records a timeline of the run (snow/sim/Trace.h); not owned; null = off.
  TraceRecorder *Trace = nullptr;
};

/// Where a unit's cycles went. Each unit's counters add up to the total cycles.
struct UnitCycles {
  uint64_t Busy = 0;     ///< Executing an operation.
  uint64_t WaitSem = 0;  ///< Blocked on a semaphore.
  uint64_t WaitDram = 0; ///< Waiting for the DRAM channel.
  uint64_t WaitAcc = 0;  ///< Writeback waiting for the MAC pipeline to drain.
  uint64_t Idle = 0;     ///< Queue empty.
};

struct LayerStats {
  std::string Name, Type;
  uint64_t Macs = 0;
  uint64_t Cycles = 0;    ///< Span between this layer's mark and the next.
  uint64_t MacCycles = 0; ///< Cycles the MAC array ran traces.
  uint64_t DramReadBytes = 0, DramWriteBytes = 0;
  /// The compute unit's cycles inside the layer's span: Busy (traces and
  /// other operations), WaitSem (waiting on loads or stores), WaitAcc (MAC
  /// pipeline drain), Idle (nothing issued: the control core was behind).
  /// They add up to Cycles.
  UnitCycles Compute;
  /// Functional runs only: values the layer stored to DRAM at 32767 or
  /// -32768, i.e. (with rare exceptions) saturated; snowref counts the same.
  /// The driver sums it over the frames of an input batch.
  uint64_t RailValues = 0;
};

struct SimStats {
  uint64_t Cycles = 0;
  uint64_t Macs = 0;
  uint64_t MacCycles = 0;
  uint64_t DramReadBytes = 0, DramWriteBytes = 0; ///< Payload bytes.
  uint64_t DramBusyCycles = 0;                    ///< Channel occupancy.
  uint64_t CtrlInstructions = 0, UnitOps = 0;
  UnitCycles Load, Compute, Store;
  uint64_t CtrlStallQueueFull = 0;
  /// Cycles the control core waited for instructions to arrive from DRAM
  /// (imem_kib > 0), and the code bytes fetched (not in DramReadBytes).
  uint64_t CtrlStallFetch = 0, DramCodeBytes = 0;
  std::vector<LayerStats> Layers;
  /// Layers[].RailValues were counted (a functional simulator run; not
  /// timing-only, not the RTL), over this many frames.
  bool RailsCounted = false;
  uint64_t RailFrames = 0;
};

/// Fault in the simulated program (not in the simulator).
class SimFault : public llvm::ErrorInfo<SimFault> {
public:
  static char ID;
  SimFault(uint32_t Pc, std::string Inst, std::string Reason, uint64_t Cycle)
      : Pc(Pc), Inst(std::move(Inst)), Reason(std::move(Reason)), Cycle(Cycle) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;
  uint32_t Pc;
  std::string Inst, Reason;
  uint64_t Cycle;
};

class Machine;

class Simulator {
public:
  /// Decodes the program; fails on an undecodable instruction.
  static llvm::Expected<std::unique_ptr<Simulator>> create(const isa::Program &P,
                                                           SimOptions Opts = {});
  ~Simulator();

  /// Input in CHW order, fixed point in the program's input format.
  llvm::Error setInput(const std::vector<int16_t> &Chw);
  /// Runs to completion (halt and every unit drained).
  llvm::Expected<SimStats> run();
  /// The output tensor in CHW order.
  std::vector<int16_t> output() const;

  const isa::Program &program() const { return Prog; }

private:
  Simulator(const isa::Program &P, SimOptions Opts);
  const isa::Program &Prog;
  SimOptions Opts;
  std::unique_ptr<Machine> M;
};

} // namespace snow::sim

#endif
