//===- RtlModel.h - What the harness needs from a Verilated model --*- C++ -*-===//
//
// One abstract class over the Verilated snow_top of every configuration
// (VerilatedModel<Vsnow_cfg> implements it once for all), so the rest of the
// harness is written against plain C++ types: the run's inputs, the per-layer
// events it reports as they happen (EventLog), and how it ended (RunOutcome:
// done with the final counters, a fault with code and arguments, or still
// running at --max-cycles). Internal to snow_rtl.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_RTL_RTLMODEL_H
#define SNOW_RTL_RTLMODEL_H

#include "snow/isa/Word.h"
#include "snow/sim/Simulator.h"
#include "snow/sim/Stats.h"
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace snow::rtl {

/// What one run starts from.
struct RunInput {
  const std::vector<isa::Word128> *Code = nullptr;
  uint32_t NumLayers = 0;
  uint64_t MaxCycles = 0;
  std::string TraceFile; ///< Where the FST goes ("" = no trace).
  uint8_t *Dram = nullptr;
  uint64_t DramBytes = 0;
};

/// The RTL's per-layer events, attributed as the simulator attributes them
/// (Machine::layerStats): a mark opens the compute unit's layer before the
/// compute counters of the same cycle are added; MAC cycles and DRAM bytes
/// carry the layer the control core had marked at dispatch, NoLayer (before
/// the first mark) meaning the prologue.
struct EventLog {
  static constexpr uint32_t NoLayer = UINT32_MAX;
  sim::SimStats *Stats = nullptr; ///< Layers initialized from the program.
  sim::LayerMarks Marks;
  sim::LayerStats Prologue;
  uint32_t ComputeLayer = NoLayer;
  uint32_t BadLayer = NoLayer; ///< A layer index outside the table, if the RTL sent one.
  std::deque<std::pair<uint32_t, uint64_t>> PendingStores; ///< Layer, bytes not yet written.

  sim::LayerStats &layer(uint32_t L) {
    if (L == NoLayer)
      return Prologue;
    if (L >= Stats->Layers.size()) {
      BadLayer = L;
      return Prologue;
    }
    return Stats->Layers[L];
  }
  /// A store dispatched for layer L: its bytes reach the DRAM write port
  /// later, in dispatch order (one DMA queue per direction).
  void store(uint32_t L, uint64_t Bytes) {
    layer(L).DramWriteBytes += Bytes;
    if (Bytes)
      PendingStores.push_back({L, Bytes});
  }
  /// One int16 value on the DRAM write port: counted, as the simulator counts
  /// at its store, for the oldest store with bytes outstanding.
  void written(int16_t V) {
    if (PendingStores.empty())
      return; // no store announced it; the RTL would have faulted
    auto &[L, Left] = PendingStores.front();
    layer(L).RailValues += V == INT16_MAX || V == INT16_MIN;
    Left = Left > 2 ? Left - 2 : 0;
    if (Left == 0)
      PendingStores.pop_front();
  }
  void mark(uint32_t L, uint64_t Cycle) {
    Marks.push_back({L, Cycle});
    ComputeLayer = L;
    if (L >= Stats->Layers.size())
      BadLayer = L;
  }
};

/// The RTL's global counters (names as in SimStats), valid with done.
struct RtlCounters {
  uint64_t TotalCycles = 0, MacCycles = 0, DramBusy = 0, CtrlInsts = 0, UnitOps = 0, CtrlStall = 0,
           DramReadBytes = 0, DramWriteBytes = 0, FetchStall = 0, DramCodeBytes = 0;
  uint64_t Busy[3] = {}, WaitSem[3] = {}, WaitDram[3] = {},
           WaitAcc[3] = {}; ///< load, compute, store
};

struct RunOutcome {
  enum Kind { Done, Faulted, Runaway } K = Done;
  RtlCounters Counters;      ///< Done
  uint8_t FaultCode = 0;     ///< Faulted: a code of rtl/gen/Faults.def
  uint64_t FaultArg[3] = {}; ///< Faulted
  uint32_t Pc = 0;           ///< Faulted: fault_pc; Runaway: the control core's pc
  uint32_t CtrlPc = 0;       ///< The control core's pc when the run stopped
  uint64_t Cycle = 0;        ///< Faulted: fault_cycle; Runaway: the cycle reached
};

class RtlModel {
public:
  virtual ~RtlModel() = default;
  /// The hardware preset the model was built for.
  virtual const char *config() const = 0;
  /// Instructions the model's instruction memory holds.
  virtual uint64_t imemWords() const = 0;
  /// Resets a fresh model, loads the code and clocks it to the end.
  virtual RunOutcome run(const RunInput &In, EventLog &Log) = 0;
};

} // namespace snow::rtl

#endif
