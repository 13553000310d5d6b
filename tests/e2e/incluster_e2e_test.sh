#!/usr/bin/env bash
# deploy/ as a user installs it, on a cluster with a real node: hack/local-cluster.sh (apiserver
# advertised on the node's bridge) plus hack/local-node.sh (containerd, runc, kubelet, kube-proxy,
# kube-scheduler). The image is built and imported into containerd by the README's own commands,
# and deploy/overlays/policy-v1beta1 (the 1.20 cluster's budget API) is applied as shipped with
# `kubectl apply -k`: no name or manifest is rewritten. hpa-sim plays the kubelet for
# the workloads' pods on its simulated nodes (tainted, so the scheduler keeps the controller off
# them; the workloads name hpa-sim as their scheduler). Checks:
#   - both replicas Running and Ready through their HTTPS probes, as uid 65532, read-only root
#     filesystem, the image's allocator tunables in their environment;
#   - one holds the Lease and scales a workload under load through the kubernetes Service with the
#     mounted ServiceAccount token and deploy/'s RBAC alone: no Forbidden in any log;
#   - /metrics through the Service's ClusterIP: a token bound to hpa-controller-metrics-reader
#     reads it, an anonymous caller and a token without the binding are refused;
#   - the shadow (deploy/overlays/shadow-policy-v1beta1, as shipped) beside the install: both replicas
#     Ready in their own namespace, its leader compares the install's decisions (a change of an
#     HPA's minReplicas makes one), no Forbidden in its logs; `kubectl delete -k` of the shadow
#     removes its namespace, pods and cluster-wide objects, and the install keeps its objects, its
#     pods (the same two, Ready), its Lease holder, and goes on reconciling;
#   - deleting the leader's pod hands over to the standby: time from the SIGTERM (the leader's
#     "shutting down" line) to the standby's first reconcile, and no HPA left unreconciled for
#     more than a sync period plus that time (reconciles counted from both replicas' /metrics);
#   - evicting both replicas: the first eviction passes, the second is refused by the budget.
#
#   incluster_e2e_test.sh HPA_SIM --dir DIR
# Needs root and hack/ensure-node-deps.sh; builds the image; starts and stops its own cluster in
# DIR (HPA_INCLUSTER_KEEP=1 leaves it up after a failure, for a look).
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
STARTED=$SECONDS
SYNC_PERIOD=15  # deploy/controller/settings.yaml's horizontal-pod-autoscaler-sync-period
# deploy/Dockerfile's and deploy/controller/deployment.yaml's allocator settings.
TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=1048576:glibc.malloc.tcache_count=0
NS=incluster-e2e
WORK=$(mktemp -d)
PIDS=()

# shellcheck source=tests/e2e/lib/e2e.sh
source "$ROOT/tests/e2e/lib/e2e.sh"
# shellcheck source=tests/e2e/lib/incluster.sh
source "$ROOT/tests/e2e/lib/incluster.sh"
[ -n "$DIR" ] || fail "--dir is required"
[ "$(id -u)" -eq 0 ] || fail "needs root (a real kubelet)"

cleanup() {
  local code=$?
  stop_pids
  if [ $code -ne 0 ]; then
    for f in "$WORK"/*.log "$DIR"/logs/kubelet.log "$DIR"/logs/containerd.log; do
      [ -f "$f" ] && { echo "== $f"; tail -40 "$f"; }
    done
    [ -n "${K[*]:-}" ] && "${K[@]}" get pods -A -o wide 2>/dev/null
  fi
  incluster_down "$code"
  echo "incluster e2e: wall time $((SECONDS - STARTED))s"
  exit $code
}
trap cleanup EXIT
wait_for() { incluster_wait "$@"; }

# --- the cluster and its node; the image as the README builds and imports it
phase "cluster and node"
incluster_up
phase "the image, by the README's step 1"
incluster_image

# --- hpa-sim with its simulated node, tainted so that only the workloads (scheduled by hpa-sim) go there
phase "workloads on hpa-sim's node"
"${K[@]}" create namespace "$NS" >/dev/null
cat >"$WORK/scenario.yaml" <<YAML
# Each workload's total demand, shared by its Ready pods (100m requested each).
workloads:
- {name: web, namespace: $NS, selector: app=web, cpu: 300m}
- {name: api, namespace: $NS, selector: app=api, cpu: 60m}
- {name: batch, namespace: $NS, selector: app=batch, cpu: 90m}
YAML
hpa_pick_ports METRICS_PORT
"$SIM" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$NS" --scenario "$WORK/scenario.yaml" \
  --metrics-port "$METRICS_PORT" --control-port 0 --start-delay 1s --readiness-delay 1s \
  --serving-cert "$BACKEND_SERVING_CERT" --serving-key "$BACKEND_SERVING_KEY" --client-ca "$FRONT_PROXY_CA_CERT" \
  >"$WORK/sim.out" 2>"$WORK/sim.log" &
PIDS+=("$!")
sim_node() { "${K[@]}" get nodes -l hpa-sim=true -o name | grep -q .; }
wait_for 60 "hpa-sim registered its node" sim_node
"${K[@]}" taint nodes -l hpa-sim=true hpa-sim=true:NoSchedule --overwrite >/dev/null
for app in web api batch; do incluster_workload_yaml "$NS" "$app"; done | "${K[@]}" apply -f - >/dev/null
pod_metrics() { "${K[@]}" get --raw "/apis/metrics.k8s.io/v1beta1/namespaces/$NS/pods" | jq -e '.items | length >= 6'; }
wait_for 90 "hpa-sim serves the workloads' pod metrics" pod_metrics

# --- deploy/ as a user applies it: the overlay for this cluster's budget API, as shipped
phase "kubectl apply -k deploy/overlays/policy-v1beta1"
(cd "$ROOT" && "${K[@]}" apply -k deploy/overlays/policy-v1beta1) >"$WORK/apply.out" 2>&1 ||
  { cat "$WORK/apply.out"; fail "kubectl apply -k"; }
pass "deploy/ applied: $(grep -c . "$WORK/apply.out") objects"

controller_pods() { "${K[@]}" get pods -n $CNS -l $APP_LABEL -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'; }
ready_pods() {
  "${K[@]}" get pods -n $CNS -l $APP_LABEL -o json |
    jq -r '.items[] | select(.metadata.deletionTimestamp == null) |
      select(.status.phase == "Running" and any(.status.conditions[]?; .type == "Ready" and .status == "True")) | .metadata.name'
}
two_ready() { [ "$(ready_pods | grep -c .)" -eq 2 ]; }
wait_for 240 "both replicas Running and Ready (HTTPS readiness probes)" two_ready
ON_NODE=$("${K[@]}" get pods -n $CNS -l $APP_LABEL -o jsonpath='{.items[*].spec.nodeName}')
for n in $ON_NODE; do [ "$n" = "$NODE_NAME" ] || fail "a controller pod was placed on $n"; done
pass "both on the real node $NODE_NAME"

# Pod logs, as the kubelet writes them (CRI format: time, stream, tag, line), copied as they grow so
# that a deleted pod's last lines are kept.
follow_logs() {
  local pod uid file
  for pod in $(controller_pods); do
    [ -f "$WORK/follow-$pod" ] && continue
    uid=$("${K[@]}" get pod "$pod" -n $CNS -o jsonpath='{.metadata.uid}')
    file=/var/log/pods/${CNS}_${pod}_${uid}/hpa-controller/0.log
    [ -f "$file" ] || continue
    stdbuf -oL tail -n +1 -F "$file" >"$WORK/pod-$pod.log" 2>/dev/null &
    PIDS+=("$!")
    touch "$WORK/follow-$pod"
  done
}
follow_logs

# uid, read-only root, environment: read from the containers' processes on this machine.
container_id() { # <pod>
  ctr --address "$CONTAINERD_SOCK" -n k8s.io containers ls -q \
    "labels.\"io.kubernetes.pod.name\"==$1,labels.\"io.kubernetes.container.name\"==hpa-controller" | head -n1
}
container_pid() { # <pod>
  local id
  id=$(container_id "$1")
  ctr --address "$CONTAINERD_SOCK" -n k8s.io tasks ls | awk -v id="$id" '$1 == id && $3 == "RUNNING" { print $2 }'
}
for pod in $(ready_pods); do
  pid=$(container_pid "$pod")
  [ -n "$pid" ] || fail "no running container of $pod in containerd"
  uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")
  [ "$uid" = 65532 ] || fail "$pod runs as uid $uid"
  root_opts=$(awk '$5 == "/" { print $6 }' "/proc/$pid/mountinfo" | head -n1)
  [[ ,$root_opts, == *,ro,* ]] || fail "$pod's root filesystem is mounted $root_opts"
  # The environment the runtime gave the process (glibc rewrites its own copy while parsing it).
  ctr --address "$CONTAINERD_SOCK" -n k8s.io containers info "$(container_id "$pod")" |
    jq -e --arg t "GLIBC_TUNABLES=$TUNABLES" '.Spec.process.env | index($t) != null' >/dev/null ||
    fail "$pod runs without the allocator tunables"
  tr '\0' '\n' <"/proc/$pid/environ" | grep -q '^KUBERNETES_SERVICE_HOST=' || fail "$pod has no kubernetes Service in its environment"
done
pass "both run as uid 65532 on a read-only root filesystem, with GLIBC_TUNABLES set"

# The shadow (deploy/overlays/shadow-policy-v1beta1, this cluster's budget API) as shipped, beside
# the install; then `kubectl delete -k` of it, which must leave the install as it was.
SNS=hpa-controller-shadow
SHADOW_LABEL=app.kubernetes.io/name=hpa-controller-shadow
shadow_ready_pods() {
  "${K[@]}" get pods -n $SNS -l $SHADOW_LABEL -o json 2>/dev/null |
    jq -r '.items[] | select(.metadata.deletionTimestamp == null) |
      select(.status.phase == "Running" and any(.status.conditions[]?; .type == "Ready" and .status == "True")) | .metadata.name'
}
shadow_holder() { "${K[@]}" get lease hpa-controller-shadow -n $SNS -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
pod_metric() { # <pod ip> <metric>: the sum of the metric's series on that pod's /metrics
  curl -sk --max-time 5 -H "Authorization: Bearer $SCRAPER" "https://$1:10258/metrics" |
    awk -v m="$2" 'index($1, m "{") == 1 || $1 == m { s += $2 } END { print s + 0 }'
}
shadow_beside_install() {
  phase "the shadow beside the install: kubectl apply -k deploy/overlays/shadow-policy-v1beta1"
  INSTALL_PODS=$(ready_pods | sort | tr '\n' ' ')
  INSTALL_HOLDER=$(holder)
  (cd "$ROOT" && "${K[@]}" apply -k deploy/overlays/shadow-policy-v1beta1) >"$WORK/shadow-apply.out" 2>&1 ||
    { cat "$WORK/shadow-apply.out"; fail "kubectl apply -k shadow"; }
  grep -q "namespace/hpa-controller " "$WORK/shadow-apply.out" && fail "the shadow's apply touched the install's namespace"
  shadow_two_ready() { [ "$(shadow_ready_pods | grep -c .)" -eq 2 ]; }
  wait_for 240 "both shadow replicas Running and Ready in $SNS" shadow_two_ready
  shadow_has_holder() { [ -n "$(shadow_holder)" ]; }
  wait_for 60 "the shadow's Lease $SNS/hpa-controller-shadow has a holder" shadow_has_holder
  local shadow_leader ip
  shadow_leader=$(shadow_holder)
  shadow_leader=${shadow_leader%%_*}
  ip=$("${K[@]}" get pod "$shadow_leader" -n $SNS -o jsonpath='{.status.podIP}')
  # A decision of the install's for the shadow to compare: api's floor raised to 3.
  "${K[@]}" patch hpa api -n "$NS" --type merge -p '{"spec":{"minReplicas":3}}' >/dev/null
  compared() { [ "$(pod_metric "$ip" hpa_controller_shadow_comparisons_total)" -ge 1 ]; }
  wait_for 60 "the shadow's leader $shadow_leader compares the install's decisions" compared
  [ "$(replicas api)" -ge 3 ] || fail "the install did not raise api to its new floor"
  local pod uid
  for pod in $(shadow_ready_pods); do
    uid=$("${K[@]}" get pod "$pod" -n $SNS -o jsonpath='{.metadata.uid}')
    cp "/var/log/pods/${SNS}_${pod}_${uid}/hpa-controller/0.log" "$WORK/shadow-pod-$pod.log"
  done
  if grep -il forbidden "$WORK"/shadow-pod-*.log; then fail "Forbidden in a shadow pod's log"; fi
  pass "the shadow ran on its own RBAC (no Forbidden)"
}
shadow_deleted() {
  phase "kubectl delete -k of the shadow"
  (cd "$ROOT" && "${K[@]}" delete -k deploy/overlays/shadow-policy-v1beta1) >"$WORK/shadow-delete.out" 2>&1 ||
    { cat "$WORK/shadow-delete.out"; fail "kubectl delete -k shadow"; }
  # Every object deleted is the shadow's ("... \"hpa-controller-shadow...\" deleted"), or its
  # settings in its own namespace (the ConfigMap keeps the shared name, namespaced apart).
  if grep ' deleted$' "$WORK/shadow-delete.out" | grep -v '"hpa-controller-shadow' | grep -v '^configmap "hpa-controller-settings-'; then
    fail "deleting the shadow deleted an object that is not the shadow's"
  fi
  grep -q 'namespace "hpa-controller-shadow" deleted' "$WORK/shadow-delete.out" ||
    fail "the shadow's namespace was not deleted: $(cat "$WORK/shadow-delete.out")"
  shadow_gone() { ! "${K[@]}" get namespace $SNS >/dev/null 2>&1; }
  wait_for 120 "the shadow's namespace, Deployment and pods are gone" shadow_gone
  for o in clusterrole/hpa-controller-shadow clusterrole/hpa-controller-shadow-metrics-reader \
           clusterrolebinding/hpa-controller-shadow clusterrolebinding/hpa-controller-shadow:auth-delegator; do
    "${K[@]}" get "$o" >/dev/null 2>&1 && fail "$o outlived the shadow"
  done
  for o in namespace/$CNS clusterrole/hpa-controller clusterrolebinding/hpa-controller \
           clusterrolebinding/hpa-controller:auth-delegator clusterrole/hpa-controller-metrics-reader; do
    "${K[@]}" get "$o" >/dev/null || fail "$o went with the shadow"
  done
  "${K[@]}" get configmaps -n $CNS -o name | grep -q '^configmap/hpa-controller-settings-' ||
    fail "the install's settings went with the shadow"
  for o in deployment/hpa-controller serviceaccount/hpa-controller service/hpa-controller-metrics \
           pdb/hpa-controller role/hpa-controller-leader-election rolebinding/hpa-controller-leader-election; do
    "${K[@]}" get "$o" -n $CNS >/dev/null || fail "$o went with the shadow"
  done
  [ "$(ready_pods | sort | tr '\n' ' ')" = "$INSTALL_PODS" ] || fail "the install's pods changed: $(ready_pods | tr '\n' ' ')"
  [ "$(holder)" = "$INSTALL_HOLDER" ] || fail "the install's Lease changed hands: $(holder)"
  local before
  before=$(pod_metric "$("${K[@]}" get pod "${INSTALL_HOLDER%%_*}" -n $CNS -o jsonpath='{.status.podIP}')" \
    hpa_controller_reconciles_total)
  reconciling() {
    [ "$(pod_metric "$("${K[@]}" get pod "${INSTALL_HOLDER%%_*}" -n $CNS -o jsonpath='{.status.podIP}')" \
      hpa_controller_reconciles_total)" -gt "$before" ]
  }
  wait_for $((SYNC_PERIOD + 10)) "the install goes on reconciling, with the same pods and leader" reconciling
}

# --- leader election and scaling, in-cluster
phase "leader and scaling"
holder() { "${K[@]}" get lease hpa-controller -n $CNS -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
has_holder() { [ -n "$(holder)" ]; }
wait_for 60 "the Lease has a holder" has_holder
LEADER="" STANDBY=""
for pod in $(ready_pods); do
  if [[ $(holder) == "${pod}_"* ]]; then LEADER=$pod; else STANDBY=$pod; fi
done
[ -n "$LEADER" ] && [ -n "$STANDBY" ] || fail "holder '$(holder)' is not one of the two pods"
pass "leader $LEADER, standby $STANDBY"
replicas() { "${K[@]}" get deploy "$1" -n "$NS" -o jsonpath='{.spec.replicas}'; }
web_scaled() { [ "$(replicas web)" -ge 3 ]; }
wait_for 90 "the leader scales web under load (300m over two pods of 100m at a 50% target)" web_scaled
grep -q 'server=https://10.0.0.1:443' "$WORK/pod-$LEADER.log" ||
  fail "the leader did not connect through the kubernetes Service (in-cluster configuration)"
pass "in-cluster configuration: the kubernetes Service and the mounted ServiceAccount token"

# --- /metrics through the Service
phase "/metrics through the Service"
"${K[@]}" create serviceaccount scraper -n "$NS" >/dev/null
"${K[@]}" create serviceaccount outsider -n "$NS" >/dev/null
"${K[@]}" create clusterrolebinding incluster-e2e-scraper --clusterrole hpa-controller-metrics-reader \
  --serviceaccount "$NS:scraper" >/dev/null
sa_token() { # <name>
  local secret
  secret=$("${K[@]}" get sa "$1" -n "$NS" -o jsonpath='{.secrets[0].name}')
  [ -n "$secret" ] && "${K[@]}" get secret "$secret" -n "$NS" -o jsonpath='{.data.token}' | base64 -d
}
has_tokens() { [ -n "$(sa_token scraper)" ] && [ -n "$(sa_token outsider)" ]; }
wait_for 30 "tokens for the scraper and an outsider" has_tokens
SCRAPER=$(sa_token scraper)
OUTSIDER=$(sa_token outsider)
SVC_IP=$("${K[@]}" get svc hpa-controller-metrics -n $CNS -o jsonpath='{.spec.clusterIP}')
SVC_URL=https://$SVC_IP:10258/metrics
code_of() { curl -sk -o "$WORK/metrics.body" -w '%{http_code}' --max-time 5 "$@" "$SVC_URL"; }
service_answers() { [ "$(code_of -H "Authorization: Bearer $SCRAPER")" = 200 ]; }
wait_for 30 "the Service's endpoints lead to the pods" service_answers
grep -q '^horizontal_pod_autoscaler_controller' "$WORK/metrics.body" || fail "/metrics without the controller's metrics"
pass "/metrics through $SVC_IP:10258 with the scraper's token: 200"
code=$(code_of)
[ "$code" = 401 ] || [ "$code" = 403 ] || fail "anonymous /metrics answered $code"
pass "anonymous caller refused ($code)"
code=$(code_of -H "Authorization: Bearer $OUTSIDER")
[ "$code" = 403 ] || fail "a token without the binding got $code"
pass "a token without hpa-controller-metrics-reader refused (403)"

# --- the shadow beside the install, then deleted
shadow_beside_install
shadow_deleted

# --- handover: delete the leader's pod
phase "handover: kubectl delete pod $LEADER"
LEADER_IP=$("${K[@]}" get pod "$LEADER" -n $CNS -o jsonpath='{.status.podIP}')
STANDBY_IP=$("${K[@]}" get pod "$STANDBY" -n $CNS -o jsonpath='{.status.podIP}')
cat >"$WORK/poll.py" <<'PY'
# Polls each pod's /metrics (a thread per pod, so that a pod gone silent delays no other) and
# records every change of hpa_controller_reconciles_total per HPA: "time ip namespace/name count"
# lines; the counts of a pod's first answer are marked "baseline" (reconciles from before the
# polling). Stops when the stop file appears or after 240 s.
import os, re, ssl, sys, threading, time, urllib.request
out, stop, token, ips = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
line = re.compile(r'^hpa_controller_reconciles_total\{([^}]*)\} ([0-9.e+]+)$')
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
deadline = time.time() + 240
lock = threading.Lock()
f = open(out, "w")
def poll(ip):
    last, first = {}, True
    while time.time() < deadline and not os.path.exists(stop):
        try:
            req = urllib.request.Request(f"https://{ip}:10258/metrics", headers={"Authorization": f"Bearer {token}"})
            body = urllib.request.urlopen(req, context=ctx, timeout=1).read().decode()
        except Exception:
            time.sleep(0.1)
            continue
        now = time.time()
        for l in body.splitlines():
            m = line.match(l)
            if not m: continue
            labels = dict(kv.split("=", 1) for kv in m.group(1).split(","))
            hpa = labels["namespace"].strip('"') + "/" + labels["name"].strip('"')
            count = float(m.group(2))
            if last.get(hpa) != count:
                with lock:
                    f.write(f"{now:.3f} {ip} {hpa} {count:.0f}{' baseline' if first else ''}\n"); f.flush()
                last[hpa] = count
        first = False
        time.sleep(0.1)
threads = [threading.Thread(target=poll, args=(ip,)) for ip in ips]
for t in threads: t.start()
for t in threads: t.join()
PY
python3 "$WORK/poll.py" "$WORK/reconciles.txt" "$WORK/poll.stop" "$SCRAPER" "$LEADER_IP" "$STANDBY_IP" &
PIDS+=("$!")
sleep $((SYNC_PERIOD + 5))  # a full sync period of the leader's reconciles, seen before the handover
DELETED=$EPOCHREALTIME
"${K[@]}" delete pod "$LEADER" -n $CNS --wait=false >/dev/null
standby_leads() { [[ $(holder) == "${STANDBY}_"* ]]; }
wait_for 30 "the standby $STANDBY holds the Lease" standby_leads
standby_reconciled() { grep -q " $STANDBY_IP $NS/" "$WORK/reconciles.txt"; }
wait_for 30 "the standby reconciles" standby_reconciled
sleep $((SYNC_PERIOD + 5))  # a full sync period of the new leader's
touch "$WORK/poll.stop"
follow_logs
grep -q "shutting down" "$WORK/pod-$LEADER.log" || fail "the leader logged no SIGTERM"
grep -q "released the lease" "$WORK/pod-$LEADER.log" || fail "the leader did not release the Lease"
python3 - "$WORK/reconciles.txt" "$WORK/pod-$LEADER.log" "$WORK/pod-$STANDBY.log" "$STANDBY_IP" "$DELETED" "$SYNC_PERIOD" \
  >"$WORK/handover.txt" <<'PY' || { cat "$WORK/handover.txt"; fail "handover"; }
import datetime, sys
recs, leader_log, standby_log, standby_ip, deleted, sync = sys.argv[1:7]
deleted, sync = float(deleted), float(sync)
def cri_time(path, needle):
    for l in open(path):
        if needle in l:
            t = l.split(" ", 1)[0]
            t = t[:26] + "Z" if len(t) > 27 else t  # microseconds are enough for datetime
            return datetime.datetime.strptime(t.rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f").replace(
                tzinfo=datetime.timezone.utc).timestamp()
    sys.exit(f"no '{needle}' in {path}")
sigterm = cri_time(leader_log, "shutting down")
released = cri_time(leader_log, "released the lease")
leading = cri_time(standby_log, "started leading")
events, first = {}, None
for l in open(recs):
    fields = l.split()
    if len(fields) > 4: continue  # a baseline, not a reconcile seen
    t, ip, hpa = float(fields[0]), fields[1], fields[2]
    events.setdefault(hpa, []).append(t)
    if ip == standby_ip and first is None: first = t
# A reconcile is seen within one poll (every 0.1 s, plus the request) of happening.
handover = first - sigterm
print(f"kubectl delete -> SIGTERM handled by the leader: {sigterm - deleted:.3f}s")
print(f"SIGTERM -> leader released the Lease: {released - sigterm:.3f}s")
print(f"SIGTERM -> standby started leading: {leading - sigterm:.3f}s")
print(f"SIGTERM -> standby's first reconcile (seen on its /metrics): {handover:.3f}s")
bound = sync + handover + 0.5  # 0.5 s: two polls' worth of slack
worst = 0.0
for hpa, ts in sorted(events.items()):
    ts.sort()
    gaps = [b - a for a, b in zip(ts, ts[1:])]
    gap = max(gaps) if gaps else float("inf")
    worst = max(worst, gap)
    print(f"{hpa}: {len(ts)} reconciles seen, longest gap {gap:.3f}s")
print(f"bound: sync period {sync:.0f}s + handover {handover:.3f}s + 0.5s of polling = {bound:.3f}s; longest gap {worst:.3f}s")
if handover > 10: sys.exit("the standby took longer than a graceful handover should")
if worst > bound: sys.exit("an HPA went unreconciled for longer than the bound")
PY
sed 's/^/  /' "$WORK/handover.txt"
pass "handover: no HPA left unreconciled beyond a sync period plus the handover"

# --- the PodDisruptionBudget: two Ready replicas again, then evict both
phase "evictions"
wait_for 120 "two Ready replicas again (the Deployment replaced the deleted one)" two_ready
pdb_allows_one() { [ "$("${K[@]}" get pdb hpa-controller -n $CNS -o jsonpath='{.status.disruptionsAllowed}')" = 1 ]; }
wait_for 60 "the budget allows one disruption" pdb_allows_one
evict() { # <pod>: prints the apiserver's answer
  printf '{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"%s","namespace":"%s"}}' "$1" "$CNS" |
    "${K[@]}" create --raw "/api/v1/namespaces/$CNS/pods/$1/eviction" -f - 2>&1
}
NEW_LEADER=$(holder)
FIRST="" SECOND=""
for pod in $(ready_pods); do
  if [[ $NEW_LEADER == "${pod}_"* ]]; then SECOND=$pod; else FIRST=$pod; fi
done
out=$(evict "$FIRST") || fail "evicting the standby $FIRST was refused: $out"
pass "evicting the standby $FIRST: allowed"
if out=$(evict "$SECOND"); then fail "evicting the second replica $SECOND was allowed"; fi
[[ $out == *"disruption budget"* ]] || fail "evicting $SECOND failed for another reason: $out"
pass "evicting the leader $SECOND too: refused by the PodDisruptionBudget"
"${K[@]}" get pod "$SECOND" -n $CNS >/dev/null || fail "$SECOND is gone"

# --- no Forbidden anywhere
follow_logs
sleep 1
if grep -il forbidden "$WORK"/pod-*.log; then
  grep -ih forbidden "$WORK"/pod-*.log | head -5
  fail "Forbidden in a controller's log: deploy/'s RBAC is not enough"
fi
pass "no Forbidden in $(ls "$WORK"/pod-*.log | wc -l) controller pods' logs"
echo "incluster e2e: all checks passed"
