//===- WritebackOverlapTest.cpp - A vwb beside the operations after it ----===//
//
// Pins architecture.md §3.2, "Writeback beside the traces", on the timing
// machine with writeback_overlap: a vwb holds the compute unit one cycle and
// writes back on a walker of its own; a trace waits for it only where it
// reads a maps bank the vwb writes (until its end) or accumulates into an
// entry the vwb has yet to read (until the cycle after that read); vwb,
// vpre, vmul, the pools and vlut wait for its end. And a vwb's rows of len
// entries (cstride apart), in time and in what it writes. Expected cycles
// are derived in the comments.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

using namespace snow;
using namespace snow::test;

namespace {

isa::HwConfig overlapHw() {
  isa::HwConfig Hw = timingHw();
  Hw.WritebackOverlap = 1;
  return Hw;
}

// li r1 (entry A), li r2 = 32768 (maps bank 2) in 0 and 1; a vmac into entry
// 0 over maps bank 0 pushed in 2 starts in 3, is ready in 13, its sums final
// in 17; the vwb of entries 0..4 into bank 2 waits for them (wait_acc 4) and
// writes back in [17, 27): two word groups of five entries, entry e read in
// 17 + e and 22 + e. The unit goes on in 18.
std::string program(unsigned EntryA, const char *SecondMapsReg, const std::string &Last = "") {
  return "li r1, imm=" + std::to_string(EntryA) +
         "\nli r2, imm=32768\n"
         "vmac r0, r0, r0, rows=1, len=10, bstride=10, init=1\n"
         "vwb r0, r2, rows=5, bstride=64, shift=0, relu=0\n" +
         (Last.empty() ? std::string("vmac r1, ") + SecondMapsReg +
                             ", r0, rows=1, len=10, bstride=10, init=1\n"
                       : Last) +
         "halt\n";
}

// Another entry (64), another bank (0): the second vmac starts in 18, beside
// the vwb: ready 28, final 32 (41 where the vwb holds the unit).
TEST(WritebackOverlap, ATraceOfAnotherEntryAndBankRunsBeside) {
  sim::SimStats S = runText(program(64, "r0"), overlapHw());
  EXPECT_EQ(S.Cycles, 32u);
  EXPECT_EQ(S.Compute.Busy, 10u + 1 + 10);
  EXPECT_EQ(S.Compute.WaitAcc, 4u);
  EXPECT_EQ(runText(program(64, "r0"), timingHw()).Cycles, 41u);
}

// Reading bank 2, which the vwb writes: it starts at the vwb's end, 27.
TEST(WritebackOverlap, ATraceReadingItsBankWaitsForItsEnd) {
  sim::SimStats S = runText(program(64, "r2"), overlapHw());
  EXPECT_EQ(S.Cycles, 41u);
  EXPECT_EQ(S.Compute.WaitAcc, 4u + 9);
}

// Into entry 3, which the vwb reads last in 22 + 3 = 25: it starts in 26.
// Entry 5 (past the vwb's) starts in 18.
TEST(WritebackOverlap, ATraceIntoAnEntryWaitsForItsLastRead) {
  sim::SimStats S = runText(program(3, "r0"), overlapHw());
  EXPECT_EQ(S.Cycles, 40u);
  EXPECT_EQ(S.Compute.WaitAcc, 4u + 8);
  EXPECT_EQ(runText(program(5, "r0"), overlapHw()).Cycles, 32u);
}

// A second vwb (one entry, two cycles), a vpre, a vmax and a vlut each wait
// for the first one's end, 27: the vwb and vpre finish in 29, the vmax (1 x 2
// taps) in 29, the vlut (ceil(258 / 16) = 17 words) in 44.
TEST(WritebackOverlap, WritebackPortUsersWaitForItsEnd) {
  for (auto [Last, Total] :
       {std::pair<std::string, uint64_t>{"vwb r0, r2, rows=1, bstride=64, shift=0, relu=0\n", 29},
        {"vpre r0, r0, rows=1, bstride=64, shift=0, init=1\n", 29},
        {"vmax r2, r0, rows=1, len=2, bstride=0, cstride=16, words=0\n", 29},
        {"vlut r0\n", 44}}) {
    sim::SimStats S = runText(program(0, "r0", Last), overlapHw());
    EXPECT_EQ(S.Cycles, Total) << Last;
    EXPECT_EQ(S.Compute.WaitAcc, 4u + 9) << Last;
  }
}

// rows x len entries, two cycles each: 2 x 3 = 6 entries, pushed in 1 (after
// li), written back in [2, 14).
TEST(WritebackOverlap, RowsOfEntriesTakeTheirEntries) {
  for (const isa::HwConfig &Hw : {timingHw(), overlapHw()}) {
    sim::SimStats S = runText("li r2, imm=32768\n"
                              "vwb r0, r2, rows=2, len=3, bstride=1000, cstride=64, shift=0, "
                              "relu=0\nhalt\n",
                              Hw);
    EXPECT_EQ(S.Cycles, 14u);
  }
}

// Entries 0..5 hold pixel e's 64 channels (x << 4, x = 100 e + channel - 32);
// two rows of three entries go to rows 256 elements apart, entries 64 apart,
// with ReLU: row r, entry i at 4096 + 256 r + 64 i holds pixel 3 r + i
// (the output reads back in channel planes).
TEST(WritebackOverlap, RowsOfEntriesLandAtTheirRowsAndColumns) {
  std::vector<int> X;
  for (int E = 0; E < 6; ++E)
    for (int Ch = 0; Ch < 64; ++Ch)
      X.push_back(100 * E + Ch - 32);
  std::string Text = ".output 0x40000 64 2 3\n.data16 " + std::to_string(0x30000);
  for (int V : X)
    Text += " " + std::to_string(V);
  Text += "\nli r1, imm=0x30000\n"
          "li r8, imm=4096\n"
          "li r11, imm=0x40000\n"
          "ld.map r1, r0, rows=1, len=384, dstride=0, bstride=0, mask=1\n"
          "signal.ld idx=0\n"
          "wait.ex idx=0\n"
          "vpre r0, r0, rows=6, bstride=64, shift=4, init=1\n"
          "vwb r0, r8, rows=2, len=3, bstride=256, cstride=64, shift=4, relu=1\n"
          "signal.ex idx=1\n"
          "wait.st idx=1\n"
          "st.map r11, r8, idx=0, rows=2, len=192, dstride=384, bstride=256\n"
          "halt\n";
  for (const isa::HwConfig &Hw : {timingHw(), overlapHw()}) {
    isa::Program P = assembleOrFail(Text, Hw);
    sim::SimStats S;
    std::vector<int16_t> Out;
    ASSERT_TRUE(runProgram(P, S, {}, &Out));
    ASSERT_EQ(Out.size(), 384u);
    for (size_t Pix = 0; Pix < 6; ++Pix) // the output in channel planes
      for (size_t Ch = 0; Ch < 64; ++Ch)
        EXPECT_EQ(Out[Ch * 6 + Pix], std::max(X[Pix * 64 + Ch], 0)) << Pix << " " << Ch;
  }
}

} // namespace
