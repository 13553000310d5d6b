#!/usr/bin/env python3
"""make soak-incluster: deploy/ as pods on a real node under node faults (bench/README.md).

A local cluster (hack/local-cluster.sh, kube-apiserver advertised on the node's bridge, with an
audit log of the controller's ServiceAccount) and a real node (hack/local-node.sh: containerd,
kubelet, kube-proxy, kube-scheduler). The image is imported into containerd and deploy/ applied
unchanged (deploy/overlays/policy-v1beta1, the 1.20 cluster's budget API; the image set with
kustomize `images:`): two replicas with leader election. hpa-sim plays the kubelet of 20 workloads
on its own tainted nodes (8 on CPU, 6 on a Pods metric, 6 on an External metric; a third with
`behavior`), whose loads change every minute (fixed seed), then hold so every HPA can settle.

Faults, in an order drawn from --seed, spread over the run, each followed by a wait until both
replicas are Ready again and the Lease names one of them:
  kubelet       local-node.sh restart kubelet
  containerd    local-node.sh restart containerd (the containers run on under their shims)
  drain         kubectl drain of the leader's node: the leader first (its eviction passes: a
                graceful handover), then the other replica, which the PodDisruptionBudget refuses;
                then uncordon
  cut-off       the leader's packets to the API server dropped by iptables inside its pod's own
                network namespace (nsenter; nothing else on the machine changes) for --cut-seconds
  oom           the leader container's memory cgroup limit lowered to what it uses now: the
                kernel's OOM killer ends it at its next allocation, the kubelet restarts it with
                the Deployment's limit
Throughout: the Lease polled (handover times), the Service's /metrics scraped every second with a
ServiceAccount token bound to hpa-controller-metrics-reader (gaps counted), Deployments' replicas
polled (early downscales), each pod's restarts and each container's resident memory sampled.

Checks at the end (exit 1 on any failure): every HPA at the size its load asks; no downscale
earlier than its stabilization window allows (the window survives every handover); from the
audit log, no scale, HPA or Event write by a pod outside its own leadership term (terms from the
Lease's writes, pods from their source IPs), so no two pods wrote in overlapping terms; the
leader's informer caches equal the server's lists; no container restarted but by a fault that
ends it (cut-off, oom); resident memory of each container flat over its life (within 20 % + 4
MiB from its third minute). Prints a table, writes DIR/soak-incluster.json and records the
figures in bench/results/soak-incluster.json (--results).

Needs root, the image archive (make image IMAGE_SAVE=...), the node binaries
(hack/ensure-node-deps.sh) and a built hpa-sim.
"""
import argparse
import base64
import glob
import json
import math
import os
import random
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
for sub in ("scale", "shadow", "soak"):
    sys.path.insert(0, os.path.join(HERE, "..", sub))
from kube import Kube  # noqa: E402
from report import render  # noqa: E402
from scale_bench import free_port, log  # noqa: E402
from soak import cache_summary, server_summary  # noqa: E402
from workloads import BEHAVIORS, CPU_REQUEST_MILLI, MILLI_PER_REPLICA, Workload  # noqa: E402
import terms as audit_terms  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
HACK = os.path.join(ROOT, "hack")
GATEWAY = "10.244.0.1"
CNS = "hpa-controller"
APP_LABEL = "app.kubernetes.io/name=hpa-controller"
NS = "soak-incluster"
SA_USER = f"system:serviceaccount:{CNS}:hpa-controller"
LEASE = f"/apis/coordination.k8s.io/v1/namespaces/{CNS}/leases/hpa-controller"
HPA_API = "/apis/autoscaling/v2beta2"
WINDOW = 300  # the Deployment's --horizontal-pod-autoscaler-downscale-stabilization (default 5m)
SYNC = 30  # its sync period (15 s), the batched metrics' reuse (7.5 s) and slack
METRICS_LAG = 20  # seconds from a load change until the controller can have seen it
KINDS = ("kubelet", "containerd", "drain", "cut-off", "oom")
# Faults that end the controller's process; a restart at any other time is a failure.
ENDING = {"cut-off", "oom"}
MEASURES = ("deploy/ as pods on a real node under kubelet and containerd restarts, drains, the leader cut off "
            "from the API server and OOM kills: handovers, writes outside a leadership term, scrape gaps, "
            "restarts and memory.")


def fleet():
    """20 HPAs: 8 CPU, 6 Pods, 6 External; every third (1, 4, 7, ...) with `behavior`."""
    kinds = ["cpu"] * 8 + ["pods"] * 6 + ["external"] * 6
    return [Workload(f"w{i:02d}", kind, BEHAVIORS[0] if i % 3 == 1 else None, max_replicas=8)
            for i, kind in enumerate(kinds)]


def window_of(w):
    if w.behavior and "scaleDown" in w.behavior:
        return w.behavior["scaleDown"].get("stabilizationWindowSeconds", WINDOW)
    return WINDOW


def at_rest(w, pods_worth, replicas):
    """Whether upstream's rule keeps `replicas` for this load: within the 0.1 tolerance of the
    target, or the size it asks (per-pod values as hpa-sim serves them, rounded to the milli)."""
    if replicas < 1:
        return False
    milli = w.milli_for(pods_worth)
    target = MILLI_PER_REPLICA[w.metric]
    ratio = int(milli / replicas + 0.5) / target
    if abs(ratio - 1) <= 0.1:
        return True
    return max(w.min_replicas, min(w.max_replicas, math.ceil(ratio * replicas - 1e-9))) == replicas


def run_cmd(argv, check=True, timeout=300, **kw):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])}... exited {r.returncode}: {r.stdout[-2000:]}")
    return r


class Soak:
    def __init__(self, a):
        self.a = a
        self.dir = os.path.abspath(a.dir or os.path.join(ROOT, "build", "soak-incluster", f"{a.minutes:g}m"))
        self.cluster = os.path.join(self.dir, "cluster")
        self.rng = random.Random(a.seed)
        self.workloads = fleet()
        self.by_name = {w.name: w for w in self.workloads}
        self.level = {}  # workload -> pods' worth of load now
        self.load_history = {}  # workload -> [(t, pods_worth)]
        self.replica_log = {}  # workload -> [(t, replicas)]
        self.lease_log = []  # (t, holder) on each change, as polled
        self.scrapes = []  # (t, ok)
        self.samples = []  # (t, pod, container pid, restarts, rss MiB)
        self.pod_ips = {}  # ip -> pod
        self.faults = []  # {kind, start, end, ...}
        self.failures = []
        self.procs = {}
        self.stop = threading.Event()

    # ------------------------------------------------------------------ plumbing
    def kubectl(self, *args, check=True, timeout=120):
        return run_cmd([self.env["KUBECTL"], "--kubeconfig", self.env["ADMIN_KUBECONFIG"], *args], check=check,
                       timeout=timeout)

    def ctr(self, *args):
        return run_cmd(["ctr", "--address", self.node["CONTAINERD_SOCK"], "-n", "k8s.io", *args], check=False).stdout

    def read_env(self, path):
        env = {}
        for line in open(path):
            if "=" in line and not line.startswith("#"):
                k, v = line.rstrip("\n").split("=", 1)
                env[k] = v
        return env

    # ------------------------------------------------------------------ cluster and node
    def cluster_up(self):
        os.makedirs(self.dir, exist_ok=True)
        for d in (self.cluster,):
            run_cmd([os.path.join(HACK, "local-node.sh"), "down", "--dir", d], check=False)
            run_cmd([os.path.join(HACK, "local-cluster.sh"), "down", "--dir", d, "--purge"], check=False)
        policy = os.path.join(self.dir, "audit-policy.yaml")
        with open(policy, "w") as f:
            # The Lease's writes with their response (the holder each one leaves), the other writes
            # of the ServiceAccount at Metadata (who, what, when, from where); nothing else.
            f.write("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n"
                    f"- level: RequestResponse\n  users: ['{SA_USER}']\n  verbs: [create, update, patch]\n"
                    "  resources: [{group: coordination.k8s.io, resources: [leases]}]\n"
                    f"- level: Metadata\n  users: ['{SA_USER}']\n  verbs: [create, update, patch, delete]\n"
                    "- level: None\n")
        self.audit_log = os.path.join(self.dir, "audit.log")
        if os.path.exists(self.audit_log):
            os.remove(self.audit_log)
        with open(os.path.join(self.dir, "cluster-up.log"), "w") as out:
            argv = [os.path.join(HACK, "local-cluster.sh"), "up", "--dir", self.cluster, "--controller-manager",
                    "--min-request-timeout", "60", "--advertise-address", GATEWAY,
                    "--controller-manager-arg", "--controllers=endpoint,endpointslice,disruption,garbagecollector,namespace",
                    "--apiserver-arg", f"--audit-policy-file={policy}", "--apiserver-arg",
                    f"--audit-log-path={self.audit_log}"]
            if subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
                sys.exit(f"soak-incluster: the cluster did not start; see {self.dir}/cluster-up.log")
            self.env = self.read_env(os.path.join(self.cluster, "env"))
            if subprocess.run([os.path.join(HACK, "local-node.sh"), "up", "--dir", self.cluster], stdout=out,
                              stderr=subprocess.STDOUT).returncode != 0:
                sys.exit(f"soak-incluster: the node did not start; see {self.dir}/cluster-up.log")
        self.node = self.read_env(os.path.join(self.cluster, "node", "env"))
        self.kube = Kube(self.env["APISERVER_URL"], self.env["CA_CERT"], self.env["ADMIN_CERT"], self.env["ADMIN_KEY"],
                         timeout=30)
        out = run_cmd([os.path.join(HACK, "local-node.sh"), "import-image", "--dir", self.cluster, self.a.image_archive]).stdout
        names = [l.split()[1] for l in out.splitlines() if l.startswith("unpacking ")]
        if not names:
            sys.exit(f"soak-incluster: containerd named no image from {self.a.image_archive}: {out}")
        self.image = names[0]
        log(f"cluster and node up; image {self.image}")

    # ------------------------------------------------------------------ workloads
    def start_sim(self):
        scenario = os.path.join(self.dir, "scenario.yaml")
        with open(scenario, "w") as f:
            f.write("workloads:\n")
            for w in self.workloads:
                cpu = w.initial["cpu"] if w.metric == "cpu" else "10m"
                f.write(f"- {{name: {w.name}, namespace: {NS}, selector: app={w.name}, cpu: {cpu}}}\n")
            f.write("podMetrics:\n")
            for w in self.workloads:
                if w.metric == "pods":
                    f.write(f"- {{workload: {w.name}, metric: http_requests, total: \"{w.initial['value']}\"}}\n")
            f.write("externalMetrics:\n")
            for w in self.workloads:
                if w.metric == "external":
                    f.write(f"- {{namespace: {NS}, metric: queue_{w.name}, value: \"{w.initial['value']}\"}}\n")
        self.control_port = free_port()
        out = open(os.path.join(self.dir, "hpa-sim.out"), "wb")
        logf = open(os.path.join(self.dir, "hpa-sim.log"), "wb")
        self.procs["hpa-sim"] = subprocess.Popen(
            [self.a.sim, "--kubeconfig", self.env["ADMIN_KUBECONFIG"], "--namespace", NS, "--scenario", scenario,
             "--metrics-port", str(free_port()), "--control-port", str(self.control_port), "--start-delay", "1s",
             "--readiness-delay", "1s", "--serving-cert", self.env["BACKEND_SERVING_CERT"],
             "--serving-key", self.env["BACKEND_SERVING_KEY"], "--client-ca", self.env["FRONT_PROXY_CA_CERT"]],
            stdout=out, stderr=logf, stdin=subprocess.DEVNULL)
        self.wait(60, "hpa-sim registered its node",
                  lambda: self.kubectl("get", "nodes", "-l", "hpa-sim=true", "-o", "name").stdout.strip())
        self.kubectl("taint", "nodes", "-l", "hpa-sim=true", "hpa-sim=true:NoSchedule", "--overwrite")

    def sim_set(self, changes):
        req = urllib.request.Request(f"http://127.0.0.1:{self.control_port}/set", data=json.dumps(changes).encode(),
                                     method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            r.read()

    def create_workloads(self):
        self.kube.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        self.wait(60, "the namespace's default ServiceAccount has its token",
                  lambda: self.kube.get(f"/api/v1/namespaces/{NS}/serviceaccounts/default", ok=(200, 404)).get("secrets"))
        for w in self.workloads:
            labels = {"app": w.name}
            self.kube.request("POST", f"/apis/apps/v1/namespaces/{NS}/deployments", {
                "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": w.name, "namespace": NS},
                "spec": {"replicas": w.replicas, "selector": {"matchLabels": labels},
                         "template": {"metadata": {"labels": labels}, "spec": {
                             "schedulerName": "hpa-sim", "nodeSelector": {"hpa-sim": "true"},
                             "tolerations": [{"key": "hpa-sim", "operator": "Exists", "effect": "NoSchedule"}],
                             "containers": [{"name": "app", "image": "example/soak",
                                             "resources": {"requests": {"cpu": f"{CPU_REQUEST_MILLI}m"}}}]}}}})
            self.kube.request("POST", f"{HPA_API}/namespaces/{NS}/horizontalpodautoscalers", {
                "apiVersion": "autoscaling/v2beta2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": w.name, "namespace": NS}, "spec": w.hpa_spec()})
            self.level[w.name] = 2 * 0.97
        want = sum(w.replicas for w in self.workloads)
        self.wait(180, f"hpa-sim serves metrics of all {want} pods", lambda: len(
            self.kube.get(f"/apis/metrics.k8s.io/v1beta1/namespaces/{NS}/pods").get("items", [])) >= want)

    # ------------------------------------------------------------------ deploy/
    def install(self):
        d = os.path.join(self.dir, "install")
        os.makedirs(d, exist_ok=True)
        name, tag = self.image.rsplit(":", 1)
        with open(os.path.join(d, "kustomization.yaml"), "w") as f:
            # kustomize v2.0 (kubectl 1.20) takes a base by relative path only.
            f.write(f"bases:\n- {os.path.relpath(os.path.join(ROOT, 'deploy', 'overlays', 'policy-v1beta1'), d)}\n"
                    f"images:\n- {{name: hpa-controller, newName: {name}, newTag: {tag}}}\n")
        self.kubectl("apply", "-k", d)
        self.wait(240, "both replicas Running and Ready", lambda: len(self.ready_pods()) == 2)
        self.kubectl("create", "serviceaccount", "soak-scraper", "-n", NS)
        self.kubectl("create", "clusterrolebinding", "soak-incluster-scraper", "--clusterrole",
                     "hpa-controller-metrics-reader", f"--serviceaccount={NS}:soak-scraper")

        def token():
            sa = self.kube.get(f"/api/v1/namespaces/{NS}/serviceaccounts/soak-scraper")
            if not sa.get("secrets"):
                return None
            secret = self.kube.get(f"/api/v1/namespaces/{NS}/secrets/{sa['secrets'][0]['name']}")
            return base64.b64decode(secret["data"]["token"]).decode()
        self.wait(30, "a token for the scraper", token)
        self.token = token()
        svc = self.kube.get(f"/api/v1/namespaces/{CNS}/services/hpa-controller-metrics")
        self.metrics_url = f"https://{svc['spec']['clusterIP']}:10258/metrics"
        self.api_service_ip = self.kube.get("/api/v1/namespaces/default/services/kubernetes")["spec"]["clusterIP"]
        self.wait(60, "the Lease has a holder", self.holder)

    # ------------------------------------------------------------------ observation
    def pods(self):
        items = self.kube.get(f"/api/v1/namespaces/{CNS}/pods?labelSelector={urllib.parse.quote(APP_LABEL)}")["items"]
        for p in items:
            ip = p.get("status", {}).get("podIP")
            if ip:
                self.pod_ips[ip] = p["metadata"]["name"]
        return items

    def ready_pods(self):
        out = []
        for p in self.pods():
            conds = {c["type"]: c["status"] for c in p.get("status", {}).get("conditions", [])}
            if "deletionTimestamp" not in p["metadata"] and p["status"].get("phase") == "Running" and conds.get("Ready") == "True":
                out.append(p["metadata"]["name"])
        return out

    def holder(self):
        try:
            return self.kube.get(LEASE).get("spec", {}).get("holderIdentity", "")
        except Exception:  # ApiError, a connection reset, a malformed answer: no holder known now
            return None

    def leader_pod(self):
        h = self.holder() or ""
        return h.rsplit("_", 1)[0] if "_" in h else None

    def container(self, pod, sandbox=False):
        """The pid of the pod's controller container (or of its sandbox) on this node."""
        kind = 'labels."io.cri-containerd.kind"==sandbox' if sandbox else \
            'labels."io.kubernetes.container.name"==hpa-controller'
        ids = self.ctr("containers", "ls", "-q", f'labels."io.kubernetes.pod.name"=={pod},{kind}').split()
        tasks = {}
        for line in self.ctr("tasks", "ls").splitlines()[1:]:
            f = line.split()
            if len(f) >= 3 and f[2] == "RUNNING":
                tasks[f[0]] = int(f[1])
        pids = [tasks[i] for i in ids if i in tasks]
        return pids[0] if pids else None

    def watch_lease(self):
        last = object()
        while not self.stop.wait(0.25):
            h = self.holder()
            if h is not None and h != last:
                self.lease_log.append((time.time(), h))
                last = h

    def scrape_loop(self):
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        while not self.stop.wait(1):
            t = time.time()
            try:
                req = urllib.request.Request(self.metrics_url, headers={"Authorization": f"Bearer {self.token}"})
                with urllib.request.urlopen(req, context=ctx, timeout=3) as r:
                    ok = r.status == 200 and b"horizontal_pod_autoscaler_controller" in r.read()
            except Exception:
                ok = False
            self.scrapes.append((t, ok))

    def watch_replicas(self):
        while not self.stop.wait(3):
            try:
                for d in self.kube.get(f"/apis/apps/v1/namespaces/{NS}/deployments")["items"]:
                    name, r = d["metadata"]["name"], d["spec"].get("replicas", 1)
                    entries = self.replica_log.setdefault(name, [])
                    if not entries or entries[-1][1] != r:
                        entries.append((time.time(), r))
            except Exception:
                pass

    def keep_logs(self):
        """Copies each controller container's log as the kubelet writes it (it keeps only the last
        two of a pod) to DIR/pods/<pod>/<restart>.log."""
        for d in glob.glob(f"/var/log/pods/{CNS}_*/hpa-controller"):
            pod = os.path.basename(os.path.dirname(d)).split("_")[1]
            os.makedirs(os.path.join(self.dir, "pods", pod), exist_ok=True)
            for f in glob.glob(os.path.join(d, "*.log")):
                try:
                    shutil.copyfile(f, os.path.join(self.dir, "pods", pod, os.path.basename(f)))
                except OSError:
                    pass

    def sample(self):
        self.keep_logs()
        try:
            for p in self.pods():
                name = p["metadata"]["name"]
                restarts = sum(c.get("restartCount", 0) for c in p.get("status", {}).get("containerStatuses", []))
                pid = self.container(name)
                rss = None
                if pid:
                    for line in open(f"/proc/{pid}/status"):
                        if line.startswith("VmRSS:"):
                            rss = int(line.split()[1]) / 1024
                self.samples.append((time.time(), name, pid, restarts, rss))
        except Exception as e:  # a pod going away under us; the next sample sees the rest
            log(f"  sample: {e}")

    def wait(self, seconds, what, predicate, fail=True):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                if predicate():
                    return True
            except Exception:
                pass
            time.sleep(0.5)
        if fail:
            raise RuntimeError(f"{what}: not within {seconds}s")
        return False

    # ------------------------------------------------------------------ load
    def change_load(self):
        changes, now = [], time.time()
        for w in self.rng.sample(self.workloads, len(self.workloads) // 3):
            pods_worth = self.rng.choice([1, 2, 3, 4, 5, 6]) * 0.97
            self.level[w.name] = pods_worth
            self.load_history[w.name].append((now, pods_worth))
            changes.append(w.change_for(pods_worth))
        self.sim_set(changes)

    # ------------------------------------------------------------------ faults
    def fault(self, kind):
        self.wait(120, "a leader among the Ready pods", lambda: self.leader_pod() in self.ready_pods(), fail=False)
        leader = self.leader_pod()
        record = {"kind": kind, "start": time.time(), "leader": leader, "holder": self.holder()}
        log(f"  fault {kind} (leader {leader})")
        if kind in ("kubelet", "containerd"):
            run_cmd([os.path.join(HACK, "local-node.sh"), "restart", kind, "--dir", self.cluster])
        elif kind == "drain":
            record.update(self.drain(leader))
        elif kind == "cut-off":
            record.update(self.cut_off(leader))
        elif kind == "oom":
            record.update(self.oom(leader))
        record["injected"] = time.time()
        # A fault that ends the leader's process (or its pod) is over once another holder leads:
        # a restarted container in the same pod is a new process, a standby.
        moves = kind == "drain" or (kind in ENDING and record.get("ended", True))
        ok = self.wait(240, "recovery", lambda: len(self.ready_pods()) == 2 and self.leader_pod() in self.ready_pods()
                       and (not moves or self.holder() not in ("", record["holder"])), fail=False)
        time.sleep(1)  # the Lease watcher polls every 0.25 s: let it log what the wait above saw
        record["end"] = time.time()
        record["recovered"] = ok
        record["recovery_s"] = round(record["end"] - record["start"], 1)
        changes = [(t, h) for t, h in self.lease_log if t >= record["start"] and h and h != record["holder"]]
        record["new_holder"] = changes[0][1] if changes else None
        record["handover_s"] = round(changes[0][0] - record["start"], 2) if changes else None
        if not ok:
            self.failures.append(f"{kind} at {record['start'] - self.t0:.0f}s: no recovery within 240s")
        log(f"    recovered={ok} in {record['recovery_s']}s; handover "
            + (f"to {record['new_holder']} after {record['handover_s']}s" if changes else "none (the leader kept the Lease)"))
        self.faults.append(record)

    def drain(self, leader):
        node = self.node["NODE_NAME"]
        out = {}
        self.kubectl("label", "pod", leader, "-n", CNS, "soak-incluster/drain=first", "--overwrite")
        common = ["drain", node, "--ignore-daemonsets", "--delete-emptydir-data"]
        first = self.kubectl(*common, "--pod-selector", "soak-incluster/drain=first", "--timeout", "90s", check=False)
        out["first_eviction"] = "evicted" if first.returncode == 0 else f"failed: {first.stdout[-300:]}"
        second = self.kubectl(*common, "--pod-selector", APP_LABEL, "--timeout", "15s", check=False, timeout=60)
        refused = second.returncode != 0 and "disruption budget" in second.stdout
        out["second_eviction"] = "refused by the PodDisruptionBudget" if refused else f"not refused: {second.stdout[-300:]}"
        if first.returncode != 0:
            self.failures.append(f"drain: evicting the leader {leader} failed: {first.stdout[-300:]}")
        if not refused:
            self.failures.append(f"drain: the second eviction was not refused by the budget: {second.stdout[-300:]}")
        self.kubectl("uncordon", node)
        log(f"    drain: first eviction {out['first_eviction']}; second {out['second_eviction'][:60]}")
        return out

    def cut_rules(self, action):
        port = self.env["APISERVER_URL"].rsplit(":", 1)[1].strip("/")
        tag = ["-m", "comment", "--comment", "soak-incluster-cut-off", "-j", "DROP"]
        return [["iptables", action, "OUTPUT", "-p", "tcp", "-d", self.api_service_ip, "--dport", "443", *tag],
                ["iptables", action, "OUTPUT", "-p", "tcp", "-d", GATEWAY, "--dport", port, *tag]]

    def cut_off(self, leader):
        pid = self.container(leader, sandbox=True)
        if not pid:
            self.failures.append(f"cut-off: no sandbox of {leader}")
            return {}
        for rule in self.cut_rules("-I"):
            run_cmd(["nsenter", "-t", str(pid), "-n", *rule])
        start = time.time()
        time.sleep(self.a.cut_seconds)
        for rule in self.cut_rules("-D"):
            run_cmd(["nsenter", "-t", str(pid), "-n", *rule], check=False)
        return {"cut_from": start, "cut_to": time.time(), "cut_pod": leader}

    def memory_cgroup(self, pid):
        for line in open(f"/proc/{pid}/cgroup"):
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if "memory" in controllers.split(","):
                return f"/sys/fs/cgroup/memory{path}", "memory.limit_in_bytes", "memory.usage_in_bytes"
            if controllers == "" and os.path.exists(f"/sys/fs/cgroup{path}/memory.max"):
                return f"/sys/fs/cgroup{path}", "memory.max", "memory.current"
        return None, None, None

    def oom(self, leader):
        pid = self.container(leader)
        before = self.restarts_of(leader)
        cg, limit_file, usage_file = self.memory_cgroup(pid) if pid else (None, None, None)
        if not cg:
            self.failures.append(f"oom: no memory cgroup for {leader}")
            return {"ended": False}
        original = open(os.path.join(cg, limit_file)).read().strip()
        usage = int(open(os.path.join(cg, usage_file)).read())
        # Down to what the kernel can no longer reclaim (cgroup v1 refuses a lower limit with
        # EBUSY; v2 kills at once).
        limit, lowest = usage, None
        while limit > 1 << 20 and os.path.exists(f"/proc/{pid}"):
            try:
                with open(os.path.join(cg, limit_file), "w") as f:
                    f.write(str(limit))
                lowest = limit
                limit -= 1 << 20
                time.sleep(0.05)
            except OSError:
                break
        limit = lowest or usage
        # A process at rest may reuse what it freed for a long time: concurrent scrapes of its
        # /metrics (a TLS connection and a rendered body each) make it allocate past the limit.
        ip = next((i for i, p in self.pod_ips.items() if p == leader), None)
        done = threading.Event()
        burst = [threading.Thread(target=self.scrape_burst, args=(ip, done), daemon=True) for _ in range(16)]
        for t in burst:
            t.start()
        killed = self.wait(60, "OOM kill", lambda: self.restarts_of(leader) > before, fail=False)
        done.set()
        if not killed:
            try:  # not killed: the limit back as it was, so the run goes on unharmed
                with open(os.path.join(cg, limit_file), "w") as f:
                    f.write(original)
            except OSError:
                pass
        reason = self.last_termination(leader)
        log(f"    oom: limit lowered to {limit / 2**20:.1f} MiB (was using {usage / 2**20:.1f}); restarted={killed}, {reason}")
        if not killed or "OOMKilled" not in reason:
            self.failures.append(f"oom: {leader} not OOM-killed at the lowered limit ({reason})")
        return {"oom_limit_mib": round(limit / 2**20, 1), "oom_reason": reason, "ended": killed}

    def scrape_burst(self, ip, done):
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        while not done.is_set():
            try:
                req = urllib.request.Request(f"https://{ip}:10258/metrics", headers={"Authorization": f"Bearer {self.token}"})
                with urllib.request.urlopen(req, context=ctx, timeout=3) as r:
                    r.read()
            except Exception:
                time.sleep(0.1)

    def restarts_of(self, pod):
        p = self.kube.get(f"/api/v1/namespaces/{CNS}/pods/{pod}")
        return sum(c.get("restartCount", 0) for c in p.get("status", {}).get("containerStatuses", []))

    def last_termination(self, pod):
        p = self.kube.get(f"/api/v1/namespaces/{CNS}/pods/{pod}")
        for c in p.get("status", {}).get("containerStatuses", []):
            t = (c.get("lastState") or {}).get("terminated")
            if t:
                return f"{t.get('reason')} exit {t.get('exitCode')}"
        return "no termination"

    # ------------------------------------------------------------------ checks
    def unsettled(self):
        items = self.kube.get(f"/apis/apps/v1/namespaces/{NS}/deployments")["items"]
        ds = {d["metadata"]["name"]: d["spec"].get("replicas", 1) for d in items}
        return [w.name for w in self.workloads if not at_rest(w, self.level[w.name], ds.get(w.name, 0))]

    def early_downscales(self):
        """Downscales sooner than the HPA's window allows after a load it saw (bench/soak's rule)."""
        bad = []
        for name, changes in self.replica_log.items():
            w = self.by_name[name]
            levels = self.load_history.get(name, [])
            for i in range(1, len(changes)):
                t, r = changes[i]
                if r >= changes[i - 1][1]:
                    continue
                for j, (start, pods_worth) in enumerate(levels):
                    end = levels[j + 1][0] if j + 1 < len(levels) else math.inf
                    seen = end - SYNC >= start + METRICS_LAG and start + METRICS_LAG <= t
                    need = max(w.min_replicas, min(w.max_replicas, math.ceil(pods_worth)))
                    if seen and need > r and t < end - SYNC + window_of(w) - 5:
                        bad.append(f"{name} scaled {changes[i - 1][1]}->{r} at {t - self.t0:.0f}s, {t - end:.0f}s "
                                   f"after a load needing {need} ended (window {window_of(w)}s)")
                        break
        return bad

    def check_caches(self):
        leader = self.leader_pod()
        ip = next((i for i, p in self.pod_ips.items() if p == leader), None)
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        out = {}
        for resource, path in (("pods", "/api/v1/pods"), ("horizontalpodautoscalers", f"{HPA_API}/horizontalpodautoscalers"),
                               ("deployments", "/apis/apps/v1/deployments")):
            cached = server = None
            for _ in range(20):
                server = server_summary(self.kube, path)
                req = urllib.request.Request(f"https://{ip}:10258/metrics", headers={"Authorization": f"Bearer {self.token}"})
                try:
                    with urllib.request.urlopen(req, context=ctx, timeout=5) as r:
                        cached = cache_summary(r.read().decode(), resource)
                except Exception:
                    cached = (None, None)
                if tuple(cached) == server:
                    break
                time.sleep(1)
            out[resource] = {"server": server, "cache": cached}
            if tuple(cached) != server:
                self.failures.append(f"the leader's {resource} cache {cached} != server {server}")
        return out

    def check_restarts(self):
        """Restarts per pod, each placed in a fault's window; one outside every ending fault fails."""
        by_pod, unexplained = {}, []
        last = {}
        for t, pod, _, restarts, _ in self.samples:
            prev = last.get(pod)
            last[pod] = restarts
            by_pod[pod] = restarts
            if prev is None or restarts <= prev:
                continue
            if not any(f["kind"] in ENDING and f["start"] - 20 <= t <= f["end"] + 20 for f in self.faults):
                unexplained.append(f"{pod}: {restarts - prev} restart(s) seen at {t - self.t0:.0f}s, in no cut-off or oom")
        self.failures += unexplained
        return by_pod, unexplained

    def check_memory(self):
        out = {}
        by_process = {}
        for t, pod, pid, _, rss in self.samples:
            if pid and rss:
                by_process.setdefault((pod, pid), []).append((t, rss))
        for (pod, pid), s in by_process.items():
            first, last = s[0], s[-1]
            base = next((x for x in s if x[0] - first[0] >= 180), None)
            out[f"{pod} pid {pid}"] = {"first_mib": round(first[1], 1), "last_mib": round(last[1], 1),
                                       "peak_mib": round(max(x[1] for x in s), 1), "minutes": round((last[0] - first[0]) / 60, 1)}
            if base and last[0] - base[0] >= 120 and last[1] > base[1] * 1.2 + 4:
                self.failures.append(f"{pod} (pid {pid}): resident memory grew {base[1]:.1f} -> {last[1]:.1f} MiB")
        return out

    def check_writes(self):
        leases, writes = audit_terms.load(self.audit_log, SA_USER)
        terms, non_leader = audit_terms.attribute(leases, writes, self.pod_ips)
        overlapping = audit_terms.overlapping_writers(terms)
        for t, pod, category, code, holder in non_leader[:10]:
            self.failures.append(f"write by a non-leader: {pod} {category} ({code}) at {t - self.t0:.1f}s while "
                                 f"the Lease named '{holder}'")
        if len(non_leader) > 10:
            self.failures.append(f"... {len(non_leader) - 10} more writes by non-leaders")
        if not writes:
            self.failures.append("no write of the controller in the audit log")
        return terms, non_leader, overlapping, writes

    def gaps(self):
        """Failed scrapes, and the longest time without a successful one."""
        failed = sum(1 for _, ok in self.scrapes if not ok)
        longest, last_ok = 0.0, self.scrapes[0][0] if self.scrapes else 0
        for t, ok in self.scrapes:
            if ok:
                longest = max(longest, t - last_ok)
                last_ok = t
        by_kind = {}
        for f in self.faults:
            n = sum(1 for t, ok in self.scrapes if not ok and f["start"] <= t <= f["end"])
            by_kind[f["kind"]] = by_kind.get(f["kind"], 0) + n
        return {"scrapes": len(self.scrapes), "failed": failed, "longest_gap_s": round(longest, 1),
                "failed_by_fault": by_kind}

    # ------------------------------------------------------------------ run
    def plan(self):
        kinds = [k for k in KINDS for _ in range(self.a.per_kind)]
        self.rng.shuffle(kinds)
        span = self.a.minutes * 60 - 90
        return [(30 + i * span / len(kinds), k) for i, k in enumerate(kinds)]

    def run(self):
        log(f"soak-incluster: {self.a.minutes:g} min, seed {self.a.seed}, dir {self.dir}")
        self.cluster_up()
        self.start_sim()
        self.create_workloads()
        self.install()
        log(f"deploy/ installed: pods {self.ready_pods()}, leader {self.leader_pod()}")
        threads = [threading.Thread(target=f, daemon=True) for f in (self.watch_lease, self.scrape_loop, self.watch_replicas)]
        for t in threads:
            t.start()
        plan = self.plan()
        log("plan: " + ", ".join(f"{k}@{at:.0f}s" for at, k in plan))
        duration = self.a.minutes * 60
        self.t0 = time.time()
        self.load_history = {w.name: [(self.t0 - 3600, self.level[w.name])] for w in self.workloads}
        last_load_change = self.t0 + max(60, duration - WINDOW - 60)
        next_load, next_sample = self.t0 + 10, self.t0
        while time.time() - self.t0 < duration or plan:
            now = time.time()
            if now >= next_sample:
                self.sample()
                next_sample = now + 15
            if now >= next_load and now < last_load_change:
                self.change_load()
                next_load = now + 60
            if plan and now - self.t0 >= plan[0][0]:
                self.fault(plan.pop(0)[1])
                self.sample()
            time.sleep(1)
        log("faults done; holding the load until every workload is at its size")
        deadline = time.time() + WINDOW + 120
        off = None
        while time.time() < deadline:
            try:
                off = self.unsettled()
            except Exception:
                off = ["(list failed)"]
            if not off:
                break
            self.sample()
            time.sleep(5)
        self.sample()
        time.sleep(3)
        self.stop.set()
        if off:
            self.failures.append(f"{len(off)} workloads not at their size: {off}")
        return self.report(off)

    def report(self, off):
        caches = self.check_caches()
        early = self.early_downscales()
        self.failures += early
        restarts, unexplained = self.check_restarts()
        memory = self.check_memory()
        terms, non_leader, overlapping, writes = self.check_writes()
        gaps = self.gaps()
        by_kind = {}
        for f in self.faults:
            by_kind.setdefault(f["kind"], []).append(f)
        lines = [f"soak-incluster: {self.a.minutes:g} min, seed {self.a.seed}, 20 HPAs, image {self.image}", "",
                 "| fault | injected | handovers | handover s (median / max) | recovery s (max) | scrape failures |",
                 "| --- | --- | --- | --- | --- | --- |"]
        for kind in KINDS:
            fs = by_kind.get(kind, [])
            h = [f["handover_s"] for f in fs if f["handover_s"] is not None]
            hs = f"{statistics.median(h):.1f} / {max(h):.1f}" if h else "-"
            rec = f"{max(f['recovery_s'] for f in fs):.0f}" if fs else "-"
            lines.append(f"| {kind} | {len(fs)} | {len(h)} | {hs} | {rec} | {gaps['failed_by_fault'].get(kind, 0)} |")
        pods_writing = {}
        for term in terms:
            for pod, n in term["writes"].items():
                pods_writing[pod] = pods_writing.get(pod, 0) + n
        ok_writes = sum(1 for w in writes if 200 <= w[3] < 300)
        moved = [f["handover_s"] for f in self.faults if f["handover_s"] is not None]
        if moved:
            lines += ["", f"- handovers: {len(moved)}, median {statistics.median(moved):.1f} s, max {max(moved):.1f} s "
                          "(from the fault to the first new holder of the Lease, polled every 0.25 s)"]
        for f in by_kind.get("drain", []):
            lines.append(f"- drain at {f['start'] - self.t0:.0f} s: the leader's eviction {f.get('first_eviction')}; "
                         f"the other's {f.get('second_eviction', '')[:80]}")
        for f in by_kind.get("oom", []):
            lines.append(f"- oom at {f['start'] - self.t0:.0f} s: limit lowered to {f.get('oom_limit_mib')} MiB; "
                         f"last termination: {f.get('oom_reason')}")
        lines += ["",
                  f"- writes (scale, HPA, Events) in the audit log: {ok_writes} accepted "
                  f"({len(writes) - ok_writes} refused), over {len(terms)} leadership terms, by pod: "
                  + ", ".join(f"{p} {n}" for p, n in sorted(pods_writing.items())),
                  f"- writes by non-leaders: {len(non_leader)}; terms in which another pod wrote: {len(overlapping)}",
                  f"- early downscales: {len(early)}",
                  f"- /metrics through the Service: {gaps['scrapes']} scrapes, {gaps['failed']} failed, "
                  f"longest gap {gaps['longest_gap_s']} s",
                  f"- restarts by pod: " + ", ".join(f"{p} {n}" for p, n in sorted(restarts.items()))
                  + f" (outside a cut-off or oom: {len(unexplained)})",
                  "- resident memory by container: " + "; ".join(
                      f"{k}: {v['first_mib']} -> {v['last_mib']} MiB (peak {v['peak_mib']}, {v['minutes']} min)"
                      for k, v in memory.items()),
                  "- caches of the leader vs the server: " + ", ".join(
                      f"{r} {c['cache'][0] if c['cache'] else None}/{c['server'][0] if c['server'] else None}"
                      for r, c in caches.items()),
                  f"- workloads not at their size at the end: {len(off or [])}"]
        text = "\n".join(lines)
        print(text)
        print("soak-incluster: " + ("ok" if not self.failures else "FAILED:\n  " + "\n  ".join(self.failures)))
        result = {"minutes": self.a.minutes, "seed": self.a.seed, "per_kind": self.a.per_kind, "faults": self.faults,
                  "gaps": gaps, "terms": terms, "non_leader_writes": non_leader, "overlapping": len(overlapping),
                  "writes_accepted": ok_writes, "writes_refused": len(writes) - ok_writes,
                  "pods_writing": len(pods_writing), "early_downscales": early, "restarts": restarts,
                  "unexplained_restarts": len(unexplained), "memory": memory, "caches": caches,
                  "workloads": len(self.workloads), "unsettled": len(off or []), "failures": self.failures, "lease_log": self.lease_log, "table": text}
        with open(os.path.join(self.dir, "soak-incluster.json"), "w") as f:
            json.dump(result, f, indent=1, default=str)
        render.record("soak-incluster", results_tables(result), render.run_info(), MEASURES,
                      render.results_directory(self.a.results))
        return 0 if not self.failures else 1

    def teardown(self):
        self.stop.set()
        for p in self.procs.values():
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        if self.a.keep:
            log(f"--keep: cluster and node left up in {self.cluster}")
            return
        run_cmd([os.path.join(HACK, "local-node.sh"), "down", "--dir", self.cluster], check=False)
        run_cmd([os.path.join(HACK, "local-cluster.sh"), "down", "--dir", self.cluster], check=False)


def results_tables(result):
    """bench/results/soak-incluster.json's rows for one run (result as DIR/soak-incluster.json holds
    it): per kind of fault, and the checks."""
    run = {"minutes": result["minutes"], "per_kind": result["per_kind"], "seed": result["seed"]}
    faults = []
    for kind in KINDS:
        fs = [f for f in result["faults"] if f["kind"] == kind]
        moved = [f["handover_s"] for f in fs if f["handover_s"] is not None]
        faults.append(dict(run, fault=kind, injected=len(fs), handovers=len(moved),
                           handover_s=[statistics.median(moved), max(moved)] if moved else None,
                           recovery_s=max(f["recovery_s"] for f in fs) if fs else None,
                           failed_scrapes=result["gaps"]["failed_by_fault"].get(kind, 0)))
    gaps, caches = result["gaps"], result["caches"]
    names = {"pods": "pods", "horizontalpodautoscalers": "HPAs", "deployments": "Deployments"}
    equal = all(c["cache"] and c["server"] and tuple(c["cache"]) == tuple(c["server"]) for c in caches.values())
    rss = [v for m in result["memory"].values() for v in (m["first_mib"], m["last_mib"])]
    checks = dict(run, writes=[result["writes_accepted"], result["writes_refused"]], terms=len(result["terms"]),
                  pods_writing=result["pods_writing"], outside=len(result["non_leader_writes"]),
                  early=len(result["early_downscales"]), scrapes=[gaps["failed"], gaps["scrapes"]],
                  gap_s=gaps["longest_gap_s"], restarts=[sum(result["restarts"].values()), result["unexplained_restarts"]],
                  rss_mib=[min(rss), max(rss)] if rss else None,
                  caches=("equal: " if equal else "differ: ") + ", ".join(
                      f"{names.get(r, r)} {(c['server'] or [None])[0]}" for r, c in caches.items()),
                  at_size=f"{result['workloads'] - result['unsettled']} of {result['workloads']}",
                  result="ok" if not result["failures"] else f"failed: {len(result['failures'])} check(s)")
    variant = [("minutes", "minutes"), ("per_kind", "faults of each kind"), ("seed", "seed")]
    key = [c[0] for c in variant]
    return [
        render.table("faults", None, key + ["fault"], variant + [
            ("fault", "fault"), ("injected", "injected"), ("handovers", "handovers"),
            ("handover_s", "handover, s: median / max", {"digits": 1}),
            ("recovery_s", "recovery, s (max)", {"significant": 2}), ("failed_scrapes", "failed scrapes")], faults),
        render.table("checks", None, key, variant + [
            ("writes", "writes in the audit log, accepted / refused"), ("terms", "leadership terms"),
            ("pods_writing", "pods that wrote"), ("outside", "writes outside the writer's term"),
            ("early", "early downscales"), ("scrapes", "/metrics scrapes failed / made"),
            ("gap_s", "longest scrape gap (s)", {"digits": 1}),
            ("restarts", "container restarts / outside a cut-off or oom"),
            ("rss_mib", "resident memory per container, min / max (MiB)", {"digits": 1}),
            ("caches", "leader's caches against the server (objects)"), ("at_size", "workloads at their size"),
            ("result", "result")], [checks]),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--image-archive", default=os.path.join(ROOT, "build", "hpa-controller-image.tar"),
                   help="the image as `make image IMAGE_SAVE=FILE` writes it")
    p.add_argument("--sim", default=os.path.join(ROOT, "build", "cmd", "hpa-sim", "hpa-sim"))
    p.add_argument("--dir", help="where the cluster, logs and results go (default build/soak-incluster/<minutes>m)")
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--per-kind", type=int, default=None, help="faults of each kind (default 3; --short: 1)")
    p.add_argument("--short", action="store_true", help="the short variant: 10 minutes, one fault of each kind")
    p.add_argument("--seed", type=int, default=37)
    p.add_argument("--cut-seconds", type=int, default=35, help="how long the leader stays cut off from the API server")
    p.add_argument("--keep", action="store_true", help="leave the cluster and node up")
    render.add_argument(p)
    a = p.parse_args()
    if a.short:
        a.minutes = 10
        a.per_kind = a.per_kind or 1
    a.per_kind = a.per_kind or 3
    if os.geteuid() != 0:
        sys.exit("soak-incluster: needs root (a real kubelet, iptables in the pod's network namespace)")
    if not os.path.exists(a.image_archive):
        sys.exit(f"soak-incluster: no image archive at {a.image_archive} (make image IMAGE_SAVE=...)")
    soak = Soak(a)
    # SIGTERM (and SIGINT, which a shell may leave ignored for a background job) tear down too.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: sys.exit(143))
    code = 1
    try:
        code = soak.run()
    except Exception as e:
        log(f"soak-incluster: {e}")
        raise
    finally:
        soak.teardown()
    sys.exit(code)


if __name__ == "__main__":
    main()
