//===- Timing.h - The cost of every operation, written once ---------*- C++ -*-===//
//
// The machine's scheduling model: how long each operation occupies its unit,
// when its effect is complete, how many cycles a DMA transfer holds the DRAM
// channel and when its data lands. Like an LLVM scheduling model, it has two
// very different consumers that read the same functions:
//
//  * the simulator (sim/lib/Timing.cpp) plays every instruction of a program
//    through them, cycle by cycle, to account (and the RTL implements the
//    same contract: docs/architecture.md, "Timing contract");
//  * the compiler (compiler/lib/Cost.cpp) composes them over a candidate plan
//    to choose tilings, loop orders and trace modes, and `snowc
//    --emit=plan-json` plays the chosen program through the simulator's
//    timing engine, so the plan it reports is exact (docs/timing.md).
//
// Everything here is a function of the instruction's fields, its register
// operands and the hardware configuration: nothing depends on data values.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_TIMING_H
#define SNOW_ISA_TIMING_H

#include "snow/isa/HwConfig.h"
#include "snow/isa/Isa.h"
#include "snow/isa/IsaConstants.h"
#include <cstdint>
#include <optional>

namespace snow::timing {

/// Operations that take one cycle of their unit: semaphore waits and signals,
/// vbias, layer marks, and a DMA operation's own cycle once the channel is
/// granted (the transfer then runs on the channel, not on the unit).
constexpr uint64_t UnitOpCycles = 1;

/// The control core issues at most this many instructions a cycle.
constexpr uint64_t CtrlIssuePerCycle = 1;

/// A pooling trace (vmax, vavg): Rows x Len steps, one a cycle.
inline uint64_t traceCycles(uint64_t Rows, uint64_t Len) { return Rows * Len; }

/// Steps of one vmac / vmacp trace row of Len map elements: whole granules of
/// trace_row_granule elements (the rest of the last granule is paid, idle).
inline uint64_t traceRowSteps(const isa::HwConfig &Hw, uint64_t Len) {
  const uint64_t G = Hw.TraceRowGranule;
  return (Len + G - 1) / G * G;
}

/// Elements from the first to one past the last that Rows rows of Len
/// elements, BStride apart, touch (0 if there are none).
inline uint64_t traceSpan(uint64_t Rows, uint64_t BStride, uint64_t Len) {
  return Rows == 0 || Len == 0 ? 0 : (Rows - 1) * BStride + Len;
}

/// Whether each pixel group of a vmacp reads a maps bank of its own, and
/// so has that bank's read ports to itself (maps_ports_per_bank): group g
/// reads [A2 + g * CStride, + Span), so with CStride a nonzero multiple of the
/// bank and group 0's reads inside one bank, every group's are inside one
/// bank, a different one each.
inline bool groupsOwnBanks(const isa::HwConfig &Hw, uint64_t A2, uint64_t Span, uint64_t CStride) {
  const uint64_t B = Hw.mapsBankElems();
  return Hw.MapsPortsPerBank && CStride != 0 && CStride % B == 0 && Span != 0 &&
         A2 / B == (A2 + Span - 1) / B;
}

/// Cycles one step of a MAC trace takes: its pixel groups' map reads (2^PixLog
/// addresses; vmac and vdw read one) over the maps buffer's read ports, or
/// one if each group reads a bank of its own.
inline uint64_t traceStepCycles(const isa::HwConfig &Hw, unsigned PixLog, bool OwnBanks = false) {
  if (OwnBanks)
    return 1;
  return ((uint64_t(1) << PixLog) + Hw.MapsReadPorts - 1) / Hw.MapsReadPorts;
}

/// A vmac (PixLog 0) or vmacp trace of Rows x Len taps: the start-up, then
/// every row in whole granules, each step as many cycles as its reads need.
inline uint64_t macTraceCycles(const isa::HwConfig &Hw, uint64_t Rows, uint64_t Len,
                               unsigned PixLog = 0, bool OwnBanks = false) {
  return Hw.TraceStartupCycles +
         Rows * traceRowSteps(Hw, Len) * traceStepCycles(Hw, PixLog, OwnBanks);
}

/// A vdw trace of Rows x Len taps: the start-up, then one tap a cycle (each
/// tap is one wide read at one address, so neither granule nor ports apply).
inline uint64_t dwTraceCycles(const isa::HwConfig &Hw, uint64_t Rows, uint64_t Len) {
  return Hw.TraceStartupCycles + Rows * Len;
}

/// Start-up cycles a looked-ahead trace skips: the one in which the
/// sequencer loads its counters and first address, done during the last
/// cycle of the trace before (whose last read was issued the cycle before
/// that, so the maps and weights ports are free).
constexpr uint64_t LookaheadCycles = 1;

/// The start-up cycles a looked-ahead trace skips on this machine (0
/// without trace_lookahead, or with no start-up to skip): what the
/// simulator takes off such a trace, and the planner's estimates off every
/// trace of a step but its first.
inline uint64_t lookaheadSaving(const isa::HwConfig &Hw) {
  return Hw.TraceLookahead && Hw.TraceStartupCycles ? LookaheadCycles : 0;
}

/// Whether a MAC trace starting in cycle T was looked ahead
/// (trace_lookahead): the compute unit's previous operation was a MAC trace
/// ending in T (AfterTrace), and this one was pushed into the queue by cycle
/// T - 2, so it was visible there during that trace's last cycle, T - 1.
inline bool traceLooksAhead(const isa::HwConfig &Hw, bool AfterTrace, uint64_t PushCycle,
                            uint64_t T) {
  return lookaheadSaving(Hw) && AfterTrace && PushCycle + 2 <= T;
}

/// Cycles from a trace's start until its last accumulator write has landed:
/// the trace, then the MAC pipeline's depth. vwb / vpre wait for it.
inline uint64_t accumulatorReady(const isa::HwConfig &Hw, uint64_t TraceCycles) {
  return TraceCycles + Hw.MacPipelineDepth;
}

/// Accumulator entries a vwb / vpre / vmul moves: rows of len entries (a
/// vwb's rows; len 0 as 1), one a row for vpre and vmul.
inline uint64_t accMoveCols(const isa::Inst &I) {
  return I.Op == isa::Opcode::VWB && I.len > 1 ? uint64_t(I.len) : 1;
}
inline uint64_t accMoveEntries(const isa::Inst &I) { return uint64_t(I.rows) * accMoveCols(I); }

/// Maps elements from the first to one past the last that a vwb / vpre /
/// vmul moves (rows bstride apart, a vwb's entries of a row cstride apart).
inline uint64_t accMoveSpan(const isa::Inst &I, uint64_t EntryElems) {
  if (I.rows == 0)
    return 0;
  return uint64_t(I.rows - 1) * I.bstride + (accMoveCols(I) - 1) * I.cstride + EntryElems;
}

/// vwb / vpre over Entries accumulator entries: every vMAC of a CU moves its
/// lanes through the maps port, writeback_words lane words a cycle.
inline uint64_t writebackCycles(const isa::HwConfig &Hw, uint64_t Entries) {
  return Entries * Hw.writebackCyclesPerEntry();
}

/// A vwb with sum (cu_sum_writeback): the adder tree across the CUs is one
/// more register stage between the accumulators' read port and the
/// writeback's rounding, so its last word lands a cycle later than a plain
/// vwb's (docs/architecture.md, "Writeback across CUs").
constexpr uint64_t CuSumCycles = 1;

/// Weight words an activation table occupies (LutEntries int16 values,
/// LanesPerVmac to a word): what vlut reads, one word a cycle.
inline uint64_t lutWords(const isa::HwConfig &Hw) {
  return (uint64_t(isa::LutEntries) + Hw.LanesPerVmac - 1) / Hw.LanesPerVmac;
}

/// A fill of Rows x Len maps elements: one lane group (LanesPerVmac elements)
/// of a row a cycle.
inline uint64_t fillCycles(const isa::HwConfig &Hw, uint64_t Rows, uint64_t Len) {
  return Rows * ((Len + Hw.LanesPerVmac - 1) / Hw.LanesPerVmac);
}

/// Bytes of one row of a DMA operation (ld.map / st.map move Len elements,
/// ld.wgt Len weight words of LanesPerVmac elements).
uint64_t dmaRowBytes(const isa::Inst &I, const isa::HwConfig &Hw);

/// The bytes the DRAM channel moves for Rows rows of RowBytes, the first at
/// Addr and each next one Stride bytes on: every row is rounded out to whole
/// aligned bursts, or with dma_merge_rows, rows that follow each other
/// (Stride = RowBytes) all together.
uint64_t dmaBurstBytes(const isa::HwConfig &Hw, uint64_t Addr, int64_t Stride, uint64_t Rows,
                       uint64_t RowBytes);

/// The bytes dmaBurstBytes charges a DMA row of RowBytes that starts Offset
/// bytes into a burst, or without an Offset the mean over the (2-byte
/// aligned) offsets a row may start at: for planners, which do not know
/// addresses yet.
uint64_t rowSpanBytes(const isa::HwConfig &Hw, uint64_t RowBytes, std::optional<uint64_t> Offset);

/// The mean bytes dmaBurstBytes charges per row for rows of RowBytes that
/// start at Offset, Offset + Stride, Offset + 2 Stride ... bytes (a run of
/// pixels' channel slices: Stride is the tensor's bytes per pixel), over the
/// cycle of offsets those starts take within a burst. For planners that know
/// the tensor's layout but not its address (tensors are burst-aligned).
uint64_t stridedRowBytes(const isa::HwConfig &Hw, uint64_t RowBytes, uint64_t Offset,
                         uint64_t Stride);

/// The channel of one configuration: cycles it is busy moving BurstBytes
/// (already burst-rounded). An object for callers that cost many transfers
/// (the planner), so the DRAM rate is worked out once.
class DmaChannel {
public:
  explicit DmaChannel(const isa::HwConfig &Hw) : BwQ8(Hw.dramBwQ8()), Beat(Hw.dmaBeatBytes()) {}
  uint64_t cycles(uint64_t BurstBytes) const {
    return isa::HwConfig::dramCyclesAt(BwQ8, BurstBytes);
  }
  /// HwConfig::dmaBeatBytes.
  uint32_t beatBytes() const { return Beat; }

private:
  uint32_t BwQ8, Beat;
};

/// Cycles a DMA operation of Rows rows of RowBytes, the first at DRAM byte
/// Addr and each next one Stride bytes on, holds the channel: its
/// dmaBurstBytes at the channel's rate, but at least the DMA datapath's time,
/// a cycle per beat (HwConfig::dmaBeatBytes; a beat never spans two rows),
/// which only merged rows (dma_merge_rows) of fewer bytes than the channel
/// moves a cycle can reach.
uint64_t dmaCycles(const isa::HwConfig &Hw, const DmaChannel &Channel, uint64_t Addr,
                   int64_t Stride, uint64_t Rows, uint64_t RowBytes);

/// The DRAM bytes a DMA operation moves: Rows rows of RowBytes, the first at
/// Addr and each next one Stride bytes on (Stride may be negative).
struct DramRows {
  uint64_t Addr = 0;
  int64_t Stride = 0;
  uint64_t Rows = 0, RowBytes = 0;
  /// The envelope [lo, hi): from the lowest row's first byte to one past the
  /// highest row's last.
  uint64_t lo() const {
    return Stride < 0 ? uint64_t(int64_t(Addr) + int64_t(Rows - 1) * Stride) : Addr;
  }
  uint64_t hi() const {
    return (Stride < 0 ? Addr : uint64_t(int64_t(Addr) + int64_t(Rows - 1) * Stride)) + RowBytes;
  }
};

/// Whether two DMA operations touch a common DRAM byte (the ordering rule,
/// docs/architecture.md 3.6). Exact where their rows are the same distance
/// apart (a tensor's pixels: a load of some channels of a row of pixels
/// while a store writes others is no hazard) or either has one row; where
/// one distance is a multiple of the other, as if the longer one's rows
/// were at the shorter distance (every pixel between gathered ones); the
/// envelopes otherwise. The RTL's scheduler (snow_sched.sv: dram_overlap)
/// decides the same way.
bool dramOverlap(const DramRows &A, const DramRows &B);

/// Cycles the channel is busy moving BurstBytes (already burst-rounded).
inline uint64_t dmaChannelCycles(const isa::HwConfig &Hw, uint64_t BurstBytes) {
  return DmaChannel(Hw).cycles(BurstBytes);
}

/// Cycles from the channel grant until the transfer is complete (a load's
/// data has landed in its buffer): the channel time, then DRAM latency.
inline uint64_t dmaCompletion(const isa::HwConfig &Hw, uint64_t ChannelCycles) {
  return ChannelCycles + Hw.DramLatencyCycles;
}

/// Instruction fetch (imem_kib > 0; docs/architecture.md §3.1, "Instruction
/// fetch"): the fetch block holding instruction Pc, the line of the
/// direct-mapped instruction memory it occupies, how many blocks past the
/// current one the prefetch runs (half the memory: the other half keeps what
/// was just run, for loops), and the channel cycles of one fetch.
inline uint64_t fetchBlock(const isa::HwConfig &Hw, uint64_t Pc) { return Pc / Hw.FetchBlockInsts; }
inline uint64_t fetchLine(const isa::HwConfig &Hw, uint64_t Block) {
  return Block & (Hw.imemLines() - 1);
}
inline uint64_t fetchAheadBlocks(const isa::HwConfig &Hw) { return Hw.imemLines() / 2; }
inline uint64_t fetchChannelCycles(const isa::HwConfig &Hw) {
  return Hw.dramCycles(Hw.fetchBlockBytes());
}

/// Cycles a non-DMA unit operation occupies its unit (the DMA operations'
/// cost is the channel's: dmaBurstBytes, dmaChannelCycles, dmaCompletion).
/// A2 is the value of rs2 (a vmacp's maps address decides its banks).
uint64_t unitCycles(const isa::Inst &I, const isa::HwConfig &Hw, uint64_t A2);

} // namespace snow::timing

#endif
