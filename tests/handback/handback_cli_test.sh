#!/usr/bin/env bash
# The handback command line: the table, JSON and cleanup commands from a snapshot, its exit codes,
# and `kubectl-hpa handback` answering as `hpa-controller handback`.
set -euo pipefail
bin=$1
cases=$2
snapshot=$cases/annotated-hpas.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# (Output goes to files: `grep -q` would close a pipe early and fail the writer under pipefail.)
"$bin" handback -f "$snapshot" -o text >"$tmp/out.txt" || fail "handback must exit 0"
web_line='^shop +web +kube-controller-manager at 2026-11-23T10:00:05Z +history +paused: kube-controller-manager scales it again; schedule: its floors and ceilings no longer apply$'
grep -Eq "$web_line" "$tmp/out.txt" || fail "the table's line of shop/web: $(cat "$tmp/out.txt")"
grep -q "^batch" "$tmp/out.txt" && fail "an HPA without hpa-controller.io/ annotations is listed: $(cat "$tmp/out.txt")"
[ "$(tail -n 1 "$tmp/out.txt")" = "2 HPAs with controls that stop applying, 1 with bookkeeping only" ] ||
  fail "the summary: $(tail -n 1 "$tmp/out.txt")"

"$bin" handback -f "$snapshot" -o json >"$tmp/out.json" || fail "handback -o json must exit 0"
python3 - "$tmp/out.json" <<'PY' || fail "json output: $(cat "$tmp/out.json")"
import json, sys
report = json.load(open(sys.argv[1]))
assert [(h["namespace"], h["name"]) for h in report["hpas"]] == [("shop", "web"), ("shop", "worker"), ("tools", "api")]
assert report["withControlsThatStopApplying"] == 2 and report["withBookkeepingOnly"] == 1
paused = [a for a in report["hpas"][0]["annotations"] if a["annotation"] == "hpa-controller.io/paused"]
assert paused == [{"annotation": "hpa-controller.io/paused", "kind": "control",
                   "whenHandedBack": "kube-controller-manager scales it again"}], paused
PY

# Not a terminal: JSON by default, as explain.
"$bin" handback -f - <"$snapshot" >"$tmp/stdin.json" || fail "stdin must be accepted"
cmp -s "$tmp/stdin.json" "$tmp/out.json" || fail "the default output off a terminal must be the JSON"

"$bin" handback -f "$snapshot" --cleanup-commands >"$tmp/cleanup.sh" || fail "--cleanup-commands must exit 0"
cat >"$tmp/expected.sh" <<'SH'
kubectl annotate hpa -n shop web hpa-controller.io/history- hpa-controller.io/paused- hpa-controller.io/schedule-
kubectl annotate hpa -n shop worker hpa-controller.io/history- hpa-controller.io/last-decision- hpa-controller.io/record-decision-
kubectl annotate hpa -n tools api hpa-controller.io/fallback- hpa-controller.io/pasued- hpa-controller.io/pod-selection- hpa-controller.io/record-decision- hpa-controller.io/requests-source- hpa-controller.io/sync-period-
SH
diff -u "$tmp/expected.sh" "$tmp/cleanup.sh" || fail "the cleanup commands differ (above)"

"$bin" handback -f "$snapshot" -n tools -o text >"$tmp/tools.txt" || fail "-n with -f must exit 0"
grep -q "^shop" "$tmp/tools.txt" && fail "-n tools must leave shop out: $(cat "$tmp/tools.txt")"
[ "$(tail -n 1 "$tmp/tools.txt")" = "1 HPA with controls that stop applying, 0 with bookkeeping only" ] ||
  fail "the summary of -n tools: $(tail -n 1 "$tmp/tools.txt")"

set +e
"$bin" handback -n shop -A 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "-n with -A must exit 2, got $rc"
"$bin" handback -f "$snapshot" --cleanup-commands -o json 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "--cleanup-commands with -o must exit 2, got $rc"
"$bin" handback -f "$snapshot" --context prod 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "-f with --context must exit 2, got $rc"
"$bin" handback -f "$tmp/missing.yaml" 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "an unreadable file must exit 2, got $rc"
printf 'apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n' >"$tmp/kubeconfig"
"$bin" handback --kubeconfig "$tmp/kubeconfig" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "an unreachable cluster must exit 1, got $rc: $(cat "$tmp/err")"
set -e

# The kubectl plugin is the same binary under the name kubectl reads.
plugin=$(dirname "$bin")/kubectl-hpa
[ -x "$plugin" ] || fail "the build must produce kubectl-hpa next to hpa-controller"
"$plugin" handback -f "$snapshot" -o text >"$tmp/plugin.txt" || fail "kubectl-hpa handback must work"
cmp -s "$tmp/plugin.txt" "$tmp/out.txt" || fail "kubectl-hpa handback must answer as hpa-controller handback"
"$plugin" handback -f "$snapshot" --cleanup-commands >"$tmp/plugin.sh" || fail "kubectl-hpa handback --cleanup-commands"
cmp -s "$tmp/plugin.sh" "$tmp/cleanup.sh" || fail "kubectl-hpa handback --cleanup-commands must answer the same"
"$plugin" --help >"$tmp/help" || fail "kubectl-hpa --help"
grep -q "handback" "$tmp/help" || fail "the plugin's help must list handback"
echo "handback CLI: ok"
