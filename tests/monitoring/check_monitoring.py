#!/usr/bin/env python3
"""Checks deploy/monitoring/ beyond what promtool checks:

- every alert has a summary, a description and a runbook_url that is a section of
  docs/operations.md, and a per-HPA alert's description names the HPA;
- every alert has a promtool test (tests/monitoring/rules_test.yaml) in which it fires;
- every metric the rules and the dashboard query is one the controller exposes (a name
  registered in src/), so a renamed metric cannot leave a silent alert or an empty panel.
"""
import json
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The docs test's rule for what the source registers, so the docs and the monitoring agree.
sys.path.insert(0, str(ROOT / "tests" / "docs"))
from docs_claims_test import registered_metrics, source_text  # noqa: E402
MONITORING = ROOT / "deploy" / "monitoring"
# Histograms are queried through these series.
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
# Series Prometheus makes itself, not the controller.
PROMETHEUS_SERIES = {"up"}


def anchors(markdown):
    out = set()
    for line in markdown.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^a-z0-9 _-]", "", title).replace(" ", "-"))
    return out


def queried_metrics(expr):
    # Metric names: identifiers followed by a selector, a range or the end of the expression, not
    # a function call, a label name, or a keyword.
    expr = re.sub(r'"[^"]*"', '""', expr)
    expr = re.sub(r"\{[^}]*\}", "{}", expr)
    expr = re.sub(r"\b(by|on|without|ignoring|group_left|group_right)\s*\([^)]*\)", " ", expr)
    expr = re.sub(r"\[[^\]]*\]", "", expr)
    names = set()
    for m in re.finditer(r"\b([a-zA-Z_][a-zA-Z0-9_:]*)\b(\s*\()?", expr):
        name, call = m.group(1), m.group(2)
        if call or ":" in name or "_" not in name:
            continue  # a function, a recorded series, a keyword or an operator
        names.add(name)
    return names


def base_name(name, exposed):
    for suffix in HISTOGRAM_SUFFIXES:
        if name.endswith(suffix) and name[: -len(suffix)] in exposed:
            return name[: -len(suffix)]
    return name


def main():
    errors = []
    rules = yaml.safe_load((MONITORING / "rules.yaml").read_text())
    tests = yaml.safe_load((ROOT / "tests" / "monitoring" / "rules_test.yaml").read_text())
    sections = anchors((ROOT / "docs" / "operations.md").read_text())
    exposed = registered_metrics(source_text())
    fired = {t["alertname"] for test in tests["tests"] for t in test.get("alert_rule_test", []) if t.get("exp_alerts")}
    exprs = []
    for group in rules["groups"]:
        for rule in group["rules"]:
            exprs.append(rule["expr"])
            if "alert" not in rule:
                continue
            name, notes = rule["alert"], rule.get("annotations", {})
            for key in ("summary", "description", "runbook_url"):
                if not notes.get(key):
                    errors.append(f"{name}: no {key}")
            runbook = notes.get("runbook_url", "")
            if not runbook.startswith("docs/operations.md#") or runbook.split("#", 1)[1] not in sections:
                errors.append(f"{name}: runbook_url {runbook!r} is no section of docs/operations.md")
            if re.search(r"hpa_controller_(scaling_active|limited_by|desired_replicas|current_replicas)", rule["expr"]):
                if "{{ $labels.namespace }}/{{ $labels.name }}" not in notes.get("description", ""):
                    errors.append(f"{name}: a per-HPA alert whose description does not name the HPA")
            if name not in fired:
                errors.append(f"{name}: no test in rules_test.yaml where it fires")
    dashboard = json.loads((MONITORING / "dashboard.json").read_text())
    exprs += [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    for expr in exprs:
        for metric in queried_metrics(expr):
            if metric not in PROMETHEUS_SERIES and base_name(metric, exposed) not in exposed:
                errors.append(f"{metric}: queried ({' '.join(expr.split())[:80]}...) but the controller exposes no such metric")
    for e in errors:
        print(f"check_monitoring: {e}", file=sys.stderr)
    if not errors:
        print(f"check_monitoring: {len(exprs)} queries, every metric exposed; every alert documented and tested")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
