# Helpers of the tests that run deploy/ as pods on a real node (make e2e-incluster,
# e2e-monitoring, e2e-journey): the cluster and its node, the image as the README builds and
# imports it, hpa-sim's workloads, the controller's pods and Lease, /metrics with a token.
# shellcheck shell=bash
#
# Source it after tests/e2e/lib/e2e.sh, with ROOT (the checkout), DIR (the cluster's directory),
# WORK (a scratch directory), PIDS (an array) and STARTED ($SECONDS at the start) set. It sets
# HACK, K (kubectl as admin, once the cluster is up), CONTAINERD_SOCK and NODE_NAME (once the node
# is), and GATEWAY.
HACK=$ROOT/hack
GATEWAY=10.244.0.1
CNS=hpa-controller
APP_LABEL=app.kubernetes.io/name=hpa-controller

phase() { echo "--- $* (at $((SECONDS - STARTED))s)"; }

# incluster_wait <seconds> <description> <command...>: polls the command twice a second.
incluster_wait() {
  local limit=$1 what=$2
  shift 2
  for _ in $(seq $((limit * 2))); do
    if "$@" >/dev/null 2>&1; then pass "$what"; return 0; fi
    sleep 0.5
  done
  fail "$what (not within ${limit}s)"
}

# incluster_up [--controller-manager-arg ARG]...: a fresh cluster in DIR, advertised on the
# node's bridge, kube-controller-manager with the controllers a namespace's life needs (plus the
# arguments given), and the real node.
incluster_up() {
  "$HACK/local-node.sh" down --dir "$DIR" >/dev/null 2>&1 || true
  "$HACK/local-cluster.sh" down --dir "$DIR" --purge >/dev/null 2>&1 || true
  "$HACK/local-cluster.sh" up --dir "$DIR" --controller-manager --min-request-timeout 60 \
    --advertise-address "$GATEWAY" \
    --controller-manager-arg --controllers=endpoint,endpointslice,disruption,garbagecollector,namespace "$@"
  # shellcheck disable=SC1091
  source "$DIR/env"
  K=("$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG")
  "$HACK/local-node.sh" up --dir "$DIR"
  # shellcheck disable=SC1091
  source "$DIR/node/env"
}

# incluster_down: the node and the cluster stopped, DIR removed (HPA_INCLUSTER_KEEP=1 and a
# failure: both left up, for a look).
incluster_down() { # <exit code>
  if [ "$1" -ne 0 ] && [ -n "${HPA_INCLUSTER_KEEP:-}" ]; then
    echo "HPA_INCLUSTER_KEEP: cluster and node left up in $DIR, files in $WORK"
    return 0
  fi
  "$HACK/local-node.sh" down --dir "$DIR" || true
  "$HACK/local-cluster.sh" down --dir "$DIR" || true
  rm -rf "$WORK"
}

# The command lines of a section of the README (tests/docs/markdown_code.py), one per line.
readme_commands() { # <heading>
  python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1])
from markdown_code import section_blocks, command_lines
for b in section_blocks("README.md", sys.argv[2])[:int(sys.argv[3])]:
    print("\n".join(command_lines(b)))' "$ROOT/tests/docs" "$1" "${2:-99}"
}

# incluster_image: the README's step 1 as it is written, from the checkout: `make image
# IMAGE_SAVE=...`, then `ctr -n k8s.io images import ...` into the node's containerd (its socket
# given the way ctr reads it from the environment). No name is rewritten: the Deployment's
# `hpa-controller:<VERSION>` must be what the import made.
incluster_image() {
  local line
  while IFS= read -r line; do
    echo "README: $line"
    (cd "$ROOT" && CONTAINERD_ADDRESS=$CONTAINERD_SOCK bash -c "$line") >"$WORK/image-step.log" 2>&1 ||
      { tail -30 "$WORK/image-step.log"; fail "the README's command '$line' failed"; }
  done < <(readme_commands "1. The image" 1)
  local version
  version=$(tr -d '[:space:]' <"$ROOT/VERSION")
  # Listed first, then searched: grep -q stops reading at its match, and under pipefail the lister's
  # broken pipe would fail the check it just passed.
  local images
  images=$(ctr --address "$CONTAINERD_SOCK" -n k8s.io images ls -q)
  grep -qx "docker.io/library/hpa-controller:$version" <<<"$images" ||
    fail "containerd has no docker.io/library/hpa-controller:$version after the README's import: $(tr '\n' ' ' <<<"$images")"
  pass "the image imported as the README says: docker.io/library/hpa-controller:$version"
  rm -f "$ROOT/hpa-controller.tar"
}

# incluster_workload_yaml NS APP: a Deployment of two replicas on hpa-sim's node and its CPU HPA
# (50 % of a 100m request, 1 to 8 replicas), as YAML for kubectl apply.
incluster_workload_yaml() {
  local ns=$1 app=$2
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $app, namespace: $ns}
spec:
  replicas: 2
  selector: {matchLabels: {app: $app}}
  template:
    metadata: {labels: {app: $app}}
    spec:
      schedulerName: hpa-sim
      nodeSelector: {hpa-sim: "true"}
      tolerations: [{key: hpa-sim, operator: Exists, effect: NoSchedule}]
      containers: [{name: app, image: example/$app, resources: {requests: {cpu: 100m}}}]
---
apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata: {name: $app, namespace: $ns}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: $app}
  minReplicas: 1
  maxReplicas: 8
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
---
YAML
}

# incluster_workloads <namespace> <cpu of web> [<cpu of api>]: hpa-sim plays the kubelet for two
# Deployments (web, api; 2 replicas of 100m requested each, on its own node, tainted so that the
# scheduler keeps the controller off it) with CPU HPAs at a 50 % target, and serves their
# metrics. Sets SIM_CONTROL (hpa-sim's /set URL).
incluster_workloads() {
  local ns=$1 web=$2 api=${3:-60m} metrics_port control_port app
  "${K[@]}" create namespace "$ns" >/dev/null
  cat >"$WORK/scenario.yaml" <<YAML
workloads:
- {name: web, namespace: $ns, selector: app=web, cpu: $web}
- {name: api, namespace: $ns, selector: app=api, cpu: $api}
YAML
  hpa_pick_ports metrics_port control_port
  "$SIM" --kubeconfig "$ADMIN_KUBECONFIG" --namespace "$ns" --scenario "$WORK/scenario.yaml" \
    --metrics-port "$metrics_port" --control-port "$control_port" --start-delay 1s --readiness-delay 1s \
    --serving-cert "$BACKEND_SERVING_CERT" --serving-key "$BACKEND_SERVING_KEY" --client-ca "$FRONT_PROXY_CA_CERT" \
    >"$WORK/sim.out" 2>"$WORK/sim.log" &
  PIDS+=("$!")
  SIM_CONTROL=http://127.0.0.1:$control_port
  sim_node() { "${K[@]}" get nodes -l hpa-sim=true -o name | grep -q .; }
  incluster_wait 60 "hpa-sim registered its node" sim_node
  "${K[@]}" taint nodes -l hpa-sim=true hpa-sim=true:NoSchedule --overwrite >/dev/null
  for app in web api; do incluster_workload_yaml "$ns" "$app"; done | "${K[@]}" apply -f - >/dev/null
  pod_metrics() { "${K[@]}" get --raw "/apis/metrics.k8s.io/v1beta1/namespaces/$ns/pods" | jq -e '.items | length >= 4'; }
  incluster_wait 90 "hpa-sim serves the workloads' pod metrics" pod_metrics
}

# set_load <workload> <cpu>: the workload's total demand, through hpa-sim's /set.
set_load() {
  curl -sf -X POST "$SIM_CONTROL/set" -d "{\"workload\": \"$1\", \"cpu\": \"$2\"}" >/dev/null
}

# The pods of a label in a namespace that are Running and Ready, and not being deleted.
ready_pods() { # <namespace> <label>
  "${K[@]}" get pods -n "$1" -l "$2" -o json |
    jq -r '.items[] | select(.metadata.deletionTimestamp == null) |
      select(.status.phase == "Running" and any(.status.conditions[]?; .type == "Ready" and .status == "True")) | .metadata.name'
}
ready_count() { ready_pods "$@" | grep -c . || true; }
holder() { # <namespace> <lease>: the Lease's holder (<pod>_<id>)
  "${K[@]}" get lease "$2" -n "$1" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null
}
pod_ip() { "${K[@]}" get pod "$2" -n "$1" -o jsonpath='{.status.podIP}'; }
replicas() { "${K[@]}" get deploy "$2" -n "$1" -o jsonpath='{.spec.replicas}'; }

# sa_token <namespace> <serviceaccount>: its token (Kubernetes 1.20: from its token Secret).
sa_token() {
  local secret
  secret=$("${K[@]}" get sa "$2" -n "$1" -o jsonpath='{.secrets[0].name}' 2>/dev/null)
  [ -n "$secret" ] && "${K[@]}" get secret "$secret" -n "$1" -o jsonpath='{.data.token}' | base64 -d
}

# pod_metric <pod ip> <metric> <token> [<label>=<value>...]: the sum of the metric's series on
# that pod's /metrics, of those with every label given.
pod_metric() {
  local ip=$1 metric=$2 token=$3
  shift 3
  curl -sk --max-time 5 -H "Authorization: Bearer $token" "https://$ip:10258/metrics" |
    python3 -c 'import re, sys
metric, wanted = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
total = 0.0
for line in sys.stdin:
    m = re.match(r"^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)", line)
    if not m or m.group(1) != metric:
        continue
    labels = dict(re.findall(r"(\w+)=\"((?:[^\"\\]|\\.)*)\"", m.group(2) or ""))
    if all(labels.get(k) == v for k, v in wanted.items()):
        total += float(m.group(3))
print(int(total) if total == int(total) else total)' "$metric" "$@"
}

# The PID, on this machine, of a pod's hpa-controller container.
container_id() { # <pod>
  ctr --address "$CONTAINERD_SOCK" -n k8s.io containers ls -q \
    "labels.\"io.kubernetes.pod.name\"==$1,labels.\"io.kubernetes.container.name\"==hpa-controller" | head -n1
}
container_pid() { # <pod>
  local id
  id=$(container_id "$1")
  ctr --address "$CONTAINERD_SOCK" -n k8s.io tasks ls | awk -v id="$id" '$1 == id && $3 == "RUNNING" { print $2 }'
}

# follow_pod_logs <namespace> <label>: each pod's log, as the kubelet writes it (CRI format),
# copied to WORK/pod-<name>.log as it grows, so that a deleted pod's last lines are kept.
follow_pod_logs() {
  local ns=$1 label=$2 pod uid file
  for pod in $("${K[@]}" get pods -n "$ns" -l "$label" -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'); do
    [ -f "$WORK/follow-$pod" ] && continue
    uid=$("${K[@]}" get pod "$pod" -n "$ns" -o jsonpath='{.metadata.uid}')
    file=/var/log/pods/${ns}_${pod}_${uid}/hpa-controller/0.log
    [ -f "$file" ] || continue
    stdbuf -oL tail -n +1 -F "$file" >"$WORK/pod-$pod.log" 2>/dev/null &
    PIDS+=("$!")
    touch "$WORK/follow-$pod"
  done
}
