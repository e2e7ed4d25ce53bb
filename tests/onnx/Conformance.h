//===- Conformance.h - ONNX's backend tests through snowc and snowsim -*- C++ -*-===//
//
// Debian's libonnx-testdata ships the ONNX backend test data: per test a
// model.onnx and test_data_set_*/{input,output}_*.pb. The runner takes every
// test through the toolchain's own pipeline (import, canonicalize, calibrate
// on the test's input, quantize, compile, simulate frame by frame) and
// compares the dequantized output with ONNX's expected values within the
// bound of ErrorBound.h. A test whose model the toolchain refuses is
// "unsupported" with the refusal as its reason; none is skipped.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_ONNX_CONFORMANCE_H
#define SNOW_TESTS_ONNX_CONFORMANCE_H

#include "snow/isa/HwConfig.h"
#include <string>
#include <vector>

namespace snow::onnxtest {

struct CaseResult {
  enum class Status { Pass, Fail, Unsupported };
  std::string Suite; ///< "node", "pytorch-converted", ...
  std::string Name;  ///< "test_conv_with_strides_padding"
  Status St = Status::Unsupported;
  std::string Reason; ///< Why it failed or is unsupported; empty on a pass.
  uint64_t Frames = 0, Values = 0;
  double MaxError = 0, Bound = 0; ///< Largest |output - expected| and its bound.
};

const char *statusName(CaseResult::Status S);

/// Runs one test directory (DataDir/Suite/Name).
CaseResult runCase(const std::string &DataDir, const std::string &Suite, const std::string &Name,
                   const isa::HwConfig &Hw);

/// The suites the runner covers, in report order.
const std::vector<std::string> &conformanceSuites();

/// Every test directory of every suite under DataDir, sorted.
std::vector<CaseResult> runConformance(const std::string &DataDir, const isa::HwConfig &Hw);

/// docs/onnx-conformance.md: a summary and one row per test.
std::string conformanceReport(const std::vector<CaseResult> &Results, const std::string &DataDir,
                              const isa::HwConfig &Hw);

} // namespace snow::onnxtest

#endif
