#!/usr/bin/env bash
# hpa-controller.io/forecast on a live cluster, its history from a real Prometheus (Debian's):
# Prometheus on a free loopback port, its storage in the test's scratch directory, backfilled with
# `promtool tsdb create-blocks-from openmetrics` with two weeks of a daily cycle that ends now:
# hpa_e2e_load_cores{app="peak"} is 0.08 cores all day but for six hours from 2 minutes after
# this instant of each day (0.32 cores); app="offpeak" has the same day twelve hours later. Two
# Deployments of 2 pods (100m requests, 50 % target: 0.05 cores a pod) run at their target on
# 100m of simulated load, and each HPA forecasts 20 minutes ahead from its series:
#   (a) Preview: the forecast and the floor are exported (peak: 0.32 cores and the default 5 %
#       margin, 7 replicas; offpeak: 0.08 and the margin, 2), the Forecast condition is ForecastPreview, and nothing scales; explain, live,
#       reading the same Prometheus itself, shows peak's floor;
#   (b) Active: peak is raised to 7 while its load is still 100m (the phase the history predicts;
#       offpeak, whose history is low at that phase, stays at 2), then its load rises to 320m and
#       it has the replicas already;
#   (c) Prometheus stopped: once the last history is older than three refreshes (5 s each here) the
#       condition is NoForecastHistory saying Prometheus is unreachable, the floor is gone from
#       /metrics, and reactive scaling goes on: the load back at 100m, peak comes down to 2.
#
#   forecast_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
CONTROLLER=$1
SIM=$2
# shellcheck disable=SC1091
source "$(dirname "$0")/lib/e2e.sh"
for tool in prometheus promtool; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (hack/install-deps.sh installs it)"
done
e2e_namespace forecast-e2e
HPA_PATH=/apis/autoscaling/v2beta2/namespaces/$NS/horizontalpodautoscalers

# --- two weeks of a daily cycle, one sample a minute, ending now
NOW=$(date +%s)
python3 - "$NOW" "$NS" >"$WORK/history.om" <<'PY'
import sys
now, ns = int(sys.argv[1]), sys.argv[2]
day = 86400
print("# HELP hpa_e2e_load_cores A workload's load, in cores.")
print("# TYPE hpa_e2e_load_cores gauge")
for app, rise in (("peak", 120), ("offpeak", 120 + day // 2)):
    for t in range(now - 14 * day, now + 1, 60):
        value = 0.32 if (t - now - rise) % day < 6 * 3600 else 0.08
        print(f'hpa_e2e_load_cores{{namespace="{ns}",app="{app}"}} {value} {t}')
print("# EOF")
PY
promtool tsdb create-blocks-from openmetrics -q --max-block-duration=360h "$WORK/history.om" \
  "$WORK/prometheus-data" >"$WORK/promtool.log" 2>&1 || fail "promtool: $(cat "$WORK/promtool.log")"
printf 'global: {}\nscrape_configs: []\n' >"$WORK/prometheus.yml"
hpa_pick_ports PROMETHEUS_PORT
prometheus --config.file "$WORK/prometheus.yml" --storage.tsdb.path "$WORK/prometheus-data" \
  --storage.tsdb.retention.time 30d --web.listen-address "127.0.0.1:$PROMETHEUS_PORT" --log.level warn \
  >"$WORK/prometheus.log" 2>&1 &
PROMETHEUS_PID=$!
PIDS+=("$PROMETHEUS_PID")
PROM=http://127.0.0.1:$PROMETHEUS_PORT
two_weeks_served() {
  curl -sf "$PROM/api/v1/query_range" --data-urlencode "query=sum(hpa_e2e_load_cores{app=\"peak\"})" \
    --data-urlencode "start=$((NOW - 14 * 86400))" --data-urlencode "end=$NOW" --data-urlencode step=300 |
    jq -e '.data.result[0].values | length > 4000'
}
wait_for 30 "Prometheus serves the two backfilled weeks" two_weeks_served

# --- peak and offpeak at their target on 100m each
for app in peak offpeak; do apply_cpu_hpa "$app" '{hpa-controller.io/sync-period: 2s}'; done
cat >"$WORK/scenario.yaml" <<YAML
workloads:
- {name: peak, namespace: $NS, selector: app=peak, cpu: 100m}
- {name: offpeak, namespace: $NS, selector: app=offpeak, cpu: 100m}
YAML
start_sim "$WORK/scenario.yaml"
start_controller --horizontal-pod-autoscaler-downscale-stabilization=10s \
  --forecast-prometheus-url "$PROM" --forecast-history-refresh 5s

replicas() { "${K[@]}" get -n "$NS" deployment/"$1" -o jsonpath='{.spec.replicas}'; }
replicas_are() { [ "$(replicas "$1")" -eq "$2" ]; }
at_target() { "${K[@]}" get --raw "$HPA_PATH/$1" | jq -e '.status.currentMetrics[0].resource.current.averageUtilization == 50'; }
# condition <hpa> <type>: "<status> <reason> <message>" of that condition.
condition() {
  "${K[@]}" get --raw "$HPA_PATH/$1" |
    jq -r --arg t "$2" '.status.conditions[] | select(.type == $t) | "\(.status) \(.reason) \(.message)"'
}
forecast_reason_is() { [ "$(condition "$1" Forecast | cut -d' ' -f2)" = "$2" ]; }
# exported <metric> <hpa>: the sample's value on /metrics, empty when there is none.
exported() {
  curl -s "http://127.0.0.1:$PORT/metrics" |
    awk -v m="$1" -v name="name=\"$2\"" -v ns="namespace=\"$NS\"" \
      'index($1, m "{") == 1 && index($1, name) && index($1, ns) { print $2 }'
}
exported_is() { [ "$(exported "$1" "$2")" = "$3" ]; }
forecast_between() { awk -v v="$(exported hpa_controller_forecast_value "$1")" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }
set_load() { curl -sf -X POST "http://127.0.0.1:$SIM_CONTROL_PORT/set" -d "[{\"workload\": \"$1\", \"cpu\": \"$2\"}]" >/dev/null; }
forecast() {
  "${K[@]}" annotate -n "$NS" hpa "$1" --overwrite \
    "hpa-controller.io/forecast={mode: $2, lead: 20m, query: 'sum(hpa_e2e_load_cores{namespace=\"$NS\",app=\"$1\"})'}" >/dev/null
}

for app in peak offpeak; do wait_for 120 "$app holds 2 replicas at its target, on metrics" at_target "$app"; done

# --- (a) Preview: everything shown, nothing changed
for app in peak offpeak; do forecast "$app" Preview; done
wait_for 30 "peak's Forecast condition is ForecastPreview" forecast_reason_is peak ForecastPreview
wait_for 10 "peak's floor exported: 7 replicas" exported_is hpa_controller_forecast_floor_replicas peak 7
forecast_between peak 0.31 0.35 || fail "peak's forecast: $(exported hpa_controller_forecast_value peak), expected about 0.34 cores (0.32 and the default 5 % margin)"
wait_for 10 "offpeak's floor exported: 2 replicas (its history is low 20 minutes from now)" \
  exported_is hpa_controller_forecast_floor_replicas offpeak 2
forecast_between offpeak 0.075 0.095 || fail "offpeak's forecast: $(exported hpa_controller_forecast_value offpeak), expected about 0.084 cores (0.08 and the default 5 % margin)"
pass "forecasts: peak $(exported hpa_controller_forecast_value peak), offpeak $(exported hpa_controller_forecast_value offpeak) cores"
seen=$(reconciles peak)
while [ "$(reconciles peak)" -lt $((seen + 3)) ]; do
  replicas_are peak 2 || fail "peak scaled to $(replicas peak) in Preview"
  sleep 1
done
replicas_are peak 2 || fail "peak scaled to $(replicas peak) in Preview"
pass "Preview: three more reconciles, peak still at 2 replicas"
# explain, live, reads the same Prometheus with the HPA's query and shows the same floor.
"$CONTROLLER" explain --kubeconfig "$ADMIN_KUBECONFIG" -n "$NS" peak -o text \
  --forecast-prometheus-url "$PROM" >"$WORK/explain-peak.txt" 2>&1 ||
  fail "explain --forecast-prometheus-url: $(cat "$WORK/explain-peak.txt")"
grep -q "floor 7 replicas" "$WORK/explain-peak.txt" ||
  fail "explain must show peak's floor of 7: $(cat "$WORK/explain-peak.txt")"
pass "explain, reading Prometheus itself, shows peak's floor of 7"

# --- (b) Active: the floor raises peak before its load rises
for app in peak offpeak; do forecast "$app" Active; done
wait_for 20 "peak raised to its floor of 7, its load still 100m" replicas_are peak 7
# The status is written after the scale: a status write that conflicts with the annotation's edit
# is retried at the next sync, so the conditions may follow the replicas by a sync.
wait_for 20 "peak's Forecast condition is ForecastFloor" forecast_reason_is peak ForecastFloor
limited_by_floor() { [ "$(condition peak ScalingLimited | cut -d' ' -f2)" = ForecastFloor ]; }
wait_for 20 "ScalingLimited names the forecast floor" limited_by_floor
replicas_are offpeak 2 || fail "offpeak scaled to $(replicas offpeak): its history is low at this phase"
set_load peak 320m
sleep 6
replicas_are peak 7 || fail "peak at $(replicas peak) after its load rose to 320m (7 pods hold it under the target)"
pass "Active: peak had its 7 replicas before the load rose to 320m, offpeak stayed at 2"

# --- (c) Prometheus gone: after the stale period the floor goes, reactive scaling goes on
hpa_stop prometheus "$PROMETHEUS_PID"
no_history() { forecast_reason_is peak NoForecastHistory; }
wait_for 40 "peak's Forecast condition is NoForecastHistory" no_history
condition peak Forecast | grep -q "unreachable" || fail "the condition should say why: $(condition peak Forecast)"
pass "condition: $(condition peak Forecast)"
wait_for 10 "peak's floor no longer exported" exported_is hpa_controller_forecast_floor_replicas peak ""
set_load peak 100m
wait_for 40 "peak back to 2 replicas on its metrics alone" replicas_are peak 2
pass "forecast: previewed, acted ahead of the load, and stood down without Prometheus"
