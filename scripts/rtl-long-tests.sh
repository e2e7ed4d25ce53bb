#!/usr/bin/env bash
# The RTL's long tier: full-size networks (default AlexNet and ResNet-50 at
# 224x224 on zc706) run on the Verilated RTL (snowrtl) and on the simulator
# (snowsim); the total cycles, the whole --stats-json (every per-layer and
# unit counter) and the output tensor must be identical. ResNet-50 is about
# 17 M cycles: a few minutes on the RTL.
#   scripts/rtl-long-tests.sh [MODEL...] [--hw PRESET]
set -euo pipefail
cd "$(dirname "$0")/.."
hw=zc706
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --hw) hw=$2; shift 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
[ ${#models[@]} -gt 0 ] || models=(alexnet resnet50)
source scripts/long-tier.sh
if [ ! -x build/bin/snowrtl ]; then
  echo "snowrtl is not built (Verilator missing, or $hw not in SNOW_RTL_CONFIGS)" >&2
  exit 1
fi
for m in "${models[@]}"; do
  build/bin/snowc "models/$m.yaml" --hw "$hw" -o "$OUT/$m.bin"
  build/bin/snowsim "$OUT/$m.bin" --quiet --output "$OUT/$m.sim.npy" --stats-json "$OUT/$m.sim.json"
  start=$(date +%s.%N)
  build/bin/snowrtl "$OUT/$m.bin" --quiet --output "$OUT/$m.rtl.npy" --stats-json "$OUT/$m.rtl.json"
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  read -r sc sb < <(python3 -c "import json; t=json.load(open('$OUT/$m.sim.json'))['total']; print(t['cycles'], t['dram_read_bytes'] + t['dram_write_bytes'])")
  read -r rc rb < <(python3 -c "import json; t=json.load(open('$OUT/$m.rtl.json'))['total']; print(t['cycles'], t['dram_read_bytes'] + t['dram_write_bytes'])")
  if [ "$sc" = "$rc" ] && [ "$sb" = "$rb" ] && cmp -s "$OUT/$m.sim.json" "$OUT/$m.rtl.json" &&
     cmp -s "$OUT/$m.sim.npy" "$OUT/$m.rtl.npy"; then
    echo "$m on $hw: RTL = simulator: $rc cycles, $rb DRAM bytes, stats and output identical (RTL $secs s)"
  else
    echo "$m on $hw: MISMATCH: simulator $sc cycles / $sb bytes, RTL $rc cycles / $rb bytes"
    diff "$OUT/$m.sim.json" "$OUT/$m.rtl.json" | head -20 || true
    cmp "$OUT/$m.sim.npy" "$OUT/$m.rtl.npy" || true
    status=1
  fi
done
exit $status
