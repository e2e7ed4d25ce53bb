//===- TraceTest.cpp - The trace recorder on a program timed by hand ------===//
//
// A five-instruction program whose load-unit schedule is derived by hand from
// docs/architecture.md §3 (one issue per cycle, an operation starts the cycle
// after its dispatch, a 16-element fill takes one cycle on 16 lanes), so the
// slices and each merge level of docs/trace.md can be checked to the cycle,
// not just for being self-consistent. The real models are checked against
// --stats-json in tests/tools/SnowsimTraceTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "snow/sim/Trace.h"
#include "SimTestUtil.h"
#include "llvm/Support/JSON.h"
#include <cmath>

using namespace snow;
using namespace snow::test;
namespace json = llvm::json;

namespace {

// cycle 0 li; 1 dispatch fill, runs in 2; 2 dispatch signal.ld, runs in 3;
// 3, 4 nops; 5 dispatch fill, runs in 6; 6 halt. The load unit is busy in
// cycles 2, 3 and 6: a gap of two cycles (4, 5) before the last fill.
const char *const Program = "li r1, imm=64\n"
                            "fill r1, rows=1, len=16, bstride=0, value=3, mask=1\n"
                            "signal.ld idx=0\n"
                            "nop\n"
                            "nop\n"
                            "fill r1, rows=1, len=16, bstride=0, value=3, mask=1\n"
                            "halt\n";

struct Slice {
  std::string Name;
  double Ts, Dur;
  int64_t Cycles, Count, Span;
  std::string Pc;
};

/// The slices on the load unit's track and the file's merge level.
std::vector<Slice> loadSlices(const std::string &Text, int64_t &Level) {
  std::vector<Slice> Out;
  auto V = json::parse(Text);
  if (!V) {
    ADD_FAILURE() << "not JSON: " << llvm::toString(V.takeError());
    return Out;
  }
  const json::Object &Root = *V->getAsObject();
  Level = Root.getObject("otherData")->getInteger("merge_level").getValueOr(-1);
  int64_t LoadTid = -1;
  for (const json::Value &E : *Root.getArray("traceEvents")) {
    const json::Object &O = *E.getAsObject();
    if (O.getString("name") == llvm::StringRef("thread_name") &&
        O.getObject("args")->getString("name") == llvm::StringRef("DMA in (load unit)"))
      LoadTid = *O.getInteger("tid");
    if (O.getString("ph") != llvm::StringRef("X") || O.getInteger("tid") != LoadTid)
      continue;
    const json::Object &A = *O.getObject("args");
    Out.push_back({O.getString("name")->str(), *O.getNumber("ts"), *O.getNumber("dur"),
                   *A.getInteger("cycles"), *A.getInteger("count"),
                   A.getInteger("span_cycles").getValueOr(0), A.getString("pc")->str()});
  }
  return Out;
}

std::string traceOf(const isa::Program &P, size_t MaxSlices, sim::SimStats &S) {
  sim::TraceRecorder R(P, MaxSlices);
  sim::SimOptions O;
  O.Trace = &R;
  EXPECT_TRUE(runProgram(P, S, O));
  return R.toJson(S.Cycles);
}

} // namespace

TEST(Trace, SlicesAreTheHandTimedSchedule) {
  isa::Program P = assembleOrFail(Program, timingHw());
  sim::SimStats S;
  int64_t Level = -1;
  std::vector<Slice> V = loadSlices(traceOf(P, 100, S), Level);
  EXPECT_EQ(Level, 0);
  ASSERT_EQ(V.size(), 3u);
  // 250 MHz: a cycle is 0.004 us.
  EXPECT_EQ(V[0].Name, "fill");
  EXPECT_DOUBLE_EQ(V[0].Ts, 2 * 0.004);
  EXPECT_DOUBLE_EQ(V[0].Dur, 0.004);
  EXPECT_EQ(V[1].Name, "signal.ld");
  EXPECT_DOUBLE_EQ(V[1].Ts, 3 * 0.004);
  EXPECT_EQ(V[2].Name, "fill");
  EXPECT_DOUBLE_EQ(V[2].Ts, 6 * 0.004);
  EXPECT_EQ(V[2].Pc, "5");
  EXPECT_EQ(S.Load.Busy, 3u);
}

TEST(Trace, EachLevelMergesOnlyWhatItsRuleAllows) {
  isa::Program P = assembleOrFail(Program, timingHw());
  sim::SimStats S;
  int64_t Level = -1;
  // Level 1: the contiguous fill and signal.ld join; the gap keeps the last
  // fill apart.
  std::vector<Slice> V = loadSlices(traceOf(P, 2, S), Level);
  EXPECT_EQ(Level, 1);
  ASSERT_EQ(V.size(), 2u);
  EXPECT_EQ(V[0].Name, "fill+signal.ld");
  EXPECT_EQ(V[0].Count, 2);
  EXPECT_EQ(V[0].Pc, "1-2");
  EXPECT_DOUBLE_EQ(V[0].Dur, 2 * 0.004);
  EXPECT_EQ(V[0].Span, 0) << "contiguous: no span_cycles";
  // Level 2: a gap of two cycles needs G = 2; the slice lasts the three busy
  // cycles from the first start and spans five.
  V = loadSlices(traceOf(P, 1, S), Level);
  EXPECT_EQ(Level, 2);
  ASSERT_EQ(V.size(), 1u);
  EXPECT_EQ(V[0].Count, 3);
  EXPECT_EQ(V[0].Cycles, 3);
  EXPECT_DOUBLE_EQ(V[0].Ts, 2 * 0.004);
  EXPECT_DOUBLE_EQ(V[0].Dur, 3 * 0.004);
  EXPECT_EQ(V[0].Span, 5);
  EXPECT_EQ(V[0].Pc, "1-5");
}

TEST(Trace, RecordingDoesNotChangeTheRun) {
  isa::Program P = assembleOrFail(Program, timingHw());
  sim::SimStats Off, On;
  ASSERT_TRUE(runProgram(P, Off));
  traceOf(P, 100, On);
  EXPECT_EQ(On.Cycles, Off.Cycles);
  EXPECT_EQ(On.Load.Busy, Off.Load.Busy);
  EXPECT_EQ(On.UnitOps, Off.UnitOps);
}

// At 300 MHz a cycle is 3.33 ns: each start and end is rounded to the
// nanosecond, so touching slices still touch and never overlap.
TEST(Trace, TimesAreOnANanosecondGrid) {
  std::string Yaml = TimingHwYaml;
  Yaml.replace(Yaml.find("clock_mhz: 250"), 14, "clock_mhz: 300");
  isa::Program P = assembleOrFail(Program, hwFromYaml(Yaml, "clock300.yaml"));
  sim::SimStats S;
  int64_t Level = -1;
  std::vector<Slice> V = loadSlices(traceOf(P, 100, S), Level);
  ASSERT_EQ(V.size(), 3u);
  auto Ns = [](double Us) { return std::llround(Us * 1000); };
  EXPECT_EQ(Ns(V[0].Ts), 7);  // cycle 2: 6.67 ns
  EXPECT_EQ(Ns(V[0].Dur), 3); // to cycle 3: 10 ns
  EXPECT_EQ(Ns(V[0].Ts) + Ns(V[0].Dur), Ns(V[1].Ts));
  EXPECT_EQ(Ns(V[2].Ts), 20); // cycle 6
}
