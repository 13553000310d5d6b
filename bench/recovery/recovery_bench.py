#!/usr/bin/env python3
"""make bench-recovery: how soon hpa-controller and kube-controller-manager's HPA controller act on
a load step once kube-apiserver is back, after a plain restart and after an etcd compaction and a
restart (see bench/README.md).

One local cluster, N HPAs of 1 pod (cpu utilization, at target), hpa-sim for the metrics. Each
controller in turn, alone, with --horizontal-pod-autoscaler-sync-period=SYNC and its other flags
at their defaults. Per scenario, TRIALS times: (compaction: etcd compacted at its current revision,
so every watch must relist) kube-apiserver stopped, started again DOWN seconds later; the moment its
/readyz answers ok, the load of K workloads not stepped before is tripled; the wait of each is the
time from that /readyz until its Deployment's spec.replicas changes (polled every 50 ms). For
hpa-controller, it also takes the time from /readyz until its reconcile counter has grown by N
(every HPA reconciled again, if none twice).

Prints a table, writes DIR/recovery.json and records the figures in bench/results/recovery.json
(--results). Everything it starts is stopped on exit.
"""
import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scale"))
import scale_bench  # noqa: E402
from report import render  # noqa: E402
from scale_bench import ROOT, Bench, free_port, log  # noqa: E402

SCENARIOS = ("restart", "compaction")
MEASURES = ("How soon each controller acts on a load step once kube-apiserver is back (/readyz), after a "
            "plain restart and after an etcd compaction and a restart, and how soon hpa-controller has "
            "reconciled every HPA again.")


class Recovery(Bench):
    def __init__(self, args):
        self.one_pod_workloads(args, workload_qps=100, sim_qps=100)
        super().__init__(args)
        self.use_directory(os.path.join(ROOT, "build", "bench-recovery", f"n{args.n}"))
        self.lc = os.path.join(ROOT, "hack", "local-cluster.sh")
        self.fresh = list(self.workloads)  # workloads never stepped, taken K at a time

    # ------------------------------------------------------------ the apiserver
    def readyz(self):
        conn = http.client.HTTPSConnection(self.kube.host, self.kube.port, context=self.kube.context, timeout=1)
        try:
            conn.request("GET", "/readyz")
            r = conn.getresponse()
            return r.status == 200 and r.read().strip() == b"ok"
        except (OSError, http.client.HTTPException):
            return False
        finally:
            conn.close()

    def bounce_apiserver(self, compact):
        """Stops kube-apiserver (after compacting etcd) and starts it again; returns the time
        /readyz first answered ok and the seconds the server was away."""
        if compact:
            subprocess.run([self.lc, "compact", "--dir", self.cluster], check=True, stdout=subprocess.DEVNULL)
        t_stop = time.time()
        subprocess.run([self.lc, "stop-apiserver", "--dir", self.cluster], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(self.a.down)
        starter = subprocess.Popen([self.lc, "start-apiserver", "--dir", self.cluster],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not self.readyz():
            if starter.poll() not in (None, 0):
                sys.exit("bench-recovery: kube-apiserver did not start again")
            time.sleep(0.02)
        t_ready = time.time()
        starter.wait()
        return t_ready, t_ready - t_stop

    # ------------------------------------------------------------ controllers
    def controller_argv(self, controller, port):
        sync = f"--horizontal-pod-autoscaler-sync-period={self.a.sync}s"
        if controller == "hpa-controller":
            return [self.a.controller, "--kubeconfig", self.kubeconfigs[controller], "--leader-elect=false",
                    "--address", "127.0.0.1", "--port", str(port), "--secure-port=0", sync, "-v", "2"] + \
                self.a.controller_args.split()
        return [os.path.join(self.env["K8S_BIN_DIR"], "kube-controller-manager"), "--kubeconfig",
                self.kubeconfigs[controller], "--controllers=horizontalpodautoscaling", "--leader-elect=false",
                "--port=0", "--secure-port=0", "--use-service-account-credentials=false", "--profiling=false",
                "--v=2", sync]

    def replicas_of(self, w):
        name, ns = w
        try:
            return self.kube.get(f"/apis/apps/v1/namespaces/{ns}/deployments/{name}")["spec"].get("replicas", 1)
        except Exception:  # the apiserver is still settling: the next poll sees it
            return None

    def watch_reconciles(self, port, t_ready, out):
        """For hpa-controller: seconds from /readyz until N more reconciles were counted."""
        start = self.scrape(port)
        while time.time() - t_ready < self.a.step_timeout:
            now = self.scrape(port)
            if start is not None and now is not None and now - start >= self.a.n:
                out["allReconciled"] = round(time.time() - t_ready, 2)
                return
            if start is None:
                start = now
            time.sleep(0.05)

    def scrape(self, port):
        try:
            return self.scrape_reconciles(port)
        except Exception:
            return None

    def trial(self, controller, port, scenario):
        stepped = [self.fresh.pop() for _ in range(self.a.k)]
        before = {w: self.replicas_of(w) for w in stepped}
        t_ready, away = self.bounce_apiserver(scenario == "compaction")
        result = {"awaySeconds": round(away, 2)}
        counter = None
        if controller == "hpa-controller":
            counter = threading.Thread(target=self.watch_reconciles, args=(port, t_ready, result), daemon=True)
            counter.start()
        self.set_load({name: self.loads[name] * 3 for name, _ in stepped})
        waits = {}
        while len(waits) < len(stepped) and time.time() - t_ready < self.a.step_timeout:
            for w in stepped:
                if w not in waits:
                    r = self.replicas_of(w)
                    if r is not None and r != before[w]:
                        waits[w] = time.time() - t_ready
            time.sleep(0.05)
        result["waits"] = [round(waits[w], 2) if w in waits else None for w in stepped]
        if counter:
            counter.join(self.a.step_timeout)
        log(f"{controller}: {scenario}: away {away:.1f}s; acted {result['waits']} s after /readyz"
            + (f"; every HPA reconciled {result.get('allReconciled')} s after" if counter else ""))
        time.sleep(self.a.sync * 2)  # the next trial starts from a quiet controller
        return result

    def run_controller(self, controller):
        port = free_port()
        env = scale_bench.daemon_environment() if controller == "hpa-controller" else None
        log(f"{controller}: starting")
        proc = self.procs.start(controller, self.controller_argv(controller, port), env=env)
        t0 = time.time()
        while sum(1 for t in self.obs.status_times().values() if t is not None) < self.a.n:
            if proc.poll() is not None or time.time() - t0 > 600:
                sys.exit(f"bench-recovery: {controller} did not give every HPA a status; see {self.dir}/{controller}.log")
            time.sleep(0.5)
        time.sleep(3 * self.a.sync)
        res = {}
        for scenario in SCENARIOS:
            res[scenario] = [self.trial(controller, port, scenario) for _ in range(self.a.trials)]
        res["exitCode"] = self.procs.stop(controller)
        return res

    def run(self):
        a = self.a
        if a.k * a.trials * len(SCENARIOS) * len(a.controllers) > a.n:
            sys.exit(f"bench-recovery: --n must be at least K x TRIALS x {len(SCENARIOS)} x controllers")
        self.prepare_dir()
        log(f"bench-recovery: N={a.n}, sync {a.sync}s, {a.trials} trials of {a.k} workloads per scenario; {self.dir}")
        self.cluster_with_workloads()
        self.parallel(self.create_hpa, self.workloads)
        while self.obs.hpa_count() < a.n:
            time.sleep(0.5)
        time.sleep(scale_bench.METRICS_SETTLE_SECONDS)
        results = {"n": a.n, "namespaces": a.namespaces, "sync": a.sync, "down": a.down, "k": a.k, "trials": a.trials,
                   "controllers": {},
                   "commit": subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                                            capture_output=True, text=True).stdout.strip()}
        for controller in a.controllers:
            results["controllers"][controller] = self.run_controller(controller)
        with open(os.path.join(self.dir, "recovery.json"), "w") as f:
            json.dump(results, f, indent=1)
        print(table(results))
        render.record("recovery", results_tables(results), render.run_info(), MEASURES,
                      render.results_directory(a.results))


def results_tables(results):
    """bench/results/recovery.json's rows, one per controller: per scenario, the waits' mean /
    median / max and (hpa-controller) the range of 'every HPA reconciled again' over the trials."""
    rows = []
    for controller, res in results["controllers"].items():
        row = {"n": results["n"], "namespaces": results.get("namespaces"), "sync": results["sync"],
               "trials": results["trials"], "k": results["k"], "controller": controller, "never": 0}
        for scenario in SCENARIOS:
            waits = [w for t in res[scenario] for w in t["waits"]]
            got = [w for w in waits if w is not None]
            again = [t["allReconciled"] for t in res[scenario] if t.get("allReconciled") is not None]
            row[f"{scenario}_s"] = [statistics.mean(got), statistics.median(got), max(got)] if got else None
            row[f"{scenario}_again_s"] = [min(again), max(again)] if again else None
            row[f"{scenario}_waits"] = waits
            row["never"] += len(waits) - len(got)
        rows.append(row)
    columns = [("n", "N"), ("namespaces", "namespaces"), ("sync", "sync period (s)"), ("trials", "trials"),
               ("k", "workloads stepped per trial"), ("controller", "controller"),
               ("restart_s", "restart: load step acted on, mean / median / max (s)", {"digits": 1}),
               ("compaction_s", "compaction + restart: acted on, mean / median / max (s)", {"digits": 1}),
               ("never", "steps never acted on"),
               ("restart_again_s", "restart: every HPA reconciled again, min / max (s)", {"digits": 1}),
               ("compaction_again_s", "compaction + restart: every HPA reconciled again, min / max (s)",
                {"digits": 1})]
    return [render.table("recovery", None, ["n", "namespaces", "sync", "controller"], columns, rows)]


def table(results):
    lines = [f"N = {results['n']}, sync period {results['sync']} s, apiserver away {results['down']} s + its start;"
             f" {results['trials']} trials x {results['k']} workloads per cell",
             "", "| seconds from /readyz | " + " | ".join(results["controllers"]) + " |",
             "| --- |" + " ---: |" * len(results["controllers"])]
    for scenario in SCENARIOS:
        row = []
        for res in results["controllers"].values():
            waits = [w for t in res[scenario] for w in t["waits"]]
            got = [w for w in waits if w is not None]
            if not got:
                row.append("none acted")
                continue
            cell = f"{statistics.mean(got):.1f} / {statistics.median(got):.1f} / {max(got):.1f}"
            if len(got) < len(waits):
                cell += f" ({len(waits) - len(got)} never)"
            row.append(cell)
        lines.append(f"| {scenario}: load step acted on, mean / median / max | " + " | ".join(row) + " |")
        alls = [[t.get("allReconciled") for t in res[scenario]] for res in results["controllers"].values()]
        if any(any(x is not None for x in a) for a in alls):
            lines.append(f"| {scenario}: every HPA reconciled again, per trial | "
                         + " | ".join(", ".join("—" if x is None else f"{x:.1f}" for x in a) if any(a) else "—"
                                      for a in alls) + " |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=60, help="HPAs (at least K x TRIALS x 2 x controllers)")
    p.add_argument("--namespaces", type=int, default=2)
    p.add_argument("--sync", type=int, default=5, help="--horizontal-pod-autoscaler-sync-period (s)")
    p.add_argument("--down", type=float, default=2, help="seconds kube-apiserver stays stopped")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--k", type=int, default=3, help="workloads stepped per trial")
    p.add_argument("--step-timeout", type=float, default=120)
    scale_bench.add_controller_arguments(p)
    scale_bench.run_to_completion(Recovery(scale_bench.parse_controller_arguments(p)))


if __name__ == "__main__":
    main()
