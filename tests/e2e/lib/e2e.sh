# Helpers of the e2e scripts (source it): results, polling, ports.
# shellcheck shell=bash
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
# wait_for <seconds> <description> <command...>: polls the command once a second.
wait_for() {
  local limit=$1 what=$2
  shift 2
  for _ in $(seq "$limit"); do
    if "$@" >/dev/null 2>&1; then pass "$what"; return 0; fi
    sleep 1
  done
  fail "$what (not within ${limit}s)"
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
