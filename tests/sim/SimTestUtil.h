//===- SimTestUtil.h - Assemble, run and inspect hand-written programs -*- C++ -*-===//
//
// The timing-rule tests all assemble a few lines of assembly, run them on the
// simulator and compare cycle counts that the test derives by hand from
// docs/architecture.md §3. This header holds the shared plumbing: the machine
// the arithmetic is written for, the doc's DRAM formulas (restated here from
// the contract on purpose, so a test never asks the code under test what the
// answer should be), running a program to stats or to a fault, and the counter
// invariant of §4.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_SIM_SIMTESTUTIL_H
#define SNOW_TESTS_SIM_SIMTESTUTIL_H

#include "snow/isa/Asm.h"
#include "snow/isa/HwConfig.h"
#include "snow/sim/Simulator.h"
#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace snow::test {

/// The machine every hand derivation assumes: zc706 with each timing parameter
/// spelled out, so retuning the preset (it moved to 64-entry queues once) does
/// not silently change what these tests mean. Queues are 16 deep because the
/// queue tests are written for that depth.
inline const char *const TimingHwYaml = "base: zc706\n"
                                        "name: timing16\n"
                                        "clock_mhz: 250\n"
                                        "clusters: 1\n"
                                        "cus_per_cluster: 4\n"
                                        "vmacs_per_cu: 4\n"
                                        "lanes_per_vmac: 16\n"
                                        "maps_buffer_kib: 256\n"
                                        "maps_banks: 8\n"
                                        "weights_buffer_kib: 32\n"
                                        "weights_banks: 2\n"
                                        "acc_entries: 128\n"
                                        "acc_bits: 48\n"
                                        "dram_gbps: 4.2\n"
                                        "dram_efficiency: 1\n"
                                        "dram_latency_cycles: 32\n"
                                        "dram_burst_bytes: 64\n"
                                        "dma_merge_rows: 1\n"
                                        "dram_mib: 1024\n"
                                        "queue_depth: 16\n"
                                        "mac_pipeline_depth: 4\n"
                                        "trace_startup_cycles: 0\n"
                                        "trace_lookahead: 0\n"
                                        "trace_row_granule: 1\n"
                                        "maps_read_ports: 4\n"
                                        "maps_ports_per_bank: 1\n"
                                        "writeback_words: 2\n"
                                        "writeback_overlap: 0\n"
                                        "cu_sum_writeback: 1\n"
                                        "pool_words: 1\n"
                                        "imem_kib: 0\n";

// The constants of that machine as the hand derivations use them.
constexpr uint64_t Lanes = 16;                    // lanes_per_vmac
constexpr uint64_t VmacsPerCu = 4;                // vmacs_per_cu
constexpr uint64_t MacPipe = 4;                   // mac_pipeline_depth
constexpr uint64_t WbCycles = 2;                  // ceil(vmacs_per_cu / writeback_words)
constexpr uint64_t Latency = 32;                  // dram_latency_cycles
constexpr uint64_t Burst = 64;                    // dram_burst_bytes
constexpr uint64_t BwQ8 = 4301;                   // round(4.2e9 / 250e6 * 256) = round(4300.8)
constexpr uint64_t Beat = 32;                     // dma beat: a weight word, >= 16.8 B a cycle
constexpr uint64_t MapsElems = 131072;            // 256 KiB / 2 bytes
constexpr uint64_t MapsBankElems = 16384;         // 131072 / 8 banks
constexpr uint64_t WeightWords = 1024;            // 32 KiB / (16 lanes * 2 bytes)
constexpr uint64_t DramBytes = uint64_t(1) << 30; // dram_mib 1024

inline isa::HwConfig hwFromYaml(const std::string &Yaml, const std::string &Name) {
  auto Hw = isa::parseHwConfig(Yaml, Name);
  if (!Hw) {
    ADD_FAILURE() << llvm::toString(Hw.takeError());
    return isa::HwConfig();
  }
  return *Hw;
}

inline isa::HwConfig timingHw() { return hwFromYaml(TimingHwYaml, "timing16.yaml"); }

/// §3.3 rule 3: D = ceil(N * 256 / bw_q8) for N burst-rounded bytes.
constexpr uint64_t dramCyclesByDoc(uint64_t BurstBytes) {
  return (BurstBytes * 256 + BwQ8 - 1) / BwQ8;
}

/// §3.3 rule 1: a row at byte A of N bytes costs ceil((A+N)/B)*B - floor(A/B)*B.
constexpr uint64_t rowBurstBytes(uint64_t A, uint64_t N) {
  return (A + N + Burst - 1) / Burst * Burst - A / Burst * Burst;
}

/// Assembles Text; an assembler error fails the test and yields an empty program.
inline isa::Program assembleOrFail(const std::string &Text, const isa::HwConfig &Hw) {
  auto P = isa::assembleProgram(Text, "test.s", Hw);
  if (!P) {
    ADD_FAILURE() << llvm::toString(P.takeError());
    isa::Program Empty;
    Empty.Hw = Hw;
    return Empty;
  }
  return std::move(*P);
}

/// Runs P to completion. Output, when given, receives the output tensor (CHW).
inline ::testing::AssertionResult runProgram(const isa::Program &P, sim::SimStats &Stats,
                                             sim::SimOptions Opts = {},
                                             std::vector<int16_t> *Output = nullptr) {
  auto S = sim::Simulator::create(P, Opts);
  if (!S)
    return ::testing::AssertionFailure() << "create: " << llvm::toString(S.takeError());
  auto R = (*S)->run();
  if (!R)
    return ::testing::AssertionFailure() << "run: " << llvm::toString(R.takeError());
  Stats = std::move(*R);
  if (Output)
    *Output = (*S)->output();
  return ::testing::AssertionSuccess();
}

/// What a run that was expected to fault produced.
struct FaultReport {
  bool Faulted = false;    ///< run() returned an error.
  bool IsSimFault = false; ///< ...and it was a SimFault.
  uint32_t Pc = 0;
  std::string Inst, Reason, Message;
  uint64_t CyclesIfNoFault = 0; ///< Stats.Cycles when the run succeeded.
};

inline FaultReport runForFault(const isa::Program &P, sim::SimOptions Opts = {}) {
  FaultReport F;
  auto S = sim::Simulator::create(P, Opts);
  if (!S) {
    F.Message = "create: " + llvm::toString(S.takeError());
    return F;
  }
  auto R = (*S)->run();
  if (R) {
    F.CyclesIfNoFault = R->Cycles;
    return F;
  }
  F.Faulted = true;
  llvm::Error Rest = llvm::handleErrors(R.takeError(), [&](const sim::SimFault &E) {
    F.IsSimFault = true;
    F.Pc = E.Pc;
    F.Inst = E.Inst;
    F.Reason = E.Reason;
    F.Message = E.message();
  });
  if (Rest)
    F.Message = llvm::toString(std::move(Rest));
  return F;
}

/// A SimFault whose message names "pc N (mnemonic ..." and contains Why.
inline ::testing::AssertionResult isFaultAt(const FaultReport &F, uint32_t Pc,
                                            const std::string &Mnemonic, const std::string &Why) {
  if (!F.Faulted)
    return ::testing::AssertionFailure()
           << "no fault; the program ran for " << F.CyclesIfNoFault << " cycles";
  if (!F.IsSimFault)
    return ::testing::AssertionFailure() << "not a SimFault: " << F.Message;
  std::string Where = "pc " + std::to_string(Pc) + " (" + Mnemonic;
  if (F.Pc != Pc || F.Message.find(Where) == std::string::npos)
    return ::testing::AssertionFailure() << "expected '" << Where << "' in: " << F.Message;
  if (F.Message.find(Why) == std::string::npos)
    return ::testing::AssertionFailure() << "expected '" << Why << "' in: " << F.Message;
  return ::testing::AssertionSuccess();
}

/// A run that did not fault and took Cycles.
inline ::testing::AssertionResult ranFor(const FaultReport &F, uint64_t Cycles) {
  if (F.Faulted)
    return ::testing::AssertionFailure() << "unexpected fault: " << F.Message;
  if (F.CyclesIfNoFault != Cycles)
    return ::testing::AssertionFailure()
           << "ran for " << F.CyclesIfNoFault << " cycles, expected " << Cycles;
  return ::testing::AssertionSuccess();
}

/// §4: each unit's busy + wait_sem + wait_dram + wait_acc + idle is the total.
inline void expectUnitsAddUp(const sim::SimStats &S) {
  for (const sim::UnitCycles *U : {&S.Load, &S.Compute, &S.Store})
    EXPECT_EQ(U->Busy + U->WaitSem + U->WaitDram + U->WaitAcc + U->Idle, S.Cycles);
}

/// Assembles and runs; the common case of the timing tests.
inline sim::SimStats runText(const std::string &Text, const isa::HwConfig &Hw) {
  sim::SimStats S;
  isa::Program P = assembleOrFail(Text, Hw);
  EXPECT_TRUE(runProgram(P, S));
  expectUnitsAddUp(S);
  return S;
}

/// N copies of Line, each followed by a newline.
inline std::string repeatLine(const std::string &Line, unsigned N) {
  std::string Out;
  for (unsigned I = 0; I < N; ++I)
    Out += Line + "\n";
  return Out;
}

} // namespace snow::test

#endif
