#!/usr/bin/env bash
# Installs the build and test dependencies from Debian bookworm's packages, only those missing.
set -euo pipefail
# shellcheck source=hack/lib/packages.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/packages.sh"

PACKAGES=(
  build-essential cmake ninja-build pkg-config git ccache
  libcpprest-dev libssl-dev zlib1g-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libyaml-cpp-dev libyaml-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev prometheus-cpp-dev libboost-dev libhowardhinnant-date-dev tzdata
  # The forecaster's periodogram (src/forecast/).
  libfftw3-dev
  # The unit tier checks deploy/monitoring/ with promtool (Debian's prometheus package ships it)
  # and Python's yaml; the e2e tier runs that Prometheus. Where systemd runs, installing it also
  # starts Debian's prometheus service on 9090, which no test uses.
  prometheus python3-yaml
  # The unit tier checks the format (hack/check-format.sh); .ci/run lints with clang-tidy.
  clang-format clang-tidy
)
hpa_install_missing install-deps "${PACKAGES[@]}"
