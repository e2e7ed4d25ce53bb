//===- TraceJson.cpp - A simulated run's timeline as trace-event JSON ----===//
//
// TraceRecorder::toJson: the recorded slices merged to fit the budget
// (Trace.cpp's header and docs/trace.md, "Merging and size"), written as
// Chrome / Perfetto trace-event JSON.
//
//===----------------------------------------------------------------------===//

#include "snow/isa/Timing.h"
#include "snow/sim/Trace.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

using namespace snow;
using namespace snow::sim;
namespace json = llvm::json;

namespace {

/// How the written slices are merged from the recorded ones.
struct MergeRule {
  unsigned Level = 0;
  uint64_t Gap = 0; ///< Level 2: the largest gap merged over.

  bool joins(const TraceRecorder::Slice &Prev, const TraceRecorder::Slice &Next) const {
    if (Prev.Layer != Next.Layer)
      return false;
    if (Level == 0)
      return false; // recorded slices are already merged at level 0
    if (Level == 1)
      return Prev.End == Next.Start;
    return Next.Start - Prev.End <= Gap;
  }
};

size_t countSlices(const std::vector<TraceRecorder::Slice> &V, const MergeRule &R) {
  size_t N = 0;
  for (size_t I = 0; I < V.size(); ++I)
    N += I == 0 || !R.joins(V[I - 1], V[I]);
  return N;
}

/// The largest level-2 gap tried: every gap within one layer's run.
constexpr uint64_t MaxGap = uint64_t(1) << 62;

/// The finest rule that merges V into at most Budget slices (the coarsest
/// there is when none does).
MergeRule chooseRule(const std::vector<TraceRecorder::Slice> &V, size_t Budget) {
  MergeRule R;
  for (R.Level = 0; R.Level < 2; ++R.Level)
    if (countSlices(V, R) <= Budget)
      return R;
  for (R.Gap = 1; R.Gap < MaxGap; R.Gap *= 2)
    if (countSlices(V, R) <= Budget)
      break;
  return R;
}

const char *const TrackNames[] = {"control core (stalls)",
                                  "DMA in (load unit)",
                                  "DRAM channel",
                                  "DMA out (store unit)",
                                  "compute",
                                  "writeback (beside compute)"};
const char *const TrackCats[] = {"ctrl", "load", "dram", "store", "compute", "writeback"};
constexpr int LayerTid = 1; ///< The layer track, above the units.

} // namespace

std::string TraceRecorder::toJson(uint64_t TotalCycles) const {
  // Each track gets the finest rule that fits its share of the budget. The
  // tracks are served from the fewest recorded slices to the most, each
  // taking an equal share of what is left, so that a track of many short
  // slices (the control core's stalls) is merged before a sparse one. Each
  // track's floor (a slice per run of one layer's work) is set aside first
  // and the shares are of the budget beyond the floors: a track served
  // early must not take slices a later one cannot do without (ResNet-50's
  // fused pairs alternate layers group by group, and its DRAM track alone
  // needs 1,455 slices), so the budget holds wherever the floors fit in it.
  MergeRule Rules[NumTracks];
  size_t Recorded = 0;
  {
    int Order[NumTracks];
    size_t Floor[NumTracks], Floors = 0;
    const MergeRule Coarsest{2, MaxGap};
    for (int T = 0; T < NumTracks; ++T) {
      Order[T] = T;
      Recorded += Tracks[T].size();
      Floor[T] = countSlices(Tracks[T], Coarsest);
      Floors += Floor[T];
    }
    std::stable_sort(Order, Order + NumTracks,
                     [&](int A, int B) { return Tracks[A].size() < Tracks[B].size(); });
    size_t Left = MaxSlices > Floors ? MaxSlices - Floors : 0; // beyond the floors
    for (int K = 0; K < NumTracks; ++K) {
      int T = Order[K];
      Rules[T] = chooseRule(Tracks[T], Floor[T] + Left / (NumTracks - K));
      Left -= std::min(Left, countSlices(Tracks[T], Rules[T]) - Floor[T]);
    }
  }

  const double Mhz = Prog.Hw.ClockMhz; // cycles per microsecond
  auto LayerName = [&](uint32_t L) -> std::string {
    if (L == NoLayer)
      return "(before the first mark)";
    return L < Prog.Layers.size() ? Prog.Layers[L].Name : fmt::format("layer {}", L);
  };

  std::string Out;
  llvm::raw_string_ostream OS(Out);
  bool First = true;
  auto Emit = [&](json::Object E) {
    OS << (First ? "\n" : ",\n") << json::Value(std::move(E));
    First = false;
  };
  // Complete events are written by hand, with ts and dur on a whole-nanosecond
  // grid: the start and the end cycle are each rounded to the nanosecond and
  // written with exactly three decimals, which a viewer reads back to the
  // same nanosecond, so slices that touch in cycles touch on screen and never
  // overlap (exact at 250 MHz, a 4 ns cycle). args.cycles is always exact.
  auto Ns = [&](uint64_t Cycles) { return int64_t(std::llround(double(Cycles) * 1000.0 / Mhz)); };
  auto UsText = [](int64_t Ns) { return fmt::format("{}.{:03}", Ns / 1000, Ns % 1000); };
  auto Complete = [&](const std::string &Name, const char *Cat, int Tid, uint64_t Start,
                      uint64_t Dur, json::Object Args) {
    int64_t B = Ns(Start), E = Ns(Start + Dur);
    OS << (First ? "\n" : ",\n") << "{\"name\":" << json::Value(Name) << ",\"cat\":\"" << Cat
       << "\",\"ph\":\"X\",\"pid\":1,\"tid\":" << Tid << ",\"ts\":" << UsText(B)
       << ",\"dur\":" << UsText(E - B) << ",\"args\":" << json::Value(std::move(Args)) << "}";
    First = false;
  };
  auto Meta = [&](const char *Name, int Tid, json::Object Args) {
    Emit(json::Object{
        {"name", Name}, {"ph", "M"}, {"pid", 1}, {"tid", Tid}, {"args", std::move(Args)}});
  };
  // No displayTimeUnit: some Perfetto versions take it as the unit of ts.
  OS << "{\"traceEvents\": [";
  Meta("process_name", 0,
       json::Object{{"name", fmt::format("snowsim: {} on {}", Prog.ModelName, Prog.Hw.Name)}});
  Meta("thread_name", LayerTid, json::Object{{"name", "layers"}});
  Meta("thread_sort_index", LayerTid, json::Object{{"sort_index", LayerTid}});
  for (int T = 0; T < NumTracks; ++T) {
    Meta("thread_name", T + 2, json::Object{{"name", TrackNames[T]}});
    Meta("thread_sort_index", T + 2, json::Object{{"sort_index", T + 2}});
  }

  // Layer spans, as --stats-json counts them: from the cycle the compute
  // unit starts a layer's mark to the next mark, the first from cycle 0.
  uint64_t End = TotalCycles;
  if (End == 0)
    for (const auto &V : Tracks)
      if (!V.empty())
        End = std::max(End, V.back().End);
  for (size_t I = 0; I < Marks.size(); ++I) {
    uint64_t B = I == 0 ? 0 : Marks[I].second;
    uint64_t E = I + 1 < Marks.size() ? Marks[I + 1].second : std::max(End, B);
    uint32_t L = Marks[I].first;
    Complete(LayerName(L), "layer", LayerTid, B, E - B,
             json::Object{{"layer", int64_t(L)},
                          {"type", L < Prog.Layers.size() ? Prog.Layers[L].Type : std::string()},
                          {"cycles", int64_t(E - B)}});
  }

  size_t Written = 0;
  unsigned Coarsest = 0;
  json::Object PerTrack;
  for (int T = 0; T < NumTracks; ++T) {
    const std::vector<Slice> &V = Tracks[T];
    const MergeRule &Rule = Rules[T];
    Coarsest = std::max(Coarsest, Rule.Level);
    PerTrack[TrackNames[T]] = json::Object{{"merge_level", int64_t(Rule.Level)},
                                           {"merge_gap_cycles", int64_t(Rule.Gap)},
                                           {"slices", int64_t(countSlices(V, Rule))},
                                           {"recorded_slices", int64_t(V.size())}};
    for (size_t I = 0; I < V.size();) {
      // The group [I, J) becomes one slice.
      size_t J = I + 1;
      while (J < V.size() && Rule.joins(V[J - 1], V[J]))
        ++J;
      Slice S = V[I];
      std::vector<std::pair<uint64_t, uint16_t>> KindBusy; // (busy, kind)
      std::vector<uint32_t> KindCount;
      for (size_t K = I; K < J; ++K) {
        if (K > I) {
          S.Busy += V[K].Busy;
          S.Count += V[K].Count;
          S.PcLo = std::min(S.PcLo, V[K].PcLo);
          S.PcHi = std::max(S.PcHi, V[K].PcHi);
        }
        auto It = std::find_if(KindBusy.begin(), KindBusy.end(),
                               [&](auto &P) { return P.second == V[K].Kind; });
        if (It == KindBusy.end()) {
          KindBusy.push_back({V[K].Busy, V[K].Kind});
          KindCount.push_back(V[K].Count);
        } else {
          It->first += V[K].Busy;
          KindCount[It - KindBusy.begin()] += V[K].Count;
        }
      }
      json::Object Args{
          {"layer", LayerName(S.Layer)}, {"count", int64_t(S.Count)}, {"cycles", int64_t(S.Busy)}};
      if (T != Ctrl)
        Args["pc"] =
            S.PcLo == S.PcHi ? fmt::format("{}", S.PcLo) : fmt::format("{}-{}", S.PcLo, S.PcHi);
      if (V[J - 1].End - S.Start != S.Busy)
        Args["span_cycles"] = int64_t(V[J - 1].End - S.Start);
      std::string Name;
      if (KindBusy.size() == 1) {
        Name = Kinds[S.Kind];
      } else {
        json::Object Ops;
        for (size_t K = 0; K < KindBusy.size(); ++K)
          Ops[Kinds[KindBusy[K].second]] = int64_t(KindCount[K]);
        Args["ops"] = std::move(Ops);
        std::vector<std::pair<uint64_t, uint16_t>> Sorted = KindBusy;
        std::stable_sort(Sorted.begin(), Sorted.end(),
                         [](auto &A, auto &B) { return A.first > B.first; });
        for (size_t K = 0; K < Sorted.size() && K < 3; ++K)
          Name += (K ? "+" : "") + Kinds[Sorted[K].second];
        if (Sorted.size() > 3)
          Name += "+...";
      }
      Complete(Name, TrackCats[T], T + 2, S.Start, S.Busy, std::move(Args));
      ++Written;
      I = J;
    }
  }
  OS << "\n], \"otherData\": "
     << json::Value(json::Object{{"tool", "snowsim"},
                                 {"clock_mhz", Mhz},
                                 {"cycles", int64_t(End)},
                                 {"merge_level", int64_t(Coarsest)},
                                 {"tracks", std::move(PerTrack)},
                                 {"slices", int64_t(Written)},
                                 {"recorded_slices", int64_t(Recorded)},
                                 {"max_slices", int64_t(MaxSlices)}})
     << "}\n";
  return OS.str();
}
