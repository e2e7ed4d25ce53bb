//===- Machine.cpp - Control core, main loop and cycle attribution --------===//
//
// The control core (one instruction per cycle: scalar ALU, branches, and
// dispatch of unit operations into bounded queues), the event loop that steps
// every component in a fixed order within a cycle, deadlock detection, and the
// recording of layer marks (turned into per-layer cycles by Stats.cpp).
//
//===----------------------------------------------------------------------===//

#include "Machine.h"
#include "snow/isa/Timing.h"
#include "snow/sim/Stats.h"
#include "snow/support/HugePages.h"
#include <algorithm>
#include <chrono>
#include <fmt/format.h>

using namespace snow;
using namespace snow::sim;
using isa::Inst;
using isa::Opcode;
using isa::Unit;

char SimFault::ID = 0;

void SimFault::log(llvm::raw_ostream &OS) const {
  // A branch before the start wraps the 32-bit pc: pc -100, not 4294967196
  // (both engines print their faults here).
  OS << "program fault at pc ";
  if (Pc > uint32_t(INT32_MAX))
    OS << int64_t(int32_t(Pc));
  else
    OS << Pc;
  OS << " (" << Inst << ") in cycle " << Cycle << ": " << Reason;
}

std::error_code SimFault::convertToErrorCode() const { return llvm::inconvertibleErrorCode(); }

Machine::Machine(const isa::Program &P, DecodedCode Code, SimOptions Opts)
    : Prog(P), Hw(P.Hw), Channel(P.Hw), Code(std::move(Code)), Opts(Opts),
      DramSize(P.Hw.dramBytes()) {
  // calloc maps zero pages lazily: a 1 GiB DRAM costs only what is touched,
  // in 2 MiB pages (the weights image alone is tens of MB).
  Dram.reset(static_cast<uint8_t *>(std::calloc(DramSize, 1)));
  adviseHugePages(Dram.get(), DramSize);
  const unsigned K = Hw.cus() * Hw.VmacsPerCu, L = Hw.LanesPerVmac;
  if (!Opts.TimingOnly) {
    Maps.assign(Hw.cus(), std::vector<int16_t>(Hw.mapsElems()));
    Weights.assign(K, std::vector<int16_t>(size_t(Hw.weightsWords()) * L));
    Acc.assign(K, std::vector<int64_t>(size_t(Hw.AccEntries) * L));
    Bias.assign(K, std::vector<int64_t>(L));
    Lut.assign(Hw.cus(), std::vector<int16_t>(isa::LutEntries, 0));
  }
  MapsBanks.resize(Hw.MapsBanks);
  WeightBanks.resize(Hw.WeightsBanks);
  if (Hw.fetchesCode()) {
    Lines.resize(Hw.imemLines());
    CodeBlocks = (this->Code.size() + Hw.FetchBlockInsts - 1) / Hw.FetchBlockInsts;
  }
  Units[0].Kind = Unit::Load;
  Units[1].Kind = Unit::Compute;
  Units[2].Kind = Unit::Store;
}

llvm::Error Machine::faultAt(uint32_t FaultPc, uint64_t T, const std::string &Reason) const {
  std::string Text = FaultPc < Code.size() ? isa::disassemble(Code[FaultPc]) : "<no instruction>";
  return llvm::make_error<SimFault>(FaultPc, Text, Reason, T);
}

llvm::Error Machine::fault(const Entry &E, uint64_t T, const std::string &Reason) const {
  return faultAt(E.Pc, T, Reason);
}

static uint32_t alu(Opcode Op, uint32_t A, uint32_t B) {
  switch (Op) {
  case Opcode::ADD:
  case Opcode::ADDI:
    return A + B;
  case Opcode::SUB:
    return A - B;
  case Opcode::MUL:
  case Opcode::MULI:
    return A * B;
  case Opcode::AND:
  case Opcode::ANDI:
    return A & B;
  case Opcode::OR:
    return A | B;
  case Opcode::XOR:
    return A ^ B;
  case Opcode::SLL:
  case Opcode::SLLI:
    return A << (B & 31);
  case Opcode::SRL:
  case Opcode::SRLI:
    return A >> (B & 31);
  case Opcode::SRA:
  case Opcode::SRAI:
    return uint32_t(int32_t(A) >> (B & 31));
  case Opcode::SLT:
    return int32_t(A) < int32_t(B) ? 1 : 0;
  default:
    return 0;
  }
}

void Machine::endStall(uint64_t &Since, uint64_t &Counter, Unit Why, uint64_t T) {
  if (Since == Never)
    return;
  Counter += T - Since;
  if (Opts.Trace)
    Opts.Trace->ctrlStall(Why, CurLayer, Since, T);
  Since = Never;
}

bool Machine::stepCtrl(uint64_t T, bool Fetched) {
  if (Halted)
    return false;
  if (Pc >= Code.size()) {
    PendingError = faultAt(Pc, T,
                           fmt::format("pc ran past the end of the program ({} "
                                       "instructions) without halt",
                                       Code.size()));
    return true;
  }
  if (!Fetched && !fetched(T)) {
    if (FetchStalledSince == Never)
      FetchStalledSince = T;
    return false;
  }
  endStall(FetchStalledSince, Stats->CtrlStallFetch, Unit::Ctrl, T);
  const Inst &I = Code[Pc];
  const isa::OpInfo &Info = isa::opInfo(I.Op);
  ++Stats->CtrlInstructions;
  if (Info.U != Unit::Ctrl) {
    UnitState &U = unitFor(Units, Info.U);
    if (U.Queue.size() >= Hw.QueueDepth) {
      --Stats->CtrlInstructions;
      if (CtrlStalledSince == Never)
        CtrlStalledSince = T;
      return false;
    }
    endStall(CtrlStalledSince, Stats->CtrlStallQueueFull, Info.U, T);
    if (I.Op == Opcode::MARK) {
      if (I.imm < 0 || uint64_t(I.imm) >= Prog.Layers.size()) {
        PendingError = faultAt(Pc, T,
                               fmt::format("layer {} is not in the program's layer table "
                                           "({} layers)",
                                           I.imm, Prog.Layers.size()));
        return true;
      }
      CurLayer = uint32_t(I.imm);
    }
    U.Queue.push_back({Pc, Regs[I.rs1], Regs[I.rs2], Regs[I.rs3], CurLayer, T});
    ++Dispatches;
    ++Pc;
    return true;
  }
  uint32_t Next = Pc + 1;
  uint32_t A = Regs[I.rs1], B = Regs[I.rs2], Imm = uint32_t(I.imm);
  auto Branch = [&](bool Taken) {
    if (Taken)
      Next = uint32_t(int64_t(Pc) + I.imm);
  };
  switch (I.Op) {
  case Opcode::HALT:
    Halted = true;
    HaltCycle = T;
    // A fetch still waiting for the channel is dropped; fetches granted
    // earlier finish on the channel, but the program does not wait for them.
    if (FetchWaiting) {
      std::erase_if(Pending, [](const DramRequest &R) { return R.From == Unit::Ctrl; });
      FetchWaiting = false;
    }
    return true;
  case Opcode::NOP:
    break;
  case Opcode::LI:
    Regs[I.rd] = Imm;
    break;
  case Opcode::BEQ:
    Branch(A == B);
    break;
  case Opcode::BNE:
    Branch(A != B);
    break;
  case Opcode::BLT:
    Branch(int32_t(A) < int32_t(B));
    break;
  case Opcode::BGE:
    Branch(int32_t(A) >= int32_t(B));
    break;
  case Opcode::ADDI:
  case Opcode::MULI:
  case Opcode::ANDI:
  case Opcode::SLLI:
  case Opcode::SRLI:
  case Opcode::SRAI:
    Regs[I.rd] = alu(I.Op, A, Imm);
    break;
  default:
    Regs[I.rd] = alu(I.Op, A, B);
    break;
  }
  Regs[0] = 0;
  Pc = Next;
  return true;
}

uint64_t Machine::nextWake(uint64_t T) const {
  uint64_t W = Never;
  for (const UnitState &U : Units) {
    if (U.Queue.empty() || U.WaitingGrant)
      continue;
    if (U.ReadyAt > T)
      W = std::min(W, U.ReadyAt);
    else if (U.Queue.front().PushCycle >= T)
      W = std::min(W, U.Queue.front().PushCycle + 1);
    else if (const uint64_t Clear =
                 U.Kind == isa::Unit::Compute ? computeClear(U.Queue.front(), T) : 0;
             Clear > T)
      W = std::min(W, Clear);
  }
  for (auto [Fire, Sem] : PendingSignals)
    W = std::min(W, std::max(Fire + 1, T + 1));
  if (!Pending.empty())
    W = std::min(W, std::max(ChanFree, T + 1));
  // The control core waits for a block whose fetch has been granted.
  if (Hw.fetchesCode() && !Halted && Pc < Code.size()) {
    const uint64_t B = timing::fetchBlock(Hw, Pc);
    const FetchLine &L = lineOf(B);
    if (L.Block == B && L.ReadyAt != Never && L.ReadyAt > T)
      W = std::min(W, L.ReadyAt);
  }
  return W;
}

bool Machine::drained() const {
  if (!Pending.empty() || !PendingSignals.empty())
    return false;
  for (const UnitState &U : Units)
    if (!U.Queue.empty() || U.WaitingGrant)
      return false;
  return true;
}

llvm::Error Machine::deadlock(uint64_t T) const {
  std::string Why;
  uint32_t FirstPc = Pc;
  bool Found = false;
  for (const UnitState &U : Units) {
    if (U.Queue.empty())
      continue;
    const Entry &E = U.Queue.front();
    const Inst &I = Code[E.Pc];
    if (!Found)
      FirstPc = E.Pc;
    Found = true;
    Why += fmt::format("{}the {} unit waits at pc {} ({}) on semaphore {} (count 0)",
                       Why.empty() ? "" : "; ", isa::unitName(U.Kind), E.Pc, isa::disassemble(I),
                       I.idx);
  }
  if (!Halted)
    Why += fmt::format("{}the control core is stalled at pc {} on a full queue",
                       Why.empty() ? "" : "; ", Pc);
  return faultAt(FirstPc, T, "deadlock: " + Why);
}

void Machine::closeStats(SimStats &S) {
  if (CtrlStalledSince != Never)
    S.CtrlStallQueueFull += TotalCycles - CtrlStalledSince;
  if (FetchStalledSince != Never)
    S.CtrlStallFetch += TotalCycles - FetchStalledSince;
  S.Load = Units[0].Cycles;
  S.Compute = Units[1].Cycles;
  S.Store = Units[2].Cycles;
  finishStats(S, Marks, Prologue, TotalCycles);
}

llvm::Error Machine::finish(SimStats &S) {
  TotalCycles = HaltCycle + 1;
  for (const UnitState &U : Units)
    TotalCycles = std::max({TotalCycles, U.ReadyAt, U.LastCompletion});
  if (TotalCycles > Opts.MaxCycles)
    return faultAt(Pc, TotalCycles,
                   fmt::format("still running after --max-cycles {} cycles", Opts.MaxCycles));
  closeStats(S);
  return llvm::Error::success();
}

llvm::Error Machine::run(SimStats &S) {
  Stats = &S;
  initLayerStats(S, Prog);
  auto Runaway = [&](uint64_t T) {
    return faultAt(Pc, T,
                   fmt::format("still running after --max-cycles {} cycles", Opts.MaxCycles));
  };
  // The wall clock is read every 2^16 steps (well under a millisecond), so
  // the limit costs nothing measurable and overshoots by nothing visible.
  using Clock = std::chrono::steady_clock;
  const auto Start = Clock::now();
  uint32_t Steps = 0;
  auto OutOfTime = [&] {
    return Opts.MaxSeconds > 0 && (++Steps & 0xffff) == 0 &&
           std::chrono::duration<double>(Clock::now() - Start).count() > Opts.MaxSeconds;
  };
  auto TooSlow = [&](uint64_t T) {
    return faultAt(
        Pc, T,
        fmt::format("still running after --max-seconds {} s of wall-clock time", Opts.MaxSeconds));
  };
  for (uint64_t T = 0;;) {
    // A visited cycle is at most one past the program's end (a signal firing
    // in the last cycle becomes visible in the next), so only T beyond
    // MaxCycles + 1 proves the program too long; the exact check is at the end.
    if (T > Opts.MaxCycles + 1)
      return Runaway(T);
    if (OutOfTime())
      return TooSlow(T);
    // Signals that fired before this cycle are visible now.
    if (!PendingSignals.empty())
      std::erase_if(PendingSignals, [&](std::pair<uint64_t, unsigned> P) {
        if (P.first >= T)
          return false;
        ++Sems[P.second & 0xff];
        return true;
      });
    bool UnitsActed = stepFetch(T);
    bool CtrlActed = stepCtrl(T);
    for (UnitState &U : Units)
      UnitsActed |= stepUnit(U, T);
    UnitsActed |= grantChannel(T);
    if (PendingError)
      return std::move(PendingError);
    if (Halted && drained())
      return finish(S);
    if (!CtrlActed && !UnitsActed) {
      uint64_t Next = nextWake(T);
      if (Next == Never)
        return deadlock(T);
      T = Next;
      continue;
    }
    // Before Wake, the first cycle a unit, a signal or the channel can act,
    // only the control core can: step it alone, without visiting the rest
    // (most of a network's cycles are scalar loop code or a stalled control
    // core). An operation it dispatches is visible to its unit the next
    // cycle, which becomes Wake.
    uint64_t Wake = UnitsActed ? T + 1 : nextWake(T);
    // While only the control core runs, neither the fetch engine's view nor
    // the lines change: what holds for one code block is asked again only
    // when pc leaves it. Quiet: the fetch engine cannot act and the block
    // has landed.
    PcSpan Quiet;
    for (++T; T < Wake && CtrlActed && !Halted;) {
      if (!Quiet.contains(Pc)) {
        // The fetch engine acts in cycle T: visit it in full.
        if (fetchCanAct())
          break;
        Quiet = residentBlock(T);
      }
      if (T > Opts.MaxCycles + 1)
        return Runaway(T);
      if (OutOfTime())
        return TooSlow(T);
      const uint64_t Before = Dispatches;
      CtrlActed = stepCtrl(T, Quiet.contains(Pc));
      if (PendingError)
        return std::move(PendingError);
      if (Halted) {
        if (drained())
          return finish(S);
        ++T; // the next cycle is visited in full
        break;
      }
      if (Dispatches != Before)
        Wake = T + 1;
      if (CtrlActed)
        ++T;
    }
    // The control core stalled in cycle T on a full queue: nothing can act
    // before Wake (or ever).
    if (!CtrlActed && !Halted && T < Wake) {
      // Stalled on its instructions, it resumes when their fetch lands.
      if (FetchStalledSince != Never)
        Wake = std::min(Wake, nextWake(T));
      if (Wake == Never)
        return deadlock(T);
      T = Wake;
    }
  }
}
