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
// so range errors on resolved offsets still point at the source line.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Asm.h"

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

/// Decimal or 0x-hex with an optional sign. No octal: "010" is ten, because
/// a leading zero meaning base 8 only ever surprises.
std::optional<int64_t> parseInt(StringRef S) {
  bool Neg = S.consume_front("-");
  if (!Neg)
    S.consume_front("+");
  unsigned Radix = 10;
  if (S.consume_front("0x") || S.consume_front("0X"))
    Radix = 16;
  uint64_t Mag;
  if (S.empty() || S.getAsInteger(Radix, Mag))
    return std::nullopt;
  uint64_t Limit = uint64_t(std::numeric_limits<int64_t>::max()) + (Neg ? 1 : 0);
  if (Mag > Limit)
    return std::nullopt;
  return Neg ? int64_t(0 - Mag) : int64_t(Mag);
}

/// Splits on commas and white space, dropping empty pieces (directive syntax).
llvm::SmallVector<StringRef, 8> splitArgs(StringRef S) {
  llvm::SmallVector<StringRef, 8> Out;
  while (true) {
    S = S.ltrim(" \t,");
    if (S.empty())
      return Out;
    size_t End = S.find_first_of(" \t,");
    Out.push_back(S.take_front(End));
    S = S.drop_front(std::min(End, S.size()));
  }
}

/// A use of a label as the value of a pc-relative field.
struct LabelUse {
  size_t Pc;
  FieldId Field;
  std::string Label;
  unsigned Line;
};

struct DataChunk {
  uint64_t Addr;
  std::vector<uint8_t> Bytes;
  unsigned Line;
};

class Assembler {
public:
  /// Prog is null for plain code (assemble()); then directives are errors.
  Assembler(std::string_view File, Program *Prog) : File(File), Prog(Prog) {}

  llvm::Error run(std::string_view Text);

  std::vector<Inst> Code;
  std::vector<unsigned> CodeLines; ///< Source line of each instruction.

private:
  llvm::Error errorAt(unsigned Line, const Twine &Msg) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   File + ":" + Twine(Line) + ": " + Msg);
  }
  llvm::Error parseLine(StringRef Text, unsigned Line);
  llvm::Error parseInst(StringRef Text, unsigned Line);
  llvm::Error parseDirective(StringRef Text, unsigned Line);
  llvm::Error parseTensor(StringRef Dir, llvm::ArrayRef<StringRef> Args, unsigned Line,
                          TensorInfo &T, const char *Name);
  llvm::Error resolveAndCheck();
  llvm::Error finishProgram();

  std::string File;
  Program *Prog;
  llvm::StringMap<std::pair<size_t, unsigned>> Labels; ///< Name -> (pc, line).
  std::vector<LabelUse> LabelUses;
  // Directive state (assembleProgram only).
  unsigned ModelLine = 0, InputLine = 0, OutputLine = 0;
  std::vector<DataChunk> Data;
};

llvm::Error Assembler::run(std::string_view Text) {
  StringRef Rest(Text.data(), Text.size());
  unsigned Line = 0;
  while (!Rest.empty()) {
    auto [L, Tail] = Rest.split('\n');
    Rest = Tail;
    ++Line;
    if (llvm::Error E = parseLine(L, Line))
      return E;
  }
  if (llvm::Error E = resolveAndCheck())
    return E;
  return Prog ? finishProgram() : llvm::Error::success();
}

llvm::Error Assembler::parseLine(StringRef Text, unsigned Line) {
  Text = Text.split('#').first.trim();
  // Any number of labels may precede the instruction or directive; they all
  // name the pc of the next instruction.
  while (!Text.empty()) {
    StringRef Head = Text.take_until([](char C) { return C == ' ' || C == '\t'; });
    size_t Colon = Head.find(':');
    if (Colon == StringRef::npos)
      break;
    StringRef Name = Text.take_front(Colon);
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
          N = parseInt(Piece.drop_front());
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

      auto [Name, Value] = Piece.split('=');
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
      if (std::optional<int64_t> V = parseInt(Value)) {
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

  for (FieldId F : Info.Operands)
    if (!Seen[size_t(F)])
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

llvm::Error Assembler::parseTensor(StringRef Dir, llvm::ArrayRef<StringRef> Args, unsigned Line,
                                   TensorInfo &T, const char *Name) {
  if (Args.size() != 4 && Args.size() != 5)
    return errorAt(Line,
                   Dir + " takes ADDR C H W [FRAC], found " + Twine(Args.size()) + " arguments");
  const char *ArgNames[] = {"ADDR", "C", "H", "W", "FRAC"};
  int64_t V[5] = {0, 0, 0, 0, int64_t(Prog->Hw.ActFracBits)};
  for (size_t K = 0; K < Args.size(); ++K) {
    std::optional<int64_t> N = parseInt(Args[K]);
    int64_t Max = K == 0   ? std::numeric_limits<int64_t>::max()
                  : K == 4 ? 15
                           : int64_t(std::numeric_limits<uint32_t>::max());
    if (!N || *N < (K == 0 || K == 4 ? 0 : 1) || *N > Max)
      return errorAt(Line, "invalid " + Twine(ArgNames[K]) + " '" + Args[K] + "' in " + Dir);
    V[K] = *N;
  }
  T.Name = Name;
  T.Addr = uint64_t(V[0]);
  T.C = uint32_t(V[1]);
  T.H = uint32_t(V[2]);
  T.W = uint32_t(V[3]);
  T.FracBits = uint32_t(V[4]);
  if (T.Addr + T.bytes() > Prog->Hw.dramBytes())
    return errorAt(Line, Dir + " tensor ends beyond DRAM (" + Twine(Prog->Hw.DramMib) + " MiB)");
  return llvm::Error::success();
}

llvm::Error Assembler::parseDirective(StringRef Text, unsigned Line) {
  llvm::SmallVector<StringRef, 8> Args = splitArgs(Text);
  StringRef Dir = Args.front();
  Args.erase(Args.begin());
  if (!Prog)
    return errorAt(Line, "directive '" + Dir + "' is only allowed in a whole program (snowasm)");

  if (Dir == ".model") {
    if (ModelLine)
      return errorAt(Line, ".model given twice (first on line " + Twine(ModelLine) + ")");
    if (Args.size() != 1)
      return errorAt(Line, ".model takes one NAME");
    Prog->ModelName = Args[0].str();
    ModelLine = Line;
    return llvm::Error::success();
  }
  if (Dir == ".input" || Dir == ".output") {
    bool In = Dir == ".input";
    unsigned &Seen = In ? InputLine : OutputLine;
    if (Seen)
      return errorAt(Line, Dir + " given twice (first on line " + Twine(Seen) + ")");
    Seen = Line;
    return parseTensor(Dir, Args, Line, In ? Prog->Input : Prog->Output, In ? "input" : "output");
  }
  if (Dir == ".layer") {
    if (Args.size() != 6)
      return errorAt(Line, ".layer takes NAME TYPE MACS OUTC OUTH OUTW, found " +
                               Twine(Args.size()) + " arguments");
    LayerInfo L;
    L.Name = Args[0].str();
    L.Type = Args[1].str();
    std::optional<int64_t> N[4];
    const char *ArgNames[] = {"MACS", "OUTC", "OUTH", "OUTW"};
    for (int K = 0; K < 4; ++K) {
      N[K] = parseInt(Args[2 + K]);
      int64_t Max = K == 0 ? std::numeric_limits<int64_t>::max()
                           : int64_t(std::numeric_limits<uint32_t>::max());
      if (!N[K] || *N[K] < 0 || *N[K] > Max)
        return errorAt(Line, "invalid " + Twine(ArgNames[K]) + " '" + Args[2 + K] + "' in .layer");
    }
    L.Macs = uint64_t(*N[0]);
    L.OutC = uint32_t(*N[1]);
    L.OutH = uint32_t(*N[2]);
    L.OutW = uint32_t(*N[3]);
    Prog->Layers.push_back(std::move(L));
    return llvm::Error::success();
  }
  if (Dir == ".data16") {
    if (Args.size() < 2)
      return errorAt(Line, ".data16 takes ADDR and at least one value");
    std::optional<int64_t> Addr = parseInt(Args[0]);
    if (!Addr || *Addr < 0)
      return errorAt(Line, "invalid ADDR '" + Args[0] + "' in .data16");
    DataChunk C{uint64_t(*Addr), {}, Line};
    for (StringRef A : llvm::ArrayRef<StringRef>(Args).drop_front()) {
      std::optional<int64_t> V = parseInt(A);
      if (!V || *V < std::numeric_limits<int16_t>::min() ||
          *V > std::numeric_limits<int16_t>::max())
        return errorAt(Line, "value '" + A + "' in .data16 is not an int16");
      C.Bytes.push_back(uint8_t(uint16_t(*V)));
      C.Bytes.push_back(uint8_t(uint16_t(*V) >> 8));
    }
    if (C.Addr + C.Bytes.size() > Prog->Hw.dramBytes())
      return errorAt(Line, ".data16 ends beyond DRAM (" + Twine(Prog->Hw.DramMib) + " MiB)");
    for (const DataChunk &D : Data)
      if (C.Addr < D.Addr + D.Bytes.size() && D.Addr < C.Addr + C.Bytes.size())
        return errorAt(Line, ".data16 overlaps the data from line " + Twine(D.Line));
    Data.push_back(std::move(C));
    return llvm::Error::success();
  }
  return errorAt(Line, "unknown directive '" + Dir + "'");
}

llvm::Error Assembler::finishProgram() {
  // MARK's immediate indexes the layer table; a dangling index would only
  // show up as a wrong name in a profile much later.
  for (size_t Pc = 0; Pc < Code.size(); ++Pc)
    if (Code[Pc].Op == Opcode::MARK &&
        (Code[Pc].imm < 0 || uint64_t(Code[Pc].imm) >= Prog->Layers.size()))
      return errorAt(CodeLines[Pc], "mark imm=" + Twine(Code[Pc].imm) + " but " +
                                        Twine(Prog->Layers.size()) +
                                        " layers are declared with .layer");

  Prog->Code.clear();
  for (const Inst &I : Code)
    Prog->Code.push_back(cantFail(encode(I))); // Checked in resolveAndCheck().

  if (Data.empty())
    return llvm::Error::success();
  uint64_t Lo = std::numeric_limits<uint64_t>::max(), Hi = 0;
  for (const DataChunk &D : Data) {
    Lo = std::min(Lo, D.Addr);
    Hi = std::max(Hi, D.Addr + D.Bytes.size());
  }
  Prog->DataAddr = Lo;
  Prog->Data.assign(Hi - Lo, 0);
  for (const DataChunk &D : Data)
    std::copy(D.Bytes.begin(), D.Bytes.end(), Prog->Data.begin() + (D.Addr - Lo));
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::vector<Inst>> assemble(std::string_view Text, std::string_view File) {
  Assembler A(File, nullptr);
  if (llvm::Error E = A.run(Text))
    return E;
  return std::move(A.Code);
}

llvm::Expected<Program> assembleProgram(std::string_view Text, std::string_view File,
                                        const HwConfig &Hw) {
  Program P;
  P.Hw = Hw;
  P.Input.FracBits = P.Output.FracBits = Hw.ActFracBits;
  Assembler A(File, &P);
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
