//===- FuzzCommon.h - Shared pieces of the fuzz targets -----------*- C++ -*-===//
//
// Each target in this folder defines LLVMFuzzerTestOneInput over one front
// door of the toolchain. Built two ways: with clang's libFuzzer for fuzzing
// (SNOW_FUZZ, scripts/fuzz.sh), and with any compiler against Replay.cpp, a
// main that feeds it the files of the regression corpus, so the normal
// tests replay every input a fuzzer ever found (tests/fuzz/README.md).
//
// A target must not crash, hang or leak memory without bound on any input;
// errors are fine (they are the expected outcome for most inputs) and are
// consumed.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_FUZZ_FUZZCOMMON_H
#define SNOW_TESTS_FUZZ_FUZZCOMMON_H

#include "snow/compiler/Compiler.h"
#include "snow/ir/Calibrate.h"
#include "snow/ir/Graph.h"
#include "snow/isa/HwConfig.h"
#include "llvm/Support/Error.h"
#include <cstddef>
#include <cstdint>
#include <string>

namespace snow::fuzz {

/// Consumes an Expected's error, if any; true if it held a value.
template <class T> bool ok(llvm::Expected<T> &E) {
  if (E)
    return true;
  llvm::consumeError(E.takeError());
  return false;
}
inline bool ok(llvm::Error E) {
  if (!E)
    return true;
  llvm::consumeError(std::move(E));
  return false;
}

/// Work the fuzzer may spend on one graph: calibration runs the whole model
/// in float, and a fuzzer must do thousands of inputs a second.
constexpr uint64_t MaxFuzzMacs = 2'000'000;

/// Takes a parsed graph through the rest of the compiler when it is small:
/// canonicalize, calibrate, quantize, plan, lower and encode on mini64.
inline void compileSmall(ir::Graph &G) {
  if (!ok(ir::canonicalize(G)) || G.macs() > MaxFuzzMacs || G.Input.elems() > (1u << 16))
    return;
  static const isa::HwConfig Hw = [] {
    auto H = isa::loadHwConfig("mini64");
    return H ? *H : isa::HwConfig();
  }();
  auto F = ir::calibrate(G, int(Hw.ActFracBits), ir::defaultInput(G));
  if (!ok(F) || !ok(ir::quantize(G, *F)))
    return;
  auto P = compiler::compile(G, Hw, {});
  ok(P);
}

} // namespace snow::fuzz

#endif
