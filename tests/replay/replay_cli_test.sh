#!/usr/bin/env bash
# The replay command line: exit 0 with a replay, 2 with unusable input (naming file, line and
# column for traces), text and JSON output, --set / --compare, Prometheus input. Runs with the
# unit tests, so it uses nothing beyond bash, grep and awk.
set -euo pipefail
bin=$1
root=$2
cases=$root/tests/replay/cases
demo=$root/deploy/examples/demo.yaml
example=$root/deploy/examples/replay-trace.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# (Output goes to files: `grep -q` would close a pipe early and fail the writer under pipefail.)
# The first value of a JSON field in the (indented) -o json output.
field() { grep -m1 "\"$2\":" "$1" | sed 's/.*": *//; s/,$//; s/"//g'; }

"$bin" replay -f "$demo" --trace "$example" -o text >"$tmp/out.txt" || fail "a replay must exit 0"
grep -q "SuccessfulRescale: New size: " "$tmp/out.txt" || fail "text output lacks the rescales: $(cat "$tmp/out.txt")"
grep -q "^summary: 2 replicas at the start, peak " "$tmp/out.txt" || fail "text output lacks the summary"

# Not a terminal: JSON by default; two runs with --compare-set.
"$bin" replay -f "$demo" --trace "$example" --compare-set behavior.scaleDown.stabilizationWindowSeconds=60 \
  >"$tmp/out.json" || fail "compare must exit 0"
[ "$(grep -c '"label":' "$tmp/out.json")" = 2 ] || fail "compare must give two runs"
grep -q '"description": "behavior.scaleDown.stabilizationWindowSeconds=60"' "$tmp/out.json" ||
  fail "run b must say what differs"
grep -q '"stabilizationWindowSeconds": 60' "$tmp/out.json" || fail "run b must carry the override"
grep -q '^run b (behavior.scaleDown.stabilizationWindowSeconds=60) scale events:' <("$bin" replay -f "$demo" \
  --trace "$example" --compare-set behavior.scaleDown.stabilizationWindowSeconds=60 -o text) ||
  fail "text compare names run b"

# A second HPA file.
sed 's/maxReplicas: 10/maxReplicas: 4/' "$demo" >"$tmp/max4.yaml"
"$bin" replay -f "$demo" --trace "$example" --compare "$tmp/max4.yaml" -o text >"$tmp/file.txt" ||
  fail "--compare FILE must exit 0"
grep -q "^run b (.*max4.yaml) summary: 2 replicas at the start, peak 4," "$tmp/file.txt" ||
  fail "run b must stay within its maxReplicas 4: $(tail -3 "$tmp/file.txt")"

# A Prometheus export, one series per pod summed to a total, named on the command line.
"$bin" replay -f "$demo" --trace "cpu,total=$cases/prometheus-cpu.json" --horizontal-pod-autoscaler-sync-period 30s \
  -o json >"$tmp/prom.json" || fail "a Prometheus trace must replay"
[ "$(field "$tmp/prom.json" traceStart)" = "2026-01-01T00:00:00Z" ] || fail "absolute start"
grep -q '"valueMilli": 700' "$tmp/prom.json" || fail "the pods' series summed (0.35 + 0.35 cores at 120 s)"

# No cpu request anywhere: a clear error; --cpu-request supplies it.
cat >"$tmp/hpa-only.yaml" <<'YAML'
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: demo}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}
YAML
set +e
"$bin" replay -f "$tmp/hpa-only.yaml" --trace "$example" -o json >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 2 ] || fail "a missing request must exit 2, got $rc"
grep -q "needs the pods' cpu request" "$tmp/err" || fail "request error: $(cat "$tmp/err")"
"$bin" replay -f "$tmp/hpa-only.yaml" --trace "$example" --cpu-request 100m --replicas 3 -o json >"$tmp/flags.json" ||
  fail "--cpu-request must do"
[ "$(field "$tmp/flags.json" initialReplicas)" = 3 ] || fail "--replicas"

set +e
printf 'time,metric,kind,value\n0,cpu,total,1\n5s,cpu,total,lots\n' >"$tmp/bad.csv"
"$bin" replay -f "$demo" --trace "$tmp/bad.csv" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "a malformed trace must exit 2, got $rc"
grep -q "bad.csv:3:14: value: " "$tmp/err" || fail "trace error must name file, line and column: $(cat "$tmp/err")"
"$bin" replay -f "$demo" --trace "$tmp/missing.csv" 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "an unreadable trace must exit 2, got $rc"
"$bin" replay -f "$demo" --trace "$example" --set behavior.scaleUp.selectPolicy=Fast 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "a bad --set must exit 2, got $rc"
grep -q "must be Max, Min or Disabled" "$tmp/err" || fail "--set error: $(cat "$tmp/err")"
"$bin" replay -f "$demo" 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "missing --trace must exit 2, got $rc"
echo "replay CLI: ok"
