#!/usr/bin/env bash
# The long tier of snowc --tune: every network of the zoo at full size
# (224x224, --uniform-format) tuned on zc706, the tuned program run
# functionally and compared with the reference executor bit for bit, and
# with --rtl the tuned programs also on the Verilated RTL (cycles, stats
# and output identical to the simulator's). Prints each network's cycles
# before -> after and the search's time. About 8 minutes on 2 cores, the
# RTL 2 more.
#   scripts/tune-long-tests.sh [--rtl] [MODEL...]
set -euo pipefail
cd "$(dirname "$0")/.."
rtl=0
models=()
for a in "$@"; do
  case "$a" in
    --rtl) rtl=1 ;;
    *) models+=("$a") ;;
  esac
done
source scripts/long-tier.sh
[ ${#models[@]} -gt 0 ] || models=("${NETWORKS[@]}")
if [ $rtl = 1 ] && [ ! -x build/bin/snowrtl ]; then
  echo "snowrtl is not built (Verilator missing)" >&2
  exit 1
fi
for m in "${models[@]}"; do
  build/bin/snowc "models/$m.yaml" --uniform-format --tune -o "$OUT/$m.bin" 2> "$OUT/$m.log"
  build/bin/snowsim "$OUT/$m.bin" --output "$OUT/$m.sim.npy" --quiet --stats-json "$OUT/$m.json"
  build/bin/snowref "models/$m.yaml" --uniform-format --output "$OUT/$m.ref.npy" > /dev/null
  tuned=$(grep 'cycles (' "$OUT/$m.log" | sed 's/^snowc: tune: //')
  if ! cmp -s "$OUT/$m.sim.npy" "$OUT/$m.ref.npy"; then
    echo "$m: MISMATCH against snowref ($tuned)"; status=1; continue
  fi
  line="$m: bit-exact; $tuned"
  if [ $rtl = 1 ]; then
    build/bin/snowrtl "$OUT/$m.bin" --quiet --output "$OUT/$m.rtl.npy" \
      --stats-json "$OUT/$m.rtl.json" --max-seconds 0
    if cmp -s "$OUT/$m.json" "$OUT/$m.rtl.json" && cmp -s "$OUT/$m.sim.npy" "$OUT/$m.rtl.npy"; then
      line="$line; RTL = simulator"
    else
      line="$line; RTL MISMATCH"; status=1
    fi
  fi
  echo "$line"
done
exit $status
