#!/usr/bin/env bash
# Fails, naming the files, if any tracked (or new, unignored) C++ file is not
# clang-format clean under the root .clang-format. Used by the ctest
# Style.ClangFormat; fix with: clang-format -i FILE...
#   scripts/check-format.sh [CLANG_FORMAT]
set -euo pipefail
cd "$(dirname "$0")/.."
CF=${1:-clang-format}
bad=()
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  if ! "$CF" --dry-run -Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done < <(git ls-files -z --cached --others --exclude-standard -- '*.cpp' '*.h' 2>/dev/null)
if [ ${#bad[@]} -gt 0 ]; then
  echo "not clang-format clean (run: clang-format -i ${bad[*]}):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "clang-format: every C++ file is clean"
