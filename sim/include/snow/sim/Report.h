//===- Report.h - Human and machine readable simulation reports ----*- C++ -*-===//
//
// The per-layer table in the form of the Snowflake paper (layer, M-ops,
// theoretical ms, actual ms, G-ops/s, efficiency) with totals, and the JSON
// document written by --stats-json (docs/stats-json.md). snowrtl writes the
// same JSON from the RTL's counters.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SIM_REPORT_H
#define SNOW_SIM_REPORT_H

#include "snow/isa/Program.h"
#include "snow/sim/Energy.h"
#include "snow/sim/Simulator.h"
#include "llvm/Support/JSON.h"
#include <string>

namespace snow::sim {

/// With an energy model E, the report and the JSON also give energy and
/// power (docs/energy.md); without one they say nothing about either.
std::string formatReport(const SimStats &S, const isa::Program &P, const EnergyModel *E = nullptr);
std::string toJson(const SimStats &S, const isa::Program &P, const EnergyModel *E = nullptr);
/// The same document as an object, for tools that add to it (snowc --emit=plan-json).
llvm::json::Object toJsonObject(const SimStats &S, const isa::Program &P,
                                const EnergyModel *E = nullptr);
/// The fraction of layer I's outputs stored at 32767 or -32768 over the
/// S.RailFrames frames counted (0 when nothing was counted).
double saturatedFraction(const SimStats &S, const isa::Program &P, size_t I);
/// A JSON document as the tools write it: indented by two, newline-terminated.
std::string jsonText(llvm::json::Object Root);

} // namespace snow::sim

#endif
