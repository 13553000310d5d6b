# Processes and ports for the scripts of hack/ and tests/e2e/ (source it): one way to pick free
# TCP ports, start a process with its log and pidfile, wait until it is ready, and stop it.
# shellcheck shell=bash
#
#   hpa_pick_ports VAR...              sets each VAR to a distinct free TCP port
#   hpa_start NAME LOG PIDFILE ARGV... starts ARGV detached from our stdio, output appended to LOG;
#                                      its PID goes to PIDFILE and HPA_STARTED_PID
#   hpa_running PID                    true while PID runs (not a zombie) and, when HPA_PROCESS_MARK
#                                      is set, its command line contains that text
#   hpa_wait_ready NAME PID SECONDS LOG PROBE...
#                                      polls PROBE until it succeeds; fails early when the process
#                                      (started by this shell) exits, or after SECONDS, showing
#                                      LOG's last lines
#   hpa_stop NAME PID [GRACE]          SIGTERM; after GRACE seconds (3) SIGTERM again, then SIGKILL
#
# Messages go to stderr as "$HPA_LOG_PREFIX: ..." (the script's name by default).
#
# HPA_PROCESS_MARK tells our processes from others that got a recycled PID: a script whose
# command lines all name files under one directory sets it to "DIR/". PIDs of the shell's own
# children need no mark (a child's PID is not reused until the shell has waited for it).

# Ports are picked below the Linux ephemeral range (32768-60999): an ephemeral port that is free
# now can be taken by any process's outgoing connection before our server binds it.
HPA_PORT_RANGE_START=20000
HPA_PORT_RANGE_SIZE=12000
# Kubernetes components shut down gracefully on a first SIGTERM and keep open watches until they
# time out; a second SIGTERM makes them exit at once. SIGKILL is the last resort.
HPA_STOP_FORCED_SECONDS=10
# How often a readiness probe runs.
HPA_PROBE_INTERVAL_SECONDS=0.2

hpa_log() { echo "${HPA_LOG_PREFIX:-$(basename "$0" .sh)}: $*" >&2; }

# Sets each named variable to a port no socket of this machine is bound to (TCP over IPv4 and
# IPv6), at random in the range, and never one this shell picked before (a port picked for a
# process that has not bound it yet looks free). Not in a subshell: the variables are set here.
HPA_PICKED_PORTS=()
hpa_pick_ports() { # <variable>...
  local -A _hpa_taken=()
  local _hpa_file _hpa_address _hpa_port _hpa_var _hpa_attempts=0
  for _hpa_port in ${HPA_PICKED_PORTS[@]+"${HPA_PICKED_PORTS[@]}"}; do _hpa_taken[$_hpa_port]=1; done
  for _hpa_file in /proc/net/tcp /proc/net/tcp6; do
    [ -r "$_hpa_file" ] || continue
    while read -r _ _hpa_address _; do
      [[ $_hpa_address == *:* ]] || continue # the header line
      _hpa_taken[$((16#${_hpa_address##*:}))]=1
    done <"$_hpa_file"
  done
  for _hpa_var in "$@"; do
    _hpa_port=$((HPA_PORT_RANGE_START + RANDOM % HPA_PORT_RANGE_SIZE))
    while [ -n "${_hpa_taken[$_hpa_port]:-}" ]; do
      _hpa_attempts=$((_hpa_attempts + 1))
      if [ "$_hpa_attempts" -ge 10000 ]; then
        hpa_log "no free TCP ports in $HPA_PORT_RANGE_START+$HPA_PORT_RANGE_SIZE"
        return 1
      fi
      _hpa_port=$((HPA_PORT_RANGE_START + RANDOM % HPA_PORT_RANGE_SIZE))
    done
    _hpa_taken[$_hpa_port]=1
    HPA_PICKED_PORTS+=("$_hpa_port")
    printf -v "$_hpa_var" '%s' "$_hpa_port"
  done
}

# Detached: a new session (a Ctrl-C of the terminal does not reach it; it is stopped by name),
# no shared stdio (a caller such as CTest waits for its pipes to close).
hpa_start() { # <name> <log> <pidfile> <argv...>
  local name=$1 log=$2 pidfile=$3
  shift 3
  echo "==== $(date -u +%FT%TZ) ${HPA_LOG_PREFIX:-$(basename "$0" .sh)} starting $name" >>"$log"
  setsid "$@" </dev/null >>"$log" 2>&1 &
  HPA_STARTED_PID=$!
  echo "$HPA_STARTED_PID" >"$pidfile"
}

# A live process, not a zombie.
hpa_alive() { # <pid>
  local pid=$1 stat
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat:0:1}" != Z ]
}

hpa_running() { # <pid>
  local pid=$1 cmdline
  hpa_alive "$pid" || return 1
  [ -n "${HPA_PROCESS_MARK:-}" ] || return 0
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ $cmdline == *"$HPA_PROCESS_MARK"* ]]
}

# PID is a child this shell just started (hpa_start): until it has replaced the forked shell, its
# command line is not yet its own, so only its life is checked.
hpa_wait_ready() { # <name> <pid> <seconds> <log> <probe...>
  local name=$1 pid=$2 seconds=$3 log=$4
  shift 4
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ! hpa_alive "$pid"; then
      hpa_log "$name (pid $pid) exited while starting; last lines of $log:"
      tail -n 40 "$log" >&2 || true
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      hpa_log "$name (pid $pid) not ready after ${seconds}s; last lines of $log:"
      tail -n 40 "$log" >&2 || true
      return 1
    fi
    sleep "$HPA_PROBE_INTERVAL_SECONDS"
  done
}

hpa_wait_gone() { # <pid> <seconds>
  local deadline=$((SECONDS + $2))
  while hpa_running "$1"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

# Reports what it did; fails only when the process survives SIGKILL.
hpa_stop() { # <name> <pid> [grace seconds]
  local name=$1 pid=$2 grace=${3:-3} signal
  if ! hpa_running "$pid"; then
    hpa_log "$name (pid ${pid:-none}) is not running"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  if ! hpa_wait_gone "$pid" "$grace"; then
    for signal in TERM KILL; do
      hpa_log "$name (pid $pid) still running; sending SIG$signal"
      kill "-$signal" "$pid" 2>/dev/null || true
      hpa_wait_gone "$pid" "$HPA_STOP_FORCED_SECONDS" && break
    done
    if hpa_running "$pid"; then
      hpa_log "$name (pid $pid) survived SIGKILL"
      return 1
    fi
  fi
  hpa_log "stopped $name (pid $pid)"
}
