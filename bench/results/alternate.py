#!/usr/bin/env python3
"""Runs builds of inprocess_scale_bench in alternation and records the figures of each run.

  python3 bench/results/alternate.py [--rounds N] [--results DIR] [--note TEXT]
                                     LABEL=BINARY [LABEL=BINARY ...] [-- ARGS...]

On a shared machine a figure moves with the load beside it more than between two close commits:
compare builds only in runs that alternate (A, B, A, B, ...), so that a change of load touches
both alike. Each round runs every BINARY once, in the order given, with ARGS (default
`--workers 1`: the figures are those of the first worker count it runs). A run's whole-reconcile
and pod-metrics phases and its reconciles per second and per CPU-second are read from its output,
which every version of the bench prints, the oldest included (they have no --json).

Printed; with --results DIR recorded in DIR/inprocess_scale_alternating.json and .md as well: a
row per run, and per LABEL the medians, the range of reconciles per CPU-second, and the ratio of
its median to the first LABEL's. Not in bench/results/ by default: bench/README.md shows every
file there, and a comparison's place is the change it measures (its commit message or review).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402

NAME = "inprocess_scale_alternating"
MEASURES = ("inprocess_scale_bench's figures for builds run in alternation on one machine: each run's, "
            "and per build the medians and the ratio to the first build.")
PHASE = re.compile(r"phase (.+?)\s+([0-9.]+) us per HPA")
STEADY = re.compile(r"(\d+) workers?\s*:\s*([0-9.]+) reconciles/s,\s*([0-9.]+) per CPU-second")


def parse(output):
    """{whole, metrics, per_s, per_cpu_s} of one run's output (the first worker count's figures);
    None where a figure is missing."""
    phases = {m.group(1).strip(): float(m.group(2)) for m in PHASE.finditer(output)}
    steady = STEADY.search(output)
    return {"whole": phases.get("whole reconcile"), "metrics": phases.get("pod metrics (batched, selected)"),
            "workers": int(steady.group(1)) if steady else None,
            "per_s": float(steady.group(2)) if steady else None,
            "per_cpu_s": float(steady.group(3)) if steady else None}


def summary(runs, labels):
    """Per label in order: medians, the per-CPU-second range and spread, the ratio to the first."""
    out, base = [], None
    for label in labels:
        mine = [r for r in runs if r["binary"] == label and r["per_cpu_s"] is not None]
        if not mine:
            continue
        per_cpu = sorted(r["per_cpu_s"] for r in mine)
        median = statistics.median(per_cpu)
        base = base or median
        out.append({"binary": label, "runs": len(mine),
                    "whole": statistics.median(r["whole"] for r in mine if r["whole"] is not None),
                    "metrics": statistics.median(r["metrics"] for r in mine if r["metrics"] is not None),
                    "per_cpu_s": median, "range": [per_cpu[0], per_cpu[-1]],
                    "spread": 100 * (per_cpu[-1] - per_cpu[0]) / 2 / median, "ratio": median / base})
    return out


def tables(runs, labels):
    return [
        render.table("runs", "Each run, in the order run:", ["binary", "round"], [
            ("round", "round"), ("binary", "build"), ("whole", "whole reconcile (µs per HPA)", {"digits": 2}),
            ("metrics", "pod metrics phase (µs per HPA)", {"digits": 2}),
            ("per_s", "reconciles/s", {"digits": 0}), ("per_cpu_s", "per CPU-second", {"digits": 0})], runs),
        render.table("summary", "Per build:", ["binary"], [
            ("binary", "build"), ("runs", "runs"), ("whole", "whole reconcile, median (µs)", {"digits": 2}),
            ("metrics", "pod metrics phase, median (µs)", {"digits": 2}),
            ("per_cpu_s", "per CPU-second, median", {"digits": 0}),
            ("range", "per CPU-second, lowest / highest", {"digits": 0}),
            ("spread", "± half the range (% of the median)", {"digits": 1}),
            ("ratio", "median / the first build's", {"digits": 3})], summary(runs, labels)),
    ]


def main(argv):
    args, rest = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, ["--workers", "1"])
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--note", default=None)
    p.add_argument("--results", default="none", help="a directory to record the figures in (default: none)")
    p.add_argument("builds", nargs="+", metavar="LABEL=BINARY")
    a = p.parse_args(args)
    builds = [b.split("=", 1) for b in a.builds]
    if any(len(b) != 2 for b in builds):
        p.error("each build is LABEL=BINARY")
    runs = []
    for n in range(1, a.rounds + 1):
        for label, binary in builds:
            out = subprocess.run([binary] + rest, capture_output=True, text=True).stdout
            run = dict(parse(out), binary=label, round=n)
            print(f"round {n} {label}: whole {run['whole']} us, metrics {run['metrics']} us, "
                  f"{run['per_cpu_s']} per CPU-second", flush=True)
            runs.append(run)
    labels = [label for label, _ in builds]
    for s in summary(runs, labels):
        print(f"{s['binary']}: median {s['per_cpu_s']:.0f} per CPU-second (±{s['spread']:.1f} %), "
              f"ratio {s['ratio']:.3f}, whole {s['whole']:.2f} us")
    note = "; ".join(p for p in (a.note, f"{a.rounds} rounds of " + ", ".join(
        f"{label} ({binary})" for label, binary in builds)) if p)
    run = render.run_info(note=note, argv=["bench/results/alternate.py"] + argv)
    render.record(NAME, tables(runs, labels), run, MEASURES, render.results_directory(a.results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
