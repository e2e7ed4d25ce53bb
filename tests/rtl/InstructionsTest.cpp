//===- InstructionsTest.cpp - One program per instruction class, sim vs RTL -===//
//
// Hand-written programs, each aimed at one instruction class or timing rule,
// run on snowsim and snowrtl with identical results required (CoSim.h): the
// scalar ALU and branches, DMA with odd alignments and negative strides,
// fills over several CUs, traces with bias and accumulation chains,
// traces pushed around the edge of trace lookahead, depthwise traces and
// accumulator preloads, pooling, layer marks (with work before the first
// one), a double-buffered semaphore pipeline, full queues and MAC pipeline
// drains, and a load and a store posted in the same cycle.
// Programs that do not depend on the machine's shape run on every preset the
// RTL is built for.
//
//===----------------------------------------------------------------------===//

#include "CoSim.h"
#include "Programs.h"
#include <fmt/format.h>
#include <regex>

using namespace snow;
using namespace snow::test;

namespace {

/// The presets the RTL models are built for by default.
const char *const RtlPresets[] = {"mini64", "zc706", "big1024"};

class RtlInstructions : public CoSimTest {};
class RtlInstructionsOn : public CoSimTest, public ::testing::WithParamInterface<const char *> {};

// Every scalar ALU operation and branch kind; each result becomes the DRAM
// address of a one-element store (marker value k + 1), so a wrong register
// value moves a marker in the output.
TEST_F(RtlInstructions, ScalarAluAndBranches) {
  std::string S = ".model alu\n.output 0x20000 256 1 1\n"
                  "li r1, imm=-77\nli r2, imm=13\nli r3, imm=0\nli r4, imm=7\n"
                  "loop:\n"
                  "  mul r5, r1, r2\n  add r3, r3, r5\n  addi r2, r2, imm=3\n"
                  "  addi r4, r4, imm=-1\n  bne r4, r0, imm=loop\n"
                  "sub r6, r3, r2\nand r7, r6, r1\nor r8, r6, r2\nxor r9, r8, r7\n"
                  "li r10, imm=3\nsll r11, r9, r10\nsrl r12, r3, r10\nsra r13, r3, r10\n"
                  "slt r14, r3, r2\nslt r15, r2, r3\nmuli r16, r2, imm=-5\n"
                  "andi r17, r3, imm=0x3fe\nslli r18, r2, imm=4\nsrli r19, r1, imm=20\n"
                  "srai r21, r1, imm=2\naddi r0, r2, imm=9\n"
                  "li r22, imm=5\nli r23, imm=9\n"
                  "beq r22, r23, imm=skip1\naddi r22, r22, imm=100\nskip1:\n"
                  "bge r22, r23, imm=skip2\naddi r22, r22, imm=1000\nskip2:\n"
                  "blt r23, r22, imm=skip3\nnop\nskip3:\n"
                  "bge r1, r0, imm=skip4\naddi r22, r22, imm=7\nskip4:\n"
                  "beq r0, r0, imm=skip5\nhalt\nskip5:\n";
  const unsigned Results[] = {3, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 0};
  const unsigned N = unsigned(std::size(Results));
  for (unsigned K = 0; K < N; ++K)
    S += li(25, 16 * K) +
         fmt::format("fill r25, rows=1, len=16, bstride=0, value={}, mask=1\n", K + 1);
  S += "signal.ld idx=0\nwait.st idx=0\n";
  for (unsigned K = 0; K < N; ++K)
    S += fmt::format("andi r24, r{}, imm=0x1fe\naddi r24, r24, imm=0x20000\n", Results[K]) +
         li(25, 16 * K) + "st.map r24, r25, idx=0, rows=1, len=1, dstride=0, bstride=0\n";
  S += "halt\n";
  assembleFor("alu.bin", S, "mini64");
  EXPECT_TRUE(coSimulate("alu.bin"));
}

// DMA rows at 2-byte but not burst alignment, strides that are not burst
// multiples, a zero and a negative DRAM stride, buffer strides; loads into
// two CUs of the mask, the store from one of them.
TEST_P(RtlInstructionsOn, DmaAlignmentsAndStrides) {
  const bool Multi = std::string(GetParam()) != "mini64";
  const unsigned Mask = Multi ? 0b0110 : 1, Cu = Multi ? 2 : 0;
  std::string S = fmt::format(".model dma\n.input 0x10000 16 8 8\n.output 0x20000 16 16 8\n"
                              "li r1, imm=0x10006\nli r2, imm=5\n"
                              "ld.map r1, r2, rows=7, len=37, dstride=250, bstride=40, mask={0}\n"
                              "li r3, imm=0x107f0\nli r4, imm=1000\n"
                              "ld.map r3, r4, rows=5, len=19, dstride=-202, bstride=19, mask={0}\n"
                              "li r5, imm=0x10402\nli r6, imm=20000\n"
                              "ld.map r5, r6, rows=3, len=64, dstride=0, bstride=70, mask={0}\n"
                              "li r10, imm=0x10010\nli r11, imm=40000\n"
                              "ld.map r10, r11, rows=1, len=1000, dstride=0, bstride=0, mask=1\n"
                              "signal.ld idx=0\nwait.st idx=0\n"
                              "li r7, imm=0x20000\n"
                              "st.map r7, r2, idx={1}, rows=7, len=37, dstride=250, bstride=40\n"
                              "li r8, imm=0x20bb8\n"
                              "st.map r8, r4, idx={1}, rows=5, len=19, dstride=-202, bstride=19\n"
                              "li r9, imm=0x20c22\n"
                              "st.map r9, r6, idx={1}, rows=3, len=64, dstride=130, bstride=70\n"
                              "li r12, imm=0x20e00\n"
                              "st.map r12, r11, idx=0, rows=4, len=250, dstride=-500, bstride=250\n"
                              "halt\n",
                              Mask, Cu);
  assembleFor("dma.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("dma.bin"));
}

// Fills of every shape (rows, partial lane-words, strides, negative values)
// into different CUs, stored from each CU.
TEST_P(RtlInstructionsOn, FillsIntoMaskedCus) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  const unsigned Cus = Hw->cus();
  std::string S = fmt::format(".model fills\n.output 0x20000 {} 1 1\n", 512 * Cus);
  for (unsigned Cu = 0; Cu < Cus; ++Cu)
    S += li(1, 100 + Cu) + fmt::format("fill r1, rows=3, len={}, bstride=130, value={}, mask={}\n",
                                       17 + Cu, int(Cu) * 1000 - 3000, 1u << Cu);
  S += li(2, 200) +
       fmt::format("fill r2, rows=2, len=5, bstride=7, value=-1, mask={}\n", (1u << Cus) - 1);
  S += "signal.ld idx=0\nwait.st idx=0\n";
  for (unsigned Cu = 0; Cu < Cus; ++Cu)
    S += li(3, 0x20000 + 1024 * Cu) + li(4, 0) +
         fmt::format("st.map r3, r4, idx={}, rows=1, len=512, dstride=0, bstride=0\n", Cu);
  S += "halt\n";
  assembleFor("fills.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("fills.bin"));
}

/// The header of a trace program: a 2x4 map of 64 channels in; OutH x OutW
/// entries of vmacs x lanes channels out at 0x40000.
std::string tracesHeader(const char *Name, const isa::HwConfig &Hw, unsigned OutH, unsigned OutW) {
  return fmt::format(".model {}\n.input 0x10000 64 2 4\n.output 0x40000 {} {} {}\n", Name,
                     Hw.VmacsPerCu * Hw.LanesPerVmac, OutH, OutW);
}

/// The map and weight words in every vMAC loaded into all CUs, the compute
/// unit waiting for them.
std::string tracesLoads(const isa::HwConfig &Hw) {
  const unsigned V = Hw.VmacsPerCu, L = Hw.LanesPerVmac, All = (1u << Hw.cus()) - 1;
  std::string S = weightData(V, L, 0x100000, 2000);
  S += li(1, 0x10000) + fmt::format("ld.map r1, r0, rows=1, len=512, dstride=0, bstride=0, "
                                    "mask={}\n",
                                    All);
  S += weightLoads(V, 0x100000, All);
  return S + "signal.ld idx=0\nwait.ex idx=0\n";
}

// vbias (two shifts), vmac with init and accumulate chains over several
// accumulators, vwb with and without ReLU at three shifts (one saturating).
TEST_P(RtlInstructionsOn, TracesBiasAndWriteback) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  const unsigned Row = Hw->VmacsPerCu * Hw->LanesPerVmac;
  std::string S = tracesHeader("traces", *Hw, 3, 3) + tracesLoads(*Hw);
  S += li(2, 500) + "vbias r2, shift=4\n";
  S += li(3, 0) + li(4, 0) + li(5, 0) + "vmac r3, r4, r5, rows=2, len=40, bstride=100, init=1\n";
  S += li(4, 7) + li(5, 80) + "vmac r3, r4, r5, rows=1, len=16, bstride=0, init=0\n";
  S += li(3, 1) + li(4, 200) + li(5, 10) + "vmac r3, r4, r5, rows=3, len=20, bstride=64, init=1\n";
  S += li(4, 333) + li(5, 70) + "vmac r3, r4, r5, rows=2, len=25, bstride=3, init=0\n";
  S += "vbias r2, shift=30\n";
  S += li(3, 2) + li(4, 1) + li(5, 100) + "vmac r3, r4, r5, rows=1, len=9, bstride=0, init=1\n";
  S += li(6, 0) + li(7, 2048) + "vwb r6, r7, rows=3, bstride=" + std::to_string(Row) +
       ", shift=8, relu=0\n";
  S += li(7, 4096) + "vwb r6, r7, rows=3, bstride=" + std::to_string(Row) + ", shift=12, relu=1\n";
  S += li(7, 6144) + "vwb r6, r7, rows=3, bstride=" + std::to_string(Row) + ", shift=0, relu=0\n";
  S += "signal.ex idx=1\nwait.st idx=1\n";
  for (unsigned K = 0; K < 3; ++K)
    S += li(8, 0x40000 + K * 6 * Row) + li(9, 2048 * (K + 1)) +
         fmt::format("st.map r8, r9, idx=0, rows=3, len={0}, dstride={1}, bstride={0}\n", Row,
                     2 * Row);
  S += "halt\n";
  assembleFor("traces.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("traces.bin"));
}

// vwb's sum (cu_sum_writeback): every CU traces its own maps (CU c's start
// 16 c elements further into the input), so the sums over the CUs differ
// from each CU's words; written with and without sum, skipping CU 0 or none,
// with ReLU and at three shifts (one saturating), a trace right behind a
// sum's writeback into the bank it reads; stored from CU 0 and from the last.
TEST_P(RtlInstructionsOn, WritebackOfSums) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  ASSERT_TRUE(Hw->CuSumWriteback) << "the presets tested here have cu_sum_writeback";
  const unsigned V = Hw->VmacsPerCu, L = Hw->LanesPerVmac, Row = V * L, N = Hw->cus();
  const unsigned All = (1u << N) - 1;
  std::string S = tracesHeader("sums", *Hw, 3, 4) + weightData(V, L, 0x100000, 2000);
  for (unsigned C = 0; C < N; ++C)
    S += li(1, 0x10000 + 32 * C) +
         fmt::format("ld.map r1, r0, rows=1, len=384, dstride=0, bstride=0, mask={}\n", 1u << C);
  S += weightLoads(V, 0x100000, All) + "signal.ld idx=0\nwait.ex idx=0\n";
  S += li(2, 500) + "vbias r2, shift=4\n";
  S += li(3, 0) + li(4, 0) + li(5, 0) + "vmac r3, r4, r5, rows=2, len=40, bstride=100, init=1\n";
  S += li(3, 1) + li(4, 200) + li(5, 10) + "vmac r3, r4, r5, rows=3, len=20, bstride=64, init=1\n";
  S += li(3, 2) + li(4, 1) + li(5, 100) + "vmac r3, r4, r5, rows=1, len=9, bstride=0, init=1\n";
  const std::string Rows = ", rows=3, bstride=" + std::to_string(Row);
  S += li(6, 0) + li(7, 2048) + "vwb r6, r7" + Rows + ", shift=8, relu=0, sum=1\n";
  S += li(7, 4096) + "vwb r6, r7" + Rows + ", shift=12, relu=1, sum=1, skip=1\n";
  // Reads the bank the writeback above writes: it waits for the sums.
  S += li(3, 3) + li(4, 4100) + li(5, 0) + "vmac r3, r4, r5, rows=1, len=8, bstride=0, init=1\n";
  S += li(7, 6144) + "vwb r6, r7" + Rows + ", shift=0, relu=0, sum=1\n";
  S += li(7, 8192) + "vwb r6, r7" + Rows + ", shift=0, relu=0\n";
  S += "signal.ex idx=1\nwait.st idx=1\n";
  const unsigned From[4][2] = {{2048, 0}, {4096, N - 1}, {6144, N - 1}, {8192, 0}};
  for (unsigned K = 0; K < 4; ++K)
    S += li(8, 0x40000 + K * 6 * Row) + li(9, From[K][0]) +
         fmt::format("st.map r8, r9, idx={0}, rows=3, len={1}, dstride={2}, bstride={1}\n",
                     From[K][1], Row, 2 * Row);
  S += "halt\n";
  assembleFor("sums.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("sums.bin"));
}

// Traces pushed around the last cycle of the trace before (trace_lookahead):
// after k scalar instructions each, k from 0 to 19, so the control core falls
// behind and the next trace arrives two cycles before, one cycle before, in or
// after that last cycle; also a trace after a vbias and a vdw after a vmac.
// The simulator's derivations are in tests/sim/TraceCostTest.cpp; here both
// must agree on every cycle.
TEST_P(RtlInstructionsOn, TracesAroundTheLookaheadEdge) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  const unsigned Row = Hw->VmacsPerCu * Hw->LanesPerVmac;
  // The sweep first, on the buffers' zeros, each trace starting as soon as
  // the core has pushed it; the loads wait for it (semaphore 2).
  std::string S = tracesHeader("lookahead", *Hw, 2, 1);
  S += li(3, 0) + li(4, 0) + li(5, 0) + "vmac r3, r4, r5, rows=1, len=5, bstride=0, init=1\n";
  const unsigned Sweep = 20; // long enough for mini64's 11-cycle traces
  for (unsigned K = 0; K < Sweep; ++K) {
    for (unsigned I = 0; I < K; ++I)
      S += li(6, I);
    S += fmt::format("vmac r3, r4, r5, rows=1, len={}, bstride=0, init=0\n", 3 + K % 4);
  }
  S += "signal.ex idx=2\nwait.ld idx=2\n" + tracesLoads(*Hw);
  S += li(2, 500) + "vbias r2, shift=4\n";
  S += li(3, 1) + "vmac r3, r4, r5, rows=2, len=7, bstride=9, init=1\n";
  S += "vdw r0, r0, r0, rows=2, len=3, bstride=64, cstride=64, init=1\n";
  S += li(6, 0) + li(7, 2048) + "vwb r6, r7, rows=2, bstride=" + std::to_string(Row) +
       ", shift=8, relu=0\n";
  S += "signal.ex idx=1\nwait.st idx=1\n";
  S += li(8, 0x40000) + li(9, 2048) +
       fmt::format("st.map r8, r9, idx=0, rows=2, len={0}, dstride={1}, bstride={0}\n", Row,
                   2 * Row);
  S += "halt\n";
  assembleFor("lookahead.bin", S, GetParam());
  ToolResult Sim;
  EXPECT_TRUE(coSimulate("lookahead.bin", false, {}, &Sim));
  // The sweep reaches both sides of the edge: of the Sweep + 1 traces right
  // after a trace, some were looked ahead and some not (the same program on
  // the preset without lookahead takes more cycles, but fewer than that
  // many more).
  write("nola.yaml", fmt::format("base: {}\nname: nola\ntrace_lookahead: 0\n", GetParam()));
  assembleFor("nola.bin", S, path("nola.yaml").string());
  const ToolResult NoLa = run("snowsim", {"nola.bin", "--timing-only"});
  auto Cycles = [](const ToolResult &R) {
    std::smatch M;
    return std::regex_search(R.Out, M, std::regex("simulated ([0-9]+) cycles")) ? std::stoull(M[1])
                                                                                : 0ull;
  };
  const uint64_t With = Cycles(Sim), Without = Cycles(NoLa);
  ASSERT_GT(With, 0u) << Sim;
  EXPECT_GT(Without, With) << NoLa;
  EXPECT_LT(Without, With + Sweep + 1);
}

/// The start of a multi-pixel program: a 4x4 map of 64 channels and weight
/// words in every vMAC (the bias at word 0), loaded into all CUs; its output
/// is 5 entries of vmacs x lanes channels at 0x40000.
std::string multiPixelStart(const char *Name, const isa::HwConfig &Hw) {
  const unsigned V = Hw.VmacsPerCu, L = Hw.LanesPerVmac, All = (1u << Hw.cus()) - 1;
  std::string S =
      fmt::format(".model {}\n.input 0x10000 64 4 4\n.output 0x40000 {} 5 1\n", Name, V * L);
  S += weightData(V, L, 0x100000, 2000);
  S += li(1, 0x10000) + fmt::format("ld.map r1, r0, rows=1, len=1024, dstride=0, bstride=0, "
                                    "mask={}\n",
                                    All);
  return S + weightLoads(V, 0x100000, All);
}

// vmacp with every pixel grouping the machine has (2^pix dividing its vMACs),
// cstrides that are and are not multiples of the row, init and accumulate,
// written back (also to overlapping entries) and stored.
TEST_P(RtlInstructionsOn, MultiPixelTraces) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  const unsigned V = Hw->VmacsPerCu, L = Hw->LanesPerVmac, Row = V * L;
  std::string S = multiPixelStart("vmacp", *Hw);
  S += "signal.ld idx=0\nwait.ex idx=0\n";
  S += li(2, 500) + "vbias r2, shift=3\n";
  unsigned Entry = 0;
  for (unsigned Pix = 0; (1u << Pix) <= V; ++Pix) {
    if (V % (1u << Pix) != 0)
      continue;
    S += li(3, Entry) + li(4, 3 * Pix) + li(5, 10 * Pix) +
         fmt::format("vmacp r3, r4, r5, rows=2, len=24, bstride=64, cstride={}, pix={}, "
                     "init=1\n",
                     37 + 16 * Pix, Pix);
    S += li(4, 100 + Pix) + li(5, 20) +
         fmt::format("vmacp r3, r4, r5, rows=1, len=30, bstride=0, cstride=64, pix={}, init=0\n",
                     Pix);
    ++Entry;
  }
  S += li(6, 0) + li(7, 2048) +
       fmt::format("vwb r6, r7, rows={}, bstride={}, shift=9, relu=0\n", Entry, Row);
  // Entries one lane word apart overlap: the order in which the writeback
  // moves vMAC groups and entries decides what stays.
  S += li(10, 4096) + fmt::format("vwb r6, r10, rows={}, bstride={}, shift=7, relu=0\n", Entry, L);
  S += "signal.ex idx=1\nwait.st idx=1\n";
  S += li(8, 0x40000) + fmt::format("st.map r8, r7, idx=0, rows={0}, len={1}, dstride={2}, "
                                    "bstride={1}\n",
                                    Entry, Row, 2 * Row);
  S += li(8, 0x40000 + 8 * Row) + fmt::format("st.map r8, r10, idx=0, rows=1, len={}, dstride=0, "
                                              "bstride=0\n",
                                              Row);
  S += "halt\n";
  assembleFor("vmacp.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("vmacp.bin"));
}

// ld.wgt with wpix: each pixel mode's weights load once for vMAC idx of
// every pixel group (a block of its own for each idx), and the vmacp of that
// mode reads them; vMACs of one position in different groups must hold the
// same words, or the groups' pixels come out different from the simulator's.
TEST_P(RtlInstructionsOn, WeightLoadsIntoPixelGroups) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  ASSERT_TRUE(Hw->WpixLoads) << "the presets tested here have wpix_loads";
  const unsigned V = Hw->VmacsPerCu, L = Hw->LanesPerVmac, Row = V * L;
  const unsigned All = (1u << Hw->cus()) - 1;
  std::string S = multiPixelStart("wpix", *Hw);
  std::vector<unsigned> Modes;
  for (unsigned Pix = 1; (1u << Pix) <= V; ++Pix)
    if (V % (1u << Pix) == 0)
      Modes.push_back(Pix);
  for (unsigned Pix : Modes)
    for (unsigned Idx = 0; Idx < (V >> Pix); ++Idx)
      S += li(1, 0x100000 + Idx * 8192 + 40 * 2 * L) + li(2, 256 + 64 * Pix) +
           fmt::format("ld.wgt r1, r2, idx={}, wpix={}, rows=1, len=48, dstride=0, bstride=0, "
                       "mask={}\n",
                       Idx, Pix, All);
  S += "signal.ld idx=0\nwait.ex idx=0\n";
  S += li(2, 500) + "vbias r2, shift=3\n";
  unsigned Entry = 0;
  for (unsigned Pix : Modes) {
    S += li(3, Entry) + li(4, 3 * Pix) + li(5, 256 + 64 * Pix) +
         fmt::format("vmacp r3, r4, r5, rows=2, len=24, bstride=64, cstride={}, pix={}, "
                     "init=1\n",
                     37 + 16 * Pix, Pix);
    ++Entry;
  }
  ASSERT_GT(Entry, 0u) << "no pixel mode on " << GetParam();
  S += li(6, 0) + li(7, 2048) +
       fmt::format("vwb r6, r7, rows={}, bstride={}, shift=9, relu=0\n", Entry, Row);
  S += "signal.ex idx=1\nwait.st idx=1\n";
  S += li(8, 0x40000) + fmt::format("st.map r8, r7, idx=0, rows={0}, len={1}, dstride={2}, "
                                    "bstride={1}\n",
                                    Entry, Row, 2 * Row);
  S += "halt\n";
  assembleFor("wpix.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("wpix.bin"));
}

// vdw over 3x3 and 2x2 windows, vpre with and without init and shifts, then
// a vdw accumulating onto the preloaded sums, written back with ReLU.
TEST_P(RtlInstructionsOn, DepthwiseAndPreload) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  const unsigned C = Hw->VmacsPerCu * Hw->LanesPerVmac;
  std::string S = accProgramStart("dw", *Hw, 2);
  S += li(2, 500) + "vbias r2, shift=6\n";
  S += li(3, 0) + li(4, 0) + li(5, 0) +
       fmt::format("vdw r3, r4, r5, rows=3, len=3, bstride={}, cstride={}, init=1\n", 4 * C, C);
  S += li(3, 1) + li(4, C) + li(5, 9) +
       fmt::format("vdw r3, r4, r5, rows=3, len=3, bstride={}, cstride={}, init=1\n", 4 * C, C);
  S += li(3, 2) + li(4, 5 * C) +
       fmt::format("vpre r3, r4, rows=2, bstride={}, shift=3, init=1\n", C);
  S += li(4, 0) + li(5, 20) +
       fmt::format("vdw r3, r4, r5, rows=2, len=2, bstride={}, cstride={}, init=0\n", 4 * C, C);
  S += li(3, 0) + li(4, 10 * C) + fmt::format("vpre r3, r4, rows=1, bstride=0, shift=0, init=0\n");
  S +=
      li(6, 0) + li(7, 32768) + fmt::format("vwb r6, r7, rows=4, bstride={}, shift=5, relu=1\n", C);
  S += "signal.ex idx=1\nwait.st idx=1\n";
  S += li(8, 0x40000) +
       fmt::format("st.map r8, r7, idx=0, rows=1, len={}, dstride=0, bstride=0\n", 4 * C);
  S += "halt\n";
  assembleFor("dw.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("dw.bin"));
}

// Accumulators preloaded with maps << 31 (up to 2^46), written back with
// shift 31 (the maps again) and shift 63, with and without ReLU: zeros for
// every value (the compiler's zeros in a depthwise window's padding,
// compiler.md step 9d), in the RTL as in the simulator.
TEST_P(RtlInstructionsOn, WritebackOfShift63) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  const unsigned C = Hw->VmacsPerCu * Hw->LanesPerVmac;
  std::string S = accProgramStart("zero", *Hw, 2);
  S += li(3, 0) + li(4, 0) + fmt::format("vpre r3, r4, rows=4, bstride={}, shift=31, init=1\n", C);
  S += li(7, 32768) + fmt::format("vwb r3, r7, rows=4, bstride={}, shift=31, relu=0\n", C);
  S += li(7, 32768 + 4 * C) + fmt::format("vwb r3, r7, rows=4, bstride={}, shift=63, relu=0\n", C);
  S += li(7, 32768 + 8 * C) + fmt::format("vwb r3, r7, rows=4, bstride={}, shift=63, relu=1\n", C);
  S += "signal.ex idx=1\nwait.st idx=1\n";
  S += li(7, 32768) + li(8, 0x40000) +
       fmt::format("st.map r8, r7, idx=0, rows=1, len={}, dstride=0, bstride=0\n", 12 * C);
  S += "halt\n";
  assembleFor("zero.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("zero.bin"));
}

// vmul after vpre (shifted so that rounding and saturation to 16 bits
// matter), after a vdw trace's sums, over strided entries, then vwb.
TEST_P(RtlInstructionsOn, Products) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  const unsigned C = Hw->VmacsPerCu * Hw->LanesPerVmac;
  std::string S = accProgramStart("mul", *Hw, 3);
  S += li(3, 0) + li(4, 0) + fmt::format("vpre r3, r4, rows=4, bstride={}, shift=6, init=1\n", C);
  S += li(4, 4 * C) + fmt::format("vmul r3, r4, rows=4, bstride={}, shift=3\n", C);
  S += li(3, 4) + li(4, 8 * C) +
       fmt::format("vpre r3, r4, rows=2, bstride={}, shift=0, init=1\n", 2 * C);
  S += li(4, 9 * C) + fmt::format("vmul r3, r4, rows=2, bstride={}, shift=0\n", 3 * C);
  S += li(2, 500) + "vbias r2, shift=6\n";
  S += li(3, 6) + li(4, 0) + li(5, 0) +
       fmt::format("vdw r3, r4, r5, rows=3, len=3, bstride={}, cstride={}, init=1\n", 4 * C, C);
  S += li(4, 15 * C) + fmt::format("vmul r3, r4, rows=1, bstride=0, shift=5\n");
  S += li(3, 7) + li(4, 13 * C) +
       fmt::format("vpre r3, r4, rows=2, bstride={}, shift=1, init=1\n", C);
  S += li(4, 12 * C) + fmt::format("vmul r3, r4, rows=2, bstride={}, shift=20\n", C);
  S += li(6, 0) + li(7, 32768) + fmt::format("vwb r6, r7, rows=9, bstride={}, shift=9\n", C);
  S += "signal.ex idx=1\nwait.st idx=1\n";
  S += li(8, 0x40000) +
       fmt::format("st.map r8, r7, idx=0, rows=1, len={}, dstride=0, bstride=0\n", 9 * C);
  S += "halt\n";
  assembleFor("mul.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("mul.bin"));
}

// vmax and vavg: square and one-row windows, column strides, lane groups,
// mult/shift averages including a saturating one.
TEST_F(RtlInstructions, Pooling) {
  std::string S = ".model pool\n.input 0x10000 32 6 6\n.output 0x20000 128 1 1\n";
  S += li(1, 0x10000) + "ld.map r1, r0, rows=1, len=1152, dstride=0, bstride=0, mask=1\n";
  S += "signal.ld idx=0\nwait.ex idx=0\n";
  const char *Ops[] = {"vmax r2, r3, rows=3, len=3, bstride=192, cstride=32",
                       "vmax r2, r3, rows=1, len=1, bstride=0, cstride=0",
                       "vavg r2, r3, rows=2, len=2, bstride=192, cstride=32, mult=16384, shift=16",
                       "vavg r2, r3, rows=3, len=3, bstride=192, cstride=32, mult=7282, shift=16",
                       "vavg r2, r3, rows=2, len=3, bstride=192, cstride=32, mult=3, shift=0",
                       "vavg r2, r3, rows=1, len=6, bstride=0, cstride=32, mult=1, shift=1",
                       "vmax r2, r3, rows=4, len=2, bstride=100, cstride=7",
                       "vavg r2, r3, rows=1, len=1, bstride=0, cstride=0, mult=65535, shift=63"};
  unsigned K = 0;
  for (const char *Op : Ops) {
    S += li(2, 2048 + 16 * K) + li(3, K % 2 ? 16 : 0) + Op + std::string("\n");
    ++K;
  }
  S += "signal.ex idx=1\nwait.st idx=1\n" + li(4, 0x20000) + li(5, 2048) +
       "st.map r4, r5, idx=0, rows=1, len=128, dstride=0, bstride=0\nhalt\n";
  assembleFor("pool.bin", S, "mini64");
  EXPECT_TRUE(coSimulate("pool.bin"));
}

// vmax and vavg of several lane words (mini64: pool_words 3, lanes 16): a
// window's taps read 48 or 32 channels at once, past a pixel's 32 into the
// next one's, and write them all.
TEST_F(RtlInstructions, WidePooling) {
  std::string S = ".model pool\n.input 0x10000 32 6 6\n.output 0x20000 128 1 1\n";
  S += li(1, 0x10000) + "ld.map r1, r0, rows=1, len=1152, dstride=0, bstride=0, mask=1\n";
  S += "signal.ld idx=0\nwait.ex idx=0\n";
  S += li(2, 2048) + li(3, 0) + "vmax r2, r3, rows=3, len=3, bstride=192, cstride=32, words=2\n";
  S += li(2, 2096) + li(3, 16) +
       "vavg r2, r3, rows=2, len=3, bstride=192, cstride=32, mult=7282, shift=16, words=1\n";
  S += li(2, 2128) + li(3, 5) + "vmax r2, r3, rows=4, len=2, bstride=100, cstride=7, words=2\n";
  S += "signal.ex idx=1\nwait.st idx=1\n" + li(4, 0x20000) + li(5, 2048) +
       "st.map r4, r5, idx=0, rows=1, len=128, dstride=0, bstride=0\nhalt\n";
  assembleFor("widepool.bin", S, "mini64");
  EXPECT_TRUE(coSimulate("widepool.bin"));
}

/// A program with a layer table: loads and a trace dispatched before the
/// first mark (the prologue goes to the first marked layer, here 2), a layer
/// marked twice, one never marked, stores after a mark.
std::string markProgram(bool WithMarks) {
  std::string S = ".model marks\n.layer first conv 1000 16 1 1\n.layer second pool 0 16 1 1\n"
                  ".layer third conv 5000 16 1 1\n.layer unused conv 7 1 1 1\n"
                  ".input 0x10000 64 2 4\n.output 0x40000 64 1 1\n";
  S += weightData(4, 16, 0x100000, 500);
  S += li(1, 0x10000) + "ld.map r1, r0, rows=1, len=512, dstride=0, bstride=0, mask=1\n";
  S += weightLoads(4, 0x100000, 1);
  S += "signal.ld idx=0\nwait.ex idx=0\n";
  S += li(3, 0) + li(4, 0) + li(5, 0) + "vmac r3, r4, r5, rows=2, len=30, bstride=64, init=1\n";
  auto Mark = [&](int L) { return WithMarks ? fmt::format("mark imm={}\n", L) : std::string(); };
  S += Mark(2) + "vmac r3, r4, r5, rows=1, len=50, bstride=0, init=0\n";
  S += Mark(0) + "vmac r3, r4, r5, rows=3, len=12, bstride=9, init=0\n";
  S += li(7, 2048) + "vwb r3, r7, rows=1, bstride=0, shift=9, relu=1\nsignal.ex idx=1\n";
  S += Mark(2) + "wait.st idx=1\n" + li(8, 0x40000) +
       "st.map r8, r7, idx=0, rows=1, len=64, dstride=0, bstride=0\n";
  S += Mark(1) + li(9, 40000) + "vmax r9, r7, rows=2, len=2, bstride=16, cstride=16\nhalt\n";
  return S;
}

TEST_F(RtlInstructions, LayerMarksAndPrologue) {
  assembleFor("marks.bin", markProgram(true), "mini64");
  EXPECT_TRUE(coSimulate("marks.bin"));
}

TEST_F(RtlInstructions, LayerTableWithoutMarks) {
  assembleFor("nomarks.bin", markProgram(false), "mini64");
  EXPECT_TRUE(coSimulate("nomarks.bin"));
}

TEST_F(RtlInstructions, NoLayerTable) {
  assembleFor("bare.bin",
              ".output 0x20000 16 1 1\n" + li(1, 64) +
                  "fill r1, rows=1, len=16, bstride=0, value=-9, mask=1\nsignal.ld idx=3\n"
                  "wait.st idx=3\n" +
                  li(2, 0x20000) +
                  "st.map r2, r1, idx=0, rows=1, len=16, dstride=0, bstride=0\nhalt\n",
              "mini64");
  EXPECT_TRUE(coSimulate("bare.bin"));
}

// A loop over six tiles with two input and two output buffers and the
// load -> compute -> store semaphore protocol (credits 1 and 3 start at two),
// as the compiler double-buffers: waits block and release across all units.
TEST_P(RtlInstructionsOn, DoubleBufferedPipeline) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  const unsigned V = Hw->VmacsPerCu, L = Hw->LanesPerVmac, Row = V * L;
  std::string S = fmt::format(".model pipe\n.input 0x10000 64 6 8\n.output 0x80000 {} 6 8\n", Row);
  S += weightData(V, L, 0x100000, 400);
  S += li(1, 0) + li(2, 6) + li(10, 0) + li(11, 16384) + li(12, 32768) + li(13, 0x10000) +
       li(14, 0x80000) + li(18, 500);
  S += weightLoads(V, 0x100000, 1);
  S += "signal.ex idx=1\nsignal.ex idx=1\nsignal.st idx=3\nsignal.st idx=3\n";
  S += "loop:\n  wait.ld idx=1\n"
       "  ld.map r13, r10, rows=1, len=512, dstride=0, bstride=0, mask=1\n"
       "  signal.ld idx=0\n  wait.ex idx=0\n  wait.ex idx=3\n  vbias r18, shift=2\n";
  for (unsigned P = 0; P < 8; ++P)
    S += fmt::format("  addi r15, r10, imm={}\n  li r20, imm={}\n  li r21, imm={}\n"
                     "  vmac r20, r15, r21, rows=1, len=64, bstride=0, init=1\n",
                     64 * P, P, P % 2 ? 0 : 64);
  S += fmt::format("  vwb r0, r12, rows=8, bstride={}, shift=10, relu=1\n", Row);
  S += "  signal.ex idx=1\n  signal.ex idx=2\n  wait.st idx=2\n";
  S += fmt::format("  st.map r14, r12, idx=0, rows=1, len={}, dstride=0, bstride=0\n", 8 * Row);
  S += fmt::format("  signal.st idx=3\n  xor r10, r10, r11\n  xor r12, r12, r11\n"
                   "  addi r13, r13, imm=1024\n  addi r14, r14, imm={}\n  addi r1, r1, imm=1\n"
                   "  blt r1, r2, imm=loop\nhalt\n",
                   16 * Row);
  assembleFor("pipe.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("pipe.bin"));
}

// 150 fills back to back fill the load queue (the control core stalls);
// writebacks right after traces wait for the MAC pipeline to drain.
TEST_F(RtlInstructions, FullQueuesAndPipelineDrain) {
  std::string S = ".model queues\n.output 0x20000 64 1 1\n";
  S += li(1, 114688);
  for (unsigned K = 0; K < 150; ++K)
    S += fmt::format("fill r1, rows=1, len={}, bstride=0, value={}, mask=1\n", 1 + K % 40,
                     int(K) - 75);
  for (unsigned K = 0; K < 20; ++K)
    S += fmt::format("vmac r0, r0, r0, rows=1, len={}, bstride=0, init={}\n", 3 + K % 5, K % 2) +
         li(2, 16384 + 64 * (K % 4)) + "vwb r0, r2, rows=1, bstride=0, shift=0, relu=0\n";
  S += "signal.ld idx=0\nwait.st idx=0\n" + li(3, 0x20000) +
       "st.map r3, r1, idx=0, rows=1, len=64, dstride=0, bstride=0\nhalt\n";
  assembleFor("queues.bin", S, "mini64");
  EXPECT_TRUE(coSimulate("queues.bin"));
}

// Two signals fire in the same cycle and release a load and a store that
// post their DRAM requests in the same cycle: the load wins the tie
// (§3.3.2). Then requests queue up behind a busy channel, oldest first.
TEST_P(RtlInstructionsOn, ChannelTieAndOrder) {
  std::string S = ".model tie\n.input 0x10000 16 4 4\n.output 0x40000 16 4 4\n";
  S += li(1, 0x10000) + li(2, 0x40000) + li(3, 0) + li(4, 16384);
  S += "fill r4, rows=1, len=256, bstride=0, value=9, mask=1\nsignal.ld idx=2\n";
  S += "vmac r0, r0, r0, rows=1, len=30, bstride=0, init=1\nsignal.ex idx=0\nsignal.ex idx=1\n";
  S += "wait.ld idx=0\nld.map r1, r3, rows=4, len=64, dstride=128, bstride=64, mask=1\n";
  S += "wait.st idx=2\nwait.st idx=1\n"
       "st.map r2, r4, idx=0, rows=4, len=64, dstride=128, bstride=64\n";
  S += li(5, 0x10080) + li(6, 0x40080) + li(7, 1024);
  for (unsigned K = 0; K < 4; ++K)
    S += "ld.map r5, r7, rows=4, len=64, dstride=128, bstride=64, mask=1\n"
         "st.map r6, r4, idx=0, rows=2, len=64, dstride=256, bstride=64\n";
  S += "halt\n";
  assembleFor("tie.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("tie.bin"));
}

INSTANTIATE_TEST_SUITE_P(Presets, RtlInstructionsOn, ::testing::ValuesIn(RtlPresets));

} // namespace
