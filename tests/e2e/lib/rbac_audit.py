#!/usr/bin/env python3
"""A role is exactly what a command sends: checked from kube-apiserver's audit log.

    rbac_audit.py --audit LOG --user USER --since EPOCH --manifests FILE
                  [--refused "VERB GROUP RESOURCE"]... [--unused "VERB GROUP RESOURCE=why"]...

The grants of USER (a ServiceAccount, system:serviceaccount:NS:NAME) are the rules of the roles
its bindings in FILE (rendered manifests) refer to, plus system:auth-delegator's. Every request
USER sent since EPOCH (audit stage ResponseStarted/ResponseComplete) must
  - have been allowed, except those listed with --refused (a test's negative checks), each of
    which must have been refused with 403;
  - be granted by a rule of FILE, or be discovery (no object: /api, /apis, /version, which every
    authenticated user may read);
and every (verb, group, resource) a rule grants must have been sent at least once, unless listed
with --unused and a reason. RESOURCE is resource or resource/subresource; GROUP is "" for core.
Exit 0 and a summary of what was used, or 1 and every discrepancy.
"""
import argparse
import json
import os
import sys
from datetime import datetime, timezone

import yaml

# What the bootstrap ClusterRole system:auth-delegator grants (delegated authentication).
AUTH_DELEGATOR = [{"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]},
                  {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]}]


def parse_time(text):
    text = text.rstrip("Z")
    fmt = "%Y-%m-%dT%H:%M:%S.%f" if "." in text else "%Y-%m-%dT%H:%M:%S"
    return datetime.strptime(text, fmt).replace(tzinfo=timezone.utc).timestamp()


class Grant:
    def __init__(self, rule, namespace, origin):
        self.groups = rule.get("apiGroups", [])
        self.resources = rule.get("resources", [])
        self.verbs = rule.get("verbs", [])
        self.names = rule.get("resourceNames", [])
        self.namespace = namespace  # a Role's: its rules hold in that namespace only
        self.origin = origin

    def allows(self, request):
        verb, group, resource, name, namespace = request
        return (verb in self.verbs or "*" in self.verbs) and (group in self.groups or "*" in self.groups) and \
            any(r == "*" or r == resource for r in self.resources) and \
            (not self.names or name in self.names) and (self.namespace is None or namespace == self.namespace)

    def items(self):
        for verb in self.verbs:
            for group in self.groups:
                for resource in self.resources:
                    yield verb, group, resource


def grants_of(user, manifests):
    roles = {(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]): d for d in manifests}
    grants = []
    for d in manifests:
        if d["kind"] not in ("ClusterRoleBinding", "RoleBinding"):
            continue
        subjects = [f"system:serviceaccount:{s.get('namespace', '')}:{s['name']}" for s in d.get("subjects", [])
                    if s.get("kind") == "ServiceAccount"]
        if user not in subjects:
            continue
        ref = d["roleRef"]
        namespace = d["metadata"].get("namespace") if d["kind"] == "RoleBinding" else None
        if ref["name"] == "system:auth-delegator":
            rules = AUTH_DELEGATOR
        else:
            role = roles.get((ref["kind"], namespace if ref["kind"] == "Role" else None, ref["name"]))
            if role is None:
                sys.exit(f"rbac_audit: {d['metadata']['name']} binds {ref['kind']} {ref['name']}, not in the manifests")
            rules = role.get("rules", [])
        grants.extend(Grant(r, namespace, f"{ref['kind']} {ref['name']}") for r in rules if "nonResourceURLs" not in r)
    return grants


def requests_of(audit_log, user, since):
    """{auditID: (request tuple or None for discovery, code, uri)} of USER's requests since EPOCH."""
    seen = {}
    if not os.path.exists(audit_log):
        sys.exit(f"rbac_audit: no audit log at {audit_log} (the apiserver needs --audit-log-path and a policy "
                 "that logs this user)")
    with open(audit_log, encoding="utf-8", errors="replace") as f:
        for line in f:
            if user not in line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if (event.get("user") or {}).get("username") != user or event.get("stage") == "RequestReceived":
                continue
            if parse_time(event["requestReceivedTimestamp"]) < since:
                continue
            ref = event.get("objectRef") or {}
            request = None
            if ref.get("resource"):
                resource = ref["resource"] + (f"/{ref['subresource']}" if ref.get("subresource") else "")
                request = (event["verb"], ref.get("apiGroup", ""), resource, ref.get("name", ""), ref.get("namespace", ""))
            code = (event.get("responseStatus") or {}).get("code", 0)
            seen[event["auditID"]] = (request, code, event.get("requestURI", ""))
    return seen


def item(text):
    parts = text.split("=", 1)[0].split()
    if len(parts) == 2:
        parts.insert(1, "")
    if len(parts) != 3:
        sys.exit(f"rbac_audit: {text!r}: expected 'VERB GROUP RESOURCE' (GROUP may be omitted for core)")
    return tuple(parts)


def check(args):
    with open(args.manifests, encoding="utf-8") as f:
        manifests = [d for d in yaml.safe_load_all(f) if d]
    grants = grants_of(args.user, manifests)
    if not grants:
        sys.exit(f"rbac_audit: no binding of {args.user} in {args.manifests}")
    requests = requests_of(args.audit, args.user, args.since)
    if not requests:
        sys.exit(f"rbac_audit: the audit log holds no request of {args.user}: nothing to check")
    refused = {item(r) for r in args.refused}
    unused = {item(u): u.split("=", 1)[1] if "=" in u else "" for u in args.unused}
    problems, used, seen_refused = [], {}, set()
    for request, code, uri in requests.values():
        if request is None:
            if code >= 400 or not (uri == "/api" or uri.startswith(("/api?", "/api/", "/apis", "/version"))):
                problems.append(f"non-resource request {uri} answered {code}")
            continue
        key = request[:3]
        if code == 403:
            if key in refused:
                seen_refused.add(key)
            else:
                problems.append(f"refused (403): {' '.join(request[:3])} {request[4]}/{request[3]} ({uri})")
            continue
        if key in refused:
            problems.append(f"expected to be refused but answered {code}: {uri}")
        matching = [g for g in grants if g.allows(request)]
        if not matching:
            problems.append(f"allowed by no rule of the manifests: {' '.join(request[:3])} ({uri}, {code})")
        for g in matching:
            for granted in g.items():
                if granted[0] == request[0] and granted[1] == request[1] and granted[2] in ("*", request[2]):
                    used[granted] = used.get(granted, 0) + 1
    for key in refused - seen_refused:
        problems.append(f"the negative check {' '.join(key)} was not sent, or not refused")
    for g in grants:
        for granted in g.items():
            if granted not in used and granted not in unused:
                problems.append(f"granted but never sent: {' '.join(granted)} ({g.origin})")
    for granted, count in sorted(used.items()):
        print(f"  used {count:5d}x  {granted[0]:7s} {granted[1] or 'core'} {granted[2]}")
    for granted, why in sorted(unused.items()):
        print(f"  not used       {' '.join(granted)}: {why}")
    for p in problems:
        print(f"FAIL: {p}")
    return not problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--audit", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--since", required=True, type=float)
    parser.add_argument("--manifests", required=True)
    parser.add_argument("--refused", action="append", default=[])
    parser.add_argument("--unused", action="append", default=[])
    args = parser.parse_args()
    ok = check(args)
    print(f"rbac_audit: {args.user}: " + ("every request allowed and granted, every grant used" if ok else "FAILED"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
