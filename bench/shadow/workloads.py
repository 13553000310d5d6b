"""The workloads of bench-shadow: one Deployment and its HPA each, the metric it scales on, and
how a load becomes a change hpa-sim's POST /set takes."""
CPU_REQUEST_MILLI = 100

# The `behavior` stanza the HPAs that have one take.
BEHAVIORS = [
    {"scaleUp": {"stabilizationWindowSeconds": 30, "policies": [{"type": "Pods", "value": 2, "periodSeconds": 30}]},
     "scaleDown": {"stabilizationWindowSeconds": 60,
                   "policies": [{"type": "Percent", "value": 50, "periodSeconds": 30}]}},
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


def step_fleet():
    """The step mode's 20 HPAs: 8 CPU, 6 Pods, 6 External; the odd-numbered half with `behavior`."""
    kinds = ["cpu"] * 8 + ["pods"] * 6 + ["external"] * 6
    return [Workload(f"w{i}", kind, BEHAVIORS[0] if i % 2 == 1 else None) for i, kind in enumerate(kinds)]

