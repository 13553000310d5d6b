#!/usr/bin/env bash
# The explain command line: exit 0 with a decision, 2 with unusable input, JSON and text output.
set -euo pipefail
bin=$1
cases=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" explain -f "$cases/cpu-scale-up.yaml" --now 2026-11-23T10:00:00Z -o json >"$tmp/out.json" ||
  fail "decision must exit 0"
grep -q '"desiredReplicas": 8' "$tmp/out.json" || fail "json output lacks desiredReplicas 8"

# Not a terminal: JSON by default. Stdin works.
# (Output goes to files: `grep -q` would close a pipe early and fail the writer under pipefail.)
"$bin" explain -f - --now 2026-11-23T10:00:00Z <"$cases/cpu-scale-up.yaml" >"$tmp/stdin.json" ||
  fail "stdin must be accepted"
grep -q '"rescale": true' "$tmp/stdin.json" || fail "stdin / default json"

"$bin" explain -f "$cases/cpu-scale-up.yaml" --now 2026-11-23T10:00:00Z -o text >"$tmp/out.txt" || fail "text exit"
grep -q "from 4 to 8 replicas" "$tmp/out.txt" || fail "text output"

# A failing target is still an answer.
"$bin" explain -f "$cases/no-scale-target.yaml" --now 2026-11-23T10:00:00Z -o json >/dev/null ||
  fail "FailedGetScale must exit 0"

set +e
printf 'apiVersion: v1\nkind: [Pod\n' >"$tmp/bad.yaml"
"$bin" explain -f "$tmp/bad.yaml" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "malformed YAML must exit 2, got $rc"
grep -q "bad.yaml" "$tmp/err" || fail "error must name the file: $(cat "$tmp/err")"
"$bin" explain -f "$tmp/missing.yaml" 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "unreadable file must exit 2, got $rc"
"$bin" explain -f "$cases/cpu-scale-up.yaml" --now yesterday 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "bad --now must exit 2, got $rc"
"$bin" explain -f "$cases/cpu-scale-up.yaml" --horizontal-pod-autoscaler-downscale-stabilization=5 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "bad duration must exit 2, got $rc"
"$bin" explain 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "missing -f must exit 2, got $rc"
echo "explain CLI: ok"
