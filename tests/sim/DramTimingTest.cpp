//===- DramTimingTest.cpp - The DRAM channel rules of the timing contract -===//
//
// Pins architecture.md §3.3 and the DMA rows of the §3.2 table: a DMA
// operation posts when it starts, is granted when the one channel is free
// (oldest first, load before store on a tie), occupies it D = ceil(N*256/bw_q8)
// cycles for N burst-rounded bytes and completes D + latency after the grant,
// the latency overlapping later transfers. Burst rounding is probed at the
// byte where one more burst is needed (N-1 / N / N+1).
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

using namespace snow;
using namespace snow::test;

namespace {

// The doc's own numbers for the machine these tests assume (§3.3.3; the
// timing16 machine moves the full 4.2 GB/s, bw_q8 4301, where zc706's 80 %
// gives 3441 and "5 for 64 bytes" in hardware-config.md).
static_assert(dramCyclesByDoc(64) == 4, "ceil(16384 / 4301)");
static_assert(dramCyclesByDoc(128) == 8, "ceil(32768 / 4301) = ceil(7.62)");
static_assert(dramCyclesByDoc(256) == 16, "ceil(65536 / 4301) = ceil(15.24)");
static_assert(dramCyclesByDoc(384) == 23, "ceil(98304 / 4301) = ceil(22.86)");
static_assert(dramCyclesByDoc(1024) == 61, "ceil(262144 / 4301) = ceil(60.95)");
static_assert(dramCyclesByDoc(8192) == 488, "ceil(2097152 / 4301) = ceil(487.6)");
static_assert(rowBurstBytes(2, 64) == 128 && rowBurstBytes(2, 62) == 64, "§3.3.1");

TEST(DramTiming, MachineMatchesTheDerivations) {
  isa::HwConfig Hw = timingHw();
  EXPECT_EQ(Hw.dramBwQ8(), BwQ8); // round(4.2e9 / 250e6 * 256) = round(4300.8)
  EXPECT_EQ(Hw.DramLatencyCycles, Latency);
  EXPECT_EQ(Hw.DramBurstBytes, Burst);
}

std::string loadLine(unsigned Rows, unsigned Len, int Dstride) {
  return "ld.map r1, r0, rows=" + std::to_string(Rows) + ", len=" + std::to_string(Len) +
         ", dstride=" + std::to_string(Dstride) + ", bstride=" + std::to_string(Len) + ", mask=1\n";
}

std::string atAddr(uint64_t Addr) { return "li r1, imm=" + std::to_string(Addr) + "\n"; }

// One aligned load: li in 0, ld.map pushed in 1, starts and posts in 2, the
// idle channel grants it in 2 (§3.3.2), completion 2 + D + 32 = total.
//   64 B: D = 4 -> 38;  1024 B: D = 61 -> 95;  8192 B: D = 488 -> 522.
TEST(DramTiming, SingleLoadCompletesAfterChannelTimePlusLatency) {
  isa::HwConfig Hw = timingHw();
  struct Case {
    unsigned Len;
    uint64_t D, Total;
  };
  for (Case C : {Case{32, 4, 38}, Case{512, 61, 95}, Case{4096, 488, 522}}) {
    sim::SimStats S = runText(atAddr(0x10000) + loadLine(1, C.Len, 0) + "halt\n", Hw);
    EXPECT_EQ(S.Cycles, C.Total) << C.Len * 2 << " bytes";
    EXPECT_EQ(S.DramBusyCycles, C.D);
    EXPECT_EQ(S.DramReadBytes, C.Len * 2u);
    EXPECT_EQ(S.Load.WaitDram, 0u);
  }
}

// §3.3.1 on one row at 0x10000 + Off of Len elements: the row's byte span
// rounded out to whole 64-byte bursts decides D; the payload counter does not
// round (stats-json.md: payload bytes).
//   off  len  bytes  span            bursts  D  total = 2 + D + 32
//   0    31   62     [0, 62)         64      4  38
//   0    32   64     [0, 64)         64      4  38
//   0    33   66     [0, 66)         128     8  42
//   2    31   62     [2, 64)         64      4  38
//   2    32   64     [2, 66)         128     8  42   (a non-aligned row costs a burst)
//   62   1    2      [62, 64)        64      4  38
//   62   2    4      [62, 66)        128     8  42
//   64   32   64     [64, 128)       64      4  38
TEST(DramTiming, RowsAreRoundedOutToAlignedBursts) {
  isa::HwConfig Hw = timingHw();
  struct Case {
    unsigned Off, Len;
    uint64_t Total;
  };
  for (Case C : {Case{0, 31, 38}, Case{0, 32, 38}, Case{0, 33, 42}, Case{2, 31, 38},
                 Case{2, 32, 42}, Case{62, 1, 38}, Case{62, 2, 42}, Case{64, 32, 38}}) {
    uint64_t Bursts = rowBurstBytes(C.Off, C.Len * 2);
    sim::SimStats S = runText(atAddr(0x10000 + C.Off) + loadLine(1, C.Len, 0) + "halt\n", Hw);
    EXPECT_EQ(S.Cycles, C.Total) << "offset " << C.Off << ", " << C.Len << " elements";
    EXPECT_EQ(S.DramBusyCycles, dramCyclesByDoc(Bursts));
    EXPECT_EQ(S.DramReadBytes, C.Len * 2u);
  }
}

// §3.3.1 sums the rounded span of every row of a 2-D access; rows that
// follow each other (dstride = the row's bytes) are one span (dma_merge_rows).
//   base     rows len dstride  row spans (offsets from 0x10000)          bytes D   total
//   0x10000  4    32  96       [0,64) [96,160) [192,256) [288,352)
//                              64 + 128 + 64 + 128                      384   23  57
//   0x10000  4    32  128      4 x 64                                   256   16  50
//   0x10002  3    32  128      3 x 128 (each row straddles a burst)     384   23  57
//   0x10100  3    32  -96      [256,320) [160,224) [64,128) = 64+128+64 256   16  50
//   0x10000  2    32  64       [0,128): one span                        128   8   42
//   0x10000  2    16  32       [0,64): both rows share one burst        64    4   38
//   0x10002  4    24  48       [2,194): one span, 4 bursts              256   16  50
//                              (each row on its own: 64+128+128+128)
TEST(DramTiming, TwoDimensionalLoadCountsBurstsPerRow) {
  isa::HwConfig Hw = timingHw();
  struct Case {
    uint64_t Base;
    unsigned Rows, Len;
    int Dstride;
    uint64_t Bytes, Total;
  };
  for (Case C : {Case{0x10000, 4, 32, 96, 384, 57}, Case{0x10000, 4, 32, 128, 256, 50},
                 Case{0x10002, 3, 32, 128, 384, 57}, Case{0x10100, 3, 32, -96, 256, 50},
                 Case{0x10000, 2, 32, 64, 128, 42}, Case{0x10000, 2, 16, 32, 64, 38},
                 Case{0x10002, 4, 24, 48, 256, 50}}) {
    sim::SimStats S = runText(atAddr(C.Base) + loadLine(C.Rows, C.Len, C.Dstride) + "halt\n", Hw);
    EXPECT_EQ(S.Cycles, C.Total) << C.Rows << " rows at stride " << C.Dstride;
    EXPECT_EQ(S.DramBusyCycles, dramCyclesByDoc(C.Bytes));
    EXPECT_EQ(S.DramReadBytes, uint64_t(C.Rows) * C.Len * 2);
  }
}

// Without dma_merge_rows every row is rounded out on its own, contiguous or
// not: 2 x 16 elements at dstride 32 -> 64 + 64 -> D 8 -> 42; 4 x 24 at
// 0x10002, dstride 48 -> 64 + 128 + 128 + 128 = 448 -> D 27 -> 61.
TEST(DramTiming, UnmergedRowsRoundEachRow) {
  isa::HwConfig Hw = timingHw();
  Hw.DmaMergeRows = 0;
  struct Case {
    uint64_t Base;
    unsigned Rows, Len;
    int Dstride;
    uint64_t Bytes, Total;
  };
  for (Case C : {Case{0x10000, 2, 16, 32, 128, 42}, Case{0x10002, 4, 24, 48, 448, 61}}) {
    sim::SimStats S = runText(atAddr(C.Base) + loadLine(C.Rows, C.Len, C.Dstride) + "halt\n", Hw);
    EXPECT_EQ(S.Cycles, C.Total) << C.Rows << " rows at stride " << C.Dstride;
    EXPECT_EQ(S.DramBusyCycles, dramCyclesByDoc(C.Bytes));
  }
}

// §3.3.3: merged rows of fewer bytes than the channel moves a cycle hold it
// for the datapath's time, a cycle per row's beat: 20 one-element rows at
// dstride 2 span [0,40), one burst (D 4), but take 20 cycles -> total 2 +
// 20 + 32 = 54. Rows of a beat and a half take two beats each: 4 x 24
// elements (48 B) at dstride 48 span 192 B (D 12) and 8 beats -> 12 -> 46.
TEST(DramTiming, MergedRowsTakeABeatEach) {
  isa::HwConfig Hw = timingHw();
  ASSERT_EQ(Hw.dmaBeatBytes(), Beat);
  sim::SimStats S = runText(atAddr(0x10000) + loadLine(20, 1, 2) + "halt\n", Hw);
  EXPECT_EQ(S.Cycles, 54u);
  EXPECT_EQ(S.DramBusyCycles, 20u);
  EXPECT_EQ(S.DramReadBytes, 40u);
  S = runText(atAddr(0x10000) + loadLine(4, 24, 48) + "halt\n", Hw);
  EXPECT_EQ(S.Cycles, 46u);
  EXPECT_EQ(S.DramBusyCycles, dramCyclesByDoc(192));
}

// ld.wgt counts len in 16-lane words of 32 bytes.
//   1 x 2 words = 64 B -> D 4 -> 38;  1 x 3 words = 96 B -> 128 -> D 8 -> 42;
//   2 rows x 1 word at dstride 32: [0,64), one span -> D 4 -> 38.
TEST(DramTiming, WeightLoadsCountWordsOfLanes) {
  isa::HwConfig Hw = timingHw();
  struct Case {
    unsigned Rows, Len;
    uint64_t Total;
  };
  for (Case C : {Case{1, 2, 38}, Case{1, 3, 42}, Case{2, 1, 38}}) {
    std::string Text = atAddr(0x10000) + "ld.wgt r1, r0, idx=0, rows=" + std::to_string(C.Rows) +
                       ", len=" + std::to_string(C.Len) +
                       ", dstride=32, bstride=" + std::to_string(C.Len) + ", mask=1\nhalt\n";
    sim::SimStats S = runText(Text, Hw);
    EXPECT_EQ(S.Cycles, C.Total) << C.Rows << "x" << C.Len << " words";
    EXPECT_EQ(S.DramReadBytes, uint64_t(C.Rows) * C.Len * Lanes * 2);
  }
}

// st.map has the same channel timing: 1024 B -> grant 2, completion
// 2 + 61 + 32 = 95 (§3.2 table: completion g + D + latency).
TEST(DramTiming, StoreCompletesAfterChannelTimePlusLatency) {
  sim::SimStats S =
      runText(atAddr(0x20000) + "st.map r1, r0, idx=0, rows=1, len=512, dstride=0, bstride=0\n"
                                "halt\n",
              timingHw());
  EXPECT_EQ(S.Cycles, 95u);
  EXPECT_EQ(S.DramWriteBytes, 1024u);
  EXPECT_EQ(S.DramReadBytes, 0u);
  EXPECT_EQ(S.DramBusyCycles, 61u);
}

// §3.3.3: latency is pipelined. 1024-byte loads from one address (D = 61):
//   load 0: pushed 1, posted and granted 2, ready 3, channel busy 2..62
//   load 1: pushed 2, posts 3, granted 63 (waits 60), completion 63 + 61 + 32 = 156
//   load 2: posts 64 (ready g1 + 1), granted 124 (waits 60), completion 217
// Two loads: 2 + 2*61 + 32 = 156, not 2 + 2*(61 + 32) = 188.
// Three:     2 + 3*61 + 32 = 217.
TEST(DramTiming, BackToBackLoadsPipelineTheLatency) {
  isa::HwConfig Hw = timingHw();
  std::string Ld = loadLine(1, 512, 0);
  sim::SimStats Two = runText(atAddr(0x10000) + Ld + Ld + "halt\n", Hw);
  EXPECT_EQ(Two.Cycles, 2 + 2 * 61 + Latency);
  EXPECT_EQ(Two.Load.WaitDram, 60u);
  EXPECT_EQ(Two.DramBusyCycles, 122u);
  sim::SimStats Three = runText(atAddr(0x10000) + Ld + Ld + Ld + "halt\n", Hw);
  EXPECT_EQ(Three.Cycles, 2 + 3 * 61 + Latency);
  EXPECT_EQ(Three.Load.WaitDram, 120u);
}

// §3.3.2 tie: a load and a store posted in the same cycle, the load wins.
// Both units are parked on semaphores that fire in the same cycle:
//   0 vmac len 10          starts 1, ready 11, final 15
//   1 signal.ex 0          starts 11, fires max(11, 15) = 15, visible 16
//   2 signal.ex 1          starts 12, fires 15, visible 16
//   3-5 li                 DRAM 0x10000 (load), 0x20000 (store), maps 16384 (bank 1)
//   6 wait.ld 0            tries from 7, succeeds 16
//   7 ld.map 1024 B        starts/posts 17
//   8 wait.st 1            tries from 9, succeeds 16
//   9 st.map 64 B          starts/posts 17
// Load granted 17 (D 61, channel free 78), store granted 78 (D 4) ->
// completion 78 + 4 + 32 = 114. (The other order would give the same total,
// 21 + 61 + 32, so the counters tell who won: the store waited 61 cycles.)
TEST(DramTiming, LoadWinsATieWithAStore) {
  std::string Text = "vmac r0, r0, r0, rows=1, len=10, bstride=0, init=1\n"
                     "signal.ex idx=0\n"
                     "signal.ex idx=1\n"
                     "li r1, imm=0x10000\n"
                     "li r2, imm=0x20000\n"
                     "li r3, imm=16384\n"
                     "wait.ld idx=0\n"
                     "ld.map r1, r0, rows=1, len=512, dstride=0, bstride=0, mask=1\n"
                     "wait.st idx=1\n"
                     "st.map r2, r3, idx=0, rows=1, len=32, dstride=0, bstride=0\n"
                     "halt\n";
  sim::SimStats S = runText(Text, timingHw());
  EXPECT_EQ(S.Cycles, 114u);
  EXPECT_EQ(S.Load.WaitDram, 0u);
  EXPECT_EQ(S.Store.WaitDram, 61u);
  EXPECT_EQ(S.Load.WaitSem, 16u - 7);
  EXPECT_EQ(S.Store.WaitSem, 16u - 9);
}

// §3.3.2 "grants the oldest pending request": an older store beats a younger
// load. 0-4 li; 5 ld.map A 1024 B (posted and granted 6, channel busy 6..66,
// load unit ready 7); 6 st.map 64 B (posts 7); 7 ld.map B 1024 B (pushed 7, so
// it can start, and post, in 8 at the earliest, §3.2.1).
// At 67 the store (posted 7) is oldest: granted 67, completion 67 + 4 + 32 = 103;
// B granted 71, completion 71 + 61 + 32 = 164 = total.
// Waits: store 67 - 7 = 60, load 71 - 8 = 63 (load-first would give 121 / 59).
TEST(DramTiming, OldestRequestIsGrantedFirst) {
  std::string Text = "li r1, imm=0x10000\n"
                     "li r2, imm=0x20000\n"
                     "li r3, imm=16384\n"
                     "li r4, imm=0x10400\n"
                     "li r5, imm=32768\n"
                     "ld.map r1, r0, rows=1, len=512, dstride=0, bstride=0, mask=1\n"
                     "st.map r2, r3, idx=0, rows=1, len=32, dstride=0, bstride=0\n"
                     "ld.map r4, r5, rows=1, len=512, dstride=0, bstride=0, mask=1\n"
                     "halt\n";
  sim::SimStats S = runText(Text, timingHw());
  EXPECT_EQ(S.Cycles, 164u);
  EXPECT_EQ(S.Store.WaitDram, 60u);
  EXPECT_EQ(S.Load.WaitDram, 63u);
}

} // namespace
