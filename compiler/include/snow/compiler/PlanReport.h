//===- PlanReport.h - The compiler's plan with its exact timing -----*- C++ -*-===//
//
// `snowc --emit=plan-json`: what the planner chose for every layer, next to
// the cycles the program takes. The cycles are not a second estimate: the
// compiled program is played through the simulator's timing engine (the one
// `snowsim --timing-only` runs, built on the shared costs of
// snow/isa/Timing.h), so every layer's cycles equal what snowsim reports.
// The planner's own estimate travels beside them, so its error is visible.
// docs/timing.md describes the document.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_COMPILER_PLANREPORT_H
#define SNOW_COMPILER_PLANREPORT_H

#include "snow/compiler/Compiler.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace snow::compiler {

/// The plan-json document for Prog, compiled with plan Parts: snowsim's
/// --stats-json document (same "layers" and "total"), each layer with its
/// "plan" parts and "estimate_cycles", and "total.estimate_cycles". Fails
/// only if the program faults in the timing engine (a compiler bug).
llvm::Expected<std::string> planJson(const isa::Program &Prog, const std::vector<PlanPart> &Parts);

} // namespace snow::compiler

#endif
