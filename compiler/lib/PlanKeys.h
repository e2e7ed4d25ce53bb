//===- PlanKeys.h - What a plan depends on, and the cache keyed by it -*- C++ -*-===//
//
// See PlanKeys.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_PLANKEYS_H
#define SNOW_COMPILER_PLANKEYS_H

#include "Plan.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace snow::compiler {

/// What a layer's plan depends on, as text: layers with equal keys get
/// equal plans (Compiler.cpp plans each key once). Tweak: the layer's
/// CompileOptions::tweakKey.
std::string planKey(const ir::Layer &L, bool OutIsSlice, unsigned Frames, uint64_t Penalty,
                    const std::string &Tweak);

/// Everything plan P says but its layer (L), its rounds and its weights'
/// addresses, as text: what the pairs' searches (Fuse.cpp, FuseWindows.cpp)
/// read of the plans they start from, so a cache keyed by it gives the
/// pair those plans make.
std::string planFingerprint(const LayerPlan &P);

/// A pair's plans as its search chose them (producer first, then its
/// readers) and their estimate's cycles and bytes; no plans: none fits.
struct PairChoice {
  std::vector<LayerPlan> Plans;
  uint64_t Cycles = 0, Bytes = 0;
};
using PairTable = std::unordered_map<std::string, PairChoice>;

/// CompileOptions::Cache: planLayer's results by planKey, the options'
/// planningKey and the prefetch window, and the pairs weighed (recallPair).
/// Safe for planAll's threads.
struct PlanCache {
  mutable std::mutex M;
  std::unordered_map<std::string, std::vector<LayerPlan>> Plans;
  PairTable WindowPairs, FusedPairs, BlockTriples; ///< FuseWindows.cpp, Fuse.cpp, FuseBlocks.cpp
};

/// The pair Search makes of Plans (its producer's first, then its
/// readers'), recalled from DOpts.Cache's Table where the same pair was
/// weighed before: a --tune search compiles thousands of programs that
/// differ in a layer or two. Keyed by what a pair's search reads: each
/// layer's planKey and its plan's fingerprint, the producer's options (the
/// pair's switches and rank) and Tag (anything else the search is told).
PairChoice recallPair(PairTable PlanCache::*Table, const std::vector<const LayerPlan *> &Plans,
                      const CompileOptions &DOpts, const std::string &Tag,
                      llvm::function_ref<PairChoice()> Search);

} // namespace snow::compiler

#endif
