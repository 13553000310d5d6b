#!/usr/bin/env bash
# Fails when a C++ file of src/, cmd/, tests/ or bench/ is not as clang-format (.clang-format at
# the root) writes it, naming the files and the first differences. `hack/check-format.sh --fix`
# formats them in place.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed (make deps)" >&2; exit 1; }
mapfile -t files < <(find src cmd tests bench -type f \( -name '*.cc' -o -name '*.h' \) | sort)
[ ${#files[@]} -gt 0 ] || { echo "check-format: no C++ files found under $root" >&2; exit 1; }
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! out=$(clang-format --dry-run --Werror "${files[@]}" 2>&1); then
  echo "check-format: these files differ from clang-format's output (hack/check-format.sh --fix formats them):"
  grep -oE '^[^:]+\.(cc|h)' <<<"$out" | sort -u | sed 's/^/  /'
  echo "the first differences:"
  head -n 30 <<<"$out"
  exit 1
fi
echo "check-format: ${#files[@]} files as clang-format writes them"
