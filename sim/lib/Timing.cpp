//===- Timing.cpp - The cycle-level behaviour of the machine --------------===//
//
// Implements the timing contract of docs/architecture.md ("Timing contract"):
// the control core issues one instruction per cycle into bounded in-order unit
// queues; each unit starts at most one operation per cycle; DMA operations
// compete for one DRAM channel (oldest request first, load before store on a
// tie) whose transfers take burst-rounded bytes / bandwidth cycles plus a
// pipelined latency; semaphore increments become visible the cycle after they
// fire; bank hazards and DRAM ordering violations are faults.
//
// The loop visits only cycles in which something can happen: if no component
// acted in cycle T, the next cycle visited is the earliest time any of them can
// act again. Cycle counts are therefore exact, not estimated.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Timing.h"
#include "Machine.h"
#include <algorithm>
#include <cassert>
#include <fmt/format.h>

using namespace snow;
using namespace snow::sim;
using isa::Inst;
using isa::Opcode;
using isa::Unit;

UnitState &snow::sim::unitFor(std::array<UnitState, 3> &Units, Unit U) {
  return Units[unsigned(U) - 1];
}

static const char *unitWord(Unit U) { return isa::unitName(U); }

llvm::Error Machine::checkBanks(Unit U, bool IsWeights, uint64_t Lo, uint64_t Hi, bool Write,
                                uint64_t T, uint64_t Until, const Entry &E, uint64_t From) {
  // The access begins in cycle From (T unless given: a looked-ahead trace's
  // first read is a cycle early); the fault is reported at T.
  const uint64_t At = From == Never ? T : From;
  auto &Banks = IsWeights ? WeightBanks : MapsBanks;
  uint64_t Size = IsWeights ? Hw.weightsBankWords() : Hw.mapsBankElems();
  const char *Buf = IsWeights ? "weights" : "maps";
  for (uint64_t B = Lo / Size; B <= (Hi - 1) / Size; ++B) {
    BankUse &Use = Banks[B];
    for (unsigned V = 1; V < isa::NumUnits; ++V) {
      if (V == unsigned(U))
        continue;
      if (Use.WriteUntil[V] > At)
        return fault(E, T,
                     fmt::format("{} bank {} of the {} buffer while the {} unit is still writing "
                                 "it{} (missing synchronization)",
                                 Write ? "writes" : "reads", B, Buf, unitWord(Unit(V)),
                                 Use.WriteUntil[V] == Never
                                     ? ""
                                     : fmt::format(" until cycle {}", Use.WriteUntil[V])));
      if (Write && Use.ReadUntil[V] > At)
        return fault(E, T,
                     fmt::format("writes bank {} of the {} buffer while the {} unit is still "
                                 "reading it{} (missing synchronization)",
                                 B, Buf, unitWord(Unit(V)),
                                 Use.ReadUntil[V] == Never
                                     ? ""
                                     : fmt::format(" until cycle {}", Use.ReadUntil[V])));
    }
    uint64_t &Mine = Write ? Use.WriteUntil[unsigned(U)] : Use.ReadUntil[unsigned(U)];
    Mine = Until == Never ? Never : std::max(Mine == Never ? 0 : Mine, Until);
  }
  return llvm::Error::success();
}

/// A DMA operation must not touch a byte a transfer in flight in the other
/// direction touches.
static bool overlaps(const std::vector<DramRange> &In, const timing::DramRows &Rows, uint64_t T,
                     const DramRange *&Hit) {
  for (const DramRange &R : In)
    if (R.Until > T && timing::dramOverlap(R.Rows, Rows)) {
      Hit = &R;
      return true;
    }
  return false;
}

static void prune(std::vector<DramRange> &V, uint64_t T) {
  std::erase_if(V, [T](const DramRange &R) { return R.Until <= T; });
}

/// Whether trace E reads a maps bank the last vwb writes.
static bool readsWritebackBanks(const Machine::Writeback &Wb, uint64_t Lo, uint64_t Hi,
                                uint64_t BankSize) {
  return Hi > Lo && Lo / BankSize <= Wb.BankHi && (Hi - 1) / BankSize >= Wb.BankLo;
}

uint64_t Machine::writebackClear(const Entry &E, uint64_t T) const {
  if (!Hw.WritebackOverlap || Wb.End <= T)
    return 0; // (every wait below ends by Wb.End)
  const Inst &I = Code[E.Pc];
  switch (I.Op) {
  case Opcode::VWB: // one writeback at a time
  case Opcode::VPRE:
  case Opcode::VMUL:
  case Opcode::VMAX: // writes through the writeback's port
  case Opcode::VAVG:
  case Opcode::VLUT: // rewrites the table the vwb reads
    return Wb.End;
  case Opcode::VMAC:
  case Opcode::VMACP:
  case Opcode::VDW: {
    const uint64_t Hi = E.A2 + (I.Op == Opcode::VDW ? vdwExtent(I) : vmacExtent(I));
    if (readsWritebackBanks(Wb, E.A2, Hi, Hw.mapsBankElems()))
      return Wb.End; // one compute-side port a bank
    // The vwb walks its entries once per group of writeback_words vMACs,
    // the last group in its last Entries cycles; a trace may accumulate
    // into an entry the cycle after its last read.
    if (E.A1 >= Wb.Acc && E.A1 < Wb.Acc + Wb.Entries)
      return Wb.End - Wb.Entries + (E.A1 - Wb.Acc) + 1;
    return 0;
  }
  default:
    return 0;
  }
}

/// The compute operations computeClear may hold back.
static bool waitsForAccumulators(Opcode Op) {
  switch (Op) {
  case Opcode::VMAC:
  case Opcode::VMACP:
  case Opcode::VDW:
  case Opcode::VWB:
  case Opcode::VPRE:
  case Opcode::VMUL:
  case Opcode::VMAX:
  case Opcode::VAVG:
  case Opcode::VLUT:
    return true;
  default:
    return false;
  }
}

uint64_t Machine::computeClear(const Entry &E, uint64_t T) const {
  const Opcode Op = Code[E.Pc].Op;
  const bool Drains = Op == Opcode::VWB || Op == Opcode::VPRE || Op == Opcode::VMUL;
  return std::max(writebackClear(E, T), Drains ? AccReady : 0);
}

llvm::Error Machine::startOp(UnitState &U, const Entry &E, uint64_t T, bool &Started) {
  const Inst &I = Code[E.Pc];
  const unsigned L = Hw.LanesPerVmac;
  // The compute unit's cycles are also attributed to the layer whose span
  // they fall in (the last mark it started).
  const bool IsCompute = U.Kind == Unit::Compute;
  auto Finish = [&](uint64_t Dur, uint64_t Completion) {
    U.ReadyAt = T + Dur;
    U.TraceEnd = Never; // (a MAC trace's case sets its end after this)
    U.LastCompletion = std::max(U.LastCompletion, Completion);
    U.Cycles.Busy += Dur;
    if (IsCompute)
      layerStats(ComputeLayer).Compute.Busy += Dur;
    if (Opts.Trace)
      Opts.Trace->unitOp(U.Kind, I.Op, E.Pc, E.Layer, T, Dur);
    Started = true;
  };
  auto Unblock = [&](uint64_t UnitCycles::*Counter) {
    if (U.BlockedSince != Never) {
      U.Cycles.*Counter += T - U.BlockedSince;
      if (IsCompute)
        layerStats(ComputeLayer).Compute.*Counter += T - U.BlockedSince;
    }
    U.BlockedSince = Never;
  };
  auto Block = [&]() {
    if (U.BlockedSince == Never)
      U.BlockedSince = T;
  };

  // The compute unit's head waits for the MAC pipeline to drain (vwb, vpre,
  // vmul) and for a vwb beside it (writebackClear), counted as wait_acc.
  if (IsCompute && waitsForAccumulators(I.Op)) {
    if (T < computeClear(E, T)) {
      Block();
      return llvm::Error::success();
    }
    Unblock(&UnitCycles::WaitAcc);
  }

  switch (I.Op) {
  case Opcode::SYNC_LD_WAIT:
  case Opcode::SYNC_EX_WAIT:
  case Opcode::SYNC_ST_WAIT:
    if (Sems[I.idx] == 0) {
      Block();
      return llvm::Error::success();
    }
    --Sems[I.idx];
    Unblock(&UnitCycles::WaitSem);
    Finish(timing::UnitOpCycles, T + timing::UnitOpCycles);
    return llvm::Error::success();
  case Opcode::SYNC_LD_SIGNAL:
  case Opcode::SYNC_EX_SIGNAL:
  case Opcode::SYNC_ST_SIGNAL: {
    // Each unit holds at most MaxPendingSignals started-but-unfired signals
    // (the RTL's signal FIFO); one more is a fault, not a stall.
    unsigned Mine =
        unsigned(std::count_if(PendingSignals.begin(), PendingSignals.end(),
                               [&](auto P) { return (P.second >> 8) == unsigned(U.Kind); }));
    if (Mine >= MaxPendingSignals)
      return fault(E, T,
                   fmt::format("the {} unit already has {} signals waiting for its operations to "
                               "complete",
                               unitWord(U.Kind), Mine));
    PendingSignals.push_back(
        {std::max(T, U.LastCompletion), unsigned(I.idx) | unsigned(U.Kind) << 8});
    Finish(timing::UnitOpCycles, T + timing::UnitOpCycles);
    return llvm::Error::success();
  }

  case Opcode::LD_MAP:
  case Opcode::LD_WGT:
  case Opcode::ST_MAP: {
    bool IsWeights = I.Op == Opcode::LD_WGT, IsStore = I.Op == Opcode::ST_MAP;
    uint64_t RowBytes = timing::dmaRowBytes(I, Hw);
    if (auto Err = IsWeights ? loadWeights(I, E, T)
                   : IsStore ? storeMaps(I, E, T)
                             : loadMaps(I, E, T))
      return Err;
    uint64_t BufLo = E.A2, BufHi = E.A2 + uint64_t(I.rows - 1) * I.bstride + I.len;
    if (auto Err = checkBanks(U.Kind, IsWeights, BufLo, BufHi, !IsStore, T, Never, E))
      return Err;
    const timing::DramRows Rows{E.A1, I.dstride, uint64_t(I.rows), RowBytes};
    const uint64_t DLo = Rows.lo(), DHi = Rows.hi();
    const DramRange *Hit = nullptr;
    prune(LoadsInFlight, T);
    prune(StoresInFlight, T);
    if (overlaps(IsStore ? LoadsInFlight : StoresInFlight, Rows, T, Hit))
      return fault(E, T,
                   fmt::format("DRAM [{:#x}, {:#x}) is still being {} by pc {} (missing "
                               "synchronization between load and store units)",
                               DLo, DHi, IsStore ? "read" : "written", Hit->Pc));
    DramRange R{Rows, Never, E.Pc, {}};
    if (I.Op == Opcode::LD_MAP)
      R.Buf = {BufLo, BufHi, uint32_t(I.mask)};
    (IsStore ? StoresInFlight : LoadsInFlight).push_back(R);
    uint64_t Bytes = uint64_t(I.rows) * RowBytes;
    LayerStats &LS = layerStats(E.Layer);
    (IsStore ? LS.DramWriteBytes : LS.DramReadBytes) += Bytes;
    (IsStore ? Stats->DramWriteBytes : Stats->DramReadBytes) += Bytes;
    uint64_t BankSize = IsWeights ? Hw.weightsBankWords() : Hw.mapsBankElems();
    Pending.push_back({U.Kind, T, timing::dmaCycles(Hw, Channel, E.A1, I.dstride, I.rows, RowBytes),
                       unsigned(BufLo / BankSize), unsigned((BufHi - 1) / BankSize), IsWeights, DLo,
                       DHi, E.Pc, E.Layer});
    U.WaitingGrant = true;
    Started = true;
    return llvm::Error::success();
  }
  case Opcode::FILL: {
    if (auto Err = fillMaps(I, E, T))
      return Err;
    uint64_t Dur = timing::unitCycles(I, Hw, E.A2);
    uint64_t Hi = E.A2 + uint64_t(I.rows - 1) * I.bstride + I.len;
    if (auto Err = checkBanks(U.Kind, false, E.A2, Hi, true, T, T + Dur, E))
      return Err;
    // The load unit does not order a fill behind its own DMA landing: a fill
    // over maps an ld.map is still writing (same CUs) is a fault.
    prune(LoadsInFlight, T);
    for (const DramRange &R : LoadsInFlight)
      if (R.Buf.Mask & uint32_t(I.mask) && R.Buf.Lo < Hi && E.A2 < R.Buf.Hi)
        return fault(E, T,
                     fmt::format("fills maps [{}, {}) while the ld.map at pc {} is still writing "
                                 "[{}, {}) (the load unit does not order them)",
                                 E.A2, Hi, R.Pc, R.Buf.Lo, R.Buf.Hi));
    Finish(Dur, T + Dur);
    return llvm::Error::success();
  }

  case Opcode::VMAC:
  case Opcode::VMACP:
  case Opcode::VDW: {
    // The MAC array ops differ only in the maps they read.
    const bool Dw = I.Op == Opcode::VDW;
    uint64_t Hi = E.A2 + (Dw ? vdwExtent(I) : vmacExtent(I));
    if (auto Err = Dw ? vdw(I, E, T) : vmac(I, E, T))
      return Err;
    uint64_t Dur = timing::unitCycles(I, Hw, E.A2);
    // Lookahead (trace_lookahead, §3.2): a trace that starts as the trace
    // before it ends, and was in the queue during that trace's last cycle,
    // was loaded into the sequencer then: one start-up cycle fewer, its
    // accesses checked from that cycle on; not while a vwb still writes a
    // bank it reads.
    const bool Ahead = timing::traceLooksAhead(Hw, U.TraceEnd == T, E.PushCycle, T) &&
                       !(Hw.WritebackOverlap && T - timing::LookaheadCycles < Wb.End &&
                         readsWritebackBanks(Wb, E.A2, Hi, Hw.mapsBankElems()));
    if (Ahead)
      Dur -= timing::lookaheadSaving(Hw);
    const uint64_t From = Ahead ? T - timing::LookaheadCycles : Never;
    if (auto Err = checkBanks(U.Kind, false, E.A2, Hi, false, T, T + Dur, E, From))
      return Err;
    // Every tap reads one weight word, whatever the trace's idle steps.
    const uint64_t Taps = uint64_t(I.rows) * I.len;
    if (auto Err = checkBanks(U.Kind, true, E.A3, E.A3 + Taps, false, T, T + Dur, E, From))
      return Err;
    AccReady = T + timing::accumulatorReady(Hw, Dur);
    Finish(Dur, AccReady);
    U.TraceEnd = T + Dur;
    Stats->MacCycles += Dur;
    layerStats(E.Layer).MacCycles += Dur;
    return llvm::Error::success();
  }
  case Opcode::VBIAS:
    if (auto Err = vbias(I, E, T))
      return Err;
    if (auto Err = checkBanks(U.Kind, true, E.A3, E.A3 + 1, false, T, T + 1, E))
      return Err;
    Finish(timing::UnitOpCycles, T + timing::UnitOpCycles);
    return llvm::Error::success();
  case Opcode::VLUT: {
    if (auto Err = vlut(I, E, T))
      return Err;
    const uint64_t Dur = timing::unitCycles(I, Hw, E.A2);
    if (auto Err =
            checkBanks(U.Kind, true, E.A3, E.A3 + timing::lutWords(Hw), false, T, T + Dur, E))
      return Err;
    Finish(Dur, T + Dur);
    return llvm::Error::success();
  }
  case Opcode::VWB:
  case Opcode::VPRE:
  case Opcode::VMUL: {
    // All three move the accumulators through the maps port (writeback_words
    // lane words per cycle), so the MAC pipeline must have drained first
    // (computeClear).
    bool Writeback = I.Op == Opcode::VWB;
    if (auto Err = Writeback ? vwb(I, E, T) : accFromMaps(I, E, T))
      return Err;
    uint64_t Dur = timing::unitCycles(I, Hw, E.A2);
    uint64_t Hi = E.A2 + timing::accMoveSpan(I, uint64_t(Hw.VmacsPerCu) * L);
    if (auto Err = checkBanks(U.Kind, false, E.A2, Hi, Writeback, T, T + Dur, E))
      return Err;
    if (Writeback && Hw.WritebackOverlap) {
      // The writeback's walker takes it; the unit goes on next cycle.
      const uint64_t Size = Hw.mapsBankElems();
      Wb = {T + Dur, E.A2 / Size, (Hi - 1) / Size, E.A1, timing::accMoveEntries(I)};
      Finish(timing::UnitOpCycles, T + Dur);
      if (Opts.Trace)
        Opts.Trace->writeback(E.Pc, E.Layer, T, Dur);
      return llvm::Error::success();
    }
    Finish(Dur, T + Dur);
    return llvm::Error::success();
  }
  case Opcode::VMAX:
  case Opcode::VAVG: {
    if (auto Err = vpool(I, E, T, I.Op == Opcode::VMAX))
      return Err;
    uint64_t Dur = timing::unitCycles(I, Hw, E.A2);
    const unsigned W = poolLanes(Hw, I);
    uint64_t Hi = E.A2 + windowExtent(I, W); // vpool faulted an empty window
    if (auto Err = checkBanks(U.Kind, false, E.A2, Hi, false, T, T + Dur, E))
      return Err;
    if (auto Err = checkBanks(U.Kind, false, E.A1, E.A1 + W, true, T, T + Dur, E))
      return Err;
    Finish(Dur, T + Dur);
    return llvm::Error::success();
  }
  case Opcode::MARK:
    Marks.push_back({uint32_t(I.imm), T});
    ComputeLayer = uint32_t(I.imm);
    Finish(timing::UnitOpCycles, T + timing::UnitOpCycles);
    return llvm::Error::success();
  default:
    return fault(E, T, "not a unit operation");
  }
}

bool Machine::fetched(uint64_t T) const {
  if (!Hw.fetchesCode())
    return true;
  const uint64_t B = timing::fetchBlock(Hw, Pc);
  const FetchLine &L = lineOf(B);
  return L.Block == B && L.ReadyAt <= T;
}

// The fetch engine's rule, once per cycle before the control core (§3.1,
// "Instruction fetch"): with C the block of pc, the next block to consider
// is C if C's line holds another block (a miss: redirect), else at least C;
// within C + fetchAheadBlocks and the code, a block already in its line is
// skipped, and any other is fetched if no fetch is waiting for the channel.
Machine::FetchView Machine::fetchView() const {
  if (!Hw.fetchesCode() || Halted || Pc >= Code.size())
    return {FetchNext, false};
  const uint64_t C = timing::fetchBlock(Hw, Pc);
  const uint64_t N = lineOf(C).Block != C ? C : std::max(FetchNext, C);
  return {N, N < C + timing::fetchAheadBlocks(Hw) && N < CodeBlocks};
}

bool Machine::fetchCanAct() const {
  const FetchView V = fetchView();
  return V.InReach && (lineOf(V.Next).Block == V.Next || !FetchWaiting);
}

Machine::PcSpan Machine::residentBlock(uint64_t T) const {
  if (!Hw.fetchesCode())
    return {0, Never}; // every pc: nothing to fetch, everything resident
  if (!fetched(T))
    return {};
  return {timing::fetchBlock(Hw, Pc) * Hw.FetchBlockInsts, Hw.FetchBlockInsts};
}

bool Machine::stepFetch(uint64_t T) {
  const FetchView V = fetchView();
  FetchNext = V.Next; // a redirect holds even when nothing is in reach
  if (!V.InReach)
    return false;
  FetchLine &L = lineOf(FetchNext);
  if (L.Block == FetchNext) {
    ++FetchNext;
    return true;
  }
  if (FetchWaiting)
    return false;
  // The line is taken now; its instructions count from the fetch's landing.
  L = {FetchNext, Never};
  Pending.push_back({Unit::Ctrl, T, timing::fetchChannelCycles(Hw), 0, 0, false, FetchNext,
                     FetchNext + 1, uint32_t(FetchNext * Hw.FetchBlockInsts), CurLayer});
  FetchWaiting = true;
  ++FetchNext;
  return true;
}

bool Machine::grantChannel(uint64_t T) {
  if (Pending.empty() || ChanFree > T)
    return false;
  // Oldest first; among requests of one cycle, the order they were posted:
  // fetch, load, store.
  auto It = std::min_element(
      Pending.begin(), Pending.end(),
      [](const DramRequest &A, const DramRequest &B) { return A.PostCycle < B.PostCycle; });
  DramRequest R = *It;
  Pending.erase(It);
  const uint64_t Done = T + timing::dmaCompletion(Hw, R.Cycles);
  ChanFree = T + R.Cycles;
  Stats->DramBusyCycles += R.Cycles;
  if (R.From == Unit::Ctrl) {
    FetchLine &L = lineOf(R.DramLo);
    assert(L.Block == R.DramLo && "only one fetch waits, so its line is still its own");
    L.ReadyAt = Done;
    FetchWaiting = false;
    Stats->DramCodeBytes += Hw.fetchBlockBytes();
    if (Opts.Trace)
      Opts.Trace->fetchGrant(R.Pc, R.Layer, T, R.Cycles);
    return true;
  }
  UnitState &U = unitFor(Units, R.From);
  U.WaitingGrant = false;
  U.ReadyAt = T + timing::UnitOpCycles;
  U.LastCompletion = std::max(U.LastCompletion, Done);
  U.Cycles.WaitDram += T - R.PostCycle;
  U.Cycles.Busy += timing::UnitOpCycles;
  if (Opts.Trace)
    Opts.Trace->dmaGrant(R.From, Code[R.Pc].Op, R.Pc, R.Layer, R.PostCycle, T, R.Cycles);
  // Now the hazard windows have an end: the load writes its banks until the
  // data has landed; the store reads its bank while the channel moves it.
  bool IsStore = R.From == Unit::Store;
  auto &Banks = R.Weights ? WeightBanks : MapsBanks;
  for (unsigned B = R.Bank0; B <= R.Bank1; ++B) {
    if (IsStore)
      Banks[B].ReadUntil[unsigned(Unit::Store)] = T + R.Cycles;
    else
      Banks[B].WriteUntil[unsigned(Unit::Load)] = Done;
  }
  auto &Ranges = IsStore ? StoresInFlight : LoadsInFlight;
  for (DramRange &D : Ranges)
    if (D.Until == Never)
      D.Until = Done;
  return true;
}

bool Machine::stepUnit(UnitState &U, uint64_t T) {
  // After a fault earlier in this cycle, the first fault is the one reported.
  if (PendingError || U.WaitingGrant || U.ReadyAt > T || U.Queue.empty() ||
      U.Queue.front().PushCycle >= T)
    return false;
  bool Started = false;
  Entry E = U.Queue.front();
  if (auto Err = startOp(U, E, T, Started)) {
    PendingError = std::move(Err);
    return true;
  }
  if (Started) {
    U.Queue.pop_front();
    ++Stats->UnitOps;
  }
  return Started;
}
