#!/usr/bin/env python3
"""make bench-scale: hpa-controller and kube-controller-manager's HPA controller, one after the
other, on one local cluster with N Deployments and N CPU-utilization HPAs (see bench/README.md).

Phases: cluster (with an audit log of the two controllers' users) and hpa-sim; N Deployments of
PODS pods over NAMESPACES namespaces, load at target; hpa-sim's own figures; then for each
controller: cold start, steady window, load step on a sample, load step on every workload, and a
reset. Prints a table, writes DIR/results.{md,csv,json} and records the figures in
bench/results/scale.json (--results). Everything it starts is stopped on exit, Ctrl-C included.
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audit  # noqa: E402
import memory  # noqa: E402
import report  # noqa: E402
from kube import ApiError, Kube, user_kubeconfig  # noqa: E402
from observer import Observer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MARKER = ".hpa-bench-scale"
USERS = {"hpa-controller": "bench-hpa-controller", "kube-controller-manager": "bench-kcm-hpa"}
HPA_API = "/apis/autoscaling/v2beta2"
CPU_REQUEST_MILLI = 100
TARGET_UTILIZATION = 50
# Upstream ignores a pod's cpu sample until one metrics window (30 s) after it became Ready,
# within the cpu initialization period: controllers start once every pod is past that.
METRICS_SETTLE_SECONDS = 35
STARTED = time.time()


def log(msg):
    print(f"[{time.time() - STARTED:6.0f}s] {msg}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def uptime():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def daemon_environment():
    """The environment hpa-controller runs with, as the image and the Deployment set it: the
    allocator's tunables (hack/lib/malloc-tunables) on top of ours."""
    with open(os.path.join(ROOT, "hack", "lib", "malloc-tunables")) as f:
        return dict(os.environ, GLIBC_TUNABLES=f.read().strip())


class Processes:
    """Processes this run started, recorded in DIR/pids so a later run can stop leftovers."""

    def __init__(self, directory):
        self.dir = directory
        self.procs = {}

    def start(self, name, argv, **kw):
        logf = open(os.path.join(self.dir, f"{name}.log"), "wb")
        p = subprocess.Popen(argv, stdout=kw.pop("stdout", logf), stderr=logf, stdin=subprocess.DEVNULL, **kw)
        self.procs[name] = p
        with open(os.path.join(self.dir, "pids"), "a") as f:
            f.write(f"{p.pid}\n")
        return p

    def stop(self, name, grace=10):
        p = self.procs.pop(name, None)
        if p is None or p.poll() is not None:
            return None
        p.send_signal(signal.SIGTERM)
        try:
            return p.wait(grace)
        except subprocess.TimeoutExpired:
            p.kill()
            return p.wait()

    def stop_all(self):
        for name in list(self.procs):
            self.stop(name, grace=5)


def stop_leftovers(directory):
    """Stops processes an earlier, killed run of this directory left behind."""
    pids = os.path.join(directory, "pids")
    if not os.path.exists(pids):
        return
    for line in open(pids):
        pid = int(line.strip() or 0)
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            continue
        if directory in cmdline:
            log(f"stopping pid {pid} left by an earlier run")
            os.kill(pid, signal.SIGKILL)


def proc_cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime



class Bench:
    def __init__(self, args):
        self.a = args
        self.dir = os.path.abspath(args.dir or os.path.join(
            ROOT, "build", "bench-scale", f"n{args.n}-p{args.pods}-ns{args.namespaces}"))
        self.cluster = os.path.join(self.dir, "cluster")
        self.procs = Processes(self.dir)
        self.namespaces = [f"bench-{i}" for i in range(args.namespaces)]
        self.workloads = [(f"w-{i}", self.namespaces[i % args.namespaces]) for i in range(args.n)]
        self.max_replicas = args.max_replicas or max(10, 4 * args.pods)
        self.base_milli = args.pods * CPU_REQUEST_MILLI * TARGET_UTILIZATION // 100
        self.loads = {name: self.base_milli for name, _ in self.workloads}
        self.results = {"controllers": {}, "sim": {}, "run": {}}
        self.pool = concurrent.futures.ThreadPoolExecutor(8)

    @staticmethod
    def one_pod_workloads(args, workload_qps, sim_qps):
        """For the benchmarks built on this one: workloads of one pod (maxReplicas 10), the
        cluster's workload controllers and hpa-sim at the given QPS, no latency samples."""
        args.pods, args.max_replicas, args.workload_qps, args.sim_qps = 1, 10, workload_qps, sim_qps
        args.latency_samples = 0

    def use_directory(self, default):
        """The scratch directory (--dir, else `default`), with the cluster and the process record in it."""
        self.dir = os.path.abspath(self.a.dir or default)
        self.cluster = os.path.join(self.dir, "cluster")
        self.procs = Processes(self.dir)

    # ---------------------------------------------------------------- setup
    def prepare_dir(self):
        if os.path.exists(self.dir):
            if os.listdir(self.dir) and not os.path.exists(os.path.join(self.dir, MARKER)):
                sys.exit(f"bench-scale: {self.dir} exists and was not made by this benchmark; refusing to use it")
            stop_leftovers(self.dir)
            if os.path.exists(os.path.join(self.cluster, "env")):
                subprocess.run([os.path.join(ROOT, "hack", "local-cluster.sh"), "down", "--dir", self.cluster],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        open(os.path.join(self.dir, MARKER), "w").close()

    def cluster_up(self):
        policy = os.path.join(self.dir, "audit-policy.yaml")
        with open(policy, "w") as f:
            f.write("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n"
                    f"- level: Metadata\n  users: [{', '.join(USERS.values())}]\n- level: None\n")
        self.audit_log = os.path.join(self.cluster, "logs", "audit.log")
        qps = self.a.workload_qps
        argv = [os.path.join(ROOT, "hack", "local-cluster.sh"), "up", "--dir", self.cluster, "--controller-manager"]
        for flag in (f"--audit-policy-file={policy}", f"--audit-log-path={self.audit_log}"):
            argv += ["--apiserver-arg", flag]
        for flag in (f"--kube-api-qps={qps}", f"--kube-api-burst={2 * qps}", "--concurrent-deployment-syncs=10",
                     "--concurrent-replicaset-syncs=10"):
            argv += ["--controller-manager-arg", flag]
        with open(os.path.join(self.dir, "cluster-up.log"), "w") as out:
            if subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
                sys.exit(f"bench-scale: the local cluster did not start; see {self.dir}/cluster-up.log")
        self.env = {}
        for line in open(os.path.join(self.cluster, "env")):
            if "=" in line and not line.startswith("#"):
                k, v = line.rstrip("\n").split("=", 1)
                self.env[k] = v
        self.kube = Kube(self.env["APISERVER_URL"], self.env["CA_CERT"], self.env["ADMIN_CERT"], self.env["ADMIN_KEY"])
        # One client certificate (system:masters) and kubeconfig per controller under test, so
        # the audit log tells their requests apart.
        self.kubeconfigs = {controller: user_kubeconfig(ROOT, self.env, self.dir, user)
                            for controller, user in USERS.items()}

    def start_sim(self):
        with open(os.path.join(self.dir, "scenario.yaml"), "w") as f:
            f.write("workloads:\n")
            for name, ns in self.workloads:
                f.write(f"- {{name: {name}, namespace: {ns}, selector: app={name}, cpu: {self.base_milli}m, memory: 64Mi}}\n")
        self.metrics_port, self.control_port = free_port(), free_port()
        out = open(os.path.join(self.dir, "hpa-sim.out"), "wb")
        argv = [self.a.sim, "--kubeconfig", self.env["ADMIN_KUBECONFIG"], "--scenario", os.path.join(self.dir, "scenario.yaml"),
                "--metrics-port", str(self.metrics_port), "--control-port", str(self.control_port),
                "--serving-cert", self.env["BACKEND_SERVING_CERT"], "--serving-key", self.env["BACKEND_SERVING_KEY"],
                "--client-ca", self.env["FRONT_PROXY_CA_CERT"], "--nodes", "10", "--workers", "16",
                "--kube-api-qps", str(self.a.sim_qps), "--kube-api-burst", str(2 * self.a.sim_qps)]
        for ns in self.namespaces:
            argv += ["--namespace", ns]
        self.sim = self.procs.start("hpa-sim", argv, stdout=out)
        deadline = time.time() + 60
        while b"metrics-port=" not in open(os.path.join(self.dir, "hpa-sim.out"), "rb").read():
            if self.sim.poll() is not None or time.time() > deadline:
                sys.exit(f"bench-scale: hpa-sim did not start; see {self.dir}/hpa-sim.log")
            time.sleep(0.2)

    def sim_call(self, path, body=None):
        req = urllib.request.Request(f"http://127.0.0.1:{self.control_port}{path}",
                                     data=None if body is None else json.dumps(body).encode(),
                                     method="GET" if body is None else "POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def set_load(self, loads):
        """Sets the cpu demand of the named workloads ({name: milli}) in one change."""
        self.sim_call("/set", [{"workload": n, "cpu": f"{m}m"} for n, m in loads.items()])
        self.loads.update(loads)

    def parallel(self, fn, items):
        for _ in self.pool.map(fn, items):
            pass

    def create_namespaces(self):
        for ns in self.namespaces:
            self.kube.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        # Pods are admitted once the namespace's default ServiceAccount has its token.
        for ns in self.namespaces:
            deadline = time.time() + 60
            while True:
                sa = self.kube.get(f"/api/v1/namespaces/{ns}/serviceaccounts/default", ok=(200, 404))
                if sa.get("secrets"):
                    break
                if time.time() > deadline:
                    sys.exit(f"bench-scale: no default ServiceAccount token in {ns}")
                time.sleep(0.2)

    def create_deployment(self, w):
        name, ns = w
        labels = {"app": name, "bench": "scale"}
        self.kube.request("POST", f"/apis/apps/v1/namespaces/{ns}/deployments", {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {"replicas": self.a.pods, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "app", "image": "example/bench",
                                                           "resources": {"requests": {"cpu": f"{CPU_REQUEST_MILLI}m"}}}]}}}})

    def create_hpa(self, w):
        name, ns = w
        # The soak creates its HPAs here too, with options of its own that carry no annotations.
        annotations = dict(a.split("=", 1) for a in getattr(self.a, "hpa_annotation", []))
        self.kube.request("POST", f"{HPA_API}/namespaces/{ns}/horizontalpodautoscalers", {
            "apiVersion": "autoscaling/v2beta2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": ns, "labels": {"bench": "scale"},
                         "annotations": annotations},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                     "minReplicas": 1, "maxReplicas": self.max_replicas,
                     "metrics": [{"type": "Resource", "resource": {
                         "name": "cpu", "target": {"type": "Utilization", "averageUtilization": TARGET_UTILIZATION}}}]}})

    def wait_pods(self, what, timeout, want=None):
        """Waits until hpa-sim sees exactly `want` (default N x PODS) pods, all Ready."""
        want = want or self.a.n * self.a.pods
        start = last = time.time()
        while True:
            pods = self.sim_call("/state")["pods"]
            if pods["total"] == want and pods["ready"] == want:
                return time.time() - start
            if time.time() - start > timeout:
                sys.exit(f"bench-scale: {what}: {pods['ready']}/{pods['total']} pods Ready after {timeout}s (want {want})")
            if time.time() - last >= 10:
                log(f"  {what}: {pods['ready']} of {pods['total']} pods Ready (want {want})")
                last = time.time()
            time.sleep(0.5)

    def measure_sim(self):
        """hpa-sim's own figures: PodMetrics LIST latency, direct and through the aggregator."""
        import http.client
        import ssl
        direct_ctx = ssl.create_default_context(cafile=self.env["CA_CERT"])
        direct_ctx.load_cert_chain(self.env["FRONT_PROXY_CLIENT_CERT"], self.env["FRONT_PROXY_CLIENT_KEY"])
        ns, name = self.namespaces[0], self.workloads[0][0]
        paths = {"namespace": f"/apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods",
                 "selector": f"/apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods?labelSelector=app%3D{name}"}
        out = {}
        for route in ("direct", "apiserver"):
            for kind, path in paths.items():
                times, items = [], 0
                conn = (http.client.HTTPSConnection("127.0.0.1", self.metrics_port, context=direct_ctx) if route == "direct"
                        else None)
                for i in range(self.a.latency_samples + 3):
                    t = time.perf_counter()
                    if conn:
                        conn.request("GET", path)
                        r = conn.getresponse()
                        body = json.loads(r.read())
                    else:
                        body = self.kube.get(path)
                    if i >= 3:  # the first few warm connections and caches up
                        times.append((time.perf_counter() - t) * 1000)
                    items = len(body.get("items", []))
                out[f"{route}-{kind}"] = {"items": items, "p50_ms": round(statistics.median(times), 2),
                                          "p90_ms": round(report.percentile(times, 90), 2)}
        return out

    def wait_metrics_api(self):
        deadline = time.time() + 60
        while True:
            try:
                self.kube.get("/apis/metrics.k8s.io/v1beta1")
                return
            except (ApiError, OSError):
                if time.time() > deadline:
                    sys.exit("bench-scale: the metrics API is not served through the aggregator")
                time.sleep(0.5)

    # ---------------------------------------------------------------- one controller
    def controller_argv(self, controller, port):
        if controller == "hpa-controller":
            return [self.a.controller, "--kubeconfig", self.kubeconfigs[controller], "--leader-elect=false",
                    "--address", "127.0.0.1", "--port", str(port), "--secure-port=0"] + self.a.controller_args.split()
        k8s = self.env["K8S_BIN_DIR"]
        cfg = self.kubeconfigs[controller]
        # Only the HPA controller, every HPA flag at its default; no serving (ports 0).
        return [os.path.join(k8s, "kube-controller-manager"), "--kubeconfig", cfg,
                "--controllers=horizontalpodautoscaling", "--leader-elect=false", "--port=0", "--secure-port=0",
                "--use-service-account-credentials=false", "--profiling=false", "--v=1"]

    def scrape_reconciles(self, port):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            text = r.read().decode()
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith("horizontal_pod_autoscaler_controller_reconciliations_total"))

    def run_controller(self, controller):
        a = self.a
        res = {"loadAtStart": uptime()}
        port = free_port()
        log(f"{controller}: starting (load {res['loadAtStart']})")
        t0 = time.time()
        env = daemon_environment() if controller == "hpa-controller" else None
        proc = self.procs.start(controller, self.controller_argv(controller, port), env=env)
        res["start"] = t0

        # Cold start: until every HPA has a status with conditions.
        last = time.time()
        while True:
            times = self.obs.status_times()
            done = [t for t in times.values() if t is not None]
            if len(done) >= a.n:
                res["coldStart"] = round(max(done) - t0, 1)
                break
            if proc.poll() is not None:
                sys.exit(f"bench-scale: {controller} exited ({proc.returncode}); see {self.dir}/{controller}.log")
            if time.time() - t0 > a.cold_timeout:
                res["coldStart"] = None
                res["coldStartDone"] = len(done)
                log(f"{controller}: cold start not complete after {a.cold_timeout}s ({len(done)}/{a.n})")
                break
            if time.time() - last >= 10:
                log(f"{controller}: cold start: {len(done)}/{a.n} HPAs have a status ({time.time() - t0:.0f}s)")
                last = time.time()
            time.sleep(0.5)
        if res["coldStart"] is not None:
            log(f"{controller}: cold start {res['coldStart']}s")
        res["coldEnd"] = time.time()
        time.sleep(a.settle)

        # Steady window: load at target, nothing should change.
        log(f"{controller}: steady window of {a.duration}s")
        w0, cpu0 = time.time(), proc_cpu_seconds(proc.pid)
        rec0 = self.scrape_reconciles(port) if controller == "hpa-controller" else None
        while time.time() - w0 < a.duration:
            time.sleep(min(10, a.duration - (time.time() - w0)))
            if time.time() - w0 < a.duration:
                log(f"{controller}: steady window {time.time() - w0:.0f}/{a.duration}s")
        w1, cpu1 = time.time(), proc_cpu_seconds(proc.pid)
        rec1 = self.scrape_reconciles(port) if controller == "hpa-controller" else None
        resident = memory.breakdown(proc.pid)
        res.update({"windowStart": w0, "windowEnd": w1, "cpuSeconds": cpu1 - cpu0, "rssMiB": resident["total"],
                    "memory": resident,
                    "reconcilesScraped": None if rec0 is None else rec1 - rec0,
                    "scaleChangesInWindow": self.obs.changes_between(w0, w1), "loadInWindow": uptime()})

        # Effective period: a load step on a sample waits for the next reconcile of its HPA. The
        # sample stays scaled out with its new load (at target again): scaling it back in by hand
        # would fight the downscale stabilization, which remembers the higher recommendation.
        rng = random.Random(a.seed)
        sample = rng.sample(self.workloads, min(a.sample, len(self.workloads)))
        before = self.obs.replicas()
        keys = [f"{ns}/{name}" for name, ns in sample]
        log(f"{controller}: load step x{a.step_factor} on {len(sample)} random workloads")
        ts = time.time()
        self.set_load({n: self.loads[n] * a.step_factor for n, _ in sample})
        res["sampleWaits"] = self.wait_changes(controller, "sample step", keys, ts,
                                               lambda k: (lambda r, b=before.get(k): r != b))
        self.wait_pods("sample scaled out", a.step_timeout, want=sum(self.obs.replicas().values()))
        # Until their cpu samples count, the new pods would hold the sample's next scale-up back.
        time.sleep(METRICS_SETTLE_SECONDS)

        # Reaction to a load step on every workload at once: each must reach its current size
        # times the step (capped at maxReplicas).
        before = self.obs.replicas()
        want = {k: min(self.max_replicas, math.ceil(r * a.step_factor)) for k, r in before.items()}
        log(f"{controller}: load step x{a.step_factor} on all {a.n} workloads")
        keys = [f"{ns}/{name}" for name, ns in self.workloads]
        ts = time.time()
        self.set_load({n: m * a.step_factor for n, m in self.loads.items()})
        res["allWaits"] = self.wait_changes(controller, "step on all", keys, ts, lambda k: (lambda r, w=want[k]: r >= w))
        res["loadAtEnd"] = uptime()

        code = self.procs.stop(controller)
        res["exitCode"] = code
        res["end"] = time.time()
        log(f"{controller}: stopped (exit code {code})")
        return res

    def cluster_with_workloads(self):
        """The cluster, hpa-sim, the namespaces, the observer and the Deployments with every pod
        Ready and the metrics API served; returns the seconds from the first Deployment's
        creation until then (creation, Ready)."""
        self.cluster_up()
        self.start_sim()
        self.create_namespaces()
        self.obs = Observer(self.kube, HPA_API + "/horizontalpodautoscalers")
        self.obs.start()
        log(f"creating {self.a.n} Deployments ({self.a.n * self.a.pods} pods)")
        t = time.time()
        self.parallel(self.create_deployment, self.workloads)
        created = time.time() - t
        ready = created + self.wait_pods("pods", 900)
        self.wait_metrics_api()
        return created, ready

    def set_replicas(self, w):
        name, ns = w
        self.kube.request("PATCH", f"/apis/apps/v1/namespaces/{ns}/deployments/{name}",
                          {"spec": {"replicas": self.a.pods}}, content_type="application/merge-patch+json")

    def wait_changes(self, controller, what, keys, since, predicate_for):
        """Seconds from `since` until each key's spec.replicas satisfied its predicate (None: not
        within --step-timeout)."""
        waits, last = {}, time.time()
        predicates = {k: predicate_for(k) for k in keys}
        while True:
            for k in keys:
                if k not in waits:
                    t = self.obs.first_change(k, since, predicates[k])
                    if t is not None:
                        waits[k] = t - since
            elapsed = time.time() - since
            if len(waits) == len(keys) or elapsed > self.a.step_timeout:
                break
            if time.time() - last >= 10:
                log(f"{controller}: {what}: {len(waits)}/{len(keys)} scaled ({elapsed:.0f}s)")
                last = time.time()
            time.sleep(0.5)
        log(f"{controller}: {what}: {len(waits)}/{len(keys)} scaled in {time.time() - since:.0f}s")
        return [round(waits[k], 2) if k in waits else None for k in keys]

    def reset(self):
        """Same starting point for the next controller: load at target, every Deployment at
        PODS replicas, HPAs recreated without status or the controllers' annotations."""
        log("reset: load back to target, HPAs recreated, Deployments back to their size")
        self.set_load({n: self.base_milli for n, _ in self.workloads})
        for ns in self.namespaces:
            self.kube.request("DELETE", f"{HPA_API}/namespaces/{ns}/horizontalpodautoscalers?labelSelector=bench%3Dscale")
        deadline = time.time() + 120
        while self.obs.hpa_count() > 0:
            if time.time() > deadline:
                sys.exit("bench-scale: HPAs were not deleted")
            time.sleep(0.5)
        current = self.obs.replicas()
        self.parallel(self.set_replicas, [w for w in self.workloads if current.get(f"{w[1]}/{w[0]}") != self.a.pods])
        self.parallel(self.create_hpa, self.workloads)
        self.wait_pods("reset", 600)
        while self.obs.hpa_count() < self.a.n:
            time.sleep(0.5)

    # ---------------------------------------------------------------- main
    def run(self):
        a = self.a
        run = self.results["run"]
        run.update({"n": a.n, "pods": a.pods, "namespaces": a.namespaces, "duration": a.duration, "sample": a.sample,
                    "stepFactor": a.step_factor, "maxReplicas": self.max_replicas, "loadAtStart": uptime(),
                    "stepTimeout": a.step_timeout, "coldTimeout": a.cold_timeout, "controllerArgs": a.controller_args,
                    "hpaAnnotations": a.hpa_annotation,
                    "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "cpus": os.cpu_count(),
                    "commit": subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                                             capture_output=True, text=True).stdout.strip()})
        log(f"bench-scale: N={a.n} HPAs, {a.pods} pod(s) each, {a.namespaces} namespaces; results in {self.dir}")
        self.prepare_dir()
        log("starting the local cluster (audit log for the controllers' users)")
        created, ready = self.cluster_with_workloads()
        self.results["sim"].update({"pods": a.n * a.pods, "createSeconds": round(created, 1),
                                    "readySeconds": round(ready, 1)})
        log(f"hpa-sim: {a.n * a.pods} pods Ready {ready:.1f}s after the first Deployment was created")
        self.results["sim"]["latency"] = self.measure_sim()
        log(f"hpa-sim: PodMetrics LIST latency {json.dumps(self.results['sim']['latency'])}")
        log(f"creating {a.n} HPAs")
        self.parallel(self.create_hpa, self.workloads)
        while self.obs.hpa_count() < a.n:
            time.sleep(0.5)
        settle = METRICS_SETTLE_SECONDS - (time.time() - t - ready)
        if settle > 0:
            time.sleep(settle)

        if a.hold:
            log(f"holding the cluster for controllers run by hand: --kubeconfig {self.kubeconfigs['hpa-controller']}"
                " (Ctrl-C stops everything)")
            while True:
                time.sleep(3600)

        for i, controller in enumerate(a.controllers):
            if i > 0:
                self.reset()
            self.results["controllers"][controller] = self.run_controller(controller)

        log("reading the audit log")
        requests = audit.load(self.audit_log, set(USERS.values()))
        for controller, res in self.results["controllers"].items():
            user_requests = requests[USERS[controller]]
            res["window"] = audit.summarize(user_requests, res["windowStart"], res["windowEnd"])
            res["coldStartRequests"] = audit.summarize(user_requests, res["start"], res["coldEnd"])
            res["reconciles"] = (res["reconcilesScraped"] if res["reconcilesScraped"] is not None
                                 else res["window"]["scaleGets"])
        run["seconds"] = round(time.time() - STARTED)
        run["loadAtEnd"] = uptime()
        report.write(self.dir, self.results)
        report.render.record("scale", report.results_tables(self.results), report.render.run_info(), report.MEASURES,
                             report.render.results_directory(a.results))


def add_controller_arguments(p, default_controllers="hpa-controller,kube-controller-manager"):
    """The options every benchmark of the two controllers shares: which to run, hpa-controller's
    extra flags, the scratch directory, the binaries and where the figures are recorded."""
    p.add_argument("--controllers", default=default_controllers, help="which to measure, in order (comma-separated)")
    p.add_argument("--controller-args", default="",
                   help="extra flags for hpa-controller, space-separated (the table is then not 'default flags')")
    p.add_argument("--dir", help="scratch directory")
    p.add_argument("--controller", default=os.path.join(ROOT, "build", "cmd", "hpa-controller", "hpa-controller"))
    p.add_argument("--sim", default=os.path.join(ROOT, "build", "cmd", "hpa-sim", "hpa-sim"))
    report.render.add_argument(p)


def parse_controller_arguments(p):
    a = p.parse_args()
    a.controllers = [c for c in a.controllers.split(",") if c]
    for c in a.controllers:
        if c not in USERS:
            p.error(f"unknown controller {c!r} (hpa-controller, kube-controller-manager)")
    for binary in (a.controller, a.sim):
        if not os.access(binary, os.X_OK):
            p.error(f"{binary} is missing (make build)")
    return a


def run_to_completion(bench):
    """Runs the benchmark; whatever happens (SIGTERM and Ctrl-C included), stops every process it
    started and its local cluster."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        bench.run()
    except KeyboardInterrupt:
        log("interrupted")
        sys.exit(130)
    finally:
        bench.procs.stop_all()
        if os.path.exists(os.path.join(bench.cluster, "env")):
            log("stopping the local cluster")
            subprocess.run([os.path.join(ROOT, "hack", "local-cluster.sh"), "down", "--dir", bench.cluster],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=100, help="Deployments and HPAs")
    p.add_argument("--pods", type=int, default=1, help="pods per Deployment")
    p.add_argument("--namespaces", type=int, default=10)
    p.add_argument("--duration", type=int, default=120, help="steady window, seconds")
    p.add_argument("--sample", type=int, default=20, help="workloads stepped to measure the effective period")
    p.add_argument("--step-factor", type=int, default=3, help="load step (x the load at target)")
    p.add_argument("--max-replicas", type=int, default=0, help="HPA maxReplicas (default max(10, 4 x pods))")
    p.add_argument("--cold-timeout", type=int, default=900, help="give up waiting for cold start after this, seconds")
    p.add_argument("--step-timeout", type=int, default=600, help="give up waiting for a load step after this, seconds")
    p.add_argument("--settle", type=int, default=20, help="pause between cold start and the steady window, seconds")
    p.add_argument("--latency-samples", type=int, default=30)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hpa-annotation", action="append", default=[], metavar="KEY=VALUE",
                   help="an annotation on every HPA (repeatable), e.g. hpa-controller.io/fallback=after=3,replicas=2")
    p.add_argument("--hold", action="store_true",
                   help="set up the cluster, workloads and HPAs, then wait (to run controllers by hand)")
    p.add_argument("--workload-qps", type=int, default=300, help="--kube-api-qps of the cluster's workload controllers")
    p.add_argument("--sim-qps", type=int, default=400, help="hpa-sim's --kube-api-qps")
    add_controller_arguments(p)  # --dir defaults to build/bench-scale/nN-pPODS-nsNAMESPACES
    run_to_completion(Bench(parse_controller_arguments(p)))


if __name__ == "__main__":
    main()
