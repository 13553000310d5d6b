#!/usr/bin/env bash
# hpa-controller.io/metric-sources end to end: two hpa-sim instances, each serving one external
# metric behind its own selectorless Service (manual Endpoints at this machine's address), none of
# them the external metrics APIService (a third hpa-sim is). One HPA reads one metric from each:
# both values in its status, the larger proposal decides. Then one route goes to a Service whose
# hpa-sim refuses the controller's token: that metric fails as a failing APIService fails it
# (FailedGetExternalMetric, naming the route), the other still decides a scale-up; and once the
# route is removed the same metric fails the same way through the default APIService, which does
# not serve it; with every metric failing, ScalingActive is False with the refused route's reason
# and message. The controller runs as a ServiceAccount (its token is what the adapters see).
#
#   metric_sources_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/e2e/lib/e2e.sh
source "$ROOT/tests/e2e/lib/e2e.sh"
# shellcheck source=hack/lib/pki.sh
source "$ROOT/hack/lib/pki.sh"
# shellcheck source=hack/lib/metrics-ready.sh
source "$ROOT/hack/lib/metrics-ready.sh"
CONTROLLER=$1
SIM=$2
e2e_namespace routing
# Endpoints refuse loopback addresses: the adapters listen on an address of this machine.
HOST_IP=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9.]+$' | grep -v '^127\.' | head -1 || true)
[ -n "$HOST_IP" ] || fail "no non-loopback IPv4 address on this machine for the adapters' Endpoints"

hpa_json() { "${K[@]}" get --raw "/apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers/worker"; }
desired_is() { [ "$(hpa_json | jq '.status.desiredReplicas')" = "$1" ]; }
condition_reason() { hpa_json | jq -r --arg t "$1" '.status.conditions[]? | select(.type==$t) | .reason'; }
current_of() { # <metric>: its averageValue in the HPA's status
  hpa_json | jq -r --arg m "$1" '.status.currentMetrics[]? | select(.external.metric.name==$m) | .external.current.averageValue'
}
both_current() { [ -n "$(current_of depth_a)" ] && [ -n "$(current_of depth_b)" ]; }
event_messages() { # <reason>
  "${K[@]}" get events -n "$NS" --field-selector "involvedObject.name=worker,reason=$1" -o json | jq -r '.items[].message'
}
event_names() { event_messages "$1" | grep -qF "$2"; }

# --- the controller's identity: a ServiceAccount token, which the adapters are given to accept
"${K[@]}" create serviceaccount routing -n "$NS" >/dev/null
"${K[@]}" create clusterrolebinding "routing-$NS" --clusterrole=cluster-admin --serviceaccount="$NS:routing" >/dev/null
cleanup_routing() { # the binding, then e2e_cleanup with the script's exit status
  local code=$?
  set +e
  "${K[@]}" delete clusterrolebinding "routing-$NS" >/dev/null 2>&1
  (exit "$code")
  e2e_cleanup
}
trap cleanup_routing EXIT
sa_kubeconfig "$NS" routing "$WORK/sa.kubeconfig"

# --- sim-a's serving certificate names its Service (verified against caBundle); sim-b and sim-c
# use throw-away ones (insecureSkipTLSVerify)
hpa_pki_req_config "$WORK"
hpa_pki_ca "$WORK" routing-ca routing-ca
hpa_pki_leaf "$WORK" routing-ca sim-a "/CN=sim-a" server ec "DNS:sim-a.$NS.svc"
CA_BUNDLE=$(base64 -w0 <"$WORK/routing-ca.crt")

# adapter <name> <metric> <value> <token> [flag...]: an hpa-sim serving one external metric of NS
# on HOST_IP, registering no APIService, behind a selectorless Service <name> with manual Endpoints;
# sets CONTROL (its POST /set port).
adapter() {
  local name=$1 metric=$2 value=$3 token=$4 port control
  shift 4
  hpa_pick_ports port control
  printf 'externalMetrics:\n- {namespace: %s, metric: %s, value: "%s"}\n' "$NS" "$metric" "$value" >"$WORK/$name.yaml"
  "$SIM" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS-$name" --scenario "$WORK/$name.yaml" \
    --metrics-port "$port" --metrics-address "$HOST_IP" --control-port "$control" --register-apiservices=false \
    --bearer-token "$token" "$@" >"$WORK/$name.out" 2>"$WORK/$name.log" &
  PIDS+=("$!")
  CONTROL=$control
  "${K[@]}" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Service
metadata: {name: $name, namespace: $NS}
spec:
  ports: [{name: https, port: 443, targetPort: $port}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: $name, namespace: $NS}
subsets:
- addresses: [{ip: "$HOST_IP"}]
  ports: [{name: https, port: $port}]
YAML
}
adapter sim-a depth_a 60 "$TOKEN" --serving-cert "$WORK/sim-a.crt" --serving-key "$WORK/sim-a.key"
SIM_A_CONTROL=$CONTROL
adapter sim-b depth_b 40 "$TOKEN"
adapter sim-c depth_b 40 "not-the-controllers-token"

# --- the third hpa-sim: the kubelet of NS and the registered metrics APIs (no depth_a, depth_b)
printf 'workloads:\n- {name: worker, namespace: %s, selector: app=worker, cpu: 50m}\n' "$NS" >"$WORK/scenario.yaml"
start_sim "$WORK/scenario.yaml"
wait_for 90 "metrics APIs Available (the third hpa-sim)" hpa_metrics_apis_available

routes() { # <depth_b's source, a YAML flow map, or empty for none>
  local b=""
  [ -n "$1" ] && b="
  - {type: External, name: depth_b, source: $1}"
  "${K[@]}" annotate hpa worker -n "$NS" --overwrite "hpa-controller.io/metric-sources=
  - {type: External, name: depth_a, source: {service: {namespace: $NS, name: sim-a}, caBundle: $CA_BUNDLE}}$b" >/dev/null
}
"${K[@]}" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker, namespace: $NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec: {containers: [{name: app, image: example/worker, resources: {requests: {cpu: 100m}}}]}
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
    external: {metric: {name: depth_a}, target: {type: AverageValue, averageValue: "10"}}
  - type: External
    external: {metric: {name: depth_b}, target: {type: AverageValue, averageValue: "10"}}
YAML
routes "{service: {namespace: $NS, name: sim-b}, insecureSkipTLSVerify: true}"

hpa_pick_ports PORT
"$CONTROLLER" --kubeconfig "$WORK/sa.kubeconfig" --namespace "$NS" --port "$PORT" --address 127.0.0.1 \
  --secure-port 0 --leader-elect=false --horizontal-pod-autoscaler-sync-period 2s -v 2 \
  --metric-source-service-namespaces "kube-system,$NS" 2>"$WORK/controller.log" &
PIDS+=("$!")

# --- both routes: depth_a 60 -> ceil(60 / 10) = 6, depth_b 40 -> 4; the larger decides
wait_for 60 "both routed metrics in the HPA's status" both_current
wait_for 30 "desiredReplicas 6: the larger of depth_a's 6 and depth_b's 4" desired_is 6
[ "$(condition_reason ScalingActive)" = ValidMetricFound ] || fail "ScalingActive: $(condition_reason ScalingActive)"
[ -z "$(event_messages FailedGetExternalMetric)" ] || fail "a routed metric failed: $(event_messages FailedGetExternalMetric)"
grep "metric route resolved" "$WORK/controller.log" | grep -qF "$HOST_IP" || fail "no route resolved to $HOST_IP in the controller's log"
pass "depth_a from sim-a ($(current_of depth_a) per pod), depth_b from sim-b ($(current_of depth_b) per pod)"

# --- depth_b routed to sim-c, which refuses the controller's token: depth_b fails as when its
# APIService fails; depth_a still decides a scale-up (60 -> 90: ceil(90 / 10) = 9)
routes "{service: {namespace: $NS, name: sim-c}, insecureSkipTLSVerify: true}"
wait_for 30 "depth_b refused by sim-c: FailedGetExternalMetric naming the route" \
  event_names FailedGetExternalMetric "unable to fetch metrics from external metrics API at service $NS/sim-c:443"
curl -sf -X POST "http://127.0.0.1:$SIM_A_CONTROL/set" -d '{"external": "depth_a", "value": "90"}' >/dev/null
wait_for 30 "depth_a alone decides the scale-up to 9 while depth_b fails" desired_is 9
ROUTED=$(event_messages FailedGetExternalMetric | grep -F "service $NS/sim-c:443" | head -1)

# --- no route for depth_b: the default APIService (the third hpa-sim) does not serve it (an
# empty list, which upstream reports unwrapped)
routes ""
wait_for 30 "depth_b through the default APIService: FailedGetExternalMetric too" \
  event_names FailedGetExternalMetric "depth_b/nil: no metrics returned from external metrics API"
DEFAULT=$(event_messages FailedGetExternalMetric | grep -F "depth_b/nil: no metrics returned" | head -1)
echo "  routed:  $ROUTED"
echo "  default: $DEFAULT"
[ "$(condition_reason ScalingActive)" = ValidMetricFound ] || fail "ScalingActive: $(condition_reason ScalingActive)"

# --- every metric failing, the first through a refusing route: ScalingActive False with that
# metric's reason and the route in its message, as a failing APIService's
"${K[@]}" annotate hpa worker -n "$NS" --overwrite "hpa-controller.io/metric-sources=
  - {type: External, name: depth_a, source: {service: {namespace: $NS, name: sim-c}, insecureSkipTLSVerify: true}}" >/dev/null
active_message() { hpa_json | jq -r '.status.conditions[]? | select(.type=="ScalingActive") | .message'; }
refused_condition() {
  [ "$(condition_reason ScalingActive)" = FailedGetExternalMetric ] && active_message | grep -qF "at service $NS/sim-c:443"
}
wait_for 30 "ScalingActive False FailedGetExternalMetric, naming the route" refused_condition
desired_is 9 || fail "the size changed with every metric failing: $(hpa_json | jq .status.desiredReplicas)"
echo "metric sources e2e: all checks passed"
