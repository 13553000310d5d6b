"""Leadership terms and writes from kube-apiserver's audit log, for make soak-incluster.

The controller's pods share one ServiceAccount, so the audit log tells them apart by source IP
(the pod's IP: pods reach the API server through the kubernetes Service without masquerade). The
audit policy logs the Lease's writes with their response (RequestResponse): each successful one
names the holder it left in place. A term is a run of Lease writes with the same holder, from the
first to the first write that names another; every other write of the ServiceAccount (scales, HPA
status and annotations, Events) belongs to the term in force when the server received it, and must
come from the pod the holder identity names (`<pod>_<random>`). All times are the server's.
"""
import bisect
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scale"))
import audit  # noqa: E402

LEASES = "leases"
# What the controller writes as it scales: the scale subresource, the HPA (status, annotations), Events.
WRITE_RESOURCES = {"horizontalpodautoscalers", "deployments", "replicasets", "statefulsets", "events"}


def load(path, user):
    """(lease writes [(t, holder, ip)], other writes [(t, ip, category, code)]) of `user`, by receive time."""
    seen = set()
    leases, writes = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if user not in line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue  # a line cut short while being written
            if (event.get("user") or {}).get("username") != user or event.get("stage") != "ResponseComplete":
                continue
            if event.get("auditID") in seen or event.get("verb") not in audit.WRITES:
                continue
            seen.add(event.get("auditID"))
            t = audit.parse_time(event["requestReceivedTimestamp"])
            ip = (event.get("sourceIPs") or ["?"])[0]
            code = (event.get("responseStatus") or {}).get("code", 0)
            resource = (event.get("objectRef") or {}).get("resource", "")
            if resource == LEASES:
                if 200 <= code < 300:
                    spec = (event.get("responseObject") or {}).get("spec") or {}
                    leases.append((t, spec.get("holderIdentity", ""), ip))
            elif resource in WRITE_RESOURCES:
                writes.append((t, ip, audit.category(event), code))
    leases.sort()
    writes.sort()
    return leases, writes


def terms_of(leases):
    """[{holder, start, end, ip}] from the Lease's writes (end: the next holder's first write)."""
    terms = []
    for t, holder, ip in leases:
        if terms and terms[-1]["holder"] == holder:
            continue
        if terms:
            terms[-1]["end"] = t
        terms.append({"holder": holder, "start": t, "end": None, "ip": ip})
    return terms


def pod_of_holder(holder):
    return holder.rsplit("_", 1)[0] if "_" in holder else ""


def attribute(leases, writes, pod_of_ip):
    """Each write under the term in force when it was received, and whether the writer led then.

    Returns (terms with their writes by pod, non-leader writes [(t, pod, category, code, holder)]).
    Only successful writes (2xx) count as writes; a refused one changed nothing (counted apart)."""
    terms = terms_of(leases)
    starts = [term["start"] for term in terms]
    for term in terms:
        term["writes"] = {}
        term["refused"] = 0
    non_leader = []
    for t, ip, category, code in writes:
        pod = pod_of_ip.get(ip, ip)
        i = bisect.bisect_right(starts, t) - 1
        term = terms[i] if i >= 0 else None
        if not 200 <= code < 300:
            if term is not None:
                term["refused"] += 1
            continue
        holder = term["holder"] if term else ""
        if term is not None:
            term["writes"][pod] = term["writes"].get(pod, 0) + 1
        if pod_of_holder(holder) != pod:
            non_leader.append((t, pod, category, code, holder))
    return terms, non_leader


def overlapping_writers(terms):
    """Terms in which a pod other than the holder's wrote (none when every write was a leader's)."""
    return [term for term in terms if any(pod != pod_of_holder(term["holder"]) for pod in term["writes"])]
