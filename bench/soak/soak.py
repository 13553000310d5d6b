#!/usr/bin/env python3
"""make soak: hpa-controller under faults on the local control plane (see bench/README.md).

N CPU-utilization HPAs (1 pod each) with hpa-sim and a load that changes every few minutes; two
daemons with leader election. Over DURATION the script restarts kube-apiserver, compacts etcd
(forcing relists), takes the metrics APIs down (hpa-sim stopped and started again) and SIGKILLs
the leader (started again as the standby), spread evenly. Then the load is held until every HPA
has settled, and it checks:
  - no daemon died other than by the kills;
  - the informer caches of the leader equal the server's lists (count and digest in /metrics,
    see src/informer/cache_summary.h), pods and HPAs;
  - every Deployment at rest: at the replicas upstream's rule keeps for its load, on the metrics
    hpa-sim serves (per-pod usage rounded to the milli);
  - no downscale below what a load seen within the downscale stabilization window needed
    (the window survives the kills: it is persisted in the HPA);
  - resident memory and open descriptors flat after the first 5 minutes (the last sample within
    20 % + 4 MiB of the 5-minute one; descriptors within 10).
Prints the figures and writes DIR/soak.json; a run other than --quick also records them in
bench/results/soak.json (--results). Exit 1 on any failed check.
"""
import argparse
import json
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scale"))
import memory  # noqa: E402
import scale_bench  # noqa: E402
from report import render  # noqa: E402
from scale_bench import ROOT, Bench, free_port, log  # noqa: E402

HPA_LIST = "/apis/autoscaling/v2beta2/horizontalpodautoscalers"
MILLI_PER_REPLICA = 50  # 100m request at 50 % utilization
METRICS_LAG = 20  # seconds from a load change until the controller can have seen it
SYNC = 30  # the daemons' sync period (15 s), the batched metrics' reuse (7.5 s) and slack
MEASURES = ("hpa-controller (two daemons with leader election) under apiserver restarts, etcd compactions, "
            "metrics outages and leader kills: caches, workloads at rest, early downscales, memory and descriptors.")


def fnv1a32(text):
    h = 2166136261
    for c in text.encode():
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


def server_summary(kube, path):
    items, _ = kube.list(path)
    digest = 0
    for o in items:
        m = o["metadata"]
        key = f"{m['namespace']}/{m['name']}" if m.get("namespace") else m["name"]
        digest = (digest + fnv1a32(f"{key} {m['resourceVersion']}")) & 0xFFFFFFFF
    return len(items), digest


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        return r.read().decode()


def cache_summary(text, resource):
    found = {}
    for line in text.splitlines():
        for name in ("objects", "digest"):
            prefix = f'hpa_controller_informer_cache_{name}{{resource="{resource}"}} '
            if line.startswith(prefix):
                found[name] = int(float(line[len(prefix):]))
    return found.get("objects"), found.get("digest")


def proc_fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


class Soak(Bench):
    def __init__(self, args):
        self.one_pod_workloads(args, workload_qps=50, sim_qps=50)
        super().__init__(args)
        self.use_directory(os.path.join(ROOT, "build", "soak", f"n{args.n}-{args.minutes}m"))
        self.daemons = {}  # name -> (Popen, metrics port)
        self.killed = set()  # pids this script killed
        self.failures = []
        self.samples = []  # (seconds since start, name, rss MiB, fds)
        self.replica_log = {}  # workload -> [(time, replicas)]
        self.load_history = {}  # workload -> [(time, milli)] from the start
        self.counts = {"apiserver restarts": 0, "etcd compactions": 0, "metrics outages": 0, "leader kills": 0}
        self.stop_watch = threading.Event()

    # ------------------------------------------------------------ daemons
    def start_daemon(self, name):
        port = free_port()
        argv = [self.a.controller, "--kubeconfig", self.kubeconfigs["hpa-controller"], "--address", "127.0.0.1",
                "--port", str(port), "--secure-port=0", "--leader-elect",
                "--leader-elect-resource-namespace", "kube-system", "--leader-elect-resource-name", "hpa-soak",
                f"--horizontal-pod-autoscaler-downscale-stabilization={self.a.window}s", "-v", "2"]
        self.daemons[name] = (self.procs.start(name, argv, env=scale_bench.daemon_environment()), port)

    def leader(self):
        """The live daemon whose /readyz says it leads."""
        for name, (p, port) in self.daemons.items():
            if p.poll() is not None:
                continue
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as r:
                    body = r.read().decode()
            except Exception as e:  # 503 while syncing: the body still says leader or standby
                body = e.read().decode() if hasattr(e, "read") else ""
            if body.endswith("; leader"):
                return name
        return None

    def check_alive(self):
        for name, (p, _) in list(self.daemons.items()):
            if p.poll() is None or p.pid in self.killed:
                continue
            self.killed.add(p.pid)  # handled once
            with open(os.path.join(self.dir, f"{name}.log"), errors="replace") as f:
                lost_lease = "leadership lost" in f.read()
            if p.returncode == 1 and lost_lease:
                # As kube-controller-manager does, a leader that cannot renew its lease (here
                # across an apiserver restart) exits; its Deployment would start it again.
                self.counts["restarts after a lost lease"] = self.counts.get("restarts after a lost lease", 0) + 1
                os.rename(os.path.join(self.dir, f"{name}.log"), os.path.join(self.dir, f"{name}-{p.pid}.log"))
                self.start_daemon(name)
            else:
                self.failures.append(f"{name} (pid {p.pid}) exited by itself with {p.returncode}")

    # ------------------------------------------------------------ load and observation
    def change_load(self):
        changes = {}
        for name, _ in random.sample(self.workloads, max(1, len(self.workloads) // 3)):
            changes[name] = MILLI_PER_REPLICA * random.choice([1, 2, 3, 4])
        self.set_load(changes)
        return changes

    def watch_replicas(self):
        while not self.stop_watch.wait(3):
            try:
                for d in self.kube.list("/apis/apps/v1/deployments")[0]:
                    name = d["metadata"]["name"]
                    r = d["spec"].get("replicas", 1)
                    log_ = self.replica_log.setdefault(name, [])
                    if not log_ or log_[-1][1] != r:
                        log_.append((time.time(), r))
            except Exception:  # the apiserver restarts under us; the next poll sees it
                pass

    def sample(self):
        for name, (p, _) in self.daemons.items():
            if p.poll() is None:
                rss = memory.resident_mib(p.pid)
                self.samples.append((time.time() - self.t0, name, p.pid, rss, proc_fds(p.pid)))

    # ------------------------------------------------------------ faults
    def fault(self, kind):
        lc = os.path.join(ROOT, "hack", "local-cluster.sh")
        if kind == "apiserver restarts":
            subprocess.run([lc, "restart-apiserver", "--dir", self.cluster], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        elif kind == "etcd compactions":
            subprocess.run([lc, "compact", "--dir", self.cluster], check=True, stdout=subprocess.DEVNULL)
        elif kind == "metrics outages":
            self.procs.stop("hpa-sim")
            time.sleep(self.a.outage)
            self.start_sim()
            self.set_load(dict(self.loads))  # it starts from the scenario's loads
        elif kind == "leader kills":
            name = self.leader()
            if name is None:
                log("  no leader to kill right now")
                return
            p, _ = self.daemons[name]
            self.killed.add(p.pid)
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
            self.start_daemon(name)
        self.counts[kind] += 1

    # ------------------------------------------------------------ checks
    def expected(self, name):
        return max(1, min(self.max_replicas, math.ceil(self.loads[name] / MILLI_PER_REPLICA)))

    def at_rest(self, name, replicas):
        """Whether upstream's rule keeps `replicas` for this workload's load, on the metrics
        hpa-sim serves: each Ready pod's usage is the load over the pods rounded to the milli
        (half away from zero), so 150m over 4 pods reads 38m each, a ratio of 0.76 and
        ceil(0.76 x 4) = 4: the controller rightly stays at 4 where the bare load calls for 3."""
        load = self.loads[name]
        per_pod = int(load / replicas + 0.5)
        if abs(per_pod - MILLI_PER_REPLICA) * 10 <= MILLI_PER_REPLICA:  # within the 0.1 tolerance
            return True
        wanted = -(-per_pod * replicas // MILLI_PER_REPLICA)  # ceil(ratio x replicas)
        return max(1, min(self.max_replicas, wanted)) == replicas

    def settled(self):
        items, _ = self.kube.list("/apis/apps/v1/deployments")
        ds = {d["metadata"]["name"]: d["spec"].get("replicas", 1) for d in items}
        return [n for n, _ in self.workloads if n not in ds or not self.at_rest(n, ds[n])]

    def explain_unsettled(self, names):
        """Why a workload is not at its size, in the controller's own words: the live explain of its
        HPA (read-only) and its pods' readiness, written to DIR/unsettled.txt."""
        ns_of = dict(self.workloads)
        path = os.path.join(self.dir, "unsettled.txt")
        with open(path, "w") as out:
            for name in names:
                if name not in ns_of:
                    continue
                ns = ns_of[name]
                out.write(f"==== {ns}/{name}: load {self.loads[name]}m, expected {self.expected(name)} replicas\n")
                try:
                    pods, _ = self.kube.list(f"/api/v1/namespaces/{ns}/pods", {"labelSelector": f"app={name}"})
                    for pod in pods:
                        conds = {c["type"]: c["status"] for c in pod.get("status", {}).get("conditions", [])}
                        out.write(f"pod {pod['metadata']['name']} phase={pod.get('status', {}).get('phase')} "
                                  f"ready={conds.get('Ready')} deleting={'deletionTimestamp' in pod['metadata']}\n")
                except Exception as e:
                    out.write(f"pods: {e}\n")
                r = subprocess.run([self.a.controller, "explain", f"{ns}/{name}", "--kubeconfig",
                                    self.kubeconfigs["hpa-controller"], "-o", "text"],
                                   capture_output=True, text=True, timeout=60)
                out.write(r.stdout + r.stderr + "\n")
        log(f"  the unsettled workloads explained in {path}")

    def early_downscales(self):
        """Downscales sooner than the stabilization window allows after a load the controller saw.

        The controller reconciles every SYNC seconds or sooner and sees a load METRICS_LAG after
        it starts, so a level from `start` to `end` lasting longer than both was seen by a
        reconcile at `end - SYNC` or later: no downscale below what it needed may come before
        `end - SYNC + window`. One that does (with 5 s to spare) is early: the window was lost.
        """
        bad = []
        for name, changes in self.replica_log.items():
            levels = self.load_history.get(name, [])
            for i in range(1, len(changes)):
                t, r = changes[i]
                if r >= changes[i - 1][1]:
                    continue
                for j, (start, milli) in enumerate(levels):
                    end = levels[j + 1][0] if j + 1 < len(levels) else math.inf
                    seen = end - SYNC >= start + METRICS_LAG and start + METRICS_LAG <= t
                    need = max(1, min(self.max_replicas, math.ceil(milli / MILLI_PER_REPLICA)))
                    if seen and need > r and t < end - SYNC + self.a.window - 5:
                        bad.append(f"{name} scaled {changes[i - 1][1]}->{r} at {t - self.t0:.0f}s, {t - end:.0f}s "
                                   f"after a load needing {need} ended (window {self.a.window}s)")
                        break
        return bad

    def run(self):
        self.prepare_dir()
        log(f"soak: N={self.a.n}, {self.a.minutes} min, dir {self.dir}")
        self.cluster_up()
        self.start_sim()
        self.create_namespaces()
        self.parallel(self.create_deployment, self.workloads)
        self.wait_pods("pods up", 600)
        self.wait_metrics_api()
        self.parallel(self.create_hpa, self.workloads)
        self.start_daemon("A")
        time.sleep(2)
        self.start_daemon("B")
        watcher = threading.Thread(target=self.watch_replicas, daemon=True)
        watcher.start()

        duration = self.a.minutes * 60
        plan = []
        for kind, n in (("apiserver restarts", self.a.restarts), ("etcd compactions", self.a.compactions),
                        ("metrics outages", self.a.outages), ("leader kills", self.a.kills)):
            plan += [((i + 0.5) * duration / n + random.uniform(-5, 5), kind) for i in range(n)]
        plan.sort()
        load_every = max(60, duration // 8)
        self.t0 = time.time()
        self.load_history = {n: [(self.t0 - 3600, m)] for n, m in self.loads.items()}
        next_load, next_sample = self.t0 + 20, self.t0
        # The last load change leaves time to settle inside the run.
        last_load_change = self.t0 + duration - self.a.window - 30
        while time.time() - self.t0 < duration:
            now = time.time()
            if plan and now - self.t0 >= plan[0][0]:
                kind = plan.pop(0)[1]
                log(f"  {kind[:-1] if kind.endswith('s') else kind} ({self.counts[kind] + 1})")
                self.fault(kind)
            if now >= next_load and now < last_load_change:
                for n, m in self.change_load().items():
                    self.load_history[n].append((time.time(), m))
                next_load = now + load_every
            if now >= next_sample:
                self.sample()
                next_sample = now + 15
            self.check_alive()
            time.sleep(1)
        for kind, _ in plan:
            self.fault(kind)

        log("faults done; holding the load until every workload is at its size")
        deadline = time.time() + self.a.window + 240
        while True:
            self.check_alive()
            try:
                off = self.settled()
            except Exception:
                off = ["(list failed)"]
            if not off or time.time() > deadline:
                break
            time.sleep(5)
        self.sample()
        self.stop_watch.set()
        if off:
            self.failures.append(f"{len(off)} workloads not at their size: {off[:10]}")
            self.explain_unsettled(off[:5])

        leader = self.leader()
        caches = {}
        if leader is None:
            self.failures.append("no leader at the end")
        else:
            port = self.daemons[leader][1]
            for resource, path in (("pods", "/api/v1/pods"), ("horizontalpodautoscalers", HPA_LIST),
                                   ("deployments", "/apis/apps/v1/deployments")):
                for _ in range(20):
                    server = server_summary(self.kube, path)
                    cached = cache_summary(scrape(port), resource)
                    if tuple(cached) == server:
                        break
                    time.sleep(1)
                caches[resource] = {"server": server, "cache": cached}
                if tuple(cached) != server:
                    self.failures.append(f"{resource} cache {cached} != server {server}")
        if not self.replica_log:
            self.failures.append("no Deployment was ever observed (the replica watcher failed)")
        early = self.early_downscales()
        self.failures += early

        # Memory and descriptors: per daemon process alive at the end, its sample near minute 5 vs its last.
        growth = {}
        for name, (p, _) in self.daemons.items():
            mine = [s for s in self.samples if s[2] == p.pid]
            if len(mine) < 2:
                continue
            base = min(mine, key=lambda s: abs(s[0] - (mine[0][0] + 300)))
            last = mine[-1]
            growth[name] = {"pid": p.pid, "from_s": round(base[0]), "rss_mib": [base[3], last[3]], "fds": [base[4], last[4]]}
            if last[0] - base[0] >= 120:
                if last[3] > base[3] * 1.2 + 4:
                    self.failures.append(f"{name}: resident memory grew {base[3]} -> {last[3]} MiB")
                if last[4] is not None and base[4] is not None and last[4] > base[4] + 10:
                    self.failures.append(f"{name}: open descriptors grew {base[4]} -> {last[4]}")
        result = {"n": self.a.n, "minutes": self.a.minutes, "faults": self.counts, "caches": caches,
                  "early_downscales": early, "memory_and_fds": growth, "failures": self.failures,
                  "unsettled": len(off), "samples": self.samples}
        with open(os.path.join(self.dir, "soak.json"), "w") as f:
            json.dump(result, f, indent=1)
        if not self.a.quick:
            render.record("soak", results_tables(result), render.run_info(), MEASURES,
                          render.results_directory(self.a.results))
        print(f"soak: N={self.a.n}, {self.a.minutes} min; faults: "
              + ", ".join(f"{k} {v}" for k, v in self.counts.items()))
        for resource, c in caches.items():
            print(f"  cache {resource}: server {c['server'][0]} objects digest {c['server'][1]}, "
                  f"leader's cache {c['cache'][0]} objects digest {c['cache'][1]}")
        for name, g in growth.items():
            print(f"  {name} (pid {g['pid']}): resident memory {g['rss_mib'][0]:.1f} -> {g['rss_mib'][1]:.1f} MiB, "
                  f"open descriptors {g['fds'][0]} -> {g['fds'][1]}, from {g['from_s']} s to the end")
        print(f"  downscales earlier than the window allows: {len(early)}")
        print("soak: " + ("ok" if not self.failures else "FAILED:\n  " + "\n  ".join(self.failures)))
        return 0 if not self.failures else 1


def results_tables(result):
    """bench/results/soak.json's row for one run (result as DIR/soak.json holds it)."""
    died = sum(1 for f in result["failures"] if "exited by itself" in f)
    caches = result["caches"]
    equal = caches and all(tuple(c["cache"]) == tuple(c["server"]) for c in caches.values())
    names = {"pods": "pods", "horizontalpodautoscalers": "HPAs", "deployments": "Deployments"}
    memory = "; ".join(f"{name} {g['rss_mib'][0]:.1f} → {g['rss_mib'][1]:.1f} MiB, {g['fds'][0]} → {g['fds'][1]} "
                       f"descriptors (from {g['from_s']:,} s)" for name, g in result["memory_and_fds"].items())
    row = {"n": result["n"], "minutes": result["minutes"], "faults": result["faults"],
           "died": died + result["faults"].get("restarts after a lost lease", 0),
           "caches": ("equal: " if equal else "differ: ") + ", ".join(
               f"{names.get(r, r)} {c['server'][0]}" for r, c in caches.items()) if caches else "no leader",
           "at_rest": f"{result['n'] - result['unsettled']} of {result['n']}",
           "early_downscales": len(result["early_downscales"]), "memory": memory,
           "result": "ok" if not result["failures"] else f"failed: {len(result['failures'])} check(s)"}
    columns = [("n", "HPAs"), ("minutes", "minutes"), ("faults", "faults"),
               ("died", "daemons that died by themselves or lost their lease"),
               ("caches", "leader's caches against the server (objects)"),
               ("at_rest", "workloads at rest at the end"), ("early_downscales", "downscales earlier than the window"),
               ("memory", "memory and descriptors, each daemon from its last start to the end"), ("result", "result")]
    return [render.table("soak", None, ["n", "minutes"], columns, [row])]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--controller", default=os.path.join(ROOT, "build", "cmd", "hpa-controller", "hpa-controller"))
    p.add_argument("--sim", default=os.path.join(ROOT, "build", "cmd", "hpa-sim", "hpa-sim"))
    p.add_argument("--dir")
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--namespaces", type=int, default=5)
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--restarts", type=int, default=20)
    p.add_argument("--compactions", type=int, default=5)
    p.add_argument("--outages", type=int, default=3)
    p.add_argument("--kills", type=int, default=5)
    p.add_argument("--outage", type=int, default=30, help="seconds the metrics APIs stay down")
    p.add_argument("--window", type=int, default=300, help="--horizontal-pod-autoscaler-downscale-stabilization (s)")
    p.add_argument("--quick", action="store_true", help="the e2e tier's 3-minute variant")
    p.add_argument("--keep", action="store_true", help="leave the cluster running")
    render.add_argument(p)
    a = p.parse_args()
    if a.quick:
        a.n, a.namespaces, a.minutes, a.restarts, a.compactions, a.outages, a.kills = 20, 2, 3, 3, 1, 1, 1
        a.outage, a.window = 15, 45
    random.seed(1)
    soak = Soak(a)
    code = 1
    try:
        code = soak.run()
    finally:
        soak.stop_watch.set()
        if not a.keep:
            soak.procs.stop_all()
            subprocess.run([os.path.join(ROOT, "hack", "local-cluster.sh"), "down", "--dir", soak.cluster],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sys.exit(code)


if __name__ == "__main__":
    main()
