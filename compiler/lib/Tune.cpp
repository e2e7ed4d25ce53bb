//===- Tune.cpp - Per-layer options chosen by running the program ----------===//
//
// The planner chooses each layer's plan, and whether layers fuse, from cost
// estimates. Where an estimate is wrong (a fused pair's, or a layer's effect
// on the next one's start, which no estimate sees) the choice loses cycles
// the simulator shows. tune() asks the simulator's timing engine instead
// (the cycles snowsim reports: one timing model), for what
// CompileOptions::LayerOff can change of one layer: a switch off, the
// planner's next-cheapest plan (PlanRank), a late place in the layer order,
// or, for a member of a merged conv, a conv of its own (ir::keepApart: each
// set of members apart is a graph of its own).
//
// First each switch goes off for the whole network, which finds the layers
// whose plans it changes (describePart of each part shows fusion, pixel
// modes, loop order and tiles). Then, layer by layer in program order, the
// layer's candidates (each such switch off for it alone, every other rank
// up to MaxRank, a late place in the order) compile and run side by side,
// and the fastest is kept where the whole program runs in fewer cycles
// than before; a second round starts from it. Passes over the layers repeat
// until one keeps nothing (TuneSettings::Passes at most). Programs already
// run (the same code) are not run again, and layers' plans are kept across
// the compiles (PlanCache). The program found does not depend on the
// thread count, is never slower than the options given, and compile()
// with its options makes it again.
//
//===----------------------------------------------------------------------===//

#include "snow/compiler/Compiler.h"
#include "snow/sim/Simulator.h"
#include "snow/support/Parallel.h"
#include "llvm/Support/xxhash.h"
#include <fmt/format.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

using namespace snow;
using namespace snow::compiler;

namespace {

/// Highest rank tried. A round tries every rank up to it but the layer's
/// current one. Ranks are cheap to try (plans are cached, and a rank that
/// makes the program of another is not run again) and the deep ones pay:
/// with the next 3 up to rank 8 GoogLeNet's search ended at 6,808,807
/// cycles and ResNet-50's at 16,576,921, with all up to 16 at 6,786,308 and
/// 16,524,722 (the next 6 up to 16 gained half as much), for two to three
/// times the search time (docs/compiler.md, "Tuning").
constexpr unsigned MaxRank = 16;
/// Rounds of candidates a layer gets (each from the best of the last).
constexpr unsigned Rounds = 2;

/// One compiled program: its cycles and each layer's parts as described.
struct Trial {
  uint64_t Cycles = 0;
  std::map<std::string, std::string> Parts; ///< layer -> its parts' descriptions (if asked)
  std::vector<std::string> Order;           ///< layers in program order (if asked)
};

class Tuner {
public:
  Tuner(const ir::Graph &G, const isa::HwConfig &Hw, TuneResult &R) : G(G), Hw(Hw), R(R) {}

  /// Compiles and runs O (or recalls a run of the same code): none where O
  /// does not compile (a layer that needs a switch it has off), the error
  /// where Required; Trial::Parts and Order only where Describe. A fault in
  /// the timing engine is an internal error: the compiler made a program
  /// that faults. Safe to call from several threads.
  llvm::Expected<std::optional<Trial>> run(const CompileOptions &O, bool Required = false,
                                           bool Describe = false) {
    auto PG = graphFor(O);
    if (!PG) { // A layer kept apart that is no member of a merged conv.
      if (Required)
        return PG.takeError();
      llvm::consumeError(PG.takeError());
      return std::nullopt;
    }
    std::vector<PlanPart> Parts;
    isa::ImageFill Unused; // The weight image is not needed for timing.
    auto Prog = compile(**PG, Hw, O, Describe ? &Parts : nullptr, &Unused);
    {
      std::lock_guard<std::mutex> Lock(M);
      ++R.Compiles;
    }
    if (!Prog) {
      if (Required)
        return Prog.takeError();
      llvm::consumeError(Prog.takeError());
      return std::nullopt;
    }
    Trial T;
    for (const PlanPart &P : Parts) {
      if (!T.Parts.count(P.Layer))
        T.Order.push_back(P.Layer);
      T.Parts[P.Layer] += fmt::format("{} {} {}x{} {}x{} {} {} {} {} {};", P.Type, P.Name, P.Chunks,
                                      P.ChunkChannels, P.TileRows, P.TileCols, P.Rounds,
                                      P.OutputGroups, P.Order, P.Beside, P.Hosted);
    }
    const uint64_t Key =
        llvm::xxHash64(llvm::StringRef(reinterpret_cast<const char *>(Prog->Code.data()),
                                       Prog->Code.size() * sizeof(isa::Word128)));
    {
      std::lock_guard<std::mutex> Lock(M);
      if (auto It = Seen.find(Key); It != Seen.end()) {
        T.Cycles = It->second;
        return T;
      }
    }
    // The options that made it, so that the fault can be reproduced
    // without the search.
    auto Fault = [&O](llvm::Error E) {
      std::string Flags;
      for (const std::string &Spec : layerOffSpecs(O))
        Flags += " --layer-off='" + Spec + "'";
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "internal error: a program compiled while tuning faults in "
                                     "the timing engine: %s (compiled with%s)",
                                     llvm::toString(std::move(E)).c_str(),
                                     Flags.empty() ? " no --layer-off" : Flags.c_str());
    };
    sim::SimOptions SO;
    SO.TimingOnly = true;
    auto Sim = sim::Simulator::create(*Prog, SO);
    if (!Sim)
      return Fault(Sim.takeError());
    auto Stats = (*Sim)->run();
    if (!Stats)
      return Fault(Stats.takeError());
    T.Cycles = Stats->Cycles;
    std::lock_guard<std::mutex> Lock(M);
    ++R.Runs;
    Seen.emplace(Key, T.Cycles);
    return T;
  }

  /// Runs every option set of Os side by side: their trials (none where one
  /// does not compile), or the first error in Os's order.
  llvm::Expected<std::vector<std::optional<Trial>>> runAll(const std::vector<CompileOptions> &Os,
                                                           bool Describe = false) {
    std::vector<std::optional<llvm::Expected<std::optional<Trial>>>> Out(Os.size());
    parallelForEach(Os.size(), [&](size_t I) { Out[I].emplace(run(Os[I], false, Describe)); });
    std::vector<std::optional<Trial>> Trials;
    for (auto &E : Out) {
      if (!*E)
        return E->takeError();
      Trials.push_back(std::move(**E));
    }
    return Trials;
  }

  /// G as O compiles it: with the members of merged convs O keeps apart
  /// made convs of their own (applyApart), once for each set of them. The
  /// plan cache serves them all: its keys are layers' shapes, not names.
  llvm::Expected<const ir::Graph *> graphFor(const CompileOptions &O) {
    const std::string Key = apartKey(O);
    if (Key.empty())
      return &G;
    std::lock_guard<std::mutex> Lock(GM);
    std::unique_ptr<ir::Graph> &Made = Apart[Key];
    if (!Made) {
      auto New = std::make_unique<ir::Graph>(G);
      if (auto Err = applyApart(*New, O))
        return Err;
      Made = std::move(New);
    }
    return Made.get();
  }

  /// Drops the graphs made for options other than O (a copy of G each:
  /// GoogLeNet's weights are 14 MB). Not while candidates run.
  void keepOnlyGraphOf(const CompileOptions &O) {
    std::lock_guard<std::mutex> Lock(GM);
    const std::string Key = apartKey(O);
    for (auto It = Apart.begin(); It != Apart.end();)
      It = It->first == Key ? std::next(It) : Apart.erase(It);
  }

private:
  static std::string apartKey(const CompileOptions &O) {
    std::string Key;
    for (const auto &[Layer, T] : O.LayerOff)
      if (T.Apart)
        Key += Layer + ";";
    return Key;
  }

  const ir::Graph &G;
  const isa::HwConfig &Hw;
  TuneResult &R;
  std::mutex M;                                            ///< R's counts, Seen
  std::unordered_map<uint64_t, uint64_t> Seen;             ///< code hash -> cycles
  std::mutex GM;                                           ///< Apart
  std::map<std::string, std::unique_ptr<ir::Graph>> Apart; ///< graphFor's, by members
};

} // namespace

llvm::Expected<TuneResult> snow::compiler::tune(const ir::Graph &G, const isa::HwConfig &Hw,
                                                const CompileOptions &Opts, const TuneSettings &S) {
  TuneResult R;
  R.Opts = Opts;
  // Candidates differ in a layer or two: the others' plans are the last's.
  R.Opts.Cache = newPlanCache();
  Tuner T(G, Hw, R);
  auto First = T.run(R.Opts, /*Required=*/true, /*Describe=*/true);
  if (!First)
    return First.takeError();
  const Trial Base = std::move(**First);
  R.StartCycles = R.Cycles = Base.Cycles;
  const auto &Switches = layerSwitches();

  // Which layers each switch changes, off for the whole network.
  std::vector<size_t> On;
  std::vector<CompileOptions> Global;
  for (size_t K = 0; K < Switches.size(); ++K)
    if (Opts.*Switches[K].Member) {
      On.push_back(K);
      Global.push_back(R.Opts);
      Global.back().*Switches[K].Member = false;
    }
  auto Offs = T.runAll(Global, /*Describe=*/true);
  if (!Offs)
    return Offs.takeError();
  std::vector<std::set<std::string>> Changes(Switches.size());
  for (size_t I = 0; I < On.size(); ++I) {
    std::set<std::string> &C = Changes[On[I]];
    const std::optional<Trial> &Off = (*Offs)[I];
    if (!Off) { // Some layer needs it: every layer may try it.
      C.insert(Base.Order.begin(), Base.Order.end());
      continue;
    }
    for (const std::string &L : Base.Order)
      if (!Off->Parts.count(L) || Off->Parts.at(L) != Base.Parts.at(L))
        C.insert(L);
    for (const std::string &L : Off->Order) // Planned only with the switch off.
      if (!Base.Parts.count(L))
        C.insert(L);
  }

  // Convs planned alone (no fusion, not depthwise), which may try "sum":
  // read from their parts' orders (--emit=plan's, "+fused<" and "+dw"),
  // not from the layer names the descriptions also hold.
  std::set<std::string> Alone;
  for (const auto &[L, D] : Base.Parts)
    if (llvm::StringRef(D).startswith("conv ") && D.find("+fused") == std::string::npos &&
        D.find("+dw") == std::string::npos && D.find("+gdw") == std::string::npos)
      Alone.insert(L);

  // Layer by layer: its candidates side by side, the fastest kept.
  std::vector<std::string> Names = Base.Order;
  std::set<std::string> Planned(Base.Order.begin(), Base.Order.end());
  for (const ir::Layer &L : G.Layers) // Layers with no plan of their own now.
    if (!Planned.count(L.Name))
      Names.push_back(L.Name);
  for (unsigned Pass = 0; Pass < S.Passes; ++Pass) {
    const size_t Kept = R.Log.size();
    // A member kept apart, and the merged conv of the others, renamed, are
    // layers with plans of their own now: each switch may change them.
    if (Pass > 0 && keepsApart(R.Opts)) {
      auto Now = T.run(R.Opts, /*Required=*/true, /*Describe=*/true);
      if (!Now)
        return Now.takeError();
      for (const std::string &L : (*Now)->Order)
        if (Planned.insert(L).second) {
          if (llvm::find(Names, L) == Names.end())
            Names.push_back(L);
          for (std::set<std::string> &C : Changes)
            C.insert(L);
        }
    }
    for (const std::string &Layer : Names) {
      for (unsigned Round = 0; Round < Rounds; ++Round) {
        T.keepOnlyGraphOf(R.Opts); // The last round's candidates' graphs go.
        const CompileOptions::LayerTweak Now =
            R.Opts.LayerOff.count(Layer) ? R.Opts.LayerOff.at(Layer) : CompileOptions::LayerTweak();
        std::vector<CompileOptions> Cands;
        std::vector<std::string> What;
        auto Add = [&](CompileOptions::LayerTweak Tw, std::string W) {
          Cands.push_back(R.Opts);
          Cands.back().LayerOff[Layer] = Tw;
          What.push_back(Layer + ": " + std::move(W));
        };
        for (size_t K = 0; K < Switches.size(); ++K)
          if (Changes[K].count(Layer) && !(Now.Off >> K & 1)) {
            CompileOptions::LayerTweak Tw = Now;
            Tw.Off |= 1u << K;
            Add(Tw, fmt::format("{} off", Switches[K].Name));
          }
        if (!Now.Late && Planned.count(Layer)) { // After the layers it need not precede.
          CompileOptions::LayerTweak Tw = Now;
          Tw.Late = true;
          Add(Tw, "late");
        }
        // The planner's other candidates for it, those ranked before its
        // current one too: once other layers' plans change, a plan passed
        // over may win again (SqueezeNet 1.1: 1,641,533 -> 1,632,485 cycles).
        if (Planned.count(Layer))
          for (unsigned Rank = 0; Rank <= MaxRank; ++Rank) {
            if (Rank == Now.Rank)
              continue;
            CompileOptions::LayerTweak Tw = Now;
            Tw.Rank = Rank;
            Add(Tw, fmt::format("rank {}", Tw.Rank));
          }
        // Its CUs splitting each tile's input channels (planCuSums), for a
        // conv planned alone: measured here, as the estimates cannot say.
        if (!Now.Sum && Hw.CuSumWriteback && Hw.cus() > 1 && Alone.count(Layer)) {
          CompileOptions::LayerTweak Tw = Now;
          Tw.Sum = true;
          Add(Tw, "sum");
        }
        // A member of a merged conv computed apart: the merged conv of
        // the others has another name, and loses the options it had.
        if (!Now.Apart) {
          auto Cur = T.graphFor(R.Opts);
          if (!Cur)
            return Cur.takeError();
          if (const int Merged = ir::mergedConvOf(**Cur, Layer); Merged >= 0) {
            CompileOptions::LayerTweak Tw = Now;
            Tw.Apart = true;
            Add(Tw, "apart");
            Cands.back().LayerOff.erase((*Cur)->Layers[size_t(Merged)].Name);
          }
        }
        auto Runs = T.runAll(Cands);
        if (!Runs)
          return Runs.takeError();
        size_t Best = Cands.size();
        for (size_t I = 0; I < Cands.size(); ++I)
          if ((*Runs)[I] &&
              (*Runs)[I]->Cycles < (Best < Cands.size() ? (*Runs)[Best]->Cycles : R.Cycles))
            Best = I;
        if (Best == Cands.size())
          break;
        const std::string Line =
            fmt::format("{}: {} -> {} cycles", What[Best], R.Cycles, (*Runs)[Best]->Cycles);
        R.Log.push_back(Line);
        if (S.Progress)
          S.Progress(Line);
        R.Cycles = (*Runs)[Best]->Cycles;
        R.Opts = std::move(Cands[Best]);
      }
    }
    if (R.Log.size() == Kept)
      break;
  }
  R.Opts.Cache.reset();
  return R;
}
