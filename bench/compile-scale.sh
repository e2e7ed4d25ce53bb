#!/usr/bin/env bash
# Compile time against the number of layers (issue 19: 20,000 layers in
# under 2 s). Generates chains of N small 1x1 convolutions (8 channels, 8x8)
# and prints wall time, CPU time and peak memory of `snowc` on each; a
# linear compiler doubles its time when N doubles.
#   bench/compile-scale.sh [N...]   (default: 5000 10000 20000)
# SNOWC=path/to/snowc compares another build.
set -euo pipefail
cd "$(dirname "$0")/.."
SNOWC=${SNOWC:-build/bin/snowc}
[ -x "$SNOWC" ] || bash scripts/build.sh >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(5000 10000 20000)
echo "snowc on chains of N 1x1 convs, $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg)"
printf "%8s %9s %9s %9s\n" layers "wall s" "CPU s" "peak MB"
for n in "${sizes[@]}"; do
  {
    printf 'name: chain%s\ninput: {name: data, shape: [8, 8, 8]}\nweights: {seed: 1}\nlayers:\n' "$n"
    for ((i = 0; i < n; i++)); do
      printf '  - {name: c%d, type: conv, out_channels: 8, kernel: 1, relu: true}\n' "$i"
    done
  } > "$OUT/chain.yaml"
  /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$SNOWC" "$OUT/chain.yaml" -o "$OUT/chain.bin"
  read -r s u k kb < "$OUT/time"
  awk -v n="$n" -v s="$s" -v u="$u" -v k="$k" -v kb="$kb" \
    'BEGIN { printf "%8d %9.2f %9.2f %9d\n", n, s, u + k, kb / 1024 }'
done
