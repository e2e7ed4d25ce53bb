//===- HwConfigTest.cpp - Presets, the YAML parser and toYaml -------------===//
//
// Pins the built-in presets and their derived numbers (the simulator, compiler
// and RTL all read these), the strict parser's messages (file:line, key, the
// offending text), base presets with overrides, the canonical toYaml form and
// the key table embedded in docs/hardware-config.md.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/HwConfig.h"
#include "../support/ScratchDir.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>
#include <regex>
#include <sstream>

using namespace snow::isa;

namespace {

::testing::AssertionResult contains(const std::string &Text, const std::string &Part) {
  if (Text.find(Part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << Text << "' does not contain '" << Part << "'";
}

::testing::AssertionResult matches(const std::string &Text, const std::string &Re) {
  if (std::regex_match(Text, std::regex(Re)))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << Text << "' does not match '" << Re << "'";
}

HwConfig preset(const std::string &Name) {
  auto C = loadHwConfig(Name);
  if (!C) {
    ADD_FAILURE() << llvm::toString(C.takeError());
    return HwConfig();
  }
  return *C;
}

/// The parse error for Text, or "" if it parsed.
std::string parseError(const std::string &Text) {
  auto C = parseHwConfig(Text, "f.yaml");
  return C ? std::string() : llvm::toString(C.takeError());
}

/// A scratch directory removed after each test.
class HwFileTest : public snow::test::ScratchDirTest {
protected:
  HwFileTest() : ScratchDirTest("snow-hwcfg") {}
};

TEST(HwPresets, NamesAreTheYamlFilesSorted) {
  EXPECT_EQ(hwPresetNames(),
            (std::vector<std::string>{"big1024", "mini64", "narrow8", "zc706", "zc706_paper"}));
}

TEST(HwPresets, EveryPresetLoadsValidatesAndIsNamedAfterItsFile) {
  for (const std::string &N : hwPresetNames()) {
    auto C = loadHwConfig(N);
    ASSERT_TRUE(bool(C)) << N << ": " << llvm::toString(C.takeError());
    EXPECT_EQ(C->Name, N);
    EXPECT_FALSE(bool(validate(*C, N)));
    EXPECT_LE(C->onchipBytes(), uint64_t(C->OnchipBudgetKib) * 1024) << N;
  }
}

TEST(HwPresets, Zc706IsThePublishedSnowflakePoint) {
  HwConfig C = preset("zc706");
  EXPECT_EQ(C, HwConfig()) << "struct defaults and the zc706 preset must agree";
  EXPECT_EQ(C.cus(), 4u);
  EXPECT_EQ(C.macs(), 256u);
  EXPECT_DOUBLE_EQ(C.peakGops(), 128.0);
  // 4.2 GB/s nominal x 0.8 sustained / 250 MHz = 13.44 B/cycle.
  EXPECT_EQ(C.dramBwQ8(), 3441u);
  EXPECT_EQ(C.dramCycles(64), 5u); // ceil(64 * 256 / 3441) = ceil(4.76).
  EXPECT_EQ(C.dramCycles(0), 0u);
  EXPECT_EQ(C.dramCycles(3441), 256u);
  EXPECT_EQ(C.dramCycles(3442), 257u);
  EXPECT_EQ(C.mapsElems(), 131072u);
  EXPECT_EQ(C.mapsBankElems(), 16384u);
  EXPECT_EQ(C.weightWordBytes(), 32u);
  EXPECT_EQ(C.weightsWords(), 1024u);
  EXPECT_EQ(C.weightsBankWords(), 128u); // hazard banks (eight since 2026-12-08)
  EXPECT_EQ(C.dramBytes(), uint64_t(1) << 30);
  // 4 x 256 KiB maps + 16 x 32 KiB weights + 16 x 16 lanes x 128 x 48 bits.
  EXPECT_EQ(C.onchipBytes(), 1048576u + 524288u + 196608u + 3 * 64 * 16 + 32768u);
  EXPECT_LE(C.onchipBytes(), 2395u * 1024);
}

TEST(HwPresets, Mini64DerivedValues) {
  HwConfig C = preset("mini64");
  EXPECT_EQ(C.cus(), 1u);
  EXPECT_EQ(C.macs(), 64u);
  EXPECT_DOUBLE_EQ(C.peakGops(), 32.0);
  // 4.2 GB/s x 0.75 sustained / 250 MHz = 12.6 B/cycle: round(3225.6).
  EXPECT_EQ(C.dramBwQ8(), 3226u);
  EXPECT_EQ(C.onchipBytes(), 262144u + 131072u + 49152u + 3 * 64 * 16 + 32768u);
}

TEST(HwPresets, Big1024DerivedValues) {
  HwConfig C = preset("big1024");
  EXPECT_EQ(C.cus(), 8u);
  EXPECT_EQ(C.macs(), 1024u);
  EXPECT_DOUBLE_EQ(C.peakGops(), 512.0);
  // 12.8 GB/s x 0.8 (zc706's sustained share) / 250 MHz = 40.96 B/cycle.
  EXPECT_EQ(C.dramBwQ8(), 10486u);
  EXPECT_EQ(C.dramCycles(64), 2u);
  EXPECT_EQ(C.onchipBytes(), 2097152u + 2097152u + 786432u + 3 * 64 * 16 + 32768u);
  EXPECT_EQ(C.AccEntries, 128u) << "inherited from zc706";
}

TEST(HwPresets, Narrow8DerivedValues) {
  HwConfig C = preset("narrow8");
  EXPECT_EQ(C.cus(), 3u);
  EXPECT_EQ(C.macs(), 48u);
  EXPECT_DOUBLE_EQ(C.peakGops(), 24.0);
  EXPECT_EQ(C.dramBwQ8(), 819u);    // 1 GB/s x 0.8 / 250 MHz = 3.2 B/cycle: round(819.2).
  EXPECT_EQ(C.dramCycles(64), 21u); // ceil(16384 / 819) = ceil(20.005).
  EXPECT_EQ(C.weightWordBytes(), 16u);
  EXPECT_EQ(C.weightsWords(), 512u);
  EXPECT_EQ(C.weightsBankWords(), 64u); // zc706's eight banks
  EXPECT_EQ(C.mapsElems(), 32768u);
  EXPECT_EQ(C.mapsBankElems(), 4096u);
  EXPECT_EQ(C.onchipBytes(), 196608u + 49152u + 9216u + 3 * 64 * 16 + 32768u);
}

// The paper's datapath as the issue states it: 256 MACs at 250 MHz, one maps
// read address a cycle, a 256-bit writeback, whole 256-bit map words per trace
// row, a trace start-up, a derated DRAM.
TEST(HwPresets, Zc706PaperIsThePublishedDatapath) {
  HwConfig C = preset("zc706_paper");
  EXPECT_EQ(C.macs(), 256u);
  EXPECT_DOUBLE_EQ(C.ClockMhz, 250.0);
  EXPECT_DOUBLE_EQ(C.peakGops(), 128.0);
  EXPECT_EQ(C.MapsReadPorts, 1u);
  EXPECT_EQ(C.WritebackWords * C.LanesPerVmac * 16, 256u) << "bits written back a cycle";
  EXPECT_EQ(C.writebackCyclesPerEntry(), 4u);
  EXPECT_EQ(C.TraceRowGranule * 16, 256u) << "a trace row is paid in 256-bit words";
  EXPECT_GT(C.TraceStartupCycles, 0u);
  EXPECT_DOUBLE_EQ(C.DramGbps, 4.2);
  EXPECT_GT(C.DramEfficiency, 0.7);
  EXPECT_LE(C.DramEfficiency, 0.85) << "a long sequential stream moves at most 85 %";
}

TEST(HwYaml, ToYamlRoundTripsEveryPreset) {
  for (const std::string &N : hwPresetNames()) {
    HwConfig C = preset(N);
    auto Back = parseHwConfig(C.toYaml(), N);
    ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
    EXPECT_EQ(*Back, C) << N;
  }
}

TEST(HwYaml, ToYamlIsTheZc706PresetWithoutComments) {
  std::string Preset = snow::test::slurp(SNOW_SOURCE_DIR "/isa/presets/zc706.yaml"), Keys;
  std::istringstream In(Preset);
  for (std::string Line; std::getline(In, Line);)
    if (!Line.empty() && Line[0] != '#')
      Keys += Line + "\n";
  EXPECT_EQ(preset("zc706").toYaml(), Keys);
}

TEST(HwYaml, DoublesRoundTripExactly) {
  HwConfig C;
  C.ClockMhz = 1000.0 / 3;
  C.DramGbps = 0.1 + 0.2;
  auto Back = parseHwConfig(C.toYaml(), "t");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->ClockMhz, C.ClockMhz);
  EXPECT_EQ(Back->DramGbps, C.DramGbps);
  EXPECT_TRUE(contains(preset("zc706").toYaml(), "clock_mhz: 250\n"));
  EXPECT_TRUE(contains(preset("zc706").toYaml(), "dram_gbps: 4.2\n"));
}

TEST(HwYaml, MissingKeysTakeStructDefaults) {
  auto C = parseHwConfig("name: tiny\nclusters: 2\n", "f.yaml");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  HwConfig Want;
  Want.Name = "tiny";
  Want.Clusters = 2;
  EXPECT_EQ(*C, Want);
}

TEST(HwYaml, BaseStartsFromAPresetAndKeysOverrideIt) {
  // base may come after the keys it is overridden by: it is applied first.
  auto C = parseHwConfig("lanes_per_vmac: 8\nname: mini8\nbase: mini64\n", "f.yaml");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  HwConfig Want = preset("mini64");
  Want.LanesPerVmac = 8;
  Want.Name = "mini8";
  EXPECT_EQ(*C, Want);
  // Without a name of its own the result keeps the base's.
  auto D = parseHwConfig("base: narrow8\ndram_mib: 64\n", "f.yaml");
  ASSERT_TRUE(bool(D));
  EXPECT_EQ(D->Name, "narrow8");
  EXPECT_EQ(D->DramMib, 64u);
  EXPECT_EQ(D->LanesPerVmac, 8u);
}

TEST(HwYaml, UnknownKeyNamesFileLineAndSuggests) {
  EXPECT_EQ(parseError("name: x\n\ncluster: 2\n"),
            "f.yaml:3: unknown key 'cluster' in hardware config (did you mean 'clusters'?)");
  EXPECT_EQ(parseError("bsae: zc706\n"),
            "f.yaml:1: unknown key 'bsae' in hardware config (did you mean 'base'?)");
  EXPECT_EQ(parseError("frobnicate: 1\n"), "f.yaml:1: unknown key 'frobnicate' in hardware config");
}

TEST(HwYaml, TypeErrorsQuoteTheValue) {
  EXPECT_EQ(parseError("name: x\nclusters: four\n"),
            "f.yaml:2: key 'clusters': expected an unsigned integer, got 'four'");
  EXPECT_EQ(parseError("clusters: -1\n"),
            "f.yaml:1: key 'clusters': expected an unsigned integer, got '-1'");
  EXPECT_EQ(parseError("clusters: 1.5\n"),
            "f.yaml:1: key 'clusters': expected an unsigned integer, got '1.5'");
  EXPECT_EQ(parseError("clusters: 4294967296\n"),
            "f.yaml:1: key 'clusters': expected an unsigned integer, got '4294967296'");
  EXPECT_EQ(parseError("clusters:\nname: x\n"),
            "f.yaml:1: key 'clusters': expected an unsigned integer, got nothing");
  EXPECT_EQ(parseError("clusters: [1, 2]\n"),
            "f.yaml:1: key 'clusters': expected an unsigned integer, got a list");
  EXPECT_EQ(parseError("clock_mhz: fast\n"),
            "f.yaml:1: key 'clock_mhz': expected a number, got 'fast'");
  EXPECT_EQ(parseError("dram_gbps: .inf\n"),
            "f.yaml:1: key 'dram_gbps': expected a number, got '.inf'");
  EXPECT_EQ(parseError("dram_gbps: nan\n"),
            "f.yaml:1: key 'dram_gbps': expected a number, got 'nan'");
  EXPECT_EQ(parseError("name: {a: 1}\n"), "f.yaml:1: key 'name': expected a name, got a map");
  EXPECT_EQ(parseError("base: [zc706]\n"),
            "f.yaml:1: key 'base': expected a preset name, got a list");
}

TEST(HwYaml, SyntaxErrorsCarryLineAndColumn) {
  EXPECT_TRUE(matches(parseError("name: x\nclusters: [1\n"), "f\\.yaml:[23]:[0-9]+: .+"));
  EXPECT_TRUE(matches(parseError("a: 1\n  b: 2\n"), "f\\.yaml:2:[0-9]+: .+"));
}

TEST(HwYaml, DuplicateKeysAreErrors) {
  EXPECT_EQ(parseError("clusters: 1\nname: x\nclusters: 2\n"),
            "f.yaml:3: duplicate key 'clusters' (first set on line 1)");
  EXPECT_EQ(parseError("base: zc706\nbase: mini64\n"),
            "f.yaml:2: duplicate key 'base' (first set on line 1)");
}

TEST(HwYaml, UnknownBasePresetListsThePresets) {
  EXPECT_EQ(parseError("name: x\nbase: zc707\n"), "f.yaml:2: unknown base preset 'zc707' (presets: "
                                                  "big1024, mini64, narrow8, zc706, zc706_paper)");
}

TEST(HwYaml, DocumentMustBeOneMap) {
  EXPECT_EQ(parseError("- 1\n- 2\n"), "f.yaml:1: expected a map of 'key: value' lines, got a list");
  EXPECT_EQ(parseError("zc706\n"), "f.yaml:1: expected a map of 'key: value' lines, got 'zc706'");
  EXPECT_EQ(parseError(""),
            "f.yaml:1: expected a map of 'key: value' lines, got an empty document");
  EXPECT_EQ(parseError("# only a comment\n"),
            "f.yaml:1: expected a map of 'key: value' lines, got an empty document");
  EXPECT_EQ(parseError("clusters: 1\n---\nclusters: 2\n"),
            "f.yaml:2: expected one YAML document, got a second (a '---' line starts another)");
  EXPECT_EQ(parseError("[1]: 2\n"), "f.yaml:1: expected a key name, got a list");
}

TEST(HwYaml, ParseDoesNotValidate) {
  // Range checks belong to validate(), so tools can print a bad config.
  auto C = parseHwConfig("lanes_per_vmac: 12\n", "f.yaml");
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->LanesPerVmac, 12u);
}

TEST(HwLoad, UnknownPresetOrFileListsThePresets) {
  auto C = loadHwConfig("zc7060");
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()), "unknown hardware preset or file 'zc7060' (presets: "
                                           "big1024, mini64, narrow8, zc706, zc706_paper)");
}

TEST_F(HwFileTest, LoadsAFileWithBaseAndOverrides) {
  std::string Path = write("my.yaml", "# mine\nbase: zc706\nname: wide\nlanes_per_vmac: 32\n");
  auto C = loadHwConfig(Path);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_EQ(C->Name, "wide");
  EXPECT_EQ(C->macs(), 512u);
}

TEST_F(HwFileTest, ValidationErrorsInAFilePointAtTheLine) {
  std::string Path = write("bad.yaml", "base: zc706\nname: bad\nlanes_per_vmac: 12\n");
  auto C = loadHwConfig(Path);
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()),
            Path + ":3: key 'lanes_per_vmac': must be a power of two in 1..64, got '12'");
}

TEST_F(HwFileTest, InheritedKeysAreBlamedOnTheFile) {
  // The budget comes from the base; the file is named without a line.
  std::string Path = write("big.yaml", "base: zc706\nmaps_buffer_kib: 1024\n");
  auto C = loadHwConfig(Path);
  ASSERT_FALSE(bool(C));
  EXPECT_TRUE(contains(llvm::toString(C.takeError()),
                       Path + ": key 'onchip_budget_kib': buffers and accumulators need"));
}

TEST_F(HwFileTest, ParseErrorsInAFileNameThePath) {
  std::string Path = write("typo.yaml", "base: zc706\nlanes: 8\n");
  auto C = loadHwConfig(Path);
  ASSERT_FALSE(bool(C));
  EXPECT_TRUE(contains(llvm::toString(C.takeError()), Path + ":2: unknown key 'lanes'"));
}

TEST_F(HwFileTest, DirectoryIsNotAConfig) {
  auto C = loadHwConfig(Dir);
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()),
            "cannot read hardware config '" + Dir + "': it is a directory");
}

TEST(HwDocs, KeyTableInDocsMatchesTheParser) {
  std::string Doc = snow::test::slurp(SNOW_SOURCE_DIR "/docs/hardware-config.md");
  std::string Table = hwConfigKeyTable();
  EXPECT_NE(Doc.find(Table), std::string::npos)
      << "docs/hardware-config.md is out of date; its key table should read:\n"
      << Table;
}

TEST(HwDocs, KeyTableListsEveryKeyOfToYaml) {
  std::string Table = hwConfigKeyTable();
  std::istringstream In(HwConfig().toYaml());
  unsigned Keys = 0;
  for (std::string Line; std::getline(In, Line); ++Keys)
    EXPECT_TRUE(contains(Table, "| `" + Line.substr(0, Line.find(':')) + "` |"));
  EXPECT_EQ(Keys, 34u);
}

} // namespace
