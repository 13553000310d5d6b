#!/usr/bin/env python3
"""make bench-shadow: hpa-controller in shadow mode beside kube-controller-manager's HPA
controller on the local cluster, counting how often the two decide alike (bench/README.md).

kube-controller-manager (HPA controller only, 1.20.2) scales; hpa-controller --shadow decides
beside it and writes nothing. Deployments are played by hpa-sim, which serves the metrics as
samples taken every --metric-resolution (15s, metrics-server's; --quick: every read live). At the
end: the comparisons from the shadow's /metrics (by result, by cause when the shadow gives one,
and on HPAs with and without `behavior`), each divergence's log line, and the shadow user's writes
from the audit log (only its Lease may be written).

Steps (the default): 20 HPAs (CPU utilization, a Pods metric, an External metric; half of each
with `behavior`), every load jumping to a random size every minute for 10 minutes.

--day: 100 HPAs (a third each on CPU, Pods and External metrics; a third with `behavior`) whose
loads follow a day compressed into --minutes (30): a smooth daily curve with noise, a few spikes
and drops, each workload changing at its own times every 1 to 5 minutes (day_load.py). The plan is
kept in day-load.tsv.

--quick (the e2e test): 3 CPU HPAs for about two minutes, both controllers with a 20 s downscale
window, kube-controller-manager given a tolerance of 0.5 where the shadow keeps 0.1: a load 30 %
above target is within kube-controller-manager's tolerance and not within ours, so that HPA must
be reported as a divergence with the cause `rules` (once the shadow has followed a window), the
others as agreements and never `rules`; the shadow must write nothing but its Lease.

Exits 1 when a check fails: the shadow wrote besides its Lease; steps and --day also when the
agreement is below --min-agreement (99 %, --day 99.5 %) or more comparisons than --max-rules (0)
have the cause `rules`. Steps and --day record their figures in bench/results/shadow.json
(--results); --quick records nothing.
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scale"))
import audit  # noqa: E402
from report import render  # noqa: E402
from kube import Kube, user_kubeconfig  # noqa: E402
from scale_bench import daemon_environment, free_port, log  # noqa: E402
from day_load import day_steps  # noqa: E402
from tally import Tally  # noqa: E402
from workloads import CPU_REQUEST_MILLI, Workload, day_fleet, step_fleet  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
USERS = {"shadow": "bench-shadow", "kcm": "bench-kcm-hpa"}
HPA_API = "/apis/autoscaling/v2beta2"
MEASURES = ("How often hpa-controller --shadow decides what kube-controller-manager 1.20.2 decides beside it "
            "(desired replicas and conditions at each of its status writes), why they differ, and that the "
            "shadow writes nothing but its Lease.")


class Run:
    def __init__(self, args):
        self.a = args
        self.dir = os.path.abspath(args.dir)
        self.cluster = os.path.join(self.dir, "cluster")
        self.ns = "shadow-bench"
        self.procs = {}
        if args.quick:
            self.workloads = [Workload(f"w{i}", "cpu") for i in range(3)]
        elif args.day:
            self.workloads = day_fleet(random.Random(args.seed))
            self.day = day_steps(args.seed, args.minutes * 60, self.workloads)
            starting = {s.workload: s.load for s in self.day if s.at == 0}
            for w in self.workloads:
                w.start_at(starting[w.name])
        else:
            self.workloads = step_fleet()

    # ------------------------------------------------------------------ processes
    def start(self, name, argv, stdout=None):
        logf = open(os.path.join(self.dir, f"{name}.log"), "wb")
        self.procs[name] = subprocess.Popen(argv, stdout=stdout or logf, stderr=logf, stdin=subprocess.DEVNULL)
        return self.procs[name]

    def stop_all(self):
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        subprocess.run([os.path.join(ROOT, "hack", "local-cluster.sh"), "down", "--dir", self.cluster],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    # ------------------------------------------------------------------ cluster
    def cluster_up(self):
        policy = os.path.join(self.dir, "audit-policy.yaml")
        with open(policy, "w") as f:
            f.write("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n"
                    f"- level: Metadata\n  users: [{', '.join(USERS.values())}]\n- level: None\n")
        self.audit_log = os.path.join(self.cluster, "logs", "audit.log")
        argv = [os.path.join(ROOT, "hack", "local-cluster.sh"), "up", "--dir", self.cluster, "--controller-manager",
                "--apiserver-arg", f"--audit-policy-file={policy}", "--apiserver-arg", f"--audit-log-path={self.audit_log}"]
        with open(os.path.join(self.dir, "cluster-up.log"), "w") as out:
            if subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
                sys.exit(f"bench-shadow: the local cluster did not start; see {self.dir}/cluster-up.log")
        self.env = {}
        for line in open(os.path.join(self.cluster, "env")):
            if "=" in line and not line.startswith("#"):
                k, v = line.rstrip("\n").split("=", 1)
                self.env[k] = v
        self.kube = Kube(self.env["APISERVER_URL"], self.env["CA_CERT"], self.env["ADMIN_CERT"], self.env["ADMIN_KEY"])
        self.kubeconfigs = {who: user_kubeconfig(ROOT, self.env, self.dir, user) for who, user in USERS.items()}

    # ------------------------------------------------------------------ workloads
    def start_sim(self):
        scenario = os.path.join(self.dir, "scenario.yaml")
        with open(scenario, "w") as f:
            f.write("workloads:\n")
            for w in self.workloads:
                cpu = w.initial["cpu"] if w.metric == "cpu" else "10m"
                f.write(f"- {{name: {w.name}, namespace: {self.ns}, selector: app={w.name}, cpu: {cpu}}}\n")
            pods = [w for w in self.workloads if w.metric == "pods"]
            if pods:
                f.write("podMetrics:\n")
                for w in pods:
                    f.write(f"- {{workload: {w.name}, metric: http_requests, total: \"{w.initial['value']}\"}}\n")
            external = [w for w in self.workloads if w.metric == "external"]
            if external:
                f.write("externalMetrics:\n")
                for w in external:
                    f.write(f"- {{namespace: {self.ns}, metric: queue_{w.name}, value: \"{w.initial['value']}\"}}\n")
        self.control_port = free_port()
        out = open(os.path.join(self.dir, "hpa-sim.out"), "wb")
        self.start("hpa-sim", [self.a.sim, "--kubeconfig", self.env["ADMIN_KUBECONFIG"], "--namespace", self.ns,
                               "--scenario", scenario, "--metrics-port", str(free_port()),
                               "--control-port", str(self.control_port), "--readiness-delay", "5s",
                               "--metric-resolution", self.a.metric_resolution,
                               "--serving-cert", self.env["BACKEND_SERVING_CERT"],
                               "--serving-key", self.env["BACKEND_SERVING_KEY"],
                               "--client-ca", self.env["FRONT_PROXY_CA_CERT"]], stdout=out)
        deadline = time.time() + 60
        while b"metrics-port=" not in open(os.path.join(self.dir, "hpa-sim.out"), "rb").read():
            if self.procs["hpa-sim"].poll() is not None or time.time() > deadline:
                sys.exit(f"bench-shadow: hpa-sim did not start; see {self.dir}/hpa-sim.log")
            time.sleep(0.2)

    def sim_set(self, changes):
        req = urllib.request.Request(f"http://127.0.0.1:{self.control_port}/set", data=json.dumps(changes).encode(),
                                     method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            r.read()

    def create_objects(self):
        self.kube.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.ns}})
        deadline = time.time() + 60
        while not self.kube.get(f"/api/v1/namespaces/{self.ns}/serviceaccounts/default", ok=(200, 404)).get("secrets"):
            if time.time() > deadline:
                sys.exit("bench-shadow: no default ServiceAccount token")
            time.sleep(0.2)
        for w in self.workloads:
            labels = {"app": w.name}
            self.kube.request("POST", f"/apis/apps/v1/namespaces/{self.ns}/deployments", {
                "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": w.name, "namespace": self.ns},
                "spec": {"replicas": w.replicas, "selector": {"matchLabels": labels},
                         "template": {"metadata": {"labels": labels},
                                      "spec": {"containers": [{"name": "app", "image": "example/shadow",
                                                               "resources": {"requests": {"cpu": f"{CPU_REQUEST_MILLI}m"}}}]}}}})
            self.kube.request("POST", f"{HPA_API}/namespaces/{self.ns}/horizontalpodautoscalers", {
                "apiVersion": "autoscaling/v2beta2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": w.name, "namespace": self.ns}, "spec": w.hpa_spec()})

    # ------------------------------------------------------------------ controllers
    def start_controllers(self):
        k8s = self.env["K8S_BIN_DIR"]
        kcm = [os.path.join(k8s, "kube-controller-manager"), "--kubeconfig", self.kubeconfigs["kcm"],
               "--controllers=horizontalpodautoscaling", "--leader-elect=false", "--port=0", "--secure-port=0",
               "--use-service-account-credentials=false", "--profiling=false", "--v=2"]
        if self.a.kcm_tolerance is not None:
            kcm.append(f"--horizontal-pod-autoscaler-tolerance={self.a.kcm_tolerance}")
        both = [f"--horizontal-pod-autoscaler-downscale-stabilization={self.a.downscale_stabilization}"] \
            if self.a.downscale_stabilization else []
        kcm += both
        self.start("kube-controller-manager", kcm)
        self.shadow_port = free_port()
        env = daemon_environment()  # the allocator tuned as the image and the Deployment tune it
        logf = open(os.path.join(self.dir, "hpa-controller.log"), "wb")
        self.procs["hpa-controller"] = subprocess.Popen(
            [self.a.controller, "--shadow", "--kubeconfig", self.kubeconfigs["shadow"], "--namespace", self.ns,
             "--leader-elect-resource-namespace", "default", "--address", "127.0.0.1", "--port", str(self.shadow_port),
             "--secure-port=0", "-v", "2"] + both + self.a.shadow_flags.split(), stdout=logf, stderr=logf, stdin=subprocess.DEVNULL, env=env)

    def require_running(self):
        """A process that ended during the run makes its figures meaningless: say which, and how."""
        for name, p in self.procs.items():
            if p.poll() is not None:
                how = f"signal {-p.returncode}" if p.returncode < 0 else f"exit code {p.returncode}"
                sys.exit(f"bench-shadow: {name} ended during the run ({how}); see {self.dir}/{name}.log")

    def scrape(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.shadow_port}/metrics", timeout=10) as r:
            return Tally.parse(r.read().decode())

    # ------------------------------------------------------------------ run
    def drive_load(self, minutes):
        rng = random.Random(self.a.seed)
        for minute in range(minutes):
            changes = [w.load_for(rng.randint(1, 10)) for w in self.workloads]
            self.sim_set(changes)
            log(f"minute {minute + 1}/{minutes}: load changed on {len(changes)} workloads")
            time.sleep(self.a.step)

    def drive_day(self):
        """Plays the day's changes at their instants, from now; returns at the day's end."""
        seconds = self.a.minutes * 60
        batches = {}
        for step in self.day:
            if step.at > 0:
                batches.setdefault(step.at, []).append(step.change)
        start, played, minute = time.time(), 0, 0
        for at in sorted(batches):
            time.sleep(max(0.0, start + at - time.time()))
            self.sim_set(batches[at])
            played += len(batches[at])
            if at // 60 > minute:
                minute = at // 60
                log(f"minute {minute}/{self.a.minutes} ({day_clock(at, seconds)} of the day): {played} load changes so far")
        time.sleep(max(0.0, start + seconds - time.time()))
        log(f"day over: {played} load changes on {len(self.workloads)} workloads")

    def write_day_plan(self):
        with open(os.path.join(self.dir, "day-load.tsv"), "w") as f:
            f.write("seconds\tday\tworkload\tmetric\tbehavior\tload\tchange\n")
            kinds = {w.name: (w.metric, "yes" if w.behavior else "no") for w in self.workloads}
            for s in self.day:
                f.write(f"{s.at}\t{day_clock(s.at, self.a.minutes * 60)}\t{s.workload}\t"
                        f"{kinds[s.workload][0]}\t{kinds[s.workload][1]}\t{s.load:.3f}\t{json.dumps(s.change)}\n")

    def quick_load(self):
        # w0 and w1: far beyond either tolerance (both scale); w2: 30 % above target, within
        # kube-controller-manager's tolerance of 0.5 but not within ours of 0.1.
        # w2 moves again once the shadow has followed both controllers' 20 s window, so that
        # its divergence can no longer be the shadow's first window (warmup) and must be rules.
        time.sleep(20)
        self.sim_set([{"workload": "w0", "cpu": "300m"}, {"workload": "w1", "cpu": "30m"},
                      {"workload": "w2", "cpu": "130m"}])
        log("quick: load changed (w0 x3, w1 x0.3, w2 x1.3)")
        time.sleep(30)
        self.sim_set([{"workload": "w2", "cpu": "135m"}])
        log("quick: load changed (w2 x1.35)")
        time.sleep(max(self.a.step - 30, 30))

    def shadow_writes(self):
        requests = audit.load(self.audit_log, {USERS["shadow"]})[USERS["shadow"]]
        if not requests:
            sys.exit("bench-shadow: the audit log holds no request of the shadow's user: nothing to count writes from")
        writes = [r for r in requests if r[1] in audit.WRITES]
        return [r for r in writes if not r[2].startswith("leases")], len(writes)

    def run(self):
        os.makedirs(self.dir, exist_ok=True)
        try:
            log(f"bench-shadow: {self.mode()}, {len(self.workloads)} HPAs; results in {self.dir}")
            if self.a.day:
                self.write_day_plan()
            self.cluster_up()
            self.start_sim()
            self.create_objects()
            self.start_controllers()
            if self.a.quick:
                self.quick_load()
            elif self.a.day:
                self.drive_day()
            else:
                self.drive_load(self.a.minutes)
            self.require_running()
            tally = self.scrape()
            other_writes, all_writes = self.shadow_writes()
        finally:
            self.stop_all()
        return self.report(tally, other_writes, all_writes)

    def mode(self):
        return "quick" if self.a.quick else f"day, {self.a.minutes} minutes" if self.a.day else f"steps, {self.a.minutes} minutes"

    def report(self, tally, other_writes, all_writes):
        with_behavior = {w.name for w in self.workloads if w.behavior is not None}
        lines = tally.lines(with_behavior)
        lines.append(f"shadow writes: {len(other_writes)} outside its Lease ({all_writes} in all)")
        log_lines = [l for l in open(os.path.join(self.dir, "hpa-controller.log"), errors="replace") if "shadow divergence" in l]
        with open(os.path.join(self.dir, "divergences.log"), "w") as f:
            f.writelines(log_lines)
        lines.append(f"divergence log lines: {len(log_lines)} (in {self.dir}/divergences.log)")
        logged = sum(self.kcm_status_updates_logged().values())
        lines.append(f"kube-controller-manager logged {logged} status updates; the shadow compares those that changed "
                     "the object (an update identical to the stored object stores nothing and sends no watch event)")
        print("\n".join(lines))
        results = dict(mode=self.mode(), seed=self.a.seed, hpas=len(self.workloads), **tally.as_json(with_behavior),
                       writesOutsideLease=len(other_writes), writes=all_writes, kcmStatusUpdatesLogged=logged)
        with open(os.path.join(self.dir, "results.json"), "w") as f:
            json.dump(results, f, indent=1)
        if not self.a.quick:
            render.record("shadow", results_tables(results, self.a.shadow_flags), render.run_info(), MEASURES,
                          render.results_directory(self.a.results))
        failures = [f"the shadow wrote: {other_writes[:5]}"] if other_writes else []
        failures += self.quick_failures(tally, log_lines) if self.a.quick else self.run_failures(tally)
        for f in failures:
            print(f"FAIL: {f}")
        return 1 if failures else 0

    def kcm_status_updates_logged(self):
        """{HPA name: "Successfully updated status" lines kube-controller-manager logged}."""
        names = {w.name for w in self.workloads}
        written = {n: 0 for n in names}
        pattern = re.compile(r"Successfully updated status for (\S+)")
        for line in open(os.path.join(self.dir, "kube-controller-manager.log"), errors="replace"):
            m = pattern.search(line)
            if m and m.group(1) in written:
                written[m.group(1)] += 1
        return written

    def quick_failures(self, tally, log_lines):
        failures = []
        if tally.count(name="w2", result="diverge") < 1:
            failures.append("w2's decision (within kube-controller-manager's tolerance only) was not reported as a divergence")
        if not any("w2" in l and "desiredReplicas" in l for l in log_lines):
            failures.append("no log line for w2's divergence in desired replicas")
        for name in ("w0", "w1"):
            if tally.count(name=name, result="agree") < 1:
                failures.append(f"{name}: no agreement counted")
        if tally.by_cause() is not None:
            if tally.count(name="w2", cause="rules") < 1:
                failures.append("w2's divergence (another tolerance) was never given the cause rules")
            if not any("HPA=shadow-bench/w2 cause=rules" in l for l in log_lines):
                failures.append("no log line for w2 with cause=rules")
            for name in ("w0", "w1"):
                if tally.count(name=name, cause="rules"):
                    failures.append(f"{name}: {tally.count(name=name, cause='rules')} comparisons with cause rules")
        return failures

    def run_failures(self, tally):
        failures = []
        agreement = tally.agreement()
        if agreement is None or agreement < self.a.min_agreement:
            failures.append(f"agreement below {self.a.min_agreement} %")
        causes = tally.by_cause()
        if causes is not None and causes["rules"] > self.a.max_rules:
            failures.append(f"{causes['rules']} comparisons with cause rules (at most {self.a.max_rules}): "
                            "a difference of rules, not of timing")
        return failures


def results_tables(results, shadow_flags=""):
    """bench/results/shadow.json's row for one run (results as the run's results.json holds them)."""
    causes = results["byCause"] or {}
    workload = f"{results['mode']}, {results['hpas']} HPAs, seed {results['seed']}" + \
        (f", --shadow-flags {shadow_flags}" if shadow_flags else "")
    row = {"workload": workload, "comparisons": results["comparisons"], "agree": results["agree"],
           "agreement": results["agreementPercent"], **{c: causes.get(c) for c in ("inputs", "history", "warmup", "rules")},
           "divergences": [results["divergencesWithoutBehavior"], results["divergencesWithBehavior"]],
           "other_writes": results["writesOutsideLease"], "lease_writes": results["writes"] - results["writesOutsideLease"],
           "kcm_status_updates_logged": results["kcmStatusUpdatesLogged"]}
    columns = [("workload", "load"), ("comparisons", "comparisons"), ("agree", "agree"),
               ("agreement", "agreement (%)", {"digits": 2}), ("inputs", "inputs"), ("history", "history"),
               ("warmup", "warmup"), ("rules", "rules"),
               ("divergences", "divergences on HPAs without / with behavior"),
               ("other_writes", "shadow's writes besides its Lease"), ("lease_writes", "its Lease writes")]
    return [render.table("shadow", None, ["workload"], columns, [row])]


def day_clock(at, seconds):
    """The time of the compressed day `at` seconds into a run of `seconds`, as HH:MM."""
    minutes = int(24 * 60 * at / seconds)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--controller", default=os.path.join(ROOT, "build", "cmd", "hpa-controller", "hpa-controller"))
    p.add_argument("--sim", default=os.path.join(ROOT, "build", "cmd", "hpa-sim", "hpa-sim"))
    p.add_argument("--dir", default=os.path.join(ROOT, "build", "bench-shadow"))
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the e2e variant (see above)")
    mode.add_argument("--day", action="store_true", help="100 HPAs through a compressed day (see above)")
    p.add_argument("--minutes", type=int, help="the run's length (default 10; --day: 30, the whole day)")
    p.add_argument("--step", type=float, default=60, help="seconds between load changes (not --day)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--metric-resolution",
                   help="hpa-sim's --metric-resolution: how often metrics are sampled, every read in between "
                        "seeing the same sample (default 15s, metrics-server's; --quick: 0s, every change seen at once)")
    p.add_argument("--kcm-tolerance", type=float, help="kube-controller-manager's --horizontal-pod-autoscaler-tolerance")
    p.add_argument("--downscale-stabilization",
                   help="both controllers' --horizontal-pod-autoscaler-downscale-stabilization (default theirs; --quick: 20s)")
    p.add_argument("--min-agreement", type=float, help="percent (default 99; --day: 99.5)")
    p.add_argument("--max-rules", type=int, default=0,
                   help="comparisons with cause rules allowed (not --quick; not checked when the shadow reports no cause)")
    render.add_argument(p)
    p.add_argument("--shadow-flags", default="",
                   help="more flags for hpa-controller --shadow (default none: the shadow reads the API server's "
                        "release, 1.20, and decides by kube-controller-manager 1.20's rules)")
    a = p.parse_args()
    if a.quick and a.kcm_tolerance is None:
        a.kcm_tolerance = 0.5
    if a.metric_resolution is None:
        a.metric_resolution = "0s" if a.quick else "15s"
    if a.quick and a.downscale_stabilization is None:
        a.downscale_stabilization = "20s"
    if a.minutes is None:
        a.minutes = 30 if a.day else 10
    if a.min_agreement is None:
        a.min_agreement = 99.5 if a.day else 99.0
    if a.minutes < 1:
        p.error("--minutes must be at least 1")
    if os.path.exists(a.dir):
        shutil.rmtree(a.dir)
    sys.exit(Run(a).run())


if __name__ == "__main__":
    main()
