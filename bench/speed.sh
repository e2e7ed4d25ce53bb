#!/usr/bin/env bash
# Speed benchmark: compile, functional + cycle-accurate simulation, and
# timing-only simulation of real networks (the compiler's float calibration
# uses every core, the simulator one), with wall time, simulated cycles per
# second and peak memory (RSS) of each run.
#   bench/speed.sh [MODEL...]        (default: alexnet googlenet resnet50)
# Targets: ResNet-50 compile with the cost-model search <= 2 s (issue
# "compiler optimizations"; <= 1 s before that search), functional
# simulation <= 5 s, timing-only <= 0.5 s.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=build/bin
[ -x $BIN/snowsim ] || bash scripts/build.sh >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(alexnet googlenet resnet50)
printf "%-14s %-20s %9s %9s %14s %12s\n" model step seconds "peak MB" "sim cycles" "Mcycles/s"
for m in "${models[@]}"; do
  f=models/$m.yaml
  t() { /usr/bin/time -f "%e %M" -o "$OUT/time" "$@" > "$OUT/stdout"; read -r s kb < "$OUT/time"; }
  t $BIN/snowc "$f" -o "$OUT/$m.bin"
  printf "%-14s %-20s %9s %9d %14s %12s\n" "$m" compile "$s" $((kb / 1024)) - -
  for mode in functional timing-only; do
    args=(); [ $mode = timing-only ] && args=(--timing-only)
    t $BIN/snowsim "$OUT/$m.bin" "${args[@]}"
    cycles=$(grep -oE '^cycles [0-9]+' "$OUT/stdout" | awk '{print $2}')
    rate=$(awk -v c="$cycles" -v s="$s" 'BEGIN { printf "%.1f", (s > 0 ? c / s / 1e6 : 0) }')
    printf "%-14s %-20s %9s %9d %14s %12s\n" "$m" "simulate $mode" "$s" $((kb / 1024)) "$cycles" "$rate"
  done
done
