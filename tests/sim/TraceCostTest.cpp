//===- TraceCostTest.cpp - What a trace and a DRAM byte cost the hardware -===//
//
// Pins the costs of architecture.md §3.2 that the hardware pays beyond one
// tap a cycle (issue 17): a MAC trace's start-up (trace_startup_cycles) and
// the cycle of it a trace right after a trace skips (trace_lookahead), rows
// paid in whole granules (trace_row_granule, vmac / vmacp only), vmacp steps
// taking a pass per group of maps_read_ports read addresses (one if each
// group reads a bank of its own, maps_ports_per_bank), and the DRAM
// channel moving dram_gbps x dram_efficiency. Each starts from the timing16
// machine of SimTestUtil.h (every cost neutral) and turns one key; the
// expected cycles are derived in the comments, and each rule is probed where
// it changes (a granule's last element and the next one, ports dividing the
// groups or not).
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"
#include "snow/isa/Timing.h"

using namespace snow;
using namespace snow::test;

namespace {

std::string vmacLine(unsigned Rows, unsigned Len) {
  return "vmac r0, r0, r0, rows=" + std::to_string(Rows) + ", len=" + std::to_string(Len) +
         ", bstride=" + std::to_string(Len) + ", init=1\n";
}

std::string vmacpLine(unsigned Rows, unsigned Len, unsigned Pix) {
  return "vmacp r0, r0, r0, rows=" + std::to_string(Rows) + ", len=" + std::to_string(Len) +
         ", bstride=" + std::to_string(Len) + ", cstride=64, pix=" + std::to_string(Pix) +
         ", init=1\n";
}

// One vmac pushed in 0 starts in 1 and holds the unit S + N cycles (S of
// start-up, then its N = rows * len taps); its sums land MacPipe later, so the
// total is 1 + S + N + 4. The start-up counts as MAC-array time: the unit is
// busy and the array is held. Two back to back pay it twice:
// 1 + (S + 10) + (S + 20) + 4.
TEST(TraceCost, StartupDelaysEveryMacTrace) {
  isa::HwConfig Hw = timingHw(); // trace_lookahead 0: every trace pays
  for (unsigned S : {0u, 1u, 3u, 7u}) {
    Hw.TraceStartupCycles = S;
    sim::SimStats One = runText(vmacLine(3, 5) + "halt\n", Hw);
    EXPECT_EQ(One.Cycles, 1 + S + 15 + MacPipe) << S;
    EXPECT_EQ(One.Compute.Busy, S + 15) << S;
    EXPECT_EQ(One.MacCycles, S + 15) << S;
    sim::SimStats Two = runText(vmacLine(1, 10) + vmacLine(1, 20) + "halt\n", Hw);
    EXPECT_EQ(Two.Cycles, 1 + 2 * S + 30 + MacPipe) << S;
  }
}

// vdw pays the start-up too; pooling traces (vmax) do not: 3x3 -> 9 cycles.
TEST(TraceCost, StartupIsForMacTracesOnly) {
  isa::HwConfig Hw = timingHw();
  Hw.TraceStartupCycles = 5;
  EXPECT_EQ(
      runText("vdw r0, r0, r0, rows=3, len=3, bstride=64, cstride=64, init=1\nhalt\n", Hw).Cycles,
      1 + 5 + 9 + MacPipe);
  EXPECT_EQ(
      runText("li r1, imm=1024\nvmax r1, r0, rows=3, len=3, bstride=48, cstride=16\nhalt\n", Hw)
          .Cycles,
      2 + 9u);
}

// Lookahead: the second of two back-to-back traces skips one cycle of its
// start-up, as the sequencer loaded it during the first one's last cycle:
// 1 + (S + 10) + (S - 1 + 20) + 4. vdw traces too. Not with start-up 0
// (nothing to skip) or trace_lookahead 0.
TEST(TraceCost, LookaheadSkipsAStartupCycleOfATraceAfterATrace) {
  isa::HwConfig Hw = timingHw();
  Hw.TraceLookahead = 1;
  for (unsigned S : {0u, 1u, 3u}) {
    Hw.TraceStartupCycles = S;
    const uint64_t Saved = S ? 1 : 0;
    sim::SimStats Two = runText(vmacLine(1, 10) + vmacLine(1, 20) + "halt\n", Hw);
    EXPECT_EQ(Two.Cycles, 1 + 2 * S - Saved + 30 + MacPipe) << S;
    EXPECT_EQ(Two.MacCycles, 2 * S - Saved + 30) << S;
    EXPECT_EQ(Two.Compute.Busy, 2 * S - Saved + 30) << S;
    const std::string Dw = "vdw r0, r0, r0, rows=3, len=3, bstride=64, cstride=64, init=1\n";
    EXPECT_EQ(runText(Dw + Dw + "halt\n", Hw).Cycles, 1 + 2 * S - Saved + 18 + MacPipe) << S;
  }
  Hw.TraceLookahead = 0;
  Hw.TraceStartupCycles = 3;
  EXPECT_EQ(runText(vmacLine(1, 10) + vmacLine(1, 20) + "halt\n", Hw).Cycles, 1 + 6 + 30 + MacPipe);
}

// Only a trace right after a trace: one after a vbias (an operation between)
// pays its whole start-up, and a trace after it again skips a cycle:
// 1 + (3 + 10) + 1 + (3 + 20) + (3 - 1 + 5) + 4.
TEST(TraceCost, LookaheadFollowsOnlyATrace) {
  isa::HwConfig Hw = timingHw();
  Hw.TraceLookahead = 1;
  Hw.TraceStartupCycles = 3;
  sim::SimStats S = runText(
      vmacLine(1, 10) + "vbias r0, shift=0\n" + vmacLine(1, 20) + vmacLine(1, 5) + "halt\n", Hw);
  EXPECT_EQ(S.Cycles, 1 + 13 + 1 + 23 + 7 + MacPipe);
}

// The looked-ahead trace must have been in the queue during the last cycle
// of the trace before. The first trace (start-up 1, 5 taps) starts in 1 and
// ends in T = 7; the second, pushed in cycle P (after P - 1 scalar
// instructions), skips its start-up if P <= T - 2 (visible in T - 1), and
// starts in T either way if P <= T - 1.
TEST(TraceCost, LookaheadNeedsTheTraceQueuedBeforeTheLastCycle) {
  isa::HwConfig Hw = timingHw();
  Hw.TraceLookahead = 1;
  Hw.TraceStartupCycles = 1;
  const uint64_t T = 1 + 1 + 5;
  for (uint64_t P = 2; P <= T + 1; ++P) {
    std::string Text = vmacLine(1, 5);
    for (uint64_t K = 1; K < P; ++K)
      Text += "li r1, imm=1\n";
    const uint64_t Start = std::max(T, P + 1), Dur = (P + 2 <= T ? 0 : 1) + 10;
    EXPECT_EQ(runText(Text + vmacLine(1, 10) + "halt\n", Hw).Cycles, Start + Dur + MacPipe)
        << "pushed in " << P;
  }
}

// Granule 8: a row of len elements takes ceil(len / 8) * 8 steps. len 8 -> 8,
// 9 -> 16, 16 -> 16, 1 -> 8, for every row: 3 rows of 5 -> 24, of 9 -> 48.
TEST(TraceCost, RowsArePaidInWholeGranules) {
  isa::HwConfig Hw = timingHw();
  Hw.TraceRowGranule = 8;
  struct Case {
    unsigned Rows, Len;
    uint64_t Steps;
  };
  for (Case C : {Case{1, 8, 8}, Case{1, 9, 16}, Case{1, 16, 16}, Case{1, 1, 8}, Case{3, 5, 24},
                 Case{3, 9, 48}}) {
    sim::SimStats S = runText(vmacLine(C.Rows, C.Len) + "halt\n", Hw);
    EXPECT_EQ(S.Cycles, 1 + C.Steps + MacPipe) << C.Rows << "x" << C.Len;
    EXPECT_EQ(S.MacCycles, C.Steps) << C.Rows << "x" << C.Len;
  }
  // vdw reads a whole lane word per tap: not rounded (3 x 3 taps -> 9).
  EXPECT_EQ(
      runText("vdw r0, r0, r0, rows=3, len=3, bstride=64, cstride=64, init=1\nhalt\n", Hw).Cycles,
      1 + 9 + MacPipe);
}

// A vmacp step reads 2^pix pixel groups' map values at as many addresses:
// with P ports it takes ceil(2^pix / P) cycles. 4 vMACs: pix 0, 1, 2.
//   ports 1: 1, 2, 4 cycles a step;  ports 2: 1, 1, 2;  ports 3: 1, 1, 2;
//   ports 4: 1, 1, 1. A 2x6 trace has 12 steps. vmac needs one address.
TEST(TraceCost, VmacpStepsTakeAPassPerGroupOfReadPorts) {
  isa::HwConfig Hw = timingHw();
  const uint64_t Want[5][3] = {{}, {1, 2, 4}, {1, 1, 2}, {1, 1, 2}, {1, 1, 1}};
  for (unsigned Ports = 1; Ports <= 4; ++Ports) {
    Hw.MapsReadPorts = Ports;
    for (unsigned Pix = 0; Pix <= 2; ++Pix) {
      sim::SimStats S = runText(vmacpLine(2, 6, Pix) + "halt\n", Hw);
      EXPECT_EQ(S.Cycles, 1 + 12 * Want[Ports][Pix] + MacPipe) << Ports << " ports, pix " << Pix;
    }
    EXPECT_EQ(runText(vmacLine(2, 6) + "halt\n", Hw).Cycles, 1 + 12 + MacPipe) << Ports;
  }
}

// Ports per bank (maps_ports_per_bank): a vmacp whose pixel groups each read
// a bank of their own (16384 elements a bank) takes one cycle a step, even on
// one port. A 2x6 trace (12 steps, group 0 reading [a2, a2 + 12)) with 1
// port: pix 1 at cstride 16384 -> 12 cycles, at cstride 64 (one bank) -> 24;
// group 0 crossing a bank boundary (a2 16380: 16380 .. 16391) -> 24, just
// inside it (a2 16372: .. 16383) -> 12; pix 2 over four banks -> 12; the key
// 0 (ports for the whole buffer) -> 24 and 48.
TEST(TraceCost, VmacpGroupsInBanksOfTheirOwnTakeOneCycleAStep) {
  isa::HwConfig Hw = timingHw();
  Hw.MapsReadPorts = 1;
  auto Run = [&](unsigned A2, unsigned CStride, unsigned Pix) {
    const std::string Text =
        "li r2, imm=" + std::to_string(A2) +
        "\nvmacp r0, r2, r0, rows=2, len=6, bstride=6, cstride=" + std::to_string(CStride) +
        ", pix=" + std::to_string(Pix) + ", init=1\nhalt\n";
    return runText(Text, Hw).Cycles - 2 - MacPipe; // after the li, before the drain
  };
  EXPECT_EQ(Run(0, MapsBankElems, 1), 12u);
  EXPECT_EQ(Run(0, 64, 1), 24u);
  EXPECT_EQ(Run(16380, MapsBankElems, 1), 24u);
  EXPECT_EQ(Run(16372, MapsBankElems, 1), 12u);
  EXPECT_EQ(Run(0, MapsBankElems, 2), 12u);
  EXPECT_EQ(Run(0, 2 * MapsBankElems, 1), 12u);
  Hw.MapsPortsPerBank = 0;
  EXPECT_EQ(Run(0, MapsBankElems, 1), 24u);
  EXPECT_EQ(Run(0, MapsBankElems, 2), 48u);
  EXPECT_FALSE(timing::groupsOwnBanks(Hw, 0, 12, MapsBankElems));
  Hw.MapsPortsPerBank = 1;
  EXPECT_TRUE(timing::groupsOwnBanks(Hw, 0, 12, MapsBankElems));
  EXPECT_FALSE(timing::groupsOwnBanks(Hw, 0, 0, MapsBankElems)); // reads nothing
}

// The three compose: start-up, then rows of whole granules, each step as many
// passes as its reads need. Granule 16, 1 port, start-up 2, vmacp pix 1 of
// 2 rows x 20: 2 + 2 * 32 * 2 = 130 cycles.
TEST(TraceCost, CostsCompose) {
  isa::HwConfig Hw = timingHw();
  Hw.TraceStartupCycles = 2;
  Hw.TraceRowGranule = 16;
  Hw.MapsReadPorts = 1;
  EXPECT_EQ(runText(vmacpLine(2, 20, 1) + "halt\n", Hw).Cycles, 1 + 130 + MacPipe);
  EXPECT_EQ(timing::macTraceCycles(Hw, 2, 20, 1), 130u);
}

// The weights a trace reads are its taps, not its cycles: a 9-tap trace at
// word 500 reads words 500..508 of bank 0 (512 words a bank) for its 16
// granule steps, so a load into word 512 (bank 1) while it runs is no hazard.
// The trace starts in 4 (three li before it), the ld.wgt in 5: 64 burst bytes,
// D = 4, granted 5, done 5 + 4 + 32 = 41 = total. One word lower (511) the
// load hits the bank the trace reads: a fault.
TEST(TraceCost, WeightsWindowIsTheTapsNotTheCycles) {
  isa::HwConfig Hw = timingHw();
  Hw.TraceRowGranule = 16;
  auto Program = [&](unsigned LoadAt) {
    return assembleOrFail("li r1, imm=0x10000\n"
                          "li r3, imm=500\n"
                          "li r4, imm=" +
                              std::to_string(LoadAt) +
                              "\n"
                              "vmac r0, r0, r3, rows=1, len=9, bstride=0, init=1\n"
                              "ld.wgt r1, r4, idx=0, rows=1, len=1, dstride=0, bstride=0, mask=1\n"
                              "halt\n",
                          Hw);
  };
  EXPECT_TRUE(ranFor(runForFault(Program(512)), 41));
  EXPECT_TRUE(isFaultAt(runForFault(Program(511)), 4, "ld.wgt", "synchronization"));
}

// The channel moves dram_gbps x dram_efficiency: at 4.2 GB/s x 0.5 and
// 250 MHz, bw_q8 = round(2150.4) = 2150, so 1024 bytes hold it
// ceil(262144 / 2150) = 122 cycles (61 at full efficiency): li in 0, the
// load posts and is granted in 2, done 2 + 122 + 32 = 156.
TEST(TraceCost, DramEfficiencyDeratesTheChannel) {
  isa::HwConfig Hw = timingHw();
  Hw.DramEfficiency = 0.5;
  ASSERT_EQ(Hw.dramBwQ8(), 2150u);
  sim::SimStats S = runText("li r1, imm=0x10000\n"
                            "ld.map r1, r0, rows=1, len=512, dstride=0, bstride=512, mask=1\n"
                            "halt\n",
                            Hw);
  EXPECT_EQ(S.DramBusyCycles, 122u);
  EXPECT_EQ(S.Cycles, 156u);
  EXPECT_EQ(S.DramReadBytes, 1024u) << "payload bytes do not change";
}

// The planner's per-row charge for a run of pixels' channel slices
// (timing::stridedRowBytes) is the engine's (dmaBurstBytes) per row over a
// whole cycle of offsets: a 64-channel slice (128 bytes) of 144-channel
// pixels (288 bytes) starts at 0, 32, 0, 32 ... bytes into a 64-byte burst,
// touching 2 and 3 bursts, 160 bytes on average; whole bursts stay whole.
TEST(TraceCost, StridedRowsCostTheirMeanBurstSpan) {
  isa::HwConfig Hw = timingHw();
  Hw.DramBurstBytes = 64;
  EXPECT_EQ(timing::stridedRowBytes(Hw, 128, 0, 288), 160u);
  EXPECT_EQ(timing::stridedRowBytes(Hw, 128, 0, 256), 128u);
  EXPECT_EQ(timing::stridedRowBytes(Hw, 32, 256, 288), 64u);
  for (uint64_t Row : {2u, 30u, 64u, 100u, 128u})
    for (uint64_t Stride : {288u, 2000u, 1152u, 66u})
      for (uint64_t Off : {0u, 16u, 62u}) {
        const uint64_t N = 64; // A whole number of offset cycles (64 / gcd).
        const double Engine =
            double(timing::dmaBurstBytes(Hw, 0x10000 + Off, int64_t(Stride), N, Row)) / N;
        EXPECT_NEAR(double(timing::stridedRowBytes(Hw, Row, Off, Stride)), Engine, 0.5)
            << Row << " bytes every " << Stride << " from " << Off;
      }
}

} // namespace
