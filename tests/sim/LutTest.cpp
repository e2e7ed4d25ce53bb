//===- LutTest.cpp - The activation table: interpolation, vlut, vwb lut ---===//
//
// isa::lutLookup against Snow.td's formula written out with floor division
// (every int16 input, tables that swing rail to rail, hand-worked rounding
// cases); vlut's duration and weights range; and a vwb with lut in the
// simulator, per CU, against the same formula. The RTL's co-simulation
// (tests/rtl/LutTest.cpp) then holds snowrtl to the simulator.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Lut.h"
#include "SimTestUtil.h"
#include "snow/isa/Timing.h"
#include "snow/support/Rng.h"
#include <cmath>

using namespace snow;
using namespace snow::test;

namespace {

/// Snow.td's vwb: z = T[257] & 7, w = x * 2^z; below the table T[0], above it
/// T[256] or, with the identity tail (T[257] & 8), sat16(T[256] + x - 2^(15 -
/// z)); within it u = w + 32768, i = u >> 8, f = u & 255, lut(x) = T[i] +
/// floor(((T[i+1] - T[i]) * f + 128) / 256), divided in floating point (exact
/// here) instead of shifted.
int lutByFormula(const std::vector<int16_t> &T, int X) {
  if (T[257] & 16) { // Normalised: x * 4^m in [8192, 32767], then 2^(m - s).
    if (X <= 0)
      return T[0];
    int M = 0;
    while (X * std::pow(4.0, M + 1) <= 32767)
      ++M;
    const int W = X << (2 * M), U = W + 32768, I = U / 256, F = U % 256;
    const int V = T[I] + int(std::floor((double(T[I + 1] - T[I]) * F + 128) / 256));
    const int S = (T[257] >> 8) & 15;
    return M >= S ? int(std::clamp(V * std::pow(2.0, M - S), -32768.0, 32767.0))
                  : int(std::floor((V + std::pow(2.0, S - M - 1)) / std::pow(2.0, S - M)));
  }
  const int Z = T[257] & 7, W = X * (1 << Z);
  if (W < -32768)
    return T[0];
  if (W > 32767)
    return T[257] & 8 ? std::clamp(T[256] + X - (1 << (15 - Z)), -32768, 32767) : T[256];
  const int U = W + 32768, I = U / 256, F = U % 256;
  return T[I] + int(std::floor((double(T[I + 1] - T[I]) * F + 128) / 256));
}

std::vector<int16_t> randomTable(uint64_t Seed) {
  Rng R(Seed);
  std::vector<int16_t> T(isa::LutEntries);
  for (int16_t &V : T)
    V = int16_t(R.next());
  return T;
}

TEST(Lut, ConstantsDescribeTheSegments) {
  EXPECT_EQ(isa::LutSegmentBits, 8u);
  EXPECT_EQ(isa::LutEnds, 257u);    // 2^(16 - 8) segments, both ends
  EXPECT_EQ(isa::LutEntries, 258u); // and the control entry
  EXPECT_EQ(isa::LutZoomBits, 3u);
}

// Every int16 input, through tables that are random (control entries too:
// every zoom, tail on and off), swing between the rails on every segment
// (differences of +-65535), are constant, or are the line y = x (T[i] = 256
// i - 32768, the last end clipped to 32767), at zoom 0 and with the tail at
// every zoom.
TEST(Lut, MatchesTheFormulaOnEveryInput) {
  std::vector<std::vector<int16_t>> Tables;
  for (uint64_t Seed = 1; Seed <= 16; ++Seed)
    Tables.push_back(randomTable(Seed));
  std::vector<int16_t> Swing(isa::LutEntries), Flat(isa::LutEntries, -1234), Line(isa::LutEntries);
  for (unsigned I = 0; I < isa::LutEnds; ++I) {
    Swing[I] = I % 2 ? 32767 : -32768;
    Line[I] = int16_t(std::min(256 * int(I) - 32768, 32767));
  }
  Swing[isa::LutEnds] = Line[isa::LutEnds] = 0;
  Flat[isa::LutEnds] = isa::lutControl(0, false);
  Tables.insert(Tables.end(), {Swing, Flat, Line});
  for (unsigned Z = 0; Z < 8; ++Z) {
    Tables.push_back(Swing);
    Tables.back()[isa::LutEnds] = isa::lutControl(Z, true);
  }
  // The normalised mode at every scale shift, on swinging and random tables.
  for (unsigned S = 0; S < 16; ++S) {
    Tables.push_back(S % 2 ? Swing : randomTable(100 + S));
    Tables.back()[isa::LutEnds] = isa::lutControl(0, false, true, S);
  }
  for (size_t K = 0; K < Tables.size(); ++K)
    for (int X = -32768; X <= 32767; ++X)
      ASSERT_EQ(isa::lutLookup(Tables[K].data(), int16_t(X)), lutByFormula(Tables[K], X))
          << "table " << K << ", x = " << X;
  // The line reproduces its input but for the last segment (slope 255/256).
  for (int X = -32768; X < 32512; ++X)
    ASSERT_EQ(isa::lutLookup(Line.data(), int16_t(X)), X);
}

// Zoom and tails by hand: at zoom 3 the table covers x in [-4096, 4096);
// below it the first end, above it the last end plus x - 4096 (tail) or the
// last end alone, saturated.
TEST(Lut, ZoomAndTailsByHand) {
  std::vector<int16_t> T(isa::LutEntries, 0);
  for (unsigned I = 0; I < isa::LutEnds; ++I)
    T[I] = int16_t(int(I) - 128); // w = 256 (i - 128) maps to i - 128: y = w / 256 = x / 32.
  T[isa::LutEnds] = isa::lutControl(3, true);
  auto L = [&](int X) { return int(isa::lutLookup(T.data(), int16_t(X))); };
  EXPECT_EQ(L(0), 0);
  EXPECT_EQ(L(-4096), -128); // w = -32768: the first end
  EXPECT_EQ(L(-4097), -128); // below: the first end
  EXPECT_EQ(L(-32768), -128);
  EXPECT_EQ(L(4095), 128);    // w = 32760: 127 + (1 * 248 + 128) / 256 = 128
  EXPECT_EQ(L(4096), 128);    // above: T[256] + 0
  EXPECT_EQ(L(4100), 132);    // T[256] + 4
  EXPECT_EQ(L(32767), 28799); // 128 + 32767 - 4096
  T[isa::LutEnds - 1] = 32000;
  EXPECT_EQ(L(32767), 32767); // 32000 + 28671: saturated
  T[isa::LutEnds] = isa::lutControl(3, false);
  EXPECT_EQ(L(32767), 32000);        // no tail: the last end
  T[isa::LutEnds] = int16_t(0xffe3); // bits 5-15 ignored (not normalised): zoom 3, no tail
  EXPECT_EQ(L(4100), 32000);
  EXPECT_EQ(L(8), 0); // w = 64: segment 128 + 0.25 -> 0
}

// Edge inputs worked by hand: the first and last input, segment boundaries
// (f = 0 gives T[i] exactly), the largest slopes, and round half up on both
// signs of the slope (segment i covers x in [256 i - 32768, 256 i - 32512)).
// Each comment gives d * f / 256 and its rounding, added to T[i].
// The normalised mode by hand on the table of 2^14 / sqrt(w / 2^14) (rsqrt in
// Q.14 at m = 0, s = 3 below): x = 16384 is m = 0, w = 16384, segment 192's
// start: T[192] >> 3; x = 1 is m = 7 (4^7 = 16384), the same entry << 4;
// x = 4096 is m = 1 (w = 16384): T[192] >> 2; x <= 0 the first entry.
TEST(Lut, NormalisedModeByHand) {
  std::vector<int16_t> T(isa::LutEntries, 0);
  for (unsigned I = 160; I < isa::LutEnds; ++I)
    T[I] = int16_t(std::lround(16384 / std::sqrt((256.0 * I - 32768) / 16384)));
  T[0] = 32767;
  ASSERT_EQ(T[192], 16384);
  T[isa::LutEnds] = isa::lutControl(0, false, true, 3);
  auto L = [&](int X) { return int(isa::lutLookup(T.data(), int16_t(X))); };
  EXPECT_EQ(L(16384), 2048); // 16384 / 8
  EXPECT_EQ(L(4096), 4096);  // 16384 / 4: twice x = 16384's, as rsqrt(x / 4) = 2 rsqrt(x)
  EXPECT_EQ(L(1), 32767);    // 16384 * 16 saturates
  EXPECT_EQ(L(0), 32767);    // x <= 0: T[0]
  EXPECT_EQ(L(-5), 32767);
  EXPECT_EQ(isa::lutNormExponent(1), 7u);
  EXPECT_EQ(isa::lutNormExponent(8191), 1u); // 8191 * 4 = 32764
  EXPECT_EQ(isa::lutNormExponent(8192), 0u); // 8192 * 4 > 32767
  EXPECT_EQ(isa::lutNormExponent(2047), 2u); // 2047 * 16 = 32752
  EXPECT_EQ(isa::lutNormExponent(2048), 1u);
  // Round half up on the way down: T[192] = 16385 >> 3 = 2048.125 -> 2048;
  // 16388 >> 3 = 2048.5 -> 2049.
  T[192] = 16388;
  EXPECT_EQ(L(16384), 2049);
}

TEST(Lut, EdgeValuesByHand) {
  std::vector<int16_t> T(isa::LutEntries, 0);
  T[0] = -32768; // segment 0: d = 65535
  T[1] = 32767;  // segment 1: d = -1
  T[2] = 32766;  // segment 2: d = 1
  T[3] = 32767;
  T[255] = 100; // segment 254: d = 100; segment 255: d = -32868
  T[256] = -32768;
  auto L = [&](int X) { return int(isa::lutLookup(T.data(), int16_t(X))); };
  EXPECT_EQ(L(-32768), -32768);            // f 0: T[0]
  EXPECT_EQ(L(-32768 + 1), -32768 + 256);  // 65535 / 256 = 255.996 -> 256
  EXPECT_EQ(L(-32768 + 128), 0);           // 65535 * 128 / 256 = 32767.5 -> 32768 (half up)
  EXPECT_EQ(L(-32768 + 255), 32511);       // 65535 * 255 / 256 = 65279.004 -> 65279
  EXPECT_EQ(L(-32768 + 256), 32767);       // boundary: T[1]
  EXPECT_EQ(L(-32768 + 256 + 128), 32767); // d -1, f 128: -0.5 -> 0 (half up)
  EXPECT_EQ(L(-32768 + 256 + 129), 32766); // d -1, f 129: -0.504 -> -1
  EXPECT_EQ(L(-32768 + 512 + 127), 32766); // d 1, f 127: 0.496 -> 0
  EXPECT_EQ(L(-32768 + 512 + 128), 32767); // d 1, f 128: 0.5 -> 1 (half up)
  EXPECT_EQ(L(-32768 + 768), 32767);       // boundary: T[3]
  EXPECT_EQ(L(32512 - 256 + 1), 0);        // d 100, f 1: 0.39 -> 0
  EXPECT_EQ(L(32512 - 256 + 2), 1);        // d 100, f 2: 0.78 -> 1
  EXPECT_EQ(L(32512), 100);                // boundary: T[255]
  EXPECT_EQ(L(32512 + 128), 100 - 16434);  // -32868 * 128 / 256 = -16434 exactly
  EXPECT_EQ(L(32767), 100 - 32740);        // -32868 * 255 / 256 = -32739.6 -> -32740
}

/// .data16 Addr v0 v1 ...
std::string data16(uint64_t Addr, const std::vector<int> &Values) {
  std::string Line = ".data16 " + std::to_string(Addr);
  for (int V : Values)
    Line += " " + std::to_string(V);
  return Line + "\n";
}

// vlut takes ceil(258 / 16) = 17 cycles on the timing machine, reading vMAC
// 0's weight words [rs3, rs3 + 17): from 1007 it fits the 1024 words, from
// 1008 it faults. A vwb with lut takes as long as one without.
TEST(Lut, VlutDurationAndRange) {
  isa::HwConfig Hw = timingHw();
  EXPECT_EQ(timing::lutWords(Hw), 17u);
  // li in 0 dispatches vlut in 1; it starts in 2 and runs 2 .. 18.
  sim::SimStats S = runText("li r3, imm=1007\nvlut r3\nhalt\n", Hw);
  EXPECT_EQ(S.Cycles, 19u);
  EXPECT_EQ(S.Compute.Busy, 17u);
  FaultReport F = runForFault(assembleOrFail("li r3, imm=1008\nvlut r3\nhalt\n", Hw));
  EXPECT_TRUE(isFaultAt(F, 1, "vlut", "weights buffer access [1008, 1025) is out of range"));
  for (int Lut : {0, 1}) {
    sim::SimStats W = runText("vlut r0\nvwb r0, r0, rows=3, bstride=64, shift=0, relu=0, lut=" +
                                  std::to_string(Lut) + "\nhalt\n",
                              Hw);
    EXPECT_EQ(W.Compute.Busy, 17 + 3 * WbCycles) << "lut=" << Lut;
  }
}

// Each CU's table comes from its own vMAC 0 (one ld.wgt per CU mask), vMAC 1's
// words at the same address are not read; x is preloaded with vpre and
// written back through the table with ReLU.
TEST(Lut, WritebackUsesEachCusTable) {
  isa::HwConfig Hw = timingHw();
  const unsigned Cus = Hw.cus();
  std::vector<std::vector<int16_t>> T;
  std::string Text = ".output 0x40000 " + std::to_string(64 * Cus) + " 1 1\n";
  std::vector<int> X;
  for (int I = 0; I < 64; ++I)
    X.push_back(-32768 + I * 1031 + (I % 5) * 37);
  X.back() = 32767;
  Text += data16(0x30000, X);
  for (unsigned C = 0; C < Cus; ++C) {
    T.push_back(randomTable(10 + C));
    std::vector<int> W(T.back().begin(), T.back().end());
    W.resize(17 * 16, 555);
    Text += data16(0x31000 + C * 0x1000, W);
    Text += data16(0x38000 + C * 0x1000, std::vector<int>(17 * 16, 7777));
  }
  Text += "li r1, imm=0x30000\nli r2, imm=40\n"
          "ld.map r1, r0, rows=1, len=64, dstride=0, bstride=0, mask=15\n";
  for (unsigned C = 0; C < Cus; ++C)
    Text += "li r1, imm=" + std::to_string(0x31000 + C * 0x1000) +
            "\nld.wgt r1, r2, idx=0, rows=1, len=17, dstride=0, bstride=0, mask=" +
            std::to_string(1u << C) + "\nli r1, imm=" + std::to_string(0x38000 + C * 0x1000) +
            "\nld.wgt r1, r2, idx=1, rows=1, len=17, dstride=0, bstride=0, mask=" +
            std::to_string(1u << C) + "\n";
  Text += "signal.ld idx=0\nwait.ex idx=0\nvlut r2\n"
          "vpre r0, r0, rows=1, bstride=0, shift=0, init=1\n"
          "li r5, imm=1024\nvwb r0, r5, rows=1, bstride=0, shift=0, relu=1, lut=1\n"
          "signal.ex idx=1\nwait.st idx=1\n";
  for (unsigned C = 0; C < Cus; ++C)
    Text += "li r6, imm=" + std::to_string(0x40000 + 128 * C) +
            "\nst.map r6, r5, idx=" + std::to_string(C) +
            ", rows=1, len=64, dstride=0, bstride=0\n";
  Text += "halt\n";
  isa::Program P = assembleOrFail(Text, Hw);
  sim::SimStats S;
  std::vector<int16_t> Out;
  ASSERT_TRUE(runProgram(P, S, {}, &Out));
  ASSERT_EQ(Out.size(), 64u * Cus);
  for (unsigned C = 0; C < Cus; ++C)
    for (unsigned I = 0; I < 64; ++I)
      EXPECT_EQ(Out[C * 64 + I], std::max(0, lutByFormula(T[C], X[I])))
          << "CU " << C << ", x = " << X[I];
}

} // namespace
