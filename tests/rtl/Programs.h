//===- Programs.h - Hand-written programs for the co-simulation ---*- C++ -*-===//
//
// Assembly text generators shared by the RTL tests: .data16 blocks of seeded
// random values, and the small helpers the programs are written with. Each
// program in InstructionsTest.cpp / FaultsTest.cpp targets one instruction
// class or one rule of docs/architecture.md §3.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_RTL_PROGRAMS_H
#define SNOW_TESTS_RTL_PROGRAMS_H

#include "snow/isa/HwConfig.h"
#include "snow/support/Rng.h"
#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace snow::test {

/// ".data16 Addr v0 v1 ..." in lines of 32 values.
inline std::string data16(uint64_t Addr, const std::vector<int> &Values) {
  std::string Out;
  for (size_t I = 0; I < Values.size(); I += 32) {
    Out += ".data16 " + std::to_string(Addr + 2 * I);
    for (size_t J = I; J < Values.size() && J < I + 32; ++J)
      Out += " " + std::to_string(Values[J]);
    Out += "\n";
  }
  return Out;
}

/// N seeded values in [Lo, Hi].
inline std::vector<int> randomValues(uint64_t Seed, size_t N, int Lo, int Hi) {
  Rng R(Seed);
  std::vector<int> V(N);
  for (int &X : V)
    X = Lo + int(R.next() % uint64_t(Hi - Lo + 1));
  return V;
}

/// "li rN, imm=V\n".
inline std::string li(unsigned Reg, int64_t V) {
  return "li r" + std::to_string(Reg) + ", imm=" + std::to_string(V) + "\n";
}

/// Weights for every vMAC (words 0..127 and a bias word at 500), loaded with
/// different DMA shapes per vMAC: plain, negative stride, odd alignment,
/// buffer stride.
inline std::string weightLoads(unsigned Vmacs, uint64_t Base, unsigned Mask) {
  std::string S;
  for (unsigned V = 0; V < Vmacs; ++V) {
    uint64_t A = Base + V * 8192;
    switch (V % 4) {
    case 0:
      S += li(1, A) + fmt::format("ld.wgt r1, r0, idx={}, rows=1, len=128, dstride=0, bstride=0, "
                                  "mask={}\n",
                                  V, Mask);
      break;
    case 1:
      S += li(1, A + 3 * 1024) + fmt::format("ld.wgt r1, r0, idx={}, rows=4, len=32, "
                                             "dstride=-1024, bstride=32, mask={}\n",
                                             V, Mask);
      break;
    case 2:
      S += li(1, A + 34) + fmt::format("ld.wgt r1, r0, idx={}, rows=1, len=128, dstride=0, "
                                       "bstride=0, mask={}\n",
                                       V, Mask);
      break;
    default:
      S += li(1, A) + fmt::format("ld.wgt r1, r0, idx={}, rows=4, len=40, dstride=1280, "
                                  "bstride=30, mask={}\n",
                                  V, Mask);
      break;
    }
    S += li(1, A + 6144) + li(2, 500) +
         fmt::format("ld.wgt r1, r2, idx={}, rows=1, len=1, dstride=0, bstride=0, mask={}\n", V,
                     Mask);
  }
  return S;
}

/// The constant data weightLoads reads: per vMAC 8 KiB of int16 in [-Range, Range].
inline std::string weightData(unsigned Vmacs, unsigned Lanes, uint64_t Base, int Range) {
  std::string S;
  for (unsigned V = 0; V < Vmacs; ++V) {
    S += data16(Base + V * 8192, randomValues(V * 31 + 7, 128 * Lanes + 64, -Range, Range));
    S += data16(Base + V * 8192 + 6144, randomValues(V * 31 + 8, Lanes, -Range, Range));
  }
  return S;
}

/// The start of a program over a 4x4 map of vmacs x lanes channels (all
/// CUs) and weight words in every vMAC, both loaded and handed to the
/// compute unit; its output is an OutHW x OutHW map at 0x40000.
inline std::string accProgramStart(const char *Name, const isa::HwConfig &Hw, unsigned OutHW) {
  const unsigned V = Hw.VmacsPerCu, L = Hw.LanesPerVmac, C = V * L;
  const unsigned All = (1u << Hw.cus()) - 1;
  std::string S = fmt::format(".model {0}\n.input 0x10000 {1} 4 4\n.output 0x40000 {1} {2} {2}\n",
                              Name, C, OutHW);
  S += weightData(V, L, 0x100000, 3000);
  S += li(1, 0x10000) + fmt::format("ld.map r1, r0, rows=1, len={}, dstride=0, bstride=0, "
                                    "mask={}\n",
                                    16 * C, All);
  S += weightLoads(V, 0x100000, All);
  return S + "signal.ld idx=0\nwait.ex idx=0\n";
}

} // namespace snow::test

#endif
