#!/usr/bin/env bash
# The controller's RBAC (daemon) or the shadow's (shadow) is exactly what it sends: deploy/'s
# rendered overlay's RBAC applied as a user applies it, the controller run as its ServiceAccount
# (token) with leader election, secure serving scraped by a token, and hpa-sim serving the three
# metrics APIs, over HPAs of every built-in workload kind (a Deployment on cpu, a StatefulSet on a
# pods metric, a ReplicaSet on an object metric, a ReplicationController on an external metric),
# one whose external metric is routed to a Service (read with its Endpoints), and one whose
# target is missing (its Scale read and repeated Events). Then a negative check
# (verbs the role does not grant are refused), and tests/e2e/lib/rbac_audit.py reads the
# apiserver's audit log: every request allowed and granted by the overlay, every verb used.
#
#   rbac_controller_e2e_test.sh daemon|shadow HPA_CONTROLLER HPA_SIM   (HPA_E2E_DIR: the cluster)
set -euo pipefail
ROLE=$1
CONTROLLER=$2
SIM=$3
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/e2e/lib/e2e.sh
source "$ROOT/tests/e2e/lib/e2e.sh"
# shellcheck source=hack/lib/metrics-ready.sh
source "$ROOT/hack/lib/metrics-ready.sh"
case $ROLE in
  daemon) OVERLAY=deploy/overlays/policy-v1beta1 SA_NS=hpa-controller SA=hpa-controller MODE=() ;;
  shadow) OVERLAY=deploy/overlays/shadow-policy-v1beta1 SA_NS=hpa-controller-shadow SA=hpa-controller-shadow MODE=(--shadow) ;;
  *) echo "usage: $0 daemon|shadow HPA_CONTROLLER HPA_SIM" >&2; exit 2 ;;
esac
USER_NAME=system:serviceaccount:$SA_NS:$SA
e2e_namespace "rbac-$ROLE"
# shellcheck disable=SC1090
source "$TOKENS_ENV"
SINCE=$(date +%s)
AUDIT_LOG=$HPA_E2E_DIR/logs/audit.log  # the e2e_cluster fixture's (tests/e2e/rbac/audit-policy.yaml)

# --- the overlay's RBAC as rendered (its Deployment is not run: the controller runs here)
"$KUBECTL" kustomize "$ROOT/$OVERLAY" >"$WORK/rendered.yaml" || fail "kubectl kustomize $OVERLAY"
python3 -c '
import sys, yaml
keep = {"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] in keep]
yaml.safe_dump_all(docs, open(sys.argv[2], "w"))' "$WORK/rendered.yaml" "$WORK/rbac.yaml"
"${K[@]}" apply -f "$WORK/rbac.yaml" >/dev/null
sa_kubeconfig "$SA_NS" "$SA" "$WORK/sa.kubeconfig"

# --- one HPA per built-in kind and metric type, and one whose target is missing
sed "s/__NS__/$NS/g" "$ROOT/tests/e2e/rbac/controller_objects.yaml" | "${K[@]}" apply -f - >/dev/null
sed "s/__NS__/$NS/g" "$ROOT/tests/e2e/rbac/scenario.yaml" >"$WORK/scenario.yaml"
# A metric routed to its adapter's Service (hpa-controller.io/metric-sources): the Service and its
# Endpoints are read (get services, get endpoints); no adapter serves it, so that metric fails.
"${K[@]}" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Service
metadata: {name: adapter, namespace: $NS}
spec: {ports: [{name: https, port: 443}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: routed, namespace: $NS}
spec:
  replicas: 1
  selector: {matchLabels: {app: routed}}
  template:
    metadata: {labels: {app: routed}}
    spec: {containers: [{name: app, image: example/routed, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata:
  name: routed
  namespace: $NS
  annotations:
    hpa-controller.io/metric-sources: "[{type: External, name: queue_depth, source: {service: {namespace: $NS, name: adapter}}}]"
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: routed}
  minReplicas: 1
  maxReplicas: 2
  metrics:
  - type: External
    external: {metric: {name: queue_depth}, target: {type: AverageValue, averageValue: "10"}}
YAML
start_sim "$WORK/scenario.yaml"
wait_for 90 "metrics APIs Available" hpa_metrics_apis_available

# --- the controller as the ServiceAccount, its Lease from no holder (create, get, update, watch)
LEASE_NS=$SA_NS LEASE=$SA
"${K[@]}" delete lease "$LEASE" -n "$LEASE_NS" --ignore-not-found >/dev/null
hpa_pick_ports PORT SECURE_PORT
"$CONTROLLER" --kubeconfig "$WORK/sa.kubeconfig" --namespace "$NS" --port "$PORT" --address 127.0.0.1 \
  --secure-port "$SECURE_PORT" --bind-address 127.0.0.1 --leader-elect --leader-elect-resource-namespace "$LEASE_NS" \
  --leader-elect-resource-name "$LEASE" --horizontal-pod-autoscaler-sync-period 2s -v 2 \
  --metric-source-service-namespaces "$NS" ${MODE[@]+"${MODE[@]}"} \
  2>"$WORK/controller.log" &
CONTROLLER_PID=$!
PIDS+=("$CONTROLLER_PID")
wait_for 60 "the controller leads" grep -q "started leading" "$WORK/controller.log"
twice() { [ "$(reconciles "$1")" -ge 2 ]; }
for h in web db cache queue routed ghost ghost-statefulset ghost-replicaset ghost-rc; do wait_for 60 "$h reconciled twice" twice "$h"; done
replicas() { "${K[@]}" get -n "$NS" "$1" -o jsonpath='{.spec.replicas}'; }
if [ "$ROLE" = daemon ]; then
  above() { [ "$(replicas "$1")" -gt "$2" ]; }
  wait_for 60 "Deployment web scaled on cpu" above deployment/web 2
  wait_for 60 "StatefulSet db scaled on a pods metric" above statefulset/db 1
  wait_for 60 "ReplicaSet cache scaled on an object metric" above replicaset/cache 1
  wait_for 60 "ReplicationController queue scaled on an external metric" above replicationcontroller/queue 1
  repeated() { [ "$("${K[@]}" get events -n "$NS" --field-selector involvedObject.name=ghost,reason=FailedGetScale \
                   -o jsonpath='{.items[0].count}')" -ge 2 ]; }
  wait_for 60 "the missing target's FailedGetScale Event counted again (patched)" repeated
  annotated() { "${K[@]}" get hpa web -n "$NS" -o jsonpath='{.metadata.annotations}' | grep -q "hpa-controller.io/history"; }
  wait_for 60 "web's history annotation written" annotated
else
  [ "$(replicas deployment/web)" = 2 ] || fail "the shadow scaled web"
  [ -z "$("${K[@]}" get events -n "$NS" --field-selector involvedObject.kind=HorizontalPodAutoscaler -o name)" ] || fail "the shadow recorded Events"
  pass "the shadow scaled nothing and recorded no Event"
fi
# Delegated authentication: a token the TokenReview accepts, whose user the SubjectAccessReview refuses.
code=$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $UNPRIVILEGED_TOKEN" \
  "https://127.0.0.1:$SECURE_PORT/metrics")
[ "$code" = 403 ] || fail "/metrics with an unprivileged token answered $code, not 403"
pass "/metrics: TokenReview and SubjectAccessReview sent, the unprivileged token refused"
kill -TERM "$CONTROLLER_PID"
wait "$CONTROLLER_PID" || fail "the controller exited $? on SIGTERM"
pass "the controller released its Lease and exited"
grep -q "Forbidden" "$WORK/controller.log" && fail "Forbidden in the controller's log: $(grep -m1 Forbidden "$WORK/controller.log")"

# --- negative checks: verbs the role does not grant are refused
api() { # <method> <path> [<body>]: the HTTP status of the request as the ServiceAccount
  curl -s -o /dev/null -w '%{http_code}' --cacert "$CA_CERT" -H "Authorization: Bearer $TOKEN" -X "$1" \
    -H "Content-Type: application/merge-patch+json" ${3:+--data "$3"} "$APISERVER_URL$2"
}
refused=()
refuse() { # <description> <"VERB GROUP RESOURCE"> <method> <path> [<body>]
  local code
  code=$(api "$3" "$4" "${5:-}")
  [ "$code" = 403 ] || fail "$1: answered $code, not 403"
  refused+=(--refused "$2")
  pass "refused: $1"
}
refuse "delete a pod" "delete pods" DELETE "/api/v1/namespaces/$NS/pods/none"
refuse "get an HPA (the informer lists and watches)" "get autoscaling horizontalpodautoscalers" GET \
  "/apis/autoscaling/v1/namespaces/$NS/horizontalpodautoscalers/web"
if [ "$ROLE" = shadow ]; then
  refuse "update a Scale" "update apps deployments/scale" PUT "/apis/apps/v1/namespaces/$NS/deployments/web/scale" \
    "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\",\"metadata\":{\"name\":\"web\",\"namespace\":\"$NS\"},\"spec\":{\"replicas\":5}}"
  refuse "patch an HPA's status" "patch autoscaling horizontalpodautoscalers/status" PATCH \
    "/apis/autoscaling/v1/namespaces/$NS/horizontalpodautoscalers/web/status" '{"status":{"desiredReplicas":5}}'
  refuse "patch an HPA (annotations)" "patch autoscaling horizontalpodautoscalers" PATCH \
    "/apis/autoscaling/v1/namespaces/$NS/horizontalpodautoscalers/web" '{"metadata":{"annotations":{"x":"y"}}}'
  refuse "create an Event" "create events" POST "/api/v1/namespaces/$NS/events" '{}'
fi

# --- the audit log: every request allowed and granted, every verb granted used
python3 -B "$ROOT/tests/e2e/lib/rbac_audit.py" --audit "$AUDIT_LOG" --user "$USER_NAME" --since "$SINCE" \
  --manifests "$WORK/rbac.yaml" "${refused[@]}" || fail "the $ROLE role is not exactly what it sends"
echo "rbac $ROLE e2e: all checks passed"
