#!/usr/bin/env bash
# Times every input of every fuzz target's corpus (make fuzz-replay): the seeds in
# tests/fuzz/corpus/<t>/ plus what make fuzz grew in CORPUS_DIR/fuzz-corpus/<t>/, run through
# BIN_DIR/tests/fuzz/<t>_fuzz_replay (make fuzz-replay uses the Release build; a fuzz build's replays
# give the sanitized figures). Each input of up to 64 KB runs 5 times; its time is the median, in
# CPU time. Writes BIN_DIR/fuzz-replay.txt, one line per target with the input count, the mean
# and the slowest input, and fails if any input takes 10 ms or more.
#
#   tests/fuzz/replay.sh BIN_DIR CORPUS_DIR [TARGET...]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:?usage: replay.sh BIN_DIR CORPUS_DIR [TARGET...]}" && pwd)
CORPUS_BUILD=${2:?usage: replay.sh BIN_DIR CORPUS_DIR [TARGET...]}
shift 2
LIMIT_US=10000

TARGETS=()
while read -r name _; do
  [ -n "$name" ] && TARGETS+=("$name")
done <"$BUILD/fuzz-targets.txt"
[ $# -gt 0 ] && TARGETS=("$@")

OUT="$BUILD/fuzz-replay.txt"
printf '%-26s %8s %12s %10s %8s %s\n' target inputs mean_us slowest_us bytes slowest_input >"$OUT"
status=0
for t in "${TARGETS[@]}"; do
  dirs=()
  for d in "$ROOT/tests/fuzz/corpus/$t" "$CORPUS_BUILD/fuzz-corpus/$t"; do
    [ -d "$d" ] && dirs+=("$d")
  done
  [ ${#dirs[@]} -gt 0 ] || continue
  report=$("$BUILD/tests/fuzz/${t}_fuzz_replay" --repeat 5 --top 1 "${dirs[@]}" 2>/dev/null)
  inputs=$(sed -n 's/^inputs=\([0-9]*\).*/\1/p' <<<"$report")
  mean=$(sed -n 's/.*mean_us=\([0-9.]*\).*/\1/p' <<<"$report")
  slowest=$(sed -n 's/^slowest\[0\] us=\([0-9.]*\).*/\1/p' <<<"$report")
  bytes=$(sed -n 's/^slowest\[0\] .*bytes=\([0-9]*\).*/\1/p' <<<"$report")
  input=$(sed -n 's/^slowest\[0\] .*bytes=[0-9]* \(.*\)/\1/p' <<<"$report")
  printf '%-26s %8s %12s %10s %8s %s\n' "$t" "$inputs" "$mean" "$slowest" "$bytes" "${input#"$ROOT/"}" >>"$OUT"
  if [ -n "$slowest" ] && awk -v s="$slowest" -v l="$LIMIT_US" 'BEGIN { exit !(s >= l) }'; then
    echo "fuzz-replay: $t: an input takes ${slowest} us (limit ${LIMIT_US} us): $input" >&2
    status=1
  fi
done
cat "$OUT"
exit $status
