//===- EncodingTest.cpp - Byte-exact encodings and encode/decode errors ---===//
//
// Pins the encoding of every instruction in Snow.td. The expected words were
// worked out from the bit positions in Snow.td, not produced by encode(), so a
// change to a field position or opcode shows up here as a diff someone has to
// approve. A test fails if an instruction is added without a golden entry.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Asm.h"
#include "snow/isa/Isa.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace snow::isa;

namespace {

struct Golden {
  const char *Asm;
  uint64_t Lo, Hi;
};

// Operand values are chosen to touch both ends of fields: all-ones fields
// (ld.map), negative immediates, the word boundary at bit 64.
const Golden Goldens[] = {
    {"halt", 0x0000000000000001, 0x0000000000000000},
    {"nop", 0x0000000000000002, 0x0000000000000000},
    {"li r5, imm=-2", 0xfffffffe00000503, 0x0000000000000000},
    {"add r1, r2, r3", 0x00000000000c4110, 0x0000000000000000},
    {"sub r31, r30, r29", 0x000000000077df11, 0x0000000000000000},
    {"mul r4, r5, r6", 0x000000000018a412, 0x0000000000000000},
    {"and r7, r8, r9", 0x0000000000250713, 0x0000000000000000},
    {"or r10, r11, r12", 0x0000000000316a14, 0x0000000000000000},
    {"xor r13, r14, r15", 0x00000000003dcd15, 0x0000000000000000},
    {"sll r16, r17, r18", 0x00000000004a3016, 0x0000000000000000},
    {"srl r19, r20, r21", 0x0000000000569317, 0x0000000000000000},
    {"sra r22, r23, r24", 0x000000000062f618, 0x0000000000000000},
    {"slt r25, r26, r27", 0x00000000006f5919, 0x0000000000000000},
    {"addi r1, r2, imm=2147483647", 0x7fffffff00004120, 0x0000000000000000},
    {"muli r3, r4, imm=-2147483648", 0x8000000000008321, 0x0000000000000000},
    {"andi r5, r6, imm=0xff", 0x000000ff0000c522, 0x0000000000000000},
    {"slli r7, r8, imm=31", 0x0000001f00010723, 0x0000000000000000},
    {"srli r9, r10, imm=1", 0x0000000100014924, 0x0000000000000000},
    {"srai r11, r12, imm=-1", 0xffffffff00018b25, 0x0000000000000000},
    {"beq r1, r2, imm=-3", 0xfffffffd00082028, 0x0000000000000000},
    {"bne r3, r4, imm=5", 0x0000000500106029, 0x0000000000000000},
    {"blt r5, r6, imm=0", 0x000000000018a02a, 0x0000000000000000},
    {"bge r7, r0, imm=100", 0x000000640000e02b, 0x0000000000000000},
    {"ld.map r1, r2, rows=4095, len=65535, dstride=-64, bstride=1048575, mask=0xffff",
     0xffffffc000082040, 0xffffffffffffffff},
    {"ld.wgt r3, r4, idx=15, rows=3, len=9, dstride=288, bstride=9, mask=0x5", 0x00000120f0106041,
     0x0005000090009003},
    {"fill r6, rows=10, len=20, bstride=30, value=-1, mask=1", 0x00ffff0000180042,
     0x00010001e001400a},
    {"st.map r7, r8, idx=3, rows=24, len=48, dstride=1536, bstride=64", 0x000006003020e048,
     0x0000000400030018},
    {"vbias r9, shift=63", 0x0000003f04800050, 0x0000000000000000},
    {"vmac r5, r6, r7, rows=3, len=192, bstride=1088, init=1", 0x000000800398a051,
     0x00000044000c0003},
    // vmacp: as the vmac above with op 0x57, cstride=20 [59:40], pix=2 [63:60].
    {"vmacp r5, r6, r7, rows=3, len=192, bstride=1088, cstride=20, pix=2, init=1",
     0x200014800398a057, 0x00000044000c0003},
    {"vwb r1, r2, rows=128, bstride=16, shift=10, relu=1", 0x0000004a00082052, 0x0000000100000080},
    // vwb's lut flag is bit 39 (0x80 in the upper 32 bits' byte 1).
    {"vwb r1, r2, rows=128, bstride=16, shift=10, relu=0, lut=1", 0x0000008a00082052,
     0x0000000100000080},
    // vlut: op 0x59, rs3=5 [27:23].
    {"vlut r5", 0x0000000002800059, 0x0000000000000000},
    // vdw: op 0x56, rs1=4 [17:13], rs2=6 [22:18], rs3=3 [27:23], init=1 [39],
    // cstride=64 [59:40]; rows=3 [75:64], len=3 [91:76], bstride=3712 [111:92].
    {"vdw r4, r6, r3, rows=3, len=3, bstride=3712, cstride=64, init=1", 0x0000408001988056,
     0x000000e800003003},
    // vpre: op 0x55, rs1=4 at [17:13], rs2=9 at [22:18], shift=15 at [37:32],
    // init=0 at [39]; rows=128 at [75:64], bstride=64 at [111:92].
    {"vpre r4, r9, rows=128, bstride=64, shift=15, init=0", 0x0000000f00248055, 0x0000000400000080},
    // vmul: op 0x5a, fields as vpre's without init.
    {"vmul r4, r9, rows=128, bstride=64, shift=15", 0x0000000f0024805a, 0x0000000400000080},
    {"vmax r3, r4, rows=2, len=2, bstride=56, cstride=16", 0x0000100000106053, 0x0000000380002002},
    {"vavg r5, r6, rows=7, len=7, bstride=112, cstride=16, mult=1337, shift=16", 0x000010100018a054,
     0x0539000700007007},
    {"mark imm=7", 0x0000000700000058, 0x0000000000000000},
    {"wait.ld idx=0", 0x0000000000000060, 0x0000000000000000},
    {"signal.ld idx=1", 0x0000000010000061, 0x0000000000000000},
    {"wait.ex idx=2", 0x0000000020000062, 0x0000000000000000},
    {"signal.ex idx=3", 0x0000000030000063, 0x0000000000000000},
    {"wait.st idx=14", 0x00000000e0000064, 0x0000000000000000},
    {"signal.st idx=15", 0x00000000f0000065, 0x0000000000000000},
};

Inst assembleOne(const std::string &Text) {
  llvm::Expected<std::vector<Inst>> Code = assemble(Text, "golden.s");
  if (!Code) {
    ADD_FAILURE() << llvm::toString(Code.takeError());
    return {};
  }
  EXPECT_EQ(Code->size(), 1u) << Text;
  return Code->empty() ? Inst{} : Code->front();
}

std::string errorText(llvm::Error E) { return llvm::toString(std::move(E)); }

template <typename T> std::string errorOf(llvm::Expected<T> V) {
  if (V)
    return "<no error>";
  return errorText(V.takeError());
}

TEST(Encoding, EveryGoldenEncodesByteExactly) {
  for (const Golden &G : Goldens) {
    SCOPED_TRACE(G.Asm);
    llvm::Expected<Word128> W = encode(assembleOne(G.Asm));
    ASSERT_TRUE(bool(W)) << llvm::toString(W.takeError());
    EXPECT_EQ(W->Lo, G.Lo) << std::hex << "got Lo 0x" << W->Lo;
    EXPECT_EQ(W->Hi, G.Hi) << std::hex << "got Hi 0x" << W->Hi;

    // The bytes in memory: Lo word first, each little-endian.
    uint8_t Bytes[InstBytes];
    storeWord(*W, Bytes);
    for (unsigned B = 0; B < 8; ++B) {
      EXPECT_EQ(Bytes[B], uint8_t(G.Lo >> (8 * B))) << "byte " << B;
      EXPECT_EQ(Bytes[8 + B], uint8_t(G.Hi >> (8 * B))) << "byte " << 8 + B;
    }
  }
}

TEST(Encoding, EveryGoldenDecodesBackToTheSameInstruction) {
  for (const Golden &G : Goldens) {
    SCOPED_TRACE(G.Asm);
    llvm::Expected<Inst> I = decode(Word128{G.Lo, G.Hi});
    ASSERT_TRUE(bool(I)) << llvm::toString(I.takeError());
    EXPECT_EQ(disassemble(*I), disassemble(assembleOne(G.Asm)));
  }
}

TEST(Encoding, EveryOpcodeHasAGoldenEntry) {
  std::set<unsigned> Covered;
  for (const Golden &G : Goldens)
    Covered.insert(unsigned(G.Lo & 0xff));
  for (const OpInfo &Info : allOps())
    EXPECT_TRUE(Covered.count(unsigned(Info.Op)))
        << "no golden encoding for '" << Info.Mnemonic << "': add one to Goldens";
  EXPECT_EQ(Covered.size(), allOps().size()) << "a golden entry for an opcode Snow.td lacks";
}

TEST(Tables, OpcodeZeroIsInvalidAndLookupsAgree) {
  EXPECT_EQ(opInfo(uint8_t(0)), nullptr);
  EXPECT_EQ(opInfo(uint8_t(0xff)), nullptr);
  std::set<std::string> Mnemonics;
  for (const OpInfo &Info : allOps()) {
    EXPECT_EQ(opInfo(uint8_t(Info.Op)), &Info);
    EXPECT_EQ(&opInfo(Info.Op), &Info);
    EXPECT_TRUE(Mnemonics.insert(Info.Mnemonic).second) << Info.Mnemonic;
  }
}

TEST(Tables, OperandListsAndFieldsComeFromSnowTd) {
  const OpInfo &Vmac = opInfo(Opcode::VMAC);
  EXPECT_STREQ(Vmac.Mnemonic, "vmac");
  EXPECT_EQ(Vmac.U, Unit::Compute);
  ASSERT_EQ(Vmac.Operands.size(), 7u);
  EXPECT_EQ(Vmac.Operands[0], FieldId::rs1);
  EXPECT_EQ(Vmac.Operands[6], FieldId::init);
  EXPECT_TRUE(opInfo(Opcode::HALT).Operands.empty());
  EXPECT_EQ(opInfo(Opcode::SYNC_ST_SIGNAL).U, Unit::Store);

  const FieldInfo &Rows = fieldInfo(FieldId::rows);
  EXPECT_STREQ(Rows.Name, "rows");
  EXPECT_EQ(Rows.Lo, 64u);
  EXPECT_EQ(Rows.Width, 12u);
  EXPECT_EQ(Rows.Kind, FieldKind::UImm);
  EXPECT_EQ(fieldInfo(FieldId::imm).Kind, FieldKind::SImm);
  EXPECT_EQ(fieldInfo(FieldId::rd).Kind, FieldKind::Reg);
  EXPECT_STREQ(unitName(Unit::Load), "load");
}

TEST(Tables, GetAndSetReachEveryField) {
  Inst I;
  for (unsigned F = 0; F < unsigned(FieldId::NumFields); ++F)
    I.set(FieldId(F), int64_t(F) + 1);
  for (unsigned F = 0; F < unsigned(FieldId::NumFields); ++F)
    EXPECT_EQ(I.get(FieldId(F)), int64_t(F) + 1) << fieldInfo(FieldId(F)).Name;
  EXPECT_EQ(I.rows, int64_t(FieldId::rows) + 1);
}

TEST(EncodeErrors, UnsignedFieldTooWideNamesFieldOpcodeAndValue) {
  Inst I = assembleOne("vmac r5, r6, r7, rows=3, len=192, bstride=1088, init=1");
  I.rows = 5000;
  EXPECT_EQ(errorOf(encode(I)),
            "field 'rows' of 'vmac': value 5000 does not fit in 12 unsigned bits");
  I.rows = 4095;
  EXPECT_TRUE(bool(encode(I)));
  I.rows = -1;
  EXPECT_EQ(errorOf(encode(I)),
            "field 'rows' of 'vmac': value -1 does not fit in 12 unsigned bits");
}

TEST(EncodeErrors, SignedFieldBoundsAreTwosComplement) {
  Inst I = assembleOne("fill r6, rows=10, len=20, bstride=30, value=-1, mask=1");
  I.value = -32768;
  EXPECT_TRUE(bool(encode(I)));
  I.value = 32767;
  EXPECT_TRUE(bool(encode(I)));
  I.value = 32768;
  EXPECT_EQ(errorOf(encode(I)),
            "field 'value' of 'fill': value 32768 does not fit in 16 signed bits");
  I.value = -32769;
  EXPECT_EQ(errorOf(encode(I)),
            "field 'value' of 'fill': value -32769 does not fit in 16 signed bits");

  Inst Li = assembleOne("li r1, imm=0");
  Li.imm = int64_t(1) << 31;
  EXPECT_EQ(errorOf(encode(Li)),
            "field 'imm' of 'li': value 2147483648 does not fit in 32 signed bits");
}

TEST(EncodeErrors, RegisterOutOfRange) {
  Inst I = assembleOne("add r1, r2, r3");
  I.rs2 = 32;
  EXPECT_EQ(errorOf(encode(I)), "field 'rs2' of 'add': register 32 does not exist (r0..r31)");
  I.rs2 = -1;
  EXPECT_NE(errorOf(encode(I)).find("register -1 does not exist"), std::string::npos);
}

TEST(EncodeErrors, FieldTheOpcodeDoesNotUseMustBeZero) {
  Inst I = assembleOne("halt");
  I.rows = 1;
  std::string E = errorOf(encode(I));
  EXPECT_NE(E.find("field 'rows' of 'halt'"), std::string::npos) << E;
  // imm and dstride share bits: setting the wrong one must not slip through.
  Inst Ld = assembleOne("ld.map r1, r2, rows=1, len=1, dstride=2, bstride=1, mask=1");
  Ld.imm = 7;
  EXPECT_NE(errorOf(encode(Ld)).find("field 'imm' of 'ld.map'"), std::string::npos);
}

TEST(EncodeErrors, UnknownOpcodeValue) {
  Inst I;
  I.Op = Opcode(0x7f);
  EXPECT_EQ(errorOf(encode(I)), "cannot encode unknown opcode 0x7f");
}

TEST(DecodeErrors, UnknownOpcode) {
  EXPECT_EQ(errorOf(decode(Word128{0x7f, 0})), "unknown opcode 0x7f");
  // Zeroed memory must fault rather than execute.
  EXPECT_EQ(errorOf(decode(Word128{0, 0})), "unknown opcode 0x00");
}

TEST(DecodeErrors, StrayBitsOutsideTheOpcodesFields) {
  // vmac uses bit 39 (init) but not 40..63.
  Word128 Vmac{0x000000800398a051 | (uint64_t(1) << 40), 0x00000044000c0003};
  std::string E = errorOf(decode(Vmac));
  EXPECT_EQ(E.rfind("stray bits in 'vmac' instruction", 0), 0u) << E;
  EXPECT_NE(E.find("bit 40"), std::string::npos) << E;
  // A set bit in the high word of an instruction without operands.
  E = errorOf(decode(Word128{0x01, uint64_t(1) << 63}));
  EXPECT_EQ(E.rfind("stray bits in 'halt' instruction", 0), 0u) << E;
  EXPECT_NE(E.find("bit 127"), std::string::npos) << E;
}

TEST(Decode, SignedFieldsAreSignExtendedUnsignedAreNot) {
  llvm::Expected<Inst> Li = decode(Word128{0xfffffffe00000503, 0});
  ASSERT_TRUE(bool(Li));
  EXPECT_EQ(Li->Op, Opcode::LI);
  EXPECT_EQ(Li->rd, 5);
  EXPECT_EQ(Li->imm, -2);
  llvm::Expected<Inst> Ld = decode(Word128{0xffffffc000082040, 0xffffffffffffffff});
  ASSERT_TRUE(bool(Ld));
  EXPECT_EQ(Ld->dstride, -64);
  EXPECT_EQ(Ld->mask, 0xffff);
  EXPECT_EQ(Ld->bstride, 1048575);
  EXPECT_EQ(Ld->imm, 0) << "fields the opcode does not use stay zero";
}

TEST(Disassemble, RegistersPositionalImmediatesNamedInOperandOrder) {
  llvm::Expected<Inst> I = decode(Word128{0x000000800398a051, 0x00000044000c0003});
  ASSERT_TRUE(bool(I));
  EXPECT_EQ(disassemble(*I), "vmac r5, r6, r7, rows=3, len=192, bstride=1088, init=1");
  EXPECT_EQ(disassemble(assembleOne("halt")), "halt");
  EXPECT_EQ(disassemble(assembleOne("beq r1, r2, imm=-3")), "beq r1, r2, imm=-3");
  // A pool's words, left out, is 0 (one lane word), and printed.
  EXPECT_EQ(disassemble(assembleOne("vavg r5, r6, shift=16, mult=1337, cstride=16, bstride=112, "
                                    "len=7, rows=7")),
            "vavg r5, r6, rows=7, len=7, bstride=112, cstride=16, mult=1337, shift=16, words=0");
  EXPECT_EQ(disassemble(assembleOne("vmax r5, r6, words=3, cstride=64, bstride=448, len=3, "
                                    "rows=3")),
            "vmax r5, r6, rows=3, len=3, bstride=448, cstride=64, words=3");
}

} // namespace
