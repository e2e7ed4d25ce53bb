//===- SnowIsaEmitter.cpp - snow-tblgen: tables generated from Snow.td ----===//
//
// Our own TableGen backend. It reads isa/Snow.td (Field and Inst records),
// checks that the description is a consistent instruction set, and writes one
// of five views of it:
//
//   --gen-fields  IsaFields.inc     X-macro list of fields for the C++ library
//   --gen-ops     IsaOps.inc        X-macro list of instructions
//   --gen-consts  IsaConstants.inc  X-macro list of machine constants (Const)
//   --gen-sv      snow_isa_pkg.sv   SystemVerilog package for rtl/
//   --gen-doc     isa-table.md      the reference tables spliced into docs/isa.md
//
// All five come from the same validated model, so the encoder, the simulator,
// the RTL and the manual cannot disagree about an opcode, a bit position or a
// machine constant such as the semaphore count. Records are kept
// in definition order (by record ID), not the name order RecordKeeper returns,
// because the order of fields and instructions is visible in every output.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace llvm;

namespace {

enum class Action { GenFields, GenOps, GenConsts, GenSv, GenDoc };

cl::opt<Action> TheAction(
    cl::desc("Output to generate:"),
    cl::values(clEnumValN(Action::GenFields, "gen-fields",
                          "C++ field X-macro list (IsaFields.inc)"),
               clEnumValN(Action::GenOps, "gen-ops", "C++ instruction X-macro list (IsaOps.inc)"),
               clEnumValN(Action::GenConsts, "gen-consts",
                          "C++ machine-constant X-macro list (IsaConstants.inc)"),
               clEnumValN(Action::GenSv, "gen-sv", "SystemVerilog package (snow_isa_pkg.sv)"),
               clEnumValN(Action::GenDoc, "gen-doc", "Markdown reference tables (isa-table.md)")),
    cl::Required);

// The opcode occupies bits [7:0] of every instruction. It is described in
// Snow.td as the field named "op" so the docs can show it, but it is not an
// operand and is left out of the generated field list.
constexpr const char *OpFieldName = "op";
constexpr int64_t OpLo = 0, OpWidth = 8;
// Inst stores every field in an int64_t; wider fields could not round-trip.
constexpr int64_t MaxFieldWidth = 63;
// The constants the checks below need; Snow.td must define them (as Const).
constexpr const char *InstBitsName = "InstBits", *NumRegsName = "NumRegs",
                     *NumSemaphoresName = "NumSemaphores";

struct FieldDesc {
  const Record *Rec;
  std::string Name;
  int64_t Lo, Width;
  std::string Kind; ///< "reg", "uimm" or "simm", as written in Snow.td.
  std::string Doc;
  int64_t hi() const { return Lo + Width - 1; }
};

struct InstDesc {
  const Record *Rec;
  std::string Enum; ///< The record name, e.g. SYNC_LD_WAIT.
  std::string Mnemonic;
  int64_t Opcode;
  std::string Unit; ///< "ctrl", "load", "compute" or "store".
  std::vector<const FieldDesc *> Operands;
  std::string Doc;
};

struct ConstDesc {
  const Record *Rec;
  std::string Name; ///< CamelCase, e.g. NumSemaphores.
  int64_t Value;
  std::string Doc;
};

struct IsaModel {
  std::vector<ConstDesc> Consts;
  int64_t InstBits = 0, NumRegs = 0, NumSemaphores = 0;
  FieldDesc OpField;
  std::vector<FieldDesc> Fields; ///< Without the opcode field.
  std::vector<InstDesc> Insts;
};

const char *const UnitNames[] = {"ctrl", "load", "compute", "store"};

std::vector<Record *> defsInOrder(RecordKeeper &Records, StringRef Class) {
  std::vector<Record *> Defs = Records.getAllDerivedDefinitions(Class);
  llvm::sort(Defs, [](const Record *A, const Record *B) { return A->getID() < B->getID(); });
  return Defs;
}

bool isIdentifier(StringRef S) {
  if (S.empty() || !(isAlpha(S[0]) || S[0] == '_'))
    return false;
  return llvm::all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
}

bool isLowerAscii(char C) { return C >= 'a' && C <= 'z'; }

/// A constant's name: CamelCase letters and digits, so that its SystemVerilog
/// spelling (upperSnake) is unambiguous.
bool isCamelCase(StringRef S) {
  return !S.empty() && S[0] >= 'A' && S[0] <= 'Z' && llvm::all_of(S, isAlnum);
}

/// NumSemaphores -> NUM_SEMAPHORES, the SystemVerilog localparam name.
std::string upperSnake(StringRef S) {
  std::string R;
  for (size_t I = 0; I < S.size(); ++I) {
    if (I && S[I] >= 'A' && S[I] <= 'Z')
      R += '_';
    R += toUpper(S[I]);
  }
  return R;
}

bool isMnemonic(StringRef S) {
  if (S.empty() || !isLowerAscii(S[0]))
    return false;
  return llvm::all_of(S, [](char C) { return isLowerAscii(C) || isDigit(C) || C == '.'; });
}

/// Two lower-case hex digits, no prefix.
std::string hex2(int64_t V) {
  const char *Digits = "0123456789abcdef";
  return {Digits[(V >> 4) & 15], Digits[V & 15]};
}

int unitIndex(StringRef U) {
  for (int I = 0; I < 4; ++I)
    if (U == UnitNames[I])
      return I;
  return -1;
}

/// Reads and checks Snow.td. Reports every problem it finds (so one run shows
/// them all) and returns true if there was any.
bool buildModel(RecordKeeper &Records, IsaModel &M) {
  bool Failed = false;
  auto fail = [&](const Record *R, const Twine &Msg) {
    PrintError(R, Msg);
    Failed = true;
  };

  StringMap<const Record *> ConstNames;
  for (const Record *R : defsInOrder(Records, "Const")) {
    ConstDesc C{R, R->getValueAsString("Name").str(), R->getValueAsInt("Value"),
                R->getValueAsString("Doc").str()};
    if (!isCamelCase(C.Name))
      fail(R, "constant name '" + C.Name + "' must be CamelCase letters and digits");
    if (!ConstNames.try_emplace(C.Name, R).second)
      fail(R, "duplicate constant '" + C.Name + "' (also " + ConstNames[C.Name]->getName() + ")");
    if (C.Value < 0 || C.Value > UINT32_MAX)
      fail(R, "constant '" + C.Name + "' is " + Twine(C.Value) + "; expected 0..2^32-1");
    if (C.Name == InstBitsName)
      M.InstBits = C.Value;
    else if (C.Name == NumRegsName)
      M.NumRegs = C.Value;
    else if (C.Name == NumSemaphoresName)
      M.NumSemaphores = C.Value;
    M.Consts.push_back(std::move(C));
  }
  for (const char *Needed : {InstBitsName, NumRegsName, NumSemaphoresName})
    if (!ConstNames.count(Needed)) {
      PrintError(Twine("Snow.td defines no Const named '") + Needed + "'");
      Failed = true;
    }
  if (M.InstBits != 2 * 64) {
    // Word128 (isa/include/snow/isa/Word.h) holds an instruction as two 64-bit words.
    PrintError("InstBits must be two 64-bit words: instructions are stored as a Word128");
    Failed = true;
  }
  if (Failed)
    return true;
  const int64_t InstBits = M.InstBits, NumRegs = M.NumRegs;

  bool SawOp = false;
  StringMap<const Record *> FieldNames;
  for (const Record *R : defsInOrder(Records, "Field")) {
    FieldDesc F{R,
                R->getValueAsString("Name").str(),
                R->getValueAsInt("Lo"),
                R->getValueAsInt("Width"),
                R->getValueAsString("Kind").str(),
                R->getValueAsString("Doc").str()};
    if (!isIdentifier(F.Name))
      fail(R, "field name '" + F.Name + "' is not a C identifier");
    if (!FieldNames.try_emplace(F.Name, R).second)
      fail(R, "duplicate field name '" + F.Name + "' (also " + FieldNames[F.Name]->getName() + ")");
    if (F.Kind != "reg" && F.Kind != "uimm" && F.Kind != "simm")
      fail(R, "field '" + F.Name + "' has kind '" + F.Kind + "'; expected reg, uimm or simm");
    if (F.Width < 1 || F.Width > MaxFieldWidth)
      fail(R, "field '" + F.Name + "' has width " + Twine(F.Width) + "; expected 1.." +
                  Twine(MaxFieldWidth));
    if (F.Lo < 0 || F.Lo + F.Width > InstBits)
      fail(R, "field '" + F.Name + "' [" + Twine(F.hi()) + ":" + Twine(F.Lo) +
                  "] lies outside the " + Twine(InstBits) + "-bit instruction");
    if (F.Kind == "reg" && F.Width < 64 && (int64_t(1) << F.Width) < NumRegs)
      fail(R, "register field '" + F.Name + "' is too narrow for " + Twine(NumRegs) + " registers");
    if (F.Name == "idx" && F.Width < 64 && (int64_t(1) << F.Width) < M.NumSemaphores)
      fail(R, "field 'idx' is too narrow to name " + Twine(M.NumSemaphores) + " semaphores");
    if (F.Name == OpFieldName) {
      if (F.Lo != OpLo || F.Width != OpWidth || F.Kind != "uimm")
        fail(R, "the opcode field 'op' must be a uimm at bits [7:0]");
      M.OpField = F;
      SawOp = true;
      continue;
    }
    M.Fields.push_back(F);
  }
  if (!SawOp) {
    PrintError("Snow.td defines no Field named 'op' (the opcode at bits [7:0])");
    Failed = true;
  }

  // Instructions hold pointers into M.Fields; it must not grow from here on.
  auto findField = [&](const Record *R) -> const FieldDesc * {
    for (const FieldDesc &F : M.Fields)
      if (F.Rec == R)
        return &F;
    return nullptr;
  };

  std::vector<const Record *> ByOpcode(256, nullptr);
  StringMap<const Record *> Mnemonics;
  for (const Record *R : defsInOrder(Records, "Inst")) {
    InstDesc I{R,
               R->getName().str(),
               R->getValueAsString("Mnemonic").str(),
               R->getValueAsInt("Opcode"),
               R->getValueAsString("Unit").str(),
               {},
               R->getValueAsString("Doc").str()};
    if (!isIdentifier(I.Enum))
      fail(R, "instruction record name '" + I.Enum + "' is not a C identifier");
    if (!isMnemonic(I.Mnemonic))
      fail(R, "mnemonic '" + I.Mnemonic + "' must be lower-case letters, digits and '.'");
    if (!Mnemonics.try_emplace(I.Mnemonic, R).second)
      fail(R, "duplicate mnemonic '" + I.Mnemonic + "' (also " + Mnemonics[I.Mnemonic]->getName() +
                  ")");
    if (I.Opcode == 0)
      fail(R, "opcode 0x00 is reserved as invalid, so that zeroed memory faults");
    else if (I.Opcode < 0 || I.Opcode > 255)
      fail(R, "opcode " + Twine(I.Opcode) + " does not fit in 8 bits");
    else if (ByOpcode[I.Opcode])
      fail(R, "duplicate opcode 0x" + hex2(I.Opcode) + " (also " + ByOpcode[I.Opcode]->getName() +
                  ")");
    else
      ByOpcode[I.Opcode] = R;
    if (unitIndex(I.Unit) < 0)
      fail(R, "unit '" + I.Unit + "' is not one of ctrl, load, compute, store");

    // Bits taken so far in this instruction, and by which field: the opcode
    // byte first, then each operand in order.
    std::vector<std::string> Owner(InstBits);
    for (int64_t B = OpLo; B < OpLo + OpWidth; ++B)
      Owner[B] = "the opcode";
    for (const Record *FR : R->getValueAsListOfDefs("Operands")) {
      const FieldDesc *F = findField(FR);
      if (!F) {
        fail(R, "operand " + FR->getName() + " of '" + I.Mnemonic +
                    "' is the opcode field or not a valid Field");
        continue;
      }
      if (F->Lo < 0 || F->Lo + F->Width > InstBits)
        continue; // Already reported on the field.
      if (llvm::is_contained(I.Operands, F)) {
        fail(R, "'" + I.Mnemonic + "' lists field '" + F->Name + "' twice");
        continue;
      }
      for (int64_t B = F->Lo; B <= F->hi(); ++B) {
        if (!Owner[B].empty()) {
          fail(R, "field '" + F->Name + "' of '" + I.Mnemonic + "' overlaps " + Owner[B] +
                      " at bit " + Twine(B));
          break;
        }
      }
      for (int64_t B = F->Lo; B <= F->hi(); ++B)
        if (Owner[B].empty())
          Owner[B] = "field '" + F->Name + "'";
      I.Operands.push_back(F);
    }
    M.Insts.push_back(std::move(I));
  }
  return Failed;
}

/// A C string literal body: escapes quotes and backslashes.
std::string cEscape(StringRef S) {
  std::string R;
  for (char C : S) {
    if (C == '"' || C == '\\')
      R += '\\';
    R += C;
  }
  return R;
}

/// Markdown table cell text: characters that would end the cell or start
/// emphasis are escaped.
std::string mdEscape(StringRef S) {
  std::string R;
  for (char C : S) {
    if (C == '|' || C == '*' || C == '_' || C == '\\' || C == '`')
      R += '\\';
    R += C;
  }
  return R;
}

std::string kindToken(StringRef Kind) {
  if (Kind == "reg")
    return "Reg";
  return Kind == "uimm" ? "UImm" : "SImm";
}

std::string unitToken(StringRef Unit) {
  std::string S = Unit.str();
  S[0] = toUpper(S[0]);
  return S;
}

void emitBanner(raw_ostream &OS, StringRef Comment, StringRef What) {
  OS << Comment << " " << What << "\n"
     << Comment << " Generated by snow-tblgen from isa/Snow.td. Do not edit: change Snow.td.\n";
}

void emitFields(const IsaModel &M, raw_ostream &OS) {
  emitBanner(OS, "//", "IsaFields.inc - the fields of the vMAC ISA (opcode excluded).");
  OS << "#ifndef SNOW_FIELD\n"
     << "#error \"define SNOW_FIELD(NAME, LO, WIDTH, KIND, DOC) before including IsaFields.inc\"\n"
     << "#endif\n";
  for (const FieldDesc &F : M.Fields)
    OS << "SNOW_FIELD(" << F.Name << ", " << F.Lo << ", " << F.Width << ", " << kindToken(F.Kind)
       << ", \"" << cEscape(F.Doc) << "\")\n";
  OS << "#undef SNOW_FIELD\n";
}

void emitOps(const IsaModel &M, raw_ostream &OS) {
  emitBanner(OS, "//", "IsaOps.inc - the instructions of the vMAC ISA.");
  OS << "#ifndef SNOW_OP\n"
     << "#error \"define SNOW_OP(ENUM, MNEMONIC, OPCODE, UNIT, DOC, OPERANDS...) before including "
        "IsaOps.inc\"\n"
     << "#endif\n";
  for (const InstDesc &I : M.Insts) {
    OS << "SNOW_OP(" << I.Enum << ", \"" << cEscape(I.Mnemonic) << "\", 0x" << hex2(I.Opcode)
       << ", " << unitToken(I.Unit) << ", \"" << cEscape(I.Doc) << "\"";
    for (const FieldDesc *F : I.Operands)
      OS << ", " << F->Name;
    OS << ")\n";
  }
  OS << "#undef SNOW_OP\n";
}

void emitConsts(const IsaModel &M, raw_ostream &OS) {
  emitBanner(OS, "//", "IsaConstants.inc - machine constants of the vMAC ISA.");
  OS << "#ifndef SNOW_CONST\n"
     << "#error \"define SNOW_CONST(NAME, VALUE, DOC) before including IsaConstants.inc\"\n"
     << "#endif\n";
  for (const ConstDesc &C : M.Consts)
    OS << "SNOW_CONST(" << C.Name << ", " << C.Value << ", \"" << cEscape(C.Doc) << "\")\n";
  // The opcode byte is a field of Snow.td, not a Const; its position is
  // exported here because the C++ field list leaves the opcode out.
  OS << "SNOW_CONST(OpLo, " << M.OpField.Lo << ", \"lowest bit of the opcode field\")\n"
     << "SNOW_CONST(OpWidth, " << M.OpField.Width << ", \"bits of the opcode field\")\n"
     << "#undef SNOW_CONST\n";
}

void emitSv(const IsaModel &M, raw_ostream &OS) {
  emitBanner(OS, "//", "snow_isa_pkg.sv - opcodes and field positions of the vMAC ISA.");
  OS << "// Bit positions count from bit 0 of the " << M.InstBits
     << "-bit instruction (Lo word first).\n\n"
     << "package snow_isa_pkg;\n\n"
     // A design uses only some of these constants; that is not a defect.
     << "  /* verilator lint_off UNUSEDPARAM */\n\n"
     << "  // Machine constants (Const records of Snow.td).\n";
  for (const ConstDesc &C : M.Consts)
    OS << "  localparam int unsigned " << upperSnake(C.Name) << " = " << C.Value << "; // " << C.Doc
       << "\n";
  OS << "\n  // Units: the queue an instruction is issued to.\n";
  for (int U = 0; U < 4; ++U)
    OS << "  localparam logic [1:0] UNIT_" << StringRef(UnitNames[U]).upper() << " = 2'd" << U
       << ";\n";

  OS << "\n  // Fields: [F_X_LO +: F_X_W]. Kinds: reg (register number), uimm, simm.\n";
  auto emitField = [&](const FieldDesc &F) {
    std::string N = StringRef(F.Name).upper();
    OS << "  localparam int unsigned F_" << N << "_LO = " << F.Lo << ";\n"
       << "  localparam int unsigned F_" << N << "_W = " << F.Width << "; // " << F.Kind << ": "
       << F.Doc << "\n";
  };
  emitField(M.OpField);
  for (const FieldDesc &F : M.Fields)
    emitField(F);

  OS << "\n  // Opcodes.\n";
  for (const InstDesc &I : M.Insts)
    OS << "  localparam logic [7:0] OP_" << I.Enum << " = 8'h" << hex2(I.Opcode) << "; // "
       << I.Mnemonic << "\n";

  // The decoder uses these so that an opcode added to Snow.td needs no RTL
  // edit to be recognised and routed.
  OS << "\n  // 1 if Op is a defined opcode.\n"
     << "  function automatic logic op_valid(input logic [7:0] op);\n"
     << "    case (op)\n";
  for (const InstDesc &I : M.Insts)
    OS << "      OP_" << I.Enum << ": return 1'b1;\n";
  OS << "      default: return 1'b0;\n"
     << "    endcase\n"
     << "  endfunction\n\n"
     << "  // The unit whose queue executes Op (UNIT_CTRL for undefined opcodes).\n"
     << "  function automatic logic [1:0] op_unit(input logic [7:0] op);\n"
     << "    case (op)\n";
  for (const InstDesc &I : M.Insts)
    OS << "      OP_" << I.Enum << ": return UNIT_" << StringRef(I.Unit).upper() << ";\n";
  OS << "      default: return UNIT_CTRL;\n"
     << "    endcase\n"
     << "  endfunction\n\n"
     << "  /* verilator lint_on UNUSEDPARAM */\n\n"
     << "endpackage\n";
}

/// How an operand is written in assembly: registers positionally, immediates
/// by name with their kind and width, e.g. "rows=u12".
std::string asmOperand(const FieldDesc &F) {
  if (F.Kind == "reg")
    return F.Name;
  return F.Name + "=" + (F.Kind == "simm" ? "s" : "u") + std::to_string(F.Width);
}

void emitDoc(const IsaModel &M, raw_ostream &OS) {
  OS << "<!-- Generated by snow-tblgen from isa/Snow.td. Do not edit: change Snow.td. -->\n\n"
     << "### Constants\n\n"
     << "The numbers every implementation of the ISA shares. C++ reads them as "
        "`snow::isa::Name` (IsaConstants.inc), SystemVerilog as `snow_isa_pkg::NAME` in "
        "upper snake case, scripts from the JSON `snowhw` prints.\n\n"
     << "| Constant | Value | Meaning |\n"
     << "|---|---|---|\n";
  for (const ConstDesc &C : M.Consts)
    OS << "| `" << C.Name << "` | " << C.Value << " | " << mdEscape(C.Doc) << " |\n";
  OS << "\n### Instructions\n\n"
     << "Operands: registers are positional (`rN`); immediates are written `name=value`, shown "
        "here as `name=u<bits>` (unsigned) or `name=s<bits>` (signed).\n\n"
     << "| Mnemonic | Opcode | Unit | Operands | Semantics |\n"
     << "|---|---|---|---|---|\n";
  for (const InstDesc &I : M.Insts) {
    std::string Ops;
    for (const FieldDesc *F : I.Operands)
      Ops += (Ops.empty() ? "" : ", ") + asmOperand(*F);
    OS << "| `" << I.Mnemonic << "` | 0x" << hex2(I.Opcode) << " | " << I.Unit << " | "
       << (Ops.empty() ? std::string("—") : "`" + Ops + "`") << " | " << mdEscape(I.Doc) << " |\n";
  }

  OS << "\n### Fields\n\n"
     << "Every field has the same bit range in every instruction that uses it; bit 0 is the "
        "least significant bit of the first 64-bit word.\n\n"
     << "| Field | Bits | Kind | Meaning |\n"
     << "|---|---|---|---|\n";
  auto emitField = [&](const FieldDesc &F) {
    OS << "| `" << F.Name << "` | " << F.hi() << ":" << F.Lo << " | " << F.Kind << " | "
       << mdEscape(F.Doc) << " |\n";
  };
  emitField(M.OpField);
  for (const FieldDesc &F : M.Fields)
    emitField(F);
}

bool snowIsaMain(raw_ostream &OS, RecordKeeper &Records) {
  IsaModel M;
  if (buildModel(Records, M))
    return true;
  switch (TheAction) {
  case Action::GenFields:
    emitFields(M, OS);
    break;
  case Action::GenOps:
    emitOps(M, OS);
    break;
  case Action::GenConsts:
    emitConsts(M, OS);
    break;
  case Action::GenSv:
    emitSv(M, OS);
    break;
  case Action::GenDoc:
    emitDoc(M, OS);
    break;
  }
  return false;
}

} // namespace

int main(int Argc, char **Argv) {
  cl::ParseCommandLineOptions(Argc, Argv, "snow-tblgen: tables for the vMAC ISA from Snow.td\n");
  llvm_shutdown_obj Shutdown;
  return TableGenMain(Argv[0], &snowIsaMain);
}
