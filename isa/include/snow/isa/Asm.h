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

#include "snow/isa/HwConfig.h"
#include "snow/isa/Isa.h"
#include "snow/isa/Program.h"
#include "llvm/Support/Error.h"
#include <string>
#include <string_view>
#include <vector>

namespace snow::isa {

/// Assembles Text; errors carry "File:Line: message".
llvm::Expected<std::vector<Inst>> assemble(std::string_view Text, std::string_view File);

/// Assembles a program for Hw: instructions as in assemble(), plus the
/// directives .model, .input, .output, .layer and .data16 (docs/isa.md).
/// Code holds the encoded instructions; Hw is copied into the result.
llvm::Expected<Program> assembleProgram(std::string_view Text, std::string_view File,
                                        const HwConfig &Hw);

/// Decodes every word of Code; an error names the failing pc.
llvm::Expected<std::vector<Inst>> decodeProgram(const std::vector<Word128> &Code);

/// One instruction per line, with "pc:" prefixes when WithPc is set. Without
/// them the text assembles back to the same code.
std::string disassembleProgram(const std::vector<Inst> &Code, bool WithPc = true);

} // namespace snow::isa

#endif
