#!/usr/bin/env bash
# Secure serving of /metrics on the local control plane, as kube-controller-manager's secure port:
# the daemon runs as the deploy/ ServiceAccount (whose RBAC must cover TokenReviews and
# SubjectAccessReviews) with a CA-signed serving certificate and --client-ca-file, and a second one
# with the self-signed certificate made at start. Checks: /healthz and /readyz open to anyone;
# /metrics refused to an anonymous caller (403) and to a bad token (401); a token without the
# permission gets 403, a token bound to deploy/'s hpa-controller-metrics-reader ClusterRole reads the
# metrics, as does a superuser; a client certificate from --client-ca-file is allowed once RBAC
# allows its user, one from another CA gets 401, and without --client-ca-file it counts for nothing.
#
#   secure_serving_e2e_test.sh HPA_CONTROLLER      (HPA_E2E_DIR: the cluster, from the fixture)
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
NS=secure-e2e-$$
WORK=$(mktemp -d)
PIDS=()
BINDINGS=()
cleanup() {
  local code=$?
  stop_pids
  for b in "${BINDINGS[@]}"; do "${K[@]}" delete clusterrolebinding "$b" --ignore-not-found >/dev/null 2>&1 || true; done
  if [ $code -ne 0 ]; then
    for f in "$WORK"/*.log; do echo "== $f"; tail -25 "$f"; done
  fi
  rm -rf "$WORK"
  exit $code
}
trap cleanup EXIT
sa_token() { # <namespace> <serviceaccount>
  local secret
  secret=$("${K[@]}" get sa "$2" -n "$1" -o jsonpath='{.secrets[0].name}')
  "${K[@]}" get secret "$secret" -n "$1" -o jsonpath='{.data.token}' | base64 -d
}
has_token_secret() { "${K[@]}" get sa "$2" -n "$1" -o jsonpath='{.secrets[0].name}' | grep -q .; }

# --- the deploy/ RBAC, the controller's ServiceAccount kubeconfig, a scraper ServiceAccount
"${K[@]}" apply -f "$ROOT/deploy/base/namespace.yaml" -f "$ROOT/deploy/base/rbac.yaml" >/dev/null
wait_for 60 "controller ServiceAccount token issued" has_token_secret hpa-controller hpa-controller
cat >"$WORK/sa.kubeconfig" <<KC
apiVersion: v1
kind: Config
current-context: sa
clusters: [{name: local, cluster: {server: "$APISERVER_URL", certificate-authority: "$CA_CERT"}}]
users: [{name: sa, user: {token: "$(sa_token hpa-controller hpa-controller)"}}]
contexts: [{name: sa, context: {cluster: local, user: sa}}]
KC
"${K[@]}" create namespace "$NS" >/dev/null
"${K[@]}" create serviceaccount scraper -n "$NS" >/dev/null
wait_for 60 "scraper ServiceAccount token issued" has_token_secret "$NS" scraper
SCRAPER_TOKEN=$(sa_token "$NS" scraper)
BINDINGS+=("secure-e2e-scraper-$$")
"${K[@]}" create clusterrolebinding "secure-e2e-scraper-$$" --clusterrole=hpa-controller-metrics-reader \
  --serviceaccount="$NS:scraper" >/dev/null

# --- daemon A: CA-signed serving certificate and client certificates; daemon B: self-signed
hpa_pick_ports PORT_A PORT_B
common=(--kubeconfig "$WORK/sa.kubeconfig" --namespace "$NS" --leader-elect=false --bind-address 127.0.0.1 -v 4)
# A short cache of denials, so the RBAC change below shows within a second or two.
"$CONTROLLER" "${common[@]}" --secure-port "$PORT_A" --tls-cert-file "$BACKEND_SERVING_CERT" \
  --tls-private-key-file "$BACKEND_SERVING_KEY" --client-ca-file "$CA_CERT" \
  --authorization-webhook-cache-unauthorized-ttl 1s 2>"$WORK/A.log" &
PIDS+=("$!")
"$CONTROLLER" "${common[@]}" --secure-port "$PORT_B" 2>"$WORK/B.log" &
PIDS+=("$!")
A=https://127.0.0.1:$PORT_A
B=https://127.0.0.1:$PORT_B

# code <url> [curl options...]: prints the HTTP status; the body is left in $WORK/body.
code() {
  local url=$1
  shift
  curl -s -o "$WORK/body" -w '%{http_code}' --max-time 10 "$@" "$url" || true
}
expect() { # <status> <what> <url> [curl options...]
  local want=$1 what=$2 got
  shift 2
  got=$(code "$@")
  [ "$got" = "$want" ] || fail "$what: HTTP $got, want $want ($(head -c 300 "$WORK/body"))"
  pass "$what: $want"
}
message_is() {
  local got
  got=$(jq -r .message "$WORK/body")
  [ "$got" = "$1" ] || fail "message: $got, want $1"
}

ready_a() { [ "$(code "$A/readyz" --cacert "$CA_CERT")" = 200 ]; }
wait_for 60 "daemon A serves /readyz over HTTPS with its CA-signed certificate" ready_a
expect 200 "anonymous /healthz" "$A/healthz" --cacert "$CA_CERT"
expect 200 "anonymous /livez" "$A/livez" --cacert "$CA_CERT"

expect 403 "anonymous /metrics" "$A/metrics" --cacert "$CA_CERT"
message_is 'forbidden: User "system:anonymous" cannot get path "/metrics"'
expect 401 "/metrics with a token the API server does not know" "$A/metrics" --cacert "$CA_CERT" \
  -H "Authorization: Bearer not-a-token"
expect 403 "/metrics with a token lacking the permission" "$A/metrics" --cacert "$CA_CERT" \
  -H "Authorization: Bearer $UNPRIVILEGED_TOKEN"
message_is "forbidden: User \"$UNPRIVILEGED_USER\" cannot get path \"/metrics\""
expect 200 "/metrics with a token bound to hpa-controller-metrics-reader" "$A/metrics" --cacert "$CA_CERT" \
  -H "Authorization: Bearer $SCRAPER_TOKEN"
grep -q '^rest_client_requests_total' "$WORK/body" || fail "no metrics in the body: $(head -c 300 "$WORK/body")"
pass "the scraper reads Prometheus metrics"
expect 200 "/metrics with a superuser's token (system:masters)" "$A/metrics" --cacert "$CA_CERT" \
  -H "Authorization: Bearer $ADMIN_TOKEN"

# Client certificates: the unprivileged user's certificate is refused until RBAC allows it.
cert=(--cacert "$CA_CERT" --cert "$UNPRIVILEGED_CERT" --key "$UNPRIVILEGED_KEY")
expect 403 "/metrics with a client certificate whose user lacks the permission" "$A/metrics" "${cert[@]}"
BINDINGS+=("secure-e2e-cert-$$")
"${K[@]}" create clusterrolebinding "secure-e2e-cert-$$" --clusterrole=hpa-controller-metrics-reader \
  --user="$UNPRIVILEGED_USER" >/dev/null
cert_allowed() { [ "$(code "$A/metrics" "${cert[@]}")" = 200 ]; }
wait_for 20 "/metrics with that client certificate once RBAC allows its user" cert_allowed
expect 200 "/metrics with a superuser's client certificate (O=system:masters)" "$A/metrics" --cacert "$CA_CERT" \
  --cert "$ADMIN_CERT" --key "$ADMIN_KEY"
expect 401 "/metrics with a client certificate from another CA" "$A/metrics" --cacert "$CA_CERT" \
  --cert "$FRONT_PROXY_CLIENT_CERT" --key "$FRONT_PROXY_CLIENT_KEY"

# Daemon B: a self-signed certificate made at start, and no client CA.
ready_b() { [ "$(code "$B/readyz" -k)" = 200 ]; }
wait_for 60 "daemon B serves /readyz over HTTPS with a self-signed certificate" ready_b
SUBJECT=$(openssl s_client -connect "127.0.0.1:$PORT_B" </dev/null 2>/dev/null | openssl x509 -noout -subject)
[[ $SUBJECT == *hpa-controller@* ]] || fail "daemon B's certificate: $SUBJECT"
pass "daemon B's certificate is its own ($SUBJECT)"
[ "$(code "$B/readyz" --cacert "$CA_CERT")" = 000 ] || fail "the self-signed certificate passed verification against the cluster CA"
expect 403 "without --client-ca-file a client certificate is not an identity" "$B/metrics" -k \
  --cert "$ADMIN_CERT" --key "$ADMIN_KEY"
expect 200 "daemon B: /metrics with the scraper's token" "$B/metrics" -k -H "Authorization: Bearer $SCRAPER_TOKEN"

grep -q "Forbidden" "$WORK/A.log" "$WORK/B.log" &&
  fail "the ServiceAccount lacked a permission: $(grep -h Forbidden "$WORK"/*.log | head -1)"
pass "deploy/base/rbac.yaml covers TokenReviews and SubjectAccessReviews"
echo "secure serving e2e: all checks passed"
