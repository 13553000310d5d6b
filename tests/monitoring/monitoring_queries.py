#!/usr/bin/env python3
"""Lists every query the monitoring ships, one per line: "<what>\t<PromQL>".

Each recording rule of the rule files as the series it records, and each target of each
dashboard.json panel with the dashboard's variables replaced (--var NAME=VALUE), so that a test
can run them all against a Prometheus. Fails on a panel query that names a variable not given.
"""
import argparse
import json
import re

import yaml


def recording_rules(paths):
    groups = []
    for path in paths:
        with open(path) as f:
            groups += yaml.safe_load(f)["groups"]
    for group in groups:
        for rule in group["rules"]:
            if "record" in rule:
                yield f"recording rule {rule['record']}", rule["record"]


def panel_queries(path, variables):
    with open(path) as f:
        dashboard = json.load(f)
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            expr = target["expr"]
            for name, value in variables.items():
                expr = expr.replace(f"${name}", value)
            if re.search(r"\$\w", expr):
                raise SystemExit(f"panel {panel['title']!r}: a variable without a value: {expr}")
            yield f"panel {panel['title']!r} {target['refId']}", " ".join(expr.split())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rules", action="append", required=True)
    p.add_argument("--dashboard", required=True)
    p.add_argument("--var", action="append", default=[], help="NAME=VALUE")
    args = p.parse_args()
    variables = dict(v.split("=", 1) for v in args.var)
    for what, expr in [*recording_rules(args.rules), *panel_queries(args.dashboard, variables)]:
        print(f"{what}\t{' '.join(expr.split())}")


if __name__ == "__main__":
    main()
