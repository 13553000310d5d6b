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

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

missing=()
for package in containerd runc containernetworking-plugins catatonit iptables conntrack podman; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-node-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "ensure-node-deps: Debian packages present"
fi

"$HACK_DIR/build-k8s.sh" --node
