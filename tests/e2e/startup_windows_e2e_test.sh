#!/usr/bin/env bash
# Per-HPA start-up windows (hpa-controller.io/cpu-initialization-period and
# hpa-controller.io/initial-readiness-delay) on the local control plane with hpa-sim and one
# daemon: two Deployments whose new pods burn 300m of cpu (300 % of their request) until they are
# ready, 60 s after they start. HPA jvm keeps the flags' windows (5m, 30s): the pods are not ready
# within the cpu initialization period, so none counts and its metric fails, as upstream's does
# with those flags. HPA go sets both windows to 0s: a pod not ready since its start counts, with
# its burst, and it scales up. Each decision is then taken again by `explain` from a saved
# snapshot with the annotations removed and the windows given as the global flags, as
# kube-controller-manager would run with them: the same decision.
#
#   startup_windows_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
# shellcheck source=tests/e2e/lib/e2e.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/e2e.sh"
CONTROLLER=$1
SIM=$2
e2e_namespace startup-windows

objects() {
  local name annotations
  for name in jvm go; do
    annotations="{}"
    [ "$name" = go ] && annotations="{hpa-controller.io/cpu-initialization-period: 0s, hpa-controller.io/initial-readiness-delay: 0s}"
    cat <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: $name, namespace: $NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: $name}}
  template:
    metadata: {labels: {app: $name}}
    spec: {containers: [{name: app, image: example/$name, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata: {name: $name, namespace: $NS, annotations: $annotations}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: $name}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
---
EOF
  done
}
# Ready pods share 100m (50 % each of 2): at target once ready.
cat >"$WORK/scenario.yaml" <<EOF
workloads:
- {name: jvm, namespace: $NS, selector: app=jvm, cpu: 100m, startupCpu: 300m}
- {name: go, namespace: $NS, selector: app=go, cpu: 100m, startupCpu: 300m}
EOF
hpa_pick_ports METRICS_PORT CONTROL_PORT PORT
"$SIM" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --scenario "$WORK/scenario.yaml" \
  --metrics-port "$METRICS_PORT" --control-port "$CONTROL_PORT" --start-delay 1s --readiness-delay 60s \
  --serving-cert "$BACKEND_SERVING_CERT" --serving-key "$BACKEND_SERVING_KEY" --client-ca "$FRONT_PROXY_CA_CERT" \
  >"$WORK/sim.out" 2>"$WORK/sim.log" &
PIDS+=("$!")
"$CONTROLLER" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --port "$PORT" --address 127.0.0.1 --secure-port 0 \
  --leader-elect=false --horizontal-pod-autoscaler-sync-period 5s -v 2 >"$WORK/controller.log" 2>&1 &
PIDS+=("$!")
objects | "${K[@]}" create -f - >/dev/null  # create: no last-applied copy of the annotations

hpa_json() { "${K[@]}" get --raw "/apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers/$1"; }
condition_reason() { hpa_json "$1" | jq -r --arg t "$2" '.status.conditions[]? | select(.type==$t) | .reason'; }
condition_is() { [ "$(condition_reason "$1" "$2")" = "$3" ]; }
replicas() { "${K[@]}" get deployment -n "$NS" "$1" -o jsonpath='{.spec.replicas}'; }
replicas_above() { [ "$(replicas "$1")" -gt "$2" ]; }
not_ready_pods() { # pods of <app> that are Running and not Ready
  "${K[@]}" get pods -n "$NS" -l "app=$1" -o json |
    jq '[.items[] | select(.status.phase == "Running" and
         ([.status.conditions[]? | select(.type == "Ready" and .status == "False")] | length) == 1)] | length'
}
two_starting() { [ "$(not_ready_pods jvm)" -ge 2 ] && [ "$(not_ready_pods go)" -ge 2 ]; }
wait_for 40 "both Deployments' pods running, not yet ready" two_starting

wait_for 40 "go: its starting pods' burst counts (0s windows) and it scales up" replicas_above go 2
wait_for 20 "jvm: no pod counts within the flags' windows (FailedGetResourceMetric)" \
  condition_is jvm ScalingActive FailedGetResourceMetric
hpa_json jvm | jq -r '.status.conditions[] | select(.type == "ScalingActive") | .message' >"$WORK/jvm-message"
grep -q "did not receive metrics for targeted pods (pods might be unready)" "$WORK/jvm-message" ||
  fail "jvm's message: $(cat "$WORK/jvm-message")"
[ "$(replicas jvm)" = 2 ] || fail "jvm scaled to $(replicas jvm) while its pods were starting"
pass "jvm held at 2: $(cat "$WORK/jvm-message")"

# Upstream with each HPA's windows as its global flags: a snapshot of both, the annotations
# removed, explained offline with the flags. The decision is the daemon's next one from the same
# state, so both HPAs are compared with explain's desiredReplicas before they act again.
"$CONTROLLER" explain --all -n "$NS" --kubeconfig "$ADMIN_KUBECONFIG" -o json --save "$WORK/saved.yaml" \
  >"$WORK/live.json" 2>"$WORK/save.err" || fail "explain --save exited $?"
sed -e '/hpa-controller.io\/cpu-initialization-period/d' -e '/hpa-controller.io\/initial-readiness-delay/d' \
  "$WORK/saved.yaml" >"$WORK/saved-flags.yaml"
grep -Eq "hpa-controller.io/(cpu-initialization-period|initial-readiness-delay)" "$WORK/saved-flags.yaml" &&
  fail "the windows' annotations are left in the snapshot"
# The replay command --save printed (the snapshot's time and decision rules), on the edited copy.
REPLAY=$(sed -n 's/.*replay it with: //p' "$WORK/save.err")
[ -n "$REPLAY" ] || fail "no replay command printed: $(cat "$WORK/save.err")"
REPLAY=${REPLAY//"$WORK/saved.yaml"/"$WORK/saved-flags.yaml"}
explain_offline() { # <hpa> <cpu-initialization-period> <initial-readiness-delay>: its decision
  # shellcheck disable=SC2086
  "$CONTROLLER" ${REPLAY#hpa-controller } --hpa "$NS/$1" -o json \
    --horizontal-pod-autoscaler-cpu-initialization-period "$2" \
    --horizontal-pod-autoscaler-initial-readiness-delay "$3" 2>>"$WORK/offline.err" |
    jq -r '"\(.desiredReplicas) \(.status.conditions[]? | select(.type == "ScalingActive") | .reason)"'
}
live() { jq -r --arg k "$NS/$1" '.[] | select(.hpa == $k) |
  "\(.desiredReplicas) \(.status.conditions[]? | select(.type == "ScalingActive") | .reason)"' "$WORK/live.json"; }
for spec in "go 0s 0s" "jvm 5m0s 30s"; do
  read -r name period delay <<<"$spec"
  LIVE=$(live "$name")
  OFFLINE=$(explain_offline "$name" "$period" "$delay") || fail "offline explain of $name: $(tail -3 "$WORK/offline.err")"
  [ "$LIVE" = "$OFFLINE" ] || fail "$name: with its annotations $LIVE, as upstream with the flags ($period, $delay) $OFFLINE"
  pass "$name decides as upstream with --horizontal-pod-autoscaler-cpu-initialization-period=$period --horizontal-pod-autoscaler-initial-readiness-delay=$delay ($LIVE)"
done
# And the other way round: go's snapshot with the flags' defaults decides as jvm did.
OTHER=$(explain_offline go 5m0s 30s)
[ "${OTHER#* }" = FailedGetResourceMetric ] || fail "go with the default flags: $OTHER"
pass "go's pods with the default windows: $OTHER, as jvm"
echo "start-up windows e2e: all checks passed"
