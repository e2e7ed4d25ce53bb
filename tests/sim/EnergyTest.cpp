//===- EnergyTest.cpp - The energy model: arithmetic, tables, errors ------===//
//
// energyOf against a hand computation, the built-in tables' keys and
// sources, and the table parser's errors. The end-to-end check (AlexNet on
// zc706 draws what the Snowflake paper measured) is in
// tests/tools/EnergyToolTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Energy.h"
#include "snow/isa/HwConfig.h"
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace snow;
using namespace snow::sim;

namespace {

EnergyModel model() {
  EnergyModel M;
  M.Name = "t";
  M.MacPj = 2;
  M.BufferPjPerBit = 0.5;
  M.DramPjPerByte = 100;
  M.InstructionPj = 10;
  M.StaticW = 3;
  return M;
}

} // namespace

TEST(Energy, EveryEventIsChargedAsDocumented) {
  auto Hw = isa::loadHwConfig("zc706"); // 4 CUs x 4 vMACs x 16 lanes, 250 MHz
  ASSERT_TRUE(bool(Hw));
  EnergyEvents E;
  E.Cycles = 1000;
  E.MacCycles = 800;
  E.DramReadBytes = 4000;
  E.DramWriteBytes = 1000;
  E.Instructions = 50;
  Energy R = energyOf(model(), *Hw, E);
  // 800 cycles x 256 lanes x 2 pJ.
  EXPECT_NEAR(R.MacJ, 800.0 * 256 * 2e-12, 1e-18);
  // Per MAC cycle, 16 vMACs read a 16-lane weight word and a map value:
  // 800 x 16 x 17 x 16 bits; bytes read land in a buffer (4000 x 8 bits),
  // bytes written are written there and read back (2 x 1000 x 8 bits).
  const double Bits = 800.0 * 16 * 17 * 16 + 4000.0 * 8 + 2 * 1000.0 * 8;
  EXPECT_NEAR(R.BufferJ, Bits * 0.5e-12, 1e-18);
  EXPECT_NEAR(R.DramJ, 5000 * 100e-12, 1e-18);
  EXPECT_NEAR(R.ControlJ, 50 * 10e-12, 1e-18);
  // 3 W for 1000 cycles at 250 MHz (4 us).
  EXPECT_NEAR(R.StaticJ, 3 * 4e-6, 1e-15);
  EXPECT_NEAR(R.totalJ(), R.MacJ + R.BufferJ + R.DramJ + R.ControlJ + R.StaticJ, 1e-18);
  // Nothing happening costs only time.
  Energy Idle = energyOf(model(), *Hw, EnergyEvents{1000, 0, 0, 0, 0});
  EXPECT_EQ(Idle.dynamicJ(), 0);
}

TEST(Energy, TheZc706TableIsBuiltInAndSourced) {
  auto M = builtinEnergyModel("zc706");
  ASSERT_TRUE(M.has_value());
  EXPECT_EQ(M->Name, "zc706");
  EXPECT_GT(M->MacPj, 0);
  EXPECT_GT(M->StaticW, 0);
  EXPECT_FALSE(builtinEnergyModel("no-such-hardware").has_value());
  // Every number in the table has a comment above it saying where it is from.
  std::ifstream In(std::string(SNOW_SOURCE_DIR) + "/sim/energy/zc706.yaml");
  std::string Line, Comment; // the comment block above the current line
  unsigned Numbers = 0;
  while (std::getline(In, Line)) {
    if (Line.rfind("#", 0) == 0) {
      Comment += Line + "\n";
      continue;
    }
    if (Line.find("_pj") != std::string::npos || Line.rfind("static_w", 0) == 0) {
      ++Numbers;
      EXPECT_NE(Comment.find("["), std::string::npos) << "no source cited above: " << Line;
    }
    if (Line.rfind("static_w", 0) == 0) {
      EXPECT_NE(Comment.find("FITTED"), std::string::npos) << "the fitted number must say so";
    }
    Comment.clear();
  }
  EXPECT_EQ(Numbers, 5u);
}

TEST(Energy, BadTablesAreRefusedWithFileAndLine) {
  const std::string Good = "name: x\nmac_pj: 1\nbuffer_pj_per_bit: 1\ndram_pj_per_byte: 1\n"
                           "instruction_pj: 1\nstatic_w: 1\n";
  EXPECT_TRUE(bool(parseEnergyModel(Good, "e.yaml")));
  struct Case {
    std::string Text, Error;
  } Cases[] = {
      {Good + "mac_pJ: 2\n", "e.yaml:7: unknown key 'mac_pJ'"},
      {"name: x\nmac_pj: 1\n", "e.yaml: missing key 'buffer_pj_per_bit'"},
      {"name: x\nmac_pj: -1\nbuffer_pj_per_bit: 1\ndram_pj_per_byte: 1\ninstruction_pj: "
       "1\nstatic_w: 1\n",
       "e.yaml:2: 'mac_pj' must be a number from 0 to 1e6, got '-1'"},
      {"name: x\nmac_pj: [1]\n", "e.yaml:2: 'mac_pj' must be a number"},
      {"- 1\n", "e.yaml: an energy table is a map"},
      {"name: [x\n", "e.yaml:"},
  };
  for (const Case &C : Cases) {
    auto M = parseEnergyModel(C.Text, "e.yaml");
    ASSERT_FALSE(bool(M)) << C.Text;
    std::string E = llvm::toString(M.takeError());
    EXPECT_NE(E.find(C.Error), std::string::npos) << E;
  }
  auto Missing = loadEnergyModel("/no/such/table.yaml");
  ASSERT_FALSE(bool(Missing));
  EXPECT_NE(llvm::toString(Missing.takeError()).find("built-in tables: zc706"), std::string::npos);
}
