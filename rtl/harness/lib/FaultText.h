//===- FaultText.h - The RTL's fault codes in the simulator's words -*- C++ -*-===//
//
// The RTL reports a fault as a code (rtl/gen/Faults.def) and up to three
// arguments; the harness turns them into the reason the simulator gives for
// the same fault (sim/lib/Timing.cpp, Functional.cpp, Machine.cpp), so
// snowrtl and snowsim print the same line. Internal to snow_rtl.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_RTL_FAULTTEXT_H
#define SNOW_RTL_FAULTTEXT_H

#include "RtlModel.h"
#include "snow/isa/Isa.h"
#include "snow/isa/Program.h"
#include <string>
#include <vector>

namespace snow::rtl {

/// The codes of Faults.def, by name.
enum class FaultCode : uint8_t {
#define FAULT(NAME, CODE, ARGS) NAME = CODE,
#include "Faults.def"
};

/// The reason text of a Faulted outcome. Code is the decoded program.
std::string faultReason(const isa::Program &P, const std::vector<isa::Inst> &Code,
                        const RunOutcome &R);

} // namespace snow::rtl

#endif
