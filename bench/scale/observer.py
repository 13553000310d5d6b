"""Watches the benchmark's HPAs and Deployments and remembers, with the time each change was seen,
when every HPA first had a status with conditions and every change of a Deployment's
spec.replicas. Waits and figures are computed from this record, so nothing is polled."""
import threading
import time

from kube import ApiError

SELECTOR = {"labelSelector": "bench=scale"}


class Observer:
    def __init__(self, kube, hpa_path):
        self.kube = kube
        self.hpa_path = hpa_path
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.hpas = {}     # key -> {"uid", "status_at"}
        self.deploys = {}  # key -> [(time, replicas)], the first entry as first seen
        self.threads = []
        self.synced = {"hpa": threading.Event(), "deploy": threading.Event()}

    def start(self):
        for kind, path, handle in (("hpa", self.hpa_path, self._hpa), ("deploy", "/apis/apps/v1/deployments", self._deploy)):
            t = threading.Thread(target=self._run, args=(kind, path, handle), daemon=True, name=f"watch-{kind}")
            t.start()
            self.threads.append(t)
        for e in self.synced.values():
            e.wait(60)

    def _run(self, kind, path, handle):
        while not self.stop.is_set():
            try:
                items, rv = self.kube.list(path, SELECTOR)
                now = time.time()
                with self.lock:
                    self._replace(kind, items, now, handle)
                self.synced[kind].set()
                for typ, obj in self.kube.watch(path, SELECTOR, rv, self.stop):
                    with self.lock:
                        handle(typ, obj, time.time())
            except ApiError as e:
                if e.status != 410:
                    print(f"observer: {kind}: {e}", flush=True)
                    time.sleep(1)
            except Exception as e:  # keep watching whatever happens; report it
                print(f"observer: {kind}: {e!r}", flush=True)
                time.sleep(1)

    def _replace(self, kind, items, now, handle):
        store = self.hpas if kind == "hpa" else self.deploys
        present = {key_of(o) for o in items}
        for key in list(store):
            if key not in present:
                del store[key]
        for o in items:
            handle("MODIFIED", o, now)

    def _hpa(self, typ, obj, now):
        key = key_of(obj)
        if typ == "DELETED":
            self.hpas.pop(key, None)
            return
        uid = obj["metadata"].get("uid")
        has_status = bool((obj.get("status") or {}).get("conditions"))
        entry = self.hpas.get(key)
        if entry is None or entry["uid"] != uid:
            entry = self.hpas[key] = {"uid": uid, "status_at": None}
        if has_status and entry["status_at"] is None:
            entry["status_at"] = now

    def _deploy(self, typ, obj, now):
        key = key_of(obj)
        if typ == "DELETED":
            self.deploys.pop(key, None)
            return
        replicas = (obj.get("spec") or {}).get("replicas", 1)
        history = self.deploys.setdefault(key, [])
        if not history or history[-1][1] != replicas:
            history.append((now, replicas))

    # Queries (thread-safe).
    def hpa_count(self):
        with self.lock:
            return len(self.hpas)

    def status_times(self):
        """Time each HPA first had conditions (None: not yet)."""
        with self.lock:
            return {k: v["status_at"] for k, v in self.hpas.items()}

    def replicas(self):
        with self.lock:
            return {k: h[-1][1] for k, h in self.deploys.items() if h}

    def first_change(self, key, since, predicate):
        """Time of the first spec.replicas change seen after `since` whose value satisfies
        `predicate`, or None."""
        with self.lock:
            for t, r in self.deploys.get(key, []):
                if t > since and predicate(r):
                    return t
        return None

    def changes_between(self, start, end):
        with self.lock:
            return sum(1 for h in self.deploys.values() for t, _ in h[1:] if start <= t < end)


def key_of(obj):
    meta = obj.get("metadata", {})
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"
