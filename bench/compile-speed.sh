#!/usr/bin/env bash
# Compiler speed and memory: wall time and peak memory (RSS) of `snowc` on
# real networks, the best of N runs (the machine may be shared: the best run
# is the one least disturbed), next to the goals of issue 14.
#   bench/compile-speed.sh [-n RUNS] [MODEL...]   (default: resnet50 vgg16, 3 runs)
# SNOWC=path/to/snowc compares another build (e.g. the one before a change).
# Also prints user + system CPU seconds: on a loaded machine wall time says
# more about the neighbours than about snowc, CPU time does not.
# Goals: ResNet-50 <= 0.5 s wall; VGG-16 <= 1 s wall and <= 500 MB peak.
set -euo pipefail
cd "$(dirname "$0")/.."
SNOWC=${SNOWC:-build/bin/snowc}
runs=3
if [ "${1:-}" = -n ]; then runs=$2; shift 2; fi
[ -x "$SNOWC" ] || bash scripts/build.sh >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(resnet50 vgg16)
goal() {
  case $1 in
  resnet50) echo "<= 0.5 s" ;;
  vgg16) echo "<= 1 s, <= 500 MB" ;;
  *) echo - ;;
  esac
}
echo "snowc, best of $runs runs, $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg)"
printf "%-14s %9s %9s %9s   %s\n" model "wall s" "CPU s" "peak MB" goal
for m in "${models[@]}"; do
  best=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$SNOWC" "models/$m.yaml" -o "$OUT/$m.bin"
    read -r s u k kb < "$OUT/time"
    line=$(awk -v s="$s" -v u="$u" -v k="$k" -v kb="$kb" \
      'BEGIN { printf "%.2f %.2f %d", s, u + k, kb / 1024 }')
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best=$line
    fi
  done
  read -r s cpu mb <<< "$best"
  printf "%-14s %9s %9s %9s   %s\n" "$m" "$s" "$cpu" "$mb" "$(goal "$m")"
done
