#!/usr/bin/env python3
"""Renders prometheus.yml and a copy of the rules for the monitoring e2e test.

Each job of deploy/monitoring/scrape-config.yaml is kept as shipped (scheme, bearer token from a
file) with only what differs on a bare local control plane replaced: the token file, a static
target instead of in-cluster endpoint discovery, and a shorter interval. The shipped job does not
verify the pods' self-signed certificate; the controllers here serve one of the cluster CA's, and
the job verifies it as docs/operations.md ("A serving certificate of your own") says: tls_config
with the CA's file and the server name. The rules' `for:` durations are shortened in the copy, so
an alert fires within seconds.
"""
import argparse
import os

import yaml


def scrape_job(job, args, target):
    # Only these keys of a shipped job may be replaced; anything else is used as shipped.
    replaced = {"kubernetes_sd_configs", "relabel_configs"}
    rendered = {k: v for k, v in job.items() if k not in replaced}
    auth = rendered.get("authorization", {})
    if auth.get("type") != "Bearer" or "credentials_file" not in auth:
        raise SystemExit(f"{job['job_name']}: the shipped job must use a Bearer token from a file")
    rendered["authorization"] = dict(auth, credentials_file=args.token)
    if rendered.get("tls_config") != {"insecure_skip_verify": True}:
        raise SystemExit(f"{job['job_name']}: the shipped job must scrape the pods' self-signed certificate")
    rendered["tls_config"] = {"ca_file": args.ca, "server_name": args.server_name}
    rendered["scrape_interval"] = rendered["scrape_timeout"] = "2s"
    rendered["static_configs"] = [{"targets": [target]}]
    return rendered


def shortened_rules(paths, duration):
    groups = []
    for path in paths:
        with open(path) as f:
            groups += yaml.safe_load(f)["groups"]
    for group in groups:
        for rule in group["rules"]:
            if "for" in rule:
                rule["for"] = duration
    return {"groups": groups}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scrape-config", required=True)
    p.add_argument("--rules", action="append", required=True)
    p.add_argument("--for", dest="duration", required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--server-name", required=True)
    p.add_argument("--target", action="append", default=[], help="JOB=HOST:PORT")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    targets = dict(t.split("=", 1) for t in args.target)
    with open(args.scrape_config) as f:
        shipped = yaml.safe_load(f)["scrape_configs"]
    jobs = [scrape_job(j, args, targets[j["job_name"]]) for j in shipped if j["job_name"] in targets]
    missing = set(targets) - {j["job_name"] for j in jobs}
    if missing:
        raise SystemExit(f"no such job in {args.scrape_config}: {', '.join(sorted(missing))}")
    rules_copy = os.path.join(args.out, "rules.yaml")
    with open(rules_copy, "w") as f:
        yaml.safe_dump(shortened_rules(args.rules, args.duration), f, sort_keys=False)
    config = {
        "global": {"scrape_interval": "2s", "scrape_timeout": "2s", "evaluation_interval": "2s"},
        "rule_files": [rules_copy],
        "scrape_configs": jobs,
    }
    with open(os.path.join(args.out, "prometheus.yml"), "w") as f:
        yaml.safe_dump(config, f, sort_keys=False)


if __name__ == "__main__":
    main()
