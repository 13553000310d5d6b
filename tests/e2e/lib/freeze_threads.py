#!/usr/bin/env python3
"""Freezes some threads of a running process, and only those, until this script ends.

  freeze_threads.py PID PREFIX

Every thread of PID whose name (/proc/PID/task/TID/comm) starts with PREFIX is seized with ptrace
and stopped (PTRACE_SEIZE, then PTRACE_INTERRUPT): it stays stopped wherever it was (inside a
reconcile, or waiting for work) while the process's other threads run on. It prints one line per
thread frozen, then "frozen N" and waits; on SIGTERM or SIGINT it detaches, and the threads
resume. If the process dies meanwhile (a restart), it just exits. Needs CAP_SYS_PTRACE (root).

A test-only fault: the stalled run loop a deadlock or a hung call would make, without the rest of
the process (its HTTP server, its leader election) stopping with it, as SIGSTOP would.
"""
import ctypes
import os
import signal
import sys
import time

PTRACE_DETACH = 17
PTRACE_SEIZE = 0x4206
PTRACE_INTERRUPT = 0x4207

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long


def ptrace(request, tid):
    if libc.ptrace(request, tid, None, None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"ptrace({request:#x}, {tid}): {os.strerror(err)}")


def threads(pid, prefix):
    out = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        if name.startswith(prefix):
            out.append((int(tid), name))
    return out


def main():
    pid, prefix = int(sys.argv[1]), sys.argv[2]
    frozen = []
    for tid, name in threads(pid, prefix):
        ptrace(PTRACE_SEIZE, tid)
        ptrace(PTRACE_INTERRUPT, tid)
        frozen.append(tid)
        print(f"froze thread {tid} ({name})", flush=True)
    if not frozen:
        sys.exit(f"no thread of {pid} is named {prefix}*")
    print(f"frozen {len(frozen)}", flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    while not stop and os.path.exists(f"/proc/{pid}"):
        time.sleep(0.5)
    for tid in frozen:
        try:
            ptrace(PTRACE_DETACH, tid)
        except OSError:
            pass  # gone with its process, or stopped in a state detach cannot take: it ends with us
    print("released", flush=True)


if __name__ == "__main__":
    main()
