#!/usr/bin/env bash
# hpa-controller replay with the HPA read from a cluster (--hpa ns/name, no -f): the HPA through
# the served autoscaling version and its Deployment (replicas, requests) through GETs only, then
# the same replay as from the files. About 10 s.
set -euo pipefail
BIN=$1
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLUSTER_DIR=${HPA_E2E_DIR:?set HPA_E2E_DIR}
# shellcheck source=/dev/null
source "$CLUSTER_DIR/env"
K=("$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG")
NS=replay-$(date +%s)-$$
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hpa-e2e-replay.XXXXXX")
cleanup() {
  "${K[@]}" delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

sed "s/namespace: demo/namespace: $NS/; s/name: demo}/name: $NS}/" "$REPO_DIR/deploy/examples/demo.yaml" \
  >"$WORK/objects.yaml"
"${K[@]}" apply -f "$WORK/objects.yaml" >/dev/null
TRACE=$REPO_DIR/deploy/examples/replay-trace.csv

"$BIN" replay --hpa "$NS/web" --kubeconfig "$ADMIN_KUBECONFIG" --trace "$TRACE" -o json >"$WORK/live.json" ||
  fail "a live replay must exit 0"
sed "s/$NS/demo/g" "$WORK/live.json" >"$WORK/live-as-demo.json"
"$BIN" replay -f "$REPO_DIR/deploy/examples/demo.yaml" --trace "$TRACE" -o json >"$WORK/file.json"
cmp -s "$WORK/live-as-demo.json" "$WORK/file.json" ||
  fail "the live replay differs from the file replay: $(diff "$WORK/live-as-demo.json" "$WORK/file.json" | head -20)"
grep -q "\"hpa\": \"$NS/web\"" "$WORK/live.json" || fail "the live replay names the HPA"

# Nothing was written: the Deployment keeps its 2 replicas, the HPA has no status from us.
[ "$("${K[@]}" -n "$NS" get deploy web -o jsonpath='{.spec.replicas}')" = 2 ] || fail "the Deployment was changed"

set +e
"$BIN" replay --hpa "$NS/nothing" --kubeconfig "$ADMIN_KUBECONFIG" --trace "$TRACE" 2>"$WORK/err"; rc=$?
set -e
[ $rc -eq 2 ] || fail "a missing HPA must exit 2, got $rc"
grep -q "horizontalpodautoscalers/nothing" "$WORK/err" || fail "the error names the GET: $(cat "$WORK/err")"
echo "replay live: ok"
