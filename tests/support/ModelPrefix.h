//===- ModelPrefix.h - The valid start of the small error-test models -*- C++ -*-===//
//
// The model-error tests build one bad model each from the same valid first
// lines, both through the parser (tests/ir) and through snowc (tests/tools).
// Sharing those lines keeps every expected "m.yaml:LINE:" counted from the
// same place in both suites: the first layer is always on line 4.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_SUPPORT_MODELPREFIX_H
#define SNOW_TESTS_SUPPORT_MODELPREFIX_H

#include <string>

namespace snow::test::modelprefix {

/// Lines 1-3 of every model, so the first layer is on line 4.
inline const std::string Top = "name: m\n"
                               "input: {shape: [3, 8, 8]}\n"
                               "layers:\n";
/// A valid first layer.
inline const std::string C1 = "  - {name: c1, type: conv, out_channels: 4, kernel: 3}\n";

} // namespace snow::test::modelprefix

#endif
