//===- GeneratedTest.cpp - Generated views of Snow.td stay in sync --------===//
//
// docs/isa.md carries a copy of the table snow-tblgen generates, because a
// manual must be readable without building. This test fails when that copy
// differs from a fresh build, so the doc cannot go stale silently. It also
// checks that the SystemVerilog package names the same opcodes and field
// positions as the C++ tables, since rtl/ reads only the package.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Isa.h"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>

using namespace snow::isa;

namespace {

const std::string GeneratedDir = SNOW_BIN_DIR "/../generated";
const std::string BeginMarker = "<!-- BEGIN GENERATED: isa-table.md -->\n";
const std::string EndMarker = "<!-- END GENERATED -->";

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  EXPECT_TRUE(In.good()) << "cannot read " << Path;
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

TEST(Generated, DocsTableMatchesFreshlyGeneratedTable) {
  std::string Doc = readFile(SNOW_SOURCE_DIR "/docs/isa.md");
  std::string Table = readFile(GeneratedDir + "/isa-table.md");
  ASSERT_FALSE(Table.empty());

  size_t Begin = Doc.find(BeginMarker);
  ASSERT_NE(Begin, std::string::npos) << "docs/isa.md lacks the line " << BeginMarker;
  Begin += BeginMarker.size();
  size_t End = Doc.find("\n" + EndMarker, Begin);
  ASSERT_NE(End, std::string::npos) << "docs/isa.md lacks the line " << EndMarker;
  EXPECT_EQ(Doc.substr(Begin, End + 1 - Begin), Table)
      << "docs/isa.md is stale; regenerate its table with\n  cmake -DTABLE=" << GeneratedDir
      << "/isa-table.md -DDOC=" << SNOW_SOURCE_DIR << "/docs/isa.md -P " << SNOW_SOURCE_DIR
      << "/cmake/UpdateIsaDoc.cmake";
}

std::string upper(std::string S) {
  for (char &C : S)
    C = char(std::toupper(static_cast<unsigned char>(C)));
  return S;
}

std::string hex2(unsigned V) {
  const char *Digits = "0123456789abcdef";
  return {Digits[(V >> 4) & 15], Digits[V & 15]};
}

TEST(Generated, SystemVerilogPackageAgreesWithCppTables) {
  std::string Sv = readFile(GeneratedDir + "/snow_isa_pkg.sv");
  EXPECT_NE(Sv.find("package snow_isa_pkg;"), std::string::npos);
  EXPECT_NE(Sv.find("localparam int unsigned INST_BITS = 128;"), std::string::npos);

  struct OpName {
    const char *Enum;
    unsigned Code;
  };
  const OpName Ops[] = {
#define SNOW_OP(ENUM, MNEMONIC, OPCODE, UNIT, DOC, ...) {#ENUM, OPCODE},
#include "snow/isa/IsaOps.inc"
  };
  ASSERT_EQ(std::size(Ops), allOps().size());
  for (const OpName &O : Ops) {
    std::string Line =
        "localparam logic [7:0] OP_" + std::string(O.Enum) + " = 8'h" + hex2(O.Code) + ";";
    EXPECT_NE(Sv.find(Line), std::string::npos) << "missing: " << Line;
  }

  for (unsigned F = 0; F < unsigned(FieldId::NumFields); ++F) {
    const FieldInfo &Info = fieldInfo(FieldId(F));
    std::string N = upper(Info.Name);
    std::string Lo = "localparam int unsigned F_" + N + "_LO = " + std::to_string(Info.Lo) + ";";
    std::string W = "localparam int unsigned F_" + N + "_W = " + std::to_string(Info.Width) + ";";
    EXPECT_NE(Sv.find(Lo), std::string::npos) << "missing: " << Lo;
    EXPECT_NE(Sv.find(W), std::string::npos) << "missing: " << W;
  }
}

} // namespace
