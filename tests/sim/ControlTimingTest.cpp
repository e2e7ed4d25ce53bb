//===- ControlTimingTest.cpp - Control core and queue-depth timing rules --===//
//
// Pins architecture.md §3.1 (one instruction per cycle, free taken branches,
// the queue-full stall and when a freed slot can be refilled, halt) and §3.7
// (the total is the halt cycle + 1 unless a unit finishes later). Every
// expected number is derived in the comments from the contract, never read
// back from the simulator; boundaries are probed at N-1, N and N+1.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

using namespace snow;
using namespace snow::test;

namespace {

// §3.1.1-2: k scalar instructions take cycles 0..k-1, halt runs in cycle k and
// the total is k + 1 (§3.7: no unit has work).
TEST(ControlTiming, StraightLineScalarCodeTakesOneCyclePerInstruction) {
  isa::HwConfig Hw = timingHw();
  for (unsigned K : {0u, 1u, 2u, 7u}) {
    std::string Text = repeatLine("addi r1, r1, imm=1", K) + "halt\n";
    sim::SimStats S = runText(Text, Hw);
    EXPECT_EQ(S.Cycles, K + 1) << "k = " << K;
    EXPECT_EQ(S.UnitOps, 0u);
    EXPECT_EQ(S.Compute.Idle, K + 1);
  }
}

// §3.1.4: nothing after halt is fetched; the vmac behind it never runs.
TEST(ControlTiming, HaltStopsFetching) {
  sim::SimStats S = runText("halt\n"
                            "vmac r0, r0, r0, rows=1, len=100, bstride=0, init=1\n",
                            timingHw());
  EXPECT_EQ(S.Cycles, 1u);
  EXPECT_EQ(S.MacCycles, 0u);
}

// §3.1.2: a counted loop of N iterations over {addi, bne} costs
//   li (1) + N * 2 + halt (1) = 2N + 2,
// the N-1 taken branches costing nothing beyond their own cycle.
TEST(ControlTiming, CountedLoopTakenBranchCostsNothingExtra) {
  isa::HwConfig Hw = timingHw();
  for (unsigned N : {1u, 2u, 5u, 100u}) {
    std::string Text = "li r1, imm=" + std::to_string(N) +
                       "\n"
                       "loop: addi r1, r1, imm=-1\n"
                       "bne r1, r0, imm=loop\n"
                       "halt\n";
    EXPECT_EQ(runText(Text, Hw).Cycles, 2 * N + 2) << "N = " << N;
  }
}

// A taken forward branch skips its targets in one cycle: beq (0), halt (1) -> 2.
// Not taken it falls through: bne (0), 3 nops (1..3), halt (4) -> 5.
TEST(ControlTiming, ForwardBranchTakenAndNotTaken) {
  isa::HwConfig Hw = timingHw();
  std::string Body = "nop\nnop\nnop\nskip: halt\n";
  EXPECT_EQ(runText("beq r0, r0, imm=skip\n" + Body, Hw).Cycles, 2u);
  EXPECT_EQ(runText("bne r0, r0, imm=skip\n" + Body, Hw).Cycles, 5u);
}

/// One queue-depth probe: Vmacs len-10 vmacs in a row, the run's total and
/// the cycles the control core stalled on a full queue.
struct QueueCase {
  unsigned Vmacs;
  uint64_t Total, Stall;
};

/// Runs each case as its vmacs followed by a scalar loop of Rounds rounds
/// (which keeps the core, not the compute unit, last to finish).
void expectQueueStalls(const isa::HwConfig &Hw, unsigned Rounds,
                       std::initializer_list<QueueCase> Cases) {
  for (const QueueCase &C : Cases) {
    std::string Text = repeatLine("vmac r0, r0, r0, rows=1, len=10, bstride=0, init=1", C.Vmacs) +
                       "li r1, imm=" + std::to_string(Rounds) +
                       "\n"
                       "loop: addi r1, r1, imm=-1\n"
                       "bne r1, r0, imm=loop\n"
                       "halt\n";
    sim::SimStats S = runText(Text, Hw);
    EXPECT_EQ(S.Cycles, C.Total) << C.Vmacs << " vmacs";
    EXPECT_EQ(S.CtrlStallQueueFull, C.Stall) << C.Vmacs << " vmacs";
    EXPECT_EQ(S.Compute.Busy, 10u * C.Vmacs) << C.Vmacs << " vmacs";
  }
}

// §3.1.3 with queue_depth = 16. Program: M vmacs of len 10, then a 100-round
// loop, then halt, so the halt cycle (and the total) shows every stall cycle.
//
// vmac k starts in s_k = 1 + 10k (first entry pushed in 0 starts in 1, §3.2.1,
// each runs 10 cycles). Queue occupancy at the start of cycle t = entries pushed
// before t - entries started before t (an entry leaves in its start cycle, its
// slot is usable from the next cycle). Instruction i goes in cycle i until:
//   t = 17: 17 pushed - 2 started (s0 = 1, s1 = 11) = 15 -> push
//   t = 18: 18 - 2 = 16 = full -> stall; s2 = 21, so at t = 22: 18 - 3 = 15
//   t = 23: 19 - 3 = 16 -> stall until s3 = 31 has started: push at t = 32.
// Tail: li (1 cycle) + 100 * {addi, bne} (200) + halt, total = halt + 1.
//   M = 18: last vmac in 17, li 18, loop 19..218, halt 219 -> 220, stall 0
//   M = 19: last vmac in 22 (stall 18..21 = 4), halt 224 -> 225
//   M = 20: last vmac in 32 (4 + stall 23..31 = 9 -> 13), halt 234 -> 235
// The compute unit finishes long before: M = 20 -> s19 = 191, done 191+10+4.
TEST(ControlTiming, FullQueueStallsTheCoreUntilTheCycleAfterASlotFrees) {
  isa::HwConfig Hw = timingHw();
  ASSERT_EQ(Hw.QueueDepth, 16u);
  expectQueueStalls(Hw, 100, {{18, 220, 0}, {19, 225, 4}, {20, 235, 13}});
}

// The same rule on the zc706 preset's queue_depth (64), with len-10 vmacs
// of 10 cycles (the preset's trace start-up set to 0): occupancy at t is t - #{k : 1 + 10k < t}
// while nothing stalls.
//   t = 70: 70 - 7 (s0..s6 = 1..61) = 63 -> push
//   t = 71: 71 - 7 = 64 (s7 = 71 has not started before 71) -> stall one cycle;
//           t = 72: 71 - 8 = 63 -> push
//   t = 73: 72 - 8 = 64 -> stall until s8 = 81 has started: push at 82 (9 cycles)
// So 71 vmacs never stall, 72 stall 1 cycle, 73 stall 1 + 9 = 10.
// The tail loop runs 400 rounds here (800 cycles) so that it, not the compute
// unit (73 vmacs: s72 = 721, final 735), decides the total:
// halt = last vmac cycle + 1 (li) + 800 + 1.
//   71: last vmac 70 -> halt 872 -> 873;  72: 72 -> 875;  73: 82 -> 885.
TEST(ControlTiming, Zc706PresetQueueDepthBoundary) {
  auto Hw = isa::loadHwConfig("zc706");
  ASSERT_TRUE(bool(Hw)) << llvm::toString(Hw.takeError());
  ASSERT_EQ(Hw->QueueDepth, 64u) << "the derivation below assumes the shipped depth";
  // The queue is what is probed: traces of exactly len cycles (no start-up),
  // code preloaded (fetch has its own tests, FetchTimingTest.cpp).
  Hw->TraceStartupCycles = 0;
  Hw->ImemKib = 0;
  expectQueueStalls(*Hw, 400, {{71, 873, 0}, {72, 875, 1}, {73, 885, 10}});
}

// A wait starts in the cycle it finds the count positive (§3.4.3: it
// decrements then; §3.2 table: ready again s + 1), so while blocked it is
// still the head of its queue and holds a slot.
//   0 fill 1600 elems   load unit 1 .. 101
//   1 signal.ld 0       starts 101, fires 101, visible 102
//   2 wait.ex 0         pushed 2, blocked, starts 102
//   3-17 15 vmacs       queue = wait + 15 vmacs = 16 entries at the start of 18
//   18 vmac #16         stalls until the wait has left (in 102): pushed 103
// Stall 103 - 18 = 85 cycles. The vmacs run from 103, one every 10 cycles:
// the 16th starts 103 + 150 = 253, final 253 + 10 + 4 = 267 = total.
TEST(ControlTiming, BlockedWaitHoldsItsQueueSlot) {
  std::string Text = "fill r0, rows=1, len=1600, bstride=0, value=0, mask=1\n"
                     "signal.ld idx=0\n"
                     "wait.ex idx=0\n" +
                     repeatLine("vmac r0, r0, r0, rows=1, len=10, bstride=0, init=1", 16) +
                     "halt\n";
  sim::SimStats S = runText(Text, timingHw());
  EXPECT_EQ(S.CtrlStallQueueFull, 85u);
  EXPECT_EQ(S.Cycles, 267u);
  EXPECT_EQ(S.Compute.WaitSem, 102u - 3);
}

// A DMA entry leaves its queue when it posts, not when the channel grants it
// (§3.1.3 "an entry leaves its queue in the cycle its unit starts it"; §3.3.1
// a DMA operation posts in the cycle it starts). li in 0, then M loads of 64
// aligned bytes (D = ceil(64 * 256 / 4301) = 4), load k pushed in 1 + k.
// The unit is ready again at g + 1 and the channel is busy 4 cycles a load:
//   g_0 = 2 (posted and granted in 2), g_k = 2 + 4k, post s_k = g_{k-1} + 1 = 4k - 1.
// Occupancy at t = (t - 1 pushed) - (1 + floor(t / 4) posted) = t - 2 - floor(t / 4):
//   t = 22: 15 -> load 21 is pushed        (had entries left at the grant,
//   t = 23: 16 -> load 22 stalls one cycle  5 grants before 22 -> 16, a stall)
//   t = 24: 22 pushed - 7 posted (2, 3, 7, 11, 15, 19, 23) = 15 -> push
//   t = 25: 23 - 7 = 16 -> load 23 stalls until s_7 = 27 has posted: push at 28.
// So M = 22, 23, 24 stall 0, 1, 1 + 3 = 4 cycles; the channel still decides the
// total: last grant 2 + 4(M - 1), + 4 + 32 -> 4M + 34 = 122, 126, 130.
TEST(ControlTiming, DmaQueueSlotFreesAtPostNotAtGrant) {
  struct Case {
    unsigned Loads;
    uint64_t Total, Stall;
  };
  for (Case C : {Case{22, 122, 0}, Case{23, 126, 1}, Case{24, 130, 4}}) {
    std::string Text =
        "li r1, imm=0x10000\n" +
        repeatLine("ld.map r1, r0, rows=1, len=32, dstride=0, bstride=0, mask=1", C.Loads) +
        "halt\n";
    sim::SimStats S = runText(Text, timingHw());
    EXPECT_EQ(S.Cycles, C.Total) << C.Loads << " loads";
    EXPECT_EQ(S.CtrlStallQueueFull, C.Stall) << C.Loads << " loads";
    EXPECT_EQ(S.DramBusyCycles, C.Loads * dramCyclesByDoc(64));
    EXPECT_EQ(S.DramReadBytes, C.Loads * 64u);
    // Each load waits for the channel from its post to its grant: load 0 not
    // at all, load k from 4k - 1 to 2 + 4k, i.e. 3 cycles.
    EXPECT_EQ(S.Load.WaitDram, 3u * (C.Loads - 1));
  }
}

// §3.7: the total is max(halt + 1, latest ready, latest completion). A scalar
// tail longer than the compute work decides the total; a shorter one does not.
//   vmac len 10 in 0: starts 1, done 1 + 10 + 4 = 15.
//   + 13 nops: halt in 14 -> max(15, 15) = 15;  + 14 nops: halt 15 -> 16.
TEST(ControlTiming, TotalIsLaterOfHaltAndLastCompletion) {
  isa::HwConfig Hw = timingHw();
  std::string Vmac = "vmac r0, r0, r0, rows=1, len=10, bstride=0, init=1\n";
  EXPECT_EQ(runText(Vmac + repeatLine("nop", 12) + "halt\n", Hw).Cycles, 15u);
  EXPECT_EQ(runText(Vmac + repeatLine("nop", 13) + "halt\n", Hw).Cycles, 15u);
  EXPECT_EQ(runText(Vmac + repeatLine("nop", 14) + "halt\n", Hw).Cycles, 16u);
}

} // namespace
