//===- Trace.h - A timeline of a simulated run (snowsim --trace) ----*- C++ -*-===//
//
// Records what each unit of the machine did and when, and writes it as a
// Chrome trace-event JSON file that ui.perfetto.dev and chrome://tracing open
// (docs/trace.md): one track per unit (control core, DMA in, DRAM channel,
// DMA out, compute, the writeback beside it) and one of layer spans. The
// simulator calls the hooks where it decides a unit's occupancy; with no
// recorder (the default) each hook is one null-pointer check.
//
// Slices are merged so that ResNet-50's trace stays small enough to open:
// contiguous operations of one kind and one layer always become one slice,
// and coarser rules apply, in order and track by track, until the slices fit
// a budget. Every
// rule keeps each slice's duration equal to the busy cycles of what it
// merges, so the compute track adds up to units.compute.busy exactly.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SIM_TRACE_H
#define SNOW_SIM_TRACE_H

#include "snow/isa/Isa.h"
#include "snow/isa/Program.h"
#include <cstdint>
#include <string>
#include <vector>

namespace snow::sim {

class TraceRecorder {
public:
  /// The default budget of slices in a written trace.
  static constexpr size_t DefaultMaxSlices = 100'000;

  /// Records a run of P. MaxSlices bounds the slices written (layer spans
  /// and metadata come on top; one slice per track and layer is the floor).
  explicit TraceRecorder(const isa::Program &P, size_t MaxSlices = DefaultMaxSlices);

  // Hooks, called by the simulator.
  /// Unit U ran Op (at Pc, dispatched in Layer) for Dur busy cycles from Start.
  void unitOp(isa::Unit U, isa::Opcode Op, uint32_t Pc, uint32_t Layer, uint64_t Start,
              uint64_t Dur);
  /// A DMA of unit From posted at Post was granted the DRAM channel at Grant
  /// and occupies it for Cycles; the unit is free again at Grant + 1.
  void dmaGrant(isa::Unit From, isa::Opcode Op, uint32_t Pc, uint32_t Layer, uint64_t Post,
                uint64_t Grant, uint64_t Cycles);
  /// The fetch of the code block starting at Pc, posted in Layer, was
  /// granted the DRAM channel at Grant and occupies it for Cycles.
  void fetchGrant(uint32_t Pc, uint32_t Layer, uint64_t Grant, uint64_t Cycles);
  /// A vwb (at Pc, in Layer) that the compute unit handed to the writeback's
  /// walker at Start writes back for Dur cycles beside what follows
  /// (writeback_overlap; its one cycle of the unit is a unitOp).
  void writeback(uint32_t Pc, uint32_t Layer, uint64_t Start, uint64_t Dur);
  /// The control core, in Layer, could not issue from From to To: unit
  /// Full's queue was full, or (Full = Ctrl) its instructions had not arrived.
  void ctrlStall(isa::Unit Full, uint32_t Layer, uint64_t From, uint64_t To);

  /// The trace-event JSON of the run so far; TotalCycles ends the last layer
  /// span (0: the end of the last recorded slice, for a run that faulted).
  std::string toJson(uint64_t TotalCycles = 0) const;

  /// Tracks, in display order.
  enum Track : uint8_t { Ctrl, DmaIn, Dram, DmaOut, Compute, Writeback, NumTracks };
  /// Layer index of work dispatched before the first layer mark.
  static constexpr uint32_t NoLayer = UINT32_MAX;

  /// A slice as recorded (contiguous operations of one kind and one layer).
  struct Slice {
    uint64_t Start = 0, End = 0; ///< Cycles; End - Start = Busy at this level.
    uint64_t Busy = 0;           ///< Occupancy cycles the slice stands for.
    uint32_t Layer = NoLayer;
    uint32_t PcLo = 0, PcHi = 0;
    uint32_t Count = 0; ///< Operations merged.
    uint16_t Kind = 0;  ///< Index into Kinds.
  };

private:
  void add(Track T, uint16_t Kind, uint32_t Pc, uint32_t Layer, uint64_t Start, uint64_t Busy);
  uint16_t kindOf(isa::Opcode Op);

  const isa::Program &Prog;
  size_t MaxSlices;
  std::vector<Slice> Tracks[NumTracks];
  std::vector<std::string> Kinds;                   ///< Slice names: mnemonics, stall reasons.
  std::vector<int> OpKind;                          ///< Opcode -> index in Kinds, -1 = none yet.
  int StallKind[isa::NumUnits] = {-1, -1, -1, -1};  ///< Unit -> its stall kind.
  int FetchKind = -1;                               ///< The fetches' kind.
  std::vector<std::pair<uint32_t, uint64_t>> Marks; ///< (layer, cycle) as started.
};

} // namespace snow::sim

#endif
