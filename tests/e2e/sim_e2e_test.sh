#!/usr/bin/env bash
# hpa-sim on the local control plane: Deployment pods become Running and Ready; PodMetrics,
# custom (pods and object) and external metrics come through the kube-apiserver with the load
# model's values; the aggregator is let in, a direct caller without the front-proxy certificate
# is refused; SIGTERM removes the APIServices.
#
#   sim_e2e_test.sh HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
# shellcheck source=tests/e2e/lib/e2e.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/e2e.sh"
SIM=$1
: "${HPA_E2E_DIR:?HPA_E2E_DIR must point at a running local cluster}"
# shellcheck disable=SC1091
source "$HPA_E2E_DIR/env"
K=("$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG")
NS=sim-e2e-$$
WORK=$(mktemp -d)
SIM_PID=""
cleanup() {
  local code=$?
  [ -n "$SIM_PID" ] && kill -TERM "$SIM_PID" 2>/dev/null && wait "$SIM_PID" 2>/dev/null
  [ $code -ne 0 ] && tail -20 "$WORK/sim.log"
  rm -rf "$WORK"
  exit $code
}
trap cleanup EXIT

"${K[@]}" create namespace "$NS" >/dev/null
wait_for 30 "default ServiceAccount" "${K[@]}" get sa default -n "$NS"
"${K[@]}" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: $NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: example/web, resources: {requests: {cpu: 100m}}}]}
YAML
cat >"$WORK/scenario.yaml" <<YAML
workloads:
- {name: web, namespace: $NS, selector: app=web, cpu: 500m, memory: 200Mi}
podMetrics:
- {workload: web, metric: http_requests, total: "30"}
objectMetrics:
- {namespace: $NS, resource: services, name: front, metric: rps, value: "42"}
externalMetrics:
- {namespace: $NS, metric: queue_depth, labels: {queue: jobs}, value: "7"}
YAML
hpa_pick_ports METRICS_PORT CONTROL_PORT
# No --serving-cert: hpa-sim makes its own.
"$SIM" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --scenario "$WORK/scenario.yaml" \
  --metrics-port "$METRICS_PORT" --control-port "$CONTROL_PORT" --client-ca "$FRONT_PROXY_CA_CERT" \
  >"$WORK/sim.out" 2>"$WORK/sim.log" &
SIM_PID=$!
wait_for 20 "hpa-sim announces its ports" grep -q "metrics-port=$METRICS_PORT" "$WORK/sim.out"
ready_pods() { [ "$("${K[@]}" get pods -n "$NS" -l app=web -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{" "}{end}')" = "True True " ]; }
wait_for 60 "both Deployment pods Running and Ready" ready_pods

raw() { "${K[@]}" get --raw "$1"; }
pod_cpu() { raw "/apis/metrics.k8s.io/v1beta1/namespaces/$NS/pods?labelSelector=app%3Dweb" | jq -r '[.items[].containers[0].usage.cpu] | join(",")'; }
wait_for 90 "PodMetrics through the aggregator: 500m over 2 Ready pods" bash -c "[ \"\$($(declare -f raw pod_cpu); K=(${K[*]}); NS=$NS; pod_cpu)\" = '250m,250m' ]"
# Each APIService becomes Available on its own: the custom and external groups may still be
# missing from the aggregator's discovery when metrics.k8s.io already answers.
custom_pods() { raw "/apis/custom.metrics.k8s.io/v1beta2/namespaces/$NS/pods/*/http_requests?labelSelector=app%3Dweb" | jq -r '[.items[].value] | join(",")'; }
object_metric() { raw "/apis/custom.metrics.k8s.io/v1beta1/namespaces/$NS/services/front/rps" | jq -r '"\(.items[0].metricName)=\(.items[0].value)"'; }
external_metric() { raw "/apis/external.metrics.k8s.io/v1beta1/namespaces/$NS/queue_depth?labelSelector=queue%3Djobs" | jq -r '.items[0].value'; }
wait_for 30 "custom pods metric (v1beta2): 30 over 2 pods" bash -c "[ \"\$($(declare -f raw custom_pods); K=(${K[*]}); NS=$NS; custom_pods)\" = '15,15' ]"
wait_for 30 "custom object metric (v1beta1 shape): 42" bash -c "[ \"\$($(declare -f raw object_metric); K=(${K[*]}); NS=$NS; object_metric)\" = 'rps=42' ]"
wait_for 30 "external metric: 7" bash -c "[ \"\$($(declare -f raw external_metric); K=(${K[*]}); NS=$NS; external_metric)\" = '7' ]"
curl -s -X POST "http://127.0.0.1:$CONTROL_PORT/set" -d "{\"workload\":\"web\",\"cpu\":\"900m\"}" >/dev/null
wait_for 10 "live change through the control endpoint" bash -c "[ \"\$($(declare -f raw pod_cpu); K=(${K[*]}); NS=$NS; pod_cpu)\" = '450m,450m' ]"
if curl -sk --max-time 5 "https://127.0.0.1:$METRICS_PORT/apis/metrics.k8s.io/v1beta1" >/dev/null 2>&1; then
  fail "a direct caller without the front-proxy client certificate was served"
fi
pass "direct unauthenticated requests refused"
kill -TERM "$SIM_PID"
set +e
wait "$SIM_PID"
CODE=$?
set -e
SIM_PID=""
[ "$CODE" -eq 0 ] || fail "hpa-sim exit code $CODE on SIGTERM"
"${K[@]}" get apiservice v1beta1.metrics.k8s.io >/dev/null 2>&1 && fail "APIService left behind"
pass "SIGTERM: exit 0, APIServices removed"
echo "sim e2e: all checks passed"
