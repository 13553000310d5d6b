"""The workloads of bench-shadow: one Deployment and its HPA each, the metric it scales on, and
how a load becomes a change hpa-sim's POST /set takes."""
import math

CPU_REQUEST_MILLI = 100

# One replica's worth of load in each metric's unit (milli), from the targets metric_spec sets:
# 50 % of a 100m request, an average of 10 per pod, an average of 5 per replica.
MILLI_PER_REPLICA = {"cpu": CPU_REQUEST_MILLI // 2, "pods": 10_000, "external": 5_000}

# The `behavior` stanzas the HPAs that have one take. The first is the step mode's; the day mode
# cycles through all three, so slow and fast scale-ups, short and long windows, a Pods and a
# Percent policy and both selectPolicy values are all compared.
BEHAVIORS = [
    {"scaleUp": {"stabilizationWindowSeconds": 30, "policies": [{"type": "Pods", "value": 2, "periodSeconds": 30}]},
     "scaleDown": {"stabilizationWindowSeconds": 60,
                   "policies": [{"type": "Percent", "value": 50, "periodSeconds": 30}]}},
    {"scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                 "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15},
                              {"type": "Pods", "value": 4, "periodSeconds": 15}]},
     "scaleDown": {"stabilizationWindowSeconds": 120, "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}},
    {"scaleUp": {"stabilizationWindowSeconds": 60, "policies": [{"type": "Pods", "value": 3, "periodSeconds": 60}]},
     "scaleDown": {"stabilizationWindowSeconds": 180, "selectPolicy": "Min",
                   "policies": [{"type": "Percent", "value": 30, "periodSeconds": 60},
                                {"type": "Pods", "value": 1, "periodSeconds": 60}]}},
]


class Workload:
    """One Deployment and its HPA: the metric it scales on, its bounds, its `behavior` (None
    without) and its load when the run starts (`initial`, an hpa-sim change)."""

    def __init__(self, name, metric, behavior=None, min_replicas=1, max_replicas=10):
        self.name, self.metric, self.behavior = name, metric, behavior
        self.min_replicas, self.max_replicas = min_replicas, max_replicas
        self.replicas = 2  # the Deployment's replicas when it is created
        self.initial = self.load_for(2)

    def metric_spec(self):
        if self.metric == "cpu":
            return {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}
        if self.metric == "pods":
            return {"type": "Pods", "pods": {"metric": {"name": "http_requests"},
                                              "target": {"type": "AverageValue", "averageValue": "10"}}}
        return {"type": "External", "external": {"metric": {"name": f"queue_{self.name}"},
                                                  "target": {"type": "AverageValue", "averageValue": "5"}}}

    def hpa_spec(self):
        spec = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": self.name},
                "minReplicas": self.min_replicas, "maxReplicas": self.max_replicas, "metrics": [self.metric_spec()]}
        if self.behavior is not None:
            spec["behavior"] = self.behavior
        return spec

    def load_for(self, replicas):
        """The step mode's change: about `replicas` replicas' worth (97 % of it, as real load is a little off-target)."""
        if self.metric == "cpu":
            return {"workload": self.name, "cpu": f"{int(replicas * CPU_REQUEST_MILLI * 0.5 * 0.97)}m"}
        if self.metric == "pods":
            return {"workload": self.name, "podMetric": "http_requests", "value": str(int(replicas * 10 * 0.97))}
        return {"external": f"queue_{self.name}", "value": str(int(replicas * 5 * 0.97))}

    def milli_for(self, pods_worth):
        """A load of `pods_worth` replicas' worth in the metric's unit (milli), as hpa-sim serves it."""
        return round(pods_worth * MILLI_PER_REPLICA[self.metric])

    def change_for(self, pods_worth):
        """The change that sets a load of `pods_worth` replicas' worth (any fraction of one)."""
        value = f"{self.milli_for(pods_worth)}m"
        if self.metric == "cpu":
            return {"workload": self.name, "cpu": value}
        if self.metric == "pods":
            return {"workload": self.name, "podMetric": "http_requests", "value": value}
        return {"external": f"queue_{self.name}", "value": value}

    def start_at(self, pods_worth):
        """Starts the run at this load, the Deployment at the replicas it asks for within the bounds."""
        self.initial = self.change_for(pods_worth)
        self.replicas = min(self.max_replicas, max(self.min_replicas, math.ceil(pods_worth)))


def step_fleet():
    """The step mode's 20 HPAs: 8 CPU, 6 Pods, 6 External; the odd-numbered half with `behavior`."""
    kinds = ["cpu"] * 8 + ["pods"] * 6 + ["external"] * 6
    return [Workload(f"w{i}", kind, BEHAVIORS[0] if i % 2 == 1 else None) for i, kind in enumerate(kinds)]


def day_fleet(rng, count=100):
    """The day mode's HPAs: a third each on CPU, a Pods and an External metric, and across each
    kind a third with `behavior`; min 1 or 2, max 6 to 12 (drawn from `rng`)."""
    workloads = []
    for i in range(count):
        kind = ("cpu", "pods", "external")[i * 3 // count]
        behavior = BEHAVIORS[(i // 3) % len(BEHAVIORS)] if i % 3 == 1 else None
        workloads.append(Workload(f"d{i:03d}", kind, behavior, min_replicas=rng.choice([1, 1, 2]),
                                  max_replicas=rng.choice([6, 8, 10, 12])))
    return workloads
