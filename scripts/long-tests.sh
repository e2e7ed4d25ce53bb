#!/usr/bin/env bash
# The long tier: every network of the zoo at full size (224x224), compiled, simulated
# (functional + cycle-accurate) and compared with the reference executor bit
# for bit, plus the timing-only cycle count. Takes a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/long-tier.sh
for m in "${NETWORKS[@]}"; do
  build/bin/snowc "models/$m.yaml" -o "$OUT/$m.bin"
  build/bin/snowsim "$OUT/$m.bin" --output "$OUT/$m.sim.npy" --quiet --stats-json "$OUT/$m.json"
  build/bin/snowref "models/$m.yaml" --output "$OUT/$m.ref.npy" > "$OUT/$m.ref.txt"
  t=$(build/bin/snowsim "$OUT/$m.bin" --timing-only | grep -oE '^cycles [0-9]+')
  f=$(python3 -c "import json; d=json.load(open('$OUT/$m.json'))['total']; print(d['cycles'], '%.2f' % (100*d['utilization']))")
  if cmp -s "$OUT/$m.sim.npy" "$OUT/$m.ref.npy" && [ "cycles ${f%% *}" = "$t" ]; then
    echo "$m: bit-exact; cycles and utilization % $f; timing-only agrees"
  else
    echo "$m: MISMATCH"; status=1
  fi
done
exit $status
