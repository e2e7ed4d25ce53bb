//===- PlanText.h - Reading the plan snowc --emit=plan prints --*- C++ -*-===//
//
// Tests that must know a plan took a shape (tests/e2e through
// compiler::describePlan, tests/rtl through snowc --emit=plan) read the same
// table: a row per plan part, "name type chunks RxW rounds og order ...".
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_TESTS_SUPPORT_PLANTEXT_H
#define SNOW_TESTS_SUPPORT_PLANTEXT_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include <algorithm>
#include <string>

namespace snow::test {

/// The most output pixels (R x W) of a tile among the plan's depthwise
/// parts (order "+dw"); 0 if it has none.
inline unsigned largestDepthwiseTile(llvm::StringRef Plan) {
  unsigned Most = 0;
  for (llvm::StringRef Line : llvm::split(Plan, '\n')) {
    llvm::SmallVector<llvm::StringRef, 8> F;
    Line.split(F, ' ', -1, false);
    unsigned R = 0, W = 0;
    if (F.size() > 3 && Line.contains("+dw") && !F[3].split('x').first.getAsInteger(10, R) &&
        !F[3].split('x').second.getAsInteger(10, W))
      Most = std::max(Most, R * W);
  }
  return Most;
}

/// The order field ("kernel+shared+beside", ...) of the plan part named
/// Part; empty if the plan has none.
inline std::string planOrder(llvm::StringRef Plan, llvm::StringRef Part) {
  for (llvm::StringRef Line : llvm::split(Plan, '\n')) {
    llvm::SmallVector<llvm::StringRef, 8> F;
    Line.split(F, ' ', -1, false);
    if (F.size() > 6 && F[0] == Part)
      return F[6].str();
  }
  return "";
}

} // namespace snow::test

#endif
