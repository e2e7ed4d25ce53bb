//===- ConstantsOnceTest.cpp - No hardware or ISA number is typed twice ---===//
//
// Every machine number has one home: the Const records of isa/Snow.td (ISA
// contract: register and semaphore counts, the pending-signal limit, field-
// derived limits) or the hardware config (HwConfig's key table, the presets
// in isa/presets). C++ reads them from IsaConstants.inc / HwConfig, the RTL
// from the generated snow_isa_pkg / snow_hw_pkg, scripts from `snowhw`, the
// manual from generated tables.
//
// This test scans the source tree for a retype: a number written right after
// the name of one of those constants, in an assignment, parameter,
// initializer, keyword argument, dictionary entry or generator call
// (`localparam int NUM_SEMS = 8;`, `MAX_PENDING = 16`, `QUEUE_DEPTH=64`,
// `"queue_depth": 64`, `P("MAX_SIGNALS", 16, ...)`), whatever the value, since
// a retype that has already drifted is the worst kind. Names are compared with
// case and underscores folded, so NumSemaphores, NUM_SEMAPHORES and
// num_semaphores are one name. Markdown is scanned for prose that restates an
// ISA count ("16 counting semaphores"). The scanner is itself tested on
// planted retypes in each language.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/HwConfig.h"
#include "snow/isa/IsaConstants.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace snow::isa;

namespace {

/// NumSemaphores, NUM_SEMAPHORES, num_semaphores -> numsemaphores.
std::string fold(std::string_view S) {
  std::string R;
  for (char C : S)
    if (C != '_')
      R += char(std::tolower(static_cast<unsigned char>(C)));
  return R;
}

/// Folded names that stand for a watched constant -> the constant.
std::map<std::string, std::string> watchedNames() {
  std::map<std::string, std::string> W;
  // Every ISA constant under its own name (C++, SystemVerilog, JSON).
  for (const IsaConstant &K : AllIsaConstants)
    W[fold(K.Name)] = K.Name;
  // Every hardware key under its YAML name (also its C++ member name folded).
  std::istringstream Keys(HwConfig().toYaml());
  for (std::string Line; std::getline(Keys, Line);)
    if (std::string Key = Line.substr(0, Line.find(':')); Key != "name")
      W[fold(Key)] = Key;
  // The short names a retype would plausibly use, and the names of
  // snow_hw_pkg's localparams (rtl/gen/snow-rtlgen.cpp).
  const std::pair<const char *, const char *> Aliases[] = {
      {"NumSems", "NumSemaphores"},
      {"NSem", "NumSemaphores"},
      {"NSems", "NumSemaphores"},
      {"Semaphores", "NumSemaphores"},
      {"MaxSignals", "MaxPendingSignals"},
      {"MaxPending", "MaxPendingSignals"},
      {"PendingSignals", "MaxPendingSignals"},
      {"NRegs", "NumRegs"},
      {"NumRegisters", "NumRegs"},
      {"InstBytes", "InstBits"},
      {"OpcodeBits", "OpWidth"},
      {"MaxCu", "MaxCus"},
      {"QDepth", "queue_depth"},
      {"MaxActFrac", "act_frac_bits (int16_t's digits)"},
      {"Cus", "clusters x cus_per_cluster"},
      {"NumCus", "clusters x cus_per_cluster"},
      {"Vmacs", "vmacs_per_cu"},
      {"Lanes", "lanes_per_vmac"},
      {"MapsElems", "maps_buffer_kib"},
      {"WeightsWords", "weights_buffer_kib"},
      {"MacPipe", "mac_pipeline_depth"},
      {"WbWords", "writeback_words"},
      {"PoolWords", "pool_words"},
      {"TraceStartup", "trace_startup_cycles"},
      {"RowGranule", "trace_row_granule"},
      {"ReadPorts", "maps_read_ports"},
      {"PortsPerBank", "maps_ports_per_bank"},
      {"DramEff", "dram_efficiency"},
      {"DramLat", "dram_latency_cycles"},
      {"DramBurst", "dram_burst_bytes"},
      {"BwQ8", "dram_gbps / clock_mhz"},
      {"ImemAw", "IMEM_AW (rtl/gen/snow-rtlgen.cpp)"},
  };
  for (auto [Alias, Of] : Aliases)
    W[fold(Alias)] = Of;
  return W;
}

struct Finding {
  std::string File;
  unsigned Line;
  std::string Name; ///< As written.
  std::string Text;
};

bool isIdent(char C) { return std::isalnum(static_cast<unsigned char>(C)) || C == '_'; }
bool isDigit(char C) { return std::isdigit(static_cast<unsigned char>(C)); }

/// Code: Name [quote] (= | := | : | { | , after a quoted name) literal, the
/// literal not a bare 0 (a counter or an empty slot, not a retype). A ':' in a
/// line with a '?' before the name is a conditional, not a key.
void scanCodeLine(const std::string &File, unsigned LineNo, const std::string &Raw,
                  const std::map<std::string, std::string> &W, std::vector<Finding> &Out) {
  // "\nqueue_depth: 64" inside a string literal: the escape is not part of the name.
  std::string L = Raw;
  for (size_t I = 0; I + 1 < L.size(); ++I)
    if (L[I] == '\\' && std::isalpha(static_cast<unsigned char>(L[I + 1])))
      L[I] = L[I + 1] = ' ';
  for (size_t I = 0; I < L.size();) {
    if (!isIdent(L[I]) || isDigit(L[I]) || (I && isIdent(L[I - 1]))) {
      ++I;
      continue;
    }
    size_t E = I;
    while (E < L.size() && isIdent(L[E]))
      ++E;
    std::string Name = L.substr(I, E - I);
    size_t P = E;
    bool Quoted = I && (L[I - 1] == '"' || L[I - 1] == '\'') && P < L.size() && L[P] == L[I - 1];
    if (Quoted)
      ++P;
    I = E;
    if (!W.count(fold(Name)))
      continue;
    while (P < L.size() && L[P] == ' ')
      ++P;
    if (P >= L.size())
      continue;
    // A macro: "#define NSEM 16" (C++) or "`define NSEM 16" (SystemVerilog).
    size_t Def = L.find("define");
    bool Macro = Def != std::string::npos && Def > 0 && (L[Def - 1] == '#' || L[Def - 1] == '`') &&
                 L.find_first_not_of(' ', Def + 6) == E - Name.size();
    if (Macro)
      ;
    else if (L.compare(P, 2, ":=") == 0)
      P += 2;
    else if (L[P] == '=' && (P + 1 >= L.size() || L[P + 1] != '='))
      ++P;
    else if ((L[P] == ':' && (P + 1 >= L.size() || L[P + 1] != ':') &&
              L.rfind('?', I) == std::string::npos) ||
             L[P] == '{' || (Quoted && L[P] == ','))
      ++P;
    else
      continue;
    while (P < L.size() && L[P] == ' ')
      ++P;
    if (P < L.size() && L[P] == '-')
      ++P;
    bool Zero = P < L.size() && L[P] == '0' && (P + 1 >= L.size() || !isIdent(L[P + 1]));
    if (P < L.size() && isDigit(L[P]) && !Zero)
      Out.push_back({File, LineNo, Name, Raw});
  }
}

/// Prose: a number within two words before the noun of an ISA count. Blocks
/// between <!-- BEGIN GENERATED and <!-- END GENERATED are generated from the
/// sources (scanText skips them).
void scanProseLine(const std::string &File, unsigned LineNo, const std::string &L,
                   std::vector<Finding> &Out) {
  std::istringstream In(L);
  std::vector<std::string> Words;
  for (std::string Wd; In >> Wd;)
    Words.push_back(Wd);
  static const char *const Nouns[] = {"semaphores", "registers", "signals"};
  for (size_t I = 0; I < Words.size(); ++I) {
    if (Words[I].empty() || !std::all_of(Words[I].begin(), Words[I].end(), isDigit))
      continue;
    for (size_t J = I + 1; J < Words.size() && J <= I + 3; ++J)
      for (const char *N : Nouns)
        if (Words[J].rfind(N, 0) == 0)
          Out.push_back({File, LineNo, N, L});
  }
}

std::vector<Finding> scanText(const std::string &File, const std::string &Text) {
  static const std::map<std::string, std::string> W = watchedNames();
  std::vector<Finding> Out;
  bool Prose = File.size() > 3 && File.substr(File.size() - 3) == ".md";
  std::istringstream In(Text);
  unsigned N = 0;
  bool Generated = false;
  for (std::string L; std::getline(In, L);) {
    ++N;
    if (Prose && L.find("<!-- BEGIN GENERATED") != std::string::npos)
      Generated = true;
    if (Prose && L.find("<!-- END GENERATED") != std::string::npos)
      Generated = false;
    if (Generated)
      continue;
    if (Prose)
      scanProseLine(File, N, L, Out);
    else
      scanCodeLine(File, N, L, W, Out);
  }
  return Out;
}

/// Where a number may be written next to a watched name, and why. Each entry
/// is (file relative to the source root, name as written); an entry that no
/// longer matches anything fails the test, so the list cannot go stale.
const std::pair<const char *, const char *> Allowed[] = {
    // The emitter's rule that Snow.td's op field is the low byte (C++ decodes
    // opcodes as uint8_t): Snow.td's value is checked against it, not copied.
    {"isa/tblgen/SnowIsaEmitter.cpp", "OpWidth"},
    // Examples of sweep syntax: values a user sweeps, not the machine's.
    {"explore/include/snow/explore/SweepSpec.h", "clusters"},
    {"explore/include/snow/explore/SweepSpec.h", "dram_gbps"},
    // The one definition of the RTL's instruction-memory size.
    {"rtl/gen/snow-rtlgen.cpp", "IMEM_AW"},
    // The idealised values the fidelity table switches each effect off with:
    // values a sweep sets, not the machine's.
    {"bench/paper-table.py", "trace_row_granule"},
    {"bench/paper-table.py", "dram_efficiency"},
    // The host's SIMD blocking in the float reference, not the accelerator's lanes.
    {"compiler/ir/FloatConv.cpp", "Lanes"},
};

bool isScanned(const fs::path &Rel) {
  std::string Ext = Rel.extension().string(), First = Rel.begin()->string();
  static const std::set<std::string> Code = {".cpp", ".h", ".inc", ".def", ".sv", ".svh", ".py"};
  if (First.rfind("build", 0) == 0 || First[0] == '.')
    return false;
  // Test inputs build configs with chosen values on purpose; their scripts
  // are consumers like any other.
  if (First == "tests" && Ext != ".py")
    return false;
  if (Ext == ".md")
    return true;
  return Code.count(Ext) > 0;
}

TEST(ConstantsOnce, ScannerCatchesAPlantedRetypeInEachLanguage) {
  // Each fixture retypes one constant the way a hurried edit would.
  const std::pair<const char *, const char *> Planted[] = {
      {"rtl/src/x.sv", "  localparam int NUM_SEMS = 8;"},
      {"rtl/src/x.sv", "module q #(parameter int unsigned QUEUE_DEPTH = 64) ();"},
      {"sim/lib/X.h", "constexpr unsigned MaxPendingSignals = 16;"},
      {"sim/lib/X.h", "static constexpr unsigned NumRegs{32};"},
      {"sim/lib/X.h", "#define NSEM 16"},
      {"rtl/src/x.svh", "`define QUEUE_DEPTH 64"},
      {"rtl/gen/g.cpp", "  P(\"MAX_SIGNALS\", 16, \"signals pending\");"},
      {"bench/x.py", "MAX_PENDING = 16"},
      {"bench/x.py", "run(hw, QUEUE_DEPTH=32)"},
      {"bench/x.py", "cfg = {\"queue_depth\": 64, \"name\": \"x\"}"},
      {"bench/x.py", "HW = \"base: zc706\\nqueue_depth: 16\\n\""},
      {"docs/x.md", "1. 16 counting semaphores, all 0 at reset."},
      {"docs/x.md", "The control core has 32 registers of 32 bits."},
  };
  for (auto [File, Line] : Planted)
    EXPECT_EQ(scanText(File, Line).size(), 1u) << File << ": " << Line;

  // Reading a constant, comparing with one, or naming it is not a retype.
  const std::pair<const char *, const char *> Clean[] = {
      {"rtl/src/x.sv", "  localparam int unsigned NS = MAX_PENDING_SIGNALS;"},
      {"rtl/src/x.sv", "  logic [31:0] sems [NUM_SEMAPHORES];"},
      {"sim/lib/X.cpp", "if (Mine >= MaxPendingSignals) return fault(16);"},
      {"sim/lib/X.cpp", "if (Lanes == 16) return isa::NumRegs;"},
      {"sim/lib/X.cpp", "unsigned NumRegs = 0; // registers seen so far"},
      {"sim/lib/X.cpp", "uint64_t Ready = In ? Free + Hw.DramLatencyCycles : 32;"},
      {"docs/x.md", "<!-- BEGIN GENERATED: t -->\n| `NumRegs` | 32 | scalar registers |\n"
                    "<!-- END GENERATED -->"},
      {"bench/x.py", "macs = c[\"derived\"][\"macs\"]"},
      {"docs/x.md", "`NumSemaphores` counting semaphores (docs/isa.md, Constants)."},
  };
  for (auto [File, Line] : Clean)
    EXPECT_TRUE(scanText(File, Line).empty()) << File << ": " << Line;
}

std::string readAll(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// NumSemaphores -> NUM_SEMAPHORES, as snow-tblgen names the localparam.
std::string upperSnake(std::string_view S) {
  std::string R;
  for (size_t I = 0; I < S.size(); ++I) {
    if (I && std::isupper(static_cast<unsigned char>(S[I])))
      R += '_';
    R += char(std::toupper(static_cast<unsigned char>(S[I])));
  }
  return R;
}

TEST(ConstantsOnce, GeneratedViewsCarryEveryConstant) {
  std::string Sv = readAll(SNOW_BIN_DIR "/../generated/snow_isa_pkg.sv");
  std::string Doc = readAll(SNOW_SOURCE_DIR "/docs/isa.md");
  ASSERT_FALSE(Sv.empty());
  for (const IsaConstant &K : AllIsaConstants) {
    if (std::string_view(K.Name).rfind("Op", 0) == 0)
      continue; // OpLo / OpWidth: the op field's F_OP_LO / F_OP_W.
    std::string V = std::to_string(K.Value);
    EXPECT_NE(Sv.find("localparam int unsigned " + upperSnake(K.Name) + " = " + V + ";"),
              std::string::npos)
        << K.Name;
    EXPECT_NE(Doc.find("| `" + std::string(K.Name) + "` | " + V + " |"), std::string::npos)
        << K.Name;
  }
}

TEST(ConstantsOnce, NoConstantIsTypedOutsideItsSource) {
  const fs::path Root = SNOW_SOURCE_DIR;
  std::map<std::pair<std::string, std::string>, unsigned> AllowUses;
  for (auto [File, Name] : Allowed)
    AllowUses[{File, Name}] = 0;
  std::vector<Finding> Bad;
  unsigned Files = 0;
  for (auto It = fs::recursive_directory_iterator(Root); It != fs::end(It); ++It) {
    fs::path Rel = fs::relative(It->path(), Root);
    if (It->is_directory()) {
      std::string First = Rel.begin()->string();
      if (First.rfind("build", 0) == 0 || First[0] == '.')
        It.disable_recursion_pending();
      continue;
    }
    if (!It->is_regular_file() || !isScanned(Rel))
      continue;
    ++Files;
    for (Finding &F : scanText(Rel.generic_string(), readAll(It->path()))) {
      auto A = AllowUses.find({F.File, F.Name});
      if (A != AllowUses.end())
        ++A->second;
      else
        Bad.push_back(std::move(F));
    }
  }
  EXPECT_GT(Files, 100u) << "the scan found almost no sources under " << Root;
  for (const Finding &F : Bad)
    ADD_FAILURE() << F.File << ":" << F.Line << ": '" << F.Name
                  << "' is given a number here, but its one source is isa/Snow.td or the "
                     "hardware config (read IsaConstants.h / HwConfig, snow_isa_pkg / "
                     "snow_hw_pkg, or `snowhw` JSON instead):\n    "
                  << F.Text;
  for (const auto &[Key, Uses] : AllowUses)
    EXPECT_GT(Uses, 0u) << "stale allowlist entry " << Key.first << " / " << Key.second;
}

} // namespace
