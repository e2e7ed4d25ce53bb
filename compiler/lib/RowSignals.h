//===- RowSignals.h - Steps that wait for the rows the layer before stores -*- C++ -*-===//
//
// Shared by Sequence.cpp (the step list) and RowSignals.cpp (RowsDone
// signals and waits). See Lower.h for the step model.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_ROWSIGNALS_H
#define SNOW_COMPILER_ROWSIGNALS_H

#include "Lower.h"
#include "llvm/ADT/ArrayRef.h"
#include <vector>

namespace snow::compiler {

/// The steps of one plan in its own order: (round, chunk), flags unset.
std::vector<Step> planSteps(const LayerPlan &P);

/// Whether step B, right after step A of the same plan, loads new maps:
/// some CU's tile changes, or the chunk (unless the region holds them all).
bool newMaps(const Step &A, const Step &B);

/// Whether pool Q, beside conv C, reads C (its inputs' latest layer is C):
/// then it waits for C's rows (RowsDone), which only one pool beside C may.
inline bool readsHost(const LayerPlan &C, const LayerPlan &Q) { return Q.NeedsDone == C.Ordinal; }

/// Conv C's steps with the steps of one or two pools (Qs, in program
/// order; at most one reads C) among them (docs/compiler.md, step 9a); G:
/// channelGroup's; Between: CompileOptions::PoolsBetweenChunks.
std::vector<Step> pipeline(std::vector<Step> C, std::vector<std::vector<Step>> Qs, unsigned G,
                           bool Between);

/// Whether Q, planned right after conv C, may start on the rows C has
/// stored: whole layers over the same frames, Q a conv that reads the
/// tensor C writes and nothing newer.
bool startsOnRowsOf(const LayerPlan &C, const LayerPlan &Q);

/// Q's steps, right after C's, each waiting for the RowsDone signals of the
/// steps of C that store what it reads (sets C's signals and Q's waits);
/// false, nothing set, where Q's first step needs C's last. G:
/// channelGroup's.
bool startOnRows(std::vector<Step> &C, std::vector<Step> &Q, unsigned G);

/// Conv Q's steps (QSteps), planned right after conv C's group with the
/// pools beside it (Group: its steps in program order), where Q reads only
/// pool R of them: each of Q's first steps whose rows R stored before C's
/// last step waits for C's LayerDone, not R's (its stores came before that
/// signal in the store unit's order), and the others for R's, so the
/// first of them to load maps does (Step::DoneUpTo). False, nothing set, where Q's first step
/// reads rows R stores after C's last step.
bool startAfterHost(llvm::ArrayRef<Step> Group, const LayerPlan &C, const LayerPlan &R,
                    std::vector<Step> &QSteps, unsigned G);

} // namespace snow::compiler

#endif // SNOW_COMPILER_ROWSIGNALS_H
