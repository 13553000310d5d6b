#!/usr/bin/env bash
# hpa-controller.io/fallback on a live cluster: two HPAs at their target, one given a fallback
# ("after=3,replicas=4"), one without. The metrics pipeline goes away (hpa-sim, which serves the
# metrics APIs, is stopped): the one with the fallback is scaled to its fallback size and says
# so in its condition and an Event; the one without keeps its size, as upstream's. When the
# metrics return, the fallback ends.
#
#   fallback_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
CONTROLLER=$1
SIM=$2
# shellcheck disable=SC1091
source "$(dirname "$0")/lib/e2e.sh"
e2e_namespace fallback-e2e
replicas() { "${K[@]}" get -n "$NS" "deployment/$1" -o jsonpath='{.spec.replicas}'; }
active_reason() {
  "${K[@]}" get --raw "/apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers/$1" |
    jq -r '.status.conditions[] | select(.type == "ScalingActive") | .reason'
}
events() { "${K[@]}" get events -n "$NS" --field-selector "involvedObject.name=$1,reason=$2" -o name | wc -l; }
reason_is() { [ "$(active_reason "$1")" = "$2" ]; }
has_event() { [ "$(events "$1" "$2")" -ge 1 ]; }
at_target() {
  "${K[@]}" get --raw "/apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers/$1" |
    jq -e '.status.currentMetrics[0].resource.current.averageUtilization == 50'
}

for app in guarded plain; do apply_cpu_hpa "$app" '{hpa-controller.io/sync-period: 2s}'; done
# 100m over 2 pods of 100m: 50 %, the target.
cat >"$WORK/scenario.yaml" <<YAML
workloads:
- {name: guarded, namespace: $NS, selector: app=guarded, cpu: 100m}
- {name: plain, namespace: $NS, selector: app=plain, cpu: 100m}
YAML
start_sim "$WORK/scenario.yaml"
start_controller

for app in guarded plain; do
  wait_for 120 "$app holds 2 replicas at its target, on metrics" at_target "$app"
done
[ "$(replicas guarded)" -eq 2 ] && [ "$(replicas plain)" -eq 2 ] || fail "a workload scaled at its target"
# The fallback only now: while the metrics APIs were coming up, metrics failed for a few syncs,
# and a fallback would (rightly) have acted on that.
"${K[@]}" annotate -n "$NS" hpa guarded hpa-controller.io/fallback=after=3,replicas=4 >/dev/null
sleep 4
[ "$(replicas guarded)" -eq 2 ] || fail "guarded scaled when its fallback was set, with metrics working"

# The outage: nothing serves the metrics APIs any more.
kill -TERM "$SIM_PID"
wait "$SIM_PID" 2>/dev/null || true
START=$(now_ms)
wait_for 60 "plain reports the failed metric" reason_is plain FailedGetResourceMetric
while [ "$(replicas guarded)" -ne 4 ]; do
  [ $(( $(now_ms) - START )) -le 60000 ] || fail "guarded did not reach its fallback size 4 within 60 s of the outage"
  sleep 0.5
done
pass "guarded scaled to its fallback size 4 $(( $(now_ms) - START )) ms into the outage (3 failed syncs of 2 s)"
[ "$(active_reason guarded)" = MetricFallback ] || fail "guarded's ScalingActive reason is $(active_reason guarded)"
wait_for 20 "a MetricFallback Event on guarded" has_event guarded MetricFallback
sleep 6  # three more syncs of plain's own
[ "$(replicas plain)" -eq 2 ] || fail "plain (no fallback) changed size during the outage: $(replicas plain)"
pass "plain kept 2 replicas through the outage, as upstream"
[ "$(events guarded MetricFallback)" -eq 1 ] || fail "more than one MetricFallback Event: $(events guarded MetricFallback)"

# The metrics return: the fallback ends (the stabilization window keeps the size for now).
start_sim "$WORK/scenario.yaml"
wait_for 120 "guarded's metrics decide again" reason_is guarded ValidMetricFound
wait_for 20 "a MetricFallbackEnded Event on guarded" has_event guarded MetricFallbackEnded
[ "$(replicas plain)" -eq 2 ] || fail "plain changed size after the outage: $(replicas plain)"
pass "fallback: the guarded HPA fell back to 4 and returned to its metrics; the plain one kept its size"
