#!/usr/bin/env python3
"""Writes the explain snapshots of upstream's HPA test tables (tests/explain/upstream/<era>/).

Each upstream test function becomes one YAML snapshot named after it; a table test (several
subcases) puts each subcase in a namespace of its own (c01, c02, ...) and names it with --hpa.
The numbers below are transcribed from upstream's test files (see README.md for the files and
commits); the harness each upstream file uses is rebuilt here, once per harness:

- rc_*:   replica_calculator_test.go (2 containers per pod, each requesting requests[i], metrics
          per container; the calculator's own answer is checked: metrics.0.proposal, not the
          normalized count).
- ctrl_*: horizontal_test.go's testCase (requests split over 2 containers, levels per pod, the
          Ready condition's lastTransitionTime at the start time, status and conditions checked).
- norm_*: the normalization tables (stabilization, behavior rates), driven by an External
          AverageValue metric with target 1 whose value is the prenormalized count.

Usage: generate.py [--check]   (--check: exit 1 when a committed file differs from what it writes)
"""
import datetime
import os
import sys
import textwrap

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
NOW = datetime.datetime(2026, 1, 1, 12, 0, 0, tzinfo=datetime.timezone.utc)
NS = "test-namespace"

# The controller's flags as upstream's tests construct it (replica_calculator.go's
# defaultTesting* constants: tolerance 0.1, CPU initialization period 2 min, readiness delay 10 s;
# horizontal_test.go: a 5 min downscale stabilization window).
HARNESS_ARGS = ("--horizontal-pod-autoscaler-tolerance=0.1 "
                "--horizontal-pod-autoscaler-cpu-initialization-period=2m "
                "--horizontal-pod-autoscaler-initial-readiness-delay=10s "
                "--horizontal-pod-autoscaler-downscale-stabilization=5m")
# Normalization tables: the tolerance is 0 so that the metric proposes exactly the
# prenormalized count (upstream passes that count in directly; tolerance plays no part there).
NORM_ARGS = HARNESS_ARGS.replace("tolerance=0.1", "tolerance=0")

SOURCES = {
    "rc-1.20": ("arjunrn/kubernetes", "baac655e46a42ef1d1e11d99bcd8bf1f545272f3",
                "pkg/controller/podautoscaler/replica_calculator_test.go",
                "a fork's copy from 1.20 development (the ContainerResource branch, before kubernetes#95560); "
                "no kubernetes/kubernetes commit of the 1.20 file was found"),
    "rc-1.32": ("kubernetes/kubernetes", "78fc8e44052f699bf598f84b697b41e5a328c9c5",
                "pkg/controller/podautoscaler/replica_calculator_test.go",
                "after kubernetes#127193 and before configurable tolerances: the 1.32 table"),
    "ctrl-1.20": ("kubernetes/kubernetes", "4e62298c1bd12c8b9b9c7337aa7fd07a8b9c37a8",
                  "pkg/controller/podautoscaler/horizontal_test.go", "the 1.20 table"),
    "ctrl-1.32": ("kubernetes/kubernetes", "003e86297d18a8538c9da3619871393f9703bf70",
                  "pkg/controller/podautoscaler/horizontal_test.go",
                  "client-go 1.31 work queue, before configurable tolerances: the 1.31/1.32 table"),
}

ERAS = {
    # era directory: (rules every case is run with, the sources' keys)
    "v1.20": (["1.20"], "rc-1.20", "ctrl-1.20"),
    "v1.32": (["1.32", "1.30"], "rc-1.32", "ctrl-1.32"),
}


def ts(seconds):
    return (NOW + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


HOT, COOL, OLD = 0, -180, -3600  # pod start: upstream's hot (now), cool (3 min ago), and "never set"


def start_of(code):
    return {"H": HOT, "C": COOL, None: OLD}[code]


def pod(name, ns, request_milli, ready="T", start=None, phase="R", deleting=False, labels=None,
        resource="cpu", containers=2, per_container=None):
    """A pod as the harnesses build it: containers container1..N, a Ready condition whose
    lastTransitionTime is the start time (upstream: the start time, or none in the replica
    calculator harness, which decides alike for these pods), startTime, phase."""
    start_at = start_of(start)
    conts = []
    for j in range(containers):
        c = {"name": f"container{j + 1}"}
        milli = per_container[j] if per_container else request_milli
        if milli is not None:
            c["resources"] = {"requests": {resource: f"{milli}m"}}
        conts.append(c)
    status = {"phase": {"R": "Running", "F": "Failed", "P": "Pending", "S": "Succeeded"}[phase],
              "startTime": ts(start_at),
              "conditions": [{"type": "Ready", "status": "True" if ready == "T" else "False",
                              "lastTransitionTime": ts(start_at)}]}
    meta = {"name": name, "namespace": ns, "labels": labels or {"name": "test-pod"}}
    if deleting:
        meta["deletionTimestamp"] = ts(0)
    return {"metadata": meta, "spec": {"containers": conts}, "status": status}


def hpa(ns, metrics, min_r=1, max_r=1000, behavior=None, status=None, target=None, name="test-hpa"):
    kind, api, tname = target or ("ReplicationController", "v1", "test-rc")
    spec = {"scaleTargetRef": {"apiVersion": api, "kind": kind, "name": tname},
            "minReplicas": min_r, "maxReplicas": max_r}
    if behavior is not None:
        spec["behavior"] = behavior
    spec["metrics"] = metrics
    doc = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
           "metadata": {"name": name, "namespace": ns}, "spec": spec}
    if status:
        doc["status"] = status
    return doc


def scale(ns, spec_r, status_r, selector="name=test-pod", name="test-rc"):
    st = {"replicas": status_r}
    if selector is not None:
        st["selector"] = selector
    return {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": spec_r}, "status": st}


def history(ns, recs, up=(), down=(), name="test-hpa"):
    return {"apiVersion": "hpa-controller.io/v1alpha1", "kind": "AutoscalerHistory",
            "metadata": {"name": name, "namespace": ns},
            "recommendations": [{"replicas": r, "timestamp": ts(t)} for r, t in recs],
            "scaleUpEvents": [{"replicaChange": c, "timestamp": ts(t), "outdated": False} for c, t in up],
            "scaleDownEvents": [{"replicaChange": c, "timestamp": ts(t), "outdated": False} for c, t in down]}


def pod_list(pods):
    return {"apiVersion": "v1", "kind": "PodList", "items": pods}


def pod_metrics(ns, entries, window="1m", when=0):
    """entries: (pod name, [(container, {resource: quantity})...])"""
    return {"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetricsList",
            "items": [{"metadata": {"name": n, "namespace": ns, "labels": {"name": "test-pod"}},
                       "timestamp": ts(when), "window": window,
                       "containers": [{"name": c, "usage": u} for c, u in conts]}
                      for n, conts in entries]}


def custom_pod_metrics(ns, levels):
    return {"apiVersion": "custom.metrics.k8s.io/v1beta2", "kind": "MetricValueList", "metadata": {},
            "items": [{"describedObject": {"kind": "Pod", "namespace": ns, "name": f"test-pod-{i}", "apiVersion": "/v1"},
                       "metric": {"name": "qps"}, "timestamp": ts(0), "value": f"{v}m"}
                      for i, v in enumerate(levels)]}


def object_metric(ns, value):
    return {"apiVersion": "custom.metrics.k8s.io/v1beta2", "kind": "MetricValueList", "metadata": {},
            "items": [{"describedObject": {"kind": "Deployment", "namespace": ns, "name": "some-deployment",
                                           "apiVersion": "apps/v1"},
                       "metric": {"name": "qps"}, "timestamp": ts(0), "value": f"{value}m"}]}


def external_metric(ns, levels, labels=None, name="qps"):
    items = []
    for v in levels:
        item = {"metricName": name, "timestamp": ts(0), "value": f"{v}m"}
        if labels:
            item["metricLabels"] = labels
        items.append(item)
    return {"apiVersion": "external.metrics.k8s.io/v1beta1", "kind": "ExternalMetricValueList",
            "metadata": {"namespace": ns}, "items": items}


# --- metric specs ---------------------------------------------------------------------------

def m_cpu(target):
    return {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": target}}}


def m_container(container, target, resource="cpu"):
    return {"type": "ContainerResource", "containerResource": {
        "name": resource, "container": container, "target": {"type": "Utilization", "averageUtilization": target}}}


def m_pods(avg_milli):
    return {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": f"{avg_milli}m"}}}


def m_object(milli, average=False, selector=False):
    metric = {"name": "qps"}
    if selector:
        metric["selector"] = {}
    target = {"type": "AverageValue", "averageValue": f"{milli}m"} if average else {"type": "Value", "value": f"{milli}m"}
    return {"type": "Object", "object": {"describedObject": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "some-deployment"},
                                         "metric": metric, "target": target}}


def m_external(milli, average=False, labels=None, name="qps"):
    metric = {"name": name, "selector": {"matchLabels": labels} if labels else {}}
    target = {"type": "AverageValue", "averageValue": f"{milli}m"} if average else {"type": "Value", "value": f"{milli}m"}
    return {"type": "External", "external": {"metric": metric, "target": target}}


CHEDDAR = {"type": "CheddarCheese"}


# --- checks -----------------------------------------------------------------------------------

def j(value):
    return yaml.safe_dump(value, default_flow_style=True, width=10000).strip() if not isinstance(value, (int, str, bool)) \
        else ('"' + value + '"' if isinstance(value, str) else ("true" if value is True else "false" if value is False else str(value)))


STATUS_OK = [("AbleToScale", "True", "SucceededRescale"), ("ScalingActive", "True", "ValidMetricFound"),
             ("ScalingLimited", "False", "DesiredWithinRange")]


def ok(*overrides):
    """upstream's statusOkWithOverrides: each override replaces the condition of its type."""
    conds = list(STATUS_OK)
    for o in overrides:
        for i, c in enumerate(conds):
            if c[0] == o[0]:
                conds[i] = o
                break
        else:
            conds.append(o)
    return conds


def cond_checks(conds):
    return [f"status.conditions[type] == {jlist([c[0] for c in conds])}",
            f"status.conditions[status] == {jlist([c[1] for c in conds])}",
            f"status.conditions[reason] == {jlist([c[2] for c in conds])}"]


def jlist(values):
    return "[" + ", ".join(j(v) for v in values) + "]"


# --- the replica calculator harness ----------------------------------------------------------

def R(name, current, expected=None, *, target=None, requests=(), levels=(), util=None, value=None,
      ready=None, start=None, phase=None, deleting=None, container=None, pod_names=None, err=None,
      resource="cpu", metric=None, mlevels=(), mtarget=None, usage=None, selector=False,
      eras=("v1.20", "v1.32"), note=None, per_rules=None):
    return dict(kind="rc", name=name, current=current, expected=expected, target=target, requests=list(requests),
                levels=[lv if isinstance(lv, list) else [lv, lv] for lv in levels], util=util, value=value,
                ready=ready, start=start, phase=phase, deleting=deleting, container=container, pod_names=pod_names,
                err=err, resource=resource, metric=metric, mlevels=list(mlevels), mtarget=mtarget, usage=usage,
                selector=selector, eras=eras, note=note, per_rules=per_rules or {})


def rc_docs(c, ns):
    n = max(c["current"], len(c["phase"] or ""))
    pods = []
    for i in range(n):
        req = c["requests"][i] if i < len(c["requests"]) else None
        pods.append(pod(f"test-pod-{i}", ns, req,
                        ready=(c["ready"][i] if c["ready"] and i < len(c["ready"]) else "T"),
                        start=(c["start"][i] if c["start"] else None),
                        phase=(c["phase"][i] if c["phase"] else "R"),
                        deleting=bool(c["deleting"] and c["deleting"][i] == "D"), resource=c["resource"]))
    docs = []
    if c["metric"] is None:
        spec = m_container(c["container"], c["target"]) if c["container"] else m_cpu(c["target"])
        metrics = None
        if c["levels"]:
            entries = []
            for i, lv in enumerate(c["levels"]):
                pname = c["pod_names"][i] if c["pod_names"] and i < len(c["pod_names"]) else f"test-pod-{i}"
                entries.append((pname, [(f"container{k + 1}", {c["resource"]: f"{v}m"}) for k, v in enumerate(lv)]))
            metrics = pod_metrics(ns, entries)
    else:
        mt, lv, tgt = c["metric"], c["mlevels"], c["mtarget"]
        labels = {"label": "value"} if c["selector"] else None
        spec, metrics = {
            "pods": (m_pods(tgt), custom_pod_metrics(ns, lv)),
            "object": (m_object(tgt), object_metric(ns, lv[0])),
            "objectPerPod": (m_object(tgt, average=True), object_metric(ns, lv[0])),
            "external": (m_external(tgt, labels=labels), external_metric(ns, lv, labels)),
            "externalPerPod": (m_external(tgt, average=True, labels=labels), external_metric(ns, lv, labels)),
        }[mt]
    docs.append(hpa(ns, [spec]))
    docs.append(scale(ns, c["current"], c["current"]))
    docs.append(pod_list(pods))
    if metrics:
        docs.append(metrics)
    return docs


def rc_checks(c, rules):
    exp = dict(c, **c["per_rules"].get(rules, {}))
    if exp["err"]:
        return [f"metrics.0.error ~ {j(exp['err'])}"]
    checks = [f"metrics.0.proposal == {exp['expected']}"]
    if exp["metric"] is None:
        checks += [f"metrics.0.calculation.utilization == {exp['util']}", f"metrics.0.calculation.usageMilli == {exp['value']}"]
    else:
        checks += [f"metrics.0.calculation.usageMilli == {exp['usage']}"]
    return checks


# --- the controller harness -------------------------------------------------------------------

def C(name, min_r, max_r, spec_r, status_r, expected, *, cpu=0, levels=(), requests=None, ready=None,
      start=None, phase=None, deleting=None, metrics=(), conds=None, cpu_current=None, verify_cpu=False,
      recs=None, last_scale=None, up=None, down=None, target=None, events=None, scale_selector="name=test-pod",
      no_scale=False, other_hpa=None, pod_labels=None, bare_pods=False, status=None, absent=(),
      extra=(), eras=("v1.20", "v1.32"), note=None, per_era=None):
    return dict(kind="ctrl", extra=list(extra), name=name, min=min_r, max=max_r, spec=spec_r, statusR=status_r, expected=expected, cpu=cpu,
                levels=list(levels), requests=requests, ready=ready, start=start, phase=phase, deleting=deleting,
                metrics=list(metrics), conds=conds, cpu_current=cpu_current, verify_cpu=verify_cpu, recs=recs,
                last_scale=last_scale, up=up, down=down, target=target, events=events, scale_selector=scale_selector,
                no_scale=no_scale, other_hpa=other_hpa, pod_labels=pod_labels, bare_pods=bare_pods, status=status,
                absent=set(absent), eras=eras, note=note, per_era=per_era or {})


def rules(pods=0, pods_period=0, percent=0, percent_period=0, window=0, select="Max"):
    """upstream's generateScalingRules"""
    r = {"stabilizationWindowSeconds": window, "selectPolicy": select, "policies": []}
    if pods:
        r["policies"].append({"type": "Pods", "value": pods, "periodSeconds": pods_period})
    if percent:
        r["policies"].append({"type": "Percent", "value": percent, "periodSeconds": percent_period})
    if not r["policies"]:
        del r["policies"]
    return r


def uniform(events, period=120):
    """upstream's generateEventsUniformDistribution: (change, seconds from now)"""
    seg = period / len(events)
    return [(e, -int(period - seg * (i + 1) + seg / 2)) for i, e in enumerate(events)]


def ctrl_docs(c, ns):
    metrics = ([m_cpu(c["cpu"])] if c["cpu"] > 0 else []) + c["metrics"]
    if not metrics:
        # upstream adds a CPU metric without a target (an autoscaling/v1 HPA without
        # targetCPUUtilizationPercentage, which the controller reads as 80 %); only the cases that
        # decide before the metrics have none.
        metrics = [m_cpu(80)]
    behavior = None
    if c["up"] is not None or c["down"] is not None:
        behavior = {}
        if c["up"] is not None:
            behavior["scaleUp"] = c["up"]
        if c["down"] is not None:
            behavior["scaleDown"] = c["down"]
    status = c["status"] or {"currentReplicas": c["spec"], "desiredReplicas": c["spec"]}
    if c["last_scale"] is not None and "lastScaleTime" not in status:
        status["lastScaleTime"] = ts(c["last_scale"])
    docs = [hpa(ns, metrics, c["min"], c["max"], behavior, status, c["target"])]
    tname = c["target"][2] if c["target"] else "test-rc"
    if not c["no_scale"]:
        docs.append(scale(ns, c["spec"], c["statusR"], c["scale_selector"], name=tname))
    if c["other_hpa"]:
        docs.append(hpa(ns, [m_cpu(80)], 1, 10, target=("ReplicationController", "v1", "test-rc-2"), name="test-hpa-2"))
        docs.append(scale(ns, 1, 1, c["other_hpa"], name="test-rc-2"))
    if c["recs"] is not None:
        docs.append(history(ns, c["recs"]))
    reqs = c["requests"]
    n = len(reqs) if reqs is not None else c["statusR"]
    pods = []
    for i in range(n):
        if c["bare_pods"]:
            pods.append({"metadata": {"name": f"test-pod-{i}", "namespace": ns, "labels": c["pod_labels"]}})
            continue
        req = reqs[i] if reqs is not None else 1000
        pods.append(pod(f"test-pod-{i}", ns, None, ready=(c["ready"][i] if c["ready"] else "T"),
                        start=(c["start"][i] if c["start"] else None), phase=(c["phase"][i] if c["phase"] else "R"),
                        deleting=bool(c["deleting"] and c["deleting"][i] == "D"), per_container=[req // 2, req // 2],
                        labels=c["pod_labels"]))
    docs.append(pod_list(pods))
    kinds = {m["type"] for m in metrics}
    if kinds & {"Resource", "ContainerResource"} and "resource" not in c["absent"]:
        docs.append(pod_metrics(ns, [(f"test-pod-{i}", [(f"container{k}", {"cpu": f"{lv // 2}m", "memory": "512Ki"}) for k in (1, 2)])
                                     for i, lv in enumerate(c["levels"])]))
    if "Pods" in kinds and "pods" not in c["absent"]:
        docs.append(custom_pod_metrics(ns, c["levels"]))
    if "Object" in kinds and "object" not in c["absent"]:
        docs.append(object_metric(ns, c["levels"][0]))
    if "External" in kinds and "external" not in c["absent"]:
        docs.append(external_metric(ns, c["levels"]))
    return docs


def ctrl_checks(c, era):
    exp = dict(c, **c["per_era"].get(era, {}))
    # upstream checks the status it writes (its desiredReplicas stays as read when the Scale cannot be read)
    checks = [f"status.desiredReplicas == {exp['expected']}", f"rescale == {j(exp['spec'] != exp['expected'])}"]
    checks += cond_checks(exp["conds"] if exp["conds"] is not None else STATUS_OK)
    if exp["verify_cpu"]:
        cur = exp["cpu_current"]
        if cur is None:  # upstream's computeCPUCurrent
            cur = 100 * sum(exp["levels"]) // sum(exp["requests"])
        checks.append(f"status.currentMetrics.0.resource.current.averageUtilization == {cur}")
    if exp["events"] is not None:
        checks.append(f"events[reason] == {jlist([e[0] for e in exp['events']])}")
        # "; " separates checks, so a message is checked in its parts
        checks += [f"events.{i}.message ~ {j(part)}" for i, e in enumerate(exp["events"]) for part in e[1].split("; ")]
    return checks + exp["extra"]


# --- the normalization harness ----------------------------------------------------------------

def N(name, current, prenorm, expected, *, cond=None, min_r=1, max_r=1000, up=None, down=None, behavior=False,
      up_events=(), down_events=(), recs=(), stabilized=None, rec_values=None, rec_count=None, up_limit=None,
      down_limit=None, eras=("v1.20", "v1.32"), note=None, per_era=None):
    return dict(kind="norm", name=name, current=current, prenorm=prenorm, expected=expected, cond=cond, min=min_r,
                max=max_r, up=up, down=down, behavior=behavior or up is not None or down is not None,
                up_events=list(up_events), down_events=list(down_events), recs=list(recs), stabilized=stabilized,
                rec_values=rec_values, rec_count=rec_count, up_limit=up_limit, down_limit=down_limit, eras=eras,
                note=note, per_era=per_era or {})


def norm_docs(c, ns):
    behavior = None
    if c["behavior"]:
        behavior = {}
        if c["up"] is not None:
            behavior["scaleUp"] = c["up"]
        if c["down"] is not None:
            behavior["scaleDown"] = c["down"]
    # External values are not namespaced: each subcase selects its own series by a label.
    docs = [hpa(ns, [m_external(1000, average=True, name="prenormalized", labels={"case": ns})], c["min"], c["max"], behavior,
                {"currentReplicas": c["current"], "desiredReplicas": c["current"]}),
            scale(ns, c["current"], c["current"]),
            history(ns, c["recs"], c["up_events"], c["down_events"]),
            pod_list([]),
            external_metric(ns, [c["prenorm"] * 1000], labels={"case": ns}, name="prenormalized")]
    return docs


def norm_checks(c, era):
    exp = dict(c, **c["per_era"].get(era, {}))
    checks = [f"metrics.0.proposal == {exp['prenorm']}"]
    if exp["expected"] is not None:
        checks.append(f"desiredReplicas == {exp['expected']}")
    if exp["cond"] is not None:
        checks.append(f"status.conditions[type=ScalingLimited].reason == {j(exp['cond'])}")
    if exp["stabilized"] is not None:
        checks.append(f"normalization.stabilized == {exp['stabilized']}")
    if exp["rec_values"] is not None:
        checks.append(f"history.recommendations[replicas] == {jlist(exp['rec_values'])}")
    if exp["rec_count"] is not None:
        checks.append(f"len(history.recommendations) == {exp['rec_count']}")
    if exp["up_limit"] is not None:
        checks.append(f"normalization.scaleUpLimit == {exp['up_limit']}")
    if exp["down_limit"] is not None:
        checks.append(f"normalization.scaleDownLimit == {exp['down_limit']}")
    return checks


# --- pod grouping and requests (unit tables of the calculator's helpers) ------------------------

def G(name, pods, metrics, groups, resource="cpu", eras=("v1.20", "v1.32"), note=None):
    """pods: (name, phase, start seconds or None, ready 'T'/'F'/None, ready since seconds, deleting);
    metrics: name -> (timestamp seconds, window) ; groups: name -> explain's group"""
    return dict(kind="group", name=name, pods=pods, gmetrics=metrics, groups=groups, resource=resource, eras=eras, note=note)


def group_docs(c, ns):
    pods = []
    for pname, phase, start, ready, since, deleting in c["pods"]:
        status = {"phase": phase}
        if start is not None:
            status["startTime"] = ts(start)
        if ready is not None:
            status["conditions"] = [{"type": "Ready", "status": "True" if ready == "T" else "False",
                                     "lastTransitionTime": ts(since)}]
        meta = {"name": pname, "namespace": ns, "labels": {"name": "test-pod"}}
        if deleting:
            meta["deletionTimestamp"] = ts(-3600)
        q = "1" if c["resource"] == "cpu" else "1Mi"
        pods.append({"metadata": meta, "spec": {"containers": [{"name": "container1", "resources": {"requests": {c["resource"]: q}}}]},
                     "status": status})
    # a ready pod beside them, so that the calculation completes and shows every pod's group
    q = "1" if c["resource"] == "cpu" else "1Mi"
    pods.append({"metadata": {"name": "companion", "namespace": ns, "labels": {"name": "test-pod"}},
                 "spec": {"containers": [{"name": "container1", "resources": {"requests": {c["resource"]: q}}}]},
                 "status": {"phase": "Running", "startTime": ts(OLD),
                            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": ts(OLD)}]}})
    gmetrics = dict(c["gmetrics"], companion=(0, "1m"))
    entries = [{"metadata": {"name": pname, "namespace": ns, "labels": {"name": "test-pod"}}, "timestamp": ts(t), "window": w,
                "containers": [{"name": "container1", "usage": {c["resource"]: "1m"}}]}
               for pname, (t, w) in gmetrics.items()]
    metric = m_cpu(100) if c["resource"] == "cpu" else {
        "type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 100}}}
    return [hpa(ns, [metric]), scale(ns, len(pods), len(pods)), pod_list(pods),
            {"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetricsList", "items": entries}]


def group_checks(c, era):
    return [f"metrics.0.calculation.pods[name={p}].group == {j(g)}" for p, g in dict(c["groups"], companion="ready").items()]


def Q(name, containers, init, container, expected=None, err=None, eras=("v1.32",), note=None):
    return dict(kind="requests", name=name, containers=containers, init=init, container=container, expected=expected,
                err=err, eras=eras, note=note)


def requests_docs(c, ns):
    spec = {"containers": [dict({"name": n}, **({"resources": {"requests": {"cpu": f"{m}m"}}} if m is not None else {}))
                           for n, m in c["containers"]]}
    if c["init"]:
        spec["initContainers"] = [dict({"name": n, "resources": {"requests": {"cpu": f"{m}m"}}}, **({"restartPolicy": "Always"} if always else {}))
                                  for n, m, always in c["init"]]
    p = {"metadata": {"name": "test-pod", "namespace": ns, "labels": {"name": "test-pod"}}, "spec": spec,
         "status": {"phase": "Running", "startTime": ts(OLD), "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": ts(OLD)}]}}
    names = [n for n, _ in c["containers"]] + [n for n, _, _ in c["init"]]
    metric = m_container(c["container"], 100) if c["container"] else m_cpu(100)
    return [hpa(ns, [metric]), scale(ns, 1, 1), pod_list([p]),
            pod_metrics(ns, [("test-pod", [(n, {"cpu": "10m"}) for n in names])])]


def requests_checks(c, era):
    if c["err"]:
        return [f"metrics.0.error ~ {j(c['err'])}"]
    return [f"metrics.0.calculation.pods[name=test-pod].requestMilli == {c['expected']}"]


BUILDERS = {"rc": (rc_docs, rc_checks), "ctrl": (ctrl_docs, ctrl_checks), "norm": (norm_docs, norm_checks),
            "group": (group_docs, group_checks), "requests": (requests_docs, requests_checks)}


def header_source(key):
    repo, commit, path, era = SOURCES[key]
    return f"{repo} {path} @ {commit} ({era})"


def render_file(test, era_dir, rules_list):
    """test: dict(name, source, subcases=[case...], note)"""
    if test.get("constructed"):
        lines = [f"# now: {ts(0)}", f"# Upstream: {test['name']}, constructed: it is not in {header_source(test['source'])}."]
    else:
        lines = [f"# now: {ts(0)}", f"# Upstream: {test['name']}, {header_source(test['source'])}."]
    for note in filter(None, [test.get("note")]):
        lines += comment(note)
    kind = test["subcases"][0]["kind"]
    lines.append(f"# args: {NORM_ARGS if kind == 'norm' else HARNESS_ARGS}")
    multi = len(test["subcases"]) > 1
    docs = []
    for idx, sc in enumerate(test["subcases"]):
        ns = f"c{idx + 1:02d}" if multi else NS
        build, checks = BUILDERS[sc["kind"]]
        if multi:
            lines.append(f"# {ns}: {sc['name']}" + (f" ({sc['note']})" if sc.get("note") else ""))
        elif sc.get("note") and sc["note"] != test.get("note"):
            lines += comment(sc["note"])
        for r in rules_list:
            key = r if sc["kind"] == "rc" else era_dir
            hpa_arg = f" --hpa {ns}/test-hpa" if multi or sc.get("other_hpa") else ""
            lines.append(f"# expect --decision-rules={r}{hpa_arg}: " + "; ".join(checks(sc, key)))
        docs += build(sc, ns)
    body = "---\n".join(dump(d) for d in docs)
    return "\n".join(lines) + "\n" + body


def comment(text):
    return ["# " + line for line in textwrap.wrap(" ".join(text.split("\n")), width=110)]


def dump(doc):
    """YAML as kubectl prints it, but each entry of a list document (pods, metric values) on one line."""
    items = doc.get("items")
    head = {k: v for k, v in doc.items() if k != "items"}
    if items is None:
        return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=120)
    text = yaml.safe_dump(head, sort_keys=False, default_flow_style=False, width=120)
    if not items:
        return text + "items: []\n"
    return text + "items:\n" + "".join(
        "- " + yaml.safe_dump(i, sort_keys=False, default_flow_style=True, width=100000) for i in items)


def main():
    from cases import CASES, INEXPRESSIBLE  # the transcribed tables (they import this module's helpers)
    check = "--check" in sys.argv
    stale = []
    for era_dir, (rules_list, rc_key, ctrl_key) in ERAS.items():
        folder = os.path.join(HERE, era_dir)
        os.makedirs(folder, exist_ok=True)
        wanted = {}
        for test in CASES:
            present = [sc for sc in test["subcases"] if era_dir in sc["eras"]]
            if not present:
                continue
            src = rc_key if test["table"] == "rc" else ctrl_key
            wanted[f"{test['name']}.yaml"] = render_file(dict(test, subcases=present, source=src), era_dir, rules_list)
        lines = [f"# Upstream tests of {era_dir} that explain cannot express", "",
                 "One line each: the upstream test (or subcase), and why. The converted ones are the YAML files beside this.", ""]
        for table, name, why, eras in INEXPRESSIBLE:
            if era_dir in eras:
                lines.append(f"- `{name}` ({'replica_calculator_test.go' if table == 'rc' else 'horizontal_test.go'}): {why}")
        lines += ["", "Converted, with an assertion explain cannot show left out:", "",
                  "* the metric timestamp the replica calculator tests compare: upstream's is Go's zero time (year 1), which "
                  "explain clamps to 1823-11-12 by design (src/common/time.h); the snapshots use the decision time;"]
        if era_dir != "v1.20":
            lines.append("* the monitor labels every 1.31 testCase expects (reconciliation and metric computation action and "
                         "error labels): explain shows no Prometheus monitor.")
        else:
            lines.append("* the conditions 1.20 read back from the autoscaling/v1 conditions annotation: the same conditions "
                         "are checked in the autoscaling/v2 status explain shows.")
        wanted["INEXPRESSIBLE.md"] = "\n".join(lines) + "\n"
        for fname, text in wanted.items():
            path = os.path.join(folder, fname)
            old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if old != text:
                stale.append(path)
                if not check:
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(text)
        for fname in os.listdir(folder):
            if fname not in wanted:
                stale.append(os.path.join(folder, fname))
                if not check:
                    os.remove(os.path.join(folder, fname))
    if check and stale:
        print("out of date:", *stale, sep="\n  ")
        sys.exit(1)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
