#!/usr/bin/env bash
# make demo: a local cluster (etcd, kube-apiserver, kube-controller-manager with only the
# deployment/replicaset controllers), hpa-sim for pods and metrics, and hpa-controller scaling a
# Deployment through a load ramp, hold and drop. One line per tick, then a summary and a plot.
#
#   hack/demo.sh [--short] [--check] [--dir DIR]
#     --short   a faster scenario (CI); --check  fail unless it scaled out and back in
# Everything it starts is stopped on exit, Ctrl-C included.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=hack/lib/processes.sh
source "$ROOT/hack/lib/processes.sh"
HPA_LOG_PREFIX=demo
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
DIR=$BUILD_DIR/demo
SHORT=0
CHECK=0
while [ $# -gt 0 ]; do
  case $1 in
    --short) SHORT=1 ;;
    --check) CHECK=1 ;;
    --dir) DIR=$2; shift ;;
    *) echo "usage: $0 [--short] [--check] [--dir DIR]" >&2; exit 2 ;;
  esac
  shift
done
CLUSTER=$DIR/cluster
SIM=$BUILD_DIR/cmd/hpa-sim/hpa-sim
CONTROLLER=$BUILD_DIR/cmd/hpa-controller/hpa-controller
for bin in "$SIM" "$CONTROLLER"; do
  [ -x "$bin" ] || { echo "demo: $bin is missing (run make build)" >&2; exit 1; }
done
command -v gnuplot >/dev/null || echo "demo: gnuplot not found; the plot will be skipped" >&2

rm -rf "$DIR"
mkdir -p "$DIR"
# What it started, stopped in reverse order on exit: "name pid" each.
STARTED=()
cleanup() {
  local code=$? i name pid
  trap - EXIT INT TERM
  for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
    read -r name pid <<<"${STARTED[i]}"
    hpa_stop "$name" "$pid" 2>>"$DIR/stop.log" || true
  done
  "$ROOT/hack/local-cluster.sh" down --dir "$CLUSTER" >/dev/null 2>&1 || true
  exit "$code"
}
trap cleanup EXIT
trap 'echo; echo "demo: interrupted, stopping everything"; exit 130' INT TERM

echo "demo: starting the local control plane"
"$ROOT/hack/local-cluster.sh" up --dir "$CLUSTER" --controller-manager >"$DIR/cluster.log" 2>&1 ||
  { tail -20 "$DIR/cluster.log"; exit 1; }
# shellcheck disable=SC1091
source "$CLUSTER/env"
K=("$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG")

hpa_pick_ports METRICS_PORT CONTROL_PORT

SCENARIO=$ROOT/deploy/examples/sim-scenario.yaml
SYNC=5s
STABILIZATION=30s
DURATION=180
if [ "$SHORT" = 1 ]; then
  SCENARIO=$DIR/short-scenario.yaml
  cat >"$SCENARIO" <<'YAML'
workloads:
- {name: web, namespace: demo, selector: app=web, cpu: 80m, memory: 100Mi}
steps:
- {at: 10s, workload: web, cpu: 600m}
- {at: 50s, workload: web, cpu: 80m}
YAML
  SYNC=3s
  STABILIZATION=15s
  DURATION=100
fi

# hpa-sim starts with the scenario's workloads at their initial load; the demo plays its steps
# (as hpa-sim reads them: "<seconds> <POST /set body>" a line) once the metrics APIs answer, so
# that the controller's first decisions have metrics.
STEPS=$("$SIM" steps "$SCENARIO")

"${K[@]}" apply -f "$ROOT/deploy/examples/demo.yaml" >/dev/null
hpa_start hpa-sim "$DIR/hpa-sim.log" "$DIR/hpa-sim.pid" \
  "$SIM" --kubeconfig "$ADMIN_KUBECONFIG" --namespace demo --scenario "$SCENARIO" --play-steps=false \
  --metrics-port "$METRICS_PORT" --control-port "$CONTROL_PORT" \
  --serving-cert "$BACKEND_SERVING_CERT" --serving-key "$BACKEND_SERVING_KEY" --client-ca "$FRONT_PROXY_CA_CERT"
STARTED+=("hpa-sim $HPA_STARTED_PID")

# shellcheck source=hack/lib/metrics-ready.sh
source "$ROOT/hack/lib/metrics-ready.sh"
# Pods count for the HPA one metrics window after they became Ready: explain (live, read-only)
# tells when the HPA's metrics are usable.
metrics_usable() {
  "$CONTROLLER" explain demo/web --kubeconfig "$ADMIN_KUBECONFIG" -o json 2>/dev/null | jq -e '.branch == "metrics"' >/dev/null
}
echo "demo: waiting for the metrics APIs to be Available and to serve demo/web's pod metrics the HPA can use"
WAIT_START=$(date +%s)
until hpa_metrics_apis_available &&
      hpa_pod_metrics_served demo app=web "$("${K[@]}" get deployment web -n demo -o jsonpath='{.spec.replicas}')" &&
      metrics_usable; do
  if [ $(( $(date +%s) - WAIT_START )) -ge 180 ]; then
    echo "demo: the metrics APIs did not come up within 180 s (logs: $DIR/hpa-sim.log)" >&2
    exit 1
  fi
  sleep 1
done

# What the controller and hpa-sim last said, for a run that went wrong.
show_logs() {
  for log in hpa-controller.log hpa-sim.log; do
    [ -s "$DIR/$log" ] || continue
    echo "demo: the last lines of $DIR/$log:" >&2
    tail -25 "$DIR/$log" | sed 's/^/  /' >&2
  done
}

# Plain HTTP on --port for this local run, next to the secure port a deployment uses; the
# allocator tuned as the image and the Deployment tune it. Its ports are picked free, but another
# process can still bind one first: then it exits saying so, and it is started on other ports.
for attempt in 1 2 3; do
  hpa_pick_ports HEALTH_PORT SECURE_PORT
  hpa_start hpa-controller "$DIR/hpa-controller.log" "$DIR/hpa-controller.pid" \
    env GLIBC_TUNABLES="$(cat "$ROOT/hack/lib/malloc-tunables")" \
    "$CONTROLLER" --kubeconfig "$ADMIN_KUBECONFIG" --leader-elect=false --port "$HEALTH_PORT" --address 127.0.0.1 \
    --secure-port "$SECURE_PORT" --bind-address 127.0.0.1 --client-ca-file "$CA_CERT" \
    --horizontal-pod-autoscaler-sync-period "$SYNC" --horizontal-pod-autoscaler-downscale-stabilization "$STABILIZATION" \
    --v 2
  CONTROLLER_PID=$HPA_STARTED_PID
  STARTED+=("hpa-controller $CONTROLLER_PID")
  hpa_wait_ready hpa-controller "$CONTROLLER_PID" 60 "$DIR/hpa-controller.log" \
    curl -sf --max-time 2 "http://127.0.0.1:$HEALTH_PORT/healthz" && break
  if ! hpa_running "$CONTROLLER_PID" && [ "$attempt" -lt 3 ] && grep -q "cannot listen" "$DIR/hpa-controller.log"; then
    echo "demo: the controller's port was taken meanwhile; starting it on other ports" >&2
    continue
  fi
  show_logs
  exit 1
done
# The scenario's clock starts now, with the demo's.
(
  START=$EPOCHREALTIME
  while read -r at body; do
    [ -n "$at" ] || continue
    sleep "$(awk -v start="$START" -v at="$at" -v now="$EPOCHREALTIME" 'BEGIN { d = start + at - now; print (d > 0 ? d : 0) }')"
    curl -s --max-time 5 -X POST -H 'Content-Type: application/json' -d "$body" \
      "http://127.0.0.1:$CONTROL_PORT/set" >/dev/null || echo "demo: step at ${at}s failed: $body" >&2
  done <<<"$STEPS"
) &
STARTED+=("scenario-steps $!")

echo "demo: Deployment demo/web, HPA cpu 50 % (min 2, max 10); sync $SYNC, downscale stabilization $STABILIZATION"
echo "demo: logs in $DIR; metrics at http://127.0.0.1:$HEALTH_PORT/metrics and, authenticated,"
echo "demo:   curl -k --cert $ADMIN_CERT --key $ADMIN_KEY https://127.0.0.1:$SECURE_PORT/metrics"
printf '%6s  %7s  %11s  %8s  %8s  %s\n' time load utilization current desired "hpa-controller's last decision"
CSV=$DIR/trajectory.csv
echo "seconds,load_milli,utilization,current,desired" >"$CSV"
START=$(date +%s)
while :; do
  NOW=$(( $(date +%s) - START ))
  [ "$NOW" -ge "$DURATION" ] && break
  if ! hpa_running "$CONTROLLER_PID"; then
    echo "demo: hpa-controller exited at ${NOW}s" >&2
    show_logs
    exit 1
  fi
  HPA=$("${K[@]}" get --raw /apis/autoscaling/v2beta2/namespaces/demo/horizontalpodautoscalers/web 2>/dev/null || echo '{}')
  STATE=$(curl -s --max-time 2 "http://127.0.0.1:$CONTROL_PORT/state" || echo '{}')
  LOAD=$(jq -r '.workloads[0].cpuMilli // 0' <<<"$STATE")
  UTIL=$(jq -r '[.status.currentMetrics[]? | .resource.current.averageUtilization // empty][0] // ""' <<<"$HPA")
  CUR=$(jq -r '.status.currentReplicas // 0' <<<"$HPA")
  DES=$(jq -r '.status.desiredReplicas // 0' <<<"$HPA")
  # The controller's own line for its last decision (at -v 2 it logs every one): the size and why.
  DECISION=$(grep -E ' (decided|rescaled|paused) HPA=demo/web ' "$DIR/hpa-controller.log" | tail -n 1 |
             sed -E 's/.* (decided|rescaled|paused) HPA=demo\/web replicas="([^"]*)".* reason=("(.*)"|(.*))$/\1 \2: \4\5/' || true)
  printf '%5ss  %6sm  %10s%%  %8s  %8s  %s\n' "$NOW" "$LOAD" "${UTIL:--}" "$CUR" "$DES" "${DECISION:0:100}"
  echo "$NOW,$LOAD,${UTIL:-0},$CUR,$DES" >>"$CSV"
  sleep 5
done

MAX=$(awk -F, 'NR>1 && $4>m {m=$4} END {print m+0}' "$CSV")
LAST=$(tail -1 "$CSV" | cut -d, -f4)
echo
echo "demo: summary: started at 2 replicas, peaked at $MAX, ended at $LAST"
echo "demo: scale events:"
"${K[@]}" get events -n demo --field-selector reason=SuccessfulRescale --sort-by=.lastTimestamp \
  -o jsonpath='{range .items[*]}  {.lastTimestamp}  {.message}{"\n"}{end}' || true
if command -v gnuplot >/dev/null; then
  gnuplot <<GP
set terminal pngcairo size 1000,560 noenhanced
set output "$DIR/demo.png"
set datafile separator ","
set title "hpa-controller demo: load, utilization and replicas"
set xlabel "seconds"
set ylabel "replicas"
set y2label "load (m) / utilization (%)"
set y2tics
set ytics nomirror
set key left top
plot "$CSV" using 1:4 with steps lw 2 title "current replicas", \
     "$CSV" using 1:5 with steps dt 2 title "desired replicas", \
     "$CSV" using 1:2 axes x1y2 with lines title "load (m)", \
     "$CSV" using 1:3 axes x1y2 with lines title "utilization (%)"
GP
  echo "demo: plot written to $DIR/demo.png (data: $CSV)"
fi
if [ "$CHECK" = 1 ]; then
  if [ "$MAX" -ge 4 ] && [ "$LAST" -le 3 ]; then
    echo "demo: check passed (scaled out to $MAX under load, back to $LAST after it dropped)"
  else
    echo "demo: check FAILED: peak $MAX (want >= 4), end $LAST (want <= 3)" >&2
    show_logs
    exit 1
  fi
fi
