#!/usr/bin/env python3
"""Checks deploy/monitoring/ beyond what promtool checks:

- every alert has a summary, a description and a runbook_url that is a section of
  docs/operations.md, and a per-HPA alert's description names the HPA;
- every alert has a promtool test in which it fires (rules_test.yaml for rules.yaml,
  rules_shadow_test.yaml for rules-shadow.yaml);
- each rule file is about its own install: every selector of rules.yaml names
  job="hpa-controller" and none names the shadow's job, and the reverse for rules-shadow.yaml,
  so that loading one never alerts about the other;
- scrape-config.yaml's jobs are those two, scrape at the interval the rules' `for:` assume, and
  work with the pods deploy/ runs (the certificate they make themselves is not verified);
- the ServiceMonitors give the same job names (jobLabel: a label of the Service whose value is
  the job) and keep the HPAs' own namespace label (honorLabels);
- the Prometheus ServiceAccount is the same in the RBAC, the scrape configuration and the docs;
- every metric the rules and the dashboard query is one the controller exposes (a name
  registered in src/), so a renamed metric cannot leave a silent alert or an empty panel.
"""
import json
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
# The docs test's rule for what the source registers, so the docs and the monitoring agree.
sys.path.insert(0, str(ROOT / "tests" / "docs"))
from docs_claims_test import registered_metrics, source_text  # noqa: E402
MONITORING = ROOT / "deploy" / "monitoring"
# Histograms are queried through these series.
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
# Series Prometheus makes itself, not the controller.
PROMETHEUS_SERIES = {"up"}
# Each rule file, the job it is about, its promtool test.
RULE_FILES = {"rules.yaml": ("hpa-controller", "rules_test.yaml"),
              "rules-shadow.yaml": ("hpa-controller-shadow", "rules_shadow_test.yaml")}
SCRAPE_INTERVAL = "15s"
PROMETHEUS_ACCOUNT = ("monitoring", "prometheus-k8s")
JOB_SELECTOR = re.compile(r'job\s*=~?\s*"([^"]*)"')


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


def check_alert(rule, sections, fired, errors):
    name, notes = rule["alert"], rule.get("annotations", {})
    for key in ("summary", "description", "runbook_url"):
        if not notes.get(key):
            errors.append(f"{name}: no {key}")
    runbook = notes.get("runbook_url", "")
    if not runbook.startswith("docs/operations.md#") or runbook.split("#", 1)[1] not in sections:
        errors.append(f"{name}: runbook_url {runbook!r} is no section of docs/operations.md")
    per_hpa = r"hpa_controller_(scaling_active|limited_by|desired_replicas|current_replicas|reconcile_failing|metrics_read_timestamp_seconds)"
    if re.search(per_hpa, rule["expr"]):
        if "{{ $labels.namespace }}/{{ $labels.name }}" not in notes.get("description", ""):
            errors.append(f"{name}: a per-HPA alert whose description does not name the HPA")
    if name not in fired:
        errors.append(f"{name}: no test where it fires")


def check_rule_files(sections, errors):
    """The rules of both files, checked; returns every expression."""
    exprs = []
    for file, (job, test) in RULE_FILES.items():
        rules = yaml.safe_load((MONITORING / file).read_text())
        tests = yaml.safe_load((HERE / test).read_text())
        if tests["rule_files"] != [f"../../deploy/monitoring/{file}"]:
            errors.append(f"{test}: must test {file} alone")
        fired = {t["alertname"] for c in tests["tests"] for t in c.get("alert_rule_test", []) if t.get("exp_alerts")}
        for group in rules["groups"]:
            for rule in group["rules"]:
                exprs.append(rule["expr"])
                what = f"{file}: {rule.get('alert') or rule.get('record')}"
                named = set(JOB_SELECTOR.findall(rule["expr"]))
                if job not in named:
                    errors.append(f"{what}: no selector names job=\"{job}\"")
                if named - {job}:
                    errors.append(f"{what}: names another install's job {sorted(named - {job})}")
                if "alert" in rule:
                    check_alert(rule, sections, fired, errors)
    return exprs


def check_scrape_config(errors):
    config = yaml.safe_load((MONITORING / "scrape-config.yaml").read_text())
    jobs = {j["job_name"]: j for j in config["scrape_configs"]}
    if set(jobs) != {job for job, _ in RULE_FILES.values()}:
        errors.append(f"scrape-config.yaml: jobs {sorted(jobs)}, the rules expect {sorted(j for j, _ in RULE_FILES.values())}")
    for name, job in jobs.items():
        if job.get("scrape_interval") != SCRAPE_INTERVAL:
            errors.append(f"scrape-config.yaml: {name} scrapes every {job.get('scrape_interval')}, the rules' for: assume {SCRAPE_INTERVAL}")
        if not job.get("tls_config", {}).get("insecure_skip_verify"):
            errors.append(f"scrape-config.yaml: {name} verifies a certificate the pods deploy/ runs do not have")
        if job.get("authorization", {}).get("credentials_file") != "/var/run/secrets/kubernetes.io/serviceaccount/token":
            errors.append(f"scrape-config.yaml: {name} does not authenticate with Prometheus' own ServiceAccount token")


def service_labels():
    """{job the Service's pods are scraped as: the Service's labels}, from deploy/ as shipped."""
    services = {}
    for doc in yaml.safe_load_all((ROOT / "deploy" / "controller" / "deployment.yaml").read_text()):
        if doc and doc["kind"] == "Service":
            services["hpa-controller"] = dict(doc["metadata"]["labels"])
    for op in yaml.safe_load((ROOT / "deploy" / "shadow" / "service-patch.yaml").read_text()):
        if op["path"] == "/metadata/labels":
            services["hpa-controller-shadow"] = dict(op["value"])
    return services


def check_service_monitors(errors):
    services = service_labels()
    monitors = [d for d in yaml.safe_load_all((MONITORING / "servicemonitors.yaml").read_text()) if d]
    seen = set()
    for m in monitors:
        spec = m["spec"]
        label = spec.get("jobLabel")
        matched = [job for job, labels in services.items()
                   if all(labels.get(k) == v for k, v in spec["selector"]["matchLabels"].items())]
        if len(matched) != 1:
            errors.append(f"servicemonitors.yaml: {m['metadata']['name']} selects {matched}, not one Service")
            continue
        job = matched[0]
        seen.add(job)
        if services[job].get(label) != job:
            errors.append(f"servicemonitors.yaml: {m['metadata']['name']}: jobLabel {label!r} gives job "
                          f"{services[job].get(label)!r}, the rules expect {job!r}")
        for endpoint in spec["endpoints"]:
            if endpoint.get("honorLabels") is not True:
                errors.append(f"servicemonitors.yaml: {m['metadata']['name']}: without honorLabels the HPAs' namespace "
                              f"label becomes exported_namespace")
            if endpoint.get("interval") != SCRAPE_INTERVAL:
                errors.append(f"servicemonitors.yaml: {m['metadata']['name']}: interval {endpoint.get('interval')}, "
                              f"the rules' for: assume {SCRAPE_INTERVAL}")
    if seen != set(services):
        errors.append(f"servicemonitors.yaml: scrapes {sorted(seen)}, not {sorted(services)}")


def check_prometheus_account(errors):
    namespace, name = PROMETHEUS_ACCOUNT
    for file in ("rbac.yaml", "rbac-shadow.yaml"):
        for doc in yaml.safe_load_all((MONITORING / file).read_text()):
            for subject in (doc or {}).get("subjects", []):
                if (subject.get("namespace"), subject.get("name")) != PROMETHEUS_ACCOUNT:
                    errors.append(f"{file}: binds {subject.get('namespace')}/{subject.get('name')}, not {namespace}/{name}")
    pattern = re.compile(r"(?:(?<![\w/.-])monitoring[/:]prometheus[a-z0-9-]*(?![\w.])|serviceaccount\s+prometheus[a-z0-9-]*"
                         r"|name: prometheus[a-z0-9-]*, namespace: monitoring)")
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), MONITORING / "scrape-config.yaml"]:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for mention in pattern.findall(line):
                if name not in mention:
                    errors.append(f"{path.relative_to(ROOT)}:{n}: names Prometheus' ServiceAccount {mention!r}, not {namespace}/{name}")


def main():
    errors = []
    sections = anchors((ROOT / "docs" / "operations.md").read_text())
    exprs = check_rule_files(sections, errors)
    check_scrape_config(errors)
    check_service_monitors(errors)
    check_prometheus_account(errors)
    exposed = registered_metrics(source_text())
    dashboard = json.loads((MONITORING / "dashboard.json").read_text())
    exprs += [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    for expr in exprs:
        for metric in queried_metrics(expr):
            if metric not in PROMETHEUS_SERIES and base_name(metric, exposed) not in exposed:
                errors.append(f"{metric}: queried ({' '.join(expr.split())[:80]}...) but the controller exposes no such metric")
    for e in errors:
        print(f"check_monitoring: {e}", file=sys.stderr)
    if not errors:
        print(f"check_monitoring: {len(exprs)} queries, every metric exposed; every alert documented and tested; "
              f"each rule file about its own job; scrape jobs, ServiceMonitors and Prometheus' ServiceAccount agree")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
