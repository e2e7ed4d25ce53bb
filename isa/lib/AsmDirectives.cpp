//===- AsmDirectives.cpp - Program directives: one per prog.bin section ---===//
//
// Everything in prog.bin besides the code has a directive, so that a snowdis
// listing assembles back to the same bytes (docs/assembly.md):
//
//   .hw ... .endhw        HWCF  the hardware, as hardware-config YAML lines
//   .model NAME           MODL
//   .input / .output      TENS  named fields: addr= c= h= w= frac=
//   .batch N              TENS  frames per run (absent: 1)
//   .layer                LAYR  one table row per line
//   .data addr= size=     DATA  the image's extent, then .base64 lines
//   .data16 ADDR v...           int16 values at an address, for hand-writing
//
// The header and the CRC follow from the sections. Sections people write by
// hand keep their older, shorter forms (positional .input, .data16 without
// .data), with the defaults they always had.
//
//===----------------------------------------------------------------------===//

#include "Assembler.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <limits>

namespace snow::isa {

using llvm::StringRef;
using llvm::Twine;
using text::Token;

namespace {

constexpr int64_t U32Max = std::numeric_limits<uint32_t>::max();
constexpr int64_t I64Max = std::numeric_limits<int64_t>::max();

/// One named field of a directive: its key, the accepted range, and whether
/// it may be left out (then Value keeps the caller's default).
struct Field {
  const char *Key;
  int64_t Min, Max;
  bool Required;
  int64_t Value = 0;
  bool Seen = false;
};

std::string fieldList(llvm::ArrayRef<Field> Fields) {
  std::string S;
  for (const Field &F : Fields)
    S += (S.empty() ? "" : " ") + std::string(F.Key) + "=";
  return S;
}

} // namespace

/// Reads "key=value" tokens into Fields; Dir names the directive in messages.
static llvm::Error readFields(StringRef Dir, llvm::ArrayRef<Token> Args,
                              llvm::MutableArrayRef<Field> Fields,
                              llvm::function_ref<llvm::Error(const Twine &)> Fail) {
  for (const Token &T : Args) {
    if (!T.isKeyValue())
      return Fail("expected field=value in " + Dir + ", found '" + T.Raw +
                  "' (fields: " + fieldList(Fields) + ")");
    StringRef Key, Value; // Not a structured binding: clang 14 cannot capture one.
    std::tie(Key, Value) = T.Raw.split('=');
    Field *F = llvm::find_if(Fields, [&](const Field &F) { return Key == F.Key; });
    if (F == Fields.end())
      return Fail("unknown field '" + Key + "' in " + Dir + " (fields: " + fieldList(Fields) + ")");
    if (F->Seen)
      return Fail("field '" + Key + "' given twice in " + Dir);
    std::optional<int64_t> N = text::parseInt(Value);
    if (!N || *N < F->Min || *N > F->Max)
      return Fail("invalid " + Key + " '" + Value + "' in " + Dir + " (expected " + Twine(F->Min) +
                  " to " + Twine(F->Max) + ")");
    F->Value = *N;
    F->Seen = true;
  }
  for (const Field &F : Fields)
    if (F.Required && !F.Seen)
      return Fail("missing field '" + Twine(F.Key) + "=' in " + Dir);
  return llvm::Error::success();
}

llvm::Error Assembler::parseDirective(StringRef Text, unsigned Line) {
  StringRef Dir = Text.take_until([](char C) { return C == ' ' || C == '\t' || C == ','; });
  if (!Prog)
    return errorAt(Line, "directive '" + Dir + "' is only allowed in a whole program (snowasm)");
  if (Dir != ".hw" && !FirstUseLine)
    FirstUseLine = Line;
  // Bulk data first and without tokenizing: a big model has millions of these.
  if (Dir == ".base64")
    return parseBase64(Text.drop_front(Dir.size()).trim(), Line);

  llvm::Expected<llvm::SmallVector<Token, 8>> Toks = text::tokenize(Text.drop_front(Dir.size()));
  if (!Toks)
    return errorAt(Line, llvm::toString(Toks.takeError()));
  llvm::ArrayRef<Token> Args = *Toks;

  if (Dir == ".hw") {
    if (HwLine)
      return errorAt(Line, ".hw given twice (first on line " + Twine(HwLine) + ")");
    if (FirstUseLine)
      return errorAt(Line, ".hw must come before every instruction and directive (line " +
                               Twine(FirstUseLine) + " has one)");
    if (!Args.empty())
      return errorAt(Line, ".hw takes no arguments: hardware keys follow on their own lines, "
                           "up to .endhw");
    HwLine = Line;
    InHw = true;
    // Line padding: parseHwConfig then reports YAML errors at file lines.
    HwText.assign(Line, '\n');
    return llvm::Error::success();
  }
  if (Dir == ".endhw")
    return errorAt(Line, ".endhw without .hw");
  if (Dir == ".model") {
    if (ModelLine)
      return errorAt(Line, ".model given twice (first on line " + Twine(ModelLine) + ")");
    if (Args.size() != 1)
      return errorAt(Line, ".model takes one NAME");
    Prog->ModelName = Args[0].Text;
    ModelLine = Line;
    return llvm::Error::success();
  }
  if (Dir == ".batch") {
    if (BatchLine)
      return errorAt(Line, ".batch given twice (first on line " + Twine(BatchLine) + ")");
    unsigned long long N = 0;
    if (Args.size() != 1 || llvm::getAsUnsignedInteger(Args[0].Text, 0, N) || N == 0 ||
        N > std::numeric_limits<uint32_t>::max())
      return errorAt(Line, ".batch takes one frame count from 1 to 2^32-1");
    Prog->Batch = uint32_t(N);
    BatchLine = Line;
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
  if (Dir == ".layer")
    return parseLayer(Args, Line);
  if (Dir == ".data")
    return parseDataSection(Args, Line);
  if (Dir == ".data16")
    return parseData16(Args, Line);
  return errorAt(Line, "unknown directive '" + Dir + "'");
}

llvm::Error Assembler::finishHwBlock() {
  InHw = false;
  llvm::Expected<HwConfig> Hw = parseHwConfig(HwText, File);
  if (!Hw)
    return Hw.takeError(); // Already "File:line: ...", on the offending key's line.
  std::string Where = File + ":" + std::to_string(HwLine);
  if (llvm::Error E = validate(*Hw, Where))
    return E;
  if (HwFixed && !(*Hw == Prog->Hw))
    return errorAt(HwLine, ".hw block (hardware '" + Hw->Name +
                               "') differs from the hardware chosen outside the text ('" +
                               Prog->Hw.Name + "', e.g. snowasm --hw): give it once");
  Prog->Hw = *Hw;
  Prog->Input.FracBits = Prog->Output.FracBits = Hw->ActFracBits;
  HwText.clear();
  return llvm::Error::success();
}

llvm::Error Assembler::parseTensor(StringRef Dir, Tokens Args, unsigned Line, TensorInfo &T,
                                   const char *DefaultName) {
  auto Fail = [&](const Twine &Msg) { return errorAt(Line, Msg); };
  Field Fields[] = {{"addr", 0, I64Max, true},
                    {"c", 1, U32Max, true},
                    {"h", 1, U32Max, true},
                    {"w", 1, U32Max, true},
                    {"frac", 0, 15, false, int64_t(Prog->Hw.ActFracBits)}};
  if (llvm::any_of(Args, [](const Token &A) { return A.isKeyValue(); })) {
    // .input NAME addr=A c=C h=H w=W [frac=F]
    if (Args.empty() || Args[0].isKeyValue())
      return Fail(Dir + " takes NAME then fields, e.g. " + Dir + " data addr=0x0 c=3 h=224 w=224");
    if (llvm::Error E = readFields(Dir, Args.drop_front(), Fields, Fail))
      return E;
    T.Name = Args[0].Text;
  } else {
    // The original positional form: .input ADDR C H W [FRAC], named after the directive.
    if (Args.size() != 4 && Args.size() != 5)
      return Fail(Dir + " takes ADDR C H W [FRAC], found " + Twine(Args.size()) + " arguments");
    const char *ArgNames[] = {"ADDR", "C", "H", "W", "FRAC"};
    for (size_t K = 0; K < Args.size(); ++K) {
      std::optional<int64_t> N = text::parseInt(Args[K].Text);
      if (!N || *N < Fields[K].Min || *N > Fields[K].Max)
        return Fail("invalid " + Twine(ArgNames[K]) + " '" + Args[K].Raw + "' in " + Dir);
      Fields[K].Value = *N;
    }
    T.Name = DefaultName;
  }
  T.Addr = uint64_t(Fields[0].Value);
  T.C = uint32_t(Fields[1].Value);
  T.H = uint32_t(Fields[2].Value);
  T.W = uint32_t(Fields[3].Value);
  T.FracBits = uint32_t(Fields[4].Value);
  if (T.Addr + T.bytes() > Prog->Hw.dramBytes())
    return Fail(Dir + " tensor ends beyond DRAM (" + Twine(Prog->Hw.DramMib) + " MiB)");
  return llvm::Error::success();
}

llvm::Error Assembler::parseLayer(Tokens Args, unsigned Line) {
  if (Args.size() != 6)
    return errorAt(Line, ".layer takes NAME TYPE MACS OUTC OUTH OUTW, found " + Twine(Args.size()) +
                             " arguments");
  LayerInfo L;
  L.Name = Args[0].Text;
  L.Type = Args[1].Text;
  int64_t V[4];
  const char *ArgNames[] = {"MACS", "OUTC", "OUTH", "OUTW"};
  for (int K = 0; K < 4; ++K) {
    std::optional<int64_t> N = text::parseInt(Args[2 + K].Text);
    if (!N || *N < 0 || *N > (K == 0 ? I64Max : U32Max))
      return errorAt(Line,
                     "invalid " + Twine(ArgNames[K]) + " '" + Args[2 + K].Raw + "' in .layer");
    V[K] = *N;
  }
  L.Macs = uint64_t(V[0]);
  L.OutC = uint32_t(V[1]);
  L.OutH = uint32_t(V[2]);
  L.OutW = uint32_t(V[3]);
  Prog->Layers.push_back(std::move(L));
  return llvm::Error::success();
}

llvm::Error Assembler::parseDataSection(Tokens Args, unsigned Line) {
  if (DataLine)
    return errorAt(Line, ".data given twice (first on line " + Twine(DataLine) + ")");
  auto Fail = [&](const Twine &Msg) { return errorAt(Line, Msg); };
  Field Fields[] = {{"addr", 0, I64Max, true}, {"size", 0, I64Max, true}};
  if (llvm::Error E = readFields(".data", Args, Fields, Fail))
    return E;
  DataAddr = uint64_t(Fields[0].Value);
  DataSize = uint64_t(Fields[1].Value);
  uint64_t Dram = Prog->Hw.dramBytes();
  if (DataAddr > Dram || DataSize > Dram - DataAddr)
    return Fail(".data ends beyond DRAM (" + Twine(Prog->Hw.DramMib) + " MiB)");
  DataLine = Line;
  return llvm::Error::success();
}

llvm::Error Assembler::parseBase64(StringRef Text, unsigned Line) {
  if (!DataLine)
    return errorAt(Line, ".base64 before .data: the lines fill the .data section from its addr");
  if (Text.empty() || Text.find_first_of(" \t,") != StringRef::npos)
    return errorAt(Line, ".base64 takes one run of base64 text");
  if (!Base64Line) {
    Base64Line = Line;
    Base64Bytes.reserve(DataSize);
  }
  if (llvm::Error E = text::decodeBase64(Text, Base64Bytes))
    return errorAt(Line, llvm::toString(std::move(E)) + " in .base64");
  if (Base64Bytes.size() > DataSize)
    return errorAt(Line, ".base64 lines hold more than the " + Twine(DataSize) +
                             " bytes declared by .data on line " + Twine(DataLine));
  return llvm::Error::success();
}

llvm::Error Assembler::parseData16(Tokens Args, unsigned Line) {
  if (Args.size() < 2)
    return errorAt(Line, ".data16 takes ADDR and at least one value");
  std::optional<int64_t> Addr = text::parseInt(Args[0].Text);
  if (!Addr || *Addr < 0)
    return errorAt(Line, "invalid ADDR '" + Args[0].Raw + "' in .data16");
  DataChunk C{uint64_t(*Addr), {}, Line};
  C.Bytes.reserve(2 * (Args.size() - 1));
  for (const Token &A : Args.drop_front()) {
    std::optional<int64_t> V = text::parseInt(A.Text);
    if (!V || *V < std::numeric_limits<int16_t>::min() || *V > std::numeric_limits<int16_t>::max())
      return errorAt(Line, "value '" + A.Raw + "' in .data16 is not an int16");
    C.Bytes.push_back(uint8_t(uint16_t(*V)));
    C.Bytes.push_back(uint8_t(uint16_t(*V) >> 8));
  }
  if (C.Addr + C.Bytes.size() > Prog->Hw.dramBytes())
    return errorAt(Line, ".data16 ends beyond DRAM (" + Twine(Prog->Hw.DramMib) + " MiB)");
  Data16.push_back(std::move(C));
  return llvm::Error::success();
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
  Prog->Code.reserve(Code.size());
  for (const Inst &I : Code)
    Prog->Code.push_back(cantFail(encode(I))); // Checked in resolveAndCheck().
  return finishData();
}

llvm::Error Assembler::finishData() {
  if (DataLine && Base64Line && Base64Bytes.size() != DataSize)
    return errorAt(DataLine, ".data declares " + Twine(DataSize) +
                                 " bytes but the .base64 lines "
                                 "hold " +
                                 Twine(Base64Bytes.size()) + " (truncated listing?)");
  // Overlaps, found in one sorted sweep rather than pairwise: a listing may
  // hold many thousands of .data16 lines.
  struct Span {
    uint64_t Lo, Hi;
    unsigned Line;
    const char *What;
  };
  std::vector<Span> Spans;
  Spans.reserve(Data16.size() + 1);
  for (const DataChunk &C : Data16) {
    if (DataLine && (C.Addr < DataAddr || C.Addr + C.Bytes.size() > DataAddr + DataSize))
      return errorAt(C.Line, ".data16 lies outside the .data section (" + Twine(DataSize) +
                                 " bytes at " + text::hex(DataAddr) + ", line " + Twine(DataLine) +
                                 ")");
    Spans.push_back({C.Addr, C.Addr + C.Bytes.size(), C.Line, ".data16"});
  }
  if (Base64Line)
    Spans.push_back({DataAddr, DataAddr + DataSize, Base64Line, ".base64"});
  std::sort(Spans.begin(), Spans.end(), [](const Span &A, const Span &B) { return A.Lo < B.Lo; });
  const Span *Reach = nullptr; // The span ending furthest so far.
  for (const Span &S : Spans) {
    if (Reach && S.Lo < Reach->Hi && S.Lo < S.Hi) {
      const Span &Later = S.Line > Reach->Line ? S : *Reach;
      const Span &Earlier = S.Line > Reach->Line ? *Reach : S;
      return errorAt(Later.Line,
                     Twine(Later.What) + " overlaps the data from line " + Twine(Earlier.Line));
    }
    if (!Reach || S.Hi > Reach->Hi)
      Reach = &S;
  }

  if (!DataLine && Data16.empty())
    return llvm::Error::success();
  if (!DataLine) {
    // No .data: the image spans the .data16 blocks, gaps zero-filled.
    DataAddr = Spans.front().Lo;
    DataSize = 0;
    for (const Span &S : Spans)
      DataSize = std::max(DataSize, S.Hi - DataAddr);
  }
  Prog->DataAddr = DataAddr;
  if (Base64Line)
    Prog->Data = std::move(Base64Bytes);
  else
    Prog->Data.assign(DataSize, 0);
  for (const DataChunk &C : Data16)
    std::copy(C.Bytes.begin(), C.Bytes.end(), Prog->Data.begin() + (C.Addr - DataAddr));
  return llvm::Error::success();
}

} // namespace snow::isa
