#!/usr/bin/env bash
# Fails, naming the files, if any tracked (or new, unignored) C++ file is not
# clang-format clean under the root .clang-format. Used by the ctest
# Style.ClangFormat; fix with: clang-format -i FILE...
#   scripts/check-format.sh [CLANG_FORMAT]
set -euo pipefail
cd "$(dirname "$0")/.."
CF=${1:-clang-format}
# One clang-format process for all files (one per file costs a minute on a
# loaded 2-core machine); its warnings name each file that would change.
out=$(git ls-files -z --cached --others --exclude-standard -- '*.cpp' '*.h' 2>/dev/null |
      xargs -0 -r "$CF" --dry-run 2>&1 || true)
bad=$(printf '%s\n' "$out" | grep -oE '^[^:]+\.(cpp|h):[0-9]+:[0-9]+: (warning|error)' |
      cut -d: -f1 | sort -u || true)
if [ -n "$bad" ]; then
  echo "not clang-format clean (run: clang-format -i FILE):"
  printf '  %s\n' $bad
  exit 1
fi
echo "clang-format: every C++ file is clean"
