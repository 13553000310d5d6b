#!/usr/bin/env bash
# The engine `make image` builds with (hack/lib/image-engine.sh), on machines made of stub
# commands: a docker client whose engine does not answer must lead to podman, never to a build
# that stops at "Cannot connect to the Docker daemon".
set -euo pipefail
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=hack/lib/image-engine.sh
source "$root/hack/lib/image-engine.sh"
HPA_DOCKER_INFO_TIMEOUT=5

# A machine with exactly the given engines. docker:up answers `docker info`; docker:down is a
# client alone (`docker --version` works, `docker info` fails as without a daemon).
machine() {
  local dir="$tmp/$1" engine
  shift
  rm -rf "$dir"
  mkdir -p "$dir"
  ln -s "$(command -v timeout)" "$dir/timeout"
  for engine in "$@"; do
    case $engine in
      docker:up) printf '#!/bin/sh\nexit 0\n' >"$dir/docker" ;;
      docker:down)
        # shellcheck disable=SC2016 # the stub's own $1
        printf '#!/bin/sh\n[ "$1" = --version ] && { echo "Docker version 20.10"; exit 0; }\n' >"$dir/docker"
        printf 'echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock." >&2\nexit 1\n' >>"$dir/docker"
        ;;
      podman) printf '#!/bin/sh\nexit 0\n' >"$dir/podman" ;;
    esac
  done
  chmod +x "$dir"/* 2>/dev/null || true
  echo "$dir"
}

# choose <requested> <engines...>: the choice on that machine (stdout), its messages in $tmp/err.
choose() {
  local requested=$1 dir
  shift
  dir=$(machine "m$RANDOM" "$@")
  PATH=$dir hpa_choose_image_engine "$requested" 2>"$tmp/err"
}

expect() { # <want> <requested> <engines...>
  local want=$1 got
  shift
  got=$(choose "$@") || fail "requested '$1' with engines '${*:2}': failed: $(cat "$tmp/err")"
  [ "$got" = "$want" ] || fail "requested '$1' with engines '${*:2}': want $want, got $got"
}

expect podman "" docker:down            # the fresh machine of CI and developers
expect podman ""                        # nothing installed: podman, which the build installs
expect docker "" docker:up              # a running Docker engine
expect podman "" podman docker:up       # podman when installed, as before
expect podman "" podman docker:down
expect docker docker docker:up
expect podman podman docker:up

# Asking for docker without an engine is an error that says what to do.
if choose docker docker:down >/dev/null; then fail "--engine docker without an engine must fail"; fi
grep -q "no Docker engine answers" "$tmp/err" || fail "message: $(cat "$tmp/err")"
grep -q -- "--engine podman" "$tmp/err" || fail "the message must name the way out: $(cat "$tmp/err")"
if choose docker >/dev/null; then fail "--engine docker without docker must fail"; fi
grep -q "docker not found" "$tmp/err" || fail "message: $(cat "$tmp/err")"
if choose rkt podman >/dev/null; then fail "an unknown engine must fail"; fi
grep -q "podman or docker" "$tmp/err" || fail "message: $(cat "$tmp/err")"

# An engine that does not answer in time counts as none (had the wait been unbounded, this
# docker would have answered after its sleep and been chosen).
dir=$(machine hang)
# shellcheck disable=SC2016 # the stub's own $1
printf '#!/bin/sh\n[ "$1" = info ] && exec /bin/sleep 10\nexit 0\n' >"$dir/docker"
chmod +x "$dir/docker"
got=$(HPA_DOCKER_INFO_TIMEOUT=1 PATH=$dir hpa_choose_image_engine "")
[ "$got" = podman ] || fail "a docker info that does not answer: want podman, got $got"

echo "image engine choice: ok"
