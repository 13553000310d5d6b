#!/usr/bin/env bash
# hpa-controller end to end on the local control plane with hpa-sim: two daemons running as the
# deploy/ ServiceAccount (least-privilege RBAC) with leader election; resource, pods, object and
# external metrics; a behavior policy limiting scale-up; max clamping; a StatefulSet target;
# min clamping; explain agreeing with the live decision; the metrics API going away and coming back; failover
# to the standby with the history annotation restored; clean shutdown releasing the lease.
#
#   daemon_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
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
NS=daemon-e2e-$$
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  local code=$?
  stop_pids
  if [ $code -ne 0 ]; then
    for f in "$WORK"/*.log; do echo "== $f"; tail -25 "$f"; done
  fi
  rm -rf "$WORK"
  exit $code
}
trap cleanup EXIT
hpa_json() { "${K[@]}" get --raw "/apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers/$1"; }
condition_reason() { hpa_json "$1" | jq -r --arg t "$2" '.status.conditions[]? | select(.type==$t) | .reason'; }
replicas() { "${K[@]}" get -n "$NS" "$1" -o jsonpath='{.spec.replicas}'; }
replicas_at_least() { [ "$(replicas "$1")" -ge "$2" ]; }
replicas_equal() { [ "$(replicas "$1")" -eq "$2" ]; }
condition_is() { [ "$(condition_reason "$1" "$2")" = "$3" ]; }

# --- the deploy/ RBAC, and a kubeconfig for its ServiceAccount's token
"${K[@]}" apply -f "$ROOT/deploy/base/namespace.yaml" -f "$ROOT/deploy/base/rbac.yaml" >/dev/null
wait_for 60 "ServiceAccount token issued" \
  bash -c "'$KUBECTL' --kubeconfig '$ADMIN_KUBECONFIG' get sa hpa-controller -n hpa-controller -o jsonpath='{.secrets[0].name}' | grep -q ."
SECRET=$("${K[@]}" get sa hpa-controller -n hpa-controller -o jsonpath='{.secrets[0].name}')
TOKEN=$("${K[@]}" get secret "$SECRET" -n hpa-controller -o jsonpath='{.data.token}' | base64 -d)
cat >"$WORK/sa.kubeconfig" <<KC
apiVersion: v1
kind: Config
current-context: sa
clusters: [{name: local, cluster: {server: "$APISERVER_URL", certificate-authority: "$CA_CERT"}}]
users: [{name: sa, user: {token: "$TOKEN"}}]
contexts: [{name: sa, context: {cluster: local, user: sa}}]
KC

# --- workloads and HPAs
"${K[@]}" create namespace "$NS" >/dev/null
wait_for 30 "default ServiceAccount in $NS" "${K[@]}" get sa default -n "$NS"
sed "s/__NS__/$NS/g" "$ROOT/tests/e2e/daemon_e2e_objects.yaml" | "${K[@]}" apply -f - >/dev/null
sed "s/__NS__/$NS/g" "$ROOT/tests/e2e/daemon_e2e_scenario.yaml" >"$WORK/scenario.yaml"
# Metadata the controller does not keep must survive its status writes.
WEB_UID=$("${K[@]}" get deployment web -n "$NS" -o jsonpath='{.metadata.uid}')
"${K[@]}" patch hpa web -n "$NS" --type merge -p "{\"metadata\":{\"labels\":{\"team\":\"shop\"},
  \"annotations\":{\"example.com/note\":\"kept\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",
  \"kind\":\"Deployment\",\"name\":\"web\",\"uid\":\"$WEB_UID\"}]}}" >/dev/null

hpa_pick_ports METRICS_PORT CONTROL_PORT
start_sim() {
  "$SIM" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --scenario "$WORK/scenario.yaml" \
    --metrics-port "$METRICS_PORT" --control-port "$CONTROL_PORT" --start-delay 1s --readiness-delay 1s \
    --serving-cert "$BACKEND_SERVING_CERT" --serving-key "$BACKEND_SERVING_KEY" --client-ca "$FRONT_PROXY_CA_CERT" \
    >>"$WORK/sim.out" 2>>"$WORK/sim.log" &
  SIM_PID=$!
  PIDS+=("$SIM_PID")
}
start_sim

# The allocator tuned as the image and the Deployment tune it.
TUNABLES=$(cat "$ROOT/hack/lib/malloc-tunables")
start_daemon() { # <name>
  local port
  hpa_pick_ports port
  GLIBC_TUNABLES=$TUNABLES "$CONTROLLER" --kubeconfig "$WORK/sa.kubeconfig" --namespace "$NS" --port "$port" --address 127.0.0.1 \
    --secure-port 0 \
    --leader-elect --leader-elect-resource-namespace hpa-controller --leader-elect-resource-name hpa-controller \
    --leader-elect-lease-duration 6s --leader-elect-renew-deadline 4s --leader-elect-retry-period 1s \
    --horizontal-pod-autoscaler-sync-period 3s --horizontal-pod-autoscaler-downscale-stabilization 20s -v 2 \
    2>"$WORK/$1.log" &
  PIDS+=("$!")
  eval "${1}_PID=$!"
  eval "${1}_PORT=$port"
}
# The deployed Role allows exactly the Lease named hpa-controller; start from no holder.
"${K[@]}" delete lease hpa-controller -n hpa-controller --ignore-not-found >/dev/null
start_daemon A
sleep 2
start_daemon B

leaders() { grep -l "started leading" "$WORK"/A.log "$WORK"/B.log 2>/dev/null | wc -l; }
wait_for 60 "one daemon leads" bash -c "[ \$(grep -l 'started leading' '$WORK'/A.log '$WORK'/B.log 2>/dev/null | wc -l) -eq 1 ]"
LEADER=A; STANDBY=B
grep -q "started leading" "$WORK/B.log" && { LEADER=B; STANDBY=A; }
# The daemon runs as started: its environment is the one it was given (no re-execution that
# rewrites it), and it keeps its name for ps, top and pgrep. (glibc parses GLIBC_TUNABLES in
# place, so /proc/PID/environ shows the value cut at its first ':'.)
tr '\0' '\n' <"/proc/$A_PID/environ" | grep -qxF "GLIBC_TUNABLES=${TUNABLES%%:*}" ||
  fail "daemon A's GLIBC_TUNABLES is not the one it was given: $(tr '\0' '\n' <"/proc/$A_PID/environ" | grep GLIBC || echo none)"
[ "$(cat "/proc/$A_PID/comm")" = hpa-controller ] || fail "daemon A is named '$(cat "/proc/$A_PID/comm")'"
pass "the daemon runs as started, with the environment and the name it was given"

# --- every metric type does its job
wait_for 120 "cpu utilization scales Deployment web out" replicas_at_least deployment/web 4
wait_for 60 "pods metric clamps Deployment api at maxReplicas 4" replicas_equal deployment/api 4
wait_for 30 "ScalingLimited TooManyReplicas on api" condition_is api ScalingLimited TooManyReplicas
wait_for 60 "below minReplicas: Deployment tiny raised to 3" replicas_equal deployment/tiny 3
"${K[@]}" get events -n "$NS" --field-selector involvedObject.name=tiny,reason=SuccessfulRescale -o jsonpath='{.items[*].message}' |
  grep -q "New size: 3; reason: Current number of replicas below Spec.MinReplicas" || fail "no below-min rescale event for tiny"
pass "below-min rescale event"
wait_for 60 "object metric (value 30, target 10: ratio 3 x ready pods) scales StatefulSet db out" replicas_at_least statefulset/db 3
wait_for 60 "external metric scales worker up by one (behavior policy: 1 pod per 30 min)" replicas_equal deployment/worker 2
wait_for 30 "ScalingLimited ScaleUpLimit on worker" condition_is worker ScalingLimited ScaleUpLimit
sleep 10
replicas_equal deployment/worker 2 || fail "worker grew faster than its policy allows (1 pod / 30 min)"
pass "behavior policy held worker at 2 within the period"
grep -q "Forbidden" "$WORK/A.log" "$WORK/B.log" && fail "the ServiceAccount lacked a permission: $(grep -h Forbidden "$WORK"/*.log | head -1)"
pass "the deploy/ ClusterRole was enough"
EVENTS=$("${K[@]}" get events -n "$NS" --field-selector reason=SuccessfulRescale -o jsonpath='{.items[*].source.component}')
[[ $EVENTS == *horizontal-pod-autoscaler* ]] || fail "no SuccessfulRescale event from horizontal-pod-autoscaler"
pass "SuccessfulRescale events recorded"

# --- explain on a snapshot of the same state gives the same decision
wait_for 90 "web settles (desired == current)" bash -c \
  "'$KUBECTL' --kubeconfig '$ADMIN_KUBECONFIG' get --raw /apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers/web | jq -e '.status.desiredReplicas == .status.currentReplicas and .status.currentReplicas >= 4'"
{
  hpa_json web; echo; echo ---
  "${K[@]}" get deployment web -n "$NS" -o json; echo; echo ---
  "${K[@]}" get pods -n "$NS" -l app=web -o json; echo; echo ---
  "${K[@]}" get --raw "/apis/metrics.k8s.io/v1beta1/namespaces/$NS/pods?labelSelector=app%3Dweb"; echo
} >"$WORK/snapshot.yaml"
"$CONTROLLER" explain -f "$WORK/snapshot.yaml" -o json >"$WORK/explain.json" || fail "explain exited $?"
LIVE=$(hpa_json web | jq '.status.desiredReplicas')
EXPLAINED=$(jq '.desiredReplicas' "$WORK/explain.json")
[ "$LIVE" = "$EXPLAINED" ] || fail "explain says $EXPLAINED, the live HPA says $LIVE"
[ "$(jq -r '.status.conditions[] | select(.type=="ScalingActive") | .reason' "$WORK/explain.json")" = \
  "$(condition_reason web ScalingActive)" ] || fail "explain and the live HPA disagree on ScalingActive"
pass "explain agrees with the live HPA ($LIVE replicas)"
hpa_json web | jq -e --arg uid "$WEB_UID" '.metadata.ownerReferences[0].uid == $uid and .metadata.labels.team == "shop"
  and .metadata.annotations["example.com/note"] == "kept"' >/dev/null ||
  fail "status writes lost web's metadata: $(hpa_json web | jq -c '.metadata | del(.managedFields)')"
pass "status writes kept web's ownerReferences, labels and annotations"

# --- the metrics API goes away: no scaling, upstream's condition; then recovery
kill -TERM "$SIM_PID"; wait "$SIM_PID" 2>/dev/null || true
BEFORE=$(replicas deployment/web)
wait_for 60 "ScalingActive FailedGetResourceMetric without the metrics API" condition_is web ScalingActive FailedGetResourceMetric
[ "$(replicas deployment/web)" = "$BEFORE" ] || fail "web was scaled without metrics"
pass "no scaling without metrics"
start_sim
wait_for 90 "ScalingActive ValidMetricFound once the metrics API is back" condition_is web ScalingActive ValidMetricFound

# --- failover: the standby takes over within the lease duration and restores the history
hpa_json web | jq -e '.metadata.annotations["hpa-controller.io/history"]' >/dev/null || fail "no persisted history on web"
pass "history persisted in the annotation"
LEADER_PID=$(eval echo "\$${LEADER}_PID")
kill -KILL "$LEADER_PID"
KILLED_AT=$(date +%s)
wait_for 20 "standby $STANDBY takes over" grep -q "started leading" "$WORK/$STANDBY.log"
TOOK=$(( $(date +%s) - KILLED_AT ))
[ "$TOOK" -le 12 ] || fail "handover took ${TOOK}s (lease 6s)"
grep -q "restored history" "$WORK/$STANDBY.log" || fail "the new leader did not restore the history"
pass "handover in ${TOOK}s with history restored"
STANDBY_PORT=$(eval echo "\$${STANDBY}_PORT")
has_reconcile_metric() {
  curl -s "http://127.0.0.1:$STANDBY_PORT/metrics" | grep -q '^horizontal_pod_autoscaler_controller_reconciliations_total'
}
# The new leader's first reconciles complete within a sync period or two.
wait_for 30 "/metrics serves upstream's HPA metrics" has_reconcile_metric

# --- SIGTERM: clean exit 0 and the lease released
STANDBY_PID=$(eval echo "\$${STANDBY}_PID")
kill -TERM "$STANDBY_PID"
set +e
wait "$STANDBY_PID"
CODE=$?
set -e
[ "$CODE" -eq 0 ] || fail "SIGTERM exit code $CODE"
HOLDER=$("${K[@]}" get lease hpa-controller -n hpa-controller -o jsonpath='{.spec.holderIdentity}')
[ -z "$HOLDER" ] || fail "the lease is still held by $HOLDER"
pass "SIGTERM: exit 0, lease released"
echo "daemon e2e: all checks passed"
