#!/usr/bin/env bash
# Installs the build and test dependencies from Debian bookworm's packages, only those missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libcpprest-dev libssl-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libyaml-cpp-dev libyaml-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev prometheus-cpp-dev libboost-dev libhowardhinnant-date-dev tzdata
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
