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

#include "snow/support/Rng.h"
#include <cstdint>
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

} // namespace snow::test

#endif
