#!/usr/bin/env bash
# The allocator settings live in four places that must say the same: hack/lib/malloc-tunables
# (read by the launchers: demo, benchmarks, e2e), the image's ENV, the Deployment's env, and the
# constants the daemon applies with mallopt when it runs without them.
set -euo pipefail
cd "$(dirname "$0")/../.."
want=$(cat hack/lib/malloc-tunables)
fail() { echo "FAIL: $*" >&2; exit 1; }
grep -qxF "ENV GLIBC_TUNABLES=$want" deploy/Dockerfile || fail "deploy/Dockerfile's ENV GLIBC_TUNABLES is not '$want'"
grep -A1 -- '- name: GLIBC_TUNABLES' deploy/controller/deployment.yaml | grep -qxF "          value: $want" ||
  fail "deploy/controller/deployment.yaml's GLIBC_TUNABLES is not '$want'"
constant() { sed -n "s/^inline constexpr int $1 = \(.*\);$/\1/p" src/daemon/allocator_tuning.h; }
arenas=$(constant kMallocArenas)
mmap=$(( $(constant kMallocMmapThresholdBytes) ))
trim=$(( $(constant kMallocTrimThresholdBytes) ))
[ "$want" = "glibc.malloc.arena_max=$arenas:glibc.malloc.mmap_threshold=$mmap:glibc.malloc.trim_threshold=$trim:glibc.malloc.tcache_count=0" ] ||
  fail "src/daemon/allocator_tuning.h's constants ($arenas arenas, $mmap, $trim) differ from '$want'"
echo "PASS: one set of malloc tunables: $want"
