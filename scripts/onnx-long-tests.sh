#!/usr/bin/env bash
# The long tier of the ONNX front end: each network of the zoo at full size
# (224x224) exported as ONNX with snowc --export-onnx, compiled from the .onnx
# and from the .yaml, and the two prog.bin compared byte for byte. The CI tier
# (tests/onnx/RoundTripTest.cpp) does the same in process at 64x64. Takes a
# few minutes on 2 cores and about 2 GB of memory (VGG-16's weights, whose
# ONNX file alone is 553 MB); the files go to a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/long-tier.sh
for m in "${NETWORKS[@]}"; do
  # Its exported shuffles and slices (Reshape, Transpose, Reshape; Slice)
  # import folded the importer's way, not canonicalize()'s: the same
  # function, not the same program (docs/onnx.md, "Exporting the YAML models").
  [ "$m" = shufflenet_v2_x1_0 ] && continue
  build/bin/snowc "models/$m.yaml" --export-onnx "$OUT/$m.onnx"
  build/bin/snowc "$OUT/$m.onnx" -o "$OUT/$m.onnx.bin"
  build/bin/snowc "models/$m.yaml" -o "$OUT/$m.yaml.bin"
  if cmp -s "$OUT/$m.onnx.bin" "$OUT/$m.yaml.bin"; then
    echo "$m: the ONNX and YAML programs are identical ($(stat -c %s "$OUT/$m.yaml.bin") bytes)"
  else
    echo "$m: the ONNX and YAML programs DIFFER"; status=1
  fi
  rm -f "$OUT/$m.onnx" "$OUT"/*.bin
done
exit $status
