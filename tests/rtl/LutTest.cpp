//===- LutTest.cpp - The activation table, sim vs RTL ---------------------===//
//
// vlut loads each CU's table from vMAC 0's weight words; vwb's lut flag
// interpolates it after the rounding (Snow.td, isa/include/snow/isa/Lut.h).
// Programs that pass inputs across all 256 segments through non-monotonic
// tables (with and without ReLU, after saturation, after a reload), that
// fault on the table's range or on a weights bank an ld.wgt is writing, and
// that order a vlut and ld.wgt on one bank with semaphores, must give the
// same cycles, counters, bytes and faults on snowsim and snowrtl (CoSim.h).
// The table outputs are also checked against the ISA's formula, worked out
// here with plain floor division, so that a wrong simulator cannot hide
// behind an equally wrong RTL.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Lut.h"
#include "CoSim.h"
#include "Programs.h"
#include "snow/isa/IsaConstants.h"
#include "snow/isa/Timing.h"
#include <cmath>
#include <fmt/format.h>

using namespace snow;
using namespace snow::test;

namespace {

const char *const RtlPresets[] = {"mini64", "zc706", "big1024"};

class RtlLut : public CoSimTest {
protected:
  /// Both tools fault identically on Text, and snowsim's line says Why.
  void expectFault(const std::string &Text, const std::string &Why,
                   const std::string &Hw = "mini64") {
    assembleFor("f.bin", Text, Hw);
    if (HasFatalFailure())
      return;
    ToolResult Sim;
    EXPECT_TRUE(coSimulate("f.bin", true, {}, &Sim)) << "program:\n" << Text;
    EXPECT_NE(Sim.Err.find(Why), std::string::npos)
        << "snowsim faulted for another reason than '" << Why << "': " << Sim.Err;
  }

  /// The last N int16 values of an .npy file (its data, whatever the header).
  std::vector<int> npyTail(const std::string &Name, size_t N) const {
    std::string B = read(Name);
    std::vector<int> V;
    if (B.size() < 2 * N)
      return V;
    for (size_t I = B.size() - 2 * N; I < B.size(); I += 2)
      V.push_back(int16_t(uint8_t(B[I]) | uint8_t(B[I + 1]) << 8));
    return V;
  }
};
class RtlLutOn : public RtlLut, public ::testing::WithParamInterface<const char *> {};

/// lut(x) as Snow.td's vwb states it: z = T[257] & 7, w = x * 2^z; below the
/// table T[0], above it T[256] or, with the identity tail (T[257] & 8),
/// sat16(T[256] + x - 2^(15 - z)); within it u = w + 32768, i = u >> 8, f = u
/// & 255, T[i] + floor(((T[i+1] - T[i]) * f + 128) / 256), with the divisions
/// done in floating point (exact at these magnitudes) rather than by shifts.
int lutOf(const std::vector<int> &T, int X) {
  const int Seg = 1 << isa::LutSegmentBits, Control = T[isa::LutEnds] & 0xffff;
  if (Control & 16) { // Normalised: x * 4^m in [8192, 32767], then 2^(m - s).
    if (X <= 0)
      return T[0];
    int M = 0;
    while (X * std::pow(4.0, M + 1) <= 32767)
      ++M;
    const int U = X * (1 << (2 * M)) + 32768, I = U / Seg, F = U % Seg;
    const int V = T[I] + int(std::floor((double(T[I + 1] - T[I]) * F + Seg / 2) / Seg));
    const int S = (Control >> 8) & 15;
    return M >= S ? int(std::clamp(V * std::pow(2.0, M - S), -32768.0, 32767.0))
                  : int(std::floor((V + std::pow(2.0, S - M - 1)) / std::pow(2.0, S - M)));
  }
  const int Z = Control & 7, W = X * (1 << Z);
  if (W < -32768)
    return T[0];
  if (W > 32767)
    return Control & 8 ? std::clamp(T[isa::LutEnds - 1] + X - (32768 >> Z), -32768, 32767)
                       : T[isa::LutEnds - 1];
  const int U = W + 32768, I = U / Seg, F = U % Seg;
  return T[I] + int(std::floor((double(T[I + 1] - T[I]) * F + Seg / 2) / Seg));
}

/// A table that is not monotonic and swings rail to rail where it can (the
/// largest differences, +-65535, at both ends), random in between, with the
/// given control entry (zoom and tail).
std::vector<int> wildTable(uint64_t Seed, int Control) {
  std::vector<int> T = randomValues(Seed, isa::LutEntries, -32768, 32767);
  T[0] = -32768;
  T[1] = 32767;
  T[2] = -32768;
  T[isa::LutEnds - 2] = -32768;
  T[isa::LutEnds - 1] = 32767;
  T[isa::LutEnds] = Control;
  return T;
}

// Inputs across all 256 segments (both ends, a half, the extremes -32768 and
// 32767, random offsets) through per-CU tables: lut alone, lut then ReLU,
// plain ReLU, lut after a saturating shift, and a second vlut that replaces
// the table with a zoomed one (inputs below, within and above it). Outputs against the formula and
// sim against RTL.
TEST_P(RtlLutOn, InterpolatesEverySegment) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  const unsigned V = Hw->VmacsPerCu, L = Hw->LanesPerVmac, Row = V * L, Cus = Hw->cus();
  const unsigned All = (1u << Cus) - 1, Lw = unsigned(timing::lutWords(*Hw));
  const int Segs = 1 << (16 - isa::LutSegmentBits), Seg = 1 << isa::LutSegmentBits;
  std::vector<int> X;
  for (int I = 0; I < Segs; ++I) {
    std::vector<int> R = randomValues(uint64_t(I) + 1, 3, 2, Seg - 3);
    for (int F : {0, 1, Seg / 2 - 1, Seg / 2, Seg - 1, R[0], R[1], R[2]})
      X.push_back(-32768 + I * Seg + F);
  }
  const unsigned N = unsigned(X.size()), Entries = N / Row;
  ASSERT_EQ(N % Row, 0u);
  ASSERT_LE(Entries, Hw->AccEntries);
  // Tables at weight words 300 and 700 of vMAC 0 (700 is in another bank on
  // presets with 2 banks of 512 words); vMAC 1 holds other values there.
  const unsigned Out = 5;
  // The outputs as H = CUs x writebacks rows of W = N values (C is at most 65536).
  std::string S = fmt::format(".model lut\n.output 0x400000 1 {} {}\n", Cus * Out, N);
  S += data16(0x100000, X);
  std::vector<std::vector<int>> T1(Cus), T2(Cus);
  for (unsigned C = 0; C < Cus; ++C) {
    // The first table spans the whole range (zoom 0); the second zooms in
    // by 1 + C % 7 with the identity tail on every other CU, and a CU's high
    // control bits set, which the lookup ignores; on every third CU it is
    // normalised (rsqrt's mode) with scale shift C % 16.
    T1[C] = wildTable(100 + C, 0);
    T2[C] =
        wildTable(200 + C, C % 3 == 1 ? isa::lutControl(0, false, true, C % 16)
                                      : int16_t(isa::lutControl(1 + C % 7, C % 2 == 0) | 0x70e0));
    auto Padded = [&](std::vector<int> T, uint64_t Seed) {
      std::vector<int> Junk = randomValues(Seed, Lw * L - T.size(), -32768, 32767);
      T.insert(T.end(), Junk.begin(), Junk.end());
      return T;
    };
    S += data16(0x200000 + C * 0x4000, Padded(T1[C], 300 + C));
    S += data16(0x202000 + C * 0x4000, Padded(T2[C], 400 + C));
    S += data16(0x300000 + C * 0x4000, randomValues(500 + C, 2 * Lw * L, -32768, 32767));
  }
  S += li(1, 0x100000) +
       fmt::format("ld.map r1, r0, rows=1, len={}, dstride=0, bstride=0, mask={}\n", N, All);
  S += li(2, 300) + li(3, 700);
  for (unsigned C = 0; C < Cus; ++C) {
    const unsigned Mask = 1u << C;
    S += li(1, 0x200000 + C * 0x4000) +
         fmt::format("ld.wgt r1, r2, idx=0, rows=1, len={}, dstride=0, bstride=0, mask={}\n", Lw,
                     Mask);
    S += li(1, 0x202000 + C * 0x4000) +
         fmt::format("ld.wgt r1, r3, idx=0, rows=1, len={}, dstride=0, bstride=0, mask={}\n", Lw,
                     Mask);
    if (V > 1)
      S += li(1, 0x300000 + C * 0x4000) +
           fmt::format("ld.wgt r1, r2, idx=1, rows=2, len={}, dstride={}, bstride=400, mask={}\n",
                       Lw, 2 * Lw * L, Mask);
  }
  S += "signal.ld idx=0\nwait.ex idx=0\n";
  const std::string Rows = fmt::format("rows={}, bstride={}", Entries, Row);
  auto OutAt = [&](unsigned K) { return li(5, 4096 * (K + 1)); };
  S += "vlut r2\n" + li(4, 0) + "vpre r4, r0, " + Rows + ", shift=0, init=1\n";
  S += OutAt(0) + "vwb r4, r5, " + Rows + ", shift=0, relu=0, lut=1\n";
  S += OutAt(1) + "vwb r4, r5, " + Rows + ", shift=0, relu=1, lut=1\n";
  S += OutAt(2) + "vwb r4, r5, " + Rows + ", shift=0, relu=1, lut=0\n";
  // acc = 4x; shift 1 gives sat16(2x), which the table then maps.
  S += "vpre r4, r0, " + Rows + ", shift=2, init=1\n";
  S += OutAt(3) + "vwb r4, r5, " + Rows + ", shift=1, relu=0, lut=1\n";
  S += "vlut r3\n" + OutAt(4) + "vwb r4, r5, " + Rows + ", shift=2, relu=0, lut=1\n";
  S += "signal.ex idx=1\nwait.st idx=1\n";
  for (unsigned C = 0; C < Cus; ++C)
    for (unsigned K = 0; K < Out; ++K)
      S += li(6, 0x400000 + 2 * (C * Out + K) * N) + OutAt(K) +
           fmt::format("st.map r6, r5, idx={}, rows=1, len={}, dstride=0, bstride=0\n", C, N);
  S += "halt\n";
  ASSERT_NO_FATAL_FAILURE(assembleFor("lut.bin", S, GetParam()));
  ASSERT_TRUE(coSimulate("lut.bin"));

  std::vector<int> Want;
  for (unsigned C = 0; C < Cus; ++C) {
    auto Col = [&](auto F) {
      for (int Xi : X)
        Want.push_back(F(Xi));
    };
    Col([&](int Xi) { return lutOf(T1[C], Xi); });
    Col([&](int Xi) { return std::max(0, lutOf(T1[C], Xi)); });
    Col([&](int Xi) { return std::max(0, Xi); });
    Col([&](int Xi) { return lutOf(T1[C], std::clamp(2 * Xi, -32768, 32767)); });
    Col([&](int Xi) { return lutOf(T2[C], Xi); });
  }
  std::vector<int> Got = npyTail("snowsim.npy", Want.size());
  ASSERT_EQ(Got.size(), Want.size());
  for (size_t I = 0; I < Want.size(); ++I)
    ASSERT_EQ(Got[I], Want[I]) << "output " << I << " (CU " << I / (Out * N) << ", writeback "
                               << I / N % Out << ", x = " << X[I % N] << ")";
}

// A vlut and ld.wgt on one weights bank, ordered with semaphores both ways:
// the load waits for the table's last read (the vlut's completion), the next
// vlut for the load's data; meanwhile an ld.wgt into the other bank runs
// beside a vlut. The last vlut reads the buffer's last words.
TEST_P(RtlLutOn, OrderedAgainstWeightLoads) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw));
  const unsigned L = Hw->LanesPerVmac, Row = Hw->VmacsPerCu * L;
  const unsigned All = (1u << Hw->cus()) - 1, Lw = unsigned(timing::lutWords(*Hw));
  const unsigned Bank = Hw->weightsBankWords(), Words = Hw->weightsWords();
  ASSERT_GE(Hw->WeightsBanks, 2u);
  std::string S = fmt::format(".model lutsync\n.output 0x400000 {} 1 1\n", 3 * Row);
  S += data16(0x200000, wildTable(7, 0));
  S += data16(0x210000, wildTable(8, isa::lutControl(2, true)));
  S += data16(0x100000, randomValues(9, Row, -32768, 32767));
  S += li(1, 0x100000) +
       fmt::format("ld.map r1, r0, rows=1, len={}, dstride=0, bstride=0, mask={}\n", Row, All);
  const unsigned A = Bank - 5, B = Words - Lw; // A spans banks 0 and 1; B ends the buffer
  S += li(2, A) + li(3, B) + li(7, 0x200000) + li(8, 0x210000);
  S +=
      fmt::format("ld.wgt r7, r2, idx=0, rows=1, len={}, dstride=0, bstride=0, mask={}\n", Lw, All);
  S += "signal.ld idx=0\nwait.ex idx=0\n";
  S += "vlut r2\nsignal.ex idx=2\n";
  S += li(4, 0) + "vpre r4, r0, rows=1, bstride=0, shift=0, init=1\n";
  S += li(5, 4096) + "vwb r4, r5, rows=1, bstride=0, shift=0, relu=0, lut=1\n";
  // The load unit: a write into bank 1 after the vlut reading it.
  S += "wait.ld idx=2\n" +
       fmt::format("ld.wgt r8, r3, idx=0, rows=1, len={}, dstride=0, bstride=0, mask={}\n", Lw,
                   All) +
       "signal.ld idx=3\nwait.ex idx=3\n";
  // vlut in bank 1 while an ld.wgt writes bank 0: no conflict.
  S += "vlut r3\n" + li(5, 8192) + "vwb r4, r5, rows=1, bstride=0, shift=0, relu=1, lut=1\n";
  S += li(9, 100) + fmt::format("ld.wgt r8, r9, idx=0, rows=1, len={}, dstride=0, bstride=0, "
                                "mask={}\n",
                                Lw, All);
  S += "signal.ex idx=1\nwait.st idx=1\n";
  S +=
      li(6, 0x400000) + li(5, 4096) +
      fmt::format("st.map r6, r5, idx=0, rows=2, len={}, dstride={}, bstride=4096\n", Row, 2 * Row);
  S += li(6, 0x400000 + 4 * Row) + li(5, 0) +
       fmt::format("st.map r6, r5, idx=0, rows=1, len={}, dstride=0, bstride=0\n", Row);
  S += "halt\n";
  assembleFor("lutsync.bin", S, GetParam());
  EXPECT_TRUE(coSimulate("lutsync.bin"));
}

INSTANTIATE_TEST_SUITE_P(Presets, RtlLutOn, ::testing::ValuesIn(RtlPresets));

// A table past the end of the weights buffer; the last one that fits is run
// by OrderedAgainstWeightLoads.
TEST_F(RtlLut, RangeFault) {
  auto Hw = isa::loadHwConfig("mini64");
  ASSERT_TRUE(bool(Hw));
  const uint64_t Lw = timing::lutWords(*Hw), Words = Hw->weightsWords();
  expectFault(li(3, Words - Lw + 1) + "vlut r3\nhalt\n",
              fmt::format("weights buffer access [{}, {}) is out of range (size {})",
                          Words - Lw + 1, Words + 1, Words));
  expectFault(li(3, 40000) + "vlut r3\nhalt\n", "weights buffer access [40000, ");
}

// Unsynchronized: a vlut reading a bank an ld.wgt is still writing, and an
// ld.wgt into the second bank of a table that spans two while the vlut is
// still reading it (the message gives the end of the vlut's read window, so
// both tools must agree on its length). The same vlut in the other bank
// runs.
TEST_F(RtlLut, BankHazards) {
  auto Hw = isa::loadHwConfig("mini64");
  ASSERT_TRUE(bool(Hw));
  const uint64_t Bank = Hw->weightsBankWords();
  const std::string Ld = li(1, 0x10000) + li(2, 100) +
                         "ld.wgt r1, r2, idx=0, rows=1, len=20, dstride=0, bstride=0, mask=1\n";
  expectFault(Ld + li(3, 90) + "vlut r3\nhalt\n",
              "reads bank 0 of the weights buffer while the load unit is still writing it");
  assembleFor("apart.bin", Ld + li(3, Bank + 7) + "vlut r3\nhalt\n", "mini64");
  EXPECT_TRUE(coSimulate("apart.bin"));
  // The compute unit signals, then starts a table over banks 0 and 1; the
  // load unit's wait releases the ld.wgt into bank 1 during the table's read.
  expectFault(li(3, Bank - 5) + li(1, 0x10000) + li(2, Bank + 100) +
                  "signal.ex idx=0\nvlut r3\nwait.ld idx=0\n"
                  "ld.wgt r1, r2, idx=2, rows=1, len=4, dstride=0, bstride=0, mask=1\nhalt\n",
              "writes bank 1 of the weights buffer while the compute unit is still reading it "
              "until cycle");
}

} // namespace
