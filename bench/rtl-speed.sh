#!/usr/bin/env bash
# Speed of the Verilated RTL (snowrtl) next to the simulator (snowsim): wall
# time, simulated cycles per second and peak memory, single-threaded, per
# model and hardware preset. Models run at SIZE x SIZE (default 64).
#   bench/rtl-speed.sh [--size N] [--hw PRESET]... [MODEL...]
#   (default: squeezenet1_1 resnet50 on mini64, zc706, big1024)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=build/bin
size=64
presets=()
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size=$2; shift 2 ;;
    --hw) presets+=("$2"); shift 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
[ ${#presets[@]} -gt 0 ] || presets=(mini64 zc706 big1024)
[ ${#models[@]} -gt 0 ] || models=(squeezenet1_1 resnet50)
[ -x $BIN/snowrtl ] || bash scripts/build.sh >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
printf "%-18s %-8s %-8s %12s %9s %12s %9s\n" model hw tool cycles seconds "cycles/s" "peak MB"
for m in "${models[@]}"; do
  sed "s/shape: \[3, 224, 224\]/shape: [3, $size, $size]/" "models/$m.yaml" > "$OUT/$m.yaml"
  for hw in "${presets[@]}"; do
    $BIN/snowc "$OUT/$m.yaml" --hw "$hw" -o "$OUT/$m.bin"
    for tool in snowsim snowrtl; do
      /usr/bin/time -f "%e %M" -o "$OUT/time" $BIN/$tool "$OUT/$m.bin" > "$OUT/stdout"
      read -r s kb < "$OUT/time"
      cycles=$(grep -oE '^cycles [0-9]+' "$OUT/stdout" | awk '{print $2}')
      rate=$(awk -v c="$cycles" -v s="$s" 'BEGIN { printf "%.0f", (s > 0 ? c / s : 0) }')
      printf "%-18s %-8s %-8s %12s %9s %12s %9d\n" "$m@$size" "$hw" "$tool" "$cycles" "$s" \
             "$rate" $((kb / 1024))
    done
  done
done
