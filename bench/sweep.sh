#!/usr/bin/env bash
# Sweep benchmark: 3 real networks x 32 hardware configurations, compiled and
# simulated (timing only) by one snowsweep process on every core, into a fresh
# output directory; prints the wall time. Target (issue "design-space
# exploration"): <= 60 s on the 2-core build machine.
#   bench/sweep.sh [BUILD_DIR]      (default: build)
# The 32 points: clusters x vmacs_per_cu x lanes_per_vmac (MAC counts 256 to
# 2048) x DRAM 4.2 / 12.8 GB/s x maps buffer 128 / 256 KiB, with an on-chip
# budget large enough for all of them.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/bin
[ -x "$BIN/snowsweep" ] || bash scripts/build.sh >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
start=$(date +%s.%N)
"$BIN/snowsweep" models/alexnet.yaml models/googlenet.yaml models/resnet50.yaml \
  --set clusters=1,2 --set vmacs_per_cu=4,8 --set lanes_per_vmac=16,32 \
  --set dram_gbps=4.2,12.8 --set maps_buffer_kib=128,256 --set onchip_budget_kib=16384 \
  --out "$OUT/sweep" --quiet
end=$(date +%s.%N)
rows=$(($(wc -l < "$OUT/sweep/results.csv") - 1))
ok=$(grep -c ',ok,' "$OUT/sweep/results.csv" || true)
awk -v s="$start" -v e="$end" -v r="$rows" -v ok="$ok" -v cpus="$(nproc)" 'BEGIN {
  printf "3 models x 32 configurations: %d rows (%d ok) in %.1f s wall on %d CPUs (%.2f s per point)\n",
         r, ok, e - s, cpus, (e - s) / r }'
