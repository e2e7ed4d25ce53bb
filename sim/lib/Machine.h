//===- Machine.h - Simulator internals: state, units, timing -------*- C++ -*-===//
//
// The machine state (DRAM, buffers, accumulators, registers, queues) and the
// two halves of every operation: its functional effect (Functional.cpp) and its
// timing (Timing.cpp), which follows docs/architecture.md rule by rule.
// Internal to snow_sim.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SIM_MACHINE_H
#define SNOW_SIM_MACHINE_H

#include "snow/isa/Isa.h"
#include "snow/isa/Program.h"
#include "snow/isa/Timing.h"
#include "snow/sim/Simulator.h"
#include "snow/sim/Trace.h"
#include <array>
#include <cstdlib>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace snow::sim {

constexpr uint64_t Never = std::numeric_limits<uint64_t>::max();

/// Channels a vmax / vavg computes: its words field + 1 lane words.
inline unsigned poolLanes(const isa::HwConfig &Hw, const isa::Inst &I) {
  return (unsigned(I.words) + 1) * Hw.LanesPerVmac;
}

/// Extent in elements of a window: rows at bstride of len taps at cstride, the
/// last tap Last elements wide (vdw, vpool); 0 for an empty window.
inline uint64_t windowExtent(const isa::Inst &I, uint64_t Last) {
  return I.rows == 0 || I.len == 0
             ? 0
             : uint64_t(I.rows - 1) * I.bstride + uint64_t(I.len - 1) * I.cstride + Last;
}

/// A unit operation as dispatched by the control core: the instruction plus
/// the register operands read at dispatch time.
struct Entry {
  uint32_t Pc = 0;
  uint32_t A1 = 0, A2 = 0, A3 = 0; ///< Values of rs1, rs2, rs3.
  uint32_t Layer = 0;              ///< Layer open in the control core at dispatch.
  uint64_t PushCycle = 0;
};

/// One of the load / compute / store units.
struct UnitState {
  isa::Unit Kind;
  std::deque<Entry> Queue;
  uint64_t ReadyAt = 0;          ///< Earliest cycle the next operation may start.
  uint64_t LastCompletion = 0;   ///< Latest completion of any started operation.
  uint64_t BlockedSince = Never; ///< Head blocked on a semaphore or the accumulators.
  bool WaitingGrant = false;     ///< DMA request posted, channel not yet granted.
  uint64_t TraceEnd = Never;     ///< End of the last operation started, if a MAC trace.
  UnitCycles Cycles;
};

/// A DMA request waiting for the DRAM channel: a unit's (load, store), or
/// the fetch engine's (From = Ctrl; DramLo holds the block it fetches).
struct DramRequest {
  isa::Unit From;
  uint64_t PostCycle;
  uint64_t Cycles;       ///< Channel occupancy.
  unsigned Bank0, Bank1; ///< Buffer banks touched (for the hazard window).
  bool Weights;          ///< Buffer is the weights buffer.
  uint64_t DramLo, DramHi;
  uint32_t Pc;
  uint32_t Layer; ///< Of the dispatching entry (for the trace).
};

/// Hazard windows of one buffer bank: until when each unit reads / writes it.
struct BankUse {
  std::array<uint64_t, isa::NumUnits> ReadUntil{}, WriteUntil{};
};

/// A DRAM byte range in flight (for load/store ordering faults).
struct DramRange {
  timing::DramRows Rows; ///< Its bytes (the ordering rule compares rows).
  uint64_t Until;
  uint32_t Pc;
  /// For an ld.map: the maps elements it writes (extent) and its CU mask.
  struct {
    uint64_t Lo = 0, Hi = 0;
    uint32_t Mask = 0;
  } Buf;
};

/// Signals a unit may hold started but not yet fired (the RTL's FIFO depth):
/// a contract constant of Snow.td, shared with the RTL through snow_isa_pkg.
using isa::MaxPendingSignals;

/// The decoded program, indexed by pc. A network's code repeats a few
/// thousand distinct words (loop bodies, per-tile sequences), so each is
/// decoded and stored once: a decoded instruction is ~170 bytes.
struct DecodedCode {
  std::vector<isa::Inst> Unique;
  std::vector<uint32_t> Index; ///< [pc] -> Unique
  const isa::Inst &operator[](size_t Pc) const { return Unique[Index[Pc]]; }
  size_t size() const { return Index.size(); }
};

/// A line of the instruction memory (docs/architecture.md §3.1, "Instruction
/// fetch"): the code block it holds or is being filled with, and the cycle
/// from which its instructions can be issued (Never until its fetch is
/// granted).
struct FetchLine {
  uint64_t Block = std::numeric_limits<uint64_t>::max();
  uint64_t ReadyAt = std::numeric_limits<uint64_t>::max();
};

struct FreeDeleter {
  void operator()(uint8_t *P) const { std::free(P); }
};

class Machine {
public:
  Machine(const isa::Program &P, DecodedCode Code, SimOptions Opts);

  llvm::Error run(SimStats &Stats);

  // DRAM and tensor access for the driver.
  uint8_t *dram() { return Dram.get(); }
  const uint8_t *dram() const { return Dram.get(); }

private:
  // Timing.cpp
  /// The control core in cycle T. Fetched: the caller knows the instruction
  /// at pc can be issued (fetched(T) need not be asked again).
  bool stepCtrl(uint64_t T, bool Fetched = false);
  /// The fetch engine: redirect, skip a resident block or post a fetch.
  bool stepFetch(uint64_t T);
  /// The block the fetch engine considers now (after a redirect) and
  /// whether it is within reach (the prefetch window and the code).
  struct FetchView {
    uint64_t Next;
    bool InReach;
  };
  FetchView fetchView() const;
  /// Whether stepFetch would act now (its state and pc as they stand).
  bool fetchCanAct() const;
  struct PcSpan {
    uint64_t Lo = 0, Span = 0;
    bool contains(uint64_t P) const { return P - Lo < Span; }
  };
  /// The pcs [Lo, Lo + Span) of the code block holding pc if its
  /// instructions can be issued in cycle T, else an empty span. (Without
  /// instruction fetch: every pc.)
  PcSpan residentBlock(uint64_t T) const;
  /// The instruction-memory line that holds (or would hold) code block B.
  FetchLine &lineOf(uint64_t B) { return Lines[timing::fetchLine(Hw, B)]; }
  const FetchLine &lineOf(uint64_t B) const { return Lines[timing::fetchLine(Hw, B)]; }
  /// The control core issues in cycle T after a stall begun at Since (Never:
  /// none) on Why (Ctrl: its instructions): count it and trace it.
  void endStall(uint64_t &Since, uint64_t &Counter, isa::Unit Why, uint64_t T);
  /// Whether the instruction at Pc can be issued in cycle T.
  bool fetched(uint64_t T) const;
  bool stepUnit(UnitState &U, uint64_t T);
  bool grantChannel(uint64_t T);
  uint64_t nextWake(uint64_t T) const;
  bool drained() const;
  llvm::Error deadlock(uint64_t T) const;
  llvm::Error startOp(UnitState &U, const Entry &E, uint64_t T, bool &Started);
  llvm::Error checkBanks(isa::Unit U, bool Weights, uint64_t Lo, uint64_t Hi, bool Write,
                         uint64_t T, uint64_t Until, const Entry &E, uint64_t From = Never);
  void closeStats(SimStats &Stats);
  llvm::Error finish(SimStats &Stats);

  // Functional.cpp: each checks ranges and applies the operation's effect.
  llvm::Error loadMaps(const isa::Inst &I, const Entry &E, uint64_t T);
  llvm::Error loadWeights(const isa::Inst &I, const Entry &E, uint64_t T);
  llvm::Error fillMaps(const isa::Inst &I, const Entry &E, uint64_t T);
  llvm::Error storeMaps(const isa::Inst &I, const Entry &E, uint64_t T);
  llvm::Error vmac(const isa::Inst &I, const Entry &E, uint64_t T);
  /// Maps elements a vmac / vmacp reads from rs2 on (all pixel groups).
  uint64_t vmacExtent(const isa::Inst &I) const;
  /// Maps elements a vdw reads from rs2 on (0 where rows or len is 0).
  uint64_t vdwExtent(const isa::Inst &I) const;
  llvm::Error vbias(const isa::Inst &I, const Entry &E, uint64_t T);
  llvm::Error vlut(const isa::Inst &I, const Entry &E, uint64_t T);
  llvm::Error checkAccEntries(const isa::Inst &I, const Entry &E, uint64_t T);
  llvm::Error vwb(const isa::Inst &I, const Entry &E, uint64_t T);
  /// vpre and vmul: accumulators from maps.
  llvm::Error accFromMaps(const isa::Inst &I, const Entry &E, uint64_t T);
  llvm::Error vdw(const isa::Inst &I, const Entry &E, uint64_t T);
  llvm::Error vpool(const isa::Inst &I, const Entry &E, uint64_t T, bool Max);
  llvm::Error checkDramRows(const isa::Inst &I, const Entry &E, uint64_t T, uint64_t Addr,
                            uint64_t RowBytes);
  /// The DRAM rows (rs1) and maps rows (rs2) an ld.map or st.map moves.
  llvm::Error checkMapsDram(const isa::Inst &I, const Entry &E, uint64_t T);

public:
  llvm::Error fault(const Entry &E, uint64_t T, const std::string &Reason) const;
  llvm::Error faultAt(uint32_t Pc, uint64_t T, const std::string &Reason) const;

  const isa::Program &Prog;
  const isa::HwConfig &Hw;
  const timing::DmaChannel Channel; ///< Hw's DRAM channel (its rate worked out once).
  DecodedCode Code;
  SimOptions Opts;

  // Storage.
  std::unique_ptr<uint8_t, FreeDeleter> Dram;
  uint64_t DramSize;
  std::vector<std::vector<int16_t>> Maps;    ///< [cu][elem]
  std::vector<std::vector<int16_t>> Weights; ///< [cu*V + v][word*L + lane]
  std::vector<std::vector<int64_t>> Acc;     ///< [cu*V + v][entry*L + lane]
  std::vector<std::vector<int64_t>> Bias;    ///< [cu*V + v][lane]
  std::vector<std::vector<int16_t>> Lut;     ///< [cu][entry]: vlut's activation table

  // Control core.
  std::array<uint32_t, isa::NumRegs> Regs{};
  uint32_t Pc = 0;
  bool Halted = false;
  uint64_t HaltCycle = 0;
  static constexpr uint32_t NoLayer = UINT32_MAX; ///< Before the first mark.
  uint32_t CurLayer = NoLayer;                    ///< Last layer marked by the control core.
  uint32_t ComputeLayer = NoLayer;                ///< Last layer mark the compute unit started.
  LayerStats Prologue;                            ///< Work dispatched before the first mark.
  LayerStats &layerStats(uint32_t Layer) {
    return Layer == NoLayer ? Prologue : Stats->Layers[Layer];
  }
  uint64_t CtrlStalledSince = Never;
  uint64_t FetchStalledSince = Never; ///< The core waits for its instructions.
  uint64_t Dispatches = 0;            ///< Unit operations the core has queued.

  // Instruction fetch (imem_kib > 0).
  std::vector<FetchLine> Lines;
  uint64_t FetchNext = 0;    ///< Next block the engine considers.
  bool FetchWaiting = false; ///< A fetch request waits for the channel.
  uint64_t CodeBlocks = 0;   ///< Blocks the program's code spans.

  // Units, channel, semaphores, hazards.
  std::array<UnitState, 3> Units; ///< Load, Compute, Store.
  std::vector<DramRequest> Pending;
  uint64_t ChanFree = 0;
  std::array<uint32_t, isa::NumSemaphores> Sems{};
  std::vector<std::pair<uint64_t, unsigned>>
      PendingSignals;    ///< (fire cycle, semaphore | unit << 8)
  uint64_t AccReady = 0; ///< Cycle the last trace's accumulator writes land.
  /// The last vwb, where it runs beside later operations (writeback_overlap).
  struct Writeback {
    uint64_t End = 0;                ///< The cycle it is done.
    uint64_t BankLo = 0, BankHi = 0; ///< Maps banks it writes, [BankLo, BankHi].
    uint64_t Acc = 0, Entries = 0;   ///< Accumulator entries it reads, [Acc, Acc + Entries).
  } Wb;
  /// The first cycle the compute operation E may start, as far as the last
  /// vwb is concerned (its maps banks, its entries, the writeback port); 0
  /// once it is done by cycle T.
  uint64_t writebackClear(const Entry &E, uint64_t T) const;
  /// The first cycle the compute operation E may start, seen in cycle T:
  /// writebackClear, and for vwb, vpre and vmul the MAC pipeline drained
  /// (AccReady).
  uint64_t computeClear(const Entry &E, uint64_t T) const;
  std::vector<BankUse> MapsBanks, WeightBanks;
  std::vector<DramRange> LoadsInFlight, StoresInFlight;

  /// A fault raised inside a step; the main loop returns it.
  llvm::Error PendingError = llvm::Error::success();

  // Statistics being gathered.
  SimStats *Stats = nullptr;
  std::vector<std::pair<uint32_t, uint64_t>> Marks; ///< (layer, cycle)
  uint64_t TotalCycles = 0;
};

UnitState &unitFor(std::array<UnitState, 3> &Units, isa::Unit U);

} // namespace snow::sim

#endif
