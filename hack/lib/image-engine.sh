# shellcheck shell=bash
# Which container engine builds the image (hack/build-image.sh). A docker client alone is no
# engine: CI machines and developers' machines carry the client without a running daemon, and a
# build there stops at "Cannot connect to the Docker daemon". So docker counts only when
# `docker info` answers; podman needs no daemon and is installed by the caller when missing.
#
#   source hack/lib/image-engine.sh
#   engine=$(hpa_choose_image_engine "")        # podman if installed, else docker if it answers, else podman
#   engine=$(hpa_choose_image_engine docker)    # docker, or an error when its engine does not answer
#
# Prints the engine's name on stdout; on an unusable request prints why on stderr and returns 1.

# How long `docker info` may take to answer: a DOCKER_HOST that swallows packets must not hang
# the build.
HPA_DOCKER_INFO_TIMEOUT=${HPA_DOCKER_INFO_TIMEOUT:-20}

# True when a docker client is installed and its engine answers.
hpa_docker_answers() {
  command -v docker >/dev/null || return 1
  if command -v timeout >/dev/null; then
    timeout "$HPA_DOCKER_INFO_TIMEOUT" docker info >/dev/null 2>&1
  else
    docker info >/dev/null 2>&1
  fi
}

hpa_choose_image_engine() { # <requested: "", podman or docker>
  case ${1:-} in
    podman) echo podman ;;
    docker)
      if ! command -v docker >/dev/null; then
        echo "docker not found; use --engine podman (installed from Debian when missing)" >&2
        return 1
      fi
      if ! hpa_docker_answers; then
        echo "docker's client is installed but no Docker engine answers (docker info failed): start the" \
          "Docker daemon, or use --engine podman" >&2
        return 1
      fi
      echo docker
      ;;
    "")
      # podman first when present: it needs no daemon, and the caller configures it for this kind
      # of machine.
      if command -v podman >/dev/null; then echo podman
      elif hpa_docker_answers; then echo docker
      else echo podman
      fi
      ;;
    *)
      echo "--engine takes podman or docker, not $1" >&2
      return 1
      ;;
  esac
}
