#!/usr/bin/env bash
# Regenerates docs/onnx-conformance.md: runs the ONNX backend conformance test
# (tests/onnx/ConformanceTest.cpp), which writes a fresh report to
# <build>/generated/onnx-conformance.md, and copies it into docs/. The test
# fails while the doc is stale, so its exit status is ignored here; the copy
# is what it compares against next time. BUILD=<dir> picks the build
# directory (default: build, as scripts/build.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
if [ "$BUILD" = build ]; then
  bash scripts/build.sh > /dev/null
else
  cmake --build "$BUILD" --target test_onnx > /dev/null
fi
rm -f "$BUILD/generated/onnx-conformance.md"
"$BUILD/tests/test_onnx" --gtest_filter='OnnxConformance.*' > /dev/null || true
if [ ! -f "$BUILD/generated/onnx-conformance.md" ]; then
  echo "update-onnx-conformance: the test wrote no report; run $BUILD/tests/test_onnx --gtest_filter='OnnxConformance.*' to see why" >&2
  exit 1
fi
cp "$BUILD/generated/onnx-conformance.md" docs/onnx-conformance.md
grep -A8 '^| suite | tests' docs/onnx-conformance.md | sed -n '1,8p'
