#!/usr/bin/env bash
# The read-only role of deploy/explain-rbac.yaml (hpa-explain) is exactly what live explain, the
# kubectl plugin and live replay send. As its ServiceAccount (token): explain --all and the plugin
# over HPAs with hpa-controller.io/pod-selection: OwnerReferences whose pods belong to a
# Deployment (owner chain pod -> ReplicaSet -> Deployment), a StatefulSet and a bare ReplicaSet
# (cpu, a pods metric, an object metric), and one on a ReplicationController (external metric);
# the Deployment's selector also matches the pods of another Deployment and of a StatefulSet, whose
# owner chains explain must walk to leave them out; every metric must be read (no Forbidden,
# ScalingActive True); replay --hpa of the Deployment's and the ReplicationController's HPAs. Then a negative check (writes are refused), and
# tests/e2e/lib/rbac_audit.py reads the apiserver's audit log: every request allowed and granted
# by the role, every verb it grants used.
#
#   rbac_explain_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
CONTROLLER=$1
SIM=$2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/e2e/lib/e2e.sh
source "$ROOT/tests/e2e/lib/e2e.sh"
# shellcheck source=hack/lib/metrics-ready.sh
source "$ROOT/hack/lib/metrics-ready.sh"
USER_NAME=system:serviceaccount:hpa-controller:hpa-explain
e2e_namespace rbac-explain
SINCE=$(date +%s)
AUDIT_LOG=$HPA_E2E_DIR/logs/audit.log  # the e2e_cluster fixture's (tests/e2e/rbac/audit-policy.yaml)

# --- the role, and a kubeconfig of its ServiceAccount's token
"${K[@]}" apply -f "$ROOT/deploy/base/namespace.yaml" -f "$ROOT/deploy/explain-rbac.yaml" >/dev/null
sa_kubeconfig hpa-controller hpa-explain "$WORK/sa.kubeconfig"

# --- the controller test's workloads, each HPA selecting its pods by owner
sed "s/__NS__/$NS/g" "$ROOT/tests/e2e/rbac/controller_objects.yaml" | "${K[@]}" apply -f - >/dev/null
# Pods web's selector (app=web) matches that are not web's: another Deployment's, a StatefulSet's.
"${K[@]}" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-canary, namespace: $NS}
spec:
  replicas: 1
  selector: {matchLabels: {app: web, track: canary}}
  template:
    metadata: {labels: {app: web, track: canary}}
    spec: {containers: [{name: app, image: example/web, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web-intruder, namespace: $NS}
spec:
  replicas: 1
  serviceName: web-intruder
  selector: {matchLabels: {app: web, part: intruder}}
  template:
    metadata: {labels: {app: web, part: intruder}}
    spec: {containers: [{name: app, image: example/web, resources: {requests: {cpu: 100m}}}]}
YAML
for h in web db cache queue; do
  "${K[@]}" annotate hpa "$h" -n "$NS" hpa-controller.io/pod-selection=OwnerReferences >/dev/null
done
sed "s/__NS__/$NS/g" "$ROOT/tests/e2e/rbac/scenario.yaml" >"$WORK/scenario.yaml"
start_sim "$WORK/scenario.yaml"
wait_for 90 "metrics APIs Available" hpa_metrics_apis_available
wait_for 60 "PodMetrics of web's pods and of the others its selector matches served" \
  hpa_pod_metrics_served "$NS" app=web 4
ready() { # <selector> <count>: that many pods Ready
  [ "$("${K[@]}" get pods -n "$NS" -l "$1" -o json |
       jq '[.items[] | select(any(.status.conditions[]?; .type == "Ready" and .status == "True"))] | length')" -ge "$2" ]
}
wait_for 60 "db-0 Ready" ready app=db 1
wait_for 60 "the ReplicaSet's pod Ready" ready app=cache 1

# --- explain, the plugin and replay as the ServiceAccount
active() { # <file of explain -o json (an array)> <hpa>: its metric was read
  jq -e --arg k "$NS/$2" '.[] | select(.hpa == $k) | .status.conditions[] | select(.type == "ScalingActive") |
    .status == "True"' "$1" >/dev/null
}
explained() {
  "$CONTROLLER" explain --all --kubeconfig "$WORK/sa.kubeconfig" -o json >"$WORK/explain.json" 2>"$WORK/explain.err" &&
    for h in web db cache queue; do active "$WORK/explain.json" "$h" || return 1; done
}
# A pod Ready for less than a metrics window is not counted yet; explain says so until it is.
for _ in $(seq 90); do explained && break; sleep 1; done
explained || fail "explain --all: not every HPA's metric was read: $(jq -c '.[] | {hpa, active: [.status.conditions[]? |
  select(.type == "ScalingActive") | .message]}' "$WORK/explain.json" 2>/dev/null) $(cat "$WORK/explain.err")"
pass "explain --all: every HPA's metric read (ScalingActive True)"
PATH="$(dirname "$CONTROLLER"):$PATH"
export PATH
"$KUBECTL" hpa explain web --kubeconfig "$WORK/sa.kubeconfig" -o json >"$WORK/plugin.json" 2>"$WORK/plugin.err" ||
  fail "kubectl hpa explain web exited $?: $(cat "$WORK/plugin.err")"
jq -e '.status.conditions[] | select(.type == "ScalingActive") | .status == "True"' "$WORK/plugin.json" >/dev/null ||
  fail "kubectl hpa explain web: $(jq -c .status.conditions "$WORK/plugin.json")"
pass "kubectl hpa explain web: pods selected through ReplicaSet -> Deployment"
printf 'time,metric,kind,value\n0s,cpu,total,160m\n60s,cpu,total,160m\n' >"$WORK/cpu.csv"
printf 'time,metric,kind,value\n0s,queue_depth,total,90\n60s,queue_depth,total,90\n' >"$WORK/queue.csv"
"$CONTROLLER" replay --hpa "$NS/web" --kubeconfig "$WORK/sa.kubeconfig" --trace "$WORK/cpu.csv" -o json \
  >"$WORK/replay-web.json" 2>"$WORK/replay-web.err" || fail "replay --hpa $NS/web exited $?: $(cat "$WORK/replay-web.err")"
"$CONTROLLER" replay --hpa "$NS/queue" --kubeconfig "$WORK/sa.kubeconfig" --trace "$WORK/queue.csv" -o json \
  >"$WORK/replay-queue.json" 2>"$WORK/replay-queue.err" ||
  fail "replay --hpa $NS/queue exited $?: $(cat "$WORK/replay-queue.err")"
pass "replay --hpa of a Deployment's and a ReplicationController's HPA"
grep -qi "forbidden" "$WORK"/*.err "$WORK"/*.json && fail "Forbidden: $(grep -hi -m1 forbidden "$WORK"/*.err "$WORK"/*.json)"

# --- negative checks: the role writes nothing
api() { # <method> <path> <body>: the HTTP status of the request as the ServiceAccount
  curl -s -o /dev/null -w '%{http_code}' --cacert "$CA_CERT" -H "Authorization: Bearer $TOKEN" -X "$1" \
    -H "Content-Type: application/merge-patch+json" --data "$3" "$APISERVER_URL$2"
}
[ "$(api PATCH "/apis/autoscaling/v1/namespaces/$NS/horizontalpodautoscalers/web/status" '{"status":{"desiredReplicas":5}}')" = 403 ] ||
  fail "the role may patch an HPA's status"
[ "$(api PUT "/apis/apps/v1/namespaces/$NS/deployments/web/scale" \
  "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\",\"metadata\":{\"name\":\"web\",\"namespace\":\"$NS\"},\"spec\":{\"replicas\":5}}")" = 403 ] ||
  fail "the role may update a Scale"
pass "refused: patch an HPA's status, update a Scale"

# --- the audit log
python3 -B "$ROOT/tests/e2e/lib/rbac_audit.py" --audit "$AUDIT_LOG" --user "$USER_NAME" --since "$SINCE" \
  --manifests "$ROOT/deploy/explain-rbac.yaml" --refused "patch autoscaling horizontalpodautoscalers/status" \
  --refused "update apps deployments/scale" || fail "hpa-explain is not exactly what explain, the plugin and replay send"
echo "rbac explain e2e: all checks passed"
