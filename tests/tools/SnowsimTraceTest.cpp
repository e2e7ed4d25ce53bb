//===- SnowsimTraceTest.cpp - snowsim --trace and the exit codes ----------===//
//
// The trace is only worth opening if it agrees with the statistics: a
// compute track that does not add up to units.compute.busy would send a
// reader hunting for stalls that are not there. So each track is summed and
// compared with the counter it claims to show (docs/trace.md), on the demo
// model and on ResNet-50, whose trace must also stay within its slice budget
// (merged more coarsely, never less exactly). The exit codes 0 / 1 / 2 of
// the shared driver (snow/sim/Driver.h) are pinned here for snowsim; the RTL
// tests pin them for snowrtl.
//
//===----------------------------------------------------------------------===//

#include "ToolHarness.h"

#include "llvm/Support/JSON.h"
#include <cmath>
#include <map>

using namespace snow::test;
namespace json = llvm::json;

namespace {

/// What a trace file says, summed per track (by thread name).
struct TraceSums {
  std::map<std::string, int64_t> Cycles; ///< Sum of args.cycles.
  std::map<std::string, double> DurUs;   ///< Sum of dur.
  std::map<std::string, size_t> Slices;
  std::map<std::string, int64_t> LayerCycles; ///< The layer track's cycles by name.
  double ClockMhz = 0;
  int64_t MergeLevel = -1, MaxSlices = 0, Written = 0;
  bool Overlap = false; ///< Two slices of one track overlap.
};

class Trace : public ToolTest {
protected:
  json::Value parseJson(const std::string &Name) const {
    llvm::Expected<json::Value> V = json::parse(read(Name));
    if (!V) {
      ADD_FAILURE() << Name << " is not valid JSON: " << llvm::toString(V.takeError());
      return nullptr;
    }
    return std::move(*V);
  }

  /// Checks the trace's shape (every event well-formed, the expected tracks)
  /// and sums it.
  TraceSums sumTrace(const std::string &Name) const {
    TraceSums S;
    json::Value V = parseJson(Name);
    const json::Object *Root = V.getAsObject();
    if (!Root) {
      ADD_FAILURE() << Name << ": not an object";
      return S;
    }
    const json::Array *Events = Root->getArray("traceEvents");
    const json::Object *Other = Root->getObject("otherData");
    if (!Events || !Other) {
      ADD_FAILURE() << Name << ": no traceEvents or otherData";
      return S;
    }
    S.ClockMhz = Other->getNumber("clock_mhz").getValueOr(0);
    S.MergeLevel = Other->getInteger("merge_level").getValueOr(-1);
    S.MaxSlices = Other->getInteger("max_slices").getValueOr(0);
    S.Written = Other->getInteger("slices").getValueOr(-1);
    std::map<int64_t, std::string> Threads;
    std::map<int64_t, double> LastEnd;
    for (const json::Value &E : *Events) {
      const json::Object *O = E.getAsObject();
      EXPECT_TRUE(O && O->getString("ph") && O->getInteger("pid") && O->getInteger("tid"));
      if (!O || !O->getString("ph"))
        continue;
      int64_t Tid = O->getInteger("tid").getValueOr(-1);
      if (*O->getString("ph") == "M") {
        if (O->getString("name") == llvm::StringRef("thread_name"))
          Threads[Tid] = O->getObject("args")->getString("name")->str();
        continue;
      }
      EXPECT_EQ(*O->getString("ph"), "X");
      auto Ts = O->getNumber("ts"), Dur = O->getNumber("dur");
      const json::Object *Args = O->getObject("args");
      EXPECT_TRUE(Ts && Dur && Args && Args->getInteger("cycles") && O->getString("name"))
          << "malformed slice";
      if (!Ts || !Dur || !Args || !Threads.count(Tid))
        continue;
      const std::string &Track = Threads[Tid];
      // Slices of a track come in time order and do not overlap (a relative
      // tolerance for the microsecond doubles).
      if (LastEnd.count(Tid) && *Ts < LastEnd[Tid] - 1e-9 * (1 + *Ts))
        S.Overlap = true;
      LastEnd[Tid] = *Ts + *Dur;
      S.Cycles[Track] += Args->getInteger("cycles").getValueOr(0);
      S.DurUs[Track] += *Dur;
      ++S.Slices[Track];
      if (Track == "layers")
        S.LayerCycles[O->getString("name")->str()] += Args->getInteger("cycles").getValueOr(0);
    }
    return S;
  }

  /// The trace's tracks against the counters of --stats-json in Stats.
  void expectConsistent(const TraceSums &T, const std::string &Stats) const {
    json::Value V = parseJson(Stats);
    const json::Object *Root = V.getAsObject();
    ASSERT_TRUE(Root);
    const json::Object *Units = Root->getObject("units"), *Total = Root->getObject("total");
    ASSERT_TRUE(Units && Total);
    auto Unit = [&](const char *U, const char *Key) {
      return Units->getObject(U)->getInteger(Key).getValueOr(-1);
    };
    // A track without slices (no queue-full stall, say) sums to 0.
    auto Sum = [](const auto &M, const char *Track) {
      auto It = M.find(Track);
      return It == M.end() ? typename std::decay_t<decltype(M)>::mapped_type() : It->second;
    };
    EXPECT_FALSE(T.Overlap);
    int64_t Busy = Unit("compute", "busy");
    ASSERT_GT(Busy, 0);
    EXPECT_EQ(Sum(T.Cycles, "compute"), Busy) << "compute track vs units.compute.busy";
    // The durations themselves, in microseconds at the clock, within 1 %
    // (in fact to rounding).
    EXPECT_NEAR(Sum(T.DurUs, "compute") * T.ClockMhz, double(Busy), 1e-6 * double(Busy));
    EXPECT_EQ(Sum(T.Cycles, "DRAM channel"), Total->getInteger("dram_busy_cycles").getValueOr(-1));
    EXPECT_EQ(Sum(T.Cycles, "DMA in (load unit)"),
              Unit("load", "busy") + Unit("load", "wait_dram"));
    EXPECT_EQ(Sum(T.Cycles, "DMA out (store unit)"),
              Unit("store", "busy") + Unit("store", "wait_dram"));
    EXPECT_EQ(Sum(T.Cycles, "control core (stalls)"),
              Total->getInteger("ctrl_stall_queue_full").getValueOr(-1) +
                  Total->getInteger("ctrl_stall_fetch").getValueOr(-1));
    EXPECT_EQ(Sum(T.Cycles, "layers"), Total->getInteger("cycles").getValueOr(-1));
    // The layer track has each layer's span under its name, as many cycles
    // as layers[].cycles gives it.
    std::map<std::string, int64_t> Spans;
    for (const json::Value &L : *Root->getArray("layers")) {
      const json::Object &O = *L.getAsObject();
      if (O.getInteger("cycles").getValueOr(0) > 0)
        Spans[O.getString("name")->str()] = O.getInteger("cycles").getValueOr(0);
    }
    EXPECT_EQ(T.LayerCycles, Spans);
  }
};

} // namespace

TEST_F(Trace, DemoModelTraceHasTheTracksAndAddsUpToTheStats) {
  compileTiny("t.bin");
  ToolResult R =
      run("snowsim", {"t.bin", "--trace", "t.json", "--stats-json", "s.json", "--quiet"});
  ASSERT_TRUE(succeeded(R)) << R;
  TraceSums T = sumTrace("t.json");
  for (const char *Track :
       {"layers", "DMA in (load unit)", "DRAM channel", "DMA out (store unit)", "compute"})
    EXPECT_GT(T.Slices[Track], 0u) << Track;
  EXPECT_EQ(T.MergeLevel, 0) << "the demo model fits the budget unmerged";
  EXPECT_EQ(T.ClockMhz, 250);
  expectConsistent(T, "s.json");
}

TEST_F(Trace, TimingOnlyTraceIsTheFullRunsTrace) {
  compileTiny("t.bin");
  ASSERT_TRUE(succeeded(run("snowsim", {"t.bin", "--trace", "full.json", "--quiet"})));
  ASSERT_TRUE(
      succeeded(run("snowsim", {"t.bin", "--timing-only", "--trace", "timing.json", "--quiet"})));
  EXPECT_GT(read("full.json").size(), 1000u);
  EXPECT_TRUE(read("full.json") == read("timing.json"));
}

// ResNet-50: a real program of 53 conv layers. At the default budget and at
// one that forces gap merging, the trace stays within the budget and the
// tracks still add up to the counters exactly.
TEST_F(Trace, ResNet50TraceIsBoundedAndExact) {
  ToolResult C = run("snowc", {SourceDir + "/models/resnet50.yaml", "-o", "r.bin"});
  ASSERT_TRUE(succeeded(C)) << C;
  ToolResult R = run("snowsim", {"r.bin", "--timing-only", "--trace", "r.json", "--stats-json",
                                 "s.json", "--quiet"});
  ASSERT_TRUE(succeeded(R)) << R;
  TraceSums T = sumTrace("r.json");
  EXPECT_LE(T.Written, T.MaxSlices);
  std::cerr << "[ ResNet-50 trace: " << read("r.json").size() << " bytes, " << T.Written
            << " slices, merge level " << T.MergeLevel << " ]\n";
  expectConsistent(T, "s.json");

  // (Its floors, a slice per run of one layer's work on each track, are
  // 3,175 slices since its pool1 and the 1x1 convs reading it run beside
  // conv1, their DMAs between conv1's: FuseBeside.cpp.)
  R = run("snowsim",
          {"r.bin", "--timing-only", "--trace", "small.json", "--trace-slices", "4000", "--quiet"});
  ASSERT_TRUE(succeeded(R)) << R;
  TraceSums Small = sumTrace("small.json");
  EXPECT_EQ(Small.MergeLevel, 2);
  EXPECT_LE(Small.Written, 4000);
  expectConsistent(Small, "s.json");
}

TEST_F(Trace, FaultingRunKeepsItsTraceAndExitsTwo) {
  assemble("race", Race);
  ToolResult R = run("snowsim", {"race.bin", "--trace", "t.json", "--output", "y.npy"});
  EXPECT_TRUE(isCleanError(R, {"pc 1", "vmax"}));
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_FALSE(exists("y.npy"));
  ASSERT_TRUE(exists("t.json"));
  TraceSums T = sumTrace("t.json");
  // The program's one code block (zc706 fetches code), then its ld.map.
  EXPECT_EQ(T.Slices["DRAM channel"], 2u) << "the fetch and the ld.map before the fault";
}

TEST_F(Trace, UnwritableTraceLeavesNothingAndExitsOne) {
  compileTiny("t.bin");
  auto Before = listing();
  ToolResult R = run(
      "snowsim", {"t.bin", "--trace", "no-such-dir/t.json", "--stats-json", "s.json", "--quiet"});
  EXPECT_TRUE(isCleanError(R, {"no-such-dir/t.json"}));
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(listing(), Before);
}

// docs/stats-json.md, "Exit codes": 0 success, 1 usage or bad input, 2 the
// simulated program faulted.
TEST_F(Trace, ExitCodesTellInputErrorsFromProgramFaults) {
  compileTiny("t.bin");
  EXPECT_EQ(run("snowsim", {"t.bin", "--quiet"}).ExitCode, 0);
  EXPECT_EQ(run("snowsim", {"missing.bin"}).ExitCode, 1);
  EXPECT_EQ(run("snowsim", {"t.bin", "--no-such-option"}).ExitCode, 1);
  EXPECT_EQ(run("snowsim", {"t.bin", "--hw", "mini64"}).ExitCode, 1);
  EXPECT_EQ(run("snowsim", {"t.bin", "--input", "none.npy"}).ExitCode, 1);
  EXPECT_EQ(run("snowsim", {"t.bin", "--timing-only", "--output", "y.npy"}).ExitCode, 1);
  assemble("race", Race);
  EXPECT_EQ(run("snowsim", {"race.bin"}).ExitCode, 2);
  // A run past --max-cycles is the program's fault too.
  EXPECT_EQ(run("snowsim", {"t.bin", "--max-cycles", "100"}).ExitCode, 2);
}
