# Helpers of the e2e scripts (source it): results, polling, processes and ports
# (hack/lib/processes.sh: hpa_pick_ports, hpa_stop, ...).
# shellcheck shell=bash
# shellcheck source=hack/lib/processes.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../hack/lib/processes.sh"
HPA_LOG_PREFIX=e2e
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
# wait_for <seconds> <description> <command...>: polls the command once a second.
wait_for() {
  local limit=$1 what=$2
  shift 2
  for _ in $(seq "$limit"); do
    if "$@" >/dev/null 2>&1; then pass "$what"; return 0; fi
    sleep 1
  done
  fail "$what (not within ${limit}s)"
}
# stop_pids: every process of PIDS stopped, SIGTERM first, SIGKILL for one that does not exit.
stop_pids() {
  local pid
  for pid in ${PIDS[@]+"${PIDS[@]}"}; do hpa_stop "$(cat "/proc/$pid/comm" 2>/dev/null || echo process)" "$pid" || true; done
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# --- a namespace of the fixture's cluster with hpa-sim and hpa-controller in it (scripts that
# set CONTROLLER and SIM, the binaries)

# e2e_namespace <prefix>: a namespace of its own (<prefix>-<pid>) on the cluster HPA_E2E_DIR runs,
# a scratch directory, and on exit: every process in PIDS stopped, their logs shown if the script
# failed, the namespace deleted. Sets K (kubectl as admin), NS, WORK and PIDS.
e2e_namespace() {
  : "${HPA_E2E_DIR:?HPA_E2E_DIR must point at a running local cluster}"
  # shellcheck disable=SC1091
  source "$HPA_E2E_DIR/env"
  K=("$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG")
  NS=$1-$$
  WORK=$(mktemp -d)
  PIDS=()
  trap e2e_cleanup EXIT
  "${K[@]}" create namespace "$NS" >/dev/null
  wait_for 30 "default ServiceAccount in $NS" "${K[@]}" get sa default -n "$NS"
}
e2e_cleanup() {
  local code=$?
  stop_pids
  if [ $code -ne 0 ]; then
    for f in "$WORK"/*.log; do [ -f "$f" ] && { echo "== $f"; tail -25 "$f"; }; done
  fi
  "${K[@]}" delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
  rm -rf "$WORK"
  exit $code
}

# sa_kubeconfig <namespace> <serviceaccount> <file>: waits for the ServiceAccount's token Secret
# (the token controller issues it), writes a kubeconfig of that token to <file> with NS as its
# namespace, and sets TOKEN.
has_token_secret() { "${K[@]}" get sa "$2" -n "$1" -o jsonpath='{.secrets[0].name}' | grep -q .; }
sa_kubeconfig() {
  local secret
  wait_for 60 "token of $1/$2 issued" has_token_secret "$1" "$2"
  secret=$("${K[@]}" get sa "$2" -n "$1" -o jsonpath='{.secrets[0].name}')
  TOKEN=$("${K[@]}" get secret "$secret" -n "$1" -o jsonpath='{.data.token}' | base64 -d)
  cat >"$3" <<KC
apiVersion: v1
kind: Config
current-context: sa
clusters: [{name: local, cluster: {server: "$APISERVER_URL", certificate-authority: "$CA_CERT"}}]
users: [{name: sa, user: {token: "$TOKEN"}}]
contexts: [{name: sa, context: {cluster: local, user: sa, namespace: "$NS"}}]
KC
}

# apply_cpu_hpa <name> <annotations>: Deployment <name> of 2 pods (100m cpu requests, label
# app=<name>) in NS and its autoscaling/v2beta2 HPA, 1 to 10 replicas at 50 % cpu, with the given
# annotations (a YAML flow map, e.g. '{hpa-controller.io/sync-period: 2s}').
apply_cpu_hpa() {
  "${K[@]}" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, namespace: $NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec: {containers: [{name: app, image: example/$1, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata:
  name: $1
  namespace: $NS
  annotations: $2
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: $1}
  minReplicas: 1
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
YAML
}

# start_sim <scenario file>: hpa-sim playing the kubelet of NS and serving its metrics APIs (logs
# appended to WORK/sim.log); sets SIM_PID and SIM_CONTROL_PORT (its POST /set).
start_sim() {
  local metrics
  hpa_pick_ports metrics SIM_CONTROL_PORT
  "$SIM" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --scenario "$1" \
    --metrics-port "$metrics" --control-port "$SIM_CONTROL_PORT" --start-delay 1s --readiness-delay 1s \
    --serving-cert "$BACKEND_SERVING_CERT" --serving-key "$BACKEND_SERVING_KEY" --client-ca "$FRONT_PROXY_CA_CERT" \
    >>"$WORK/sim.out" 2>>"$WORK/sim.log" &
  SIM_PID=$!
  PIDS+=("$SIM_PID")
}

# start_controller [<flag>...]: hpa-controller for NS, no leader election, its plain HTTP
# endpoint on PORT (chosen here), logs in WORK/controller.log, the allocator as deployed.
start_controller() {
  hpa_pick_ports PORT
  GLIBC_TUNABLES=$(cat "$(dirname "${BASH_SOURCE[0]}")/../../../hack/lib/malloc-tunables") \
    "$CONTROLLER" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --port "$PORT" --address 127.0.0.1 \
    --secure-port 0 --leader-elect=false -v 2 "$@" 2>"$WORK/controller.log" &
  PIDS+=("$!")
}

# reconciles <hpa>: how often the controller on PORT has reconciled NS/<hpa>.
reconciles() {
  curl -s "http://127.0.0.1:$PORT/metrics" |
    awk -v want="hpa_controller_reconciles_total{name=\"$1\",namespace=\"$NS\"}" \
      '$1 == want { print int($2); found=1 } END { if (!found) print 0 }'
}
