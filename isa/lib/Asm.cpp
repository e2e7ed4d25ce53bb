//===- Asm.cpp - Assembler and disassembler for vMAC programs -------------===//
//
// Text in, instructions (or a whole prog.bin) out, and back. The syntax is the
// one isa::disassemble prints, so disassembled code assembles to the same
// words: registers are positional ("r5") in the order the opcode lists its
// register fields, immediates are named ("rows=3") and may come in any order.
// Every operand must be written; a default would hide mistakes in generated
// code, which is what most assembly here is.
//
// Assembly is two passes: the first parses lines and records labels and
// label uses, the second resolves labels to pc-relative offsets and encodes,
// so range errors on resolved offsets still point at the source line. The
// program directives (.hw, .model, .data, ...) are in AsmDirectives.cpp; the
// syntax is specified in docs/assembly.md.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Asm.h"

#include "Assembler.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace snow::isa {

namespace {

using llvm::StringRef;
using llvm::Twine;

/// Mnemonic -> instruction, built once from the generated table.
const llvm::StringMap<const OpInfo *> &mnemonicTable() {
  static const llvm::StringMap<const OpInfo *> Table = [] {
    llvm::StringMap<const OpInfo *> T;
    for (const OpInfo &Info : allOps())
      T[Info.Mnemonic] = &Info;
    return T;
  }();
  return Table;
}

bool isLabelName(StringRef S) {
  if (S.empty() || !(llvm::isAlpha(S[0]) || S[0] == '_'))
    return false;
  return llvm::all_of(S, [](char C) { return llvm::isAlnum(C) || C == '_' || C == '.'; });
}

} // namespace

llvm::Error Assembler::run(std::string_view Text) {
  StringRef Rest(Text.data(), Text.size());
  unsigned Line = 0;
  while (!Rest.empty()) {
    auto [L, Tail] = Rest.split('\n');
    Rest = Tail;
    ++Line;
    if (InHw) {
      // Inside .hw ... .endhw the lines are YAML for parseHwConfig, not assembly.
      if (text::stripComment(L).trim() == ".endhw") {
        if (llvm::Error E = finishHwBlock())
          return E;
      } else {
        HwText += L;
        HwText += '\n';
      }
      continue;
    }
    if (llvm::Error E = parseLine(L, Line))
      return E;
  }
  if (InHw)
    return errorAt(HwLine, ".hw block is not closed by .endhw");
  if (llvm::Error E = resolveAndCheck())
    return E;
  return Prog ? finishProgram() : llvm::Error::success();
}

llvm::Error Assembler::parseLine(StringRef Text, unsigned Line) {
  Text = text::stripComment(Text).trim();
  // Any number of labels may precede the instruction or directive; they all
  // name the pc of the next instruction.
  while (!Text.empty()) {
    StringRef Head = Text.take_until([](char C) { return C == ' ' || C == '\t'; });
    size_t Colon = Head.find(':');
    if (Colon == StringRef::npos)
      break;
    StringRef Name = Text.take_front(Colon);
    if (!Name.empty() && llvm::all_of(Name, llvm::isDigit)) {
      // "12:" is the pc column snowdis prints. It is checked, not ignored: an
      // instruction added or removed above it would also shift every relative
      // branch across that spot, which is exactly what a stale pc reveals.
      if (text::parseInt(Name) != int64_t(Code.size()))
        return errorAt(Line, "pc '" + Name + ":' but this is pc " + Twine(Code.size()) +
                                 " (instructions were added or removed above; remove the pc "
                                 "column, e.g. snowdis --no-pc, before editing)");
      Text = Text.drop_front(Colon + 1).ltrim();
      continue;
    }
    if (!isLabelName(Name))
      return errorAt(Line, "invalid label name '" + Name + "'");
    auto [It, New] = Labels.try_emplace(Name, Code.size(), Line);
    if (!New)
      return errorAt(Line, "duplicate label '" + Name + "' (first defined on line " +
                               Twine(It->second.second) + ")");
    Text = Text.drop_front(Colon + 1).ltrim();
  }
  if (Text.empty())
    return llvm::Error::success();
  if (Text.startswith("."))
    return parseDirective(Text, Line);
  return parseInst(Text, Line);
}

llvm::Error Assembler::parseInst(StringRef Text, unsigned Line) {
  StringRef Mnemonic = Text.take_until([](char C) { return C == ' ' || C == '\t'; });
  StringRef OperandText = Text.drop_front(Mnemonic.size()).trim();
  const auto &Table = mnemonicTable();
  auto Found = Table.find(Mnemonic);
  if (Found == Table.end())
    return errorAt(Line, "unknown mnemonic '" + Mnemonic + "'");
  const OpInfo &Info = *Found->second;
  const std::string Mn = Info.Mnemonic;
  if (!FirstUseLine)
    FirstUseLine = Line;

  llvm::SmallVector<FieldId, 4> RegFields;
  for (FieldId F : Info.Operands)
    if (fieldInfo(F).Kind == FieldKind::Reg)
      RegFields.push_back(F);

  Inst I;
  I.Op = Info.Op;
  std::vector<bool> Seen(size_t(FieldId::NumFields), false);
  unsigned NumRegs = 0;
  if (!OperandText.empty()) {
    llvm::SmallVector<StringRef, 8> Pieces;
    OperandText.split(Pieces, ',');
    for (StringRef Piece : Pieces) {
      Piece = Piece.trim();
      if (Piece.empty())
        return errorAt(Line, "empty operand in '" + Mn + "'");

      if (!Piece.contains('=')) {
        // A positional register.
        std::optional<int64_t> N;
        if (Piece.size() > 1 && Piece[0] == 'r' && llvm::all_of(Piece.drop_front(), llvm::isDigit))
          N = text::parseInt(Piece.drop_front());
        if (!N)
          return errorAt(Line, "expected a register 'rN' or 'name=value' in '" + Mn + "', found '" +
                                   Piece + "'");
        if (NumRegs == RegFields.size())
          return errorAt(Line, "too many register operands for '" + Mn + "' (it takes " +
                                   Twine(RegFields.size()) + ")");
        FieldId F = RegFields[NumRegs++];
        I.set(F, *N);
        Seen[size_t(F)] = true;
        continue;
      }

      // Not a structured binding: clang 14 (the fuzzing build) cannot
      // capture one in the lambda below.
      StringRef Name, Value;
      std::tie(Name, Value) = Piece.split('=');
      Name = Name.trim();
      Value = Value.trim();
      auto It = llvm::find_if(Info.Operands, [&](FieldId F) { return Name == fieldInfo(F).Name; });
      if (It == Info.Operands.end())
        return errorAt(Line, "unknown operand '" + Name + "' for '" + Mn + "'");
      FieldId F = *It;
      const FieldInfo &FInfo = fieldInfo(F);
      if (FInfo.Kind == FieldKind::Reg)
        return errorAt(Line, "operand '" + Name + "' of '" + Mn +
                                 "' is a register: write it positionally as rN");
      if (Seen[size_t(F)])
        return errorAt(Line, "duplicate operand '" + Name + "' in '" + Mn + "'");
      Seen[size_t(F)] = true;
      if (std::optional<int64_t> V = text::parseInt(Value)) {
        I.set(F, *V);
      } else if (StringRef(FInfo.Name) == "imm" && isLabelName(Value)) {
        // Branch targets: resolved to label_pc - pc once all labels are known.
        LabelUses.push_back({Code.size(), F, Value.str(), Line});
      } else {
        return errorAt(Line,
                       "invalid value '" + Value + "' for operand '" + Name + "' of '" + Mn + "'");
      }
    }
  }

  // One-bit flags (relu, init, lut), a pool's words, a weights load's wpix
  // and a writeback's skip, len and cstride may be left out and are then 0
  // (a pool of one lane word, a load into vMAC idx alone, every CU writing,
  // one entry a row), so that a field added to an instruction (vwb's lut,
  // skip, len and cstride, vmax's words, ld.wgt's wpix) leaves older
  // assembly valid; every other operand must be written.
  const bool Vwb = I.Op == Opcode::VWB;
  for (FieldId F : Info.Operands)
    if (!Seen[size_t(F)] && fieldInfo(F).Width != 1 && F != FieldId::words && F != FieldId::wpix &&
        F != FieldId::skip && !(Vwb && (F == FieldId::len || F == FieldId::cstride)))
      return errorAt(Line, "missing operand '" + Twine(fieldInfo(F).Name) + "' of '" + Mn + "'");
  Code.push_back(I);
  CodeLines.push_back(Line);
  return llvm::Error::success();
}

llvm::Error Assembler::resolveAndCheck() {
  for (const LabelUse &U : LabelUses) {
    auto It = Labels.find(U.Label);
    if (It == Labels.end())
      return errorAt(U.Line, "undefined label '" + U.Label + "'");
    Code[U.Pc].set(U.Field, int64_t(It->second.first) - int64_t(U.Pc));
  }
  // encode() is the one place that knows each field's range.
  for (size_t Pc = 0; Pc < Code.size(); ++Pc)
    if (llvm::Expected<Word128> W = encode(Code[Pc]); !W)
      return errorAt(CodeLines[Pc], llvm::toString(W.takeError()));
  return llvm::Error::success();
}

llvm::Expected<std::vector<Inst>> assemble(std::string_view Text, std::string_view File) {
  Assembler A(File, nullptr);
  if (llvm::Error E = A.run(Text))
    return E;
  return std::move(A.Code);
}

llvm::Expected<Program> assembleProgram(std::string_view Text, std::string_view File,
                                        const HwConfig &Hw, bool HwFixed) {
  Program P;
  P.Hw = Hw;
  P.Input.FracBits = P.Output.FracBits = Hw.ActFracBits;
  Assembler A(File, &P, HwFixed);
  if (llvm::Error E = A.run(Text))
    return E;
  return P;
}

llvm::Expected<std::vector<Inst>> decodeProgram(const std::vector<Word128> &Code) {
  std::vector<Inst> Out;
  Out.reserve(Code.size());
  for (size_t Pc = 0; Pc < Code.size(); ++Pc) {
    llvm::Expected<Inst> I = decode(Code[Pc]);
    if (!I)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "pc " + Twine(Pc) + ": " + llvm::toString(I.takeError()));
    Out.push_back(*I);
  }
  return Out;
}

std::string disassembleProgram(const std::vector<Inst> &Code, bool WithPc) {
  size_t Width = std::to_string(Code.empty() ? 0 : Code.size() - 1).size();
  std::string S;
  for (size_t Pc = 0; Pc < Code.size(); ++Pc) {
    if (WithPc) {
      std::string N = std::to_string(Pc);
      S += std::string(Width - N.size(), ' ') + N + ": ";
    }
    S += disassemble(Code[Pc]);
    S += '\n';
  }
  return S;
}

} // namespace snow::isa
