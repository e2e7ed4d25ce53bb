//===- FaultTest.cpp - Programs the simulator must refuse -----------------===//
//
// A program that breaks the machine's rules stops with a SimFault naming the
// pc and the instruction (STYLE.md: simulated-program faults carry PC,
// instruction, reason). Covered: buffer and DRAM ranges (probed at the last
// legal address and one past it), the §3.6 hazard windows in both directions
// (probed at the window's last cycle and the first cycle after it), deadlock,
// --max-cycles (§3.7, probed at the total and one below), running off the end
// of the code, a mark outside the layer table, and the rules the RTL adds:
// 16 pending signals per unit, fill over a landing ld.map, first fault wins.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"
#include "snow/isa/Timing.h"
#include <fmt/format.h>
#include <random>
#include <set>

using namespace snow;
using namespace snow::test;

namespace {

FaultReport faultOf(const std::string &Text, sim::SimOptions Opts = {}) {
  isa::Program P = assembleOrFail(Text, timingHw());
  return runForFault(P, Opts);
}

// The maps buffer holds 131072 elements: a 16-element fill at 131056 ends
// exactly at the end (fine, 1 + 1 cycles), one element later it does not.
TEST(Faults, MapsAddressOutOfRange) {
  EXPECT_TRUE(ranFor(faultOf("li r2, imm=131056\n"
                             "fill r2, rows=1, len=16, bstride=0, value=1, mask=1\nhalt\n"),
                     3));
  EXPECT_TRUE(isFaultAt(faultOf("li r2, imm=131057\n"
                                "fill r2, rows=1, len=16, bstride=0, value=1, mask=1\nhalt\n"),
                        1, "fill", "out of range"));
  // A trace reading past the end of the maps buffer.
  EXPECT_TRUE(isFaultAt(faultOf("li r2, imm=131070\n"
                                "vmac r0, r2, r0, rows=1, len=3, bstride=0, init=1\nhalt\n"),
                        1, "vmac", "out of range"));
  // ... and of the weights buffer (1024 words).
  EXPECT_TRUE(isFaultAt(faultOf("li r3, imm=1023\n"
                                "vmac r0, r0, r3, rows=1, len=2, bstride=0, init=1\nhalt\n"),
                        1, "vmac", "out of range"));
}

// vmacp reads its last pixel group at rs2 + (2^pix - 1) * cstride: with
// pix=2 and cstride 10 a trace of 3 elements needs 33 elements from rs2.
// 2^pix groups must divide the 4 vMACs of a CU.
TEST(Faults, MultiPixelTraceRangeAndGroups) {
  EXPECT_FALSE(faultOf("li r2, imm=131039\n"
                       "vmacp r0, r2, r0, rows=1, len=3, bstride=0, cstride=10, pix=2, "
                       "init=1\nhalt\n")
                   .Faulted);
  EXPECT_TRUE(isFaultAt(faultOf("li r2, imm=131040\n"
                                "vmacp r0, r2, r0, rows=1, len=3, bstride=0, cstride=10, pix=2, "
                                "init=1\nhalt\n"),
                        1, "vmacp", "out of range"));
  EXPECT_TRUE(isFaultAt(faultOf("vmacp r0, r0, r0, rows=1, len=3, bstride=0, cstride=10, pix=3, "
                                "init=1\nhalt\n"),
                        0, "vmacp",
                        "pix=3 asks for 8 pixel groups, which do not divide the 4 vMACs of a CU"));
}

// ld.wgt's wpix writes vMAC idx of 2^wpix pixel groups: the groups must
// divide the 4 vMACs, idx must be within a group, and the machine must have
// wpix_loads (the RTL, built for presets that have it, agrees on the first
// two: tests/rtl/FaultsTest.cpp).
TEST(Faults, WeightLoadsIntoPixelGroups) {
  const std::string Load = "li r1, imm=0x10000\n"
                           "ld.wgt r1, r0, idx={}, wpix={}, rows=1, len=1, dstride=0, bstride=0, "
                           "mask=1\nhalt\n";
  EXPECT_FALSE(faultOf(fmt::format(fmt::runtime(Load), 1, 1)).Faulted);
  EXPECT_TRUE(isFaultAt(faultOf(fmt::format(fmt::runtime(Load), 2, 1)), 1, "ld.wgt",
                        "wpix=1 and idx=2 name no vMAC of 2 pixel groups (4 vMACs per CU)"));
  EXPECT_TRUE(isFaultAt(faultOf(fmt::format(fmt::runtime(Load), 0, 3)), 1, "ld.wgt",
                        "wpix=3 and idx=0 name no vMAC of 8 pixel groups"));
  isa::HwConfig Paper = timingHw();
  Paper.WpixLoads = 0;
  EXPECT_TRUE(isFaultAt(runForFault(assembleOrFail(fmt::format(fmt::runtime(Load), 0, 1), Paper)),
                        1, "ld.wgt", "wpix=1 needs wpix_loads"));
}

// A vwb's sum needs cu_sum_writeback (zc706_paper has none): the fault
// names the pc and the reason, in timing-only runs too.
TEST(Faults, WritebackOfSumsNeedsTheAdderTree) {
  const std::string Wb = "vwb r0, r0, rows=1, bstride=0, shift=0, relu=0, sum=1\nhalt\n";
  EXPECT_FALSE(faultOf(Wb).Faulted);
  isa::HwConfig Paper = timingHw();
  Paper.CuSumWriteback = 0;
  for (bool TimingOnly : {false, true}) {
    sim::SimOptions Opts;
    Opts.TimingOnly = TimingOnly;
    EXPECT_TRUE(isFaultAt(runForFault(assembleOrFail(Wb, Paper), Opts), 0, "vwb",
                          "sum=1 needs cu_sum_writeback"));
  }
}

// DRAM is 1 GiB: 32 bytes at 2^30 - 32 are the last legal ones (the load runs:
// posted 2, D 4, done 38); two bytes later the row ends past DRAM.
TEST(Faults, DramAddressOutOfRange) {
  EXPECT_TRUE(ranFor(faultOf("li r1, imm=1073741792\n"
                             "ld.map r1, r0, rows=1, len=16, dstride=0, bstride=0, mask=1\nhalt\n"),
                     38));
  EXPECT_TRUE(isFaultAt(faultOf("li r1, imm=1073741794\n"
                                "ld.map r1, r0, rows=1, len=16, dstride=0, bstride=0, mask=1\n"
                                "halt\n"),
                        1, "ld.map", "DRAM"));
  EXPECT_TRUE(isFaultAt(faultOf("li r1, imm=1073741794\n"
                                "st.map r1, r0, idx=0, rows=1, len=16, dstride=0, bstride=0\n"
                                "halt\n"),
                        1, "st.map", "DRAM"));
}

// §3.6: a load writes its banks from its start until its completion. Here the
// load into bank 0 is granted in 3 and done 3 + 61 + 32 = 96. A first trace on
// bank 2 (maps 32768) keeps the compute unit busy 4 .. 4 + L, so the trace on
// bank 0 starts in 4 + L:
//   L = 91 -> starts 95, inside the window: fault at that vmac (pc 4)
//   L = 92 -> starts 96, the load is complete: runs, final 96 + 1 + 4 = 101
TEST(Faults, TraceReadsABankWhileALoadIntoItIsInFlight) {
  auto Program = [](unsigned L) {
    return "li r1, imm=0x10000\n"
           "li r4, imm=32768\n"
           "ld.map r1, r0, rows=1, len=512, dstride=0, bstride=0, mask=1\n"
           "vmac r0, r4, r0, rows=1, len=" +
           std::to_string(L) +
           ", bstride=0, init=1\n"
           "vmac r0, r0, r0, rows=1, len=1, bstride=0, init=1\n"
           "halt\n";
  };
  EXPECT_TRUE(isFaultAt(faultOf(Program(91)), 4, "vmac", "synchronization"));
  EXPECT_TRUE(ranFor(faultOf(Program(92)), 101));
  // Without any delay the trace starts in 4 and faults the same way.
  EXPECT_TRUE(isFaultAt(faultOf("li r1, imm=0x10000\n"
                                "ld.map r1, r0, rows=1, len=512, dstride=0, bstride=0, mask=1\n"
                                "vmac r0, r0, r0, rows=1, len=1, bstride=0, init=1\n"
                                "halt\n"),
                        2, "vmac", "synchronization"));
}

// §3.6: a trace reads its banks from start to start + duration; a load may not
// write them meanwhile. vmac len 100 on bank 0 reads in [1, 101). A fill of
// 16k elements into bank 1 (maps 16384) delays the load unit to 4 + k:
//   k = 96 -> ld.map starts 100, inside the window: fault at the ld.map (pc 4)
//   k = 97 -> starts 101: fine; granted 101, done 101 + 61 + 32 = 194 = total
TEST(Faults, LoadWritesABankWhileATraceReadsIt) {
  auto Program = [](unsigned K) {
    return "vmac r0, r0, r0, rows=1, len=100, bstride=0, init=1\n"
           "li r1, imm=0x10000\n"
           "li r5, imm=16384\n"
           "fill r5, rows=1, len=" +
           std::to_string(16 * K) +
           ", bstride=0, value=0, mask=1\n"
           "ld.map r1, r0, rows=1, len=512, dstride=0, bstride=0, mask=1\n"
           "halt\n";
  };
  EXPECT_TRUE(isFaultAt(faultOf(Program(96)), 4, "ld.map", "synchronization"));
  EXPECT_TRUE(ranFor(faultOf(Program(97)), 194));
}

// §3.6: a store reads its bank until the channel has moved its data, g + D.
// st.map of 1024 B from bank 0: posted and granted 2, D = 61 -> read window
// ends at 63. A fill of 16k elements into bank 1 delays the load unit so that
// a fill into bank 0 starts in 4 + k:
//   k = 58 -> starts 62, the store still reads bank 0: fault at that fill (pc 4)
//   k = 59 -> starts 63: fine; the store completes 2 + 61 + 32 = 95 = total
TEST(Faults, FillWritesABankWhileAStoreReadsIt) {
  auto Program = [](unsigned K) {
    return "li r1, imm=0x20000\n"
           "st.map r1, r0, idx=0, rows=1, len=512, dstride=0, bstride=0\n"
           "li r5, imm=16384\n"
           "fill r5, rows=1, len=" +
           std::to_string(16 * K) +
           ", bstride=0, value=0, mask=1\n"
           "fill r0, rows=1, len=16, bstride=0, value=0, mask=1\n"
           "halt\n";
  };
  EXPECT_TRUE(isFaultAt(faultOf(Program(58)), 4, "fill", "synchronization"));
  EXPECT_TRUE(ranFor(faultOf(Program(59)), 95));
}

// Windows are per bank: a load into the last 4 elements of maps bank 0
// (16380..16383; 8 B -> one burst, D = 4, posted 4, done 4 + 4 + 32 = 40) does
// not stop a trace that starts in 5 on the first element of bank 1 (16384:
// runs, total 40), but one element lower (16383) it touches bank 0 and faults.
// Weights likewise: 512 words a bank, a one-word ld.wgt at word 0 (done
// 3 + 4 + 32 = 39) and a 2-word trace from word 512 (fine, total 39) or from
// word 511 (faults).
TEST(Faults, HazardWindowsAreTrackedPerBank) {
  auto Maps = [](unsigned First) {
    return "li r1, imm=0x10000\n"
           "li r2, imm=16380\n"
           "li r3, imm=" +
           std::to_string(First) +
           "\n"
           "ld.map r1, r2, rows=1, len=4, dstride=0, bstride=0, mask=1\n"
           "vmac r0, r3, r0, rows=1, len=10, bstride=0, init=1\n"
           "halt\n";
  };
  EXPECT_TRUE(ranFor(faultOf(Maps(16384)), 40));
  EXPECT_TRUE(isFaultAt(faultOf(Maps(16383)), 4, "vmac", "synchronization"));

  auto Weights = [](unsigned First) {
    return "li r1, imm=0x10000\n"
           "li r3, imm=" +
           std::to_string(First) +
           "\n"
           "ld.wgt r1, r0, idx=0, rows=1, len=1, dstride=0, bstride=0, mask=1\n"
           "vmac r0, r0, r3, rows=1, len=2, bstride=0, init=1\n"
           "halt\n";
  };
  EXPECT_TRUE(ranFor(faultOf(Weights(512)), 39));
  EXPECT_TRUE(isFaultAt(faultOf(Weights(511)), 3, "vmac", "synchronization"));
}

// §3.6: a DRAM load overlapping a store still in flight faults (the two units
// would race on the same bytes).
TEST(Faults, LoadOverlapsAStoreInFlight) {
  EXPECT_TRUE(isFaultAt(faultOf("li r1, imm=0x20000\n"
                                "li r2, imm=16384\n"
                                "st.map r1, r0, idx=0, rows=1, len=32, dstride=0, bstride=0\n"
                                "ld.map r1, r2, rows=1, len=32, dstride=0, bstride=0, mask=1\n"
                                "halt\n"),
                        3, "ld.map", "synchronization"));
}

// The rule compares the bytes the rows touch, not their envelopes: a load of
// the first 32 channels of four 64-channel pixels runs beside a store of
// their other 32, and faults where it reaches into them.
TEST(Faults, LoadOfOtherChannelsOfStoredPixelsRuns) {
  auto Program = [](uint64_t LoadAddr) {
    return fmt::format("li r1, imm=0x20040\nli r2, imm={}\nli r3, imm=16384\n"
                       "st.map r1, r0, idx=0, rows=4, len=32, dstride=128, bstride=32\n"
                       "ld.map r2, r3, rows=4, len=32, dstride=128, bstride=32, mask=1\nhalt\n",
                       LoadAddr);
  };
  const FaultReport Ok = faultOf(Program(0x20000));
  EXPECT_FALSE(Ok.Faulted) << Ok.Message;
  EXPECT_TRUE(isFaultAt(faultOf(Program(0x20002)), 4, "ld.map", "synchronization"));
}

// timing::dramOverlap against the bytes themselves, on random transfers:
// never a miss, and exact where the rows' distances are equal or one row.
TEST(Faults, DramOverlapMatchesTheBytes) {
  std::mt19937 Rng(7);
  auto Pick = [&](uint64_t Lo, uint64_t Hi) {
    return std::uniform_int_distribution<uint64_t>(Lo, Hi)(Rng);
  };
  unsigned Hits = 0, Exact = 0;
  for (int N = 0; N < 20000; ++N) {
    auto Make = [&]() {
      timing::DramRows R;
      R.Rows = Pick(1, 6);
      R.RowBytes = Pick(1, 40);
      R.Stride = int64_t(Pick(0, 3) == 0 ? Pick(0, 90) : 16 * Pick(1, 4)) * (Pick(0, 4) ? 1 : -1);
      R.Addr = 600 + Pick(0, 200);
      return R;
    };
    const timing::DramRows A = Make(), B = Make();
    std::set<uint64_t> Bytes;
    for (uint64_t I = 0; I < A.Rows; ++I)
      for (uint64_t X = 0; X < A.RowBytes; ++X)
        Bytes.insert(uint64_t(int64_t(A.Addr) + int64_t(I) * A.Stride) + X);
    bool Real = false;
    for (uint64_t I = 0; I < B.Rows && !Real; ++I)
      for (uint64_t X = 0; X < B.RowBytes && !Real; ++X)
        Real = Bytes.count(uint64_t(int64_t(B.Addr) + int64_t(I) * B.Stride) + X);
    const bool Said = timing::dramOverlap(A, B);
    ASSERT_TRUE(Said || !Real) << "missed: A " << A.Addr << "+" << A.Stride << "x" << A.Rows << "/"
                               << A.RowBytes << ", B " << B.Addr << "+" << B.Stride << "x" << B.Rows
                               << "/" << B.RowBytes;
    EXPECT_EQ(Said, timing::dramOverlap(B, A));
    const bool SameStep = A.Rows == 1 || B.Rows == 1 || std::abs(A.Stride) == std::abs(B.Stride);
    if (SameStep && A.Stride != 0 && B.Stride != 0) {
      EXPECT_EQ(Said, Real) << "A " << A.Addr << "+" << A.Stride << "x" << A.Rows << "/"
                            << A.RowBytes << ", B " << B.Addr << "+" << B.Stride << "x" << B.Rows
                            << "/" << B.RowBytes;
      ++Exact;
    }
    Hits += Real;
  }
  // Both kinds occur often enough to mean something.
  EXPECT_GT(Hits, 2000u);
  EXPECT_GT(Exact, 5000u);
}

// §3.7: nothing can ever move again -> deadlock, named at the blocked wait.
TEST(Faults, DeadlockOnASemaphoreNobodySignals) {
  EXPECT_TRUE(isFaultAt(faultOf("nop\nwait.ex idx=5\nhalt\n"), 1, "wait.ex", "deadlock"));
  // The same wait with a matching signal is fine: signal.ld fires 1, visible 2,
  // the wait (pushed 1) succeeds in 2 -> total 3.
  EXPECT_TRUE(ranFor(faultOf("signal.ld idx=5\nwait.ex idx=5\nhalt\n"), 3));
}

// An infinite loop hits --max-cycles; the fault names the looping branch.
TEST(Faults, InfiniteLoopRunsPastMaxCycles) {
  sim::SimOptions O;
  O.MaxCycles = 100;
  EXPECT_TRUE(isFaultAt(faultOf("loop: beq r0, r0, imm=loop\nhalt\n", O), 0, "beq", "max-cycles"));
}

// snowsim's --max-cycles: "Fault if the program runs longer". A program of
// exactly 10 cycles (9 nops + halt) is allowed 10 and refused 9.
TEST(Faults, MaxCyclesBoundaryOnScalarCode) {
  std::string Text = repeatLine("nop", 9) + "halt\n";
  sim::SimOptions O;
  O.MaxCycles = 10;
  EXPECT_TRUE(ranFor(faultOf(Text, O), 10));
  O.MaxCycles = 9;
  FaultReport Over = faultOf(Text, O);
  EXPECT_TRUE(Over.IsSimFault) << "a 10-cycle program ran with --max-cycles 9: "
                               << (Over.Faulted ? Over.Message
                                                : std::to_string(Over.CyclesIfNoFault) +
                                                      " cycles, no fault");
}

// The same limit must hold when the cycles are spent draining the units after
// halt: vmac len 1000 + halt = 1 + 1000 + 4 = 1005 cycles (§3.7).
TEST(Faults, MaxCyclesCountsTheDrainAfterHalt) {
  std::string Text = "vmac r0, r0, r0, rows=1, len=1000, bstride=0, init=1\nhalt\n";
  sim::SimOptions O;
  O.MaxCycles = 1005;
  EXPECT_TRUE(ranFor(faultOf(Text, O), 1005));
  O.MaxCycles = 1004;
  FaultReport Over = faultOf(Text, O);
  EXPECT_TRUE(Over.IsSimFault) << "a 1005-cycle program ran with --max-cycles 1004: "
                               << (Over.Faulted ? Over.Message
                                                : std::to_string(Over.CyclesIfNoFault) +
                                                      " cycles, no fault");
  O.MaxCycles = 100;
  EXPECT_TRUE(faultOf(Text, O).IsSimFault) << "1005 cycles ran under --max-cycles 100";
}

// The limit is on the program's cycles, so a signal whose firing the
// simulator still has to process after halt must not push a program over it.
//   0 vmac len 10 (1 .. 11, final 15); 1 signal.ex 0 (starts 11, fires 15);
//   2 halt -> total max(3, 12, 15) = 15: allowed 15, refused 14.
TEST(Faults, MaxCyclesBoundaryWithATrailingSignal) {
  std::string Text = "vmac r0, r0, r0, rows=1, len=10, bstride=0, init=1\n"
                     "signal.ex idx=0\n"
                     "halt\n";
  sim::SimOptions O;
  O.MaxCycles = 15;
  FaultReport Ok = faultOf(Text, O);
  EXPECT_FALSE(Ok.Faulted) << "a 15-cycle program was refused under --max-cycles 15: "
                           << Ok.Message;
  O.MaxCycles = 1000;
  EXPECT_EQ(faultOf(Text, O).CyclesIfNoFault, 15u);
  O.MaxCycles = 14;
  EXPECT_TRUE(faultOf(Text, O).IsSimFault) << "15 cycles ran under --max-cycles 14";
}

// §3.7: running off the end of the code faults at the first pc past it. There
// is no instruction there to name, so the message names the pc.
TEST(Faults, PcRunsOffTheEndWithoutHalt) {
  FaultReport F = faultOf("nop\nnop\n");
  ASSERT_TRUE(F.IsSimFault) << F.Message;
  EXPECT_EQ(F.Pc, 2u);
  EXPECT_NE(F.Message.find("pc 2"), std::string::npos) << F.Message;
  EXPECT_NE(F.Message.find("halt"), std::string::npos) << F.Message;
}

// The assembler already refuses a mark outside the layer table; a program
// built some other way (here: the table shrunk after assembly) must fault at
// the mark.
TEST(Faults, MarkOutsideTheLayerTable) {
  isa::Program P = assembleOrFail(".layer a conv 0 1 1 1\n"
                                  ".layer b conv 0 1 1 1\n"
                                  "mark imm=0\n"
                                  "nop\n"
                                  "mark imm=1\n"
                                  "halt\n",
                                  timingHw());
  P.Layers.pop_back();
  EXPECT_TRUE(isFaultAt(runForFault(P), 2, "mark", "layer"));
}

} // namespace

namespace {

// §3.4.4: a unit holds at most 16 signals started but not fired. A load in
// flight keeps the load unit's signals pending (they fire at its completion):
// 16 are fine, the 17th faults.
std::string signalsAfterLoad(unsigned N) {
  std::string S = "ld.map r0, r0, rows=1, len=16, dstride=0, bstride=0, mask=1\n";
  for (unsigned I = 0; I < N; ++I)
    S += "signal.ld idx=0\n";
  return S + "halt\n";
}

TEST(Faults, PendingSignalsPerUnit) {
  FaultReport Ok = faultOf(signalsAfterLoad(16));
  EXPECT_FALSE(Ok.Faulted) << Ok.Message;
  EXPECT_TRUE(isFaultAt(faultOf(signalsAfterLoad(17)), 17, "signal.ld", "16 signals"));
}

// §3.6: a fill over maps an ld.map of the same CUs is still writing faults; on
// other CUs, or disjoint elements, or after the load has landed it does not.
TEST(Faults, FillOverLoadInFlight) {
  const std::string Load = "ld.map r0, r0, rows=1, len=16, dstride=0, bstride=0, mask=1\n";
  EXPECT_TRUE(
      isFaultAt(faultOf(Load + "fill r0, rows=1, len=4, bstride=0, value=1, mask=1\nhalt\n"), 1,
                "fill", "still writing"));
  FaultReport OtherCu =
      faultOf(Load + "fill r0, rows=1, len=4, bstride=0, value=1, mask=2\nhalt\n");
  EXPECT_FALSE(OtherCu.Faulted) << OtherCu.Message;
  FaultReport Disjoint =
      faultOf(Load + "li r2, imm=16\n"
                     "fill r2, rows=1, len=4, bstride=0, value=1, mask=1\nhalt\n");
  EXPECT_FALSE(Disjoint.Faulted) << Disjoint.Message;
  FaultReport Ordered =
      faultOf(Load + "signal.ld idx=0\nwait.ld idx=0\n"
                     "fill r0, rows=1, len=4, bstride=0, value=1, mask=1\nhalt\n");
  EXPECT_FALSE(Ordered.Faulted) << Ordered.Message;
}

// Two faults in one cycle: the load unit's is reported, not the store unit's.
// Both signals fire when the trace's sums land (vmac completion), so both
// waits pass in one cycle and both faulting operations start in the next.
TEST(Faults, FirstFaultOfACycleWins) {
  const std::string Prog = "wait.ld idx=1\nwait.st idx=2\nli r2, imm=200000\n"
                           "fill r2, rows=1, len=16, bstride=0, value=1, mask=1\n"
                           "st.map r0, r2, idx=0, rows=1, len=16, dstride=0, bstride=0\n"
                           "vmac r0, r0, r0, rows=1, len=20, bstride=0, init=1\n"
                           "signal.ex idx=1\nsignal.ex idx=2\nhalt\n";
  FaultReport R = faultOf(Prog);
  EXPECT_TRUE(isFaultAt(R, 3, "fill", "out of range")) << R.Message;
  // Without the fill's fault, the store's shows in that same cycle.
  std::string NoFill = Prog;
  NoFill.replace(NoFill.find("li r2, imm=200000"), 17, "li r2, imm=100000");
  NoFill.replace(NoFill.find("st.map r0, r2"), 13, "st.map r0, r3");
  NoFill.insert(0, "li r3, imm=200000\n");
  FaultReport S = faultOf(NoFill);
  EXPECT_TRUE(isFaultAt(S, 5, "st.map", "out of range")) << S.Message;
}

} // namespace
