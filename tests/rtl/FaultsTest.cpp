//===- FaultsTest.cpp - Faulting programs, sim vs RTL ---------------------===//
//
// Programs that break the machine's rules must stop the RTL where they stop
// the simulator: the same pc, instruction and cycle, and the same reason,
// which snowrtl rebuilds from the RTL's fault code and arguments
// (rtl/gen/Faults.def). One test per fault code at least; the programs are
// those of tests/sim/FaultTest.cpp where one exists, on the RTL's presets.
//
//===----------------------------------------------------------------------===//

#include "CoSim.h"
#include "Programs.h"
#include "snow/isa/Timing.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::test;

namespace {

class RtlFaults : public CoSimTest {
protected:
  /// Both tools fault identically on Text, and snowsim's line says Why.
  void expectFault(const std::string &Text, const std::string &Why,
                   const std::string &Hw = "mini64", const std::vector<std::string> &Args = {}) {
    assembleFor("f.bin", Text, Hw);
    if (HasFatalFailure())
      return;
    ToolResult Sim;
    EXPECT_TRUE(coSimulate("f.bin", true, Args, &Sim)) << "program:\n" << Text;
    EXPECT_NE(Sim.Err.find(Why), std::string::npos)
        << "snowsim faulted for another reason than '" << Why << "': " << Sim.Err;
  }
};

TEST_F(RtlFaults, BufferRanges) {
  expectFault(li(2, 131057) + "fill r2, rows=1, len=16, bstride=0, value=1, mask=1\nhalt\n",
              "maps buffer access [131057, 131073) is out of range");
  expectFault(li(2, 131070) + "vmac r0, r2, r0, rows=1, len=3, bstride=0, init=1\nhalt\n",
              "maps buffer access");
  expectFault(li(3, 1023) + "vmac r0, r0, r3, rows=1, len=2, bstride=0, init=1\nhalt\n",
              "weights buffer access [1023, 1025)");
  expectFault(li(1, 131060) + "vmax r1, r0, rows=1, len=1, bstride=0, cstride=0\nhalt\n",
              "maps buffer (pool result)");
  expectFault(li(2, 131000) + "vavg r0, r2, rows=2, len=2, bstride=50, cstride=16, mult=1, "
                              "shift=0\nhalt\n",
              "maps buffer (pool source)");
  expectFault(li(2, 131000) + "vdw r0, r2, r0, rows=1, len=2, bstride=0, cstride=30, init=1\n"
                              "halt\n",
              "maps buffer access");
  expectFault(li(2, 130900) + "vwb r0, r2, rows=2, bstride=200, shift=0, relu=0\nhalt\n",
              "maps buffer access");
  expectFault(li(1, 0x10000) + li(2, 1000) +
                  "ld.wgt r1, r2, idx=1, rows=2, len=20, dstride=640, bstride=10, mask=1\nhalt\n",
              "weights buffer access [1000, 1030)");
  expectFault(li(1, 0x10000) +
                  "st.map r1, r0, idx=0, rows=3, len=1000, dstride=0, bstride=65535\nhalt\n",
              "maps buffer access [0, 132070) is out of range");
}

TEST_F(RtlFaults, MultiPixelTraces) {
  // The last pixel group of a vmacp reads past the buffer; then a pix whose
  // 2^pix groups do not divide the vMACs (4 on mini64, 8 on big1024).
  expectFault(li(2, 131040) + "vmacp r0, r2, r0, rows=1, len=3, bstride=0, cstride=10, pix=2, "
                              "init=1\nhalt\n",
              "maps buffer access [131040, 131073) is out of range");
  expectFault("vmacp r0, r0, r0, rows=1, len=3, bstride=0, cstride=10, pix=3, init=1\nhalt\n",
              "pix=3 asks for 8 pixel groups, which do not divide the 4 vMACs of a CU");
  expectFault("vmacp r0, r0, r0, rows=1, len=3, bstride=0, cstride=10, pix=4, init=1\nhalt\n",
              "pix=4 asks for 16 pixel groups, which do not divide the 8 vMACs of a CU", "big1024");
}

// A pool wider than the unit (mini64: pool_words 3), and a wide result
// past the buffer's end.
TEST_F(RtlFaults, PoolWords) {
  expectFault("vmax r0, r0, rows=1, len=1, bstride=0, cstride=0, words=3\nhalt\n",
              "words=3 asks for 4 lane words, more than the 3 a pool computes at once");
  expectFault(li(1, 131040) + "vmax r1, r0, rows=1, len=1, bstride=0, cstride=0, words=2\nhalt\n",
              "maps buffer (pool result) access [131040, 131088) is out of range");
}

TEST_F(RtlFaults, EmptyAccesses) {
  expectFault("fill r0, rows=0, len=16, bstride=0, value=1, mask=1\nhalt\n", "is empty");
  expectFault(li(1, 0x10000) + "ld.wgt r1, r0, idx=0, rows=1, len=0, dstride=0, bstride=0, "
                               "mask=1\nhalt\n",
              "weights buffer access is empty");
  expectFault("vavg r0, r0, rows=0, len=2, bstride=0, cstride=16, mult=1, shift=0\nhalt\n",
              "maps buffer (pool source) access is empty");
  expectFault("vmac r0, r0, r0, rows=1, len=0, bstride=0, init=1\nhalt\n", "is empty");
}

TEST_F(RtlFaults, AccumulatorRanges) {
  expectFault(li(1, 128) + "vmac r1, r0, r0, rows=1, len=2, bstride=0, init=1\nhalt\n",
              "accumulator 128 out of range (128)");
  expectFault(li(1, 127) + "vdw r1, r0, r0, rows=1, len=2, bstride=0, cstride=64, init=1\n" +
                  li(1, 128) +
                  "vdw r1, r0, r0, rows=1, len=2, bstride=0, cstride=64, init=1\n"
                  "halt\n",
              "accumulator 128");
  expectFault(li(1, 120) + "vwb r1, r0, rows=9, bstride=64, shift=0, relu=0\nhalt\n",
              "accumulators [120, 129) out of range");
  expectFault(li(1, 0) + "vpre r1, r0, rows=0, bstride=64, shift=0, init=1\nhalt\n",
              "accumulators [0, 0)");
}

TEST_F(RtlFaults, MasksAndIndices) {
  expectFault("fill r0, rows=1, len=16, bstride=0, value=1, mask=0\nhalt\n",
              "CU mask 0x0 is empty");
  expectFault("fill r0, rows=1, len=16, bstride=0, value=1, mask=2\nhalt\n",
              "CU mask 0x2 is empty or names CUs beyond the 1 present");
  expectFault("fill r0, rows=1, len=16, bstride=0, value=1, mask=16\nhalt\n", "CU mask 0x10",
              "zc706");
  expectFault(li(1, 0x10000) + "ld.map r1, r0, rows=1, len=16, dstride=0, bstride=0, mask=0\n"
                               "halt\n",
              "CU mask 0x0");
  expectFault(li(1, 0x10000) + "ld.wgt r1, r0, idx=4, rows=1, len=1, dstride=0, bstride=0, "
                               "mask=1\nhalt\n",
              "vMAC index 4 out of range (4 per CU)");
  // wpix: vMAC idx of 2^wpix pixel groups, which must exist.
  expectFault(li(1, 0x10000) + "ld.wgt r1, r0, idx=2, wpix=1, rows=1, len=1, dstride=0, bstride=0, "
                               "mask=1\nhalt\n",
              "wpix=1 and idx=2 name no vMAC of 2 pixel groups (4 vMACs per CU)");
  expectFault(li(1, 0x10000) + "ld.wgt r1, r0, idx=0, wpix=3, rows=1, len=1, dstride=0, bstride=0, "
                               "mask=1\nhalt\n",
              "wpix=3 and idx=0 name no vMAC of 8 pixel groups (4 vMACs per CU)");
  expectFault(li(1, 0x10000) + "ld.wgt r1, r0, idx=0, wpix=1, rows=1, len=1, dstride=0, bstride=0, "
                               "mask=1\nhalt\n",
              "wpix=1 needs wpix_loads (weights loads into pixel groups), which this machine "
              "does not have",
              "zc706_paper");
  // A vwb's sum needs the adder tree across the CUs (cu_sum_writeback).
  expectFault("vwb r0, r0, rows=1, bstride=0, shift=0, relu=0, sum=1\nhalt\n",
              "sum=1 needs cu_sum_writeback (an adder tree across the CUs), which this hardware "
              "does not have",
              "zc706_paper");
  expectFault(li(1, 0x10000) + "st.map r1, r0, idx=1, rows=1, len=16, dstride=0, bstride=0\n"
                               "halt\n",
              "CU index 1 out of range (1 CUs)");
}

TEST_F(RtlFaults, DramRangeAndAlignment) {
  expectFault(li(1, 1073741794) + "ld.map r1, r0, rows=1, len=16, dstride=0, bstride=0, "
                                  "mask=1\nhalt\n",
              "is outside DRAM (1024 MiB)");
  expectFault(li(1, 1073741794) + "st.map r1, r0, idx=0, rows=1, len=16, dstride=0, "
                                  "bstride=0\nhalt\n",
              "is outside DRAM");
  expectFault(li(1, 64) + "ld.map r1, r0, rows=3, len=16, dstride=-64, bstride=16, mask=1\n"
                          "halt\n",
              "DRAM access [-0x40, 0x60)");
  expectFault(li(1, 0x10001) + "ld.map r1, r0, rows=1, len=16, dstride=0, bstride=0, mask=1\n"
                               "halt\n",
              "DRAM address 0x10001 or stride 0 is not 2-byte aligned");
  expectFault(li(1, 0x10000) + "st.map r1, r0, idx=0, rows=2, len=16, dstride=-33, bstride=0\n"
                               "halt\n",
              "or stride -33 is not 2-byte aligned");
}

// §3.6, both directions and both buffers, inside the window and (for the
// load still waiting for the channel) with no end yet.
TEST_F(RtlFaults, HazardWindows) {
  // A trace reads a bank a load is writing (until its data has landed).
  expectFault(li(1, 0x10000) + "ld.map r1, r0, rows=1, len=512, dstride=0, bstride=0, mask=1\n"
                               "vmac r0, r0, r0, rows=1, len=1, bstride=0, init=1\nhalt\n",
              "reads bank 0 of the maps buffer while the load unit is still writing it until "
              "cycle");
  // The second load still waits for the channel: its window has no end yet.
  expectFault(li(1, 0x10000) + li(2, 16384) +
                  "ld.map r1, r0, rows=1, len=4096, dstride=0, bstride=0, mask=1\n"
                  "ld.map r1, r2, rows=1, len=64, dstride=0, bstride=0, mask=1\n" +
                  li(3, 16384) + "vmac r0, r3, r0, rows=1, len=50, bstride=0, init=1\n" +
                  li(4, 16384) + "vmac r0, r4, r0, rows=1, len=1, bstride=0, init=1\nhalt\n",
              "while the load unit is still writing it (missing");
  // A load writes a bank a trace reads.
  expectFault("vmac r0, r0, r0, rows=1, len=100, bstride=0, init=1\n" + li(1, 0x10000) +
                  li(5, 16384) +
                  "fill r5, rows=1, len=1536, bstride=0, value=0, mask=1\n"
                  "ld.map r1, r0, rows=1, len=512, dstride=0, bstride=0, mask=1\nhalt\n",
              "writes bank 0 of the maps buffer while the compute unit is still reading it");
  // A fill writes a bank a store reads (until the channel has moved it).
  expectFault(li(1, 0x20000) + "st.map r1, r0, idx=0, rows=1, len=512, dstride=0, bstride=0\n" +
                  li(5, 16384) +
                  "fill r5, rows=1, len=928, bstride=0, value=0, mask=1\n"
                  "fill r0, rows=1, len=16, bstride=0, value=0, mask=1\nhalt\n",
              "while the store unit is still reading it until cycle");
  // Weights: a trace reads the bank an ld.wgt is writing, and a load writes
  // a weights bank a trace reads (mini64's weights_banks: eight banks of
  // 128 words); a load into another bank of the same half (a layer's first
  // weights above the blocks the layer before reads: compiler/lib/
  // TopWeights.cpp) is none.
  expectFault(li(1, 0x10000) + li(3, 100) +
                  "ld.wgt r1, r0, idx=0, rows=1, len=1, dstride=0, bstride=0, mask=1\n"
                  "vmac r0, r0, r3, rows=1, len=2, bstride=0, init=1\nhalt\n",
              "reads bank 0 of the weights buffer while the load unit");
  const std::string Trace = li(3, 600) + "vmac r0, r0, r3, rows=1, len=90, bstride=0, init=1\n";
  expectFault(Trace + li(1, 0x10000) + li(2, 520) +
                  "ld.wgt r1, r2, idx=2, rows=1, len=4, dstride=0, bstride=0, mask=1\nhalt\n",
              "writes bank 4 of the weights buffer while the compute unit is still reading it");
  assembleFor("top.bin",
              Trace + li(1, 0x10000) + li(2, 900) +
                  "ld.wgt r1, r2, idx=2, rows=1, len=4, dstride=0, bstride=0, mask=1\nhalt\n",
              "mini64");
  EXPECT_TRUE(coSimulate("top.bin"));
  // A writeback writes a bank a store is reading.
  expectFault(li(1, 0x20000) + "st.map r1, r0, idx=0, rows=1, len=512, dstride=0, bstride=0\n"
                               "nop\nvwb r0, r0, rows=1, bstride=0, shift=0, relu=0\nhalt\n",
              "writes bank 0 of the maps buffer while the store unit is still reading it");
}

TEST_F(RtlFaults, DramOrderBetweenLoadsAndStores) {
  expectFault(li(1, 0x20000) + li(2, 16384) +
                  "st.map r1, r0, idx=0, rows=1, len=32, dstride=0, bstride=0\n"
                  "ld.map r1, r2, rows=1, len=32, dstride=0, bstride=0, mask=1\nhalt\n",
              "DRAM [0x20000, 0x20040) is still being written by pc 2");
  expectFault(li(1, 0x20000) + li(2, 16384) + li(3, 0x20030) +
                  "ld.map r1, r2, rows=2, len=32, dstride=100, bstride=32, mask=1\n"
                  "st.map r3, r0, idx=0, rows=1, len=32, dstride=0, bstride=0\nhalt\n",
              "DRAM [0x20030, 0x20070) is still being read by pc 3");
  // Rows the same distance apart: a store of channels 32..63 of four 64-channel
  // pixels faults a load of channels 48..79 of them (both 128 bytes a pixel).
  expectFault(li(1, 0x20040) + li(2, 0x20060) + li(3, 16384) +
                  "st.map r1, r0, idx=0, rows=4, len=32, dstride=128, bstride=32\n"
                  "ld.map r2, r3, rows=4, len=32, dstride=128, bstride=32, mask=1\nhalt\n",
              "DRAM [0x20060, 0x20220) is still being written by pc 3");
  // ...and one of every other pixel's (a gathered 1x1 conv's) too.
  expectFault(li(1, 0x20040) + li(2, 0x20060) + li(3, 16384) +
                  "st.map r1, r0, idx=0, rows=4, len=32, dstride=128, bstride=32\n"
                  "ld.map r2, r3, rows=2, len=32, dstride=256, bstride=32, mask=1\nhalt\n",
              "DRAM [0x20060, 0x201a0) is still being written by pc 3");
}

// The rule compares bytes, not envelopes: the same store and a load of the
// pixels' first 32 channels (every pixel, every other one) run on both.
TEST_F(RtlFaults, DramOrderAllowsOtherChannelsOfThePixels) {
  for (const char *Load : {"ld.map r2, r3, rows=4, len=32, dstride=128, bstride=32, mask=1\n",
                           "ld.map r2, r3, rows=2, len=32, dstride=256, bstride=32, mask=1\n"}) {
    assembleFor("ok.bin",
                li(1, 0x20040) + li(2, 0x20000) + li(3, 16384) +
                    "st.map r1, r0, idx=0, rows=4, len=32, dstride=128, bstride=32\n" + Load +
                    "halt\n",
                "mini64");
    ASSERT_FALSE(HasFatalFailure());
    ToolResult Sim;
    EXPECT_TRUE(coSimulate("ok.bin", false, {}, &Sim)) << Load;
    EXPECT_EQ(Sim.ExitCode, 0) << Sim.Err;
  }
}

TEST_F(RtlFaults, FillOverALoadInFlight) {
  expectFault("ld.map r0, r0, rows=1, len=16, dstride=0, bstride=0, mask=1\n"
              "fill r0, rows=1, len=4, bstride=0, value=1, mask=1\nhalt\n",
              "fills maps [0, 4) while the ld.map at pc 0 is still writing [0, 16)");
}

// The load's maps extent in the message needs more than 16 bits: every
// preset's maps buffer has 131072 elements.
TEST_F(RtlFaults, FillOverALoadInFlightHighInTheBuffer) {
  expectFault(li(2, 70000) + "ld.map r0, r2, rows=2, len=16, dstride=64, bstride=100, mask=1\n" +
                  li(3, 70100) + "fill r3, rows=1, len=4, bstride=0, value=1, mask=1\nhalt\n",
              "fills maps [70100, 70104) while the ld.map at pc 1 is still writing [70000, "
              "70116)");
}

TEST_F(RtlFaults, Deadlocks) {
  expectFault("nop\nwait.ex idx=5\nhalt\n",
              "deadlock: the compute unit waits at pc 1 (wait.ex idx=5) on semaphore 5");
  // Two units blocked, and the control core stalled on the compute queue.
  std::string S = "wait.ld idx=2\nwait.ex idx=3\n";
  for (unsigned I = 0; I < 70; ++I)
    S += "mark imm=0\n";
  expectFault(".layer a conv 0 1 1 1\n" + S + "halt\n",
              "the control core is stalled at pc 65 on a full queue");
  // The store unit alone, after the others drained.
  expectFault(li(1, 0x20000) + "signal.ld idx=1\nwait.st idx=1\nwait.st idx=1\n"
                               "st.map r1, r0, idx=0, rows=1, len=16, dstride=0, bstride=0\nhalt\n",
              "deadlock: the store unit waits at pc 3");
}

TEST_F(RtlFaults, ControlCore) {
  expectFault("nop\nnop\n", "pc ran past the end of the program (2 instructions) without halt");
  expectFault("li r1, imm=3\nbeq r0, r0, imm=2\nhalt\nnop\n",
              "pc ran past the end of the program (4 instructions)");
}

TEST_F(RtlFaults, MarkOutsideTheLayerTable) {
  // The assembler refuses such marks: build the program, then shrink its table.
  auto Hw = isa::loadHwConfig("mini64");
  ASSERT_TRUE(bool(Hw));
  auto P = isa::assembleProgram(".input x addr=0 c=1 h=1 w=1\n.output y addr=0 c=1 h=1 w=1\n"
                                ".layer a conv 0 1 1 1\n.layer b conv 0 1 1 1\n"
                                "mark imm=0\nnop\nmark imm=1\nhalt\n",
                                "m.s", *Hw);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  P->Layers.pop_back();
  ASSERT_FALSE(bool(isa::writeProgram(*P, path("m.bin").string())));
  EXPECT_TRUE(coSimulate("m.bin", true));
  P->Layers.clear();
  ASSERT_FALSE(bool(isa::writeProgram(*P, path("m0.bin").string())));
  ToolResult Sim;
  EXPECT_TRUE(coSimulate("m0.bin", true, {}, &Sim));
  EXPECT_NE(Sim.Err.find("layer 0 is not in the program's layer table (0 layers)"),
            std::string::npos)
      << Sim.Err;
}

TEST_F(RtlFaults, TooManyPendingSignals) {
  std::string S = "ld.map r0, r0, rows=1, len=16, dstride=0, bstride=0, mask=1\n";
  for (unsigned I = 0; I < 17; ++I)
    S += "signal.ld idx=0\n";
  expectFault(S + "halt\n", "the load unit already has 16 signals waiting");
  // A store completes `dram_latency_cycles` after the channel moved it.
  S = li(1, 0x20000) + "st.map r1, r0, idx=0, rows=1, len=16, dstride=0, bstride=0\n";
  for (unsigned I = 0; I < 17; ++I)
    S += "signal.st idx=3\n";
  expectFault(S + "halt\n", "the store unit already has 16 signals");
}

// --max-cycles: a loop that never ends, and a program that ends one cycle
// too late (its last cycles spent draining after halt).
TEST_F(RtlFaults, MaxCycles) {
  expectFault("loop: beq r0, r0, imm=loop\nhalt\n", "still running after --max-cycles 100",
              "mini64", {"--max-cycles", "100"});
  // The vmac is issued once the code's first block has landed (F), starts
  // a cycle later, and its sums land after its start-up, 1000 taps (a whole
  // number of mini64's granules) and the MAC pipeline.
  auto Hw = isa::loadHwConfig("mini64");
  ASSERT_TRUE(bool(Hw));
  ASSERT_EQ(1000 % Hw->TraceRowGranule, 0u);
  const uint64_t F =
      Hw->fetchesCode() ? timing::fetchChannelCycles(*Hw) + Hw->DramLatencyCycles : 0;
  const std::string End =
      std::to_string(F + 1 + Hw->TraceStartupCycles + 1000 + Hw->MacPipelineDepth);
  const std::string Before = std::to_string(std::stoul(End) - 1);
  expectFault("vmac r0, r0, r0, rows=1, len=1000, bstride=0, init=1\nhalt\n",
              "still running after --max-cycles " + Before + " cycles", "mini64",
              {"--max-cycles", Before});
  assembleFor("ok.bin", "vmac r0, r0, r0, rows=1, len=1000, bstride=0, init=1\nhalt\n", "mini64");
  EXPECT_TRUE(coSimulate("ok.bin", false, {"--max-cycles", End}));
}

// Two faults in one cycle: the load unit's is reported, not the store unit's.
TEST_F(RtlFaults, FirstFaultOfACycleWins) {
  expectFault("wait.ld idx=1\nwait.st idx=2\nli r2, imm=200000\n"
              "fill r2, rows=1, len=16, bstride=0, value=1, mask=1\n"
              "st.map r0, r2, idx=0, rows=1, len=16, dstride=0, bstride=0\n"
              "vmac r0, r0, r0, rows=1, len=20, bstride=0, init=1\n"
              "signal.ex idx=1\nsignal.ex idx=2\nhalt\n",
              "pc 3 (fill");
}

} // namespace
