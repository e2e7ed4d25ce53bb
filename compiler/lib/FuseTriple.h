//===- FuseTriple.h - Block triples, as FuseBlocks.cpp weighs them -*- C++ -*-===//
//
// Internal to FuseBlocks.cpp and FuseSplitTriple.cpp: a block triple's
// three plans and their estimate, and the split triple (a map of one tile
// on every CU at once), which FuseBlocks.cpp weighs beside its own.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_FUSETRIPLE_H
#define SNOW_COMPILER_FUSETRIPLE_H

#include "Cost.h"
#include "LayerPlan.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>
#include <string>

namespace snow::compiler {

/// An expansion, its depthwise conv and its projection planned as one
/// block triple (FuseBlocks.cpp), and their estimate.
struct Triple {
  LayerPlan Exp, Dw, Proj;
  Cost Estimate;
};

/// Search's triple, recalled where the same three plans were weighed
/// before with the same tag (recallPair): a --tune search compiles
/// thousands of programs that differ in a layer or two.
std::optional<Triple> recallTriple(const LayerPlan &E, const LayerPlan &Q, const LayerPlan &P,
                                   const isa::HwConfig &Hw, const CompileOptions &EOpts,
                                   const std::string &Tag,
                                   llvm::function_ref<std::optional<Triple>()> Search);

/// The split triple of expansion E, depthwise conv Q and projection P, if
/// one fits (FuseSplitTriple.cpp), recalled where the same three plans
/// were weighed before (recallPair).
std::optional<Triple> cachedSplitTriple(const LayerPlan &E, const LayerPlan &Q, const LayerPlan &P,
                                        const isa::HwConfig &Hw, const BufferMap &B,
                                        const CompileOptions &EOpts);

} // namespace snow::compiler

#endif
