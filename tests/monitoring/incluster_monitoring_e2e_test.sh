#!/usr/bin/env bash
# deploy/monitoring/ as shipped, against deploy/ as shipped, on a cluster with a real node
# (hack/local-cluster.sh + hack/local-node.sh; the image built and imported by the README's own
# commands). Debian's Prometheus runs on this machine with the shipped scrape-config.yaml and rule
# files, with the token and CA of the ServiceAccount monitoring/prometheus-k8s that
# deploy/monitoring/rbac.yaml binds written where the file reads them
# (/var/run/secrets/kubernetes.io/serviceaccount, in a mount namespace of Prometheus' own, so that
# nothing on the machine changes). Debian builds Prometheus without Kubernetes service discovery:
# each job's kubernetes_sd_configs (role endpoints) is served by endpoints_sd.py over HTTP SD, the
# Endpoints listed with that ServiceAccount's token and labelled as Kubernetes discovery labels
# them; every other key of the shipped jobs is used as shipped.
#   - both replicas scraped, up == 1;
#   - the install's alerts silent in steady state, through a rolling update (a graceful handover)
#     and through the leader's pod deleted;
#   - the leader stalled on purpose (its reconcile threads frozen with ptrace, a test-only fault;
#     its server and leader election run on): /healthz fails, HpaControllerStalled fires, the
#     liveness probe restarts the container, the standby takes over, the alert resolves;
#   - both replicas scaled to 0: HpaControllerDown fires, and resolves when they are back;
#   - the shadow beside the install (the README's kustomization, with settings of its own that
#     differ by tolerance) and rules-shadow.yaml loaded too: nothing pages about the install; a
#     load the two tolerances decide differently makes the first `rules` divergence, and
#     HpaShadowDivergence fires on it.
# Prints a timeline of every alert's state changes. Not part of `make test`: `make e2e-monitoring`
# (root; hack/ensure-node-deps.sh; builds the image).
#
#   incluster_monitoring_e2e_test.sh HPA_SIM --dir DIR
set -euo pipefail
SIM=$1
shift
DIR=""
while [ $# -gt 0 ]; do
  case $1 in
    --dir) DIR=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/monitoring
STARTED=$SECONDS
WORK=$(mktemp -d)
PIDS=()
NS=monitoring-e2e
SA_DIR=/var/run/secrets/kubernetes.io/serviceaccount
# shellcheck source=tests/e2e/lib/e2e.sh
source "$ROOT/tests/e2e/lib/e2e.sh"
# shellcheck source=tests/e2e/lib/incluster.sh
source "$ROOT/tests/e2e/lib/incluster.sh"
[ -n "$DIR" ] || fail "--dir is required"
[ "$(id -u)" -eq 0 ] || fail "needs root (a real kubelet)"
command -v prometheus >/dev/null || fail "prometheus is not installed (hack/install-deps.sh installs it)"

MADE_SA_DIR=""
cleanup() {
  local code=$?
  set +e
  stop_pids
  [ -n "$MADE_SA_DIR" ] && rmdir -p --ignore-fail-on-non-empty "$SA_DIR" 2>/dev/null
  if [ $code -ne 0 ]; then
    grep -h "shadow divergence" "$WORK"/pod-hpa-controller-shadow-*.log 2>/dev/null | tail -5
    for f in "$WORK"/prometheus.log "$WORK"/pod-*.log "$WORK"/alerts.log; do
      [ -f "$f" ] && { echo "== $f"; tail -40 "$f"; }
    done
    [ -n "${K[*]:-}" ] && "${K[@]}" get pods -A -o wide 2>/dev/null
  fi
  incluster_down "$code"
  echo "monitoring e2e: wall time $((SECONDS - STARTED))s"
  exit $code
}
trap cleanup EXIT

phase "cluster and node"
incluster_up
phase "the image, by the README's step 1"
incluster_image
phase "workloads on hpa-sim's node"
incluster_workloads "$NS" 300m 60m

phase "deploy/ as shipped: kubectl apply -k deploy/overlays/policy-v1beta1"
(cd "$ROOT" && "${K[@]}" apply -k deploy/overlays/policy-v1beta1 >"$WORK/apply.out")
two_ready() { [ "$(ready_count $CNS $APP_LABEL)" -eq 2 ]; }
incluster_wait 240 "both replicas Ready" two_ready
has_holder() { [ -n "$(holder $CNS hpa-controller)" ]; }
incluster_wait 60 "the Lease has a holder" has_holder
follow_pod_logs $CNS $APP_LABEL

phase "Prometheus: deploy/monitoring/rbac.yaml, the shipped scrape-config.yaml and rules.yaml"
"${K[@]}" create namespace monitoring >/dev/null
"${K[@]}" create serviceaccount prometheus-k8s -n monitoring >/dev/null
"${K[@]}" apply -f "$ROOT/deploy/monitoring/rbac.yaml" >/dev/null
has_token() { [ -n "$(sa_token monitoring prometheus-k8s)" ]; }
incluster_wait 30 "the token of monitoring/prometheus-k8s" has_token
mkdir -p "$WORK/sa"
sa_token monitoring prometheus-k8s >"$WORK/sa/token"
cp "$CA_CERT" "$WORK/sa/ca.crt"
echo monitoring >"$WORK/sa/namespace"
[ -d "$SA_DIR" ] || { mkdir -p "$SA_DIR"; MADE_SA_DIR=1; }
hpa_pick_ports PROM_PORT SD_PORT
PROM=http://127.0.0.1:$PROM_PORT
# The jobs' discovery, through the API server as a pod sees it: the kubernetes Service's ClusterIP
# (kube-proxy runs here).
python3 -B "$HERE/endpoints_sd.py" serve --scrape-config "$ROOT/deploy/monitoring/scrape-config.yaml" \
  --port "$SD_PORT" --api https://10.0.0.1:443 --token "$WORK/sa/token" --ca "$WORK/sa/ca.crt" >"$WORK/sd.log" 2>&1 &
PIDS+=("$!")
# prometheus.yml: the shipped jobs (their discovery served as above) and the rule files given.
prometheus_config() { # <rule file>...
  local rules=() f
  for f in "$@"; do rules+=(--rules "$ROOT/deploy/monitoring/$f"); done
  python3 -B "$HERE/endpoints_sd.py" render --scrape-config "$ROOT/deploy/monitoring/scrape-config.yaml" \
    --port "$SD_PORT" "${rules[@]}" --out "$WORK/prometheus.yml"
}
prometheus_config rules.yaml
unshare --mount --propagation private -- bash -c \
  'mount --bind "$1" "$2" && exec prometheus \
     --config.file "$3" --storage.tsdb.path "$4" --web.listen-address "127.0.0.1:$5" --web.enable-lifecycle --log.level warn' \
  _ "$WORK/sa" "$SA_DIR" "$WORK/prometheus.yml" "$WORK/data" "$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
PIDS+=("$!")
query() { curl -sf --max-time 10 "$PROM/api/v1/query" --data-urlencode "query=$1"; }
value_of() { query "$1" | jq -r '.data.result[0].value[1] // empty'; }
reload() { prometheus_config "$@"; curl -sf -X POST "$PROM/-/reload" >/dev/null; }
incluster_wait 60 "Prometheus ready" curl -sf "$PROM/-/ready"
python3 -B "$HERE/alert_timeline.py" --prometheus "$PROM" --out "$WORK/alerts.log" --marks "$WORK/marks.log" &
PIDS+=("$!")
mark() { echo "$(date +%s.%N) $*" >>"$WORK/marks.log"; phase "$*"; }
both_up() { [ "$(value_of 'count(up{job="hpa-controller"} == 1)')" = 2 ]; }
incluster_wait 120 "both replicas scraped through service discovery with the shipped configuration: up == 1" both_up

# firing_or_pending: the alerts (of the loaded rules) that are pending or firing now, one per line.
alerts_now() { curl -sf "$PROM/api/v1/alerts" | jq -r '.data.alerts[] | "\(.labels.alertname) \(.state)"' | sort -u; }
fired_since() { # <unix time>: the alerts that fired after it
  awk -v t="$1" '$1 >= t && $3 == "firing" { print $2 }' "$WORK/alerts.log" | sort -u
}
silent_since() { # <unix time> <what>
  local fired
  fired=$(fired_since "$1" | tr '\n' ' ')
  [ -z "$fired" ] || fail "$2: alerts fired: $fired"
  pass "$2: no alert fired"
}

mark "steady state"
T=$(date +%s)
sleep 150
silent_since "$T" "steady state, 150 s"
[ -z "$(alerts_now)" ] || fail "alerts pending or firing in steady state: $(alerts_now | tr '\n' ' ')"

mark "a rolling update: kubectl rollout restart"
T=$(date +%s)
"${K[@]}" -n $CNS rollout restart deployment/hpa-controller >/dev/null
"${K[@]}" -n $CNS rollout status deployment/hpa-controller --timeout 300s >/dev/null
follow_pod_logs $CNS $APP_LABEL
incluster_wait 120 "both new replicas scraped" both_up
sleep 90
silent_since "$T" "a rolling update (two graceful handovers)"

mark "the leader's pod deleted"
T=$(date +%s)
LEADER=$(holder $CNS hpa-controller)
LEADER=${LEADER%%_*}
"${K[@]}" -n $CNS delete pod "$LEADER" --wait=false >/dev/null
incluster_wait 180 "two replicas Ready again" two_ready
follow_pod_logs $CNS $APP_LABEL
incluster_wait 120 "both scraped again" both_up
sleep 90
silent_since "$T" "the leader's pod deleted"

mark "the leader stalled: its reconcile threads frozen"
LEADER=$(holder $CNS hpa-controller)
LEADER=${LEADER%%_*}
STANDBY=$(ready_pods $CNS $APP_LABEL | grep -vx "$LEADER" | head -n1)
PID=$(container_pid "$LEADER")
[ -n "$PID" ] || fail "no container process for the leader $LEADER"
RESTARTS=$("${K[@]}" get pod "$LEADER" -n $CNS -o jsonpath='{.status.containerStatuses[0].restartCount}')
LEADER_IP=$(pod_ip $CNS "$LEADER")
python3 -B "$ROOT/tests/e2e/lib/freeze_threads.py" "$PID" reconcile --check "https://$LEADER_IP:10258/healthz" \
  >"$WORK/freeze.log" 2>&1 &
PIDS+=("$!")
frozen() { grep -q '^frozen ' "$WORK/freeze.log"; }
incluster_wait 60 "the leader's reconcile threads frozen" frozen
sed 's/^/  /' "$WORK/freeze.log"
T=$(date +%s)
healthz_fails() {
  curl -sk --max-time 4 -o "$WORK/healthz.body" -w '%{http_code}' "https://$LEADER_IP:10258/healthz" | grep -q 500 &&
    grep -q '\[-\]runLoop' "$WORK/healthz.body"
}
stalled_fires() { alerts_now | grep -qx "HpaControllerStalled firing"; }
incluster_wait 150 "HpaControllerStalled fires for the stalled leader" stalled_fires
mark "HpaControllerStalled firing"
incluster_wait 120 "/healthz of the stalled leader fails with [-]runLoop" healthz_fails
sed 's/^/  healthz: /' "$WORK/healthz.body"
restarted() { [ "$("${K[@]}" get pod "$LEADER" -n $CNS -o jsonpath='{.status.containerStatuses[0].restartCount}')" -gt "$RESTARTS" ]; }
incluster_wait 180 "the liveness probe restarted the stalled leader's container" restarted
mark "the stalled leader restarted by its liveness probe"
"${K[@]}" get events -n $CNS --field-selector "involvedObject.name=$LEADER,reason=Unhealthy" -o jsonpath='{.items[*].message}' |
  grep -q 'Liveness probe failed' || fail "no 'Liveness probe failed' event for $LEADER"
standby_leads() { [[ $(holder $CNS hpa-controller) == "${STANDBY}_"* ]]; }
incluster_wait 60 "the standby $STANDBY took the Lease" standby_leads
stalled_resolves() { ! alerts_now | grep -q '^HpaControllerStalled '; }
incluster_wait 120 "HpaControllerStalled resolved" stalled_resolves
mark "HpaControllerStalled resolved"
others=$(fired_since "$T" | { grep -vx HpaControllerStalled || true; } | tr "\n" " ")
[ -z "$others" ] || fail "while the leader stalled, other alerts fired too: $others"
incluster_wait 120 "two replicas Ready and scraped" both_up

mark "both replicas scaled to 0"
"${K[@]}" -n $CNS scale deployment/hpa-controller --replicas=0 >/dev/null
down_fires() { alerts_now | grep -qx "HpaControllerDown firing"; }
incluster_wait 180 "HpaControllerDown fires" down_fires
mark "HpaControllerDown firing"
"${K[@]}" -n $CNS scale deployment/hpa-controller --replicas=2 >/dev/null
incluster_wait 240 "both replicas back and scraped" both_up
down_resolves() { ! alerts_now | grep -q '^HpaControllerDown '; }
incluster_wait 60 "HpaControllerDown resolved" down_resolves
mark "HpaControllerDown resolved"

mark "the shadow beside the install, with rules-shadow.yaml"
T=$(date +%s)
mkdir -p "$WORK/user"
ln -s "$ROOT" "$WORK/user/hpa-controller"
mkdir -p "$WORK/user/my-hpa-controller"
cat >"$WORK/user/my-hpa-controller/kustomization.yaml" <<'YAML'
bases:
- ../hpa-controller/deploy/overlays/shadow-policy-v1beta1
patchesJson6902:
- target: {version: v1, kind: ConfigMap, name: hpa-controller-settings}
  path: settings.yaml
YAML
# A tolerance the install does not have (its 0.1), so that a load 30 % above target is a `rules`
# divergence; a one-minute window, so that the shadow is out of its warm-up in a minute.
cat >"$WORK/user/my-hpa-controller/settings.yaml" <<'YAML'
- op: replace
  path: /data/settings.yaml
  value: |
    horizontal-pod-autoscaler-tolerance: 0.5
    horizontal-pod-autoscaler-downscale-stabilization: 1m0s
YAML
"${K[@]}" apply -k "$WORK/user/my-hpa-controller" >"$WORK/shadow-apply.out"
"${K[@]}" apply -f "$ROOT/deploy/monitoring/rbac-shadow.yaml" >/dev/null
reload rules.yaml rules-shadow.yaml
shadow_up() { [ "$(value_of 'count(up{job="hpa-controller-shadow"} == 1)')" = 2 ]; }
incluster_wait 240 "both shadow replicas scraped: up == 1" shadow_up
follow_pod_logs hpa-controller-shadow app.kubernetes.io/name=hpa-controller-shadow
zeros() { [ "$(value_of 'count(hpa_controller_shadow_comparisons_total{job="hpa-controller-shadow", cause="rules"} == 0)')" -ge 2 ]; }
incluster_wait 60 "every HPA's rules counter exists at 0 before any divergence" zeros
# A status write of the install's that both tolerances agree on (5 % above target: web's
# utilization in its status changes, its size does not): the shadow follows web from it, and is
# out of its warm-up (its one-minute window) a minute later.
WEB=$(replicas "$NS" web)
set_load web "$((WEB * 50 * 105 / 100))m"
compared() { [ "$(value_of 'sum(hpa_controller_shadow_comparisons_total{job="hpa-controller-shadow", name="web"})')" -ge 1 ]; }
incluster_wait 120 "the shadow compares one of the install's decisions on web" compared
sleep 75
silent_since "$T" "the shadow beside the install, both rule files loaded"
mark "web's load 30 % above target: within the shadow's tolerance, not the install's"
T=$(date +%s)
set_load web "$((WEB * 50 * 13 / 10))m"
divergence_fires() { alerts_now | grep -qx "HpaShadowDivergence firing"; }
incluster_wait 180 "HpaShadowDivergence fires on the first rules divergence" divergence_fires
mark "HpaShadowDivergence firing"
first=$(value_of 'sum(hpa_controller_shadow_comparisons_total{job="hpa-controller-shadow", cause="rules"})')
[ "${first%.*}" -le 2 ] || fail "HpaShadowDivergence fired only after $first rules divergences"
pass "it fired at $first rules divergence(s) in all"
others=$(fired_since "$T" | { grep -vx HpaShadowDivergence || true; } | tr "\n" " ")
[ -z "$others" ] || fail "other alerts fired beside the shadow's divergence: $others"

phase "timeline"
python3 -B "$HERE/alert_timeline.py" --render "$WORK/alerts.log" --marks "$WORK/marks.log" --since "$(awk 'NR == 1 { print $1 }' "$WORK/marks.log")" |
  tee "$WORK/timeline.txt"
echo "monitoring e2e: all checks passed"
