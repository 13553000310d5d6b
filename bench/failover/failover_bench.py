#!/usr/bin/env python3
"""make bench-failover: a leader SIGKILLed, and how soon its standby decides for every HPA, for
hpa-controller and for kube-controller-manager's HPA controller, one after the other on one local
cluster (see bench/README.md).

N Deployments of 1 pod with N cpu-utilization HPAs at target (hpa-sim for the metrics), as
make bench-scale sets them up. Per controller: two instances with leader election (default lease
timings: 15 s lease, 10 s renew deadline, 2 s retry), started together; once the leader has given
every HPA a status and a settle time passed, the resident memory of both is read, the leader is
SIGKILLed, and:
- taken: seconds from the kill until the Lease names the standby (polled every 50 ms);
- every HPA reconciled: seconds from the Lease being taken until the new leader reconciled every
  HPA once (hpa-controller: its reconcile counter grew by N; kube-controller-manager 1.20 exports
  no HPA metrics, so: until each HPA's Scale was read, from the audit log; it reads one per
  reconcile);
- the new leader's API requests and writes in its first two sync periods after taking the Lease,
  from the audit log (lists are the relists a cold cache needs; writes where nothing changed
  should be none; Lease renewals are left out).

Prints a table, writes DIR/failover.json and records the figures in bench/results/failover.json
(--results). Everything it starts is stopped on exit.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scale"))
import audit  # noqa: E402
import memory  # noqa: E402
import scale_bench  # noqa: E402
from report import render  # noqa: E402
from scale_bench import HPA_API, ROOT, USERS, Bench, free_port, log  # noqa: E402

LEASE_NAMESPACE = "kube-system"
LEASES = {"hpa-controller": "hpa-controller", "kube-controller-manager": "bench-kcm-hpa"}
SYNC_SECONDS = 15  # both at their default --horizontal-pod-autoscaler-sync-period
MEASURES = ("A SIGKILLed leader: how soon the standby takes the Lease and decides for every HPA, and what the "
            "new leader asks the API for in its first two sync periods, hpa-controller beside "
            "kube-controller-manager 1.20.2.")


class Failover(Bench):
    def __init__(self, args):
        self.one_pod_workloads(args, workload_qps=300, sim_qps=400)
        super().__init__(args)
        self.use_directory(os.path.join(ROOT, "build", "bench-failover", f"n{args.n}"))

    def instance_argv(self, controller, port):
        if controller == "hpa-controller":
            return [self.a.controller, "--kubeconfig", self.kubeconfigs[controller], "--leader-elect=true",
                    "--address", "127.0.0.1", "--port", str(port), "--secure-port=0"] + self.a.controller_args.split()
        return [os.path.join(self.env["K8S_BIN_DIR"], "kube-controller-manager"), "--kubeconfig",
                self.kubeconfigs[controller], "--controllers=horizontalpodautoscaling", "--leader-elect=true",
                "--leader-elect-resource-lock=leases", f"--leader-elect-resource-name={LEASES[controller]}",
                f"--leader-elect-resource-namespace={LEASE_NAMESPACE}", "--port=0", "--secure-port=0",
                "--use-service-account-credentials=false", "--profiling=false", "--v=1"]

    def holder(self, controller):
        lease = self.kube.get(f"/apis/coordination.k8s.io/v1/namespaces/{LEASE_NAMESPACE}/leases/{LEASES[controller]}",
                              ok=(200, 404))
        return (lease.get("spec") or {}).get("holderIdentity")

    def leads(self, name):
        try:
            with open(os.path.join(self.dir, f"{name}.log"), errors="replace") as f:
                return "successfully acquired lease" in f.read()
        except OSError:
            return False

    def scale_reads_after(self, since):
        """kube-controller-manager's first Scale GET per HPA target at or after `since` (audit log)."""
        first = {}
        with open(self.audit_log, encoding="utf-8", errors="replace") as f:
            for line in f:
                if '"bench-kcm-hpa"' not in line or '"scale"' not in line:
                    continue
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                ref = e.get("objectRef") or {}
                if e.get("verb") != "get" or ref.get("subresource") != "scale":
                    continue
                t = audit.parse_time(e["requestReceivedTimestamp"])
                key = f"{ref.get('namespace')}/{ref.get('name')}"
                if t >= since and key not in first:
                    first[key] = t
        return first

    def run_controller(self, controller):
        a = self.a
        res = {}
        names = [f"{controller}-a", f"{controller}-b"]
        ports = {n: free_port() for n in names}
        env = scale_bench.daemon_environment() if controller == "hpa-controller" else None
        procs = {n: self.procs.start(n, self.instance_argv(controller, ports[n]), env=env) for n in names}
        t0 = time.time()
        log(f"{controller}: two instances started")
        while True:
            leader = next((n for n in names if self.leads(n)), None)
            if leader:
                break
            if time.time() - t0 > 120 or any(p.poll() is not None for p in procs.values()):
                sys.exit(f"bench-failover: {controller}: no instance took the Lease; see {self.dir}")
            time.sleep(0.2)
        standby = next(n for n in names if n != leader)
        # Every HPA decided by the leader, then the settle time (the standby's caches are warm by then).
        while sum(1 for t in self.obs.status_times().values() if t is not None) < a.n:
            if time.time() - t0 > a.cold_timeout:
                sys.exit(f"bench-failover: {controller}: not every HPA has a status after {a.cold_timeout}s")
            time.sleep(0.5)
        log(f"{controller}: every HPA has a status ({time.time() - t0:.0f}s); settling {a.settle}s")
        time.sleep(a.settle)
        res["rssMiB"] = {"leader": memory.resident_mib(procs[leader].pid), "standby": memory.resident_mib(procs[standby].pid)}
        before = self.holder(controller)
        reconciles_before = self.scrape_quietly(ports[standby]) if controller == "hpa-controller" else None

        log(f"{controller}: SIGKILL to the leader ({leader}); RSS leader {res['rssMiB']['leader']:.1f} MiB, "
            f"standby {res['rssMiB']['standby']:.1f} MiB")
        t_kill = time.time()
        procs[leader].send_signal(signal.SIGKILL)
        procs[leader].wait()
        self.procs.procs.pop(leader, None)
        while True:
            h = self.holder(controller)
            if h and h != before:
                t_taken = time.time()
                break
            if time.time() - t_kill > 120:
                sys.exit(f"bench-failover: {controller}: the standby did not take the Lease in 120 s")
            time.sleep(0.05)
        res["takenAfterKill"] = round(t_taken - t_kill, 2)
        log(f"{controller}: the standby took the Lease {res['takenAfterKill']} s after the kill")

        if controller == "hpa-controller":
            while True:
                now = self.scrape_quietly(ports[standby])
                if now is not None and reconciles_before is not None and now - reconciles_before >= a.n:
                    res["allReconciled"] = round(time.time() - t_taken, 2)
                    break
                if reconciles_before is None:
                    reconciles_before = now
                if time.time() - t_taken > a.reconcile_timeout:
                    res["allReconciled"] = None
                    break
                time.sleep(0.1)
            time.sleep(max(0.0, t_taken + 2 * SYNC_SECONDS - time.time()))
        else:
            while True:
                time.sleep(2)
                first = self.scale_reads_after(t_taken)
                if len(first) >= a.n:
                    res["allReconciled"] = round(max(first.values()) - t_taken, 2)
                    break
                if time.time() - t_taken > a.reconcile_timeout:
                    res["allReconciled"] = None
                    res["reconciledWithinTimeout"] = len(first)
                    break
            time.sleep(max(0.0, t_taken + 2 * SYNC_SECONDS - time.time()))
        log(f"{controller}: every HPA reconciled {res['allReconciled']} s after the Lease was taken")

        requests = audit.load(self.audit_log, [USERS[controller]])[USERS[controller]]
        window = [r for r in requests if t_taken <= r[0] < t_taken + 2 * SYNC_SECONDS and not r[2].startswith("leases")]
        by_category = {}
        for _, verb, cat, _ in window:
            by_category[cat] = by_category.get(cat, 0) + 1
        res["firstTwoPeriods"] = {
            "requests": len(window),
            "lists": sum(1 for r in window if r[1] == "list"),
            "writes": sum(1 for r in window if r[1] in audit.WRITES),
            "hpaWrites": sum(1 for r in window if r[1] in audit.WRITES and r[2].startswith("HPA")),
            "scaleWrites": sum(1 for r in window if r[1] in audit.WRITES and "/scale" in r[2]),
            "byCategory": dict(sorted(by_category.items(), key=lambda kv: -kv[1])),
        }
        res["exitCode"] = self.procs.stop(standby)
        return res

    def scrape_quietly(self, port):
        try:
            return self.scrape_reconciles(port)
        except Exception:
            return None

    def run(self):
        a = self.a
        self.prepare_dir()
        log(f"bench-failover: N={a.n} over {a.namespaces} namespaces; {self.dir}")
        self.cluster_with_workloads()
        results = {"n": a.n, "namespaces": a.namespaces, "controllers": {},
                   "commit": subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                                            capture_output=True, text=True).stdout.strip()}
        for controller in a.controllers:
            # Fresh HPAs for each controller: no status, no annotations, as at a first start.
            for ns in self.namespaces:
                self.kube.request("DELETE", f"{HPA_API}/namespaces/{ns}/horizontalpodautoscalers?labelSelector=bench%3Dscale")
            while self.obs.hpa_count() > 0:
                time.sleep(0.5)
            self.parallel(self.create_hpa, self.workloads)
            while self.obs.hpa_count() < a.n:
                time.sleep(0.5)
            time.sleep(scale_bench.METRICS_SETTLE_SECONDS)
            results["controllers"][controller] = self.run_controller(controller)
        with open(os.path.join(self.dir, "failover.json"), "w") as f:
            json.dump(results, f, indent=1)
        print(table(results))
        render.record("failover", results_tables(results), render.run_info(), MEASURES,
                      render.results_directory(a.results))


def results_tables(results):
    """bench/results/failover.json's rows, one per controller."""
    rows = []
    for controller, r in results["controllers"].items():
        first = r["firstTwoPeriods"]
        rows.append({"n": results["n"], "namespaces": results["namespaces"], "controller": controller,
                     "taken_s": r["takenAfterKill"], "reconciled_s": r["allReconciled"], "requests": first["requests"],
                     "by_category": first["byCategory"], "writes": first["writes"], "lists": first["lists"],
                     "rss_mib": [r["rssMiB"]["leader"], r["rssMiB"]["standby"]]})
    columns = [("n", "N"), ("namespaces", "namespaces"), ("controller", "controller"),
               ("taken_s", "Lease taken, s after the kill", {"digits": 1}),
               ("reconciled_s", "every HPA reconciled, s after the Lease was taken", {"digits": 1}),
               ("requests", "new leader's requests in its first two sync periods"),
               ("by_category", "of which"), ("writes", "writes in those periods"),
               ("rss_mib", "resident memory before the kill, leader / standby (MiB)", {"digits": 1})]
    return [render.table("failover", None, ["n", "namespaces", "controller"], columns, rows)]


def table(results):
    ctrls = results["controllers"]
    lines = [f"N = {results['n']} HPAs over {results['namespaces']} namespaces; leader SIGKILLed; default lease timings",
             "", "| | " + " | ".join(ctrls) + " |", "| --- |" + " ---: |" * len(ctrls)]

    def row(label, fn):
        lines.append(f"| {label} | " + " | ".join(fn(r) for r in ctrls.values()) + " |")

    row("Lease taken, seconds after the kill", lambda r: f"{r['takenAfterKill']:.1f}")
    row("every HPA reconciled, seconds after the Lease was taken",
        lambda r: "—" if r["allReconciled"] is None else f"{r['allReconciled']:.1f}")
    row("new leader's requests in its first two sync periods (lists)",
        lambda r: f"{r['firstTwoPeriods']['requests']} ({r['firstTwoPeriods']['lists']})")
    row("... of which writes (HPA / scale)",
        lambda r: f"{r['firstTwoPeriods']['writes']} ({r['firstTwoPeriods']['hpaWrites']} / {r['firstTwoPeriods']['scaleWrites']})")
    row("resident memory before the kill, leader / standby (MiB)",
        lambda r: f"{r['rssMiB']['leader']:.1f} / {r['rssMiB']['standby']:.1f}")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=200, help="HPAs")
    p.add_argument("--namespaces", type=int, default=10)
    p.add_argument("--settle", type=int, default=45, help="seconds between the last first status and the kill")
    p.add_argument("--cold-timeout", type=int, default=900)
    p.add_argument("--reconcile-timeout", type=int, default=400)
    scale_bench.add_controller_arguments(p)
    scale_bench.run_to_completion(Failover(scale_bench.parse_controller_arguments(p)))


if __name__ == "__main__":
    main()
