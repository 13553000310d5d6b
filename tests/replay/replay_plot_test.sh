#!/usr/bin/env bash
# replay --plot writes a PNG with gnuplot, for one run and for two side by side; its script goes
# to $TMPDIR.
set -euo pipefail
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

"$bin" replay -f "$root/deploy/examples/demo.yaml" --trace "$root/tests/replay/demo-trajectory.csv" \
  --horizontal-pod-autoscaler-sync-period 5s --horizontal-pod-autoscaler-downscale-stabilization 30s \
  --readiness-delay 3s -o json --plot "$tmp/demo replay.png" >/dev/null || fail "replay --plot must exit 0"
png "$tmp/demo replay.png" || fail "no PNG written"

"$bin" replay -f "$root/deploy/examples/demo.yaml" --trace "$root/deploy/examples/replay-trace.csv" \
  --compare-set behavior.scaleDown.stabilizationWindowSeconds=60 -o json --plot "$tmp/compare.png" >/dev/null ||
  fail "compare --plot must exit 0"
png "$tmp/compare.png" || fail "no PNG written for the comparison"

set +e
"$bin" replay -f "$root/deploy/examples/demo.yaml" --trace "$root/deploy/examples/replay-trace.csv" -o json \
  --plot "$tmp/no/such/dir/x.png" >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 1 ] || fail "an unwritable plot must exit 1, got $rc"
grep -q "\-\-plot" "$tmp/err" || fail "the error names --plot: $(cat "$tmp/err")"

mkdir "$tmp/scratch"
TMPDIR=$tmp/scratch "$bin" replay -f "$root/deploy/examples/demo.yaml" \
  --trace "$root/deploy/examples/replay-trace.csv" -o json --plot "$tmp/scratch.png" >/dev/null ||
  fail "replay --plot with TMPDIR set must exit 0"
png "$tmp/scratch.png" || fail "no PNG written with TMPDIR set"
[ -z "$(ls -A "$tmp/scratch")" ] || fail "the gnuplot script must not be left in TMPDIR: $(ls "$tmp/scratch")"
set +e
TMPDIR=$tmp/missing "$bin" replay -f "$root/deploy/examples/demo.yaml" \
  --trace "$root/deploy/examples/replay-trace.csv" -o json --plot "$tmp/missing.png" >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 1 ] || fail "an unusable TMPDIR must exit 1, got $rc"
grep -q "temporary file in $tmp/missing" "$tmp/err" || fail "the script goes to TMPDIR: $(cat "$tmp/err")"
echo "replay --plot: ok"
