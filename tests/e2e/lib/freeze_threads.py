#!/usr/bin/env python3
"""Freezes some threads of a running process, and only those, until this script ends.

  freeze_threads.py PID PREFIX [--check URL]

Every thread of PID whose name (/proc/PID/task/TID/comm) starts with PREFIX is seized with ptrace
and stopped (PTRACE_SEIZE, then PTRACE_INTERRUPT): it stays stopped wherever it was (inside a
reconcile, or waiting for work) while the process's other threads run on. It prints one line per
thread frozen, then "frozen N" and waits; on SIGTERM or SIGINT it detaches, and the threads
resume. When the process exits meanwhile (a restart), it lets go at once, so that the process can
be reaped. Needs CAP_SYS_PTRACE (root).

A test-only fault: the stalled run loop a deadlock or a hung call would make, without the rest of
the process (its HTTP server, its leader election) stopping with it, as SIGSTOP would.

A thread stopped at an arbitrary instruction may be holding a lock the server needs (the work
queue's, briefly, as it takes a key), and then the server hangs too: a deadlock, not the stall
meant. With --check URL (the process's /healthz), the freeze is tried again, after releasing the
threads, until URL still answers (any HTTP status) within 3 s, up to 20 times.
"""
import argparse
import ctypes
import os
import random
import signal
import ssl
import sys
import time
import urllib.error
import urllib.request

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


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(") ", 1)[1][0]
    except (OSError, IndexError):
        return False
    return state not in "ZX"


def answers(url):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        urllib.request.urlopen(url, timeout=3, context=context).read()
    except urllib.error.HTTPError:
        pass  # an answer, whatever its status
    except Exception:  # noqa: BLE001 - no answer in time, or none at all
        return False
    return True


def freeze(pid, prefix):
    frozen = []
    for tid, name in threads(pid, prefix):
        ptrace(PTRACE_SEIZE, tid)
        ptrace(PTRACE_INTERRUPT, tid)
        frozen.append((tid, name))
    return frozen


def release(frozen):
    for tid, _ in frozen:
        try:
            ptrace(PTRACE_DETACH, tid)
        except OSError:
            pass  # gone with its process, or stopped in a state detach cannot take: it ends with us


def main():
    p = argparse.ArgumentParser()
    p.add_argument("pid", type=int)
    p.add_argument("prefix")
    p.add_argument("--check")
    a = p.parse_args()
    for attempt in range(20):
        frozen = freeze(a.pid, a.prefix)
        if not frozen:
            sys.exit(f"no thread of {a.pid} is named {a.prefix}*")
        time.sleep(0.5)
        if not a.check or answers(a.check):
            break
        print(f"attempt {attempt + 1}: {a.check} stopped answering (a frozen thread holds a lock); again", flush=True)
        release(frozen)
        time.sleep(random.uniform(0.3, 1.0))
    else:
        release(frozen)
        sys.exit("could not freeze the threads without the server hanging")
    for tid, name in frozen:
        print(f"froze thread {tid} ({name})", flush=True)
    print(f"frozen {len(frozen)}", flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    # Ends once the process is gone or exiting: its threads, traced, could not be reaped while this
    # tracer holds them, and the container would never exit.
    while not stop and alive(a.pid):
        time.sleep(0.5)
    release(frozen)
    print("released", flush=True)


if __name__ == "__main__":
    main()
