#!/usr/bin/env bash
# The CI tier: install what is missing, build, run every test (ctest).
# The long tier (full-size models) is scripts/long-tests.sh, on the RTL
# scripts/rtl-long-tests.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd build
ctest -j"$(nproc)" --output-on-failure --timeout 900 -LE long
