#!/usr/bin/env bash
# Installs what `make fuzz` needs on top of hack/install-deps.sh, from Debian bookworm's packages,
# only those missing:
#
#   clang               clang 14, the compiler of the fuzz build (build-fuzz/)
#   libfuzzer-14-dev    libFuzzer
#   libclang-rt-14-dev  the sanitizer and libFuzzer runtimes clang links (-fsanitize=fuzzer,...)
#   llvm-14             llvm-symbolizer, so that ASan/UBSan reports name functions and lines
set -euo pipefail
# shellcheck source=hack/lib/packages.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/packages.sh"

hpa_install_missing install-fuzz-deps clang libfuzzer-14-dev libclang-rt-14-dev llvm-14
