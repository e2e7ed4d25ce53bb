#!/usr/bin/env bash
# The long tier: all six networks at full size (224x224), compiled, simulated
# (functional + cycle-accurate) and compared with the reference executor bit
# for bit, plus the timing-only cycle count. Takes a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh > /dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
status=0
for m in alexnet googlenet resnet50 vgg16 mobilenet_v1 squeezenet1_1; do
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
