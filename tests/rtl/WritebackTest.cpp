//===- WritebackTest.cpp - The writeback's own walker, sim vs RTL ---------===//
//
// A vwb of rows of entries (its len and cstride) into an area of another
// pitch, and on machines with writeback_overlap the operations after a vwb:
// a trace into another entry and bank runs beside it, a trace into an entry
// it has yet to read waits for that read, a trace reading a bank it writes,
// a second vwb and a pool wait for its end (docs/architecture.md §3.2,
// "Writeback beside the traces"). snowsim and snowrtl must agree in cycles
// and bytes (CoSim.h); zc706_paper runs the same program with every vwb
// holding the compute unit.
//
//===----------------------------------------------------------------------===//

#include "CoSim.h"
#include "Programs.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::test;

namespace {

class RtlWritebackOn : public CoSimTest, public ::testing::WithParamInterface<const char *> {};

TEST_P(RtlWritebackOn, RowsOfEntriesAndTracesBeside) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  const unsigned C = Hw->VmacsPerCu * Hw->LanesPerVmac;
  const unsigned Area = 32768;
  std::string S = accProgramStart("wb2d", *Hw, 4);
  // Entries 0..5: the map's first six pixels; then two rows of three
  // entries into a three-pixel-wide area, with ReLU.
  S += li(3, 0) + li(4, 0) + fmt::format("vpre r3, r4, rows=6, bstride={}, shift=2, init=1\n", C);
  S +=
      li(8, 5) + li(9, 0) + li(10, 0) + li(7, Area) +
      fmt::format("vwb r3, r7, rows=2, len=3, bstride={}, cstride={}, shift=2, relu=1\n", 3 * C, C);
  // Right after it: a trace into entry 5 (once the vwb has read it), one
  // into entry 6 from the map (beside it: another entry, another bank).
  S += "vmac r8, r9, r10, rows=1, len=16, bstride=16, init=1\n";
  S += li(8, 6) + fmt::format("vmac r8, r9, r10, rows=1, len={0}, bstride={0}, init=1\n", C);
  // Entries 5 and 6 into the area, then a trace from the area's bank into
  // entry 7 (once written), its writeback, and a pool after it.
  S += li(3, 5) + li(7, Area + 6 * C) + li(8, 7) + li(9, Area) +
       fmt::format("vwb r3, r7, rows=2, bstride={}, shift=8, relu=0\n", C);
  S += fmt::format("vmac r8, r9, r10, rows=1, len={0}, bstride={0}, init=1\n", C);
  S += li(3, 7) + li(7, Area + 8 * C) + li(12, Area + 9 * C) + li(13, Area) +
       fmt::format("vwb r3, r7, rows=1, bstride={}, shift=8, relu=0\n", C);
  S += fmt::format("vmax r12, r13, rows=1, len=2, bstride=0, cstride={}, words=0\n", C);
  S += "signal.ex idx=1\nwait.st idx=1\n";
  S += li(8, 0x40000) + li(7, Area) +
       fmt::format("st.map r8, r7, idx=0, rows=1, len={}, dstride=0, bstride=0\n", 16 * C);
  S += "halt\n";
  assembleFor("wb2d.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("wb2d.bin"));
}

INSTANTIATE_TEST_SUITE_P(Presets, RtlWritebackOn,
                         ::testing::Values("mini64", "zc706", "big1024", "zc706_paper"));

} // namespace
