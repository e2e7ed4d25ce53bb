//===- LayerMarkTest.cpp - Layer spans and per-layer attribution ----------===//
//
// Pins architecture.md §3.5: a mark is a one-cycle compute operation whose
// start opens its layer's span; spans run to the next mark's start (the last
// to the end of the program), cycles before the first mark go to the first
// marked layer, so spans add up to the total exactly; DRAM bytes and MAC
// cycles go to the layer the control core had marked when it dispatched the
// operation, not to the span the operation happens to run in.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

using namespace snow;
using namespace snow::test;

namespace {

const char *const TwoLayers = ".layer a conv 0 1 1 1\n"
                              ".layer b conv 0 1 1 1\n";

/// The run took Total cycles, layer I took Cycles[I], and the layers' spans
/// add up to the total (§4: every cycle belongs to exactly one layer).
void expectLayerCycles(const sim::SimStats &S, uint64_t Total, std::vector<uint64_t> Cycles) {
  EXPECT_EQ(S.Cycles, Total);
  ASSERT_EQ(S.Layers.size(), Cycles.size());
  uint64_t Sum = 0;
  for (size_t I = 0; I < Cycles.size(); ++I) {
    EXPECT_EQ(S.Layers[I].Cycles, Cycles[I]) << "layer " << I;
    Sum += S.Layers[I].Cycles;
  }
  EXPECT_EQ(Sum, S.Cycles);
}

//   0 nop, 1 nop
//   2 mark 0            starts 3, ready 4
//   3 vmac len 10       4 .. 14, final 18
//   4 mark 1            starts 14 (unit ready), ready 15
//   5 vmac len 20       15 .. 35, final 39 = total
// a: [0, 14) = 14, cycles 0-2 before the first mark included; b: [14, 39) = 25.
TEST(LayerMarks, SpansAddUpAndTheFirstLayerTakesTheLeadIn) {
  sim::SimStats S =
      runText(std::string(TwoLayers) + "nop\nnop\n"
                                       "mark imm=0\n"
                                       "vmac r0, r0, r0, rows=1, len=10, bstride=0, init=1\n"
                                       "mark imm=1\n"
                                       "vmac r0, r0, r0, rows=1, len=20, bstride=0, init=1\n"
                                       "halt\n",
              timingHw());
  expectLayerCycles(S, 39, {14, 25});
  EXPECT_EQ(S.Layers[0].MacCycles, 10u);
  EXPECT_EQ(S.Layers[1].MacCycles, 20u);
}

// "The first marked layer" is the first mark executed, not layer 0.
//   0 mark 2            starts 1
//   1 vmac len 10       2 .. 12, final 16
//   2 mark 0            starts 12
//   3 vmac len 5        13 .. 18, final 22 = total
// c: [0, 12) = 12, a: [12, 22) = 10, b: never marked = 0.
TEST(LayerMarks, LeadInGoesToTheFirstMarkedLayerWhateverItsIndex) {
  sim::SimStats S =
      runText(std::string(TwoLayers) + ".layer c pool 0 1 1 1\n"
                                       "mark imm=2\n"
                                       "vmac r0, r0, r0, rows=1, len=10, bstride=0, init=1\n"
                                       "mark imm=0\n"
                                       "vmac r0, r0, r0, rows=1, len=5, bstride=0, init=1\n"
                                       "halt\n",
              timingHw());
  expectLayerCycles(S, 22, {10, 0, 12});
}

// A layer marked twice collects both spans.
//   0 mark 0 (1), 1 vmac 10 (2 .. 12), 2 mark 1 (12), 3 vmac 7 (13 .. 20),
//   4 mark 0 (20), 5 vmac 3 (21 .. 24, final 28 = total)
// a: [0, 12) + [20, 28) = 20; b: [12, 20) = 8.
TEST(LayerMarks, ALayerMarkedTwiceCollectsBothSpans) {
  sim::SimStats S =
      runText(std::string(TwoLayers) + "mark imm=0\n"
                                       "vmac r0, r0, r0, rows=1, len=10, bstride=0, init=1\n"
                                       "mark imm=1\n"
                                       "vmac r0, r0, r0, rows=1, len=7, bstride=0, init=1\n"
                                       "mark imm=0\n"
                                       "vmac r0, r0, r0, rows=1, len=3, bstride=0, init=1\n"
                                       "halt\n",
              timingHw());
  expectLayerCycles(S, 28, {20, 8});
  EXPECT_EQ(S.Layers[0].MacCycles, 13u);
  EXPECT_EQ(S.Layers[1].MacCycles, 7u);
}

// Bytes follow the control core's mark at dispatch, cycles follow the compute
// unit's mark at start. 0-1 li; 2 mark 0 (starts 3); 3 vmac len 50 (4 .. 54,
// final 58); 4 mark 1 (dispatched 4, starts 54); 5 ld.map 1024 B (dispatched 5,
// after mark 1: layer b's bytes; runs 6 .. 6 + 61 + 32 = 99, all inside a's span).
// a: [0, 54) = 54, b: [54, 99) = 45.
TEST(LayerMarks, DramBytesGoToTheLayerMarkedAtDispatch) {
  sim::SimStats S = runText(std::string(TwoLayers) +
                                "li r1, imm=0x10000\n"
                                "li r2, imm=16384\n"
                                "mark imm=0\n"
                                "vmac r0, r0, r0, rows=1, len=50, bstride=0, init=1\n"
                                "mark imm=1\n"
                                "ld.map r1, r2, rows=1, len=512, dstride=0, bstride=0, mask=1\n"
                                "halt\n",
                            timingHw());
  expectLayerCycles(S, 99, {54, 45});
  EXPECT_EQ(S.Layers[0].DramReadBytes, 0u);
  EXPECT_EQ(S.Layers[1].DramReadBytes, 1024u);
  EXPECT_EQ(S.Layers[0].MacCycles, 50u);
}

} // namespace
