//===- FeedNext.h - A conv's output written on chip for the 1x1 conv after it -*- C++ -*-===//
//
// CompileOptions::FeedNext (FeedNext.cpp): a conv whose CUs each hold one
// tile writes each output group into the next conv's input region as well
// as its output region: a 1x1 conv on the same tiles reads it there, a
// window producer or depthwise conv loads only the rest of each window.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_FEEDNEXT_H
#define SNOW_COMPILER_FEEDNEXT_H

#include "Lower.h"

namespace snow::compiler {

/// Whether conv plan P, whose steps come right before those of 1x1 conv
/// plan Q, can write Q's maps on chip: the plans' conditions (the regions
/// are feedSteps').
bool feedsOnChip(const LayerPlan &P, const LayerPlan &Q, const isa::HwConfig &Hw);

/// Whether conv plan P can write its CUs' tiles into the regions of Q's
/// first step, a window producer (FuseWindows.cpp: a 1x1 conv on P's
/// output, not started on rows: OnRows) or a full-depth depthwise producer
/// of a pair, a chunk a bank, whose CUs' windows hold those tiles; that
/// step then loads only the rest of each window. If so, sets QFirst's
/// Step::OwnAt, FeedSpan, FeedPitch and FeedStride.
bool feedsWindow(const LayerPlan &P, const LayerPlan &Q, const isa::HwConfig &Hw, bool OnRows,
                 Step &QFirst);

/// Marks Q's steps (QSteps) as reading P's output groups (Step::Fed).
void markFed(std::vector<Step> &QSteps, const LayerPlan &P, const isa::HwConfig &Hw);

/// With bank parities assigned: P's steps are Steps[PFrom, QAt) (among its
/// producer's, if a pair's 1x1 conv), Q's (marked) from QAt on. Where no
/// step from P's first writeback on holds maps in the input region of Q's
/// first step, P's writing steps write there too (Step::FeedBuf); else Q's
/// steps are unmarked and load their maps. Whether they are fed.
bool feedSteps(std::vector<Step> &Steps, const LayerPlan &P, size_t PFrom, size_t QAt);

} // namespace snow::compiler

#endif
