//===- Asm.h - Text assembly for the vMAC ISA ----------------------*- C++ -*-===//
//
// Assembler and disassembler for whole programs. The syntax is one instruction
// per line as printed by isa::disassemble, plus labels ("loop:") usable as
// branch targets, '#' comments, and directives understood by snowasm, one per
// prog.bin section (docs/assembly.md). printListing and assembleProgram are
// inverses: a listing assembles back to a byte-identical prog.bin.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_ASM_H
#define SNOW_ISA_ASM_H

#include "snow/isa/HwConfig.h"
#include "snow/isa/Isa.h"
#include "snow/isa/Program.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <string_view>
#include <vector>

namespace snow::isa {

/// Assembles Text; errors carry "File:Line: message".
llvm::Expected<std::vector<Inst>> assemble(std::string_view Text, std::string_view File);

/// Assembles a whole program: instructions as in assemble(), plus the
/// directives .hw, .model, .input, .output, .layer, .data, .base64 and .data16
/// (docs/assembly.md). The program is for Hw unless the text has a .hw block;
/// with HwFixed the caller chose Hw deliberately and a .hw block must agree.
llvm::Expected<Program> assembleProgram(std::string_view Text, std::string_view File,
                                        const HwConfig &Hw, bool HwFixed = false);

/// Decodes every word of Code; an error names the failing pc.
llvm::Expected<std::vector<Inst>> decodeProgram(const std::vector<Word128> &Code);

/// One instruction per line, with "pc:" prefixes when WithPc is set. Without
/// them the text assembles back to the same code.
std::string disassembleProgram(const std::vector<Inst> &Code, bool WithPc = true);

struct ListingOptions {
  std::string Source;   ///< Named in the first comment line (the prog.bin path).
  bool WithPc = true;   ///< The "pc:" column; snowasm accepts and checks it.
  bool WithData = true; ///< The DRAM image as .base64 lines; without, no round trip.
};

/// Prints P in the syntax assembleProgram reads: every section as directives,
/// then the code. With Opts.WithData the text assembles back to P exactly (and
/// so to the same prog.bin bytes). Fails, printing nothing, if the code does
/// not decode.
llvm::Error printListing(llvm::raw_ostream &OS, const Program &P, const ListingOptions &Opts);

} // namespace snow::isa

#endif
