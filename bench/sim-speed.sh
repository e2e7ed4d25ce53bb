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

# best VAR CMD...: the least wall time and the least CPU time (user + system)
# of 3 runs of CMD, as "wall cpu" in VAR. On a busy machine the CPU time is
# the steadier figure; on an idle one they agree for the single-threaded runs.
best() {
  local var=$1 bw="" bc="" w c; shift
  for _ in 1 2 3; do
    { TIMEFORMAT='%3R %3U %3S'; time "$@" > /dev/null 2>&1; } 2> "$OUT/time"
    read -r w u s < "$OUT/time"
    c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
    bw=$(awk -v a="$w" -v b="$bw" 'BEGIN { print (b == "" || a < b) ? a : b }')
    bc=$(awk -v a="$c" -v b="$bc" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  printf -v "$var" "%s %s" "$bw" "$bc"
}
best loop "$BIN/snow-macloop" "$macs"
best func "$BIN/snowsim" "$OUT/prog.bin" --quiet
best timing "$BIN/snowsim" "$OUT/prog.bin" --quiet --timing-only

read -r loopw loopc <<< "$loop"
read -r funcw funcc <<< "$func"
read -r timw timc <<< "$timing"
awk -v m="$model" -v macs="$macs" -v lw="$loopw" -v lc="$loopc" -v fw="$funcw" -v fc="$funcc" \
    -v tw="$timw" -v tc="$timc" 'BEGIN {
  printf "%s: %.3f G MACs; scalar MAC loop %.3f s wall, %.3f s CPU (%.2f G MAC/s)\n", m, macs / 1e9,
         lw, lc, macs / lc / 1e9
  printf "%-30s %8s %8s %9s %9s %6s\n", "run", "wall s", "CPU s", "wall/loop", "CPU/loop", "goal"
  row("snowsim functional + cycles", fw, fc, 0.3)
  row("snowsim --timing-only", tw, tc, 0.03)
}
function row(name, w, c, goal) {
  printf "%-30s %8.3f %8.3f %9.4f %9.4f %6.2f  wall: %s, CPU: %s\n", name, w, c, w / lw, c / lc,
         goal, (w / lw <= goal ? "met" : "NOT met"), (c / lc <= goal ? "met" : "NOT met")
}'
