#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager and kubectl v1.20.2 from Debian's
# `kubernetes` source package, once per machine, into ~/.cache/hpa-controller/k8s-1.20.2/.
#
#   build-k8s.sh           the control plane's binaries (every e2e test needs them)
#   build-k8s.sh --node    also kubelet, kube-scheduler and kube-proxy, for a real node
#                          (hack/local-node.sh); only what is missing from the cache is built
#
# Why from source: Debian bookworm ships no kube-apiserver binary, and its kubectl
# (kubernetes-client) crashes with Go >= 1.18 because of the vendored reflect2 v1.0.1.
# We swap in Debian's reflect2 1.0.2 and build in GOPATH mode with Debian's Go.
set -euo pipefail

K8S_VERSION=1.20.2
CACHE_DIR="${HPA_K8S_CACHE:-$HOME/.cache/hpa-controller/k8s-$K8S_VERSION}"
BINARIES=(kube-apiserver kube-controller-manager kubectl)
NODE_BINARIES=(kubelet kube-scheduler kube-proxy)

case "${1:-}" in
  "") ;;
  --node) BINARIES+=("${NODE_BINARIES[@]}") ;;
  *) echo "usage: build-k8s.sh [--node]" >&2; exit 2 ;;
esac

# The wanted binaries not in the cache yet: only those are built.
missing_binaries() {
  for b in "${BINARIES[@]}"; do [ -x "$CACHE_DIR/$b" ] || echo "$b"; done
}
mapfile -t TO_BUILD < <(missing_binaries)

if [ ${#TO_BUILD[@]} -eq 0 ]; then
  echo "build-k8s: cached binaries in $CACHE_DIR"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

need_pkgs=()
for p in golang-go rsync jq dpkg-dev golang-github-modern-go-reflect2-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
done

# `apt-get source` needs a deb-src entry for bookworm main. Copy the machine's own deb entry
# (same mirror, same Signed-By, or apt refuses the conflicting option) as deb-src.
ensure_deb_src() {
  if grep -rqsE '^(deb-src .*bookworm.* main|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    return 1
  fi
  local d822=/etc/apt/sources.list.d/debian.sources
  if [ -f "$d822" ] && grep -q 'bookworm' "$d822"; then
    awk 'BEGIN{RS="";ORS="\n\n"} /Suites:[^\n]*bookworm/ && /Components:[^\n]*main/ {sub(/Types: deb/,"Types: deb-src"); print}' \
      "$d822" | $SUDO tee /etc/apt/sources.list.d/hpa-controller-src.sources >/dev/null
  else
    sed -n 's/^deb \(.*bookworm.* main.*\)$/deb-src \1/p' /etc/apt/sources.list | head -n1 |
      $SUDO tee /etc/apt/sources.list.d/hpa-controller-src.list >/dev/null
    [ -s /etc/apt/sources.list.d/hpa-controller-src.list ] ||
      echo "deb-src http://deb.debian.org/debian bookworm main" | $SUDO tee /etc/apt/sources.list.d/hpa-controller-src.list >/dev/null
  fi
  return 0
}
if ensure_deb_src || [ ${#need_pkgs[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}"
fi

WORK="${HPA_K8S_WORK:-$(mktemp -d /tmp/hpa-k8s-build.XXXXXX)}"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
echo "build-k8s: fetching Debian's kubernetes source package into $WORK"
apt-get source --download-only kubernetes >/dev/null
orig=$(ls kubernetes_*.orig.tar.gz | head -n1)
tar xzf "$orig"
srcdir=$(ls -d kubernetes-*/ | head -n1)
srcdir=${srcdir%/}
cd "$srcdir"

# reflect2 1.0.1 faults in UnsafeMapType.UnsafeIterate under Go >= 1.18; 1.0.2 fixes it.
r2=vendor/github.com/modern-go/reflect2
rm -f "$r2"/*.go "$r2"/*.s
cp /usr/share/gocode/src/github.com/modern-go/reflect2/*.go /usr/share/gocode/src/github.com/modern-go/reflect2/*.s "$r2"/

mkdir -p .go/src/k8s.io
ln -sfn ../../.. .go/src/k8s.io/kubernetes
export GOPATH="$PWD/.go" CGO_ENABLED=0 GO111MODULE=off GOFLAGS=
export KUBE_GIT_VERSION="v$K8S_VERSION" KUBE_GIT_TREE_STATE=clean
WHAT=$(printf 'cmd/%s ' "${TO_BUILD[@]}")
WHAT=${WHAT% }
echo "build-k8s: make WHAT=\"$WHAT\" (about 10 minutes on 2 cores for the control plane's three)"
cd .go/src/k8s.io/kubernetes
make WHAT="$WHAT"

mkdir -p "$CACHE_DIR"
for b in "${TO_BUILD[@]}"; do
  install -m 0755 "_output/bin/$b" "$CACHE_DIR/$b.tmp"
  mv "$CACHE_DIR/$b.tmp" "$CACHE_DIR/$b"
done
echo "build-k8s: installed ${TO_BUILD[*]} into $CACHE_DIR"
