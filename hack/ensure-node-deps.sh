#!/usr/bin/env bash
# Installs what a real node of the local cluster needs (hack/local-node.sh) on a Debian bookworm
# machine, idempotently, then builds (once, cached) kubelet, kube-scheduler and kube-proxy v1.20.2
# with hack/build-k8s.sh --node.
#
#   containerd                    the container runtime (its CRI plugin serves the kubelet)
#   runc                          the OCI runtime containerd runs containers with
#   containernetworking-plugins   the CNI bridge, host-local and loopback plugins
#   catatonit                     a static init, the pause image's only file
#   iptables, conntrack           kube-proxy's Service rules, the kubelet's chains
#   podman                        builds the pause image (and the controller's, hack/build-image.sh)
#
# containerd's Debian package may start its own service where systemd runs; local-node.sh runs
# a separate containerd with its own socket and root, so that one is left alone.
set -euo pipefail

HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=hack/lib/packages.sh
source "$HACK_DIR/lib/packages.sh"

hpa_install_missing ensure-node-deps containerd runc containernetworking-plugins catatonit iptables conntrack podman
[ "$HPA_INSTALLED" = 1 ] || echo "ensure-node-deps: Debian packages present"

"$HACK_DIR/build-k8s.sh" --node
