#!/usr/bin/env bash
# Secrets never reach the daemon's log, at any -v: three daemons run at -v 10 (every request
# traced with headers and bodies) for about 20 s against the local control plane, one with a
# bearer token in its kubeconfig, one with an exec credential plugin, one with an embedded client
# key, each scraped on its secure port with a superuser's token, an unprivileged token and a bogus
# one (TokenReviews carry them in request bodies). Then their logs are searched for every token
# and for the client key; none may appear, while the traces themselves must be there.
#
#   secrets_log_e2e_test.sh HPA_CONTROLLER      (HPA_E2E_DIR: the cluster, from the fixture)
set -euo pipefail
# shellcheck source=tests/e2e/lib/e2e.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/e2e.sh"
CONTROLLER=$1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${HPA_E2E_DIR:?HPA_E2E_DIR must point at a running local cluster}"
# shellcheck disable=SC1091
source "$HPA_E2E_DIR/env"
# shellcheck disable=SC1090
source "$TOKENS_ENV"
K=("$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG")
NS=secrets-e2e-$$
WORK=$(mktemp -d)
PIDS=()
RUN_SECONDS=20
cleanup() {
  local code=$?
  stop_pids
  # The logs hold no secrets (that is the point), but they are large: only the tails on failure.
  if [ $code -ne 0 ]; then
    for f in "$WORK"/*.log; do echo "== $f"; tail -5 "$f" | cut -c1-400; done
  fi
  rm -rf "$WORK"
  exit $code
}
trap cleanup EXIT

# --- credentials: the deploy/ ServiceAccount's token (for the exec plugin), the admin token,
# the admin client key (embedded)
"${K[@]}" apply -f "$ROOT/deploy/base/namespace.yaml" -f "$ROOT/deploy/base/rbac.yaml" >/dev/null
has_token() { "${K[@]}" get sa hpa-controller -n hpa-controller -o jsonpath='{.secrets[0].name}' | grep -q .; }
wait_for 60 "ServiceAccount token issued" has_token
SECRET=$("${K[@]}" get sa hpa-controller -n hpa-controller -o jsonpath='{.secrets[0].name}')
SA_TOKEN=$("${K[@]}" get secret "$SECRET" -n hpa-controller -o jsonpath='{.data.token}' | base64 -d)
BOGUS_TOKEN=bogus-token-$$-$(openssl rand -hex 12)
printf '%s' "$SA_TOKEN" >"$WORK/sa.token"
cat >"$WORK/token-plugin.sh" <<SH
#!/bin/sh
printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"}}\n' "\$(cat $WORK/sa.token)"
SH
chmod +x "$WORK/token-plugin.sh"
kubeconfig() { # <file> <user yaml>
  cat >"$1" <<KC
apiVersion: v1
kind: Config
current-context: c
clusters: [{name: local, cluster: {server: "$APISERVER_URL", certificate-authority: "$CA_CERT"}}]
users: [{name: u, user: $2}]
contexts: [{name: c, context: {cluster: local, user: u}}]
KC
}
kubeconfig "$WORK/token.kubeconfig" "{token: \"$ADMIN_TOKEN\"}"
kubeconfig "$WORK/exec.kubeconfig" "{exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: \"$WORK/token-plugin.sh\"}}"

# --- something to do for each: a Deployment and its HPA (no metrics API: the HPA reports that,
# with status writes and Events)
for kind in token exec cert; do
  "${K[@]}" create namespace "$NS-$kind" >/dev/null
  cat <<YAML | "${K[@]}" apply -f - >/dev/null
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: $NS-$kind}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: example/web, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: $NS-$kind}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
YAML
done

declare -A PORT
start() { # <kind> <kubeconfig> [flags...]
  local kind=$1 kc=$2
  shift 2
  local port
  hpa_pick_ports port
  PORT[$kind]=$port
  "$CONTROLLER" --kubeconfig "$kc" --namespace "$NS-$kind" --secure-port "${PORT[$kind]}" --bind-address 127.0.0.1 \
    --horizontal-pod-autoscaler-sync-period 2s -v=10 "$@" 2>"$WORK/$kind.log" &
  PIDS+=("$!")
}
# The token daemon also leader-elects (Lease reads, writes and the standby's watch, all traced).
start token "$WORK/token.kubeconfig" --leader-elect-resource-namespace "$NS-token" \
  --leader-elect-resource-name "secrets-e2e"
start exec "$WORK/exec.kubeconfig" --leader-elect=false
start cert "$ADMIN_EMBEDDED_KUBECONFIG" --leader-elect=false

scrape_all() {
  local kind token
  for kind in token exec cert; do
    for token in "$ADMIN_TOKEN" "$UNPRIVILEGED_TOKEN" "$SA_TOKEN" "$BOGUS_TOKEN"; do
      curl -sk -o /dev/null --max-time 5 -H "Authorization: Bearer $token" "https://127.0.0.1:${PORT[$kind]}/metrics" || true
    done
  done
}
serving() { curl -sk --max-time 2 "https://127.0.0.1:${PORT[$1]}/healthz" | grep -q ok; }
for kind in token exec cert; do wait_for 60 "the $kind daemon serves" serving "$kind"; done
END=$((SECONDS + RUN_SECONDS))
while [ "$SECONDS" -lt "$END" ]; do
  scrape_all
  sleep 2
done
stop_pids
PIDS=()

# --- the traces are there (so the search below means something)
for kind in token exec cert; do
  log=$WORK/$kind.log
  requests=$(grep -c "request verb=" "$log" || true)
  [ "$requests" -ge 20 ] || fail "$kind: only $requests traced requests at -v 10"
  grep -q "request body verb=POST url=$APISERVER_URL/apis/authentication.k8s.io/v1/tokenreviews" "$log" ||
    fail "$kind: no TokenReview body traced"
  grep -q "response body" "$log" || fail "$kind: no response body traced"
  pass "$kind: $requests requests traced with headers and bodies ($(wc -c <"$log") bytes of log)"
done
grep -q "Authorization: Bearer <masked>" "$WORK/token.log" "$WORK/exec.log" || fail "no masked Authorization header"

# --- and no secret is
leaks() { # <name> <text>: fails if any log holds the text
  local hits
  hits=$(grep -F -l -- "$2" "$WORK"/*.log || true)
  [ -z "$hits" ] || fail "$1 found in $(echo "$hits" | xargs -n1 basename | tr '\n' ' ')"
}
for name in ADMIN_TOKEN UNPRIVILEGED_TOKEN SA_TOKEN BOGUS_TOKEN; do
  value=${!name}
  leaks "$name" "$value"
  leaks "$name (its last 20 characters)" "${value: -20}"
done
pass "no token in any log (kubeconfig token, exec plugin token, scrapers' tokens)"
leaks "a PEM private key" "PRIVATE KEY"
KEY_B64=$(base64 -w0 <"$ADMIN_KEY")
leaks "the client key as embedded in the kubeconfig" "${KEY_B64:0:40}"
leaks "the client key's PEM body" "$(sed -n 2p "$ADMIN_KEY")"
pass "no client key material in any log"
echo "secrets e2e: all checks passed"
