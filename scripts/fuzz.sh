#!/usr/bin/env bash
# Fuzzing (long tier, by hand): builds tests/fuzz's targets with clang's
# libFuzzer + ASan + UBSan into build-fuzz/, then runs each for SECONDS
# (default 600) on a scratch copy of its seed corpus. Inputs that crash,
# leak or time out are copied into tests/fuzz/regressions/TARGET/, which the
# normal tests replay (ctest -R Fuzz.Replay): fix the bug, keep the file.
#   scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: ModelYaml Onnx Asm Program)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(ModelYaml Onnx Asm Program)
bash scripts/install-deps.sh
command -v clang++-14 >/dev/null || apt-get install -y -qq clang-14
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSNOW_FUZZ=ON -DSNOW_RTL_CONFIGS=
fi
cmake --build build-fuzz -j"$(nproc)" --target $(printf 'fuzz-%s ' "${targets[@]}")
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
status=0
for t in "${targets[@]}"; do
  work=$(mktemp -d)
  cp -r "tests/fuzz/corpus/$t/." "$work/"
  rm -rf "build-fuzz/findings/$t" # only this run's findings are copied
  mkdir -p "build-fuzz/findings/$t"
  echo "== $t: ${secs} s"
  # -rss_limit_mb: an input that makes a tool eat memory is a finding too.
  if ! build-fuzz/bin/fuzz-"$t" "$work" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -artifact_prefix="build-fuzz/findings/$t/" -print_final_stats=1 2>&1 |
      tail -25; then
    status=1
  fi
  for f in build-fuzz/findings/"$t"/*; do
    [ -f "$f" ] || continue
    cp "$f" "tests/fuzz/regressions/$t/"
    echo "finding: tests/fuzz/regressions/$t/$(basename "$f")"
    status=1
  done
  rm -rf "$work"
done
exit $status
