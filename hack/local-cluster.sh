#!/usr/bin/env bash
# A throw-away Kubernetes control plane on 127.0.0.1 for hpa-controller's end-to-end tests and
# demo: a real etcd (Debian's etcd-server 3.4), a real kube-apiserver v1.20.2 and, on request, a
# kube-controller-manager v1.20.2 running only the controllers that make Deployments and StatefulSets create Pods.
# There is no kubelet and no scheduler: Pods stay Pending unless a test writes their status.
#
#   local-cluster.sh up --dir DIR [--controller-manager] [--min-request-timeout SECONDS]
#                       [--apiserver-arg ARG]... [--controller-manager-arg ARG]...
#                       [--advertise-address IP]
#   local-cluster.sh down --dir DIR [--purge]
#   local-cluster.sh restart-apiserver --dir DIR     (same flags and port; waits for /readyz)
#   local-cluster.sh restart-controller-manager --dir DIR [--controllers VALUE]
#                                                    (same flags, VALUE as its last --controllers,
#                                                    in place of one an earlier restart or
#                                                    --controller-manager-arg gave; the first one,
#                                                    the workload controllers, stays)
#   local-cluster.sh stop-apiserver --dir DIR | start-apiserver --dir DIR
#   local-cluster.sh compact --dir DIR               (prints the etcd revision compacted at)
#   local-cluster.sh status --dir DIR                (exit 0 when every started part is healthy)
# --dir defaults to $HPA_E2E_DIR. DIR must be a path without spaces or shell metacharacters.
# --apiserver-arg / --controller-manager-arg append one flag each to those command lines (e.g.
# audit logging, or a higher --kube-api-qps for the workload controllers in a scale benchmark);
# a later flag overrides an earlier one of the same name. Without them nothing changes.
# --advertise-address IP makes the apiserver reachable from pods on a real node
# (hack/local-node.sh): it listens on every address instead of 127.0.0.1 only, its certificate
# also names IP, and it publishes IP (with its port) as the endpoint of the `kubernetes` Service
# (endpoint reconciler "lease"), so the Service's ClusterIP leads to it. IP must be an address of
# this machine that is not loopback (Endpoints refuse loopback); the URLs in env stay on 127.0.0.1.
#
# What `up` leaves in DIR:
#   env                      KEY=VALUE lines (sourceable; values never need quoting, so other
#                            languages may split each line at the first '='): URLs, ports, PIDs,
#                            paths of every certificate and kubeconfig below, KUBECTL.
#   admin.kubeconfig         user "admin" (O=system:masters), client certificate and key as files,
#                            certificate-authority-data embedded.
#   admin-embedded.kubeconfig  the same user with client-certificate-data/client-key-data.
#   unprivileged.kubeconfig  user "e2e-unprivileged": authenticated, no RBAC binding (EC key).
#   tokens.env               ADMIN_TOKEN (user "admin-token", group system:masters) and
#                            UNPRIVILEGED_TOKEN (user "e2e-unprivileged"), from --token-auth-file.
#   pki/                     ca.{crt,key} (cluster CA: serving and client certificates),
#                            apiserver.{crt,key}, admin.*, unprivileged.*, controller-manager.*,
#                            kube-controller-manager-serving.*, service-account.{key,pub},
#                            front-proxy-ca.*, front-proxy-client.*, and backend-serving.* (a
#                            serving certificate for localhost/127.0.0.1 for tests' own HTTPS
#                            backends, e.g. a fake metrics API).
#   logs/*.log, run/*.cmd (exact command lines, reused by restart), etcd/ (data).
#
# API aggregation: kube-apiserver gets the front-proxy CA (--requestheader-client-ca-file, allowed
# name front-proxy-client, headers X-Remote-User / X-Remote-Group / X-Remote-Extra-) and the
# front-proxy client certificate (--proxy-client-cert-file/--proxy-client-key-file). A backend
# listening on 127.0.0.1:PORT is registered with an APIService whose spec.service points to a
# Service of type ExternalName with externalName "localhost" and spec.service.port PORT: the
# aggregator's default (ClusterIP) resolver maps an ExternalName Service to https://localhost:PORT,
# so no kube-proxy, Endpoints or cluster DNS are needed. hack/lib/aggregation.sh does the
# registration (hpa_aggregation_register GROUP VERSION PORT) and hack/lib/echo-https-backend.py is
# a tiny backend that reports the caller's certificate and X-Remote-* headers. The backend sees
# requests signed with front-proxy-client; it may check them against pki/front-proxy-ca.crt.
#
# Caveats for tests: only the deployment, replicaset, statefulset, serviceaccount and serviceaccount-token
# controllers run, so there is no garbage collector (deleting a Deployment leaves its ReplicaSets
# and Pods) and no namespace controller (a deleted namespace stays Terminating): use fresh
# namespaces. `compact` compacts etcd; requests served by etcd (lists with a limit, continue
# tokens, resourceVersionMatch=Exact, watches when the watch cache is bypassed) then get 410 Gone
# for older revisions, but a watch served from kube-apiserver's watch cache only gets 410 once its
# resourceVersion has left the cache window; restarting the apiserver empties that window.
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib/pki.sh
source "$HACK_DIR/lib/pki.sh"
# shellcheck source=SCRIPTDIR/lib/processes.sh
source "$HACK_DIR/lib/processes.sh"
HPA_LOG_PREFIX=local-cluster

K8S_VERSION=1.20.2
K8S_BIN_DIR="${HPA_K8S_CACHE:-$HOME/.cache/hpa-controller/k8s-$K8S_VERSION}"
ETCD_BIN="${HPA_ETCD_BIN:-/usr/bin/etcd}"
KUBECTL="$K8S_BIN_DIR/kubectl"

# Service IPs come from this range; kube-apiserver gives its first address (10.0.0.1) to the
# `kubernetes` Service, so that address must be in the serving certificate.
SERVICE_CLUSTER_IP_RANGE=10.0.0.0/24
FIRST_SERVICE_IP=10.0.0.1
# The issuer kubeadm uses; bound service-account tokens carry it as `iss` and, as the only API
# audience, as `aud`.
SERVICE_ACCOUNT_ISSUER=https://kubernetes.default.svc.cluster.local
# kube-apiserver's own default for --min-request-timeout (watch timeouts are random in [1x, 2x)).
DEFAULT_MIN_REQUEST_TIMEOUT=1800
READY_TIMEOUT_SECONDS=60
# On a first SIGTERM kube-apiserver shuts down gracefully but keeps open watches (e.g. the
# controller manager's) until they time out, which takes up to 2x --min-request-timeout; the
# second SIGTERM hpa_stop sends after this makes it exit at once.
GRACEFUL_STOP_SECONDS=3
UNPRIVILEGED_USER=e2e-unprivileged
MARKER_FILE=.hpa-local-cluster

DIR=""
# State recorded in DIR/env (ports, PIDs, options); paths are derived from DIR by set_paths.
ETCD_CLIENT_PORT="" ETCD_PEER_PORT="" APISERVER_PORT="" KCM_PORT=""
ETCD_PID="" APISERVER_PID="" KCM_PID=""
ETCD_ENDPOINT="" APISERVER_URL="" KCM_URL="" KCM_ENABLED=0
MIN_REQUEST_TIMEOUT=$DEFAULT_MIN_REQUEST_TIMEOUT
EXTRA_APISERVER_ARGS=()
EXTRA_KCM_ARGS=()
APISERVER_ADVERTISE_ADDRESS=""

log() { hpa_log "$*"; }
die() {
  log "error: $*"
  exit 1
}

usage() {
  sed -n '7,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

now() { echo "$EPOCHREALTIME"; }
elapsed_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# Some of these are only read through ${!var} in write_env.
# shellcheck disable=SC2034
set_paths() {
  HPA_E2E_DIR=$DIR
  HPA_PROCESS_MARK=$DIR/ # every command line we start names files under DIR
  PKI_DIR=$DIR/pki
  LOG_DIR=$DIR/logs
  RUN_DIR=$DIR/run
  CA_CERT=$PKI_DIR/ca.crt
  APISERVER_CERT=$PKI_DIR/apiserver.crt
  APISERVER_KEY=$PKI_DIR/apiserver.key
  ADMIN_CERT=$PKI_DIR/admin.crt
  ADMIN_KEY=$PKI_DIR/admin.key
  UNPRIVILEGED_CERT=$PKI_DIR/unprivileged.crt
  UNPRIVILEGED_KEY=$PKI_DIR/unprivileged.key
  KCM_CLIENT_CERT=$PKI_DIR/controller-manager.crt
  KCM_CLIENT_KEY=$PKI_DIR/controller-manager.key
  KCM_SERVING_CERT=$PKI_DIR/kube-controller-manager-serving.crt
  KCM_SERVING_KEY=$PKI_DIR/kube-controller-manager-serving.key
  SERVICE_ACCOUNT_KEY=$PKI_DIR/service-account.key
  SERVICE_ACCOUNT_PUB=$PKI_DIR/service-account.pub
  FRONT_PROXY_CA_CERT=$PKI_DIR/front-proxy-ca.crt
  FRONT_PROXY_CLIENT_CERT=$PKI_DIR/front-proxy-client.crt
  FRONT_PROXY_CLIENT_KEY=$PKI_DIR/front-proxy-client.key
  BACKEND_SERVING_CERT=$PKI_DIR/backend-serving.crt
  BACKEND_SERVING_KEY=$PKI_DIR/backend-serving.key
  TOKEN_AUTH_FILE=$PKI_DIR/tokens.csv
  TOKENS_ENV=$DIR/tokens.env
  ADMIN_KUBECONFIG=$DIR/admin.kubeconfig
  ADMIN_EMBEDDED_KUBECONFIG=$DIR/admin-embedded.kubeconfig
  UNPRIVILEGED_KUBECONFIG=$DIR/unprivileged.kubeconfig
  KCM_KUBECONFIG=$DIR/controller-manager.kubeconfig
  KUBECONFIG=$ADMIN_KUBECONFIG
}

ENV_VARS=(HPA_E2E_DIR K8S_BIN_DIR KUBECTL
  ETCD_ENDPOINT ETCD_CLIENT_PORT ETCD_PEER_PORT ETCD_PID
  APISERVER_URL APISERVER_PORT APISERVER_PID MIN_REQUEST_TIMEOUT APISERVER_ADVERTISE_ADDRESS
  KCM_ENABLED KCM_URL KCM_PORT KCM_PID
  KUBECONFIG ADMIN_KUBECONFIG ADMIN_EMBEDDED_KUBECONFIG UNPRIVILEGED_KUBECONFIG UNPRIVILEGED_USER
  PKI_DIR CA_CERT ADMIN_CERT ADMIN_KEY UNPRIVILEGED_CERT UNPRIVILEGED_KEY
  FRONT_PROXY_CA_CERT FRONT_PROXY_CLIENT_CERT FRONT_PROXY_CLIENT_KEY
  SERVICE_ACCOUNT_KEY SERVICE_ACCOUNT_PUB SERVICE_ACCOUNT_ISSUER
  BACKEND_SERVING_CERT BACKEND_SERVING_KEY TOKENS_ENV SERVICE_CLUSTER_IP_RANGE LOG_DIR)

# Written to a temporary file and renamed, so a test reading it never sees half a file.
write_env() {
  local var
  {
    echo "# Written by hack/local-cluster.sh. KEY=VALUE; values never need quoting."
    for var in "${ENV_VARS[@]}"; do printf '%s=%s\n' "$var" "${!var}"; done
  } >"$DIR/env.tmp"
  mv "$DIR/env.tmp" "$DIR/env"
}

load_env() {
  [ -f "$DIR/env" ] || die "no cluster recorded in $DIR (missing $DIR/env)"
  # shellcheck source=/dev/null
  source "$DIR/env"
  [ "$HPA_E2E_DIR" = "$DIR" ] || die "$DIR/env was written for $HPA_E2E_DIR; clusters cannot move"
  set_paths
}

# Rejects paths whose characters would need quoting in DIR/env or in a kubeconfig.
check_plain_path() {
  [[ $1 =~ ^[A-Za-z0-9._/@+,:=-]+$ ]] || die "path '$1' must not contain spaces or shell metacharacters"
}

# ---------------------------------------------------------------------------------------------
# Processes

# Starts a daemon detached from our stdio, records its command line for restarts and sets LAST_PID.
start_daemon() { # <name> <argv...>
  local name=$1
  shift
  printf '%s\n' "$@" >"$RUN_DIR/$name.cmd"
  hpa_start "$name" "$LOG_DIR/$name.log" "$RUN_DIR/$name.pid" "$@"
  LAST_PID=$HPA_STARTED_PID
}

restart_daemon_from_record() { # <name>
  local name=$1 argv
  [ -f "$RUN_DIR/$name.cmd" ] || die "no recorded command line for $name in $RUN_DIR"
  mapfile -t argv <"$RUN_DIR/$name.cmd"
  start_daemon "$name" "${argv[@]}"
}

wait_until_ready() { # <name> <pid> <probe...>
  local name=$1 pid=$2
  shift 2
  hpa_wait_ready "$name" "$pid" "$READY_TIMEOUT_SECONDS" "$LOG_DIR/$name.log" "$@"
}

stop_process() { # <name> <pid>
  hpa_stop "$1" "$2" "$GRACEFUL_STOP_SECONDS" || die "$1 (pid $2) survived SIGKILL"
}

stop_all_recorded() {
  stop_process kube-controller-manager "$KCM_PID"
  stop_process kube-apiserver "$APISERVER_PID"
  stop_process etcd "$ETCD_PID"
}

# ---------------------------------------------------------------------------------------------
# Probes

curl_admin() {
  curl -fsS --max-time 3 --cacert "$CA_CERT" --cert "$ADMIN_CERT" --key "$ADMIN_KEY" "$@"
}
probe_etcd() { [[ $(curl -fsS --max-time 2 "$ETCD_ENDPOINT/health") == *'"health":"true"'* ]]; }
probe_apiserver() { [ "$(curl_admin "$APISERVER_URL/readyz")" = ok ]; }
probe_kcm() { [ "$(curl -fsS --max-time 3 --cacert "$CA_CERT" "$KCM_URL/healthz")" = ok ]; }
# Pods are only admitted once their namespace's `default` ServiceAccount has a token Secret
# (ServiceAccount admission in 1.20); default/default proves both controllers work.
probe_default_service_account() {
  [ -n "$("$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG" --request-timeout=3s -n default \
    get serviceaccount default -o 'jsonpath={.secrets[0].name}')" ]
}

# ---------------------------------------------------------------------------------------------
# up

prepare_dir() {
  if [ -d "$DIR" ] && [ -n "$(ls -A "$DIR")" ]; then
    [ -f "$DIR/$MARKER_FILE" ] || die "$DIR is not empty and was not made by local-cluster.sh; refusing to use it"
    if [ -f "$DIR/env" ]; then
      log "stopping the cluster left in $DIR by an earlier run"
      (load_env && stop_all_recorded)
    fi
    find "$DIR" -mindepth 1 -delete
  fi
  mkdir -p "$DIR" "$PKI_DIR" "$LOG_DIR" "$RUN_DIR"
  chmod 700 "$PKI_DIR"
  touch "$DIR/$MARKER_FILE"
}

make_pki() {
  local apiserver_sans="IP:127.0.0.1,IP:$FIRST_SERVICE_IP,DNS:localhost,DNS:kubernetes"
  [ -z "$APISERVER_ADVERTISE_ADDRESS" ] || apiserver_sans+=",IP:$APISERVER_ADVERTISE_ADDRESS"
  apiserver_sans+=",DNS:kubernetes.default,DNS:kubernetes.default.svc"
  apiserver_sans+=",DNS:kubernetes.default.svc.cluster.local"
  hpa_pki_req_config "$PKI_DIR"
  hpa_pki_ca "$PKI_DIR" ca hpa-e2e-ca
  hpa_pki_leaf "$PKI_DIR" ca apiserver "/CN=kube-apiserver" server rsa "$apiserver_sans"
  hpa_pki_leaf "$PKI_DIR" ca admin "/O=system:masters/CN=admin" client rsa
  hpa_pki_leaf "$PKI_DIR" ca unprivileged "/CN=$UNPRIVILEGED_USER" client ec
  hpa_pki_leaf "$PKI_DIR" ca backend-serving "/CN=localhost" server rsa "IP:127.0.0.1,DNS:localhost"
  hpa_pki_ca "$PKI_DIR" front-proxy-ca hpa-e2e-front-proxy-ca
  hpa_pki_leaf "$PKI_DIR" front-proxy-ca front-proxy-client "/CN=front-proxy-client" client rsa
  hpa_pki_new_key "$SERVICE_ACCOUNT_KEY" rsa
  openssl pkey -in "$SERVICE_ACCOUNT_KEY" -pubout -out "$SERVICE_ACCOUNT_PUB" 2>/dev/null
  if [ "$KCM_ENABLED" = 1 ]; then
    # With --use-service-account-credentials=false every controller acts as this user; the
    # bootstrap role system:kube-controller-manager cannot write Deployments, ReplicaSets or Pods,
    # so the user is in system:masters rather than depending on an extra RBAC binding.
    hpa_pki_leaf "$PKI_DIR" ca controller-manager \
      "/O=system:masters/CN=system:kube-controller-manager" client rsa
    hpa_pki_leaf "$PKI_DIR" ca kube-controller-manager-serving "/CN=kube-controller-manager" \
      server rsa "IP:127.0.0.1,DNS:localhost"
  fi
  rm -f "$PKI_DIR/req.cnf"

  local admin_token unprivileged_token
  admin_token=$(openssl rand -hex 24)
  unprivileged_token=$(openssl rand -hex 24)
  # token,user,uid,"groups"
  {
    echo "$admin_token,admin-token,uid-admin-token,\"system:masters\""
    echo "$unprivileged_token,$UNPRIVILEGED_USER,uid-$UNPRIVILEGED_USER"
  } >"$TOKEN_AUTH_FILE"
  printf 'ADMIN_TOKEN=%s\nUNPRIVILEGED_TOKEN=%s\n' "$admin_token" "$unprivileged_token" >"$TOKENS_ENV"
  chmod 600 "$TOKEN_AUTH_FILE" "$TOKENS_ENV"
}

write_kubeconfig() { # <file> <user> <cert> <key> <files|embedded>
  local file=$1 user=$2 cert=$3 key=$4 mode=$5
  {
    cat <<EOF
apiVersion: v1
kind: Config
clusters:
- name: hpa-e2e
  cluster:
    server: $APISERVER_URL
    certificate-authority-data: $(base64 -w0 <"$CA_CERT")
users:
- name: $user
  user:
EOF
    if [ "$mode" = embedded ]; then
      echo "    client-certificate-data: $(base64 -w0 <"$cert")"
      echo "    client-key-data: $(base64 -w0 <"$key")"
    else
      echo "    client-certificate: $cert"
      echo "    client-key: $key"
    fi
    cat <<EOF
contexts:
- name: hpa-e2e
  context:
    cluster: hpa-e2e
    user: $user
current-context: hpa-e2e
preferences: {}
EOF
  } >"$file"
  chmod 600 "$file"
}

start_etcd() {
  start_daemon etcd "$ETCD_BIN" \
    --name=hpa-e2e \
    --data-dir="$DIR/etcd" \
    --listen-client-urls="$ETCD_ENDPOINT" \
    --advertise-client-urls="$ETCD_ENDPOINT" \
    --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster="hpa-e2e=http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster-state=new \
    --logger=zap --log-outputs=stderr
  ETCD_PID=$LAST_PID
  write_env
  wait_until_ready etcd "$ETCD_PID" probe_etcd
}

start_apiserver_fresh() {
  # --insecure-port=0: 1.20 still serves plain HTTP on 8080 by default.
  # --cert-dir: never write generated certificates outside DIR.
  # --enable-priority-and-fairness=false: fewer moving parts; no test needs APF's 429s.
  # --endpoint-reconciler-type=none: Endpoints may not hold loopback addresses, so the reconciler
  #   would fail every 10 s to publish 127.0.0.1 for the `kubernetes` Service; no pod needs it
  #   unless --advertise-address gives an address pods reach (then "lease" publishes it).
  local bind=127.0.0.1 advertise=127.0.0.1 reconciler=none
  if [ -n "$APISERVER_ADVERTISE_ADDRESS" ]; then
    bind=0.0.0.0 advertise=$APISERVER_ADVERTISE_ADDRESS reconciler=lease
  fi
  start_daemon kube-apiserver "$K8S_BIN_DIR/kube-apiserver" \
    --etcd-servers="$ETCD_ENDPOINT" \
    --bind-address="$bind" --advertise-address="$advertise" \
    --secure-port="$APISERVER_PORT" --insecure-port=0 \
    --cert-dir="$PKI_DIR/apiserver-generated" \
    --tls-cert-file="$APISERVER_CERT" --tls-private-key-file="$APISERVER_KEY" \
    --client-ca-file="$CA_CERT" \
    --token-auth-file="$TOKEN_AUTH_FILE" \
    --authorization-mode=Node,RBAC \
    --service-cluster-ip-range="$SERVICE_CLUSTER_IP_RANGE" \
    --service-account-issuer="$SERVICE_ACCOUNT_ISSUER" \
    --api-audiences="$SERVICE_ACCOUNT_ISSUER" \
    --service-account-key-file="$SERVICE_ACCOUNT_PUB" \
    --service-account-signing-key-file="$SERVICE_ACCOUNT_KEY" \
    --requestheader-client-ca-file="$FRONT_PROXY_CA_CERT" \
    --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User \
    --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- \
    --proxy-client-cert-file="$FRONT_PROXY_CLIENT_CERT" \
    --proxy-client-key-file="$FRONT_PROXY_CLIENT_KEY" \
    --min-request-timeout="$MIN_REQUEST_TIMEOUT" \
    --allow-privileged=true \
    --enable-priority-and-fairness=false \
    --endpoint-reconciler-type="$reconciler" \
    --profiling=false \
    --v=2 \
    ${EXTRA_APISERVER_ARGS[@]+"${EXTRA_APISERVER_ARGS[@]}"}
  APISERVER_PID=$LAST_PID
  write_env
  wait_until_ready kube-apiserver "$APISERVER_PID" probe_apiserver
}

start_controller_manager() {
  # Controllers: deployment, replicaset and statefulset make workloads create Pods. Pods are only admitted
  # with their namespace's `default` ServiceAccount and (in 1.20) its token Secret, so we add the
  # serviceaccount controller (creates `default` in every namespace) next to serviceaccount-token
  # (creates the token Secrets), rather than disabling the ServiceAccount admission plugin: the
  # admission chain stays the one of a real cluster. Never horizontalpodautoscaling: that is ours.
  start_daemon kube-controller-manager "$K8S_BIN_DIR/kube-controller-manager" \
    --kubeconfig="$KCM_KUBECONFIG" \
    --authentication-kubeconfig="$KCM_KUBECONFIG" \
    --authorization-kubeconfig="$KCM_KUBECONFIG" \
    --controllers=deployment,replicaset,statefulset,serviceaccount,serviceaccount-token \
    --leader-elect=false \
    --port=0 --bind-address=127.0.0.1 --secure-port="$KCM_PORT" \
    --cert-dir="$PKI_DIR/kcm-generated" \
    --tls-cert-file="$KCM_SERVING_CERT" --tls-private-key-file="$KCM_SERVING_KEY" \
    --service-account-private-key-file="$SERVICE_ACCOUNT_KEY" \
    --root-ca-file="$CA_CERT" \
    --use-service-account-credentials=false \
    --profiling=false \
    --v=2 \
    ${EXTRA_KCM_ARGS[@]+"${EXTRA_KCM_ARGS[@]}"}
  KCM_PID=$LAST_PID
  write_env
  wait_until_ready kube-controller-manager "$KCM_PID" probe_kcm
  wait_until_ready kube-controller-manager "$KCM_PID" probe_default_service_account
}

require_executable() { # <path> <hint>
  [ -x "$1" ] || die "$1 not found; $2"
}

UP_SUCCEEDED=0
on_up_exit() {
  [ "$UP_SUCCEEDED" = 1 ] && return 0
  log "up failed; stopping what it started (logs kept in $LOG_DIR)"
  stop_all_recorded || true
}

cmd_up() {
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) DIR=${2:?--dir needs a value}; shift 2 ;;
      --controller-manager) KCM_ENABLED=1; shift ;;
      --min-request-timeout)
        MIN_REQUEST_TIMEOUT=${2:?--min-request-timeout needs a value}
        [[ $MIN_REQUEST_TIMEOUT =~ ^[0-9]+$ ]] || die "--min-request-timeout takes whole seconds"
        shift 2 ;;
      --apiserver-arg) EXTRA_APISERVER_ARGS+=("${2:?--apiserver-arg needs a value}"); shift 2 ;;
      --controller-manager-arg) EXTRA_KCM_ARGS+=("${2:?--controller-manager-arg needs a value}"); shift 2 ;;
      --advertise-address)
        APISERVER_ADVERTISE_ADDRESS=${2:?--advertise-address needs a value}
        [[ $APISERVER_ADVERTISE_ADDRESS =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "--advertise-address takes an IPv4 address"
        [[ $APISERVER_ADVERTISE_ADDRESS != 127.* ]] || die "--advertise-address must not be a loopback address"
        shift 2 ;;
      *) die "up: unknown option $1" ;;
    esac
  done
  resolve_dir
  local hint="run hack/ensure-e2e-deps.sh"
  require_executable "$ETCD_BIN" "$hint (Debian package etcd-server)"
  require_executable "$K8S_BIN_DIR/kube-apiserver" "$hint (builds the Kubernetes binaries)"
  require_executable "$KUBECTL" "$hint (builds the Kubernetes binaries)"
  [ "$KCM_ENABLED" = 0 ] || require_executable "$K8S_BIN_DIR/kube-controller-manager" "$hint"
  command -v openssl >/dev/null || die "openssl not found; $hint"
  command -v curl >/dev/null || die "curl not found; $hint"

  local started phase
  started=$(now)
  prepare_dir
  hpa_pick_ports ETCD_CLIENT_PORT ETCD_PEER_PORT APISERVER_PORT KCM_PORT || die "cannot pick ports"
  ETCD_ENDPOINT=http://127.0.0.1:$ETCD_CLIENT_PORT
  APISERVER_URL=https://127.0.0.1:$APISERVER_PORT
  if [ "$KCM_ENABLED" = 1 ]; then KCM_URL=https://127.0.0.1:$KCM_PORT; else KCM_PORT=""; fi
  write_env
  trap on_up_exit EXIT

  phase=$(now)
  make_pki
  write_kubeconfig "$ADMIN_KUBECONFIG" admin "$ADMIN_CERT" "$ADMIN_KEY" files
  write_kubeconfig "$ADMIN_EMBEDDED_KUBECONFIG" admin "$ADMIN_CERT" "$ADMIN_KEY" embedded
  write_kubeconfig "$UNPRIVILEGED_KUBECONFIG" "$UNPRIVILEGED_USER" "$UNPRIVILEGED_CERT" \
    "$UNPRIVILEGED_KEY" files
  [ "$KCM_ENABLED" = 0 ] ||
    write_kubeconfig "$KCM_KUBECONFIG" system:kube-controller-manager "$KCM_CLIENT_CERT" \
      "$KCM_CLIENT_KEY" files
  log "certificates and kubeconfigs in $(elapsed_since "$phase")s"

  phase=$(now)
  start_etcd || die "etcd did not become healthy"
  log "etcd ready at $ETCD_ENDPOINT (pid $ETCD_PID) in $(elapsed_since "$phase")s"
  phase=$(now)
  start_apiserver_fresh || die "kube-apiserver did not become ready"
  log "kube-apiserver ready at $APISERVER_URL (pid $APISERVER_PID) in $(elapsed_since "$phase")s"
  if [ "$KCM_ENABLED" = 1 ]; then
    phase=$(now)
    start_controller_manager || die "kube-controller-manager did not become ready"
    log "kube-controller-manager ready at $KCM_URL (pid $KCM_PID) in $(elapsed_since "$phase")s"
  fi
  write_env
  UP_SUCCEEDED=1
  log "cluster up in $(elapsed_since "$started")s; source $DIR/env (KUBECONFIG=$ADMIN_KUBECONFIG)"
}

# ---------------------------------------------------------------------------------------------
# Other subcommands

resolve_dir() {
  [ -n "$DIR" ] || die "--dir is required (or set HPA_E2E_DIR)"
  check_plain_path "$DIR"
  DIR=$(realpath -m "$DIR")
  check_plain_path "$DIR"
  check_plain_path "$K8S_BIN_DIR"
  set_paths
}

parse_common() { # <subcommand> <args...>: accepts --dir only (and --purge for down)
  local sub=$1
  shift
  PURGE=0
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) DIR=${2:?--dir needs a value}; shift 2 ;;
      --purge) [ "$sub" = down ] || die "$sub: unknown option $1"; PURGE=1; shift ;;
      *) die "$sub: unknown option $1" ;;
    esac
  done
  resolve_dir
}

cmd_down() {
  parse_common down "$@"
  if [ ! -f "$DIR/env" ]; then
    log "no cluster recorded in $DIR; nothing to stop"
  else
    local started
    started=$(now)
    load_env
    stop_all_recorded
    log "cluster down in $(elapsed_since "$started")s"
  fi
  if [ "$PURGE" = 1 ] && [ -d "$DIR" ]; then
    [ -f "$DIR/$MARKER_FILE" ] || die "$DIR was not made by local-cluster.sh; not removing it"
    rm -rf "$DIR"
    log "removed $DIR"
  fi
}

stop_apiserver() {
  stop_process kube-apiserver "$APISERVER_PID"
  APISERVER_PID=""
  write_env
}

start_apiserver_recorded() {
  hpa_running "$APISERVER_PID" && die "kube-apiserver is already running (pid $APISERVER_PID)"
  restart_daemon_from_record kube-apiserver
  APISERVER_PID=$LAST_PID
  write_env
  wait_until_ready kube-apiserver "$APISERVER_PID" probe_apiserver || die "kube-apiserver did not become ready"
  log "kube-apiserver ready at $APISERVER_URL (pid $APISERVER_PID)"
}

cmd_restart_apiserver() {
  parse_common restart-apiserver "$@"
  load_env
  local started
  started=$(now)
  stop_apiserver
  start_apiserver_recorded
  log "kube-apiserver restarted in $(elapsed_since "$started")s"
}

cmd_restart_controller_manager() {
  local controllers="" argv kept=() arg seen=0 started
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) DIR=${2:?--dir needs a value}; shift 2 ;;
      --controllers) controllers=${2:?--controllers needs a value}; shift 2 ;;
      *) die "restart-controller-manager: unknown option $1" ;;
    esac
  done
  resolve_dir
  load_env
  [ -f "$RUN_DIR/kube-controller-manager.cmd" ] || die "no kube-controller-manager was started in $DIR"
  started=$(now)
  mapfile -t argv <"$RUN_DIR/kube-controller-manager.cmd"
  for arg in "${argv[@]}"; do
    if [[ $arg == --controllers=* ]]; then
      seen=$((seen + 1))
      [ $seen -gt 1 ] && continue
    fi
    kept+=("$arg")
  done
  [ -z "$controllers" ] || kept+=("--controllers=$controllers")
  ! hpa_running "$KCM_PID" || stop_process kube-controller-manager "$KCM_PID"
  start_daemon kube-controller-manager "${kept[@]}"
  KCM_PID=$LAST_PID
  write_env
  wait_until_ready kube-controller-manager "$KCM_PID" probe_kcm || die "kube-controller-manager did not become ready"
  log "kube-controller-manager restarted in $(elapsed_since "$started")s${controllers:+ with --controllers=$controllers}"
}

cmd_stop_apiserver() {
  parse_common stop-apiserver "$@"
  load_env
  stop_apiserver
}

cmd_start_apiserver() {
  parse_common start-apiserver "$@"
  load_env
  start_apiserver_recorded
}

# Uses etcd's v3 JSON gateway, so no etcdctl is needed. Prints the revision compacted at.
cmd_compact() {
  parse_common compact "$@"
  load_env
  hpa_running "$ETCD_PID" || die "etcd is not running"
  local reply revision
  # A range over the single key "\0" returns no data, only the header with the current revision.
  reply=$(curl -fsS --max-time 5 -X POST "$ETCD_ENDPOINT/v3/kv/range" -d '{"key":"AA=="}') ||
    die "etcd range request failed"
  revision=$(sed -n 's/.*"revision":"\([0-9]*\)".*/\1/p' <<<"$reply")
  [ -n "$revision" ] || die "no revision in etcd's reply: $reply"
  # physical: reply only once the compaction is applied, so callers can rely on it right away.
  reply=$(curl -sS --max-time 30 -X POST "$ETCD_ENDPOINT/v3/kv/compaction" \
    -d "{\"revision\":\"$revision\",\"physical\":true}") || die "etcd compaction request failed"
  [[ $reply != *'"error"'* ]] || die "etcd refused to compact at revision $revision: $reply"
  log "compacted etcd at revision $revision"
  echo "$revision"
}

cmd_status() {
  parse_common status "$@"
  load_env
  local exit_code=0
  report() { # <name> <pid> <endpoint> <probe>
    local state
    if ! hpa_running "$2"; then
      state="not running"
      exit_code=1
    elif "$4" >/dev/null 2>&1; then
      state="healthy"
    else
      state="running, NOT healthy"
      exit_code=1
    fi
    printf '%-24s pid %-8s %-32s %s\n' "$1" "${2:--}" "$3" "$state"
  }
  report etcd "$ETCD_PID" "$ETCD_ENDPOINT" probe_etcd
  report kube-apiserver "$APISERVER_PID" "$APISERVER_URL" probe_apiserver
  if [ "$KCM_ENABLED" = 1 ]; then
    report kube-controller-manager "$KCM_PID" "$KCM_URL" probe_kcm
  fi
  echo "env: $DIR/env"
  return "$exit_code"
}

main() {
  [ $# -ge 1 ] || usage
  local sub=$1
  shift
  DIR=${HPA_E2E_DIR:-}
  case $sub in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    restart-apiserver) cmd_restart_apiserver "$@" ;;
    restart-controller-manager) cmd_restart_controller_manager "$@" ;;
    stop-apiserver) cmd_stop_apiserver "$@" ;;
    start-apiserver) cmd_start_apiserver "$@" ;;
    compact) cmd_compact "$@" ;;
    status) cmd_status "$@" ;;
    -h | --help | help) usage ;;
    *) log "unknown subcommand $sub"; usage ;;
  esac
}

main "$@"
