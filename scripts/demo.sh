#!/usr/bin/env bash
# The main job, from a fresh machine: install what is missing, build, compile
# the demo model and simulate it, printing the per-layer report.
#   scripts/demo.sh [MODEL.yaml] [--hw PRESET|FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
MODEL="${1:-models/tiny.yaml}"
shift || true
mkdir -p build/out
name="$(basename "$MODEL" .yaml)"
build/bin/snowc "$MODEL" -o "build/out/$name.bin" "$@"
build/bin/snowsim "build/out/$name.bin" --stats-json "build/out/$name.json" \
  --output "build/out/$name.npy"
echo "program: build/out/$name.bin  stats: build/out/$name.json  output: build/out/$name.npy"
