#!/usr/bin/env bash
# Simulator speed against a yardstick: the time of snowsim (whole process:
# load, run, report) on a network, divided by the time of a plain scalar
# int16 x int16 -> int64 MAC loop (build/bin/snow-macloop, bench/MacLoop.cpp)
# doing as many MACs as the network has. The ratio travels between machines
# better than seconds do. Each figure is the best of 3 runs (the machine may
# be shared; the minimum is the least disturbed run).
#   bench/sim-speed.sh [--bin DIR] [--hw PRESET] [MODEL]   (default resnet50)
# Goals (issue 14): functional + cycle simulation <= 0.3x the MAC loop,
# timing-only <= 0.03x.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=build/bin
hw=()
model=resnet50
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN=$2; shift 2 ;;
    --hw) hw=(--hw "$2"); shift 2 ;;
    *) model=$1; shift ;;
  esac
done
for t in snowc snowsim snow-macloop; do
  [ -x "$BIN/$t" ] || { echo "sim-speed.sh: '$BIN/$t' not built (cmake --build build)" >&2; exit 1; }
done
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

"$BIN/snowc" "models/$model.yaml" "${hw[@]}" -o "$OUT/prog.bin" > /dev/null
"$BIN/snowsim" "$OUT/prog.bin" --timing-only --quiet --stats-json "$OUT/stats.json"
macs=$(jq '.total.macs' "$OUT/stats.json")

# best SECONDS-VAR CMD...: the least wall time of 3 runs of CMD.
best() {
  local var=$1 b="" s e; shift
  for _ in 1 2 3; do
    s=$(date +%s.%N)
    "$@" > /dev/null
    e=$(date +%s.%N)
    b=$(awk -v s="$s" -v e="$e" -v b="$b" 'BEGIN { d = e - s; print (b == "" || d < b) ? d : b }')
  done
  printf -v "$var" "%s" "$b"
}
best loop "$BIN/snow-macloop" "$macs"
best func "$BIN/snowsim" "$OUT/prog.bin" --quiet
best timing "$BIN/snowsim" "$OUT/prog.bin" --quiet --timing-only

awk -v m="$model" -v macs="$macs" -v l="$loop" -v f="$func" -v t="$timing" 'BEGIN {
  printf "%s: %.3f G MACs; scalar MAC loop %.3f s (%.2f G MAC/s)\n", m, macs / 1e9, l, macs / l / 1e9
  printf "%-32s %8s %10s %6s %s\n", "run", "seconds", "x loop", "goal", ""
  printf "%-32s %8.3f %10.3f %6.2f %s\n", "snowsim functional + cycles", f, f / l, 0.3, (f / l <= 0.3 ? "met" : "NOT met")
  printf "%-32s %8.3f %10.4f %6.2f %s\n", "snowsim --timing-only", t, t / l, 0.03, (t / l <= 0.03 ? "met" : "NOT met")
}'
