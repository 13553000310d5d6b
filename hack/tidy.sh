#!/usr/bin/env bash
# clang-tidy with the checks of .clang-tidy over the project's C++ sources, from the build's
# compile_commands.json (make build first). Exits non-zero on any warning, naming each.
#   hack/tidy.sh                  every .cc file of src/, cmd/, tests/ and bench/
#   hack/tidy.sh --changed        the .cc files changed since the commit in .ci/tidy-base (and the
#                                 .cc files beside a changed header): what .ci/run lints
#   hack/tidy.sh FILE...          those files
# BUILD_DIR (default build) and JOBS (default: the cores) as the Makefile's.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
command -v clang-tidy >/dev/null || { echo "tidy: clang-tidy is not installed (make deps)" >&2; exit 1; }
[ -f "$build/compile_commands.json" ] || { echo "tidy: no $build/compile_commands.json (make build first)" >&2; exit 1; }

files=()
if [ "${1:-}" = --changed ]; then
  base=$(tr -d '[:space:]' <.ci/tidy-base)
  git cat-file -e "$base^{commit}" 2>/dev/null || { echo "tidy: .ci/tidy-base names no commit of this clone: $base" >&2; exit 1; }
  while IFS= read -r path; do
    case $path in
      *.cc) [ -f "$path" ] && files+=("$path") ;;
      *.h) for cc in "$(dirname "$path")"/*.cc; do [ -f "$cc" ] && files+=("$cc"); done ;;
    esac
  done < <(git diff --name-only "$base" HEAD -- src cmd tests bench)
  echo "tidy: the .cc files changed since $(git log -1 --format='%h %s' "$base" | cut -c1-70)"
elif [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(find src cmd tests bench -name '*.cc' | sort)
fi
# Only the files the build compiles (a fuzz target outside this build, say, has no flags here).
mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u | python3 -c '
import json, os, sys
db = {os.path.realpath(e["file"]) for e in json.load(open(sys.argv[1]))}
for f in sys.stdin.read().split():
    if os.path.realpath(f) in db: print(f)' "$build/compile_commands.json")
if [ ${#files[@]} -eq 0 ]; then
  echo "tidy: no file to lint"
  exit 0
fi
echo "tidy: ${#files[@]} files, $jobs at a time"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -n 1 clang-tidy -p "$build" --quiet >"$log" 2>/dev/null || status=$?
if [ $status -ne 0 ] || grep -qE '(warning|error):' "$log"; then
  grep -E -A3 '(warning|error):' "$log" | head -n 120
  echo "tidy: $(grep -cE '(warning|error):' "$log") findings in ${#files[@]} files"
  exit 1
fi
echo "tidy: ${#files[@]} files clean"
