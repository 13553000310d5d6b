#!/usr/bin/env bash
# Live explain on the local control plane with hpa-sim, run as the kubectl plugin by the
# read-only ServiceAccount of deploy/explain-rbac.yaml: for a CPU HPA, an External metric HPA
# without selector (two series) and an HPA whose target is missing, the decision it prints is
# the one the daemon then writes; it writes nothing itself; --save replays offline to the same
# decision document.
#
#   explain_live_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
# shellcheck source=tests/e2e/lib/e2e.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/e2e.sh"
CONTROLLER=$1
SIM=$2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${HPA_E2E_DIR:?HPA_E2E_DIR must point at a running local cluster}"
# shellcheck disable=SC1091
source "$HPA_E2E_DIR/env"
K=("$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG")
# shellcheck source=hack/lib/metrics-ready.sh
source "$ROOT/hack/lib/metrics-ready.sh"
NS=explain-e2e-$$
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  local code=$?
  stop_pids
  if [ $code -ne 0 ]; then
    for f in "$WORK"/*.log "$WORK"/*.err; do [ -f "$f" ] && { echo "== $f"; tail -25 "$f"; }; done
  fi
  "${K[@]}" delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
  rm -rf "$WORK"
  exit $code
}
trap cleanup EXIT
hpa_json() { "${K[@]}" get --raw "/apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers/$1"; }

# --- the read-only role, and a kubeconfig for its ServiceAccount's token
"${K[@]}" apply -f "$ROOT/deploy/base/namespace.yaml" -f "$ROOT/deploy/explain-rbac.yaml" >/dev/null
SA=system:serviceaccount:hpa-controller:hpa-explain
for verb in "update horizontalpodautoscalers/status" "patch horizontalpodautoscalers/status" \
            "patch horizontalpodautoscalers" "update deployments/scale" "create events"; do
  [ "$("${K[@]}" auth can-i $verb -n default --as "$SA" || true)" = "no" ] || fail "the explain role may $verb"
done
pass "the explain role cannot write"
sa_kubeconfig hpa-controller hpa-explain "$WORK/explain.kubeconfig"

# --- web: cpu 160m over 2 pods of 100m requests (80 % for a 50 % target) -> 4
#     worker: queue_depth without selector, series 30 + 20 over AverageValue 20 -> 3
#     ghost: its Deployment does not exist
"${K[@]}" create namespace "$NS" >/dev/null
wait_for 30 "default ServiceAccount in $NS" "${K[@]}" get sa default -n "$NS"
"${K[@]}" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: $NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: example/web, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: $NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 8
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker, namespace: $NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec: {containers: [{name: app, image: example/worker}]}
---
apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata: {name: worker, namespace: $NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
  minReplicas: 1
  maxReplicas: 10
  metrics:
  - type: External
    external:
      metric: {name: queue_depth}
      target: {type: AverageValue, averageValue: "20"}
---
apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata: {name: ghost, namespace: $NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: ghost}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
YAML
cat >"$WORK/scenario.yaml" <<YAML
workloads:
- {name: web, namespace: $NS, selector: app=web, cpu: 160m}
- {name: worker, namespace: $NS, selector: app=worker, cpu: 10m}
externalMetrics:
- {namespace: $NS, metric: queue_depth, labels: {queue: a}, value: "30"}
- {namespace: $NS, metric: queue_depth, labels: {queue: b}, value: "20"}
YAML
hpa_pick_ports METRICS_PORT DAEMON_PORT
"$SIM" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --scenario "$WORK/scenario.yaml" \
  --metrics-port "$METRICS_PORT" --control-port 0 --start-delay 1s --readiness-delay 1s \
  --serving-cert "$BACKEND_SERVING_CERT" --serving-key "$BACKEND_SERVING_KEY" --client-ca "$FRONT_PROXY_CA_CERT" \
  >"$WORK/sim.out" 2>"$WORK/sim.log" &
PIDS+=("$!")
wait_for 90 "metrics APIs Available" hpa_metrics_apis_available
wait_for 60 "PodMetrics of both web pods served" hpa_pod_metrics_served "$NS" app=web 2
# A pod Ready for less than one metrics window (30 s) is not counted yet: wait until both count.
ready_for_a_window() {
  "${K[@]}" get pods -n "$NS" -l app=web -o json | jq -e --arg now "$(date -u +%s)" '
    [.items[] | .status.conditions[]? | select(.type == "Ready" and .status == "True") |
     .lastTransitionTime | fromdateiso8601] | length == 2 and all(. < (($now | tonumber) - 35))'
}
wait_for 60 "web pods Ready for a metrics window" ready_for_a_window

# --- the kubectl plugin, as the read-only ServiceAccount
export PATH="$(dirname "$CONTROLLER"):$PATH"
[ -x "$(dirname "$CONTROLLER")/kubectl-hpa" ] || fail "the build did not produce kubectl-hpa next to hpa-controller"
"$KUBECTL" hpa explain --all --kubeconfig "$WORK/explain.kubeconfig" -o text >"$WORK/table.out" 2>"$WORK/table.err" ||
  fail "kubectl hpa explain --all exited $?"
cat "$WORK/table.out"
grep -Eq '^web +2 -> 4 ' "$WORK/table.out" || fail "table row of web"
grep -Eq '^worker +2 -> 3 +external metric queue_depth ' "$WORK/table.out" || fail "table row of worker"
grep -Eq '^ghost +0 \(kept\) .*FailedGetScale: deployments/scale.apps "ghost" not found' "$WORK/table.out" ||
  fail "table row of ghost"
pass "kubectl hpa explain --all: one row per HPA"
"$KUBECTL" hpa explain --all --kubeconfig "$WORK/explain.kubeconfig" -o json --save "$WORK/saved.yaml" \
  >"$WORK/live.json" 2>"$WORK/save.err" || fail "explain --save exited $?"
"$KUBECTL" hpa explain worker -n "$NS" --kubeconfig "$WORK/explain.kubeconfig" -o json >"$WORK/worker.json" ||
  fail "kubectl hpa explain worker exited $?"
[ "$(jq '.metrics[0].proposal' "$WORK/worker.json")" = 3 ] || fail "worker's external metric proposal: $(jq -c '.metrics[0]' "$WORK/worker.json")"
pass "kubectl hpa explain worker -n $NS: both series of the selector-less External metric (50 / 20 -> 3)"
grep -qi "forbidden" "$WORK"/*.err "$WORK"/*.json && fail "the explain role lacked a permission"
pass "the explain role was enough"

# --- it wrote nothing: no status, no event, no scale
for h in web worker ghost; do
  [ "$(hpa_json $h | jq '.status.conditions | length')" = 0 ] || fail "explain wrote the status of $h"
done
[ "$("${K[@]}" get events -n "$NS" --field-selector involvedObject.kind=HorizontalPodAutoscaler -o name | wc -l)" = 0 ] ||
  fail "explain recorded events"
[ "$("${K[@]}" get deployment web -n "$NS" -o jsonpath='{.spec.replicas}')" = 2 ] || fail "explain scaled web"
pass "explain wrote nothing (no status, events or scale)"

# --- --save: the printed replay command gives the same decision offline
REPLAY=$(sed -n 's/.*replay it with: //p' "$WORK/save.err")
[ -n "$REPLAY" ] || fail "no replay command printed: $(cat "$WORK/save.err")"
for h in web worker ghost; do
  # shellcheck disable=SC2086
  "$CONTROLLER" ${REPLAY#hpa-controller } --hpa "$NS/$h" -o json >"$WORK/replay-$h.json" 2>"$WORK/replay.err" ||
    fail "replay of $h exited $?"
  diff <(jq -S --arg k "$NS/$h" '.[] | select(.hpa == $k)' "$WORK/live.json") <(jq -S . "$WORK/replay-$h.json") \
    >"$WORK/replay-$h.diff" || fail "the saved snapshot replays $h differently: $(head -20 "$WORK/replay-$h.diff")"
done
pass "the saved snapshot replays all three decisions identically offline"

# --- the daemon's first decision is the one explain printed. Its first status write of each HPA is
# taken from a watch started before it: a key queued both by the informer's add and by the start
# of leading can be reconciled twice at start, the second time against the size the first set.
curl -sN --cacert "$CA_CERT" --cert "$ADMIN_CERT" --key "$ADMIN_KEY" \
  "$APISERVER_URL/apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers?watch=1" >"$WORK/hpa-watch.json" &
PIDS+=("$!")
"$CONTROLLER" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --leader-elect=false --port "$DAEMON_PORT" --secure-port 0 \
  --bind-address 127.0.0.1 --horizontal-pod-autoscaler-sync-period 60s 2>"$WORK/daemon.log" &
PIDS+=("$!")
first_write() { jq -c -n -R --arg h "$1" '[inputs | fromjson? | select(.object.metadata.name == $h
                                          and ((.object.status.conditions // []) | length) > 0) | .object]
                                          | .[0] // empty' "$WORK/hpa-watch.json"; }
written() { [ -n "$(first_write "$1")" ]; }
for h in web worker ghost; do wait_for 30 "the daemon wrote the status of $h" written "$h"; done
# Field by field as both sides mean them: v2beta2 on a 1.20 server prints a zero currentReplicas
# and a zero current value next to an external averageValue, which v2 omits.
status_view() { jq -S '{currentReplicas: (.currentReplicas // 0), desiredReplicas: (.desiredReplicas // 0),
                        currentMetrics: ((.currentMetrics // []) | walk(if type == "object" and has("averageValue")
                                                                       and .value == "0" then del(.value) else . end)),
                        conditions: [.conditions[]? | {type, status, reason, message}]}'; }
for h in web worker ghost; do
  EXPLAINED=$(jq --arg k "$NS/$h" '.[] | select(.hpa == $k) | .status' "$WORK/live.json" | status_view)
  WRITTEN=$(first_write "$h" | jq '.status' | status_view)
  [ "$EXPLAINED" = "$WRITTEN" ] || fail "$h: explain said $EXPLAINED but the daemon wrote $WRITTEN"
  pass "$h: the daemon wrote the status explain printed ($(jq -c '[.currentReplicas, .desiredReplicas]' <<<"$WRITTEN"))"
done
grep -q 'HPA='"$NS"'/worker replicas="2 -> 3"' "$WORK/daemon.log" || fail "daemon log line for worker: $(grep worker "$WORK/daemon.log" | head -3)"
echo "explain live e2e: all checks passed"
