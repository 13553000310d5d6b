#!/usr/bin/env bash
# A real node for the local control plane of hack/local-cluster.sh: containerd (Debian's, with
# runc), a kubelet, kube-proxy and kube-scheduler v1.20.2 (hack/build-k8s.sh --node), pods on a
# CNI bridge. Pods scheduled onto it run for real; hpa-sim's simulated nodes stay as they are.
#
#   local-node.sh up --dir DIR           DIR: a cluster made by
#                                        `local-cluster.sh up --advertise-address 10.244.0.1`
#   local-node.sh import-image --dir DIR FILE   (a docker-archive or OCI tar, e.g. from
#                                        hack/build-image.sh --save) into containerd's k8s.io namespace
#   local-node.sh down --dir DIR         stops it and undoes what `up` changed on the machine
#   local-node.sh restart kubelet|containerd --dir DIR   stops that one (SIGTERM) and starts it
#                                        again with the same configuration; the pods' containers
#                                        run on meanwhile (containerd's shims keep them)
#   local-node.sh stop kubelet --dir DIR | start kubelet --dir DIR
#                                        the kubelet alone down (SIGKILL, as a crash) and up
#                                        again: its node stops posting status, its pods run on
#   local-node.sh status --dir DIR
# --dir defaults to $HPA_E2E_DIR. Needs root, and hack/ensure-node-deps.sh run once.
#
# What `up` changes on the machine, all undone by `down` (one node per machine at a time):
#   - sysctls: the kubelet sets vm.overcommit_memory=1, vm.panic_on_oom=0, kernel.panic=10,
#     kernel.panic_on_oops=1 and raises kernel.keys.root_maxkeys/root_maxbytes where lower;
#     kube-proxy sets net.ipv4.conf.all.route_localnet=1; the CNI bridge plugin sets
#     net.ipv4.ip_forward=1. Their values before `up` are saved in DIR/node/sysctl.before.
#   - a bridge hpae2e0 with 10.244.0.1/24 (the pods' gateway and the apiserver's advertised
#     address), a route of the Service range to it, and a FORWARD rule that drops whatever pods
#     send off the bridge: pods reach this machine and each other, nothing beyond.
#   - iptables chains KUBE-* (kubelet, kube-proxy) and network namespaces cni-* (one per pod).
#   - cgroups kubepods/ under each cgroup hierarchy; pod logs in /var/log/pods and
#     /var/log/containers, the device plugin socket in /var/lib/kubelet (the kubelet's fixed
#     paths; /var/lib/kubelet is removed again if `up` made it).
# Everything else lives under DIR/node: containerd's root and state, the kubelet's root, CNI
# configuration, certificates (signed by the cluster's CA), kubeconfigs. Logs go to DIR/logs.
#
# The node is named hpa-e2e-node and labelled hpa-e2e/real-node=true. The pause image is built
# here, FROM scratch around Debian's static catatonit, since none can be pulled.
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib/pki.sh
source "$HACK_DIR/lib/pki.sh"
# shellcheck source=SCRIPTDIR/lib/processes.sh
source "$HACK_DIR/lib/processes.sh"
HPA_LOG_PREFIX=local-node

NODE_NAME=hpa-e2e-node
NODE_LABEL=hpa-e2e/real-node=true
BRIDGE=hpae2e0
POD_CIDR=10.244.0.0/24
GATEWAY=10.244.0.1
PAUSE_IMAGE=localhost/hpa-e2e-pause:1
OWNER_FILE=/run/hpa-local-node.owner
FORWARD_COMMENT=hpa-local-node:pods-stay-on-this-machine
SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.conf.all.route_localnet
  net.ipv4.ip_forward)
READY_TIMEOUT_SECONDS=120
STOP_SECONDS=15
PODS_GONE_SECONDS=60

DIR=""
log() { hpa_log "$*"; }
die() { log "error: $*"; exit 1; }
usage() { sed -n '6,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
now() { echo "$EPOCHREALTIME"; }
elapsed_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

load_cluster() {
  [ -n "$DIR" ] || die "--dir is required (or set HPA_E2E_DIR)"
  DIR=$(realpath -m "$DIR")
  [ -f "$DIR/env" ] || die "no cluster recorded in $DIR (run local-cluster.sh up first)"
  # shellcheck source=/dev/null
  source "$DIR/env"
  HPA_PROCESS_MARK=$DIR/ # every command line we start names a file under DIR
  NODE_DIR=$DIR/node
  NODE_ENV=$NODE_DIR/env
  CONTAINERD_DIR=$NODE_DIR/containerd
  CONTAINERD_SOCK=$CONTAINERD_DIR/containerd.sock
  CNI_CONF_DIR=$NODE_DIR/cni/net.d
  KUBELET_ROOT=$NODE_DIR/kubelet
  RUN=$NODE_DIR/run
  CTR=(ctr --address "$CONTAINERD_SOCK" --namespace k8s.io)
  K=("$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG")
}

# ---------------------------------------------------------------------------------------------
# Processes (hack/lib/processes.sh), one pidfile each in RUN.

launch() { # <name> <argv...>
  local name=$1
  shift
  hpa_start "$name" "$LOG_DIR/$name.log" "$RUN/$name.pid" "$@"
}

pid_of() { cat "$RUN/$1.pid" 2>/dev/null || true; }

halt() { # <name>
  local name=$1 pid
  pid=$(pid_of "$name")
  if hpa_running "$pid"; then hpa_stop "$name" "$pid" "$STOP_SECONDS" || true; fi
  rm -f "$RUN/$name.pid"
}

await() { # <name> <probe...>: until the probe passes, while the process runs
  local name=$1
  shift
  hpa_wait_ready "$name" "$(pid_of "$name")" "$READY_TIMEOUT_SECONDS" "$LOG_DIR/$name.log" "$@"
}

# ---------------------------------------------------------------------------------------------
# The machine: sysctls, bridge, routes, firewall

save_sysctls() {
  local key
  : >"$NODE_DIR/sysctl.before"
  for key in "${SYSCTLS[@]}"; do
    echo "$key=$(sysctl -n "$key")" >>"$NODE_DIR/sysctl.before"
  done
}

restore_sysctls() {
  [ -f "$NODE_DIR/sysctl.before" ] || return 0
  local line
  while IFS= read -r line; do
    sysctl -q -w "$line" >/dev/null || log "could not restore $line"
  done <"$NODE_DIR/sysctl.before"
  rm -f "$NODE_DIR/sysctl.before"
}

setup_network() {
  ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add "$BRIDGE" type bridge
  ip addr replace "$GATEWAY/${POD_CIDR#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  # Service addresses (until kube-proxy rewrites them) go to the bridge, never to the default route.
  ip route replace "$SERVICE_CLUSTER_IP_RANGE" dev "$BRIDGE"
  iptables -C FORWARD -i "$BRIDGE" ! -o "$BRIDGE" -m comment --comment "$FORWARD_COMMENT" -j DROP 2>/dev/null ||
    iptables -I FORWARD -i "$BRIDGE" ! -o "$BRIDGE" -m comment --comment "$FORWARD_COMMENT" -j DROP
  mkdir -p "$CNI_CONF_DIR"
  cat >"$CNI_CONF_DIR/10-hpa-e2e.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "hpa-e2e",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$GATEWAY"}]],
        "routes": [{"dst": "0.0.0.0/0"}],
        "dataDir": "$NODE_DIR/cni/ipam"
      }
    }
  ]
}
EOF
}

# Jumps into KUBE-* chains from the built-in chains, then the chains themselves.
remove_kube_chains() {
  local table line chain
  for table in filter nat mangle; do
    iptables-save -t "$table" 2>/dev/null | { grep -E '^-A [A-Z]+ .*-j KUBE-' || true; } |
      while IFS= read -r line; do
        eval "iptables -t $table -D ${line#-A }" 2>/dev/null || true
      done
    for chain in $(iptables-save -t "$table" 2>/dev/null | sed -n 's/^:\(KUBE-[^ ]*\) .*/\1/p'); do
      iptables -t "$table" -F "$chain" 2>/dev/null || true
    done
    for chain in $(iptables-save -t "$table" 2>/dev/null | sed -n 's/^:\(KUBE-[^ ]*\) .*/\1/p'); do
      iptables -t "$table" -X "$chain" 2>/dev/null || true
    done
  done
}

teardown_network() {
  while iptables -D FORWARD -i "$BRIDGE" ! -o "$BRIDGE" -m comment --comment "$FORWARD_COMMENT" -j DROP 2>/dev/null; do :; done
  remove_kube_chains
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '/^cni-/ { print $1 }'); do ip netns delete "$ns" 2>/dev/null || true; done
  ip route del "$SERVICE_CLUSTER_IP_RANGE" dev "$BRIDGE" 2>/dev/null || true
  ip link del "$BRIDGE" 2>/dev/null || true
}

remove_pod_cgroups() {
  local root
  for root in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [ -d "$root" ] || continue
    find "$root" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
}

unmount_under() { # <dir>: deepest first
  local m
  awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r | while IFS= read -r m; do
    umount -l "$m" 2>/dev/null || true
  done
}

# ---------------------------------------------------------------------------------------------
# Credentials

make_credentials() {
  hpa_pki_req_config "$PKI_DIR"
  hpa_pki_leaf "$PKI_DIR" ca node-kubelet "/O=system:nodes/CN=system:node:$NODE_NAME" client rsa
  hpa_pki_leaf "$PKI_DIR" ca node-kubelet-serving "/CN=$NODE_NAME" server rsa "IP:127.0.0.1,IP:$GATEWAY,DNS:$NODE_NAME"
  hpa_pki_leaf "$PKI_DIR" ca node-kube-proxy "/CN=system:kube-proxy" client rsa
  hpa_pki_leaf "$PKI_DIR" ca node-kube-scheduler "/CN=system:kube-scheduler" client rsa
  rm -f "$PKI_DIR/req.cnf"
  local who
  for who in kubelet kube-proxy kube-scheduler; do
    local file=$NODE_DIR/$who.kubeconfig
    "$KUBECTL" config set-cluster local --kubeconfig "$file" --server "$APISERVER_URL" \
      --certificate-authority "$CA_CERT" --embed-certs >/dev/null
    "$KUBECTL" config set-credentials "$who" --kubeconfig "$file" \
      --client-certificate "$PKI_DIR/node-$who.crt" --client-key "$PKI_DIR/node-$who.key" >/dev/null
    "$KUBECTL" config set-context local --kubeconfig "$file" --cluster local --user "$who" >/dev/null
    "$KUBECTL" config use-context local --kubeconfig "$file" >/dev/null
    chmod 600 "$file"
  done
}

# ---------------------------------------------------------------------------------------------
# Components

start_containerd() {
  mkdir -p "$CONTAINERD_DIR"
  cat >"$CONTAINERD_DIR/config.toml" <<EOF
version = 2
root = "$CONTAINERD_DIR/root"
state = "$CONTAINERD_DIR/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
                    "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs"]
[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$CONTAINERD_SOCK.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$CONTAINERD_DIR/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # Root without CAP_SYS_RESOURCE may not lower oom_score_adj below its own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$CNI_CONF_DIR"
EOF
  launch containerd containerd --config "$CONTAINERD_DIR/config.toml"
  await containerd "${CTR[@]}" version
}

# A pause image FROM scratch around Debian's static catatonit (-P: sleep until signalled).
import_pause_image() {
  local ctx=$NODE_DIR/pause-image engine
  engine=$(command -v podman || command -v docker) || die "podman or docker is needed to build the pause image"
  mkdir -p "$ctx"
  install -m 0755 /usr/bin/catatonit "$ctx/pause"
  printf 'FROM scratch\nCOPY pause /pause\nENTRYPOINT ["/pause", "-P"]\n' >"$ctx/Containerfile"
  "$engine" build -q -f "$ctx/Containerfile" -t "$PAUSE_IMAGE" "$ctx" >/dev/null
  rm -f "$ctx/pause.tar"
  "$engine" save -q -o "$ctx/pause.tar" "$PAUSE_IMAGE"
  "${CTR[@]}" images import "$ctx/pause.tar" >/dev/null
  "${CTR[@]}" images label "$PAUSE_IMAGE" io.cri-containerd.pinned=pinned >/dev/null 2>&1 || true
}

start_kube_proxy() {
  local healthz metrics
  hpa_pick_ports healthz metrics
  cat >"$NODE_DIR/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $NODE_DIR/kube-proxy.kubeconfig}
mode: iptables
clusterCIDR: $POD_CIDR
hostnameOverride: $NODE_NAME
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:$healthz
metricsBindAddress: 127.0.0.1:$metrics
# Leave the machine's conntrack table size and timeouts alone.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
  launch kube-proxy "$K8S_BIN_DIR/kube-proxy" --config "$NODE_DIR/kube-proxy.yaml" --v=2
  await kube-proxy curl -fsS "http://127.0.0.1:$healthz/healthz"
}

node_ready() {
  "${K[@]}" get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' | grep -qx True
}

start_kubelet() {
  local port healthz
  hpa_pick_ports port healthz
  mkdir -p "$KUBELET_ROOT"
  # Evictions only on a nearly full disk or memory: the machine is shared with builds.
  cat >"$NODE_DIR/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $healthz
tlsCertFile: $PKI_DIR/node-kubelet-serving.crt
tlsPrivateKeyFile: $PKI_DIR/node-kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $CA_CERT}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
failSwapOn: false
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
serializeImagePulls: false
evictionHard: {memory.available: 100Mi, nodefs.available: 2%, imagefs.available: 2%}
imageGCHighThresholdPercent: 98
imageGCLowThresholdPercent: 95
EOF
  launch kubelet "$K8S_BIN_DIR/kubelet" --config "$NODE_DIR/kubelet.yaml" \
    --kubeconfig "$NODE_DIR/kubelet.kubeconfig" --root-dir "$KUBELET_ROOT" --cert-dir "$KUBELET_ROOT/pki" \
    --container-runtime remote --container-runtime-endpoint "unix://$CONTAINERD_SOCK" \
    --pod-infra-container-image "$PAUSE_IMAGE" \
    --hostname-override "$NODE_NAME" --node-ip "$GATEWAY" --node-labels "$NODE_LABEL" --v=2
  await kubelet node_ready
  # The kubelet registers with the not-ready taint, which the node lifecycle controller lifts once
  # the node is Ready. That controller does not run here (it would mark hpa-sim's nodes, which
  # send no heartbeats, unreachable and evict their pods), so this does its part for this node.
  "${K[@]}" taint nodes "$NODE_NAME" node.kubernetes.io/not-ready:NoSchedule- >/dev/null 2>&1 || true
}

start_scheduler() {
  local port
  hpa_pick_ports port
  launch kube-scheduler "$K8S_BIN_DIR/kube-scheduler" \
    --kubeconfig "$NODE_DIR/kube-scheduler.kubeconfig" \
    --authentication-kubeconfig "$NODE_DIR/kube-scheduler.kubeconfig" \
    --authorization-kubeconfig "$NODE_DIR/kube-scheduler.kubeconfig" \
    --leader-elect=false --port=0 --bind-address=127.0.0.1 --secure-port="$port" \
    --cert-dir "$NODE_DIR/scheduler-certs" --v=2
  await kube-scheduler curl -fsSk "https://127.0.0.1:$port/healthz"
}

# ---------------------------------------------------------------------------------------------
# Subcommands

check_owner() {
  [ -f "$OWNER_FILE" ] || return 0
  local owner
  owner=$(cat "$OWNER_FILE")
  [ "$owner" = "$DIR" ] && return 0
  [ -d "$owner/node" ] || return 0
  die "a node of $owner is up on this machine (local-node.sh down --dir $owner first)"
}

UP_DONE=0
on_up_exit() {
  [ "$UP_DONE" = 1 ] && return 0
  log "up failed; undoing it (logs kept in $LOG_DIR)"
  cmd_down_loaded || true
}

cmd_up() {
  [ "$(id -u)" -eq 0 ] || die "needs root (containerd, the kubelet, iptables)"
  load_cluster
  [ "${APISERVER_ADVERTISE_ADDRESS:-}" = "$GATEWAY" ] ||
    die "the cluster must be started with --advertise-address $GATEWAY, so that pods reach the apiserver"
  local b
  for b in kubelet kube-proxy kube-scheduler; do
    [ -x "$K8S_BIN_DIR/$b" ] || die "$K8S_BIN_DIR/$b not found; run hack/ensure-node-deps.sh"
  done
  for b in containerd containerd-shim-runc-v2 runc ctr iptables iptables-save conntrack catatonit /usr/lib/cni/bridge; do
    command -v "$b" >/dev/null || die "$b not found; run hack/ensure-node-deps.sh"
  done
  check_owner
  local started phase
  started=$(now)
  mkdir -p "$NODE_DIR" "$RUN"
  echo "$DIR" >"$OWNER_FILE"
  trap on_up_exit EXIT
  save_sysctls
  # The kubelet's device plugin socket has a fixed path under /var/lib/kubelet.
  [ -e /var/lib/kubelet ] || touch "$NODE_DIR/remove-var-lib-kubelet"
  setup_network
  make_credentials
  phase=$(now)
  start_containerd
  import_pause_image
  log "containerd ready, pause image imported in $(elapsed_since "$phase")s"
  phase=$(now)
  start_kube_proxy
  start_kubelet
  log "kube-proxy and kubelet ready, node $NODE_NAME Ready in $(elapsed_since "$phase")s"
  start_scheduler
  printf 'NODE_NAME=%s\nNODE_LABEL=%s\nNODE_GATEWAY=%s\nPOD_CIDR=%s\nCONTAINERD_SOCK=%s\n' \
    "$NODE_NAME" "$NODE_LABEL" "$GATEWAY" "$POD_CIDR" "$CONTAINERD_SOCK" >"$NODE_ENV"
  UP_DONE=1
  log "node up in $(elapsed_since "$started")s ($NODE_ENV)"
}

pods_on_node() {
  "${K[@]}" get pods -A --field-selector "spec.nodeName=$NODE_NAME" -o name 2>/dev/null | grep -q .
}

no_tasks() { [ -z "$("${CTR[@]}" tasks ls -q 2>/dev/null)" ]; }

# The kubelet tears its pods down (containers, CNI, volumes) while it still runs: the scheduler
# stops first so that no replacement lands here meanwhile.
drain_node() {
  local ns_name deadline
  hpa_running "$(pid_of kubelet)" || return 0
  "${K[@]}" get pods -A --field-selector "spec.nodeName=$NODE_NAME" \
    -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}{"\n"}{end}' 2>/dev/null |
    while IFS=/ read -r ns_name pod; do
      [ -n "$pod" ] || continue
      "${K[@]}" delete pod -n "$ns_name" "$pod" --wait=false --grace-period=1 >/dev/null 2>&1 || true
    done
  deadline=$((SECONDS + PODS_GONE_SECONDS))
  while { pods_on_node || ! no_tasks; } && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.5; done
}

# Whatever the kubelet left behind: tasks killed, containers removed.
clear_containers() {
  hpa_running "$(pid_of containerd)" || return 0
  local id
  for id in $("${CTR[@]}" tasks ls -q 2>/dev/null); do
    "${CTR[@]}" tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
  done
  sleep 1
  for id in $("${CTR[@]}" tasks ls -q 2>/dev/null); do "${CTR[@]}" tasks delete -f "$id" >/dev/null 2>&1 || true; done
  for id in $("${CTR[@]}" containers ls -q 2>/dev/null); do "${CTR[@]}" containers delete "$id" >/dev/null 2>&1 || true; done
}

kill_leftover_shims() {
  local pid
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $CONTAINERD_SOCK" || true); do
    if hpa_running "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  done
}

cmd_down_loaded() {
  halt kube-scheduler
  drain_node
  halt kubelet
  halt kube-proxy
  "$K8S_BIN_DIR/kube-proxy" --cleanup >/dev/null 2>&1 || true
  clear_containers
  halt containerd
  kill_leftover_shims
  unmount_under "$NODE_DIR"
  teardown_network
  remove_pod_cgroups
  restore_sysctls
  if [ -f "$NODE_DIR/remove-var-lib-kubelet" ]; then
    rm -rf /var/lib/kubelet
    rm -f "$NODE_DIR/remove-var-lib-kubelet"
  fi
  "${K[@]}" delete node "$NODE_NAME" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  [ "$(cat "$OWNER_FILE" 2>/dev/null)" != "$DIR" ] || rm -f "$OWNER_FILE"
}

cmd_down() {
  load_cluster
  [ -d "$NODE_DIR" ] || { log "no node in $DIR"; return 0; }
  local started
  started=$(now)
  cmd_down_loaded
  log "node down in $(elapsed_since "$started")s"
}

cmd_import_image() {
  load_cluster
  local file=${1:?import-image needs a FILE}
  [ -f "$file" ] || die "$file not found"
  "${CTR[@]}" images import "$file"
}

# A node fault, as an operator's restart of one component: stop it, start it as `up` did.
cmd_restart() {
  local name=${1:?restart needs kubelet or containerd} started
  load_cluster
  [ -f "$NODE_ENV" ] || die "no node up in $DIR"
  PKI_DIR=${PKI_DIR:?}
  started=$(now)
  case $name in
    kubelet) halt kubelet; start_kubelet ;;
    containerd) halt containerd; start_containerd ;;
    *) die "restart takes kubelet or containerd, not $name" ;;
  esac
  log "$name restarted in $(elapsed_since "$started")s"
}

# The kubelet gone, as a crash: no graceful stop, no status posted; its pods run on.
cmd_stop() {
  [ "${1:-}" = kubelet ] || die "stop takes kubelet"
  load_cluster
  local pid
  pid=$(pid_of kubelet)
  hpa_running "$pid" || die "no kubelet running"
  kill -KILL "$pid"
  hpa_wait_gone "$pid" "$STOP_SECONDS" || die "kubelet (pid $pid) survived SIGKILL"
  rm -f "$RUN/kubelet.pid"
  log "kubelet killed"
}

cmd_start() {
  [ "${1:-}" = kubelet ] || die "start takes kubelet"
  load_cluster
  [ -f "$NODE_ENV" ] || die "no node up in $DIR"
  PKI_DIR=${PKI_DIR:?}
  ! hpa_running "$(pid_of kubelet)" || die "the kubelet is running"
  start_kubelet
  log "kubelet started"
}

cmd_status() {
  load_cluster
  local name code=0
  for name in containerd kube-proxy kubelet kube-scheduler; do
    if hpa_running "$(pid_of "$name")"; then printf '%-16s pid %s\n' "$name" "$(pid_of "$name")"
    else printf '%-16s not running\n' "$name"; code=1
    fi
  done
  if node_ready; then echo "node $NODE_NAME Ready"; else echo "node $NODE_NAME not Ready"; code=1; fi
  return "$code"
}

main() {
  [ $# -ge 1 ] || usage
  local sub=$1 args=()
  shift
  DIR=${HPA_E2E_DIR:-}
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) DIR=${2:?--dir needs a value}; shift 2 ;;
      -h | --help) usage ;;
      *) args+=("$1"); shift ;;
    esac
  done
  case $sub in
    up) cmd_up ;;
    down) cmd_down ;;
    import-image) cmd_import_image "${args[@]}" ;;
    restart) cmd_restart "${args[@]}" ;;
    stop) cmd_stop "${args[@]}" ;;
    start) cmd_start "${args[@]}" ;;
    status) cmd_status ;;
    *) log "unknown subcommand $sub"; usage ;;
  esac
}

main "$@"
