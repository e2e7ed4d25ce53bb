//===- Assembler.h - The two-pass assembler behind snowasm ---------*- C++ -*-===//
//
// One class, split over two files: Asm.cpp reads lines, labels and
// instructions; AsmDirectives.cpp reads the program directives (one per
// prog.bin section, docs/assembly.md) and builds the Program. Internal to
// snow_isa; the public entry points are in snow/isa/Asm.h.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_LIB_ASSEMBLER_H
#define SNOW_ISA_LIB_ASSEMBLER_H

#include "AsmText.h"

#include "snow/isa/Isa.h"
#include "snow/isa/Program.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

#include <string>
#include <string_view>
#include <vector>

namespace snow::isa {

/// A use of a label as the value of a pc-relative field.
struct LabelUse {
  size_t Pc;
  FieldId Field;
  std::string Label;
  unsigned Line;
};

/// Bytes placed at a DRAM address by .data16 (or, as one chunk, by .base64).
struct DataChunk {
  uint64_t Addr;
  std::vector<uint8_t> Bytes;
  unsigned Line;
};

class Assembler {
public:
  /// Prog is null for plain code (assemble()); then directives are errors.
  /// With HwFixed, Prog->Hw was chosen by the caller and a .hw block must
  /// agree with it; otherwise a .hw block replaces it.
  Assembler(std::string_view File, Program *Prog, bool HwFixed = false)
      : File(File), Prog(Prog), HwFixed(HwFixed) {}

  llvm::Error run(std::string_view Text);

  std::vector<Inst> Code;
  std::vector<unsigned> CodeLines; ///< Source line of each instruction.

private:
  llvm::Error errorAt(unsigned Line, const llvm::Twine &Msg) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   File + ":" + llvm::Twine(Line) + ": " + Msg);
  }
  llvm::Error parseLine(llvm::StringRef Text, unsigned Line);
  llvm::Error parseInst(llvm::StringRef Text, unsigned Line);
  llvm::Error resolveAndCheck();

  // AsmDirectives.cpp.
  using Tokens = llvm::ArrayRef<text::Token>;
  llvm::Error parseDirective(llvm::StringRef Text, unsigned Line);
  llvm::Error finishHwBlock();
  llvm::Error parseTensor(llvm::StringRef Dir, Tokens Args, unsigned Line, TensorInfo &T,
                          const char *DefaultName);
  llvm::Error parseLayer(Tokens Args, unsigned Line);
  llvm::Error parseDataSection(Tokens Args, unsigned Line);
  llvm::Error parseBase64(llvm::StringRef Text, unsigned Line);
  llvm::Error parseData16(Tokens Args, unsigned Line);
  llvm::Error finishProgram();
  llvm::Error finishData();

  std::string File;
  Program *Prog;
  bool HwFixed;
  llvm::StringMap<std::pair<size_t, unsigned>> Labels; ///< Name -> (pc, line).
  std::vector<LabelUse> LabelUses;

  // Directive state (assembleProgram only). A *Line of 0 means "not seen".
  unsigned FirstUseLine = 0; ///< First instruction or non-.hw directive.
  unsigned HwLine = 0;       ///< The .hw line; its block is open while InHw.
  bool InHw = false;
  std::string HwText; ///< The block's lines, after HwLine newlines (see finishHwBlock).
  unsigned ModelLine = 0, InputLine = 0, OutputLine = 0, BatchLine = 0;
  unsigned DataLine = 0; ///< The .data directive.
  uint64_t DataAddr = 0, DataSize = 0;
  unsigned Base64Line = 0;          ///< First .base64 line.
  std::vector<uint8_t> Base64Bytes; ///< All .base64 lines, in order, from DataAddr on.
  std::vector<DataChunk> Data16;
};

} // namespace snow::isa

#endif
