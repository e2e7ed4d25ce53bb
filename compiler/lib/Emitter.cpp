//===- Emitter.cpp - Building instruction streams with labels -------------===//

#include "Emitter.h"
#include "snow/isa/IsaConstants.h"
#include <array>
#include <cassert>
#include <fmt/format.h>

using namespace snow;
using namespace snow::compiler;
using isa::Inst;
using isa::Opcode;

/// Whether I writes its rd: the control core's ALU operations and li.
static Emitter::RegEffect effectOf(const Inst &I) {
  if (isa::opInfo(I.Op).U != isa::Unit::Ctrl || I.rd == 0)
    return {};
  switch (I.Op) {
  case Opcode::LI:
    return {Emitter::RegEffect::Li, uint8_t(I.rd), uint32_t(I.imm)};
  case Opcode::HALT:
  case Opcode::NOP:
  case Opcode::BEQ:
  case Opcode::BNE:
  case Opcode::BLT:
  case Opcode::BGE:
    return {};
  default:
    return {Emitter::RegEffect::Writes, uint8_t(I.rd), 0};
  }
}

void Emitter::emit(const Inst &I) {
  Effects.push_back(effectOf(I));
  auto W = isa::encode(I);
  if (!W) {
    if (FirstError.empty())
      FirstError = fmt::format("{}: cannot encode instruction {} ({}): {}",
                               Regions.empty() ? "program" : Regions.back().second, pc(),
                               isa::opInfo(I.Op).Mnemonic, llvm::toString(W.takeError()));
    else
      llvm::consumeError(W.takeError());
    Code.push_back({});
    return;
  }
  Code.push_back(*W);
}

Emitter::Label Emitter::newLabel() {
  LabelPc.push_back(-1);
  return {unsigned(LabelPc.size() - 1)};
}

void Emitter::bind(Label L) { LabelPc[L.Id] = pc(); }

void Emitter::li(Reg Rd, int64_t Value) {
  Inst I;
  I.Op = Opcode::LI;
  I.rd = Rd;
  I.imm = int32_t(uint32_t(Value)); // Registers are 32-bit; addresses are unsigned.
  emit(I);
}

void Emitter::addi(Reg Rd, Reg Rs, int64_t Imm) {
  Inst I;
  I.Op = Opcode::ADDI;
  I.rd = Rd;
  I.rs1 = Rs;
  I.imm = Imm;
  emit(I);
}

void Emitter::branch(Opcode Op, Reg A, Reg B, Label Target) {
  Inst I;
  I.Op = Op;
  I.rs1 = A;
  I.rs2 = B;
  Fixups.push_back({pc(), Target.Id});
  emit(I);
}

void Emitter::halt() {
  Inst I;
  I.Op = Opcode::HALT;
  emit(I);
}

/// A semaphore op on unit U's semaphore Sem: Ld, Ex or St by unit.
static Inst syncInst(isa::Unit U, unsigned Sem, Opcode Ld, Opcode Ex, Opcode St) {
  Inst I;
  I.Op = U == isa::Unit::Load ? Ld : U == isa::Unit::Compute ? Ex : St;
  I.idx = Sem;
  return I;
}

void Emitter::wait(isa::Unit U, unsigned Sem) {
  emit(syncInst(U, Sem, Opcode::SYNC_LD_WAIT, Opcode::SYNC_EX_WAIT, Opcode::SYNC_ST_WAIT));
}

void Emitter::signal(isa::Unit U, unsigned Sem) {
  emit(syncInst(U, Sem, Opcode::SYNC_LD_SIGNAL, Opcode::SYNC_EX_SIGNAL, Opcode::SYNC_ST_SIGNAL));
}

void Emitter::mark(unsigned Layer) {
  Inst I;
  I.Op = Opcode::MARK;
  I.imm = Layer;
  emit(I);
}

Emitter::Block Emitter::takeFrom(uint32_t From) {
  assert(From <= pc() && "takeFrom past the end");
  Block B;
  B.Insts.assign(Code.begin() + From, Code.end());
  B.Effects.assign(Effects.begin() + From, Effects.end());
  Code.resize(From);
  Effects.resize(From);
  for (unsigned Id = 0; Id < LabelPc.size(); ++Id)
    if (LabelPc[Id] >= int64_t(From)) {
      B.Labels.push_back({Id, uint32_t(LabelPc[Id] - From)});
      LabelPc[Id] = -1;
    }
  std::erase_if(Fixups, [&](auto &F) {
    if (F.first < From)
      return false;
    B.Fixups.push_back({F.first - From, F.second});
    return true;
  });
  return B;
}

Emitter::Block Emitter::Block::splitAt(uint32_t Pc) {
  Block Tail;
  Tail.Insts.assign(Insts.begin() + Pc, Insts.end());
  Tail.Effects.assign(Effects.begin() + Pc, Effects.end());
  Insts.resize(Pc);
  Effects.resize(Pc);
  auto Move = [&](auto &From, auto &To, auto PcOf, auto Shift) {
    std::erase_if(From, [&](auto &E) {
      if (PcOf(E) < Pc)
        return false;
      To.push_back(Shift(E));
      return true;
    });
  };
  Move(
      Labels, Tail.Labels, [](auto &E) { return E.second; },
      [&](auto E) {
        return std::pair{E.first, E.second - Pc};
      });
  Move(
      Fixups, Tail.Fixups, [](auto &E) { return E.first; },
      [&](auto E) {
        return std::pair{E.first - Pc, E.second};
      });
#ifndef NDEBUG
  for (auto [FPc, Id] : Fixups)
    for (auto [LId, LPc] : Tail.Labels)
      assert(LId != Id && "a branch crosses the split");
  for (auto [FPc, Id] : Tail.Fixups)
    for (auto [LId, LPc] : Labels)
      assert(LId != Id && "a branch crosses the split");
#endif
  return Tail;
}

void Emitter::append(const Block &B) {
  const uint32_t Base = pc();
  Code.insert(Code.end(), B.Insts.begin(), B.Insts.end());
  Effects.insert(Effects.end(), B.Effects.begin(), B.Effects.end());
  for (auto [Id, Pc] : B.Labels)
    LabelPc[Id] = Base + Pc;
  for (auto [Pc, Id] : B.Fixups)
    Fixups.push_back({Base + Pc, Id});
}

void Emitter::dropRedundantLoads() {
  assert(Effects.size() == Code.size() && "an effect per instruction");
  std::vector<bool> Join(Code.size() + 1, false);
  for (int64_t Pc : LabelPc)
    if (Pc >= 0)
      Join[size_t(Pc)] = true;
  // Known[r]: r's value on every path here, if bit r of KnownMask is set.
  std::array<uint32_t, isa::NumRegs> Known{};
  uint64_t KnownMask = 0;
  std::vector<uint32_t> NewPc(Code.size() + 1);
  uint32_t Out = 0;
  for (size_t Pc = 0; Pc < Code.size(); ++Pc) {
    NewPc[Pc] = Out;
    if (Join[Pc])
      KnownMask = 0;
    const RegEffect &E = Effects[Pc];
    const uint64_t Bit = uint64_t(1) << E.Rd;
    if (E.K == RegEffect::Li && (KnownMask & Bit) && Known[E.Rd] == E.Value)
      continue; // the register already holds it
    if (E.K == RegEffect::Li) {
      Known[E.Rd] = E.Value;
      KnownMask |= Bit;
    } else if (E.K == RegEffect::Writes) {
      KnownMask &= ~Bit;
    }
    Code[Out] = Code[Pc];
    Effects[Out] = E;
    ++Out;
  }
  NewPc[Code.size()] = Out;
  Code.resize(Out);
  Effects.resize(Out);
  for (int64_t &Pc : LabelPc)
    if (Pc >= 0)
      Pc = NewPc[size_t(Pc)];
  for (auto &[Pc, Id] : Fixups)
    Pc = NewPc[Pc];
}

llvm::Expected<std::vector<isa::Word128>> Emitter::finish() {
  auto Fail = [](const std::string &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
  };
  if (!FirstError.empty())
    return Fail(FirstError);
  for (auto [Pc, Id] : Fixups)
    if (LabelPc[Id] < 0)
      return Fail(fmt::format("internal error: unbound label at pc {}", Pc));
  dropRedundantLoads();
  for (auto [Pc, Id] : Fixups) {
    auto I = isa::decode(Code[Pc]);
    if (!I)
      return Fail("internal error: " + llvm::toString(I.takeError()));
    I->imm = LabelPc[Id] - int64_t(Pc);
    auto W = isa::encode(*I);
    if (!W)
      return Fail(fmt::format("branch at pc {}: {}", Pc, llvm::toString(W.takeError())));
    Code[Pc] = *W;
  }
  return std::move(Code);
}
