"""The benchmark's table: markdown (printed and written) and CSV, from the measured results; and
the rows of bench/results/scale.json (results_tables)."""
import csv
import json
import os
import statistics
import sys

import memory

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results"))
import render  # noqa: E402

MEASURES = ("hpa-controller beside kube-controller-manager 1.20.2 on one local cluster of N HPAs at target: "
            "period, API requests and writes, CPU and memory per steady reconcile, cold start, load steps.")


def percentile(values, p):
    """The nearest-rank percentile."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, -(-p * len(s) // 100) - 1))]


def _num(v, digits=1):
    if v is None:
        return "—"
    if isinstance(v, float) and digits == 0:
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}"


def waits_summary(waits, timeout_note):
    """mean / p90 / max of the waits; '>' marks waits that ran out."""
    got = [w for w in waits if w is not None]
    missing = len(waits) - len(got)
    if not got:
        return None, f"none within {timeout_note}"
    text = f"{statistics.mean(got):.1f} / {percentile(got, 90):.1f} / {max(got):.1f}"
    if missing:
        text += f" ({missing} of {len(waits)} not within {timeout_note})"
    return statistics.mean(got), text


def step_all_summary(waits, timeout_note):
    n = len(waits)
    got = sorted(w for w in waits if w is not None)
    parts = []
    for p in (50, 90, 100):
        k = -(-p * n // 100)
        parts.append(f"{got[k - 1]:.0f}" if k <= len(got) else f">{timeout_note}")
    return " / ".join(parts)


def figures(res, run):
    """(row label, value text, csv value) for one controller."""
    w = res.get("window", {})
    minutes = (res["windowEnd"] - res["windowStart"]) / 60
    rec = res.get("reconciles") or 0
    per = (lambda x: x / rec) if rec else (lambda x: None)
    _, sample_text = waits_summary(res["sampleWaits"], f"{run['stepTimeout']}s")
    # Waits are uniform over one reconcile period: the longest of 20 is within a few % of it.
    got = [x for x in res["sampleWaits"] if x is not None]
    max_wait = max(got) if got and len(got) == len(res["sampleWaits"]) else None
    rows = [
        ("cold start: every HPA has a status (s)", _num(res["coldStart"]) if res["coldStart"] is not None
         else f">{run['coldTimeout']} ({res.get('coldStartDone')} of {run['n']})", res["coldStart"]),
        ("steady state: each HPA reconciled every (s), ≈ the longest wait of the sample",
         _num(max_wait) if max_wait is not None else f">{run['stepTimeout']}", max_wait),
        (f"load step on {len(res['sampleWaits'])} random workloads: wait mean / p90 / max (s)", sample_text, sample_text),
        ("N ÷ reconciles per second in the steady window (s)", _num(run["n"] / (rec / (minutes * 60)) if rec else None),
         run["n"] / (rec / (minutes * 60)) if rec else None),
        ("API requests per steady reconcile", _num(per(w.get("requests", 0)), 2), per(w.get("requests", 0))),
        ("… reads / writes per reconcile", f"{_num(per(w.get('reads', 0)), 2)} / {_num(per(w.get('writes', 0)), 2)}",
         f"{per(w.get('reads', 0))}/{per(w.get('writes', 0))}"),
        ("HPA objects written per minute (steady)", _num(w.get("hpaWrites", 0) / minutes, 0), w.get("hpaWrites", 0) / minutes),
        ("all objects written per minute (steady)", _num(w.get("writes", 0) / minutes, 0), w.get("writes", 0) / minutes),
        ("reconciles in the steady window (per s)", f"{rec:,.0f} ({rec / (minutes * 60):.1f}/s)", rec),
        ("controller CPU per reconcile (ms)", _num(per(res["cpuSeconds"] * 1000), 2), per(res["cpuSeconds"] * 1000)),
        ("resident memory, end of steady window (MiB)", _num(res["rssMiB"]), res["rssMiB"]),
        (f"load step on all {run['n']}: 50 / 90 / 100 % at new size (s)",
         step_all_summary(res["allWaits"], f"{run['stepTimeout']}s"), step_all_summary(res["allWaits"], run["stepTimeout"])),
        ("API requests during cold start (per HPA)", _num(res["coldStartRequests"]["requests"] / run["n"], 1),
         res["coldStartRequests"]["requests"] / run["n"]),
        ("scale changes in the steady window (want 0)", _num(res["scaleChangesInWindow"]), res["scaleChangesInWindow"]),
        ("machine load average (1/5/15 min) in the window", res["loadInWindow"], res["loadInWindow"]),
    ]
    return rows


def write(directory, results):
    run, controllers, sim = results["run"], results["controllers"], results["sim"]
    names = list(controllers)
    columns = {c: figures(controllers[c], run) for c in names}
    lines = [f"### N = {run['n']:,} HPAs ({run['pods']} pod each, {run['namespaces']} namespaces)", "",
             f"{run['date']}, commit {run['commit']}, {run['cpus']} cores, machine load {run['loadAtStart']} at start "
             f"and {run['loadAtEnd']} at end; steady window {run['duration']} s; run took {run['seconds'] // 60} min "
             f"{run['seconds'] % 60} s." + (f" hpa-controller's extra flags: `{run['controllerArgs']}`."
                                              if run.get("controllerArgs") else ""), "",
             "| N = " + f"{run['n']:,} | " + " | ".join(names) + " |",
             "|---|" + "---:|" * len(names)]
    for i, (label, _, _) in enumerate(columns[names[0]] if names else []):
        lines.append(f"| {label} | " + " | ".join(columns[c][i][1] for c in names) + " |")
    lines.append("")
    for c in names:
        res = controllers[c]
        rec = res.get("reconciles") or 0
        cats = res["window"]["byCategory"]
        lines.append(f"- {c}, steady state, requests per reconcile: " + (", ".join(
            f"{k} {v / rec:.2f}" for k, v in cats.items()) if rec else "no reconciles") + ".")
        if res.get("memory"):
            lines.append(f"- {c}, resident memory at the end of the steady window, by mapping: "
                         f"{memory.describe(res['memory'])}.")
        cold = res["coldStartRequests"]["byCategory"]
        lines.append(f"- {c}, cold start, requests per HPA: " + ", ".join(
            f"{k} {v / run['n']:.2f}" for k, v in cold.items()) + ".")
    lat = sim.get("latency", {})
    lines += ["", f"hpa-sim: {sim['pods']:,} pods Ready {sim['readySeconds']} s after the first Deployment was created "
              f"(creating the Deployments took {sim['createSeconds']} s). PodMetrics LIST p50 / p90 (ms): " + ", ".join(
                  f"{k} ({v['items']} pod{'s' if v['items'] != 1 else ''}) {v['p50_ms']} / {v['p90_ms']}" for k, v in lat.items()) + "."]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(directory, "results.md"), "w") as f:
        f.write(text)
    with open(os.path.join(directory, "results.csv"), "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["metric"] + names)
        for i, (label, _, _) in enumerate(columns[names[0]] if names else []):
            out.writerow([label] + [columns[c][i][2] for c in names])
        out.writerow(["sim pods ready (s)", sim["readySeconds"]])
        for k, v in lat.items():
            out.writerow([f"sim PodMetrics LIST {k} p50 ms", v["p50_ms"]])
    with open(os.path.join(directory, "results.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    print()
    print(text)


def flags(run):
    """hpa-controller's flags and annotations beyond the defaults, as the results name them."""
    parts = [run["controllerArgs"]] if run.get("controllerArgs") else []
    if run.get("hpaAnnotations"):
        parts.append("annotations " + ", ".join(a.split("=", 1)[0].rsplit("/", 1)[-1] for a in run["hpaAnnotations"]))
    return "; ".join(parts) or "default"


def step_all_values(waits, timeout):
    """The seconds until 50, 90 and 100 % of the targets were at their new size ('>timeout' if not)."""
    n, got = len(waits), sorted(w for w in waits if w is not None)
    return [round(got[k - 1]) if k <= len(got) else f">{timeout}" for k in (-(-p * n // 100) for p in (50, 90, 100))]


def controller_row(res, run, shape, name):
    w = res.get("window", {})
    minutes = (res["windowEnd"] - res["windowStart"]) / 60
    rec = res.get("reconciles") or 0
    per = (lambda x: x / rec) if rec else (lambda x: None)
    got = [x for x in res["sampleWaits"] if x is not None]
    return {"n": run["n"], "shape": shape, "controller": name, "flags": flags(run),
            "period_s": run["n"] / (rec / (minutes * 60)) if rec else None,
            "requests": per(w.get("requests", 0)), "reads": per(w.get("reads", 0)), "writes": per(w.get("writes", 0)),
            "writes_per_min": w.get("writes", 0) / minutes, "hpa_writes_per_min": w.get("hpaWrites", 0) / minutes,
            "cpu_ms": per(res["cpuSeconds"] * 1000), "rss_mib": res["rssMiB"],
            "cold_start_s": res["coldStart"] if res["coldStart"] is not None else f">{run['coldTimeout']}",
            "cold_requests": res["coldStartRequests"]["requests"] / run["n"],
            "step_all_s": step_all_values(res["allWaits"], run["stepTimeout"]),
            "sample_wait_s": [statistics.mean(got), percentile(got, 90), max(got)] if got else None,
            "sample": len(res["sampleWaits"]), "sample_missing": len(res["sampleWaits"]) - len(got),
            "duration": run["duration"], "scale_changes": res["scaleChangesInWindow"], "load": res["loadInWindow"]}


def results_tables(results):
    """bench/results/scale.json's table: per controller, with its memory by mapping and hpa-sim's
    own figures of the run."""
    run, sim = results["run"], results["sim"]
    shape = [run["pods"], run["namespaces"]]
    lat = sim.get("latency", {}).get("apiserver-namespace")
    rows = []
    for name, res in results["controllers"].items():
        row = controller_row(res, run, shape, name)
        b = res.get("memory") or {}
        row.update(memory_mib=[b.get("binary"), b.get("libraries"), b.get("heap")] if b else None,
                   threads=b.get("threads"), memory=b or None, sim_ready_s=sim.get("readySeconds"),
                   sim_list_ms=[lat["p50_ms"], lat["p90_ms"]] if lat else None, sim_latency=sim.get("latency"))
        rows.append(row)
    who = [("n", "N"), ("shape", "pods each / namespaces"), ("controller", "controller"),
           ("flags", "hpa-controller's flags")]
    return [render.table("controllers", None, [c[0] for c in who], who + [
        ("period_s", "each HPA reconciled every (s)", {"digits": 1}),
        ("requests", "API requests per steady reconcile", {"digits": 2}),
        ("writes_per_min", "objects written per minute, steady", {"digits": 0}),
        ("cpu_ms", "CPU per steady reconcile (ms)", {"digits": 2}),
        ("rss_mib", "resident memory (MiB)", {"digits": 1}),
        ("memory_mib", "of which binary / shared libraries / heap and thread stacks (MiB)", {"digits": 1}),
        ("cold_start_s", "cold start (s)", {"digits": 1}),
        ("cold_requests", "requests per HPA in cold start", {"digits": 1}),
        ("step_all_s", "load step on all: 50 / 90 / 100 % (s)", {"digits": 0}),
        ("sample_wait_s", "load step on the sample: mean / p90 / max (s)", {"digits": 1}),
        ("sim_ready_s", "hpa-sim: all pods Ready (s)", {"digits": 1}),
        ("sim_list_ms", "hpa-sim: a namespace's PodMetrics LIST through kube-apiserver, p50 / p90 (ms)")], rows)]
