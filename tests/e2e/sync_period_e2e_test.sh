#!/usr/bin/env bash
# A per-HPA sync period holds under a long global one: the daemon at a 300 s global period, an
# HPA with its own 2 s period; after a load step the HPA must scale within a few of its own
# periods. (Metrics shared between HPAs are reused for half the *asking* HPA's period: were the
# global period to stand in, the HPA could decide on metrics up to 150 s old.)
#
#   sync_period_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
CONTROLLER=$1
SIM=$2
# shellcheck disable=SC1091
source "$(dirname "$0")/lib/e2e.sh"
e2e_namespace sync-period-e2e
replicas() { "${K[@]}" get -n "$NS" deployment/quick -o jsonpath='{.spec.replicas}'; }

apply_cpu_hpa quick '{hpa-controller.io/sync-period: 2s}'
# 100m over 2 pods of 100m: 50 %, the target.
printf 'workloads:\n- {name: quick, namespace: %s, selector: app=quick, cpu: 100m}\n' "$NS" >"$WORK/scenario.yaml"
start_sim "$WORK/scenario.yaml"
start_controller --horizontal-pod-autoscaler-sync-period 300s

# Steady at the target: the HPA reads metrics every 2 s (the answer it shares is cached).
wait_for 120 "quick holds 2 replicas at its target, on metrics" bash -c \
  "'$KUBECTL' --kubeconfig '$ADMIN_KUBECONFIG' get --raw /apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers/quick |
   jq -e '.status.currentMetrics[0].resource.current.averageUtilization == 50'"
BEFORE=$(reconciles quick)
sleep 6
[ "$(reconciles quick)" -ge $((BEFORE + 2)) ] || fail "quick was not reconciled every 2 s under a 300 s global period"
pass "quick reconciled on its own 2 s period ($BEFORE -> $(reconciles quick) in 6 s)"
[ "$(replicas)" -eq 2 ] || fail "quick scaled at its target: $(replicas) replicas"

# The load step: 400m over 2 pods, 200 % of the request: 8 replicas wanted (limited to 4 at once).
START=$(now_ms)
curl -sf -X POST "http://127.0.0.1:$SIM_CONTROL_PORT/set" -d '[{"workload": "quick", "cpu": "400m"}]' >/dev/null ||
  fail "hpa-sim did not take the load step"
while [ "$(replicas)" -le 2 ]; do
  if [ $(( $(now_ms) - START )) -gt 20000 ]; then
    fail "quick did not scale within 20 s of the load step (its own period is 2 s; the global one 300 s)"
  fi
  sleep 0.2
done
ELAPSED=$(( $(now_ms) - START ))
# Two of its own periods, plus the time the metrics take to show the step and the scale to land.
[ "$ELAPSED" -le 8000 ] || fail "quick scaled ${ELAPSED} ms after the load step: more than 8 s"
pass "quick scaled to $(replicas) replicas ${ELAPSED} ms after the load step (own period 2 s, global 300 s)"
