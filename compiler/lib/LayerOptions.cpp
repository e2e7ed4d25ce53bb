//===- LayerOptions.cpp - Compile options of single layers ----------------===//
//
// CompileOptions::LayerOff: for one layer only, planner switches off, a
// later-ranked plan, a late place in the layer order or, for a member of a
// merged conv, a conv of its own (snowc --layer-off
// LAYER=switch,...,rankN,late,apart), which is what snowc --tune searches
// (Tune.cpp). The planner asks for a layer's options where it plans that
// layer (planLayer), and for a fused pair's or a pool's where it decides
// about them (Fuse.cpp, FuseWindows.cpp, PipelinePools.cpp).
//
//===----------------------------------------------------------------------===//

#include "snow/compiler/Compiler.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include <fmt/format.h>
#include <iterator>

using namespace snow;
using namespace snow::compiler;

const std::vector<LayerSwitch> &snow::compiler::layerSwitches() {
  // Names of compileSwitches(). Appending keeps the bits of the ones
  // before; the list must stay within LayerOff's 32 bits.
  static const std::vector<LayerSwitch> Switches = [] {
    static const char *const Names[] = {
        "loop-reorder",      "full-depth",      "remainder-tiles",    "gather",
        "split-channels",    "balance",         "multi-pixel",        "wide-traces",
        "banked-reads",      "copied-windows",  "mixed-windows",      "clipped-windows",
        "grouped-vdw",       "dw-pixel-pairs",  "even-rows",          "fuse-depthwise",
        "beside-pairs",      "fuse-dense",      "full-depth-pairs",   "chunk-banks",
        "pin-pair-weights",  "fuse-conv-pools", "fuse-expansions",    "fuse-blocks",
        "fuse-concats",      "four-bank-areas", "whole-map-windows",  "pipeline-pools",
        "colocated-weights", "flat-pointwise",  "large-triple-tiles", "split-triples"};
    static_assert(std::size(Names) <= 32, "LayerOff holds 32 bits");
    const auto &All = compileSwitches();
    std::vector<LayerSwitch> S;
    for (const char *N : Names) {
      auto It =
          llvm::find_if(All, [&](const CompileSwitch &W) { return llvm::StringRef(W.Name) == N; });
      if (It == All.end()) // (CompileSwitchesTest checks every name.)
        llvm::report_fatal_error(llvm::Twine("layer switch '") + N + "' is no compile switch");
      S.push_back({It->Name, It->Member});
    }
    return S;
  }();
  return Switches;
}

static const CompileOptions::LayerTweak *tweakOf(const CompileOptions &O, const ir::Layer &L) {
  if (O.LayerOff.empty())
    return nullptr;
  auto It = O.LayerOff.find(L.Name);
  return It == O.LayerOff.end() || It->second == CompileOptions::LayerTweak() ? nullptr
                                                                              : &It->second;
}

bool CompileOptions::tweaked(const ir::Layer &L) const { return tweakOf(*this, L); }

std::string CompileOptions::tweakKey(const ir::Layer &L) const {
  const LayerTweak *T = tweakOf(*this, L);
  return T ? tweakSpec(*T) : std::string();
}

std::string CompileOptions::planningKey() const {
  // Every switch, and the other fields planning reads: a field added to
  // CompileOptions that is no switch of compileSwitches() must be added
  // here if planning can read it; this assertion fails so that nobody
  // forgets (sizes on x86-64 Linux).
  static_assert(sizeof(CompileOptions) == 144, "CompileOptions changed: update planningKey");
  const auto &S = compileSwitches();
  const bool Others[] = {ReusePlans,  ForceBlockTriples, PartPlans,
                         ForceCuSums, ForceDwHalves,     ForceDwQuarters};
  // Two words of bits: the switches filled one (64) on 2026-12-07.
  if (S.size() + std::size(Others) > 128)
    llvm::report_fatal_error("planningKey: more switches than two uint64_t's bits");
  uint64_t Bits[2] = {0, 0};
  auto Set = [&](size_t K, bool On) { Bits[K / 64] |= uint64_t(On) << (K % 64); };
  for (size_t K = 0; K < S.size(); ++K)
    Set(K, this->*S[K].Member);
  for (size_t K = 0; K < std::size(Others); ++K)
    Set(S.size() + K, Others[K]);
  return fmt::format("{:x}.{:x}/{}/{}", Bits[1], Bits[0], PlanRank, Batch);
}

bool CompileOptions::on(const ir::Layer &L, bool CompileOptions::*M) const {
  if (!(this->*M))
    return false;
  const LayerTweak *T = tweakOf(*this, L);
  if (!T)
    return true;
  const auto &S = layerSwitches();
  for (size_t K = 0; K < S.size(); ++K)
    if (S[K].Member == M && (T->Off >> K & 1))
      return false;
  return true;
}

CompileOptions CompileOptions::forLayer(const ir::Layer &L) const {
  CompileOptions O = *this;
  O.LayerOff.clear();
  if (const LayerTweak *T = tweakOf(*this, L)) {
    const auto &S = layerSwitches();
    for (size_t K = 0; K < S.size(); ++K)
      if (T->Off >> K & 1)
        O.*S[K].Member = false;
    O.PlanRank = T->Rank;
    O.ForceCuSums |= T->Sum;
  }
  return O;
}

llvm::Error snow::compiler::addLayerOff(const std::string &Spec, CompileOptions &Opts) {
  auto Err = [&](const std::string &Why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "--layer-off '%s': %s",
                                   Spec.c_str(), Why.c_str());
  };
  const size_t Eq = Spec.rfind('=');
  if (Eq == std::string::npos || Eq == 0 || Eq + 1 == Spec.size())
    return Err("expected LAYER=switch[,switch...]");
  const std::string Layer = Spec.substr(0, Eq);
  llvm::SmallVector<llvm::StringRef, 8> Names;
  llvm::StringRef(Spec).substr(Eq + 1).split(Names, ',');
  CompileOptions::LayerTweak T;
  const auto &S = layerSwitches();
  for (llvm::StringRef N : Names) {
    N = N.trim();
    if (N == "late") {
      T.Late = true;
      continue;
    }
    if (N == "apart") {
      T.Apart = true;
      continue;
    }
    if (N == "sum") {
      T.Sum = true;
      continue;
    }
    if (N.consume_front("rank")) {
      if (N.getAsInteger(10, T.Rank) || T.Rank > 99)
        return Err("a rank is rank0 to rank99");
      continue;
    }
    (void)N.consume_front("no-"); // snowc's flag spelling too
    size_t K = 0;
    while (K < S.size() && N != S[K].Name)
      ++K;
    if (K == S.size()) {
      std::string Known;
      for (const LayerSwitch &W : S)
        Known += std::string(Known.empty() ? "" : ", ") + W.Name;
      return Err(fmt::format(
          "unknown switch '{}' (one a layer may turn off: {}; or rankN, late, apart, sum)", N.str(),
          Known));
    }
    T.Off |= 1u << K;
  }
  CompileOptions::LayerTweak &Old = Opts.LayerOff[Layer];
  Old.Off |= T.Off;
  if (T.Rank)
    Old.Rank = T.Rank;
  Old.Late |= T.Late;
  Old.Apart |= T.Apart;
  Old.Sum |= T.Sum;
  return llvm::Error::success();
}

std::string snow::compiler::tweakSpec(const CompileOptions::LayerTweak &T) {
  std::vector<std::string> Parts;
  const auto &S = layerSwitches();
  for (size_t K = 0; K < S.size(); ++K)
    if (T.Off >> K & 1)
      Parts.push_back(S[K].Name);
  if (T.Rank)
    Parts.push_back(fmt::format("rank{}", T.Rank));
  if (T.Late)
    Parts.push_back("late");
  if (T.Apart)
    Parts.push_back("apart");
  if (T.Sum)
    Parts.push_back("sum");
  return llvm::join(Parts, ",");
}

std::vector<std::string> snow::compiler::layerOffSpecs(const CompileOptions &Opts) {
  std::vector<std::string> Out;
  for (const auto &[Layer, T] : Opts.LayerOff)
    if (std::string Spec = tweakSpec(T); !Spec.empty())
      Out.push_back(Layer + "=" + Spec);
  return Out;
}

bool snow::compiler::keepsApart(const CompileOptions &Opts) {
  return llvm::any_of(Opts.LayerOff, [](const auto &E) { return E.second.Apart; });
}

llvm::Error snow::compiler::applyApart(ir::Graph &G, const CompileOptions &Opts) {
  for (const auto &[Layer, T] : Opts.LayerOff)
    if (T.Apart)
      if (auto Err = ir::keepApart(G, Layer))
        return Err;
  return llvm::Error::success();
}
