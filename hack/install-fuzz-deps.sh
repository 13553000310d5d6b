#!/usr/bin/env bash
# Installs what `make fuzz` needs on top of hack/install-deps.sh, from Debian bookworm's packages,
# only those missing:
#
#   clang               clang 14, the compiler of the fuzz build (build-fuzz/)
#   libfuzzer-14-dev    libFuzzer
#   libclang-rt-14-dev  the sanitizer and libFuzzer runtimes clang links (-fsanitize=fuzzer,...)
#   llvm-14             llvm-symbolizer, so that ASan/UBSan reports name functions and lines
set -euo pipefail

PACKAGES=(clang libfuzzer-14-dev libclang-rt-14-dev llvm-14)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-fuzz-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
