//===- AsmDirectivesTest.cpp - Listings round-trip; directive errors ------===//
//
// printListing and assembleProgram must be inverses: a listing of any program
// assembles back to the same Program and so to byte-identical prog.bin. These
// tests build programs with the awkward cases real models rarely show (names
// with spaces, quotes, '#', '=', control bytes and UTF-8; images of every
// small size and every byte value; an empty image at a non-zero address; a
// non-preset hardware) and check the round trip, then pin each new
// directive's errors: a bad value, a section given twice, a missing field,
// each with file:line and the offending text. The per-model round trips of
// real compiled programs are in tests/tools/RoundTripTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Asm.h"

#include <gtest/gtest.h>

using namespace snow::isa;

namespace {

std::string errorOf(llvm::Error E) { return E ? llvm::toString(std::move(E)) : "<no error>"; }

std::string listing(const Program &P, bool WithPc = true, bool WithData = true) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  ListingOptions Opts;
  Opts.Source = "p.bin";
  Opts.WithPc = WithPc;
  Opts.WithData = WithData;
  EXPECT_EQ(errorOf(printListing(OS, P, Opts)), "<no error>");
  return OS.str();
}

/// Assembles Text as snowasm does without --hw (default zc706).
llvm::Expected<Program> assembleText(const std::string &Text, bool HwFixed = false,
                                     const HwConfig &Hw = HwConfig{}) {
  return assembleProgram(Text, "p.s", Hw, HwFixed);
}

Program sampleProgram() {
  Program P;
  P.Hw.Name = "odd-machine";
  P.Hw.ClockMhz = 333.3; // Not a preset, and a double that must survive the text.
  P.Hw.ActFracBits = 6;
  P.ModelName = "model with spaces, \"quotes\" and # hash";
  P.Input = {"in=put", 0x100, 3, 5, 7, 9};
  P.Output = {"\xce\xb1\xce\xb2 out\x01\x7f\\", 0x2000, 16, 1, 1, 12};
  P.Layers = {{"conv1", "conv", 123456789012, 64, 112, 112},
              {"", "host-softmax", 0, 10, 1, 1},
              {"a,b", "1234", 1, 2, 3, 4}};
  std::vector<Inst> Code(4);
  Code[0].Op = Opcode::MARK;
  Code[1].Op = Opcode::MARK;
  Code[1].imm = 2;
  Code[2].Op = Opcode::LI;
  Code[2].rd = 3;
  Code[2].imm = -17;
  Code[3].Op = Opcode::HALT;
  for (const Inst &I : Code)
    P.Code.push_back(cantFail(encode(I)));
  P.DataAddr = 0x4000;
  for (unsigned I = 0; I < 700; ++I)
    P.Data.push_back(uint8_t(I * 7 + 3));
  return P;
}

void expectRoundTrip(const Program &P, bool WithPc = true) {
  std::string Text = listing(P, WithPc);
  llvm::Expected<Program> Q = assembleText(Text);
  ASSERT_TRUE(bool(Q)) << errorOf(Q.takeError()) << "\n" << Text.substr(0, 4000);
  EXPECT_EQ(Q->Hw, P.Hw);
  EXPECT_EQ(Q->ModelName, P.ModelName);
  EXPECT_EQ(Q->Input, P.Input);
  EXPECT_EQ(Q->Output, P.Output);
  EXPECT_EQ(Q->Layers, P.Layers);
  EXPECT_EQ(Q->Batch, P.Batch);
  EXPECT_EQ(Q->DataAddr, P.DataAddr);
  EXPECT_EQ(Q->Data, P.Data);
  EXPECT_EQ(Q->Code, P.Code);
  EXPECT_TRUE(serialize(*Q) == serialize(P)) << "prog.bin bytes differ";
}

TEST(Listing, EverySectionRoundTrips) {
  expectRoundTrip(sampleProgram());
  expectRoundTrip(sampleProgram(), /*WithPc=*/false);
}

TEST(Listing, BatchRoundTripsAndIsPrintedOnlyWhenNotOne) {
  Program P = sampleProgram();
  EXPECT_EQ(listing(P).find(".batch"), std::string::npos);
  P.Batch = 16;
  EXPECT_NE(listing(P).find("\n.batch 16\n"), std::string::npos);
  expectRoundTrip(P);
}

TEST(Listing, ImagesOfEverySmallSizeAndEveryByteRoundTrip) {
  // Sizes around the base64 line (96 bytes) and group (3 bytes) boundaries.
  for (size_t Size : {0, 1, 2, 3, 4, 95, 96, 97, 191, 192, 193, 256, 1000}) {
    Program P = sampleProgram();
    P.Data.resize(Size);
    for (size_t I = 0; I < Size; ++I)
      P.Data[I] = uint8_t(255 - I);
    SCOPED_TRACE("image of " + std::to_string(Size) + " bytes");
    expectRoundTrip(P);
  }
}

TEST(Listing, EmptyImageAtANonZeroAddressRoundTrips) {
  Program P = sampleProgram();
  P.Data.clear();
  expectRoundTrip(P);
  EXPECT_NE(listing(P).find(".data addr=0x4000 size=0\n"), std::string::npos) << listing(P);
}

TEST(Listing, AProgramWithoutMetadataPrintsOnlyHardwareAndCode) {
  Program P;
  P.Code.push_back(cantFail(encode(Inst{Opcode::HALT})));
  std::string Text = listing(P);
  for (const char *Absent : {".model", ".input", ".output", ".layer", ".data"})
    EXPECT_EQ(Text.find(Absent), std::string::npos) << Absent << " in\n" << Text;
  expectRoundTrip(P);
}

TEST(Listing, ReadsAsDocumented) {
  std::string Text = listing(sampleProgram());
  for (const char *Line :
       {"# p.bin\n", "# hardware: odd-machine, 256 MACs", ".hw\n  name: odd-machine\n",
        "  clock_mhz: 333.3\n", ".endhw\n",
        ".model \"model with spaces, \\\"quotes\\\" and # hash\"\n",
        ".input \"in=put\" addr=0x100 c=3 h=5 w=7 frac=9  # 210 bytes, HWC int16\n",
        ".output \"\xce\xb1\xce\xb2 out\\x01\\x7f\\\\\" addr=0x2000",
        ".layer conv1 conv 123456789012 64 112 112  # mark imm=0\n",
        ".layer \"\" host-softmax 0 10 1 1  # mark imm=1\n", ".layer \"a,b\" 1234 1 2 3 4",
        "# data: 700 bytes at 0x4000\n.data addr=0x4000 size=700\n.base64 AwoRGB8mLTQ7",
        "# code: 4 instructions\n0: mark imm=0\n1: mark imm=2\n"})
    EXPECT_NE(Text.find(Line), std::string::npos) << "no '" << Line << "' in\n" << Text;
}

TEST(Listing, NoDataSaysItDoesNotRoundTrip) {
  std::string Text = listing(sampleProgram(), true, /*WithData=*/false);
  EXPECT_NE(Text.find("does\n# NOT assemble back to the same prog.bin"), std::string::npos) << Text;
  EXPECT_NE(Text.find("# data: 700 bytes at 0x4000, left out (--no-data): this listing does not "
                      "round-trip\n"),
            std::string::npos)
      << Text;
  EXPECT_EQ(Text.find(".base64"), std::string::npos);
  EXPECT_EQ(Text.find(".data "), std::string::npos);
}

TEST(Listing, HandWrittenTextWithoutNewDirectivesKeepsItsDefaults) {
  HwConfig Mini = cantFail(loadHwConfig("mini64"));
  llvm::Expected<Program> P =
      assembleProgram(".input 0 1 2 3\n.data16 0x10 1 -1\nhalt\n", "p.s", Mini, true);
  ASSERT_TRUE(bool(P)) << errorOf(P.takeError());
  EXPECT_EQ(P->Hw, Mini);
  EXPECT_EQ(P->Input, (TensorInfo{"input", 0, 1, 2, 3, Mini.ActFracBits}));
  EXPECT_EQ(P->DataAddr, 0x10u);
  EXPECT_EQ(P->Data, (std::vector<uint8_t>{1, 0, 0xff, 0xff}));
}

TEST(Listing, HwBlockMayStartFromAPresetAndMatchAnExplicitChoice) {
  HwConfig Mini = cantFail(loadHwConfig("mini64"));
  const char *Text = "# comment\n.hw\n  base: mini64   # a preset, then overrides\n.endhw\nhalt\n";
  llvm::Expected<Program> P = assembleText(Text);
  ASSERT_TRUE(bool(P)) << errorOf(P.takeError());
  EXPECT_EQ(P->Hw, Mini);
  P = assembleText(Text, /*HwFixed=*/true, Mini);
  EXPECT_TRUE(bool(P)) << errorOf(P.takeError());
}

TEST(Listing, PcColumnIsChecked) {
  EXPECT_TRUE(bool(assembleText("0: nop\n1: halt\n")));
  EXPECT_EQ(errorOf(assembleText("0: nop\n  nop\n1: halt\n").takeError()),
            "p.s:3: pc '1:' but this is pc 2 (instructions were added or removed above; remove "
            "the pc column, e.g. snowdis --no-pc, before editing)");
}

std::string errorText(const std::string &Text, bool HwFixed = false) {
  return errorOf(assembleText(Text, HwFixed).takeError());
}

/// One rejected text and the exact message it must give.
struct ErrorCase {
  const char *Text, *Want;
};

/// Checks that every case's text fails to assemble with its message.
void expectErrors(std::initializer_list<ErrorCase> Cases) {
  for (const ErrorCase &C : Cases)
    EXPECT_EQ(errorText(C.Text), C.Want) << "for: " << C.Text;
}

TEST(DirectiveErrors, Hw) {
  // Bad value, unknown key: parseHwConfig's messages, at the file's line.
  EXPECT_EQ(errorText("\n.hw\n  clusters: x\n.endhw\n"),
            "p.s:3: key 'clusters': expected an unsigned integer, got 'x'");
  EXPECT_NE(errorText(".hw\n  name: a\n  bogus_key: 1\n.endhw\n").find("p.s:3:"),
            std::string::npos);
  EXPECT_NE(errorText(".hw\n  bogus_key: 1\n.endhw\n").find("'bogus_key'"), std::string::npos);
  // Parses but is not a machine (validate), at the .hw line.
  EXPECT_EQ(errorText(".hw\n  lanes_per_vmac: 3\n.endhw\n").rfind("p.s:1", 0), 0u)
      << errorText(".hw\n  lanes_per_vmac: 3\n.endhw\n");
  EXPECT_EQ(errorText(".hw\n  base: mini64\n.endhw\n.hw\n  base: mini64\n.endhw\n"),
            "p.s:4: .hw given twice (first on line 1)");
  EXPECT_EQ(errorText(".hw\n  name: a\n"), "p.s:1: .hw block is not closed by .endhw");
  EXPECT_EQ(errorText("nop\n.hw\n.endhw\n"),
            "p.s:2: .hw must come before every instruction and directive (line 1 has one)");
  EXPECT_EQ(errorText(".hw mini64\n"), "p.s:1: .hw takes no arguments: hardware keys follow on "
                                       "their own lines, up to .endhw");
  EXPECT_EQ(errorText(".endhw\n"), "p.s:1: .endhw without .hw");
  EXPECT_EQ(errorText(".hw\n  base: mini64\n.endhw\n", /*HwFixed=*/true),
            "p.s:1: .hw block (hardware 'mini64') differs from the hardware chosen outside the "
            "text ('zc706', e.g. snowasm --hw): give it once");
}

TEST(DirectiveErrors, Tensors) {
  expectErrors({
      {".input x addr=0 c=3 h=0 w=1\n",
       "p.s:1: invalid h '0' in .input (expected 1 to 4294967295)"},
      {".output x addr=0 c=3 h=2 w=1 frac=16\n",
       "p.s:1: invalid frac '16' in .output (expected 0 to 15)"},
      {".input x addr=0 c=3 w=1\n", "p.s:1: missing field 'h=' in .input"},
      {".input x addr=0 c=3 h=1 w=1 d=1\n",
       "p.s:1: unknown field 'd' in .input (fields: addr= c= h= w= frac=)"},
      {".input x addr=0 c=3 c=4 h=1 w=1\n", "p.s:1: field 'c' given twice in .input"},
      {".input addr=0 c=3 h=1 w=1\n",
       "p.s:1: .input takes NAME then fields, e.g. .input data addr=0x0 c=3 h=224 w=224"},
      {".input x addr=0 c=3 h=1 w=1 9\n",
       "p.s:1: expected field=value in .input, found '9' (fields: addr= c= h= w= frac=)"},
      {".output x addr=0 c=1 h=1 w=1\n.output y addr=0 c=1 h=1 w=1\n",
       "p.s:2: .output given twice (first on line 1)"},
      {".input x addr=0x3fffffff c=1 h=1 w=1\n",
       "p.s:1: .input tensor ends beyond DRAM (1024 MiB)"},
  });
}

TEST(DirectiveErrors, Batch) {
  expectErrors({
      {".batch 0\n", "p.s:1: .batch takes one frame count from 1 to 2^32-1"},
      {".batch\n", "p.s:1: .batch takes one frame count from 1 to 2^32-1"},
      {".batch 4294967296\n", "p.s:1: .batch takes one frame count from 1 to 2^32-1"},
      {".batch 2\n.batch 2\n", "p.s:2: .batch given twice (first on line 1)"},
  });
}

TEST(DirectiveErrors, Strings) {
  expectErrors({
      {".model \"abc\n", "p.s:1: unterminated string \"abc"},
      {".model \"a\\qb\"\n", "p.s:1: invalid escape '\\qb\"' in a string (use \\\" \\\\ or \\xHH)"},
      {".model \"a\"b\n", "p.s:1: expected a space or ',' after the string \"a\", found 'b'"},
      {".model a b\n", "p.s:1: .model takes one NAME"},
  });
}

TEST(DirectiveErrors, Data) {
  expectErrors({
      {".data addr=0x10 size=-1\n",
       "p.s:1: invalid size '-1' in .data (expected 0 to 9223372036854775807)"},
      {".data addr=0x10\n", "p.s:1: missing field 'size=' in .data"},
      {".data size=3\n", "p.s:1: missing field 'addr=' in .data"},
      {".data addr=0 size=0\n.data addr=0 size=0\n", "p.s:2: .data given twice (first on line 1)"},
      {".data addr=0x3fffffff size=2\n", "p.s:1: .data ends beyond DRAM (1024 MiB)"},
  });
}

TEST(DirectiveErrors, Base64) {
  expectErrors({
      {".base64 AAAA\n",
       "p.s:1: .base64 before .data: the lines fill the .data section from its addr"},
      {".data addr=0 size=6\n.base64 AAAA\n.base64 AA!A\n",
       "p.s:3: invalid base64 character '!' at column 3 in .base64"},
      {".data addr=0 size=6\n.base64 AAA\n",
       "p.s:2: base64 text of 3 characters is not a multiple of 4 (each line must be "
       "complete) in .base64"},
      {".data addr=0 size=2\n.base64 AAAA\n",
       "p.s:2: .base64 lines hold more than the 2 bytes declared by .data on line 1"},
      {"\n.data addr=0 size=6\n.base64 AAAA\nhalt\n",
       "p.s:2: .data declares 6 bytes but the .base64 lines hold 3 (truncated listing?)"},
      {".data addr=0 size=3\n.base64 AAAA\n.data16 0 1\n",
       "p.s:3: .data16 overlaps the data from line 2"},
      {".data addr=0x10 size=3\n.data16 0 1\n",
       "p.s:2: .data16 lies outside the .data section (3 bytes at 0x10, line 1)"},
      {".data addr=0 size=8\n.base64 AAAA AAAA\n", "p.s:2: .base64 takes one run of base64 text"},
  });
}

TEST(DirectiveErrors, Data16InsideData) {
  llvm::Expected<Program> P = assembleText(".data16 0x14 -1\n.data addr=0x10 size=8\n");
  ASSERT_TRUE(bool(P)) << errorOf(P.takeError());
  EXPECT_EQ(P->DataAddr, 0x10u);
  EXPECT_EQ(P->Data, (std::vector<uint8_t>{0, 0, 0, 0, 0xff, 0xff, 0, 0}));
}

} // namespace
