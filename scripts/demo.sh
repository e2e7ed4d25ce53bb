#!/usr/bin/env bash
# The main job, from a fresh machine: install what is missing, build, compile
# ResNet-50 (or the model given) and simulate it, printing the per-layer report.
#   scripts/demo.sh [MODEL.yaml] [--hw PRESET|FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
MODEL="${1:-models/resnet50.yaml}"
shift || true
mkdir -p build/out
name="$(basename "$MODEL" .yaml)"
build/bin/snowc "$MODEL" -o "build/out/$name.bin" "$@"
build/bin/snowsim "build/out/$name.bin" --stats-json "build/out/$name.json" \
  --output "build/out/$name.npy"
echo "program: build/out/$name.bin  stats: build/out/$name.json  output: build/out/$name.npy"
