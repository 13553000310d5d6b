#!/usr/bin/env bash
# hack/lib/processes.sh: ports are picked free and never twice, a process is started with its log
# and pidfile, waited for, and stopped (SIGTERM, then SIGKILL for one that ignores it). Runs with
# the unit tests: bash, python3 and coreutils only.
set -euo pipefail
root=$1
# shellcheck source=hack/lib/processes.sh
source "$root/hack/lib/processes.sh"
HPA_LOG_PREFIX=processes-test
tmp=$(mktemp -d)
LISTENER=""
cleanup() {
  if [ -n "$LISTENER" ]; then
    kill -KILL "$LISTENER" 2>/dev/null || true
    wait "$LISTENER" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# --- ports: distinct, in the range below the ephemeral one, never a bound one
a="" b="" c="" d="" e="" only=""
hpa_pick_ports a b c d e
for p in "$a" "$b" "$c" "$d" "$e"; do
  if [ "$p" -lt 20000 ] || [ "$p" -ge 32000 ]; then fail "port $p outside 20000-31999"; fi
done
[ "$(printf '%s\n' "$a" "$b" "$c" "$d" "$e" | sort -u | wc -l)" = 5 ] || fail "ports picked twice: $a $b $c $d $e"
python3 -c 'import socket,sys,time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
open(sys.argv[2], "w").close(); time.sleep(60)' "$a" "$tmp/bound" &
LISTENER=$!
for _ in $(seq 50); do [ -e "$tmp/bound" ] && break; sleep 0.1; done
[ -e "$tmp/bound" ] || fail "the test's listener did not start"
HPA_PICKED_PORTS=()
HPA_PORT_RANGE_START=$a HPA_PORT_RANGE_SIZE=2
hpa_pick_ports only
[ "$only" = $((a + 1)) ] || fail "picked $only although $a is bound (want $((a + 1)))"
if (hpa_pick_ports another 2>/dev/null); then fail "a port was picked twice"; fi
HPA_PORT_RANGE_START=20000 HPA_PORT_RANGE_SIZE=12000

# --- start, wait, stop
HPA_PROCESS_MARK=$tmp/
hpa_start sleeper "$tmp/sleeper.log" "$tmp/sleeper.pid" bash -c 'echo started; while :; do sleep 0.1; done' "$tmp/"
pid=$HPA_STARTED_PID
[ "$(cat "$tmp/sleeper.pid")" = "$pid" ] || fail "pidfile holds $(cat "$tmp/sleeper.pid"), not $pid"
hpa_wait_ready sleeper "$pid" 5 "$tmp/sleeper.log" grep -q started "$tmp/sleeper.log" || fail "not ready"
hpa_running "$pid" || fail "sleeper not running"
(HPA_PROCESS_MARK=/elsewhere/; hpa_running "$pid") && fail "a process without the mark counts as ours"
hpa_stop sleeper "$pid" 2>"$tmp/stop.err" || fail "stop failed"
grep -q "stopped sleeper (pid $pid)" "$tmp/stop.err" || fail "no report: $(cat "$tmp/stop.err")"
hpa_running "$pid" && fail "sleeper still running"

# A process that exits while starting is reported at once, with its log.
hpa_start quitter "$tmp/quitter.log" "$tmp/quitter.pid" bash -c 'echo bad flag >&2; exit 3' "$tmp/"
if hpa_wait_ready quitter "$HPA_STARTED_PID" 30 "$tmp/quitter.log" false 2>"$tmp/wait.err"; then fail "ready?"; fi
grep -q "exited while starting" "$tmp/wait.err" || fail "no report: $(cat "$tmp/wait.err")"
grep -q "bad flag" "$tmp/wait.err" || fail "the log's last lines are not shown"

# SIGTERM ignored: SIGKILL after the grace period and a second SIGTERM.
HPA_STOP_FORCED_SECONDS=1
hpa_start stubborn "$tmp/stubborn.log" "$tmp/stubborn.pid" \
  bash -c 'trap "" TERM; echo up; while :; do sleep 0.1; done' "$tmp/"
pid=$HPA_STARTED_PID
hpa_wait_ready stubborn "$pid" 5 "$tmp/stubborn.log" grep -q up "$tmp/stubborn.log" || fail "stubborn not ready"
hpa_stop stubborn "$pid" 1 2>"$tmp/stop.err" || fail "stop failed: $(cat "$tmp/stop.err")"
grep -q "sending SIGKILL" "$tmp/stop.err" || fail "no SIGKILL reported: $(cat "$tmp/stop.err")"
hpa_running "$pid" && fail "stubborn survived"
echo "ok: hack/lib/processes.sh"
