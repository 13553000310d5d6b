"""Counting a controller's API requests from kube-apiserver's audit log (JSON lines, Metadata level).

Each request is counted once (by auditID), at the time the server received it, under a category
that says where it went: scale GET/PUT, metrics API, HPA status writes, HPA object writes
(annotations), events, list/watch of the informers.
"""
import json
from datetime import datetime, timezone

READS = {"get", "list", "watch"}
WRITES = {"create", "update", "patch", "delete", "deletecollection"}
METRICS_GROUPS = {"metrics.k8s.io", "custom.metrics.k8s.io", "external.metrics.k8s.io"}


def parse_time(text):
    # RFC 3339 with microseconds ("2026-11-23T10:00:00.123456Z"), as the apiserver writes it.
    text = text.rstrip("Z")
    fmt = "%Y-%m-%dT%H:%M:%S.%f" if "." in text else "%Y-%m-%dT%H:%M:%S"
    return datetime.strptime(text, fmt).replace(tzinfo=timezone.utc).timestamp()


def category(event):
    verb = event.get("verb", "")
    ref = event.get("objectRef") or {}
    resource, sub, group = ref.get("resource", ""), ref.get("subresource", ""), ref.get("apiGroup", "")
    if group in METRICS_GROUPS:
        return f"{group} {resource} {verb}"
    if sub == "scale":
        return f"{resource}/scale {verb}"
    if resource == "horizontalpodautoscalers":
        return f"HPA {sub} {verb}" if sub else f"HPA {verb}"
    if resource:
        return f"{resource}/{sub} {verb}" if sub else f"{resource} {verb}"
    # No object: GET /api, /apis, /apis/GROUP/VERSION (discovery) or another non-resource URL.
    uri = event.get("requestURI", "?").split("?")[0]
    return f"discovery {verb}" if uri == "/api" or uri.startswith(("/api/", "/apis")) else f"{uri} {verb}"


def load(path, users):
    """{user: [(time, verb, category, code)]} for the given users, one entry per request."""
    seen = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if '"bench-' not in line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue  # a line cut short while being written
            user = (event.get("user") or {}).get("username", "")
            if user not in users or event.get("stage") == "RequestReceived":
                continue
            audit_id = event.get("auditID")
            # A watch logs ResponseStarted and later ResponseComplete: count it once.
            if audit_id in seen:
                continue
            seen[audit_id] = (user, parse_time(event["requestReceivedTimestamp"]), event.get("verb", ""),
                              category(event), (event.get("responseStatus") or {}).get("code", 0))
    out = {u: [] for u in users}
    for user, t, verb, cat, code in seen.values():
        out[user].append((t, verb, cat, code))
    for requests in out.values():
        requests.sort()
    return out


def summarize(requests, start, end):
    """Counts of the requests received in [start, end)."""
    window = [r for r in requests if start <= r[0] < end]
    by_category = {}
    for _, verb, cat, _ in window:
        by_category[cat] = by_category.get(cat, 0) + 1
    writes = [r for r in window if r[1] in WRITES]
    return {
        "requests": len(window),
        "reads": sum(1 for r in window if r[1] in READS),
        "writes": len(writes),
        "hpaWrites": sum(1 for r in writes if r[2].startswith("HPA")),
        "scaleGets": sum(1 for r in window if r[2].endswith("/scale get")),
        "errors": sum(1 for r in window if r[3] >= 400),
        "byCategory": dict(sorted(by_category.items(), key=lambda kv: -kv[1])),
    }
