#!/usr/bin/env bash
# Runs every fuzz target of a fuzz build (make fuzz) for SECONDS each and fails on any finding:
# a crash, an ASan/UBSan report, a leak, a FUZZ_CHECK invariant, an input slower than the
# per-input timeout, or an allocation over the limits below.
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]     (default: every target of BUILD_DIR)
#
# Per target, under BUILD_DIR:
#   fuzz-corpus/<t>/     the growing corpus (seeded from tests/fuzz/corpus/<t>/, kept across runs)
#   fuzz-artifacts/<t>/  crash-*, leak-*, timeout-*, oom-*, slow-unit-* inputs of this run's findings
#   fuzz-logs/<t>.log    libFuzzer's output, with -print_final_stats
# and fuzz-summary.txt, one line per target (executions, exec/s, slowest input, peak RSS).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
SECONDS_EACH=${2:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
BUILD=$(cd "$BUILD" && pwd)

# Limits. Inputs are at most 64 KB (the issue's bound); a single allocation over 256 MB or a
# resident size over 2 GB on such an input is a finding (unbounded allocation), as is any input
# taking longer than 5 s (a hang; the per-input figures come from make fuzz-replay).
LIMITS=(-max_len=65536 -rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=5)
# FUZZ_SEED (0: random) and FUZZ_RUNS (executions per target, before SECONDS run out) make a run
# reproducible: CI fuzzes with a fixed seed and count from the seed corpus, so what it finds is
# what a developer finds with the same command; exploring (make fuzz) uses random seeds.
EXTRA=(-seed="${FUZZ_SEED:-0}")
[ -n "${FUZZ_RUNS:-}" ] && EXTRA+=(-runs="$FUZZ_RUNS")

declare -A DICT
TARGETS=()
while read -r name dict; do
  [ -n "$name" ] || continue
  TARGETS+=("$name")
  DICT[$name]=$dict
done <"$BUILD/fuzz-targets.txt"
[ $# -gt 0 ] && TARGETS=("$@")

mkdir -p "$BUILD/fuzz-logs" "$BUILD/fuzz-artifacts" "$BUILD/fuzz-corpus"
SUMMARY="$BUILD/fuzz-summary.txt"
printf '%-26s %12s %8s %10s %10s %8s %s\n' target executions exec/s slowest_s peak_mb result notes >"$SUMMARY"

stat_of() { sed -n "s/^stat::$2: *//p" "$1" | tail -1; }

failed=()
for t in "${TARGETS[@]}"; do
  bin="$BUILD/tests/fuzz/${t}_fuzz"
  if [ ! -x "$bin" ]; then
    echo "fuzz: no binary for target $t ($bin)" >&2
    failed+=("$t")
    continue
  fi
  corpus="$BUILD/fuzz-corpus/$t"
  artifacts="$BUILD/fuzz-artifacts/$t"
  log="$BUILD/fuzz-logs/$t.log"
  rm -rf "$artifacts"  # findings of an earlier run: this run reproduces or clears them
  mkdir -p "$corpus" "$artifacts"
  seeds=()
  [ -d "$ROOT/tests/fuzz/corpus/$t" ] && seeds+=("$ROOT/tests/fuzz/corpus/$t")
  dict=()
  [ -n "${DICT[$t]:-}" ] && dict+=("-dict=$ROOT/tests/fuzz/dict/${DICT[$t]}.dict")
  echo "== fuzz $t for ${SECONDS_EACH}s"
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$bin" "${LIMITS[@]}" "${EXTRA[@]}" "${dict[@]}" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$corpus" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  execs=$(stat_of "$log" number_of_executed_units)
  speed=$(stat_of "$log" average_exec_per_sec)
  slowest=$(stat_of "$log" slowest_unit_time_sec)
  peak=$(stat_of "$log" peak_rss_mb)
  findings=$(find "$artifacts" -type f | wc -l)
  result=ok
  notes=""
  if [ $rc -ne 0 ] || [ "$findings" -gt 0 ]; then
    result=FAIL
    notes="exit $rc; $(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|FUZZ_CHECK failed' "$log" | cut -c1-120)"
    failed+=("$t")
    echo "fuzz: $t found something (exit $rc), see $log and $artifacts/" >&2
    grep -E -A3 'ERROR: |runtime error:|FUZZ_CHECK failed' "$log" | head -20 >&2
  fi
  printf '%-26s %12s %8s %10s %10s %8s %s\n' "$t" "${execs:-?}" "${speed:-?}" "${slowest:-?}" "${peak:-?}" \
    "$result" "$notes" >>"$SUMMARY"
done

echo
cat "$SUMMARY"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in: ${failed[*]} (artifacts under $BUILD/fuzz-artifacts/)" >&2
  exit 1
fi
