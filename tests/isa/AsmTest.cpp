//===- AsmTest.cpp - Assembler, disassembler and program directives -------===//
//
// The assembler is the front door for hand-written kernels and for the
// compiler's text output, so these tests pin the syntax (positional registers,
// named immediates in any order, labels, comments), the round trip through
// encode/decode/disassemble, and that every error names file and line.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Asm.h"

#include <gtest/gtest.h>

#include <set>

using namespace snow::isa;

namespace {

// Uses every instruction, labels before and on instruction lines, forward and
// backward branches, comments, blank lines, hex and negative values and
// immediates out of their printed order.
const char *const EveryInstruction = R"(# Every instruction of the ISA, once at least.
start:
  li r1, imm=3            # loop counter
  li r2, imm=-0x10
loop:  addi r1, r1, imm=-1
  add r3, r1, r2
  sub r4, r3, r1
  mul r5, r4, r4
  and r6, r5, r3
  or r7, r6, r5
  xor r8, r7, r6
  sll r9, r8, r1
  srl r10, r9, r1
  sra r11, r10, r1
  slt r12, r11, r10
  muli r13, r12, imm=7
  andi r14, r13, imm=0xff
  slli r15, r14, imm=2
  srli r16, r15, imm=1
  srai r17, r16, imm=31
  bne r1, r0, imm=loop
  beq r0, r0, imm=work
  nop
work:
  ld.map r20, r21, rows=4, len=64, dstride=-128, bstride=64, mask=0xf
  ld.wgt r22, r23, idx=3, rows=3, len=9, dstride=288, bstride=9, mask=15
  ld.wgt r22, r23, idx=1, wpix=2, rows=1, len=9, dstride=0, bstride=9, mask=3
  fill r24, rows=2, len=8, bstride=8, value=-32768, mask=1
  signal.ld idx=0
  wait.ex idx=0
  mark imm=0
  vbias r25, shift=8
  vmac r26, r27, r28, init=1, bstride=1088, len=192, rows=3
  vmacp r26, r27, r28, rows=3, len=64, bstride=1088, cstride=64, pix=2, init=0
  vwb r26, r29, rows=16, bstride=64, shift=8, relu=1
  vlut r24
  vwb r26, r29, rows=16, bstride=64, shift=8, relu=0, lut=1
  vpre r26, r29, rows=16, bstride=64, shift=7, init=1
  vmul r26, r29, rows=16, bstride=64, shift=3
  vdw r25, r29, r24, rows=3, len=3, bstride=960, cstride=64, init=0
  vmax r30, r29, rows=2, len=2, bstride=56, cstride=16
  vavg r31, r29, rows=7, len=7, bstride=112, cstride=16, mult=1337, shift=16
  signal.ex idx=1
  wait.ld idx=0
  wait.st idx=1
  st.map r20, r30, idx=2, rows=24, len=48, dstride=1536, bstride=64
  signal.st idx=2
  blt r1, r2, imm=start
  bge r2, r1, imm=0
end: halt
)";

std::string errorOf(llvm::Error E) { return E ? llvm::toString(std::move(E)) : "<no error>"; }
template <typename T> std::string errorOf(llvm::Expected<T> V) {
  return V ? "<no error>" : llvm::toString(V.takeError());
}

std::vector<Word128> encodeAll(const std::vector<Inst> &Code) {
  std::vector<Word128> Words;
  for (const Inst &I : Code) {
    llvm::Expected<Word128> W = encode(I);
    EXPECT_TRUE(bool(W)) << errorOf(W.takeError());
    Words.push_back(W ? *W : Word128{});
  }
  return Words;
}

std::string asmError(const char *Text) { return errorOf(assemble(Text, "t.s")); }

/// One rejected text and the exact message it must give.
struct ErrorCase {
  const char *Text, *Want;
};

/// Checks every case with ErrorOf (the text in, the error message out).
template <class Fn> void expectErrors(Fn ErrorOf, std::initializer_list<ErrorCase> Cases) {
  for (const ErrorCase &C : Cases)
    EXPECT_EQ(ErrorOf(C.Text), C.Want) << "for: " << C.Text;
}

TEST(Asm, RoundTripThroughEncodeDecodeDisassembleIsExact) {
  llvm::Expected<std::vector<Inst>> Code = assemble(EveryInstruction, "every.s");
  ASSERT_TRUE(bool(Code)) << errorOf(Code.takeError());

  std::set<Opcode> Used;
  for (const Inst &I : *Code)
    Used.insert(I.Op);
  for (const OpInfo &Info : allOps())
    EXPECT_TRUE(Used.count(Info.Op)) << "round-trip program lacks '" << Info.Mnemonic << "'";

  std::vector<Word128> Words = encodeAll(*Code);
  llvm::Expected<std::vector<Inst>> Decoded = decodeProgram(Words);
  ASSERT_TRUE(bool(Decoded)) << errorOf(Decoded.takeError());
  std::string Text = disassembleProgram(*Decoded, /*WithPc=*/false);

  llvm::Expected<std::vector<Inst>> Again = assemble(Text, "again.s");
  ASSERT_TRUE(bool(Again)) << errorOf(Again.takeError()) << "\n" << Text;
  EXPECT_EQ(encodeAll(*Again), Words);
  EXPECT_EQ(disassembleProgram(*Again, false), Text) << "disassembly is a fixed point";
}

TEST(Asm, LabelsResolveToPcRelativeOffsets) {
  llvm::Expected<std::vector<Inst>> Code = assemble(R"(
start: li r1, imm=3
loop:
  addi r1, r1, imm=-1
  bne r1, r0, imm=loop
  beq r0, r0, imm=end
  a: b: nop
end: halt
  blt r0, r0, imm=start
  bge r0, r0, imm=a
)",
                                                    "l.s");
  ASSERT_TRUE(bool(Code)) << errorOf(Code.takeError());
  ASSERT_EQ(Code->size(), 8u);
  EXPECT_EQ((*Code)[2].imm, -1); // bne at 2 -> loop at 1
  EXPECT_EQ((*Code)[3].imm, 2);  // beq at 3 -> end at 5
  EXPECT_EQ((*Code)[6].imm, -6); // blt at 6 -> start at 0
  EXPECT_EQ((*Code)[7].imm, -3); // bge at 7 -> a (= b) at 4
}

TEST(Asm, NumbersAreDecimalHexOrNegativeAndNeverOctal) {
  llvm::Expected<std::vector<Inst>> Code =
      assemble("li r1, imm=010\nli r2, imm=0x10\nli r3, imm=-0x10\nli r4, imm=+5\n", "n.s");
  ASSERT_TRUE(bool(Code)) << errorOf(Code.takeError());
  EXPECT_EQ((*Code)[0].imm, 10);
  EXPECT_EQ((*Code)[1].imm, 16);
  EXPECT_EQ((*Code)[2].imm, -16);
  EXPECT_EQ((*Code)[3].imm, 5);
}

TEST(AsmErrors, EveryErrorCarriesFileAndLine) {
  expectErrors(
      asmError,
      {
          {"nop\n\nfoo r1\n", "t.s:3: unknown mnemonic 'foo'"},
          {"add r1, r2\n", "t.s:1: missing operand 'rs2' of 'add'"},
          {"vbias r1\n", "t.s:1: missing operand 'shift' of 'vbias'"},
          {"vbias r1, shift=1, shift=2\n", "t.s:1: duplicate operand 'shift' in 'vbias'"},
          {"vbias r1, shift=1, relu=1\n", "t.s:1: unknown operand 'relu' for 'vbias'"},
          {"add r1, r2, r3, r4\n", "t.s:1: too many register operands for 'add' (it takes 3)"},
          {"nop\nnop\nvmac r5, r6, r7, rows=5000, len=1, bstride=1, init=0\n",
           "t.s:3: field 'rows' of 'vmac': value 5000 does not fit in 12 unsigned bits"},
          {"add r1, r2, r32\n",
           "t.s:1: field 'rs2' of 'add': register 32 does not exist (r0..r31)"},
          {"li r1, imm=-2147483649\n",
           "t.s:1: field 'imm' of 'li': value -2147483649 does not fit in 32 signed bits"},
          {"nop\n  beq r0, r0, imm=nowhere\n", "t.s:2: undefined label 'nowhere'"},
          {"x: nop\n\nx: halt\n", "t.s:3: duplicate label 'x' (first defined on line 1)"},
          {"ld.map r1, r2, rows=1, len=1, dstride=x, bstride=1, mask=1\n",
           "t.s:1: invalid value 'x' for operand 'dstride' of 'ld.map'"},
          {"add r1, rows=3, r2\n", "t.s:1: unknown operand 'rows' for 'add'"},
          {"add rd=r1, r2, r3\n",
           "t.s:1: operand 'rd' of 'add' is a register: write it positionally as rN"},
          {"add r1, , r2\n", "t.s:1: empty operand in 'add'"},
          {"add r1, x2, r3\n",
           "t.s:1: expected a register 'rN' or 'name=value' in 'add', found 'x2'"},
          {"1x: nop\n", "t.s:1: invalid label name '1x'"},
          {".model m\n", "t.s:1: directive '.model' is only allowed in a whole program (snowasm)"},
      });
}

TEST(AsmErrors, OutOfRangeBranchOffsetPointsAtTheBranch) {
  // imm=label resolves late; a label offset is always in range, but an
  // explicit one is checked like any other value.
  EXPECT_EQ(asmError("# c\nbeq r0, r0, imm=4294967296\n"),
            "t.s:2: field 'imm' of 'beq': value 4294967296 does not fit in 32 signed bits");
}

TEST(Disasm, PcColumnIsRightAligned) {
  std::vector<Inst> Code(11);
  std::string Text = disassembleProgram(Code);
  EXPECT_EQ(Text.substr(0, 9), " 0: nop\n ");
  EXPECT_NE(Text.find("\n10: nop\n"), std::string::npos);
  EXPECT_EQ(disassembleProgram({}), "");
}

TEST(Disasm, DecodeProgramNamesTheFailingPc) {
  std::vector<Word128> Words = {{0x02, 0}, {0x02, 0}, {0x00, 0}};
  EXPECT_EQ(errorOf(decodeProgram(Words)), "pc 2: unknown opcode 0x00");
}

const char *const WholeProgram = R"(
.model tiny
.input 0x1000 3 4 5
.output 0x2000, 8, 2, 2, 6      # commas are allowed too
.layer conv1 conv 1920 8 2 2
.layer pool1 maxpool 0 8 1 1
.data16 0x104 1 -1
.data16 0x100 0x7fff -32768
.data16 0x10a 258
  mark imm=0
  mark imm=1
  halt
)";

TEST(AsmProgram, DirectivesFillTheContainer) {
  HwConfig Hw;
  Hw.ActFracBits = 7;
  llvm::Expected<Program> P = assembleProgram(WholeProgram, "p.s", Hw);
  ASSERT_TRUE(bool(P)) << errorOf(P.takeError());
  EXPECT_EQ(P->Hw, Hw);
  EXPECT_EQ(P->ModelName, "tiny");
  EXPECT_EQ(P->Input, (TensorInfo{"input", 0x1000, 3, 4, 5, 7})) << "FRAC defaults to the hw's";
  EXPECT_EQ(P->Output, (TensorInfo{"output", 0x2000, 8, 2, 2, 6}));
  ASSERT_EQ(P->Layers.size(), 2u);
  EXPECT_EQ(P->Layers[0], (LayerInfo{"conv1", "conv", 1920, 8, 2, 2}));
  EXPECT_EQ(P->Layers[1].Type, "maxpool");

  // Lowest address first; the gap at 0x108 is zero-filled; little-endian.
  EXPECT_EQ(P->DataAddr, 0x100u);
  std::vector<uint8_t> Want = {0xff, 0x7f, 0x00, 0x80, 0x01, 0x00,
                               0xff, 0xff, 0x00, 0x00, 0x02, 0x01};
  EXPECT_EQ(P->Data, Want);

  ASSERT_EQ(P->Code.size(), 3u);
  EXPECT_EQ(P->Code[1], (Word128{0x0000000100000058, 0}));
  EXPECT_EQ(P->Code[2], (Word128{0x01, 0}));
}

std::string programError(const char *Text) {
  return errorOf(assembleProgram(Text, "p.s", HwConfig{}));
}

TEST(AsmProgram, DirectiveErrorsCarryFileAndLine) {
  expectErrors(programError,
               {
                   {".model a\n.model b\n", "p.s:2: .model given twice (first on line 1)"},
                   {"\n.input 0 1 2\n", "p.s:2: .input takes ADDR C H W [FRAC], found 3 arguments"},
                   {".output 0 1 2 x\n", "p.s:1: invalid W 'x' in .output"},
                   {".input 0 1 1 1 16\n", "p.s:1: invalid FRAC '16' in .input"},
                   {".layer a conv 1 2 3\n",
                    "p.s:1: .layer takes NAME TYPE MACS OUTC OUTH OUTW, found 5 arguments"},
                   {".data16 0 32768\n", "p.s:1: value '32768' in .data16 is not an int16"},
                   {".data16 0 1 2\n.data16 2 3\n", "p.s:2: .data16 overlaps the data from line 1"},
                   {".data16 0x40000000 1\n", "p.s:1: .data16 ends beyond DRAM (1024 MiB)"},
                   {".bogus 1\n", "p.s:1: unknown directive '.bogus'"},
                   {".layer a conv 1 1 1 1\nmark imm=1\n",
                    "p.s:2: mark imm=1 but 1 layers are declared with .layer"},
                   {"nop\nfoo\n", "p.s:2: unknown mnemonic 'foo'"},
               });
}

} // namespace
