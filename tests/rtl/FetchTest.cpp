//===- FetchTest.cpp - Instruction fetch from DRAM, sim vs RTL ------------===//
//
// Every preset the RTL is built for fetches its code from DRAM (imem_kib >
// 0), so every co-simulated program exercises the fetch engine; these
// programs aim at its corners: a loop longer than the memory's history (its
// first blocks replaced by the prefetch and fetched again each round), a
// forward branch past blocks never fetched, a backward branch into a block
// that was replaced, and fetches waiting behind DMA transfers on the one
// channel. The simulator's rules are pinned by hand in
// tests/sim/FetchTimingTest.cpp; here the RTL must match them cycle for cycle.
//
//===----------------------------------------------------------------------===//

#include "CoSim.h"
#include "snow/isa/HwConfig.h"
#include <fmt/format.h>

using namespace snow;
using namespace snow::test;

namespace {

const char *const RtlPresets[] = {"mini64", "zc706", "big1024"};

class RtlFetchOn : public CoSimTest, public ::testing::WithParamInterface<const char *> {};

std::string repeat(const std::string &Line, unsigned N) {
  std::string S;
  for (unsigned I = 0; I < N; ++I)
    S += Line + "\n";
  return S;
}

/// Three rounds of a body half as long again as the instruction memory, with
/// an ld.map each round and a forward branch over instructions that never
/// run: running ahead through the body, the prefetch replaces its first
/// blocks, so every round fetches them again.
std::string longLoop(unsigned HalfInsts) {
  return ".model fetch\n.output 0x20000 16 1 1\n"
         "li r1, imm=3\nli r3, imm=0x30000\n"
         "outer:\n" +
         repeat("addi r2, r2, imm=1", 3 * HalfInsts / 2) +
         "ld.map r3, r0, rows=4, len=256, dstride=512, bstride=256, mask=1\n"
         "beq r0, r0, imm=skip\n" +
         repeat("addi r2, r2, imm=1000", HalfInsts / 3) + "skip:\n" +
         repeat("addi r2, r2, imm=1", 3 * HalfInsts / 2 + 40) +
         "addi r1, r1, imm=-1\nbne r1, r0, imm=outer\n"
         "signal.ld idx=0\nwait.st idx=0\nli r5, imm=0x20000\n"
         "st.map r5, r0, idx=0, rows=1, len=16, dstride=0, bstride=0\nhalt\n";
}

uint64_t codeBytes(const std::string &StatsJson) {
  const std::string Key = "\"dram_code_bytes\":";
  const size_t At = StatsJson.find(Key);
  return At == std::string::npos ? 0 : std::stoull(StatsJson.substr(At + Key.size()));
}

TEST_P(RtlFetchOn, LoopsLongerThanTheMemoryAndBranchesPastUnfetchedCode) {
  auto Hw = isa::loadHwConfig(GetParam());
  ASSERT_TRUE(bool(Hw)) << llvm::toString(Hw.takeError());
  ASSERT_TRUE(Hw->fetchesCode()) << "the RTL presets fetch their code";
  const unsigned Half = unsigned(Hw->imemLines() / 2 * Hw->FetchBlockInsts);
  const std::string Text = longLoop(Half);
  assembleFor("fetch.bin", Text, GetParam());
  EXPECT_TRUE(coSimulate("fetch.bin"));
  // The program did what it was written for: it fetched blocks again that a
  // memory eight times larger keeps.
  write("roomy.yaml",
        fmt::format("base: {}\nname: roomy\nimem_kib: {}\n", GetParam(), 8 * Hw->ImemKib));
  assembleFor("roomy.bin", Text, path("roomy.yaml").string());
  ASSERT_TRUE(succeeded(run("snowsim", {"roomy.bin", "--timing-only", "--stats-json", "r.json"})));
  EXPECT_GT(codeBytes(read("snowsim.json")), codeBytes(read("r.json")))
      << "no block was fetched twice";
}

INSTANTIATE_TEST_SUITE_P(Presets, RtlFetchOn, ::testing::ValuesIn(RtlPresets));

} // namespace
