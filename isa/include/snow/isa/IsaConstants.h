//===- IsaConstants.h - Machine constants of the ISA, from Snow.td -*- C++ -*-===//
//
// The numbers every implementation of the ISA shares (register and semaphore
// counts, pending-signal limit, field-derived limits such as the largest CU
// count a mask can name), as constexpr values generated from the Const
// records of isa/Snow.td. The RTL reads the same records from snow_isa_pkg,
// scripts from the JSON `snowhw` prints, so none of these values is typed anywhere
// else (tests/isa/ConstantsOnceTest.cpp fails if one is).
//
// Kept apart from Isa.h so that snow_hw (HwConfig's limits) can use them
// without the instruction tables.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_ISA_ISACONSTANTS_H
#define SNOW_ISA_ISACONSTANTS_H

namespace snow::isa {

#define SNOW_CONST(NAME, VALUE, DOC) constexpr unsigned NAME = VALUE;
#include "snow/isa/IsaConstants.inc"

/// Name, value and meaning of every constant, in Snow.td order (for snowhw).
struct IsaConstant {
  const char *Name;
  unsigned Value;
  const char *Doc;
};
inline constexpr IsaConstant AllIsaConstants[] = {
#define SNOW_CONST(NAME, VALUE, DOC) {#NAME, VALUE, DOC},
#include "snow/isa/IsaConstants.inc"
};

} // namespace snow::isa

#endif
