"""Where a process's resident memory goes, from /proc/PID/smaps: code and data of each mapped
file (our binary, each shared library), the heap (brk and anonymous mappings), thread stacks
and the rest. Used by scale_bench.py at the end of the steady window; also a command:

    python3 bench/scale/memory.py PID
"""
import os
import re
import sys

_HEADER = re.compile(r"^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$")


def _mappings(pid):
    """Yield (path, perms, rss_kib) for each mapping of pid."""
    path, perms, rss = None, None, 0
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = _HEADER.match(line)
            if m:
                if perms is not None:
                    yield path, perms, rss
                perms, path, rss = m.group(1), m.group(2).strip(), 0
            elif line.startswith("Rss:"):
                rss = int(line.split()[1])
    if perms is not None:
        yield path, perms, rss


def resident_mib(pid):
    """VmRSS in MiB: the total alone, cheap enough to sample often (bench/soak)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


def _thread_count(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def breakdown(pid):
    """A dict of MiB: binary, libraries (with the six largest by name), heap, stack, other; total
    (the sum of every mapping's Rss: the pages VmRSS counts)."""
    exe = os.path.realpath(f"/proc/{pid}/exe")
    kib = {"binary": 0, "libraries": 0, "heap": 0, "stack": 0, "other": 0}
    libs = {}
    for path, perms, rss in _mappings(pid):
        if path == exe:
            kib["binary"] += rss
        elif path.startswith("/") and ".so" in path:
            kib["libraries"] += rss
            name = os.path.basename(path).split(".so")[0]
            libs[name] = libs.get(name, 0) + rss
        elif path in ("[heap]", "") and "w" in perms:
            # glibc's arenas and large allocations are anonymous, writable mappings; thread stacks
            # are too (counted with the heap here, their share is given as a thread count).
            kib["heap"] += rss
        elif path == "[stack]":
            kib["stack"] += rss
        else:
            kib["other"] += rss
    mib = {k: round(v / 1024, 1) for k, v in kib.items()}
    mib["total"] = round(sum(kib.values()) / 1024, 1)
    mib["threads"] = _thread_count(pid)
    top = sorted(libs.items(), key=lambda kv: -kv[1])[:6]
    mib["topLibraries"] = {k: round(v / 1024, 1) for k, v in top}
    return mib


def describe(b):
    libs = ", ".join(f"{k} {v}" for k, v in b["topLibraries"].items())
    return (f"{b['total']} MiB: binary {b['binary']}, shared libraries {b['libraries']} ({libs}), "
            f"heap and thread stacks {b['heap']} ({b['threads']} threads), main stack {b['stack']}, "
            f"other {b['other']}")


if __name__ == "__main__":
    print(describe(breakdown(int(sys.argv[1]))))
