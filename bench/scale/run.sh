#!/usr/bin/env bash
# make bench-scale: hpa-controller and kube-controller-manager's HPA controller,
# one after the other, on one local cluster with N Deployments and N CPU-utilization HPAs.
#
#   bench/scale/run.sh [--n N] [--pods PODS] [--namespaces NAMESPACES] [--duration SECONDS] [...]
#   bench/scale/run.sh --help      (every option)
#
# Needs `make build` and `make e2e-deps` (etcd, kube-apiserver/kube-controller-manager/kubectl
# 1.20.2), python3, openssl. Results in build/bench-scale/nN-pPODS-nsNAMESPACES/results.{md,csv,json},
# the figures recorded in bench/results/scale.json; what they mean: bench/README.md. Everything it starts is stopped on exit and on Ctrl-C.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
command -v python3 >/dev/null || { echo "bench-scale: python3 is required" >&2; exit 1; }
command -v openssl >/dev/null || { echo "bench-scale: openssl is required (make e2e-deps)" >&2; exit 1; }
K8S_BIN_DIR="${HPA_K8S_CACHE:-$HOME/.cache/hpa-controller/k8s-1.20.2}"
for bin in kube-apiserver kube-controller-manager kubectl; do
  [ -x "$K8S_BIN_DIR/$bin" ] || { echo "bench-scale: $K8S_BIN_DIR/$bin is missing (make e2e-deps)" >&2; exit 1; }
done
exec python3 -B "$ROOT/bench/scale/scale_bench.py" "$@"
