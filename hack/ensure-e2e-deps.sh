#!/usr/bin/env bash
# Installs what the e2e tier needs on a Debian bookworm machine, idempotently, then builds (once,
# cached) kube-apiserver, kube-controller-manager and kubectl v1.20.2 with hack/build-k8s.sh.
#
#   etcd-server  etcd 3.4 for the local control plane (hack/local-cluster.sh)
#   openssl      certificates for the control plane
#   curl         readiness probes and etcd's JSON gateway (compaction)
#   jq           JSON edits in tests/e2e/smoke_test.sh and hack/demo.sh
#   gnuplot-nox  the demo's plot (hack/demo.sh)
#   python3      hack/lib/echo-https-backend.py, the aggregation test backend
#
# Installing etcd-server may also start Debian's etcd service on 2379/2380 where systemd runs;
# local-cluster.sh never uses those ports, so it does not matter.
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=hack/lib/packages.sh
source "$HACK_DIR/lib/packages.sh"

packages=(etcd-server openssl curl jq gnuplot-nox)
# Any python3 will do (a developer may have one outside dpkg's view).
command -v python3 >/dev/null 2>&1 || packages+=(python3)
hpa_install_missing ensure-e2e-deps "${packages[@]}"
[ "$HPA_INSTALLED" = 1 ] || echo "ensure-e2e-deps: Debian packages present"

"$HACK_DIR/build-k8s.sh"
