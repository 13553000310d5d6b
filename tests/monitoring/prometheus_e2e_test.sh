#!/usr/bin/env bash
# deploy/monitoring/ on a real Prometheus (Debian's) against the local cluster:
#   - Prometheus scrapes hpa-controller's secure /metrics as scrape-config.yaml says (HTTPS, the
#     token of the ServiceAccount monitoring/prometheus-k8s that deploy/monitoring's RBAC lets GET
#     /metrics; the controller asks the real API server with a TokenReview and a
#     SubjectAccessReview), with the certificate verified as docs/operations.md says for a serving
#     certificate of your own (here the cluster CA's), and a shadow beside it the same way: up == 1
#     for both jobs;
#   - every recording rule of rules.yaml and rules-shadow.yaml and every query of every
#     dashboard.json panel
#     evaluates without error and returns series;
#   - taking external.metrics.k8s.io away (its APIService pointed at a dead port) makes
#     HpaScalingInactive pending, then firing, for the HPA on that API only (not for the one on
#     cpu), and it resolves once the API is back.
# The rules are a copy rendered here with every `for:` shortened (the shipped ones are unchanged);
# Prometheus runs on a free loopback port with its data in the test's scratch directory.
#
#   prometheus_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
CONTROLLER=$1
SIM=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MONITORING=$ROOT/deploy/monitoring
# shellcheck source=tests/e2e/lib/e2e.sh
source "$ROOT/tests/e2e/lib/e2e.sh"
command -v prometheus >/dev/null || fail "prometheus is not installed (hack/install-deps.sh installs it)"
e2e_namespace monitoring-e2e
FOR=12s  # every alert's `for:` in the test copy of the rules
monitoring_cleanup() {
  "${K[@]}" delete -f "$MONITORING/rbac.yaml" --ignore-not-found >/dev/null 2>&1 || true
  "${K[@]}" delete namespace monitoring --wait=false >/dev/null 2>&1 || true
}
# e2e_cleanup exits with the status it finds in $?: the script's, not monitoring_cleanup's.
exit_cleanup() {
  local status=$?
  set +e
  monitoring_cleanup
  (exit "$status")
  e2e_cleanup
}
trap exit_cleanup EXIT

# --- RBAC as deploy/ and deploy/monitoring/ ship it; the controller runs as its ServiceAccount
"${K[@]}" apply -f "$ROOT/deploy/base/namespace.yaml" -f "$ROOT/deploy/base/rbac.yaml" >/dev/null
"${K[@]}" create namespace monitoring >/dev/null 2>&1 || true
"${K[@]}" create serviceaccount prometheus-k8s -n monitoring >/dev/null 2>&1 || true
"${K[@]}" apply -f "$MONITORING/rbac.yaml" >/dev/null
sa_kubeconfig monitoring prometheus-k8s "$WORK/prometheus.kubeconfig"
printf '%s' "$TOKEN" >"$WORK/prometheus.token"
sa_kubeconfig hpa-controller hpa-controller "$WORK/controller.kubeconfig"

# --- two HPAs: web on cpu (metrics.k8s.io), worker on an external metric (external.metrics.k8s.io)
for app in web worker; do apply_cpu_hpa "$app" '{}'; done
"${K[@]}" patch horizontalpodautoscalers.v2beta2.autoscaling worker -n "$NS" --type merge -p '{"spec": {"metrics": [
  {"type": "External", "external": {"metric": {"name": "queue_depth", "selector": {"matchLabels": {"queue": "jobs"}}},
                                    "target": {"type": "AverageValue", "averageValue": "5"}}}]}}' >/dev/null
cat >"$WORK/scenario.yaml" <<YAML
workloads:
- {name: web, namespace: $NS, selector: app=web, cpu: 100m}
- {name: worker, namespace: $NS, selector: app=worker, cpu: 100m}
externalMetrics:
- {namespace: $NS, metric: queue_depth, labels: {queue: jobs}, value: "10"}
YAML
start_sim "$WORK/scenario.yaml"
hpa_pick_ports CONTROLLER_PORT SHADOW_PORT PROMETHEUS_PORT DEAD_PORT

# --- the shadow first (it compares the status writes it sees), then the controller; both serve
# HTTPS with a certificate of the cluster CA, as scrape-config.yaml expects
serving=(--namespace "$NS" --leader-elect=false --bind-address 127.0.0.1 --horizontal-pod-autoscaler-sync-period 2s
  --tls-cert-file "$BACKEND_SERVING_CERT" --tls-private-key-file "$BACKEND_SERVING_KEY" -v 2)
"$CONTROLLER" --kubeconfig "$ADMIN_KUBECONFIG" --shadow --secure-port "$SHADOW_PORT" "${serving[@]}" \
  2>"$WORK/shadow.log" &
PIDS+=("$!")
"$CONTROLLER" --kubeconfig "$WORK/controller.kubeconfig" --secure-port "$CONTROLLER_PORT" "${serving[@]}" \
  2>"$WORK/controller.log" &
PIDS+=("$!")

# --- Prometheus: the shipped jobs with the cluster's CA and token, the endpoints static (no
# in-cluster discovery on a bare control plane), the test copy of the rules
python3 "$HERE/render_prometheus_config.py" --scrape-config "$MONITORING/scrape-config.yaml" \
  --rules "$MONITORING/rules.yaml" --rules "$MONITORING/rules-shadow.yaml" --for "$FOR" --ca "$CA_CERT" --token "$WORK/prometheus.token" \
  --server-name localhost --target "hpa-controller=127.0.0.1:$CONTROLLER_PORT" \
  --target "hpa-controller-shadow=127.0.0.1:$SHADOW_PORT" --out "$WORK"
prometheus --config.file "$WORK/prometheus.yml" --storage.tsdb.path "$WORK/data" \
  --web.listen-address "127.0.0.1:$PROMETHEUS_PORT" --log.level warn >"$WORK/prometheus.log" 2>&1 &
PIDS+=("$!")
PROM=http://127.0.0.1:$PROMETHEUS_PORT

# query <promql>: the API's answer (JSON); fails on an error status.
query() { curl -sf --max-time 10 "$PROM/api/v1/query" --data-urlencode "query=$1"; }
series_count() { query "$1" | jq '.data.result | length'; }
has_series() { [ "$(series_count "$1")" -ge 1 ]; }
scraped() { [ "$(query "up{job=\"$1\"}" | jq -r '.data.result[0].value[1]')" = 1 ]; }
# alerts <state> <alertname>: the names of the HPAs the alert is in that state for, sorted.
alerts() {
  curl -sf "$PROM/api/v1/alerts" |
    jq -r --arg s "$1" --arg a "$2" '[.data.alerts[] | select(.state == $s and .labels.alertname == $a) | .labels.name] | sort | join(",")'
}
alert_is() { [ "$(alerts "$1" HpaScalingInactive)" = "$2" ]; }
scaling_active() { [ "$(query "hpa_controller_scaling_active{job=\"hpa-controller\", name=\"$1\"}" | jq -r '.data.result[0].value[1]')" = "$2" ]; }

wait_for 60 "Prometheus ready" curl -sf "$PROM/-/ready"
wait_for 90 "hpa-controller scraped over HTTPS with the ServiceAccount token: up == 1" scraped hpa-controller
wait_for 30 "the shadow scraped the same way: up == 1" scraped hpa-controller-shadow
if ! grep -q "credentials_file: $WORK/prometheus.token" "$WORK/prometheus.yml" || grep -q "$TOKEN" "$WORK/prometheus.yml"; then
  fail "the rendered configuration should read the token from its file, not hold it"
fi
for hpa in web worker; do wait_for 120 "$hpa's metrics read: ScalingActive 1" scaling_active "$hpa" 1; done
# While the metrics APIs came up the HPAs were not ScalingActive for a moment: that goes.
no_alert() { alert_is pending "" && alert_is firing ""; }
wait_for 30 "no HpaScalingInactive with the metrics working" no_alert

# --- the outage: external.metrics.k8s.io points at a port nothing listens on
APISERVICE=v1beta1.external.metrics.k8s.io
SIM_METRICS_PORT=$("${K[@]}" get apiservice "$APISERVICE" -o jsonpath='{.spec.service.port}')
"${K[@]}" patch apiservice "$APISERVICE" --type merge -p "{\"spec\":{\"service\":{\"port\":$DEAD_PORT}}}" >/dev/null
START=$(now_ms)
wait_for 60 "HpaScalingInactive pending for worker only" alert_is pending worker
wait_for 60 "HpaScalingInactive firing for worker only, after its for: $FOR" alert_is firing worker
pass "firing $(( $(now_ms) - START )) ms into the outage"
scaling_active web 1 || fail "web lost ScalingActive in an outage of the external metrics API"
"${K[@]}" patch apiservice "$APISERVICE" --type merge -p "{\"spec\":{\"service\":{\"port\":$SIM_METRICS_PORT}}}" >/dev/null
wait_for 90 "worker's metrics read again: ScalingActive 1" scaling_active worker 1
wait_for 30 "HpaScalingInactive resolved" alert_is firing ""
alert_is pending "" || fail "HpaScalingInactive still pending for $(alerts pending HpaScalingInactive)"

# --- every recording rule and every dashboard query returns series (after the outage, so the
# error series exist too)
python3 "$HERE/monitoring_queries.py" --rules "$MONITORING/rules.yaml" --rules "$MONITORING/rules-shadow.yaml" --dashboard "$MONITORING/dashboard.json" \
  --var job=hpa-controller --var namespace=.* --var hpa=.* >"$WORK/queries.txt"
checked=0
while IFS=$'\t' read -r what expr; do
  answer=$(query "$expr") || fail "$what: the query failed: $expr"
  [ "$(jq '.data.result | length' <<<"$answer")" -ge 1 ] || fail "$what: no series: $expr"
  checked=$((checked + 1))
done <"$WORK/queries.txt"
pass "$checked recording rules and dashboard queries evaluate and return series"
unhealthy=$(curl -sf "$PROM/api/v1/rules" | jq -r '[.data.groups[].rules[] | select(.health != "ok") | "\(.name): \(.lastError)"] | join("; ")')
[ -z "$unhealthy" ] || fail "rules that failed to evaluate: $unhealthy"
pass "every rule of the test copy evaluates without error"
