//===- FunctionalTest.cpp - Arithmetic of hand-written kernels ------------===//
//
// Small programs whose results are worked out by hand from docs/isa.md and
// docs/fixed-point.md: max pooling over fills, a bias + trace + writeback with
// round-half-up, saturation and ReLU exercised lane by lane, accumulation
// across traces, products (vmul), and average pooling with mult/shift. Each program moves its
// data with the load/compute/store semaphore protocol (an unsynchronized one
// would fault, §3.6) and stores its result where .output points.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"
#include <algorithm>
#include <fmt/format.h>

using namespace snow;
using namespace snow::test;

namespace {

std::vector<int16_t> runForOutput(const std::string &Text) {
  isa::Program P = assembleOrFail(Text, timingHw());
  sim::SimStats S;
  std::vector<int16_t> Out;
  EXPECT_TRUE(runProgram(P, S, {}, &Out));
  return Out;
}

std::string data16(uint64_t Addr, const std::vector<int> &Values) {
  std::string Line = ".data16 " + std::to_string(Addr);
  for (int V : Values)
    Line += " " + std::to_string(V);
  return Line + "\n";
}

std::vector<int16_t> slice(const std::vector<int16_t> &V, size_t From, size_t N) {
  if (V.size() < From + N)
    return {};
  return std::vector<int16_t>(V.begin() + From, V.begin() + From + N);
}

// Window positions (r, c) of a 2x2 pool at maps rs2 + r*32 + c*16: the four
// lane-words 0, 16, 32, 48. Window 1 holds -5, 7, 3, -32768 -> max 7; window 2
// at 64 .. 112 holds -5, -3, -32768, -100 -> max -3 (all negative: the max must
// not start from 0).
TEST(Functional, MaxPoolOfFills) {
  std::vector<int16_t> Out =
      runForOutput(".output 0x40000 32 1 1\n"
                   "li r1, imm=0\n"
                   "li r2, imm=64\n"
                   "li r5, imm=256\n"
                   "li r6, imm=0x40000\n"
                   "li r7, imm=272\n"
                   "fill r1, rows=1, len=16, bstride=0, value=-5, mask=1\n"
                   "li r3, imm=16\n"
                   "fill r3, rows=1, len=16, bstride=0, value=7, mask=1\n"
                   "li r3, imm=32\n"
                   "fill r3, rows=1, len=16, bstride=0, value=3, mask=1\n"
                   "li r3, imm=48\n"
                   "fill r3, rows=1, len=16, bstride=0, value=-32768, mask=1\n"
                   "fill r2, rows=1, len=16, bstride=0, value=-5, mask=1\n"
                   "li r3, imm=80\n"
                   "fill r3, rows=1, len=16, bstride=0, value=-3, mask=1\n"
                   "li r3, imm=96\n"
                   "fill r3, rows=1, len=16, bstride=0, value=-32768, mask=1\n"
                   "li r3, imm=112\n"
                   "fill r3, rows=1, len=16, bstride=0, value=-100, mask=1\n"
                   "signal.ld idx=0\n"
                   "wait.ex idx=0\n"
                   "vmax r5, r1, rows=2, len=2, bstride=32, cstride=16\n"
                   "vmax r7, r2, rows=2, len=2, bstride=32, cstride=16\n"
                   "signal.ex idx=1\n"
                   "wait.st idx=1\n"
                   "st.map r6, r5, idx=0, rows=1, len=32, dstride=0, bstride=0\n"
                   "halt\n");
  EXPECT_EQ(slice(Out, 0, 16), std::vector<int16_t>(16, 7));
  EXPECT_EQ(slice(Out, 16, 16), std::vector<int16_t>(16, -3));
}

// Four lane-words of per-lane data for 2x2 windows (position-major: word p,
// lane l). Used by the max and average tests below.
//   lane:   0   1   2  3  4      5       6   7   8..15
//   pos 0:  1  -1   1  1  32767  -32768  2  -2   100
//   pos 1:  2  -2   1  0  32767  -32768  0   0   200
//   pos 2:  3  -3   1  0  32767  -32768  0   0   300
//   pos 3:  4  -4   0  0  32767  -32768  0   0   400
//   sum:   10 -10   3  1  131068 -131072 2  -2   1000
const std::vector<int> PoolData = {
    1, -1, 1, 1, 32767, -32768, 2, -2, 100, 100, 100, 100, 100, 100, 100, 100, //
    2, -2, 1, 0, 32767, -32768, 0, 0,  200, 200, 200, 200, 200, 200, 200, 200, //
    3, -3, 1, 0, 32767, -32768, 0, 0,  300, 300, 300, 300, 300, 300, 300, 300, //
    4, -4, 0, 0, 32767, -32768, 0, 0,  400, 400, 400, 400, 400, 400, 400, 400};

std::string poolProgram(const std::string &Ops, unsigned OutWords) {
  return ".output 0x40000 " + std::to_string(16 * OutWords) + " 1 1\n" + data16(0x30000, PoolData) +
         "li r1, imm=0x30000\n"
         "li r2, imm=256\n"
         "li r3, imm=272\n"
         "li r4, imm=288\n"
         "li r6, imm=0x40000\n"
         "ld.map r1, r0, rows=1, len=64, dstride=0, bstride=0, mask=1\n"
         "signal.ld idx=0\n"
         "wait.ex idx=0\n" +
         Ops +
         "signal.ex idx=1\n"
         "wait.st idx=1\n"
         "st.map r6, r2, idx=0, rows=1, len=" +
         std::to_string(16 * OutWords) +
         ", dstride=0, bstride=0\n"
         "halt\n";
}

TEST(Functional, MaxPoolPerLane) {
  std::vector<int16_t> Out =
      runForOutput(poolProgram("vmax r2, r0, rows=2, len=2, bstride=32, cstride=16\n", 1));
  std::vector<int16_t> Expect = {4,   -1,  1,   1,   32767, -32768, 2,   0,
                                 400, 400, 400, 400, 400,   400,    400, 400};
  EXPECT_EQ(Out, Expect);
}

// y = saturate16((sum * mult + 2^(shift-1)) >> shift), or sum * mult if shift = 0.
//  mult 1, shift 2:  10 -> 12 >> 2 = 3 (2.5 up);  -10 -> -8 >> 2 = -2 (-2.5 up);
//     3 -> 5 >> 2 = 1;  1 -> 3 >> 2 = 0;  131068 -> 131070 >> 2 = 32767;
//    -131072 -> -131070 >> 2 = -32768 (floor of -32767.5);  2 -> 4 >> 2 = 1 (0.5 up);
//    -2 -> 0 >> 2 = 0 (-0.5 up);  1000 -> 1002 >> 2 = 250
//  mult 3, shift 1:  31 >> 1 = 15;  -29 >> 1 = -15;  10 >> 1 = 5 (4.5 up);
//     4 >> 1 = 2 (1.5 up);  393205 >> 1 = 196602 -> 32767;  -393215 >> 1 = -196608
//     -> -32768;  7 >> 1 = 3;  -5 >> 1 = -3;  3001 >> 1 = 1500
//  mult 2, shift 0:  20, -20, 6, 2, 262136 -> 32767, -262144 -> -32768, 4, -4, 2000
TEST(Functional, AveragePoolWithMultAndShift) {
  std::vector<int16_t> Out = runForOutput(
      poolProgram("vavg r2, r0, rows=2, len=2, bstride=32, cstride=16, mult=1, shift=2\n"
                  "vavg r3, r0, rows=2, len=2, bstride=32, cstride=16, mult=3, shift=1\n"
                  "vavg r4, r0, rows=2, len=2, bstride=32, cstride=16, mult=2, shift=0\n",
                  3));
  auto Row = [](std::vector<int16_t> Head, int16_t Rest) {
    Head.resize(16, Rest);
    return Head;
  };
  EXPECT_EQ(slice(Out, 0, 16), Row({3, -2, 1, 0, 32767, -32768, 1, 0}, 250));
  EXPECT_EQ(slice(Out, 16, 16), Row({15, -15, 5, 2, 32767, -32768, 3, -3}, 1500));
  EXPECT_EQ(slice(Out, 32, 16), Row({20, -20, 6, 2, 32767, -32768, 4, -4}, 2000));
}

// vbias (shift 2) + vmac init=1 over x = {1000, -1} + vwb, on vMAC 0.
// Per lane: A = (b << 2) + 1000 * w1 - w2; writeback shift 4:
// y = saturate16((A + 8) >> 4), then ReLU for the second writeback.
//   lane  b    w1    w2   A          (A + 8) >> 4       y       relu
//   0     10   0     0    40         48 >> 4 = 3 (2.5)   3       3
//   1    -10   0     0   -40        -32 >> 4 = -2 (-2.5) -2      0
//   2     10   0     1    39         47 >> 4 = 2         2       2
//   3     10   0    -1    41         49 >> 4 = 3         3       3
//   4    -10   0     1   -41        -33 >> 4 = -3        -3      0
//   5     70   524   0    524280     32768 -> sat        32767   32767
//   6     2    0     0    8          16 >> 4 = 1 (0.5)   1       1
//   7    -2    0     0   -8          0 (-0.5 -> 0)       0       0
//   8     2    0     1    7          15 >> 4 = 0         0       0
//   9    -2    0     1   -9         -1 >> 4 = -1         -1      0
//   10    0   -600   0   -600000    -37500 -> sat        -32768  0
//   11    69   524  -3    524279     32767 (no sat)      32767   32767
//   12   -5    7    -13   6993       7001 >> 4 = 437     437     437
//   13   -6    0     0   -24        -16 >> 4 = -1 (-1.5) -1      0
//   14   -74  -524   0   -524296    -32768 (exact)       -32768  0
//   15   -4    0     0   -16        -8 >> 4 = -1         -1      0
// A third writeback with shift 0 gives saturate16(A):
//   40 -40 39 41 -41 32767 8 -8 7 -9 -32768 32767 6993 -24 -32768 -16
// vMACs 1-3 have zero weights and bias, so their lanes of the writeback are 0.
TEST(Functional, BiasTraceWritebackRoundsSaturatesAndRelus) {
  const std::vector<int> B = {10, -10, 10, 10, -10, 70, 2, -2, 2, -2, 0, 69, -5, -6, -74, -4};
  const std::vector<int> W1 = {0, 0, 0, 0, 0, 524, 0, 0, 0, 0, -600, 524, 7, 0, -524, 0};
  const std::vector<int> W2 = {0, 0, 1, -1, 1, 0, 0, 0, 1, 1, 0, -3, -13, 0, 0, 0};
  std::vector<int> Weights = B;
  Weights.insert(Weights.end(), W1.begin(), W1.end());
  Weights.insert(Weights.end(), W2.begin(), W2.end());
  std::string Text = ".output 0x40000 96 1 1\n" + data16(0x30000, {1000, -1}) +
                     data16(0x30040, Weights) +
                     "li r1, imm=0x30000\n"
                     "li r2, imm=0x30040\n"
                     "li r7, imm=1\n"
                     "li r8, imm=128\n"
                     "li r9, imm=256\n"
                     "li r10, imm=384\n"
                     "li r11, imm=0x40000\n"
                     "ld.map r1, r0, rows=1, len=2, dstride=0, bstride=0, mask=1\n"
                     "ld.wgt r2, r0, idx=0, rows=1, len=3, dstride=0, bstride=0, mask=1\n"
                     "signal.ld idx=0\n"
                     "wait.ex idx=0\n"
                     "vbias r0, shift=2\n"
                     "vmac r0, r0, r7, rows=1, len=2, bstride=0, init=1\n"
                     "vwb r0, r8, rows=1, bstride=0, shift=4, relu=0\n"
                     "vwb r0, r9, rows=1, bstride=0, shift=4, relu=1\n"
                     "vwb r0, r10, rows=1, bstride=0, shift=0, relu=0\n"
                     "signal.ex idx=1\n"
                     "wait.st idx=1\n"
                     // Rows of 32 (vMACs 0 and 1) from 128, 256, 384, contiguous in DRAM.
                     "st.map r11, r8, idx=0, rows=3, len=32, dstride=64, bstride=128\n"
                     "halt\n";
  std::vector<int16_t> Out = runForOutput(Text);
  ASSERT_EQ(Out.size(), 96u);
  std::vector<int16_t> Plain = {3, -2, 2,      3,     -3,  32767, 1,      0,
                                0, -1, -32768, 32767, 437, -1,    -32768, -1};
  std::vector<int16_t> Relu = {3, 0, 2, 3, 0, 32767, 1, 0, 0, 0, 0, 32767, 437, 0, 0, 0};
  std::vector<int16_t> Raw = {40, -40, 39,     41,    -41,  32767, 8,      -8,
                              7,  -9,  -32768, 32767, 6993, -24,   -32768, -16};
  EXPECT_EQ(slice(Out, 0, 16), Plain);
  EXPECT_EQ(slice(Out, 32, 16), Relu);
  EXPECT_EQ(slice(Out, 64, 16), Raw);
  std::vector<int16_t> Zero(16, 0);
  EXPECT_EQ(slice(Out, 16, 16), Zero);
  EXPECT_EQ(slice(Out, 48, 16), Zero);
  EXPECT_EQ(slice(Out, 80, 16), Zero);
}

// vwb's sum: CU c traces x_c = 1000 (c + 1) by vMAC 0's weights w_l = l + 1,
// so lane l of CU c holds 1000 (c + 1)(l + 1) and the sum over the four CUs
// 10000 (l + 1): 10000, 20000, 30000, then saturated at 32767. Written with
// skip 14 only CU 0 writes (CU 1's buffer keeps its zeros); without sum CU 0
// writes its own 1000 (l + 1); with shift 1 the halves, 5000 (l + 1),
// saturated from lane 6 on, here from CU 3. vMACs 1-3 write zeros.
TEST(Functional, WritebackOfSumsAddsEveryCusAccumulators) {
  std::vector<int> W;
  for (int L = 0; L < 16; ++L)
    W.push_back(L + 1);
  std::string Text = ".output 0x40000 64 1 1\n" + data16(0x30000, {1000, 2000, 3000, 4000}) +
                     data16(0x30040, W) +
                     "li r2, imm=0x30040\n"
                     "ld.wgt r2, r0, idx=0, rows=1, len=1, dstride=0, bstride=0, mask=15\n";
  for (int C = 0; C < 4; ++C)
    Text += fmt::format("li r1, imm={}\nld.map r1, r0, rows=1, len=1, dstride=0, bstride=0, "
                        "mask={}\n",
                        0x30000 + 2 * C, 1 << C);
  Text += "signal.ld idx=0\n"
          "wait.ex idx=0\n"
          "vmac r0, r0, r0, rows=1, len=1, bstride=0, init=1\n"
          "li r8, imm=128\n"
          "li r9, imm=256\n"
          "li r10, imm=384\n"
          "vwb r0, r8, rows=1, bstride=0, shift=0, relu=0, sum=1, skip=14\n"
          "vwb r0, r9, rows=1, bstride=0, shift=0, relu=0\n"
          "vwb r0, r10, rows=1, bstride=0, shift=1, relu=0, sum=1\n"
          "signal.ex idx=1\n"
          "wait.st idx=1\n"
          "li r11, imm=0x40000\n"
          "st.map r11, r8, idx=0, rows=1, len=16, dstride=0, bstride=0\n"
          "li r11, imm=0x40020\n"
          "st.map r11, r8, idx=1, rows=1, len=16, dstride=0, bstride=0\n"
          "li r11, imm=0x40040\n"
          "st.map r11, r9, idx=0, rows=1, len=16, dstride=0, bstride=0\n"
          "li r11, imm=0x40060\n"
          "st.map r11, r10, idx=3, rows=1, len=16, dstride=0, bstride=0\n"
          "halt\n";
  std::vector<int16_t> Out = runForOutput(Text);
  ASSERT_EQ(Out.size(), 64u);
  std::vector<int16_t> Sum, Own, Half;
  for (int L = 0; L < 16; ++L) {
    Sum.push_back(int16_t(std::min(10000 * (L + 1), 32767)));
    Own.push_back(int16_t(1000 * (L + 1)));
    Half.push_back(int16_t(std::min(5000 * (L + 1), 32767)));
  }
  EXPECT_EQ(slice(Out, 0, 16), Sum);
  EXPECT_EQ(slice(Out, 16, 16), std::vector<int16_t>(16, 0));
  EXPECT_EQ(slice(Out, 32, 16), Own);
  EXPECT_EQ(slice(Out, 48, 16), Half);
}

// vmul: each lane multiplies its accumulator, rounded (half up) and
// saturated to 16 bits by the shift, by its map element. Entry 0: vpre a,
// vmul b with shift 1 (a / 2 rounded: 3 -> 2, -3 -> -1, 1 -> 1, -1 -> 0,
// 32767 -> 16384), written back as is (16384 * 2 saturates). Entry 1: vpre
// a << 4, vmul b with shift 0 (32767 << 4 saturates to 32767), written back
// with shift 3 (65534 / 8 = 8191.75 -> 8192; 176000 / 8 = 22000).
TEST(Functional, ProductRoundsAndSaturatesTheAccumulatorThenMultiplies) {
  const std::vector<int> A = {3, -3, 5, -5, 100, -100, 7, 0, 1, -1, 32767, -32768, 2, 9, -9, 11};
  const std::vector<int> B = {2, 2, 1, 1, 3, -3, 100, 5, 7, 7, 2, 2, -1, 1, 1, 1000};
  std::string Text = ".output 0x40000 32 1 1\n" + data16(0x30000, A) + data16(0x30020, B) +
                     "li r1, imm=0x30000\n"
                     "li r2, imm=0x30020\n"
                     "li r3, imm=1024\n"
                     "li r4, imm=1\n"
                     "li r8, imm=2048\n"
                     "li r9, imm=2176\n"
                     "li r11, imm=0x40000\n"
                     "ld.map r1, r0, rows=1, len=16, dstride=0, bstride=0, mask=1\n"
                     "ld.map r2, r3, rows=1, len=16, dstride=0, bstride=0, mask=1\n"
                     "signal.ld idx=0\n"
                     "wait.ex idx=0\n"
                     "vpre r0, r0, rows=1, bstride=0, shift=0, init=1\n"
                     "vmul r0, r3, rows=1, bstride=0, shift=1\n"
                     "vpre r4, r0, rows=1, bstride=0, shift=4, init=1\n"
                     "vmul r4, r3, rows=1, bstride=0, shift=0\n"
                     "vwb r0, r8, rows=1, bstride=0, shift=0, relu=0\n"
                     "vwb r4, r9, rows=1, bstride=0, shift=3, relu=0\n"
                     "signal.ex idx=1\n"
                     "wait.st idx=1\n"
                     "st.map r11, r8, idx=0, rows=2, len=16, dstride=32, bstride=128\n"
                     "halt\n";
  std::vector<int16_t> Out = runForOutput(Text);
  ASSERT_EQ(Out.size(), 32u);
  std::vector<int16_t> Halved = {4, -2, 3,     -2,     150, 150, 400, 0,
                                 7, 0,  32767, -32768, -1,  5,   -4,  6000};
  std::vector<int16_t> Shifted = {12, -12, 10,   -10,   600, 600, 1400, 0,
                                  14, -14, 8192, -8192, -4,  18,  -18,  22000};
  EXPECT_EQ(slice(Out, 0, 16), Halved);
  EXPECT_EQ(slice(Out, 16, 16), Shifted);
}

// A writeback with shift 63 writes zeros whatever the accumulator holds:
// round half up, (acc + 2^62) >> 63 is 0 for every 48-bit acc (the
// compiler writes a depthwise window's padding so, compiler.md step 9d).
// The accumulators hold x << 31 (x from -32768 to 32767, |acc| < 2^47);
// shift 31 gives x back, shift 63 gives 0, with ReLU or without.
TEST(Functional, WritebackOfShift63WritesZeros) {
  const std::vector<int> X = {32767, -32768, 1,    -1, 0,  12345, -12345, 2,
                              -2,    100,    -100, 7,  -7, 32766, -32767, 3};
  std::string Text = ".output 0x40000 48 1 1\n" + data16(0x30000, X) +
                     "li r1, imm=0x30000\n"
                     "li r8, imm=2048\n"
                     "li r9, imm=2176\n"
                     "li r10, imm=2304\n"
                     "li r11, imm=0x40000\n"
                     "ld.map r1, r0, rows=1, len=16, dstride=0, bstride=0, mask=1\n"
                     "signal.ld idx=0\n"
                     "wait.ex idx=0\n"
                     "vpre r0, r0, rows=1, bstride=0, shift=31, init=1\n"
                     "vwb r0, r8, rows=1, bstride=0, shift=31, relu=0\n"
                     "vwb r0, r9, rows=1, bstride=0, shift=63, relu=0\n"
                     "vwb r0, r10, rows=1, bstride=0, shift=63, relu=1\n"
                     "signal.ex idx=1\n"
                     "wait.st idx=1\n"
                     "st.map r11, r8, idx=0, rows=3, len=16, dstride=32, bstride=128\n"
                     "halt\n";
  std::vector<int16_t> Out = runForOutput(Text);
  ASSERT_EQ(Out.size(), 48u);
  std::vector<int16_t> Back(X.begin(), X.end());
  EXPECT_EQ(slice(Out, 0, 16), Back);
  EXPECT_EQ(slice(Out, 16, 16), std::vector<int16_t>(16, 0));
  EXPECT_EQ(slice(Out, 32, 16), std::vector<int16_t>(16, 0));
}

// init=0 adds to the accumulator, init=1 restarts from the bias. Maps 0..3
// hold 3 (fill); weight word 0 is the bias (100 in every lane), words 1..4
// hold lane - 8 in lane l. Each trace adds 4 * 3 * (l - 8) = 12 (l - 8):
//   trace init=1 -> 100 + 12 (l - 8); trace init=0 -> 100 + 24 (l - 8)
// then writeback with shift 0. Lane 0: 100 - 192 = -92; lane 15: 100 + 168 = 268.
TEST(Functional, TraceWithoutInitAccumulates) {
  std::vector<int> Weights(16, 100);
  for (int Word = 0; Word < 4; ++Word)
    for (int L = 0; L < 16; ++L)
      Weights.push_back(L - 8);
  std::string Text = ".output 0x40000 16 1 1\n" + data16(0x30000, Weights) +
                     "li r1, imm=0x30000\n"
                     "li r7, imm=1\n"
                     "li r8, imm=128\n"
                     "li r11, imm=0x40000\n"
                     "fill r0, rows=1, len=4, bstride=0, value=3, mask=1\n"
                     "ld.wgt r1, r0, idx=0, rows=1, len=5, dstride=0, bstride=0, mask=1\n"
                     "signal.ld idx=0\n"
                     "wait.ex idx=0\n"
                     "vbias r0, shift=0\n"
                     "vmac r0, r0, r7, rows=1, len=4, bstride=0, init=1\n"
                     "vmac r0, r0, r7, rows=1, len=4, bstride=0, init=0\n"
                     "vwb r0, r8, rows=1, bstride=0, shift=0, relu=0\n"
                     "signal.ex idx=1\n"
                     "wait.st idx=1\n"
                     "st.map r11, r8, idx=0, rows=1, len=16, dstride=0, bstride=0\n"
                     "halt\n";
  std::vector<int16_t> Expect;
  for (int L = 0; L < 16; ++L)
    Expect.push_back(int16_t(100 + 24 * (L - 8)));
  EXPECT_EQ(runForOutput(Text), Expect);
}

// vmacp: the 4 vMACs form 2^pix pixel groups; group g reads its map values
// cstride * g elements after rs2. Maps 0-1, 10-11, 20-21, 30-31 hold 2, 3,
// 5, 7 (four "pixels" 10 apart); every vMAC gets the same weights: bias word
// 0, then words 1-2 holding l + 1 in lane l. A trace of len 2 gives vMAC v
// the sum 2 * x * (l + 1), x being its pixel's value:
//   pix=2 (one vMAC per pixel): vMAC v reads pixel v -> x = 2, 3, 5, 7
//   pix=1 (two vMACs per pixel): vMACs 0-1 read pixel 0, 2-3 pixel 1 -> 2, 2, 3, 3
//   pix=0 is vmac: every vMAC reads pixel 0 -> x = 2.
TEST(Functional, MultiPixelTraceGivesEachVmacGroupItsPixel) {
  std::vector<int> Weights(16, 0);
  for (int Word = 0; Word < 2; ++Word)
    for (int L = 0; L < 16; ++L)
      Weights.push_back(L + 1);
  std::string Text = ".output 0x40000 192 1 1\n" + data16(0x30000, Weights) +
                     "li r1, imm=0x30000\n"
                     "li r7, imm=1\n";
  for (int V = 0; V < 4; ++V)
    Text += "ld.wgt r1, r0, idx=" + std::to_string(V) +
            ", rows=1, len=3, dstride=0, bstride=0, mask=1\n";
  const int Values[] = {2, 3, 5, 7};
  for (int P = 0; P < 4; ++P)
    Text += "li r2, imm=" + std::to_string(10 * P) +
            "\nfill r2, rows=1, len=2, bstride=0, value=" + std::to_string(Values[P]) +
            ", mask=1\n";
  Text += "signal.ld idx=0\n"
          "wait.ex idx=0\n"
          "vbias r0, shift=0\n"
          "li r3, imm=1\nli r4, imm=2\n"
          "vmacp r0, r0, r7, rows=1, len=2, bstride=0, cstride=10, pix=2, init=1\n"
          "vmacp r3, r0, r7, rows=1, len=2, bstride=0, cstride=10, pix=1, init=1\n"
          "vmacp r4, r0, r7, rows=1, len=2, bstride=0, cstride=10, pix=0, init=1\n"
          "li r8, imm=256\n"
          "vwb r0, r8, rows=3, bstride=64, shift=0, relu=0\n"
          "signal.ex idx=1\n"
          "wait.st idx=1\n"
          "li r11, imm=0x40000\n"
          "st.map r11, r8, idx=0, rows=1, len=192, dstride=0, bstride=0\n"
          "halt\n";
  std::vector<int16_t> Out = runForOutput(Text);
  ASSERT_EQ(Out.size(), 192u);
  const int Pixel[3][4] = {{2, 3, 5, 7}, {2, 2, 3, 3}, {2, 2, 2, 2}};
  for (int E = 0; E < 3; ++E)
    for (int V = 0; V < 4; ++V)
      for (int L = 0; L < 16; ++L)
        EXPECT_EQ(Out[E * 64 + V * 16 + L], 2 * Pixel[E][V] * (L + 1))
            << "entry " << E << ", vMAC " << V << ", lane " << L;
}

// r0 reads as zero even after an instruction writes it (isa.md), and unit
// operations take register values at dispatch: the fill lands at maps 0 and
// the store, dispatched after r6 changed, writes where r6 then pointed.
TEST(Functional, RegisterZeroStaysZeroAndOperandsAreReadAtDispatch) {
  std::vector<int16_t> Out = runForOutput(".output 0x40000 16 1 1\n"
                                          "li r0, imm=256\n"
                                          "fill r0, rows=1, len=16, bstride=0, value=9, mask=1\n"
                                          "signal.ld idx=0\n"
                                          "wait.st idx=0\n"
                                          "li r6, imm=0x50000\n"
                                          "li r6, imm=0x40000\n"
                                          "st.map r6, r0, idx=0, rows=1, len=16, dstride=0, "
                                          "bstride=0\n"
                                          "li r6, imm=0x50000\n"
                                          "halt\n");
  EXPECT_EQ(Out, std::vector<int16_t>(16, 9));
}

} // namespace
