#!/usr/bin/env bash
# The sanitizer tier: builds everything but the Verilated RTL with
# AddressSanitizer + UndefinedBehaviorSanitizer into build-sanitize/ and runs
# the unit and end-to-end tests (bad inputs included) there; any finding
# fails the test that hit it. Too slow for CI on 2 cores (the simulator runs
# several times slower under ASan): part of the long tier, run by hand.
#   scripts/sanitize-tests.sh [ctest arguments, e.g. -R Snowc]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
if [ ! -f build-sanitize/build.ninja ]; then
  cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Release -DSNOW_SANITIZE=ON \
    -DSNOW_RTL_CONFIGS=
fi
cmake --build build-sanitize -j"$(nproc)"
cd build-sanitize
# Leaks are reported but do not fail: the tools exit through llvm's error
# paths with static option objects still alive.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest -j"$(nproc)" --output-on-failure --timeout 1800 -L 'unit|e2e' -LE long "$@"
