#!/usr/bin/env bash
# hpa-controller.io/schedule on a live cluster: an HPA at its target (2 replicas) gets a window
# that opens at the next minute, in Asia/Kolkata (UTC+5:30: the window's own wall clock, not the
# machine's), for one minute, with minReplicas 4. While it is open the Deployment holds 4 though
# its metrics want 2, and ScalingLimited names the window; when it closes, the normal bounds
# return and the downscale stabilization window (20 s here) brings the size back to 2.
#
#   schedule_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
CONTROLLER=$1
SIM=$2
# shellcheck disable=SC1091
source "$(dirname "$0")/lib/e2e.sh"
e2e_namespace schedule-e2e
HPA_PATH=/apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers/peak
replicas() { "${K[@]}" get -n "$NS" deployment/peak -o jsonpath='{.spec.replicas}'; }
replicas_are() { [ "$(replicas)" -eq "$1" ]; }
limited_reason() {
  "${K[@]}" get --raw "$HPA_PATH" | jq -r '.status.conditions[] | select(.type == "ScalingLimited") | .reason'
}
limited_by_window() { [ "$(limited_reason)" = ScheduledMinReplicas ]; }
at_target() { "${K[@]}" get --raw "$HPA_PATH" | jq -e '.status.currentMetrics[0].resource.current.averageUtilization == 50'; }

apply_cpu_hpa peak '{hpa-controller.io/sync-period: 2s}'
# 100m in all: 50 % of 2 pods' 100m requests, the target; 25 % over 4 pods.
cat >"$WORK/scenario.yaml" <<YAML
workloads:
- {name: peak, namespace: $NS, selector: app=peak, cpu: 100m}
YAML
start_sim "$WORK/scenario.yaml"
start_controller --horizontal-pod-autoscaler-downscale-stabilization=20s
wait_for 120 "peak holds 2 replicas at its target, on metrics" at_target
replicas_are 2 || fail "peak scaled at its target: $(replicas)"

# The window: the first whole minute at least 15 s away, written in Kolkata's wall clock.
OPENS=$(( ($(date +%s) + 15 + 59) / 60 * 60 ))
CLOSES=$(( OPENS + 60 ))
START=$(TZ=Asia/Kolkata date -d "@$OPENS" +'%-M %-H %-d %-m *')
"${K[@]}" annotate -n "$NS" hpa peak --overwrite \
  "hpa-controller.io/schedule=[{name: rush, start: '$START', duration: 1m, timeZone: Asia/Kolkata, minReplicas: 4}]" \
  >/dev/null
pass "window rush: '$START' Asia/Kolkata, open $(date -u -d "@$OPENS" +%T)Z-$(date -u -d "@$CLOSES" +%T)Z"
while [ "$(date +%s)" -lt $(( OPENS - 2 )) ]; do
  replicas_are 2 || fail "peak scaled to $(replicas) before the window opened"
  sleep 1
done
pass "peak kept 2 replicas until the window opened"

wait_for 15 "peak scaled to the window's floor of 4" replicas_are 4
wait_for 10 "ScalingLimited names the window (ScheduledMinReplicas)" limited_by_window
"${K[@]}" get events -n "$NS" --field-selector involvedObject.name=peak,reason=SuccessfulRescale \
  -o jsonpath='{.items[*].message}' | grep -q "below the minReplicas of schedule window rush" ||
  fail "no SuccessfulRescale Event naming the window"
while [ "$(date +%s)" -lt $(( CLOSES - 2 )) ]; do
  replicas_are 4 || fail "peak left the floor of 4 while the window was open: $(replicas)"
  sleep 1
done
pass "peak held 4 replicas, its metrics wanting 2, while the window was open"

# Closed: the stabilization window remembers the floor for 20 s, then lets go.
sleep 10
replicas_are 4 || fail "peak dropped to $(replicas) at once when the window closed (the stabilization window should hold it)"
wait_for 40 "peak back to 2 replicas after the window closed and the stabilization window passed" replicas_are 2
[ "$(limited_reason)" != ScheduledMinReplicas ] || fail "ScalingLimited still names the closed window"
pass "schedule: a window opened, held its floor, closed, and the size came back down through the stabilization window"
