//===- Limits.cpp - The resource caps and their environment overrides -----===//

#include "snow/support/Limits.h"
#include "llvm/ADT/StringRef.h"
#include <cstdlib>

using namespace snow;

/// The environment variable Name as a positive integer, or Default.
static uint64_t envOr(const char *Name, uint64_t Scale, uint64_t Default) {
  uint64_t V = 0;
  if (const char *S = std::getenv(Name))
    if (!llvm::StringRef(S).getAsInteger(10, V) && V > 0 && V < (UINT64_MAX / Scale))
      return V * Scale;
  return Default;
}

uint64_t snow::maxActivationValues() {
  static const uint64_t Max = envOr("SNOW_MAX_TENSOR_MVALUES", 1000000, uint64_t(1) << 26);
  return Max;
}

uint64_t snow::maxModelActivationValues() { return 2 * maxActivationValues(); }

uint64_t snow::maxModelMacs() {
  static const uint64_t Max = envOr("SNOW_MAX_GMACS", 1000000000, uint64_t(64) * 1000000000);
  return Max;
}

uint64_t snow::maxSimBytes() {
  static const uint64_t Max = envOr("SNOW_MAX_SIM_MB", uint64_t(1) << 20, uint64_t(2) << 30);
  return Max;
}
