#!/usr/bin/env bash
# Leader handover on the local control plane: two daemons (the deploy/ ServiceAccount, default
# lease timings: 15 s lease, 10 s renew deadline, 2 s retry) with hpa-sim. On SIGTERM the leader
# stops taking work, finishes its reconciles, persists histories and releases the Lease; the
# standby, watching the Lease, takes it and reconciles at once. Measures the time from the signal
# to the standby's first reconcile (from its log's timestamps): asserted under 2 s for SIGTERM;
# printed for a SIGKILLed leader (the standby waits out the 15 s lease), asserted to be no
# shorter than the lease allows.
#
#   handover_e2e_test.sh HPA_CONTROLLER HPA_SIM      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
# shellcheck source=tests/e2e/lib/e2e.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/e2e.sh"
CONTROLLER=$1
SIM=$2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${HPA_E2E_DIR:?HPA_E2E_DIR must point at a running local cluster}"
# shellcheck disable=SC1091
source "$HPA_E2E_DIR/env"
K=("$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG")
NS=handover-e2e-$$
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  local code=$?
  stop_pids
  if [ $code -ne 0 ]; then
    for f in "$WORK"/*.log; do echo "== $f"; tail -30 "$f"; done
  fi
  rm -rf "$WORK"
  exit $code
}
trap cleanup EXIT
wait_for() { # <seconds> <description> <command...>: polls the command ten times a second
  local limit=$1 what=$2
  shift 2
  for _ in $(seq $((limit * 10))); do
    if "$@" >/dev/null 2>&1; then pass "$what"; return 0; fi
    sleep 0.1
  done
  fail "$what (not within ${limit}s)"
}
# The klog timestamp of a log line ("I1123 10:00:00.123456 ...", UTC) in seconds since the epoch.
log_epoch() {
  python3 - "$1" <<'PY'
import datetime, sys
line = sys.argv[1]
now = datetime.datetime.now(datetime.timezone.utc)
t = datetime.datetime.strptime(f"{now.year}{line[1:5]} {line.split()[1]}", "%Y%m%d %H:%M:%S.%f")
print(f"{t.replace(tzinfo=datetime.timezone.utc).timestamp():.6f}")
PY
}
seconds_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# The first reconcile a daemon logged after it started leading.
first_reconcile() { awk '/started leading/ { on = 1 } on && / runner\] (decided|rescaled) / { print; exit }' "$1"; }

# --- the deploy/ RBAC and its ServiceAccount (whose Role must allow watching the Lease)
"${K[@]}" apply -f "$ROOT/deploy/base/namespace.yaml" -f "$ROOT/deploy/base/rbac.yaml" >/dev/null
has_token() { "${K[@]}" get sa hpa-controller -n hpa-controller -o jsonpath='{.secrets[0].name}' | grep -q .; }
wait_for 60 "ServiceAccount token issued" has_token
SECRET=$("${K[@]}" get sa hpa-controller -n hpa-controller -o jsonpath='{.secrets[0].name}')
TOKEN=$("${K[@]}" get secret "$SECRET" -n hpa-controller -o jsonpath='{.data.token}' | base64 -d)
cat >"$WORK/sa.kubeconfig" <<KC
apiVersion: v1
kind: Config
current-context: sa
clusters: [{name: local, cluster: {server: "$APISERVER_URL", certificate-authority: "$CA_CERT"}}]
users: [{name: sa, user: {token: "$TOKEN"}}]
contexts: [{name: sa, context: {cluster: local, user: sa}}]
KC

# --- two Deployments under load, each with an HPA
"${K[@]}" create namespace "$NS" >/dev/null
has_default_sa() { "${K[@]}" get sa default -n "$NS"; }
wait_for 30 "default ServiceAccount in $NS" has_default_sa
for app in web api; do
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $app, namespace: $NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: $app}}
  template:
    metadata: {labels: {app: $app}}
    spec: {containers: [{name: app, image: example/$app, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata: {name: $app, namespace: $NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: $app}
  minReplicas: 1
  maxReplicas: 6
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
---
YAML
done | "${K[@]}" apply -f - >/dev/null
# web's demand is exactly its target (50% of 2 pods' requests), so its proposal is its 2 pods
# however many of them the controller counts yet: with one pod still in its cpu initialization
# period, 80m would propose 1 from the other pod alone (the ready pods decide a scale-down).
cat >"$WORK/scenario.yaml" <<YAML
workloads:
- {name: web, namespace: $NS, selector: app=web, cpu: 100m}
- {name: api, namespace: $NS, selector: app=api, cpu: 20m}
YAML
hpa_pick_ports METRICS_PORT CONTROL_PORT
"$SIM" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --scenario "$WORK/scenario.yaml" \
  --metrics-port "$METRICS_PORT" --control-port "$CONTROL_PORT" --start-delay 1s --readiness-delay 1s \
  --serving-cert "$BACKEND_SERVING_CERT" --serving-key "$BACKEND_SERVING_KEY" --client-ca "$FRONT_PROXY_CA_CERT" \
  >"$WORK/sim.out" 2>"$WORK/sim.log" &
PIDS+=("$!")

start_daemon() { # <name>: default lease timings
  "$CONTROLLER" --kubeconfig "$WORK/sa.kubeconfig" --namespace "$NS" --secure-port 0 --leader-elect \
    --leader-elect-resource-namespace hpa-controller --leader-elect-resource-name hpa-controller \
    --horizontal-pod-autoscaler-sync-period 5s -v 2 2>"$WORK/$1.log" &
  PIDS+=("$!")
  eval "${1}_PID=$!"
}
leads() { grep -q "started leading" "$WORK/$1.log"; }
watches() { grep -q "watching the lease" "$WORK/$1.log"; }
reconciled_as_leader() { [ -n "$(first_reconcile "$WORK/$1.log")" ]; }
history_on() { "${K[@]}" get hpa "$1" -n "$NS" -o jsonpath='{.metadata.annotations.hpa-controller\.io/history}' | grep -q recommendations; }

"${K[@]}" delete lease hpa-controller -n hpa-controller --ignore-not-found >/dev/null
start_daemon A
wait_for 60 "A leads" leads A
start_daemon B
wait_for 30 "B stands by, watching the Lease" watches B
wait_for 60 "A reconciles" reconciled_as_leader A
# Only what matters for a restart is persisted: api's window holds a higher recommendation than
# its proposal; web's steady history is what a fresh start seeds, so it is never written.
wait_for 60 "A persisted api's history (its window matters)" history_on api
history_on web && fail "A wrote web's steady history (nothing a restart needs)"
leads B && fail "B leads while A does"

# --- graceful: SIGTERM to the leader
SIGNALLED=$EPOCHREALTIME
kill -TERM "$A_PID"
set +e
wait "$A_PID"
CODE=$?
set -e
[ "$CODE" -eq 0 ] || fail "A exited $CODE after SIGTERM"
wait_for 20 "B leads and reconciles after A's SIGTERM" reconciled_as_leader B
GRACEFUL=$(seconds_between "$SIGNALLED" "$(log_epoch "$(first_reconcile "$WORK/B.log")")")
grep -q "handing over: histories persisted" "$WORK/A.log" || fail "A did not persist histories before leaving"
grep -q "released the lease" "$WORK/A.log" || fail "A did not release the Lease"
grep -q "restored history" "$WORK/B.log" || fail "B did not restore the histories"
for step in "shutting down" "handing over: histories persisted" "released the lease"; do
  line=$(grep -m1 "$step" "$WORK/A.log")
  echo "  A +$(seconds_between "$SIGNALLED" "$(log_epoch "$line")")s  $step"
done
for step in "lease released by its holder" "successfully acquired lease" "started leading"; do
  line=$(grep -m1 "$step" "$WORK/B.log") || continue
  echo "  B +$(seconds_between "$SIGNALLED" "$(log_epoch "$line")")s  $step"
done
echo "  B +${GRACEFUL}s  first reconcile"

# --- a leader that vanishes: SIGKILL; the standby must wait out the lease
start_daemon C
wait_for 30 "C stands by, watching the Lease" watches C
sleep 3  # C observes a few renewals of B's
SIGNALLED=$EPOCHREALTIME
kill -KILL "$B_PID"
wait_for 40 "C leads and reconciles after B's SIGKILL" reconciled_as_leader C
KILLED=$(seconds_between "$SIGNALLED" "$(log_epoch "$(first_reconcile "$WORK/C.log")")")

echo "handover: SIGTERM (graceful) ${GRACEFUL}s, SIGKILL (lease expiry, 15s lease) ${KILLED}s, from the signal to the new leader's first reconcile"
awk -v g="$GRACEFUL" 'BEGIN { exit !(g < 2.0) }' || fail "graceful handover took ${GRACEFUL}s (want < 2s)"
pass "graceful handover under 2s"
# Safety rather than speed: a standby never takes a Lease its holder may still be renewing
# (last renewal at most one 2 s retry period before the kill, then 15 s).
awk -v k="$KILLED" 'BEGIN { exit !(k >= 12.0) }' || fail "the standby took an unexpired Lease after ${KILLED}s"
pass "a vanished leader's Lease is only taken once it expired"
echo "handover e2e: all checks passed"
