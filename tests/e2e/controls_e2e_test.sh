#!/usr/bin/env bash
# The per-HPA controls end to end on the local control plane with hpa-sim and one daemon:
# per-HPA sync periods of 2 s and 30 s (reconciles counted in /metrics), an HPA paused under load
# (replicas kept, status showing the higher desired count, events) and resumed (scales at once),
# owner-based pod selection (another Deployment's idle pods sharing the labels stop diluting).
#
#   controls_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
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
NS=controls-e2e-$$
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  local code=$?
  stop_pids
  if [ $code -ne 0 ]; then
    for f in "$WORK"/*.log; do echo "== $f"; tail -25 "$f"; done
  fi
  "${K[@]}" delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
  rm -rf "$WORK"
  exit $code
}
trap cleanup EXIT
hpa_json() { "${K[@]}" get --raw "/apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers/$1"; }
condition_reason() { hpa_json "$1" | jq -r --arg t "$2" '.status.conditions[]? | select(.type==$t) | .reason'; }
condition_is() { [ "$(condition_reason "$1" "$2")" = "$3" ]; }
replicas() { "${K[@]}" get -n "$NS" "$1" -o jsonpath='{.spec.replicas}'; }
replicas_above() { [ "$(replicas "$1")" -gt "$2" ]; }
desired_above() { [ "$(hpa_json "$1" | jq '.status.desiredReplicas')" -gt "$2" ]; }
events_of() { # <hpa> <reason>: how many Events of that reason the HPA has
  "${K[@]}" get events -n "$NS" --field-selector "involvedObject.name=$1,reason=$2" -o json | jq '[.items[].count] | add // 0'
}
# Reconciles of one HPA so far, from the daemon's /metrics.
reconciles() {
  curl -s "http://127.0.0.1:$PORT/metrics" |
    awk -v want="hpa_controller_reconciles_total{name=\"$1\",namespace=\"$NS\"}" '$1 == want { print int($2); found=1 } END { if (!found) print 0 }'
}

"${K[@]}" create namespace "$NS" >/dev/null
wait_for 30 "default ServiceAccount in $NS" "${K[@]}" get sa default -n "$NS"
sed "s/__NS__/$NS/g" "$ROOT/tests/e2e/controls_e2e_objects.yaml" | "${K[@]}" apply -f - >/dev/null
sed "s/__NS__/$NS/g" "$ROOT/tests/e2e/controls_e2e_scenario.yaml" >"$WORK/scenario.yaml"

hpa_pick_ports METRICS_PORT CONTROL_PORT PORT
"$SIM" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --scenario "$WORK/scenario.yaml" \
  --metrics-port "$METRICS_PORT" --control-port "$CONTROL_PORT" --start-delay 1s --readiness-delay 1s \
  --serving-cert "$BACKEND_SERVING_CERT" --serving-key "$BACKEND_SERVING_KEY" --client-ca "$FRONT_PROXY_CA_CERT" \
  >"$WORK/sim.out" 2>"$WORK/sim.log" &
PIDS+=("$!")

"$CONTROLLER" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --port "$PORT" --address 127.0.0.1 --secure-port 0 \
  --leader-elect=false --horizontal-pod-autoscaler-sync-period 5s \
  --horizontal-pod-autoscaler-downscale-stabilization 20s -v 2 2>"$WORK/controller.log" &
PIDS+=("$!")

# --- pause: the held HPA computes (desired above its 2 replicas) but does not scale
wait_for 90 "paused HPA held reports ScalingActive=False ScalingPaused" condition_is held ScalingActive ScalingPaused
wait_for 60 "held's status shows the higher desired count while paused" desired_above held 2

# --- pod selection: web's selector (app=shop) also picks other's two idle pods. Upstream's
# label selection averages 2 x 100 % and 2 x 0 %: 50 %, on target, no scaling.
utilization() { hpa_json "$1" | jq -r '.status.currentMetrics[0].resource.current.averageUtilization // empty'; }
utilization_is() { [ "$(utilization "$1")" = "$2" ]; }
wait_for 90 "web by label selector: 4 pods averaging 50 % (other's idle pods dilute)" utilization_is web 50
[ "$(replicas deployment/web)" -eq 2 ] || fail "web scaled to $(replicas deployment/web) on a diluted metric of 50 %"
pass "web by label selector: kept at 2 replicas, upstream's answer"
# With OwnerReferences only web's own pods count: 100 %, so 4 replicas.
"${K[@]}" annotate hpa web -n "$NS" hpa-controller.io/pod-selection=OwnerReferences >/dev/null
wait_for 30 "web by owner references: scaled to 4 on its own pods' 100 %" bash -c "[ \$('$KUBECTL' --kubeconfig '$ADMIN_KUBECONFIG' get -n $NS deployment/web -o jsonpath='{.spec.replicas}') -eq 4 ]"
[ "$(replicas deployment/other)" -eq 2 ] || fail "other changed to $(replicas deployment/other) replicas"

# --- per-HPA sync periods, counted over a window (the pause holds meanwhile)
wait_for 60 "fast and slow reconciled once" bash -c "[ \$(curl -s http://127.0.0.1:$PORT/metrics | grep -c '^hpa_controller_reconciles_total{name=\"\(fast\|slow\)\",namespace=\"$NS\"}') -eq 2 ]"
WINDOW=20
FAST0=$(reconciles fast); SLOW0=$(reconciles slow); HELD0=$(reconciles held)
sleep "$WINDOW"
FAST=$(( $(reconciles fast) - FAST0 )); SLOW=$(( $(reconciles slow) - SLOW0 )); HELD=$(( $(reconciles held) - HELD0 ))
echo "reconciles in ${WINDOW}s: fast (2s) $FAST, held (global 5s) $HELD, slow (30s) $SLOW"
[ "$FAST" -ge 7 ] && [ "$FAST" -le 11 ] || fail "fast (2s period) reconciled $FAST times in ${WINDOW}s (expected about 10)"
[ "$HELD" -ge 3 ] && [ "$HELD" -le 5 ] || fail "held (global 5s) reconciled $HELD times in ${WINDOW}s (expected about 4)"
[ "$SLOW" -le 1 ] || fail "slow (30s period) reconciled $SLOW times in ${WINDOW}s (expected at most 1)"
pass "per-HPA sync periods: 2s, 5s (global) and 30s kept"

[ "$(replicas deployment/held)" -eq 2 ] || fail "the paused HPA scaled deployment/held to $(replicas deployment/held)"
[ "$(events_of held ScalingPaused)" -eq 1 ] || fail "expected one ScalingPaused event, got $(events_of held ScalingPaused)"
pass "paused: deployment/held kept at 2 replicas, one ScalingPaused event"

# --- resume: removing the annotation scales at once (the informer's update requeues the key)
"${K[@]}" annotate hpa held -n "$NS" hpa-controller.io/paused- >/dev/null
wait_for 15 "resumed: deployment/held scaled out" replicas_above deployment/held 2
wait_for 15 "ScalingResumed event" bash -c "[ \$('$KUBECTL' --kubeconfig '$ADMIN_KUBECONFIG' get events -n $NS --field-selector involvedObject.name=held,reason=ScalingResumed -o name | wc -l) -ge 1 ]"

# --- a changed sync period takes effect without waiting out the old one
"${K[@]}" annotate hpa slow -n "$NS" --overwrite hpa-controller.io/sync-period=2s >/dev/null
SLOW0=$(reconciles slow)
sleep 8
SLOW=$(( $(reconciles slow) - SLOW0 ))
[ "$SLOW" -ge 3 ] || fail "slow reconciled $SLOW times in 8s after its period became 2s"
pass "slow's new 2s period took effect at once ($SLOW reconciles in 8s)"

# --- an invalid value: one Warning event, the global period applies
"${K[@]}" annotate hpa fast -n "$NS" --overwrite hpa-controller.io/sync-period=0s >/dev/null
wait_for 15 "InvalidSyncPeriod event" bash -c "[ \$('$KUBECTL' --kubeconfig '$ADMIN_KUBECONFIG' get events -n $NS --field-selector involvedObject.name=fast,reason=InvalidSyncPeriod -o name | wc -l) -ge 1 ]"
hpa_json fast | jq -e '.status.conditions[] | select(.type=="ScalingActive") | .message | contains("invalid controls: hpa-controller.io/sync-period \"0s\"")' >/dev/null ||
  fail "the ScalingActive message does not name the invalid sync period"
sleep 6
[ "$(events_of fast InvalidSyncPeriod)" -eq 1 ] || fail "InvalidSyncPeriod reported $(events_of fast InvalidSyncPeriod) times (once per change expected)"
pass "invalid sync period: one event, named in ScalingActive"

# --- the HPA's series leaves /metrics with the HPA
"${K[@]}" delete hpa slow -n "$NS" >/dev/null
wait_for 15 "slow's reconcile counter removed from /metrics" bash -c "! curl -s http://127.0.0.1:$PORT/metrics | grep -q '^hpa_controller_reconciles_total{name=\"slow\",namespace=\"$NS\"}'"
echo "controls e2e: all checks passed"
