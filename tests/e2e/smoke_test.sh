#!/usr/bin/env bash
# Smoke test of the local control plane (hack/local-cluster.sh up --controller-manager): what the
# later e2e tests rely on, checked against the running cluster in $HPA_E2E_DIR (or $1).
#   1. Deployments create Pods (deployment/replicaset/serviceaccount controllers, no HPA).
#   2. A Pod with no node accepts a status update to Running/Ready, and it sticks.
#   3. RBAC: the unprivileged user is denied (client certificate and token); the admin token works.
#   4. API aggregation through an APIService backed by an ExternalName Service -> localhost.
#   5. `compact` makes etcd-served lists from older resourceVersions answer 410 Gone.
#   6. `restart-apiserver` keeps port, certificates and data.
set -euo pipefail

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLUSTER_DIR=${1:-${HPA_E2E_DIR:?set HPA_E2E_DIR or pass the cluster directory}}
LOCAL_CLUSTER=$REPO_DIR/hack/local-cluster.sh

# shellcheck source=/dev/null
source "$CLUSTER_DIR/env"
# shellcheck source=/dev/null
source "$TOKENS_ENV"
# shellcheck source=SCRIPTDIR/../../hack/lib/aggregation.sh
source "$REPO_DIR/hack/lib/aggregation.sh"

NAMESPACE=smoke-$(date +%s)-$$
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hpa-e2e-smoke.XXXXXX")
BACKEND_PID=""

cleanup() {
  if [ -n "$BACKEND_PID" ]; then
    hpa_aggregation_unregister metrics.k8s.io v1beta1 >/dev/null 2>&1 || true
    kill "$BACKEND_PID" 2>/dev/null || true
    wait "$BACKEND_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

step() { echo "--- $*"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
k() { "$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG" --request-timeout=10s "$@"; }
api() { # <curl args...>: admin client certificate against the API server
  curl -sS --max-time 10 --cacert "$CA_CERT" --cert "$ADMIN_CERT" --key "$ADMIN_KEY" "$@"
}

# Polls <command...> every 0.2 s for up to <seconds>.
wait_for() { # <seconds> <description> <command...>
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $what"
    sleep 0.2
  done
}

pod_count() { k -n "$NAMESPACE" get pods -l app=smoke -o name | wc -l; }
has_two_pods() { [ "$(pod_count)" -eq 2 ]; }
ready_replicas_is() { # <n>
  [ "$(k -n "$NAMESPACE" get deployment smoke -o 'jsonpath={.status.readyReplicas}')" = "$1" ]
}

step "1. a Deployment with 2 replicas creates 2 Pods (namespace $NAMESPACE)"
k create namespace "$NAMESPACE"
k -n "$NAMESPACE" apply -f - <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: smoke
spec:
  replicas: 2
  selector:
    matchLabels: {app: smoke}
  template:
    metadata:
      labels: {app: smoke}
    spec:
      containers:
      - name: app
        image: registry.invalid/never-pulled:1
        resources:
          requests: {cpu: 100m}
EOF
wait_for 60 "2 pods of deployment smoke" has_two_pods
k -n "$NAMESPACE" get pods -l app=smoke -o wide
[ -z "$(k -n "$NAMESPACE" get pods -l app=smoke -o 'jsonpath={.items[*].spec.nodeName}')" ] ||
  fail "pods were bound to a node, but this cluster has no scheduler"

step "2. a Pod with no node takes a Running/Ready status"
pod=$(k -n "$NAMESPACE" get pods -l app=smoke -o 'jsonpath={.items[0].metadata.name}')
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
k -n "$NAMESPACE" get pod "$pod" -o json |
  jq --arg now "$now" '.status.phase = "Running" | .status.startTime = $now
    | .status.podIP = "10.244.0.10" | .status.podIPs = [{ip: "10.244.0.10"}]
    | .status.conditions = [
        {type: "Initialized", status: "True", lastTransitionTime: $now},
        {type: "Ready", status: "True", lastTransitionTime: $now},
        {type: "ContainersReady", status: "True", lastTransitionTime: $now},
        {type: "PodScheduled", status: "True", lastTransitionTime: $now}]' >"$WORK/pod.json"
k replace --raw "/api/v1/namespaces/$NAMESPACE/pods/$pod/status" -f "$WORK/pod.json" >/dev/null
# The ReplicaSet and Deployment controllers count the pod as ready: the status is really in use.
wait_for 30 "deployment smoke to report 1 ready replica" ready_replicas_is 1
sleep 2 # long enough for any controller that would rewrite the status to have done so
status=$(k -n "$NAMESPACE" get pod "$pod" \
  -o 'jsonpath={.status.phase}/{.status.conditions[?(@.type=="Ready")].status}/{.spec.nodeName}')
[ "$status" = "Running/True/" ] || fail "pod $pod status did not stick: phase/ready/node = $status"
echo "pod $pod: phase/ready/node = $status"

step "3. RBAC denies the unprivileged user; the admin token is accepted"
if out=$("$KUBECTL" --kubeconfig "$UNPRIVILEGED_KUBECONFIG" -n "$NAMESPACE" get pods 2>&1); then
  fail "unprivileged user could list pods: $out"
fi
[[ $out == *Forbidden*"\"$UNPRIVILEGED_USER\""* ]] || fail "unexpected denial message: $out"
echo "client certificate: $out"
code=$(curl -sS -o "$WORK/denied.json" -w '%{http_code}' --cacert "$CA_CERT" \
  -H "Authorization: Bearer $UNPRIVILEGED_TOKEN" "$APISERVER_URL/api/v1/namespaces/$NAMESPACE/pods")
[ "$code" = 403 ] || fail "unprivileged token: expected HTTP 403, got $code"
[ "$(jq -r .reason "$WORK/denied.json")" = Forbidden ] || fail "403 without a Forbidden Status"
code=$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$CA_CERT" \
  -H "Authorization: Bearer $ADMIN_TOKEN" "$APISERVER_URL/api/v1/namespaces/$NAMESPACE/pods")
[ "$code" = 200 ] || fail "admin token: expected HTTP 200, got $code"
echo "tokens: unprivileged 403 Forbidden, admin 200"

step "4. API aggregation: APIService -> ExternalName Service (localhost) -> local HTTPS backend"
python3 "$REPO_DIR/hack/lib/echo-https-backend.py" --cert "$BACKEND_SERVING_CERT" \
  --key "$BACKEND_SERVING_KEY" --client-ca "$FRONT_PROXY_CA_CERT" \
  --port-file "$WORK/backend.port" --request-log "$WORK/backend-requests.log" \
  </dev/null >"$WORK/backend.log" 2>&1 &
BACKEND_PID=$!
backend_listening() {
  kill -0 "$BACKEND_PID" 2>/dev/null || fail "backend exited: $(cat "$WORK/backend.log")"
  [ -s "$WORK/backend.port" ]
}
wait_for 10 "the echo backend to listen" backend_listening
port=$(cat "$WORK/backend.port")
hpa_aggregation_register metrics.k8s.io v1beta1 "$port"
hpa_aggregation_wait_available metrics.k8s.io v1beta1 30
k get --raw /apis/metrics.k8s.io/v1beta1 >"$WORK/discovery.json"
jq -e '.kind == "APIResourceList" and .groupVersion == "metrics.k8s.io/v1beta1"' \
  "$WORK/discovery.json" >/dev/null || fail "unexpected discovery reply: $(cat "$WORK/discovery.json")"
k get --raw "/apis/metrics.k8s.io/v1beta1/namespaces/$NAMESPACE/pods" >"$WORK/pods-metrics.json"
echo "backend saw: $(jq -c .echo "$WORK/pods-metrics.json")"
jq -e --arg path "/apis/metrics.k8s.io/v1beta1/namespaces/$NAMESPACE/pods" '.echo
    | (.path | split("?")[0]) == $path and .clientCertificateCommonName == "front-proxy-client"
      and .remoteUser == "admin" and (.remoteGroups | index("system:masters"))' \
  "$WORK/pods-metrics.json" >/dev/null ||
  fail "request did not reach the backend as admin through the front proxy"
if out=$("$KUBECTL" --kubeconfig "$UNPRIVILEGED_KUBECONFIG" get --raw \
  /apis/metrics.k8s.io/v1beta1/pods 2>&1); then
  fail "unprivileged user could read metrics.k8s.io: $out"
fi
[[ $out == *Forbidden* ]] || fail "unexpected aggregated denial: $out"
hpa_aggregation_unregister metrics.k8s.io v1beta1 >/dev/null
kill "$BACKEND_PID"
wait "$BACKEND_PID" 2>/dev/null || true
BACKEND_PID=""

step "5. compact: a list at an older resourceVersion answers 410 Gone"
k -n "$NAMESPACE" create configmap before-compaction --from-literal=step=5 >/dev/null
old_rv=$(k get --raw "/api/v1/namespaces/$NAMESPACE/configmaps?limit=1" | jq -r .metadata.resourceVersion)
k -n "$NAMESPACE" create configmap after-compaction --from-literal=step=5 >/dev/null
# limit + resourceVersionMatch=Exact bypasses the watch cache, so etcd answers.
exact_list="/api/v1/namespaces/$NAMESPACE/configmaps?limit=1&resourceVersion=$old_rv&resourceVersionMatch=Exact"
code=$(api -o /dev/null -w '%{http_code}' "$APISERVER_URL$exact_list")
[ "$code" = 200 ] || fail "list at resourceVersion $old_rv before compaction: HTTP $code"
revision=$("$LOCAL_CLUSTER" compact --dir "$CLUSTER_DIR")
[ "$revision" -gt "$old_rv" ] || fail "compacted at $revision, not after $old_rv"
code=$(api -o "$WORK/gone.json" -w '%{http_code}' "$APISERVER_URL$exact_list")
[ "$code" = 410 ] || fail "list at resourceVersion $old_rv after compaction: expected 410, got $code"
echo "list at $old_rv after compaction at $revision: $code $(jq -r .reason "$WORK/gone.json")"

step "6. restart-apiserver keeps port, certificates and data"
old_pid=$APISERVER_PID
"$LOCAL_CLUSTER" restart-apiserver --dir "$CLUSTER_DIR"
new_pid=$(sed -n 's/^APISERVER_PID=//p' "$CLUSTER_DIR/env")
if [ -z "$new_pid" ] || [ "$new_pid" = "$old_pid" ]; then
  fail "env does not record a new kube-apiserver pid"
fi
status=$(k -n "$NAMESPACE" get pod "$pod" -o 'jsonpath={.status.phase}')
[ "$status" = Running ] || fail "pod status lost across the restart: $status"
"$LOCAL_CLUSTER" status --dir "$CLUSTER_DIR"

# No garbage collector runs: delete top-down so nothing is recreated, and leave the namespace
# (no namespace controller would finalize it).
k -n "$NAMESPACE" delete deployment smoke >/dev/null
k -n "$NAMESPACE" delete replicasets -l app=smoke >/dev/null
k -n "$NAMESPACE" delete pods -l app=smoke --wait=false >/dev/null
echo "PASS"
