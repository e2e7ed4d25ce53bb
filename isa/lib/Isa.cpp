//===- Isa.cpp - Opcode and field tables, encode, decode, disassemble -----===//
//
// The runtime side of Snow.td: the field and opcode tables are built at compile
// time from the generated X-macro lists, and encode/decode work field by field
// from those tables, so no bit position is written here by hand.
//
// Encode and decode are strict in both directions. Encode refuses a value
// that does not fit its field and a set field the opcode does not use (it
// would be silently dropped). Decode refuses unknown opcodes and set bits
// outside the opcode's fields, so a corrupted or misassembled program faults
// at load time instead of running something nearby.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Isa.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdio>
#include <initializer_list>
#include <iterator>

namespace snow::isa {

namespace {

constexpr FieldInfo Fields[] = {
#define SNOW_FIELD(NAME, LO, WIDTH, KIND, DOC) {#NAME, LO, WIDTH, FieldKind::KIND, DOC},
#include "snow/isa/IsaFields.inc"
};
static_assert(std::size(Fields) == size_t(FieldId::NumFields));

// The opcode byte (OpLo, OpWidth from IsaConstants.inc). Snow.td's emitter
// guarantees no field overlaps it.

// Operand lists of all instructions, concatenated in IsaOps.inc order. The
// trailing sentinel keeps the array non-empty whatever Snow.td says.
namespace operands {
using enum FieldId;
constexpr FieldId Pool[] = {
#define SNOW_OP(ENUM, MNEMONIC, OPCODE, UNIT, DOC, ...) __VA_ARGS__ __VA_OPT__(, )
#include "snow/isa/IsaOps.inc"
    NumFields};
constexpr size_t Count[] = {
#define SNOW_OP(ENUM, MNEMONIC, OPCODE, UNIT, DOC, ...)                                            \
  std::initializer_list<FieldId>{__VA_ARGS__}.size(),
#include "snow/isa/IsaOps.inc"
};
} // namespace operands

struct OpRow {
  Opcode Op;
  const char *Mnemonic;
  Unit U;
  const char *Doc;
};
constexpr OpRow OpRows[] = {
#define SNOW_OP(ENUM, MNEMONIC, OPCODE, UNIT, DOC, ...) {Opcode::ENUM, MNEMONIC, Unit::UNIT, DOC},
#include "snow/isa/IsaOps.inc"
};
constexpr size_t NumOps = std::size(OpRows);

constexpr std::array<OpInfo, NumOps> buildOps() {
  std::array<OpInfo, NumOps> R{};
  size_t Offset = 0;
  for (size_t I = 0; I < NumOps; ++I) {
    R[I] = OpInfo{OpRows[I].Op, OpRows[I].Mnemonic, OpRows[I].U,
                  std::span<const FieldId>(operands::Pool + Offset, operands::Count[I]),
                  OpRows[I].Doc};
    Offset += operands::Count[I];
  }
  return R;
}
constexpr std::array<OpInfo, NumOps> Ops = buildOps();

/// Index into Ops for each opcode byte, -1 where there is none.
constexpr std::array<int16_t, 256> buildOpIndex() {
  std::array<int16_t, 256> R{};
  R.fill(-1);
  for (size_t I = 0; I < NumOps; ++I)
    R[uint8_t(Ops[I].Op)] = int16_t(I);
  return R;
}
constexpr std::array<int16_t, 256> OpIndex = buildOpIndex();

/// For each entry of Ops, the fields its operands use, a bit each: encode
/// checks every field of every instruction (a scan of the operand list per
/// field was 10 % of a --tune search, 2026-12-02).
static_assert(size_t(FieldId::NumFields) <= 64, "a field mask is 64 bits");
constexpr std::array<uint64_t, NumOps> buildUsedFields() {
  std::array<uint64_t, NumOps> R{};
  for (size_t I = 0; I < NumOps; ++I)
    for (FieldId F : Ops[I].Operands)
      R[I] |= uint64_t(1) << unsigned(F);
  return R;
}
constexpr std::array<uint64_t, NumOps> UsedFields = buildUsedFields();

constexpr uint64_t lowMask(unsigned Width) {
  return Width >= 64 ? ~uint64_t(0) : (uint64_t(1) << Width) - 1;
}

// Fields are read and written in pieces that stay within one 64-bit word, so
// a field straddling bit 64 needs no special case.
uint64_t getBits(const Word128 &W, unsigned Lo, unsigned Width) {
  uint64_t R = 0;
  for (unsigned Done = 0; Done < Width;) {
    unsigned Bit = Lo + Done, Off = Bit % 64;
    unsigned N = std::min(Width - Done, 64 - Off);
    uint64_t Word = Bit < 64 ? W.Lo : W.Hi;
    R |= ((Word >> Off) & lowMask(N)) << Done;
    Done += N;
  }
  return R;
}

void setBits(Word128 &W, unsigned Lo, unsigned Width, uint64_t V) {
  for (unsigned Done = 0; Done < Width;) {
    unsigned Bit = Lo + Done, Off = Bit % 64;
    unsigned N = std::min(Width - Done, 64 - Off);
    uint64_t &Word = Bit < 64 ? W.Lo : W.Hi;
    Word = (Word & ~(lowMask(N) << Off)) | (((V >> Done) & lowMask(N)) << Off);
    Done += N;
  }
}

std::string hexByte(unsigned V) {
  char Buf[8];
  std::snprintf(Buf, sizeof(Buf), "0x%02x", V & 0xff);
  return Buf;
}

llvm::Error error(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

} // namespace

const char *unitName(Unit U) {
  switch (U) {
  case Unit::Ctrl:
    return "ctrl";
  case Unit::Load:
    return "load";
  case Unit::Compute:
    return "compute";
  case Unit::Store:
    return "store";
  }
  return "?";
}

const FieldInfo &fieldInfo(FieldId F) {
  assert(F < FieldId::NumFields && "not a field");
  return Fields[size_t(F)];
}

const OpInfo *opInfo(uint8_t Opcode) {
  int16_t I = OpIndex[Opcode];
  return I < 0 ? nullptr : &Ops[I];
}

const OpInfo &opInfo(Opcode Op) {
  const OpInfo *Info = opInfo(uint8_t(Op));
  assert(Info && "Opcode value that is not in Snow.td");
  return *Info;
}

std::span<const OpInfo> allOps() { return Ops; }

int64_t Inst::get(FieldId F) const {
  switch (F) {
#define SNOW_FIELD(NAME, LO, WIDTH, KIND, DOC)                                                     \
  case FieldId::NAME:                                                                              \
    return NAME;
#include "snow/isa/IsaFields.inc"
  case FieldId::NumFields:
    break;
  }
  assert(false && "not a field");
  return 0;
}

void Inst::set(FieldId F, int64_t V) {
  switch (F) {
#define SNOW_FIELD(NAME, LO, WIDTH, KIND, DOC)                                                     \
  case FieldId::NAME:                                                                              \
    NAME = V;                                                                                      \
    return;
#include "snow/isa/IsaFields.inc"
  case FieldId::NumFields:
    break;
  }
  assert(false && "not a field");
}

namespace {

/// Whether V fits a field of Kind and Width: the one rule encode applies
/// (putField, with the field's kind and width known at compile time) and
/// explains (encodeError).
constexpr bool fits(FieldKind Kind, unsigned Width, int64_t V) {
  switch (Kind) {
  case FieldKind::Reg:
    return V >= 0 && V < int64_t(NumRegs);
  case FieldKind::UImm:
    return V >= 0 && uint64_t(V) <= lowMask(Width);
  case FieldKind::SImm:
    return V >= -int64_t(lowMask(Width - 1)) - 1 && V <= int64_t(lowMask(Width - 1));
  }
  return false;
}

/// Field value V at bits [Lo, Lo + Width) of W if it fits the field (a
/// field the opcode does not use must be 0).
template <unsigned Lo, unsigned Width, FieldKind Kind>
bool putField(Word128 &W, bool Used, int64_t V) {
  if (!Used)
    return V == 0;
  if (!fits(Kind, Width, V))
    return false;
  if constexpr (Lo / 64 == (Lo + Width - 1) / 64) {
    uint64_t &Word = Lo < 64 ? W.Lo : W.Hi;
    constexpr unsigned Off = Lo % 64;
    Word = (Word & ~(lowMask(Width) << Off)) | ((uint64_t(V) & lowMask(Width)) << Off);
  } else {
    setBits(W, Lo, Width, uint64_t(V));
  }
  return true;
}

/// Why encode refused I: the first field that does not fit, named.
llvm::Error encodeError(const Inst &I, const OpInfo &Info, uint64_t Used) {
  for (unsigned FI = 0; FI < unsigned(FieldId::NumFields); ++FI) {
    const FieldInfo &FInfo = Fields[FI];
    const int64_t V = I.get(FieldId(FI));
    auto Where = [&] {
      return std::string("field '") + FInfo.Name + "' of '" + Info.Mnemonic + "'";
    };
    if (!(Used >> FI & 1)) {
      if (V != 0)
        return error(Where() + ": the instruction has no such operand, but the value is " +
                     llvm::Twine(V) + " (must be 0)");
      continue;
    }
    if (fits(FInfo.Kind, FInfo.Width, V))
      continue;
    if (FInfo.Kind == FieldKind::Reg)
      return error(Where() + ": register " + llvm::Twine(V) + " does not exist (r0..r" +
                   llvm::Twine(NumRegs - 1) + ")");
    return error(Where() + ": value " + llvm::Twine(V) + " does not fit in " +
                 llvm::Twine(FInfo.Width) +
                 (FInfo.Kind == FieldKind::SImm ? " signed bits" : " unsigned bits"));
  }
  llvm_unreachable("encodeError called for an instruction that encodes");
}

} // namespace

llvm::Expected<Word128> encode(const Inst &I) {
  const OpInfo *Info = opInfo(uint8_t(I.Op));
  if (!Info)
    return error("cannot encode unknown opcode " + hexByte(uint8_t(I.Op)));

  // encode runs once per instruction of every program a --tune search
  // compiles: each field is written straight from its member, the
  // message built only on failure (a loop over the field table was 19 %
  // of SqueezeNet's search, 2026-12-02).
  const uint64_t Used = UsedFields[size_t(Info - Ops.data())];
  Word128 W;
  setBits(W, OpLo, OpWidth, uint8_t(I.Op));
  bool Ok = true;
#define SNOW_FIELD(NAME, LO, WIDTH, KIND, DOC)                                                     \
  Ok &= putField<LO, WIDTH, FieldKind::KIND>(W, Used >> unsigned(FieldId::NAME) & 1, I.NAME);
#include "snow/isa/IsaFields.inc"
  if (!Ok)
    return encodeError(I, *Info, Used);
  return W;
}

llvm::Expected<Inst> decode(Word128 W) {
  uint8_t Code = uint8_t(getBits(W, OpLo, OpWidth));
  const OpInfo *Info = opInfo(Code);
  if (!Info)
    return error("unknown opcode " + hexByte(Code));

  Inst I;
  I.Op = Info->Op;
  Word128 Used;
  setBits(Used, OpLo, OpWidth, lowMask(OpWidth));
  for (FieldId F : Info->Operands) {
    const FieldInfo &FInfo = fieldInfo(F);
    uint64_t Raw = getBits(W, FInfo.Lo, FInfo.Width);
    int64_t V = int64_t(Raw);
    if (FInfo.Kind == FieldKind::SImm && (Raw >> (FInfo.Width - 1)) & 1)
      V = int64_t(Raw | ~lowMask(FInfo.Width));
    I.set(F, V);
    setBits(Used, FInfo.Lo, FInfo.Width, lowMask(FInfo.Width));
  }

  uint64_t StrayLo = W.Lo & ~Used.Lo, StrayHi = W.Hi & ~Used.Hi;
  if (StrayLo || StrayHi) {
    unsigned Bit = StrayLo ? __builtin_ctzll(StrayLo) : 64 + __builtin_ctzll(StrayHi);
    return error(std::string("stray bits in '") + Info->Mnemonic + "' instruction (bit " +
                 std::to_string(Bit) + " is set but belongs to no field)");
  }
  return I;
}

std::string disassemble(const Inst &I) {
  const OpInfo *Info = opInfo(uint8_t(I.Op));
  if (!Info)
    return "<unknown opcode " + hexByte(uint8_t(I.Op)) + ">";
  std::string S = Info->Mnemonic;
  const char *Sep = " ";
  for (FieldId F : Info->Operands) {
    const FieldInfo &FInfo = fieldInfo(F);
    S += Sep;
    Sep = ", ";
    if (FInfo.Kind == FieldKind::Reg)
      S += "r" + std::to_string(I.get(F));
    else
      S += std::string(FInfo.Name) + "=" + std::to_string(I.get(F));
  }
  return S;
}

} // namespace snow::isa
