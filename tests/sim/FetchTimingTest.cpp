//===- FetchTimingTest.cpp - Instruction fetch from DRAM ------------------===//
//
// Pins architecture.md §3.1 "Instruction fetch" on the timing16 machine with
// a small instruction memory: imem_kib 1 and blocks of 4 instructions (64
// bytes, one burst) make M = 16 lines, so prefetch runs A = 8 blocks past
// pc's. A fetch holds the channel D = ceil(64 * 256 / 4301) = 4 cycles and
// its block can be issued from grant + 4 + 32 (latency) = grant + 36.
// Every expected number is derived in the comments, never read back.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"
#include "snow/isa/Timing.h"

using namespace snow;
using namespace snow::test;

namespace {

constexpr uint64_t FetchD = 4;         // channel cycles of one 64-byte block
constexpr uint64_t Land = FetchD + 32; // grant to issue: D + dram_latency_cycles
constexpr uint64_t BlockBytes = 64;    // 4 instructions of 16 bytes

isa::HwConfig fetchHw() {
  isa::HwConfig Hw = timingHw();
  Hw.ImemKib = 1;
  Hw.FetchBlockInsts = 4;
  EXPECT_FALSE(bool(isa::validate(Hw, "fetch16")));
  return Hw;
}

// The machine as derived above, from the shared timing functions.
TEST(FetchTiming, TheMachineOfTheseDerivations) {
  isa::HwConfig Hw = fetchHw();
  EXPECT_EQ(Hw.imemLines(), 16u);
  EXPECT_EQ(timing::fetchAheadBlocks(Hw), 8u);
  EXPECT_EQ(timing::fetchChannelCycles(Hw), dramCyclesByDoc(BlockBytes));
  EXPECT_EQ(dramCyclesByDoc(BlockBytes), FetchD);
}

// Straight-line code within the prefetch window. Block 0 is posted and
// granted in cycle 0 and lands in 36; block k >= 1 is posted the cycle after
// block k-1's grant and granted when the channel frees, in 4k, landing in
// 36 + 4k: exactly when instruction 4k is due (instruction i in 36 + i).
// K addi + halt: halt in 36 + K, total 37 + K, the core waiting 36 cycles.
// K = 27: 28 instructions, blocks 0..6, all within 8 of block 0.
TEST(FetchTiming, StraightLineCodeWaitsOnlyForTheFirstBlock) {
  isa::HwConfig Hw = fetchHw();
  for (unsigned K : {0u, 7u, 27u}) {
    sim::SimStats S = runText(repeatLine("addi r1, r1, imm=1", K) + "halt\n", Hw);
    const uint64_t Blocks = (K + 1 + 3) / 4;
    EXPECT_EQ(S.Cycles, Land + K + 1) << "K = " << K;
    EXPECT_EQ(S.CtrlStallFetch, Land) << "K = " << K;
    EXPECT_EQ(S.DramCodeBytes, Blocks * BlockBytes) << "K = " << K;
    EXPECT_EQ(S.DramBusyCycles, Blocks * FetchD) << "K = " << K;
    EXPECT_EQ(S.DramReadBytes, 0u) << "code is not payload";
  }
}

// Prefetch runs at most A = 8 blocks past pc's. With 41 instructions (11
// blocks): blocks 0..7 land in 36, 40, ..., 64; block 8 may be posted only
// once pc reaches block 1 (pc 4, issued in 40): granted in 40, it lands in
// 76, but instruction 32 is due in 68, so the core waits 8 more cycles and
// instruction i >= 32 goes in 44 + i. Block 9 is posted when pc reaches
// block 2 (pc 8, in 44) and lands in 80, when instruction 36 is due; block
// 10 likewise in 84 with the halt (instruction 40): total 85.
TEST(FetchTiming, PrefetchRunsHalfTheMemoryAhead) {
  sim::SimStats S = runText(repeatLine("addi r1, r1, imm=1", 40) + "halt\n", fetchHw());
  EXPECT_EQ(S.Cycles, 85u);
  EXPECT_EQ(S.CtrlStallFetch, Land + 8);
  EXPECT_EQ(S.DramCodeBytes, 11 * BlockBytes);
}

// The program ends with its halt, not with its fetches: a halt in block 0
// followed by 40 nops. While the core waits for block 0 (cycles 0..35), the
// engine fetches blocks 1..7 (granted in 4, 8, ..., 28); block 8 is out of
// reach (pc stays in block 0). Halt in 36, total 37, 8 blocks fetched.
TEST(FetchTiming, HaltEndsTheProgramWhateverWasPrefetched) {
  sim::SimStats S = runText("halt\n" + repeatLine("nop", 40), fetchHw());
  EXPECT_EQ(S.Cycles, Land + 1);
  EXPECT_EQ(S.DramCodeBytes, 8 * BlockBytes);
}

// A loop within the memory runs from it: li, {addi, bne} x N, halt is one
// block, fetched once: 36 + 1 + 2N + 1 cycles whatever N.
TEST(FetchTiming, ALoopThatFitsIsFetchedOnce) {
  isa::HwConfig Hw = fetchHw();
  for (unsigned N : {1u, 5u, 100u}) {
    std::string Text = "li r1, imm=" + std::to_string(N) +
                       "\n"
                       "loop: addi r1, r1, imm=-1\n"
                       "bne r1, r0, imm=loop\n"
                       "halt\n";
    sim::SimStats S = runText(Text, Hw);
    EXPECT_EQ(S.Cycles, Land + 2 * N + 2) << "N = " << N;
    EXPECT_EQ(S.DramCodeBytes, BlockBytes) << "N = " << N;
  }
}

// A loop body longer than the memory's history (the half behind the
// prefetch window) is fetched again on every round: its first blocks were
// replaced by the blocks the prefetch ran to past its end. 30 blocks of
// body, 3 rounds: at least 3 x 30 blocks move; on the preloaded machine the
// same code costs nothing to fetch and runs faster.
TEST(FetchTiming, ALoopLongerThanTheMemoryIsFetchedEveryRound) {
  std::string Text = "li r1, imm=3\nloop: " + repeatLine("addi r2, r2, imm=1", 119) +
                     "addi r1, r1, imm=-1\nbne r1, r0, imm=loop\nhalt\n";
  sim::SimStats S = runText(Text, fetchHw());
  EXPECT_GE(S.DramCodeBytes, 3u * 30 * BlockBytes);
  sim::SimStats Pre = runText(Text, timingHw());
  EXPECT_EQ(Pre.DramCodeBytes, 0u);
  EXPECT_EQ(Pre.CtrlStallFetch, 0u);
  EXPECT_GT(S.Cycles, Pre.Cycles + 3 * Land);
}

// Fetches share the channel with DMA. An ld.map of 4096 bytes (244 channel
// cycles) is issued in 36, starts and is granted in 37. Blocks 0..7 landed
// by 64; block 8, posted in 40 when pc reached block 1, waits for the
// channel until 37 + 244 = 281 and lands in 317, so instruction 32 (due in
// 68) goes in 317 and i >= 32 in 285 + i. Block 9 is posted in 282 (the
// cycle after block 8's grant), granted in 285 and lands in 321, with
// instruction 36; block 10 with the halt (instruction 40) in 325: total 326.
TEST(FetchTiming, FetchesWaitForTheChannelLikeAnyTransfer) {
  std::string Text = "ld.map r0, r0, rows=1, len=2048, dstride=0, bstride=0, mask=1\n" +
                     repeatLine("addi r1, r1, imm=1", 39) + "halt\n";
  sim::SimStats S = runText(Text, fetchHw());
  EXPECT_EQ(dramCyclesByDoc(4096), 244u);
  EXPECT_EQ(S.Cycles, 326u);
  EXPECT_EQ(S.CtrlStallFetch, Land + (317 - 68));
  EXPECT_EQ(S.Load.WaitDram, 0u) << "granted in the cycle it was posted";
  EXPECT_EQ(S.DramBusyCycles, 11 * FetchD + 244);
}

TEST(FetchConfig, TheMemoryHoldsAPowerOfTwoOfWholeBlocks) {
  isa::HwConfig Hw = timingHw();
  Hw.FetchBlockInsts = 16; // 256 bytes
  for (unsigned Kib : {0u, 1u, 32u, 64u}) {
    Hw.ImemKib = Kib;
    EXPECT_FALSE(bool(isa::validate(Hw, "h"))) << Kib;
  }
  auto Rejects = [&](unsigned Kib, unsigned Block, const char *Key) {
    isa::HwConfig C = timingHw();
    C.ImemKib = Kib;
    C.FetchBlockInsts = Block;
    llvm::Error E = isa::validate(C, "h.yaml");
    const std::string Msg = E ? llvm::toString(std::move(E)) : "";
    return Msg.find(std::string("key '") + Key + "'") != std::string::npos;
  };
  EXPECT_TRUE(Rejects(3, 16, "imem_kib")) << "12 blocks: not a power of two";
  EXPECT_TRUE(Rejects(1, 64, "imem_kib")) << "one 1 KiB block: nothing to prefetch into";
  EXPECT_TRUE(Rejects(32, 2, "fetch_block_insts")) << "32 bytes: half a 64-byte burst";
  EXPECT_FALSE(Rejects(0, 2, "imem_kib")) << "preloaded code has no lines to check";
}

} // namespace
