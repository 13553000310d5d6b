#!/usr/bin/env bash
# hpa-controller.io/record-decision on a live cluster: the HPA's last decision appears in
# hpa-controller.io/last-decision when it scales, and in the steady state that follows nothing
# is written on the HPA (its resourceVersion holds while it is reconciled every 2 s).
#
#   last_decision_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
CONTROLLER=$1
SIM=$2
# shellcheck disable=SC1091
source "$(dirname "$0")/lib/e2e.sh"
e2e_namespace last-decision-e2e
HPA_PATH=/apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers/told
replicas() { "${K[@]}" get -n "$NS" deployment/told -o jsonpath='{.spec.replicas}'; }
decision() { "${K[@]}" get --raw "$HPA_PATH" | jq -r '.metadata.annotations["hpa-controller.io/last-decision"] // empty'; }
# (jq -e on no input at all succeeds: an absent annotation must not pass)
decided() {
  local d
  d=$(decision)
  [ -n "$d" ] && jq -e "$1" <<<"$d"
}
resource_version() { "${K[@]}" get --raw "$HPA_PATH" | jq -r .metadata.resourceVersion; }

apply_cpu_hpa told '{hpa-controller.io/sync-period: 2s, hpa-controller.io/record-decision: "true"}'
printf 'workloads:\n- {name: told, namespace: %s, selector: app=told, cpu: 100m}\n' "$NS" >"$WORK/scenario.yaml"
start_sim "$WORK/scenario.yaml"
start_controller

wait_for 120 "told's decision at its target is recorded" decided \
  '.branch == "metrics" and .currentReplicas == 2 and .desiredReplicas == 2 and .metrics[0].pods.ready == 2'

# The load step: 400m over 2 pods, 200 % of the request: 8 replicas wanted (limited to 4 at once).
curl -sf -X POST "http://127.0.0.1:$SIM_CONTROL_PORT/set" -d '[{"workload": "told", "cpu": "400m"}]' >/dev/null ||
  fail "hpa-sim did not take the load step"
wait_for 60 "the scale-up is recorded with the limit that held it" decided \
  '.currentReplicas == 2 and .desiredReplicas == 4 and .recommendedReplicas == 8 and .limitedBy.reason == "ScaleUpLimit"'
wait_for 60 "told settles at 8 replicas, recorded" decided '.currentReplicas == 8 and .desiredReplicas == 8'
[ "$(replicas)" -eq 8 ] || fail "told has $(replicas) replicas, its decision says 8"
wait_for 60 "told's metrics at the target on 8 ready pods" decided '.metrics[0].pods.ready == 8'

# Steady: reconciled every 2 s, and nothing written on the HPA (status or annotation).
sleep 3
VERSION=$(resource_version)
RECORDED=$(decision)
BEFORE=$(reconciles told)
sleep 12
AFTER=$(reconciles told)
[ "$AFTER" -ge $((BEFORE + 4)) ] || fail "told was reconciled $((AFTER - BEFORE)) times in 12 s (its period is 2 s)"
[ "$(decision)" = "$RECORDED" ] || fail "the steady decision was rewritten: $RECORDED -> $(decision)"
[ "$(resource_version)" = "$VERSION" ] ||
  fail "the HPA was written in the steady state (resourceVersion $VERSION -> $(resource_version))"
pass "steady: $((AFTER - BEFORE)) reconciles in 12 s, no write on the HPA, the recorded decision unchanged"

# Recording stops: the annotation goes.
"${K[@]}" annotate -n "$NS" hpa told hpa-controller.io/record-decision- >/dev/null
no_decision() { [ -z "$(decision)" ]; }
wait_for 30 "the recorded decision is removed when recording stops" no_decision
