//===- ComputeTimingTest.cpp - Durations of compute and fill operations ---===//
//
// Pins the compute rows of the table in architecture.md §3.2 and rules 3.2.3-4:
// a vmac occupies the compute unit rows*len cycles and its accumulators are
// final mac_pipeline_depth cycles later; vwb waits for that (counted as
// wait_acc) and then takes rows*vmacs_per_cu; vbias and mark take one cycle;
// vmax/vavg rows*len; fill (load unit) rows*ceil(len/lanes). Expected totals
// are derived in the comments; the drain boundary is probed at N-1, N, N+1.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

using namespace snow;
using namespace snow::test;

namespace {

std::string vmacLine(unsigned Rows, unsigned Len) {
  return "vmac r0, r0, r0, rows=" + std::to_string(Rows) + ", len=" + std::to_string(Len) +
         ", bstride=" + std::to_string(Len) + ", init=1\n";
}

// One vmac with rows*len = N: pushed in 0, starts in 1 (§3.2.1), unit ready in
// 1 + N, accumulators final in 1 + N + 4. halt runs in 1. Total (§3.7) =
// max(1 + 1, 1 + N, 1 + N + 4) = N + 5. The unit is busy N of those cycles.
TEST(ComputeTiming, SingleVmacIsIssuePlusTracePlusPipeline) {
  isa::HwConfig Hw = timingHw();
  struct Case {
    unsigned Rows, Len;
  };
  for (Case C : {Case{1, 1}, Case{1, 10}, Case{3, 5}, Case{2, 100}, Case{4, 192}}) {
    uint64_t N = uint64_t(C.Rows) * C.Len;
    sim::SimStats S = runText(vmacLine(C.Rows, C.Len) + "halt\n", Hw);
    EXPECT_EQ(S.Cycles, 1 + N + MacPipe) << C.Rows << "x" << C.Len;
    EXPECT_EQ(S.Compute.Busy, N);
    EXPECT_EQ(S.MacCycles, N);
  }
}

// Two vmacs (N1 = 10, N2 = 20) pushed in 0 and 1: the second starts when the
// unit is ready again, 1 + 10 = 11, not waiting for the first one's pipeline;
// it is ready in 31 and final in 35 = N1 + N2 + 5.
TEST(ComputeTiming, BackToBackVmacsOverlapThePipeline) {
  sim::SimStats S = runText(vmacLine(1, 10) + vmacLine(1, 20) + "halt\n", timingHw());
  EXPECT_EQ(S.Cycles, 35u);
  EXPECT_EQ(S.Compute.Busy, 30u);
  EXPECT_EQ(S.MacCycles, 30u);
}

// §3.2.3: vwb waits for the last vmac's completion. vmac len 10: starts 1,
// ready 11, final 15. Then k vbias (one cycle each, in 11 .. 10 + k), then
// vwb rows=1 (duration 1 * ceil(4 vMACs / 2 words) = 2). vwb could start in
// 11 + k but not before 15:
//   k = 0: starts 15, wait_acc 4, total 17     k = 3: starts 15, wait_acc 1, total 17
//   k = 4: starts 15, wait_acc 0, total 17     k = 5: starts 16, wait_acc 0, total 18
TEST(ComputeTiming, WritebackWaitsForTheMacPipelineToDrain) {
  isa::HwConfig Hw = timingHw();
  struct Case {
    unsigned Biases;
    uint64_t WaitAcc, Total;
  };
  for (Case C : {Case{0, 4, 17}, Case{3, 1, 17}, Case{4, 0, 17}, Case{5, 0, 18}}) {
    std::string Text = vmacLine(1, 10) + repeatLine("vbias r0, shift=0", C.Biases) +
                       "vwb r0, r0, rows=1, bstride=64, shift=0, relu=0\n"
                       "halt\n";
    sim::SimStats S = runText(Text, Hw);
    EXPECT_EQ(S.Compute.WaitAcc, C.WaitAcc) << C.Biases << " vbias";
    EXPECT_EQ(S.Cycles, C.Total) << C.Biases << " vbias";
    EXPECT_EQ(S.Compute.Busy, 10 + C.Biases + WbCycles);
  }
}

// §3.2.3 names "the last vmac": after two vmacs (final in 35, see above) a vwb
// that the unit reaches in 31 waits 4 cycles and runs 35..36 -> total 37.
TEST(ComputeTiming, WritebackWaitsForTheLastOfSeveralVmacs) {
  sim::SimStats S = runText(vmacLine(1, 10) + vmacLine(1, 20) +
                                "vwb r0, r0, rows=1, bstride=64, shift=0, relu=0\nhalt\n",
                            timingHw());
  EXPECT_EQ(S.Compute.WaitAcc, 4u);
  EXPECT_EQ(S.Cycles, 37u);
}

// §3.2.4: vwb takes rows * ceil(vmacs_per_cu / writeback_words), 2 per entry
// here. Without an earlier vmac nothing is in the pipeline: starts in 1,
// rows = 5 -> 10 cycles -> total 11. After a vmac (final in 15) a rows = 3
// vwb runs 15 .. 15 + 6 -> total 21. With writeback_words 3 (4 vMACs: a
// group of 3, then 1) an entry still takes 2 cycles; with 4 or more, 1.
TEST(ComputeTiming, WritebackTakesRowsTimesWordGroups) {
  isa::HwConfig Hw = timingHw();
  sim::SimStats A = runText("vwb r0, r0, rows=5, bstride=64, shift=0, relu=0\nhalt\n", Hw);
  EXPECT_EQ(A.Cycles, 1 + 5 * WbCycles);
  EXPECT_EQ(A.Compute.WaitAcc, 0u);
  sim::SimStats B =
      runText(vmacLine(1, 10) + "vwb r0, r0, rows=3, bstride=64, shift=0, relu=0\nhalt\n", Hw);
  EXPECT_EQ(B.Cycles, 15 + 3 * WbCycles);
  for (auto [Words, PerEntry] : {std::pair{1u, 4u}, {3u, 2u}, {4u, 1u}, {16u, 1u}}) {
    Hw.WritebackWords = Words;
    EXPECT_EQ(runText("vpre r0, r0, rows=5, bstride=64, shift=0, init=1\nhalt\n", Hw).Cycles,
              1 + 5 * PerEntry)
        << Words << " words";
  }
}

// A vwb with sum (cu_sum_writeback) takes timing::CuSumCycles (1) more for
// its adder tree across the CUs: rows = 5 -> 1 + 10 + 1.
TEST(ComputeTiming, WritebackOfSumsTakesACycleMore) {
  EXPECT_EQ(
      runText("vwb r0, r0, rows=5, bstride=64, shift=0, relu=0, sum=1\nhalt\n", timingHw()).Cycles,
      1 + 5 * WbCycles + 1);
}

// vbias and mark take one cycle: three of them start in 1, 2, 3 -> total 4.
TEST(ComputeTiming, BiasAndMarkTakeOneCycle) {
  isa::HwConfig Hw = timingHw();
  EXPECT_EQ(runText(repeatLine("vbias r0, shift=3", 3) + "halt\n", Hw).Cycles, 4u);
  EXPECT_EQ(runText(".layer a conv 0 1 1 1\n" + repeatLine("mark imm=0", 3) + "halt\n", Hw).Cycles,
            4u);
}

// vmax / vavg take rows * len: 3x3 -> starts 1, total 1 + 9 = 10; vavg 2x7 ->
// 1 + 14 = 15. They are not traces: no MAC cycles, no pipeline tail.
TEST(ComputeTiming, PoolingTakesRowsTimesLen) {
  isa::HwConfig Hw = timingHw();
  sim::SimStats Max = runText("li r1, imm=1024\n"
                              "vmax r1, r0, rows=3, len=3, bstride=48, cstride=16\nhalt\n",
                              Hw);
  EXPECT_EQ(Max.Cycles, 2 + 9u); // li shifts the push to cycle 1, start 2.
  EXPECT_EQ(Max.MacCycles, 0u);
  sim::SimStats Avg =
      runText("li r1, imm=1024\n"
              "vavg r1, r0, rows=2, len=7, bstride=112, cstride=16, mult=1, shift=0\nhalt\n",
              Hw);
  EXPECT_EQ(Avg.Cycles, 2 + 14u);
}

// fill (load unit) takes rows * ceil(len / lanes): probe len = 15, 16, 17 around
// one lane-word, and 3 rows of 33 (3 words each). Starts in 1.
//   1x15 -> 1 + 1 = 2;  1x16 -> 2;  1x17 -> 1 + 2 = 3;  3x33 -> 1 + 9 = 10.
TEST(ComputeTiming, FillTakesRowsTimesLaneWords) {
  isa::HwConfig Hw = timingHw();
  struct Case {
    unsigned Rows, Len;
    uint64_t Total;
  };
  for (Case C : {Case{1, 15, 2}, Case{1, 16, 2}, Case{1, 17, 3}, Case{3, 33, 10}}) {
    std::string Text = "fill r0, rows=" + std::to_string(C.Rows) +
                       ", len=" + std::to_string(C.Len) + ", bstride=64, value=1, mask=15\nhalt\n";
    sim::SimStats S = runText(Text, Hw);
    EXPECT_EQ(S.Cycles, C.Total) << C.Rows << "x" << C.Len;
    EXPECT_EQ(S.Load.Busy, C.Total - 1);
    EXPECT_EQ(S.DramReadBytes, 0u);
  }
}

// A functional run and a TimingOnly run of the same program take the same
// cycles (SimOptions: "Same cycles, no arithmetic").
TEST(ComputeTiming, TimingOnlyGivesTheSameCycles) {
  isa::Program P = assembleOrFail(vmacLine(2, 50) + "vwb r0, r0, rows=2, bstride=64, shift=0, "
                                                    "relu=0\nhalt\n",
                                  timingHw());
  sim::SimStats Full, Fast;
  ASSERT_TRUE(runProgram(P, Full));
  sim::SimOptions O;
  O.TimingOnly = true;
  ASSERT_TRUE(runProgram(P, Fast, O));
  // vmac 1 .. 101, final 105; vwb 105 .. 109.
  EXPECT_EQ(Full.Cycles, 109u);
  EXPECT_EQ(Fast.Cycles, Full.Cycles);
}

} // namespace
