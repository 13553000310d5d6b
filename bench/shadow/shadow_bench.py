#!/usr/bin/env python3
"""make bench-shadow: hpa-controller in shadow mode beside kube-controller-manager's HPA
controller on the local cluster, counting how often the two decide alike (bench/README.md).

Full run: 20 HPAs (CPU utilization, a Pods metric, an External metric; half of each with
`behavior`) on Deployments played by hpa-sim, a load that changes every minute for 10 minutes.
kube-controller-manager (HPA controller only, 1.20.2) scales; hpa-controller --shadow decides
beside it and writes nothing. At the end: the comparisons and divergences from the shadow's
/metrics, each divergence's log line, and the shadow user's writes from the audit log (only its
Lease may be written).

--quick (the e2e test): 3 CPU HPAs for about two minutes, kube-controller-manager given a
tolerance of 0.5 where the shadow keeps 0.1: a load 30 % above target is within
kube-controller-manager's tolerance and not within ours, so that HPA must be reported as a
divergence, the others as agreements; the shadow must write nothing but its Lease.
Exits 1 when a check fails (and --min-agreement for the full run).
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
from kube import Kube, user_kubeconfig  # noqa: E402
from scale_bench import daemon_environment, free_port, log  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
USERS = {"shadow": "bench-shadow", "kcm": "bench-kcm-hpa"}
HPA_API = "/apis/autoscaling/v2beta2"
CPU_REQUEST_MILLI = 100


class Workload:
    """One Deployment and its HPA: the metric it scales on and the load that drives it."""

    def __init__(self, name, metric, behavior):
        self.name, self.metric, self.behavior = name, metric, behavior

    def metric_spec(self):
        if self.metric == "cpu":
            return {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}
        if self.metric == "pods":
            return {"type": "Pods", "pods": {"metric": {"name": "http_requests"},
                                              "target": {"type": "AverageValue", "averageValue": "10"}}}
        return {"type": "External", "external": {"metric": {"name": f"queue_{self.name}"},
                                                  "target": {"type": "AverageValue", "averageValue": "5"}}}

    def load_for(self, replicas):
        """The sim change that asks for about `replicas` replicas (a little off-target, as real load is)."""
        if self.metric == "cpu":
            return {"workload": self.name, "cpu": f"{int(replicas * CPU_REQUEST_MILLI * 0.5 * 0.97)}m"}
        if self.metric == "pods":
            return {"workload": self.name, "podMetric": "http_requests", "value": str(int(replicas * 10 * 0.97))}
        return {"external": f"queue_{self.name}", "value": str(int(replicas * 5 * 0.97))}


class Run:
    def __init__(self, args):
        self.a = args
        self.dir = os.path.abspath(args.dir)
        self.cluster = os.path.join(self.dir, "cluster")
        self.ns = "shadow-bench"
        self.procs = {}
        if args.quick:
            self.workloads = [Workload(f"w{i}", "cpu", False) for i in range(3)]
        else:
            kinds = ["cpu"] * 8 + ["pods"] * 6 + ["external"] * 6
            self.workloads = [Workload(f"w{i}", kind, i % 2 == 1) for i, kind in enumerate(kinds)]

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
                cpu = w.load_for(2)["cpu"] if w.metric == "cpu" else "10m"
                f.write(f"- {{name: {w.name}, namespace: {self.ns}, selector: app={w.name}, cpu: {cpu}}}\n")
            pods = [w for w in self.workloads if w.metric == "pods"]
            if pods:
                f.write("podMetrics:\n")
                for w in pods:
                    f.write(f"- {{workload: {w.name}, metric: http_requests, total: \"{w.load_for(2)['value']}\"}}\n")
            external = [w for w in self.workloads if w.metric == "external"]
            if external:
                f.write("externalMetrics:\n")
                for w in external:
                    f.write(f"- {{namespace: {self.ns}, metric: queue_{w.name}, value: \"{w.load_for(2)['value']}\"}}\n")
        self.control_port = free_port()
        out = open(os.path.join(self.dir, "hpa-sim.out"), "wb")
        self.start("hpa-sim", [self.a.sim, "--kubeconfig", self.env["ADMIN_KUBECONFIG"], "--namespace", self.ns,
                               "--scenario", scenario, "--metrics-port", str(free_port()),
                               "--control-port", str(self.control_port), "--readiness-delay", "5s",
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
                "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                         "template": {"metadata": {"labels": labels},
                                      "spec": {"containers": [{"name": "app", "image": "example/shadow",
                                                               "resources": {"requests": {"cpu": f"{CPU_REQUEST_MILLI}m"}}}]}}}})
            spec = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": w.name},
                    "minReplicas": 1, "maxReplicas": 10, "metrics": [w.metric_spec()]}
            if w.behavior:
                spec["behavior"] = {"scaleUp": {"stabilizationWindowSeconds": 30,
                                                "policies": [{"type": "Pods", "value": 2, "periodSeconds": 30}]},
                                    "scaleDown": {"stabilizationWindowSeconds": 60,
                                                  "policies": [{"type": "Percent", "value": 50, "periodSeconds": 30}]}}
            self.kube.request("POST", f"{HPA_API}/namespaces/{self.ns}/horizontalpodautoscalers", {
                "apiVersion": "autoscaling/v2beta2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": w.name, "namespace": self.ns}, "spec": spec})

    # ------------------------------------------------------------------ controllers
    def start_controllers(self):
        k8s = self.env["K8S_BIN_DIR"]
        kcm = [os.path.join(k8s, "kube-controller-manager"), "--kubeconfig", self.kubeconfigs["kcm"],
               "--controllers=horizontalpodautoscaling", "--leader-elect=false", "--port=0", "--secure-port=0",
               "--use-service-account-credentials=false", "--profiling=false", "--v=2"]
        if self.a.kcm_tolerance is not None:
            kcm.append(f"--horizontal-pod-autoscaler-tolerance={self.a.kcm_tolerance}")
        self.start("kube-controller-manager", kcm)
        self.shadow_port = free_port()
        env = daemon_environment()  # the allocator tuned as the image and the Deployment tune it
        logf = open(os.path.join(self.dir, "hpa-controller.log"), "wb")
        self.procs["hpa-controller"] = subprocess.Popen(
            [self.a.controller, "--shadow", "--kubeconfig", self.kubeconfigs["shadow"], "--namespace", self.ns,
             "--leader-elect-resource-namespace", "default", "--address", "127.0.0.1", "--port", str(self.shadow_port),
             "--secure-port=0", "-v", "2"] + self.a.shadow_flags.split(), stdout=logf, stderr=logf, stdin=subprocess.DEVNULL, env=env)

    def scrape(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.shadow_port}/metrics", timeout=10) as r:
            text = r.read().decode()
        comparisons, divergences = {}, {}
        for line in text.splitlines():
            m = re.match(r'hpa_controller_shadow_comparisons_total\{(.*)\} (\S+)', line)
            if m:
                labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
                key = (labels["name"], labels["result"])
                comparisons[key] = comparisons.get(key, 0) + int(float(m.group(2)))
            m = re.match(r'hpa_controller_shadow_divergences_total\{(.*)\} (\S+)', line)
            if m:
                labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
                divergences[(labels["name"], labels["kind"])] = int(float(m.group(2)))
        return comparisons, divergences

    # ------------------------------------------------------------------ run
    def drive_load(self, minutes):
        rng = random.Random(self.a.seed)
        for minute in range(minutes):
            changes = [w.load_for(rng.randint(1, 10)) for w in self.workloads]
            self.sim_set(changes)
            log(f"minute {minute + 1}/{minutes}: load changed on {len(changes)} workloads")
            time.sleep(self.a.step)

    def quick_load(self):
        # w0 and w1: far beyond either tolerance (both scale); w2: 30 % above target, within
        # kube-controller-manager's tolerance of 0.5 but not within ours of 0.1.
        time.sleep(20)
        self.sim_set([{"workload": "w0", "cpu": "300m"}, {"workload": "w1", "cpu": "30m"},
                      {"workload": "w2", "cpu": "130m"}])
        log("quick: load changed (w0 x3, w1 x0.3, w2 x1.3)")
        time.sleep(self.a.step)

    def shadow_writes(self):
        requests = audit.load(self.audit_log, {USERS["shadow"]})[USERS["shadow"]]
        if not requests:
            sys.exit("bench-shadow: the audit log holds no request of the shadow's user: nothing to count writes from")
        writes = [r for r in requests if r[1] in audit.WRITES]
        return [r for r in writes if not r[2].startswith("leases")], len(writes)

    def run(self):
        os.makedirs(self.dir, exist_ok=True)
        try:
            log(f"bench-shadow: {len(self.workloads)} HPAs; results in {self.dir}")
            self.cluster_up()
            self.start_sim()
            self.create_objects()
            self.start_controllers()
            if self.a.quick:
                self.quick_load()
            else:
                self.drive_load(self.a.minutes)
            comparisons, divergences = self.scrape()
            other_writes, all_writes = self.shadow_writes()
        finally:
            self.stop_all()
        return self.report(comparisons, divergences, other_writes, all_writes)

    def report(self, comparisons, divergences, other_writes, all_writes):
        agree = sum(v for (n, r), v in comparisons.items() if r == "agree")
        diverge = sum(v for (n, r), v in comparisons.items() if r == "diverge")
        total = agree + diverge
        lines = [f"comparisons: {total}, agreements: {agree}, divergences: {diverge}"
                 + (f", agreement {100.0 * agree / total:.2f} %" if total else "")]
        for (name, kind), v in sorted(divergences.items()):
            lines.append(f"  divergence {name} {kind}: {v}")
        lines.append(f"shadow writes: {len(other_writes)} outside its Lease ({all_writes} in all)")
        log_lines = [l for l in open(os.path.join(self.dir, "hpa-controller.log"), errors="replace") if "shadow divergence" in l]
        with open(os.path.join(self.dir, "divergences.log"), "w") as f:
            f.writelines(log_lines)
        lines.append(f"divergence log lines: {len(log_lines)} (in {self.dir}/divergences.log)")
        print("\n".join(lines))
        with open(os.path.join(self.dir, "results.json"), "w") as f:
            json.dump({"comparisons": total, "agree": agree, "diverge": diverge,
                       "divergences": {f"{n} {k}": v for (n, k), v in divergences.items()},
                       "writesOutsideLease": len(other_writes)}, f, indent=1)
        failures = []
        if other_writes:
            failures.append(f"the shadow wrote: {other_writes[:5]}")
        if self.a.quick:
            if comparisons.get(("w2", "diverge"), 0) < 1:
                failures.append("w2's decision (within kube-controller-manager's tolerance only) was not reported as a divergence")
            if not any("w2" in l and "desiredReplicas" in l for l in log_lines):
                failures.append("no log line for w2's divergence in desired replicas")
            for name in ("w0", "w1"):
                if comparisons.get((name, "agree"), 0) < 1:
                    failures.append(f"{name}: no agreement counted")
        elif total == 0 or 100.0 * agree / total < self.a.min_agreement:
            failures.append(f"agreement below {self.a.min_agreement} %")
        for f in failures:
            print(f"FAIL: {f}")
        return 1 if failures else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--controller", default=os.path.join(ROOT, "build", "cmd", "hpa-controller", "hpa-controller"))
    p.add_argument("--sim", default=os.path.join(ROOT, "build", "cmd", "hpa-sim", "hpa-sim"))
    p.add_argument("--dir", default=os.path.join(ROOT, "build", "bench-shadow"))
    p.add_argument("--quick", action="store_true", help="the e2e variant (see above)")
    p.add_argument("--minutes", type=int, default=10)
    p.add_argument("--step", type=float, default=60, help="seconds between load changes")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--kcm-tolerance", type=float, help="kube-controller-manager's --horizontal-pod-autoscaler-tolerance")
    p.add_argument("--min-agreement", type=float, default=99.0)
    p.add_argument("--shadow-flags", default="--decision-rules=1.20",
                   help="more flags for hpa-controller --shadow (default: the stabilization rules of "
                        "kube-controller-manager 1.20, which the bench runs beside)")
    a = p.parse_args()
    if a.quick and a.kcm_tolerance is None:
        a.kcm_tolerance = 0.5
    if os.path.exists(a.dir):
        shutil.rmtree(a.dir)
    sys.exit(Run(a).run())


if __name__ == "__main__":
    main()
