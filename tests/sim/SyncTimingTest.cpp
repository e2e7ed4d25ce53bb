//===- SyncTimingTest.cpp - Semaphores and double buffering ---------------===//
//
// Pins architecture.md §3.4 and the signal/wait rows of §3.2: a signal fires
// at max(start, completion of its unit's earlier operations) and is visible
// the next cycle; a wait that finds the count positive takes it that cycle;
// simultaneous waiters are served load, compute, store. Then the point of the
// semaphores: the same four tiles of load + trace run with two banks and
// full/empty semaphores take the hand-derived overlapped time, and with one
// bank and strict alternation the serialized time.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

using namespace snow;
using namespace snow::test;

namespace {

// Signal on the load unit, wait on the compute unit.
//   0 fill 160 elems    starts 1, 160 / 16 = 10 cycles, ready and done 11
//   1 signal.ld 3       starts 11, fires max(11, 11) = 11, visible 12 (§3.4.2)
//   2 wait.ex 3         tries from 3, count 0 until 12 -> succeeds 12, ready 13
//   3 vmac len 10       starts 13, ready 23, final 27 = total
// The wait is blocked 12 - 3 = 9 cycles (not 8: the fire cycle is not enough).
TEST(SyncTiming, WaitSucceedsTheCycleAfterTheSignalFires) {
  sim::SimStats S = runText("fill r0, rows=1, len=160, bstride=0, value=1, mask=1\n"
                            "signal.ld idx=3\n"
                            "wait.ex idx=3\n"
                            "vmac r0, r0, r0, rows=1, len=10, bstride=0, init=1\n"
                            "halt\n",
                            timingHw());
  EXPECT_EQ(S.Cycles, 27u);
  EXPECT_EQ(S.Compute.WaitSem, 9u);
  EXPECT_EQ(S.Compute.Busy, 1u + 10);
  EXPECT_EQ(S.Load.Busy, 10u + 1);
}

// A signal behind a DMA transfer fires at the transfer's completion
// g + D + latency (§3.2 table), not at its grant nor, for a store, when the
// channel lets go of it. The load and the store take the same cycles:
//   0 li r1
//   1 ld.map/st.map 1024 B  posted and granted 2, ready 3, done 2 + 61 + 32 = 95
//   2 signal.ld/signal.st 0 starts 3, fires max(3, 95) = 95, visible 96
//   3 wait.ex 0             tries from 4, succeeds 96 (blocked 92), ready 97
//   4 vmac len 10           starts 97, final 97 + 10 + 4 = 111 = total
// The vmac reads the bank the load wrote; 97 is past the load's write window.
struct Transfer {
  const char *Name, *Program;
  friend void PrintTo(const Transfer &T, std::ostream *OS) { *OS << T.Name; }
};

class SignalAfterATransfer : public ::testing::TestWithParam<Transfer> {};

TEST_P(SignalAfterATransfer, FiresAtTheTransfersCompletion) {
  sim::SimStats S = runText(std::string(GetParam().Program) +
                                "wait.ex idx=0\n"
                                "vmac r0, r0, r0, rows=1, len=10, bstride=0, init=1\n"
                                "halt\n",
                            timingHw());
  EXPECT_EQ(S.Cycles, 111u);
  EXPECT_EQ(S.Compute.WaitSem, 92u);
}

INSTANTIATE_TEST_SUITE_P(
    SyncTiming, SignalAfterATransfer,
    ::testing::Values(Transfer{"Load",
                               "li r1, imm=0x10000\n"
                               "ld.map r1, r0, rows=1, len=512, dstride=0, bstride=0, mask=1\n"
                               "signal.ld idx=0\n"},
                      Transfer{"Store",
                               "li r1, imm=0x20000\n"
                               "st.map r1, r0, idx=0, rows=1, len=512, dstride=0, bstride=0\n"
                               "signal.st idx=0\n"}),
    [](const ::testing::TestParamInfo<Transfer> &I) { return std::string(I.param.Name); });

// A signal with nothing outstanding fires when it starts.
//   0 signal.st 7       store unit starts 1, fires 1, visible 2
//   1 wait.ld 7         pushed 1, starts 2 and succeeds at once (wait_sem 0)
//   2 fill 16 elems     pushed 2, starts 3, one cycle -> total 4
TEST(SyncTiming, SignalWithNothingOutstandingFiresAtItsStart) {
  sim::SimStats S = runText("signal.st idx=7\n"
                            "wait.ld idx=7\n"
                            "fill r0, rows=1, len=16, bstride=0, value=1, mask=1\n"
                            "halt\n",
                            timingHw());
  EXPECT_EQ(S.Cycles, 4u);
  EXPECT_EQ(S.Load.WaitSem, 0u);
}

// §3.4.3: load is served before store, whatever the program order.
//   0 vmac len 10       1 .. 11, final 15
//   1 signal.ex 0       starts 11, fires 15, visible 16
//   2 vmac len 20       12 .. 32, final 36
//   3 signal.ex 0       starts 32, fires 36, visible 37, ready 33
//   4 wait.st 0         tries from 5
//   5 wait.ld 0         tries from 6
// 16: one count, both waiting: the load takes it (wait_sem 16 - 6 = 10);
// 37: the store takes the second (wait_sem 37 - 5 = 32), ready 38 = total.
TEST(SyncTiming, SimultaneousWaitsServeLoadBeforeStore) {
  sim::SimStats S = runText("vmac r0, r0, r0, rows=1, len=10, bstride=0, init=1\n"
                            "signal.ex idx=0\n"
                            "vmac r0, r0, r0, rows=1, len=20, bstride=0, init=1\n"
                            "signal.ex idx=0\n"
                            "wait.st idx=0\n"
                            "wait.ld idx=0\n"
                            "halt\n",
                            timingHw());
  EXPECT_EQ(S.Cycles, 38u);
  EXPECT_EQ(S.Load.WaitSem, 10u);
  EXPECT_EQ(S.Store.WaitSem, 32u);
}

// §3.4.3: compute is served before store.
//   0 fill 160          1 .. 11
//   1 signal.ld 0       starts 11, fires 11, visible 12
//   2 fill 320          12 .. 32
//   3 signal.ld 0       starts 32, fires 32, visible 33, ready 33
//   4 wait.st 0         tries from 5
//   5 wait.ex 0         tries from 6
// 12: compute takes the count (wait_sem 6); 33: store (wait_sem 28), ready 34.
TEST(SyncTiming, SimultaneousWaitsServeComputeBeforeStore) {
  sim::SimStats S = runText("fill r0, rows=1, len=160, bstride=0, value=1, mask=1\n"
                            "signal.ld idx=0\n"
                            "fill r0, rows=1, len=320, bstride=0, value=1, mask=1\n"
                            "signal.ld idx=0\n"
                            "wait.st idx=0\n"
                            "wait.ex idx=0\n"
                            "halt\n",
                            timingHw());
  EXPECT_EQ(S.Cycles, 34u);
  EXPECT_EQ(S.Compute.WaitSem, 6u);
  EXPECT_EQ(S.Store.WaitSem, 28u);
}

// Four tiles, each a 1024-byte load (D = 61, so a load is done g + 93) and a
// 100-cycle trace over it. Registers: r1-r4 the tiles' DRAM addresses, r5 the
// second bank (maps 16384). Five li put the first load's start at 6.
const char *const Prologue = "li r1, imm=0x10000\n"
                             "li r2, imm=0x10400\n"
                             "li r3, imm=0x10800\n"
                             "li r4, imm=0x10c00\n"
                             "li r5, imm=16384\n";

std::string load(const char *Dram, const char *Bank) {
  return std::string("ld.map ") + Dram + ", " + Bank +
         ", rows=1, len=512, dstride=0, bstride=0, mask=1\n";
}
std::string trace(const char *Bank) {
  return std::string("vmac r0, ") + Bank + ", r0, rows=1, len=100, bstride=0, init=1\n";
}

// Serialized: one bank, load i+1 only after trace i is done with it.
//   tile period = 93 (load) + 1 (signal visible) + 1 (wait.ex) + 100 + 4
//                 (trace and drain) + 1 (visible) + 1 (wait.ld) = 201
//   load i starts 6 + 201 i; the last trace starts 6 + 603 + 93 + 2 = 704,
//   final 704 + 104 = 808.
// Overlapped: two banks, F0/F1 (sems 0/1) "bank full", E0/E1 (2/3) "bank free".
//   A0: 6, done 99 -> F0 visible 100; A1 posted 8, granted 67, done 160.
//   trace 0: wait 100, starts 101 .. 201, final 205 -> E0 visible 206
//   trace 1: wait 202 (F1 visible since 161), starts 203, final 307 -> E1 308
//   A2: wait.ld E0 206, load 207, done 300 -> F0 visible 301
//   A3: wait.ld E1 308, load 309, done 402 -> F1 visible 403
//   trace 2: wait 304, starts 305, final 409; trace 3: wait 406, starts 407,
//   final 507 + 4 = 511.
// Only the first load is exposed: 6 + 93 + 2 + 4 * 100 + 3 * 2 + 4 = 511, and
// the overlap saves 3 * (201 - 102) = 297 cycles.
TEST(SyncTiming, DoubleBufferingHidesLoadsBehindCompute) {
  std::string Serial = Prologue;
  const char *Dram[] = {"r1", "r2", "r3", "r4"};
  for (int I = 0; I < 4; ++I) {
    if (I > 0)
      Serial += "wait.ld idx=2\n";
    Serial += load(Dram[I], "r0") + "signal.ld idx=0\n";
    Serial += "wait.ex idx=0\n" + trace("r0") + "signal.ex idx=2\n";
  }
  Serial += "halt\n";

  std::string Overlap = Prologue;
  const char *Bank[] = {"r0", "r5"};
  // Loads of tiles 0 and 1 go first; then trace i is followed by load i + 2
  // into the bank the trace just released.
  Overlap += load("r1", "r0") + "signal.ld idx=0\n";
  Overlap += load("r2", "r5") + "signal.ld idx=1\n";
  for (int I = 0; I < 4; ++I) {
    int B = I % 2;
    Overlap += "wait.ex idx=" + std::to_string(B) + "\n" + trace(Bank[B]) +
               "signal.ex idx=" + std::to_string(2 + B) + "\n";
    if (I + 2 < 4)
      Overlap += "wait.ld idx=" + std::to_string(2 + B) + "\n" + load(Dram[I + 2], Bank[B]) +
                 "signal.ld idx=" + std::to_string(B) + "\n";
  }
  Overlap += "halt\n";

  isa::HwConfig Hw = timingHw();
  sim::SimStats S = runText(Serial, Hw);
  sim::SimStats O = runText(Overlap, Hw);
  EXPECT_EQ(S.Cycles, 808u);
  EXPECT_EQ(O.Cycles, 511u);
  EXPECT_EQ(S.Cycles - O.Cycles, 297u);
  // Same work either way.
  EXPECT_EQ(S.MacCycles, 400u);
  EXPECT_EQ(O.MacCycles, 400u);
  EXPECT_EQ(S.DramReadBytes, 4096u);
  EXPECT_EQ(O.DramReadBytes, 4096u);
}

} // namespace
