//===- Asm.h - Text assembly for the vMAC ISA ----------------------*- C++ -*-===//
//
// Assembler and disassembler for whole programs. The syntax is one instruction
// per line as printed by isa::disassemble, plus labels ("loop:") usable as
// branch targets, '#' comments, and directives understood by snowasm (see
// docs/isa.md).
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_ASM_H
#define SNOW_ISA_ASM_H

#include "snow/isa/Isa.h"
#include "llvm/Support/Error.h"
#include <string>
#include <string_view>
#include <vector>

namespace snow::isa {

/// Assembles Text; errors carry "File:Line: message".
llvm::Expected<std::vector<Inst>> assemble(std::string_view Text, std::string_view File);

/// One instruction per line, with "pc:" prefixes when WithPc is set.
std::string disassembleProgram(const std::vector<Inst> &Code, bool WithPc = true);

} // namespace snow::isa

#endif
