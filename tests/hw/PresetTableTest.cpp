//===- PresetTableTest.cpp - The presets table of the docs is generated ---===//
//
// docs/hardware-config.md shows every preset's shape, clock, DRAM and on-chip
// use. Those numbers live in isa/presets/*.yaml; the doc carries a copy of
// hwPresetTable() (so it reads without a build) and this test fails when the
// copy differs, so a preset edited without the doc, or a doc value retyped by
// hand, is caught.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/HwExport.h"
#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <vector>

using namespace snow::isa;

namespace {

TEST(HwDocs, PresetTableInDocsMatchesThePresets) {
  std::ifstream In(SNOW_SOURCE_DIR "/docs/hardware-config.md", std::ios::binary);
  ASSERT_TRUE(In.good());
  std::ostringstream Doc;
  Doc << In.rdbuf();
  std::string Table = hwPresetTable();
  EXPECT_NE(Doc.str().find(Table), std::string::npos)
      << "docs/hardware-config.md is out of date; its presets table should read:\n"
      << Table;
}

TEST(HwDocs, PresetTableHasARowPerPresetZc706First) {
  std::istringstream In(hwPresetTable());
  std::vector<std::string> Rows;
  for (std::string Line; std::getline(In, Line);)
    Rows.push_back(Line);
  ASSERT_EQ(Rows.size(), 2 + hwPresetNames().size());
  EXPECT_EQ(Rows[2].rfind("| `zc706` | ", 0), 0u) << Rows[2];
  for (const std::string &N : hwPresetNames())
    EXPECT_EQ(
        std::count_if(Rows.begin(), Rows.end(),
                      [&](const std::string &R) { return R.rfind("| `" + N + "` |", 0) == 0; }),
        1)
        << N;
}

} // namespace
