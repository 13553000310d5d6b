#!/usr/bin/env bash
# Builds the container image from deploy/Dockerfile, as `docker build -f deploy/Dockerfile .` from
# the repository root would, on a machine with or without a container registry.
#
#   build-image.sh [--image NAME:TAG] [--engine podman|docker] [--base auto|pull|local]
#                  [--save FILE]
#
#   --image   the name to give the image (default hpa-controller:<VERSION>, the name
#             deploy/controller/deployment.yaml runs); a name without a registry is given
#             docker.io/library/ in front, as the kubelet reads the manifests' `hpa-controller:…`,
#             so that podman does not name it localhost/… and an archive imported into
#             containerd carries the name the kubelet looks for
#   --engine  podman (installed from Debian when missing) or docker (its engine must answer
#             `docker info`); default: podman when installed, else docker when its engine
#             answers, else podman
#   --base    where the Dockerfile's bases (its DEBIAN_BASE and DEBIAN_BASE-slim) come from when
#             the engine does not have them yet:
#               auto   pull them, and make them from the Debian archive if that fails (default)
#               pull   pull them only
#               local  make them from the Debian archive apt already uses (mmdebstrap), without
#                      asking any registry
#             Bases already in the engine's store are used as they are; the build never pulls.
#   --save    also write the image to FILE (docker-archive), e.g. to import it into containerd
#   --push    push it afterwards with the engine that built it (the name must be a registry's)
#
# With podman and no CONTAINERS_CONF of the caller's, a containers.conf is written beside the
# base's cache that runs builds with runc (crun refuses cgroup v1 with a hybrid v2 mount) and with
# default rlimits no higher than this shell's hard limits (root without CAP_SYS_RESOURCE cannot
# raise them, and podman's defaults would otherwise make every RUN step fail).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=hack/lib/image-engine.sh
source "$ROOT/hack/lib/image-engine.sh"
CACHE_DIR="${HPA_IMAGE_CACHE:-$HOME/.cache/hpa-controller/image}"
SUITE=bookworm
# The Dockerfile's pinned base (its ARG DEBIAN_BASE), and its -slim twin.
DEBIAN_BASE=$(sed -n 's/^ARG DEBIAN_BASE=//p' "$ROOT/deploy/Dockerfile")
BASES=("docker.io/library/$DEBIAN_BASE" "docker.io/library/$DEBIAN_BASE-slim")
# podman's default nproc for containers when the shell allows more.
MAX_NPROC=32768

IMAGE="" ENGINE="" BASE_MODE=auto SAVE="" PUSH=0
log() { echo "build-image: $*" >&2; }
die() { log "error: $*"; exit 1; }
usage() { sed -n '5,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

while [ $# -gt 0 ]; do
  case $1 in
    --image) IMAGE=${2:?--image needs a value}; shift 2 ;;
    --engine) ENGINE=${2:?--engine needs a value}; shift 2 ;;
    --base) BASE_MODE=${2:?--base needs a value}; shift 2 ;;
    --save) SAVE=${2:?--save needs a value}; shift 2 ;;
    --push) PUSH=1; shift ;;
    -h | --help) usage ;;
    *) log "unknown option $1"; usage ;;
  esac
done
case $BASE_MODE in auto | pull | local) ;; *) die "--base takes auto, pull or local" ;; esac

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

apt_install() { # <package...>: only those not installed yet
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  command -v apt-get >/dev/null || die "${missing[*]} missing and no apt-get to install them"
  log "installing ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

project_version() { tr -d '[:space:]' <"$ROOT/VERSION"; }

# docker.io/library/NAME for a name without a registry (the first component names a registry
# when it has a dot or a port, or is localhost), as containerd and the kubelet read it.
qualified_name() { # <name>
  local first=${1%%/*}
  if [[ $1 == */* ]] && { [[ $first == *.* || $first == *:* || $first == localhost ]]; }; then echo "$1"
  elif [[ $1 == */* ]]; then echo "docker.io/$1"
  else echo "docker.io/library/$1"
  fi
}

# What `--version` of the binary in the image reports beside the version (no .git in the context).
git_describe() { git -C "$ROOT" describe --tags --always --dirty 2>/dev/null || true; }

choose_engine() {
  local chosen
  chosen=$(hpa_choose_image_engine "$ENGINE") || die "no engine to build with (above)"
  ENGINE=$chosen
  log "engine: $ENGINE"
  [ "$ENGINE" != podman ] || apt_install podman runc
}

# podman's own defaults fail on this kind of machine (see the header); the caller's own
# CONTAINERS_CONF wins.
configure_podman() {
  [ "$ENGINE" = podman ] && [ -z "${CONTAINERS_CONF:-}" ] || return 0
  local nofile nproc conf="$CACHE_DIR/containers.conf"
  nofile=$(ulimit -Hn)
  nproc=$(ulimit -Hu)
  [ "$nofile" != unlimited ] || nofile=1048576
  if [ "$nproc" = unlimited ] || [ "$nproc" -gt "$MAX_NPROC" ]; then nproc=$MAX_NPROC; fi
  mkdir -p "$CACHE_DIR"
  cat >"$conf.tmp" <<EOF
# Written by hack/build-image.sh: runc, and rlimits within the caller's hard limits.
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
EOF
  mv "$conf.tmp" "$conf"
  export CONTAINERS_CONF=$conf
}

have_image() { "$ENGINE" image inspect "$1" >/dev/null 2>&1; }

# The apt settings of the registry's debian images, so that a Dockerfile's apt-get leaves the same
# layers on this base as on theirs: no package caches or downloaded archives kept, no translations.
# (A hook of mmdebstrap: $1 is the chroot.)
# shellcheck disable=SC2016
APT_LIKE_REGISTRY_BASE='d="$1/etc/apt/apt.conf.d"
printf "%s\n" "DPkg::Post-Invoke { \"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true\"; };" \
  "APT::Update::Post-Invoke { \"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true\"; };" \
  "Dir::Cache::pkgcache \"\";" "Dir::Cache::srcpkgcache \"\";" >"$d/docker-clean"
echo "Acquire::Languages \"none\";" >"$d/docker-no-languages"
echo "Acquire::GzipIndexes \"true\";" >"$d/docker-gzip-indexes"
echo "Apt::AutoRemove::SuggestsImportant \"false\";" >"$d/docker-autoremove-suggests"'

# A minbase bookworm from the archive apt already uses (same sources, so apt-get inside the
# build reaches what the machine reaches), imported under both names the Dockerfile uses.
make_local_base() {
  apt_install mmdebstrap
  # mmdebstrap picks the output's format from the name's extension.
  local sources tar="$CACHE_DIR/$SUITE-minbase.tar" partial="$CACHE_DIR/partial-$SUITE-minbase.tar" started=$SECONDS
  sources=$(apt_sources_for_suite)
  mkdir -p "$CACHE_DIR"
  log "making a $SUITE base with mmdebstrap (no registry)"
  # shellcheck disable=SC2016 # $1 is the hook's argument (the chroot), expanded by mmdebstrap
  # merged-usr: /usr merged by mmdebstrap's own hook, as debootstrap does, rather than by the
  # usrmerge package, which would stay installed with all of perl.
  mmdebstrap --variant=minbase --quiet --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --customize-hook="$APT_LIKE_REGISTRY_BASE" \
    --customize-hook='rm -rf "$1"/var/cache/apt/*.bin "$1"/var/lib/apt/lists/*' \
    "$SUITE" "$partial" "$sources"
  mv "$partial" "$tar"
  local name
  for name in "${BASES[@]}"; do
    "$ENGINE" import --change 'CMD ["bash"]' \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      "$tar" "$name" >/dev/null
  done
  log "base ${BASES[*]} made in $((SECONDS - started))s from a $(du -m --apparent-size "$tar" | cut -f1) MiB tar"
  rm -f "$tar" "$sources"
}

# The machine's apt entries for the suite (main, its updates and security; deb822 or one-line), as
# a file mmdebstrap pastes into the base's sources; deb.debian.org when the machine has none.
apt_sources_for_suite() {
  local out="$CACHE_DIR/$SUITE.sources" f
  mkdir -p "$CACHE_DIR"
  : >"$out"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v suite="$SUITE" 'BEGIN { RS = ""; ORS = "\n\n" }
      /(^|\n)Types:[^\n]*deb([ \n]|$)/ && $0 ~ ("Suites:[^\n]*" suite) { print }' "$f" |
      sed 's/^Types:.*/Types: deb/' >>"$out"
  done
  [ -s "$out" ] && { echo "$out"; return 0; }
  out="$CACHE_DIR/$SUITE.list"
  grep -hE "^deb [^#]*[[:space:]]$SUITE(-[a-z]+)?[[:space:]]" /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    2>/dev/null >"$out" || echo "deb http://deb.debian.org/debian $SUITE main" >"$out"
  echo "$out"
}

ensure_bases() {
  local name missing=()
  for name in "${BASES[@]}"; do have_image "$name" || missing+=("$name"); done
  [ ${#missing[@]} -gt 0 ] || { log "bases present: ${BASES[*]}"; return 0; }
  if [ "$BASE_MODE" != local ]; then
    local pulled=1
    for name in "${missing[@]}"; do "$ENGINE" pull "$name" >/dev/null || { pulled=0; break; }; done
    [ "$pulled" = 1 ] && return 0
    [ "$BASE_MODE" = auto ] || die "could not pull ${missing[*]}"
    log "no registry reachable for ${missing[*]}; making the base locally"
  fi
  make_local_base
}

main() {
  [ -n "$IMAGE" ] || IMAGE="hpa-controller:$(project_version)"
  IMAGE=$(qualified_name "$IMAGE")
  choose_engine
  configure_podman
  ensure_bases
  local pull_flag=() started=$SECONDS
  # podman resolves FROM against registries unless told not to; the bases are in the store now.
  [ "$ENGINE" = podman ] && pull_flag=(--pull=never)
  log "building $IMAGE with $ENGINE from deploy/Dockerfile"
  "$ENGINE" build "${pull_flag[@]}" --build-arg HPA_GIT_DESCRIBE="$(git_describe)" \
    -f "$ROOT/deploy/Dockerfile" -t "$IMAGE" "$ROOT"
  log "built $IMAGE in $((SECONDS - started))s; $("$ENGINE" image inspect --format '{{.Size}}' "$IMAGE") bytes"
  if [ -n "$SAVE" ]; then
    rm -f "$SAVE"
    "$ENGINE" save --format docker-archive -o "$SAVE" "$IMAGE" 2>/dev/null ||
      "$ENGINE" save -o "$SAVE" "$IMAGE"
    log "saved $IMAGE to $SAVE"
  fi
  if [ "$PUSH" = 1 ]; then
    "$ENGINE" push "$IMAGE"
    log "pushed $IMAGE"
  fi
}

main
