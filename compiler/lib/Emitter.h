//===- Emitter.h - Building instruction streams with labels -------*- C++ -*-===//
//
// A small builder over isa::Inst: one helper per instruction the compiler uses,
// forward labels for branches, and field overflows reported by finish() as an
// error naming the layer being compiled. Instructions are encoded as they are
// emitted and held as 16-byte words (an isa::Inst is 176 bytes: a 20,000-layer
// model's 2.9 M instructions took 956 MB as Insts), branches patched at the end.
//
// finish() also drops every `li` that sets a register to the value it already
// holds on every path to it (code is fetched from DRAM, so each instruction
// costs channel time): the lowering loads DMA addresses and buffer offsets
// afresh for each operation, and many repeat.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_EMITTER_H
#define SNOW_COMPILER_EMITTER_H

#include "snow/isa/Isa.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace snow::compiler {

using Reg = unsigned;

class Emitter {
public:
  struct Label {
    unsigned Id;
  };

  Label newLabel();
  void bind(Label L);
  uint32_t pc() const { return uint32_t(Code.size()); }

  void emit(const isa::Inst &I);
  void li(Reg Rd, int64_t Value);
  void addi(Reg Rd, Reg Rs, int64_t Imm);
  void branch(isa::Opcode Op, Reg A, Reg B, Label Target);
  void halt();
  void wait(isa::Unit U, unsigned Sem);
  void signal(isa::Unit U, unsigned Sem);
  void mark(unsigned Layer);

  /// What finish() needs to know of an instruction's effect on registers.
  struct RegEffect {
    enum Kind : uint8_t { None, Li, Writes } K = None;
    uint8_t Rd = 0;
    uint32_t Value = 0; ///< Li: the register's value after it.
  };

  /// A piece of code cut out of the stream, with its own labels and branches
  /// (which must not reach outside it), to be emitted again elsewhere.
  struct Block {
    std::vector<isa::Word128> Insts;
    std::vector<RegEffect> Effects;
    std::vector<std::pair<unsigned, uint32_t>> Labels; ///< (label, pc in block)
    std::vector<std::pair<uint32_t, unsigned>> Fixups; ///< (pc in block, label)
    size_t size() const { return Insts.size(); }
    /// Splits off the instructions from Pc on (no branch may cross Pc).
    Block splitAt(uint32_t Pc);
  };
  /// Moves the instructions emitted from pc From on out of the stream.
  Block takeFrom(uint32_t From);
  void append(const Block &B);

  /// Code emitted from now on belongs to What (for error messages).
  void beginRegion(std::string What) { Regions.push_back({pc(), std::move(What)}); }

  /// The code with branch targets filled in and redundant `li`s dropped;
  /// fails if a label is unbound or a field overflowed.
  llvm::Expected<std::vector<isa::Word128>> finish();

private:
  /// Drops each `li` whose register already holds its value on every path
  /// (labels are joins: nothing is known there), moving labels and fixups.
  void dropRedundantLoads();

  std::vector<isa::Word128> Code;
  std::vector<RegEffect> Effects; ///< [pc]
  std::string FirstError;         ///< The first instruction that did not encode.
  std::vector<int64_t> LabelPc;
  std::vector<std::pair<uint32_t, unsigned>> Fixups;     ///< (pc, label)
  std::vector<std::pair<uint32_t, std::string>> Regions; ///< (first pc, owner)
};

} // namespace snow::compiler

#endif
