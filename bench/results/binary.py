#!/usr/bin/env python3
"""Runs one benchmark binary of bench/*_bench.cc and records its figures in bench/results/.

  python3 bench/results/binary.py [--results DIR] BINARY [ARGS...]
  python3 bench/results/binary.py [--results DIR] --from REPORT.json BINARY [ARGS...]

A Google Benchmark binary runs with ARGS plus --benchmark_out=<temp> --benchmark_out_format=json
(its console output as usual); --from records a report written before instead (the JSON of
--benchmark_out or of --benchmark_format=json; ARGS, those it ran with, are recorded as its
command). Each benchmark instance is a row (with --benchmark_repetitions, its median); a later
run's row replaces the earlier one of the same name. inprocess_scale_bench runs with --json <temp>.
The results file is named after the binary without `_bench` (build/bench/replicacalc_bench ->
bench/results/replicacalc.json); --results DIR records it there instead (none: nowhere).
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402

UNITS = {"ns": "ns", "us": "µs", "ms": "ms", "s": "s"}
# Fields of a Google Benchmark JSON entry that are not user counters.
STANDARD = {"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
            "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "label",
            "aggregate_name", "aggregate_unit", "error_occurred", "error_message"}

MEASURES = {
    "replicacalc": "The replica calculator's CPU cost: one Resource/cpu Utilization evaluation over N pods, "
                   "and stabilization with the default behavior policies.",
    "pod_cache": "Decoding a watched Pod into the lean api::Pod, the heap each cached pod costs, and listing "
                 "one selector's pods by namespace scan or through the selector index.",
    "sim_metrics": "hpa-sim's PodMetrics LIST answers from its pod index, by selector and for a namespace.",
    "reconcile": "The controller's own CPU cost of one steady reconcile, the API in memory, with and "
                 "without the per-HPA controls.",
    "scrape": "The size and render time of /metrics with every per-HPA series, plain and gzipped.",
    "inprocess_scale": "Reconciles per second and per CPU-second at upstream's reference shape, the real "
                       "controller and caches with the API in memory.",
}


def benchmark_name(binary):
    name = os.path.basename(binary)
    return name[:-len("_bench")] if name.endswith("_bench") else name


def gbench_rows(report):
    """One row per benchmark instance; with repetitions, the median (or the mean) of each."""
    entries = [e for e in report["benchmarks"] if not e.get("error_occurred")]
    aggregates = [e for e in entries if e.get("run_type") == "aggregate"]
    if aggregates:
        chosen = {}
        for e in aggregates:
            if e.get("aggregate_name") in ("median", "mean") and chosen.get(e["run_name"], {}).get(
                    "aggregate_name") != "median":
                chosen[e["run_name"]] = e
        entries = [chosen[n] for n in dict.fromkeys(e["run_name"] for e in aggregates) if n in chosen]
    rows = []
    for e in entries:
        name = e.get("run_name", e["name"]) if aggregates else e["name"]
        real = "/real_time" in name
        counters = {}
        for k, v in e.items():
            if k in STANDARD:
                continue
            # A counter named ns/<thing> is an inverted rate (kIsRate | kInvert of a count):
            # Google Benchmark reports it in seconds per thing.
            counters[k] = v * 1e9 if k.startswith("ns/") else v
        rows.append({"benchmark": name, "label": e.get("label", ""),
                     "time": {"value": e["real_time"] if real else e["cpu_time"], "unit": UNITS[e["time_unit"]]},
                     "statistic": f"{e['aggregate_name']} of {e['repetitions']}" if aggregates else "",
                     "counters": counters, "real_time": e["real_time"], "cpu_time": e["cpu_time"],
                     "time_unit": e["time_unit"], "iterations": e["iterations"]})
    return rows


def gbench_tables(report):
    return [render.table("benchmarks", None, ["benchmark"], [
        ("benchmark", "benchmark"), ("label", "label"),
        ("time", "time per iteration (CPU; real for /real_time)", {"significant": 3}),
        ("statistic", "of repetitions"), ("counters", "counters", {"significant": 3})], gbench_rows(report))]


def inprocess_tables(report):
    """inprocess_scale_bench --json: steady reconciles per worker count; per shape, the heap and the
    phases of one reconcile."""
    shape = {"hpas": report["hpas"], "pods": report["pods_per_hpa"], "namespaces": report["namespaces"]}
    shape_columns = [("hpas", "HPAs"), ("pods", "pods each"), ("namespaces", "namespaces")]
    key = [c[0] for c in shape_columns]
    steady = [dict(shape, period=report["period_s"], workers=s["workers"], per_s=s["reconciles_per_s"],
                   per_cpu_s=s["per_cpu_s"], without_api=s.get("per_cpu_s_without_api")) for s in report["steady"]]
    per_shape = dict(shape, bytes_per_pod=report["heap"]["bytes_per_pod"], bytes_per_hpa=report["heap"]["bytes_per_hpa"],
                     **report["phases_us"])
    return [
        render.table("steady", None, key + ["period", "workers"],
                     shape_columns + [("period", "clock per round (s; 0: standing still)"), ("workers", "workers"),
                                      ("per_s", "reconciles/s", {"digits": 0}),
                                      ("per_cpu_s", "per CPU-second", {"digits": 0}),
                                      ("without_api", "per CPU-second without the fake API's copying", {"digits": 0})],
                     steady),
        render.table("shape", None, key,
                     shape_columns + [("bytes_per_pod", "heap per cached pod (bytes)", {"digits": 0}),
                                      ("bytes_per_hpa", "heap per HPA after its first syncs (bytes)", {"digits": 0})]
                     + [(name, f"{name}, µs per HPA (one thread)", {"significant": 3}) for name in report["phases_us"]],
                     [per_shape]),
    ]


def tables_of(name, report):
    return inprocess_tables(report) if name == "inprocess_scale" else gbench_tables(report)


def build_type(binary):
    """CMAKE_BUILD_TYPE of the build directory the binary is in, when it has a CMakeCache.txt."""
    d = os.path.dirname(os.path.abspath(binary))
    while d != os.path.dirname(d):
        cache = os.path.join(d, "CMakeCache.txt")
        if os.path.exists(cache):
            for line in open(cache, encoding="utf-8", errors="replace"):
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    return line.split("=", 1)[1].strip() or None
            return None
        d = os.path.dirname(d)
    return None


def run_binary(binary, args):
    """Runs the binary with a JSON report to a temporary file; returns (exit code, report or None)."""
    name = benchmark_name(binary)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        extra = ["--json", out] if name == "inprocess_scale" else [f"--benchmark_out={out}", "--benchmark_out_format=json"]
        code = subprocess.run([binary] + args + extra).returncode
        if not os.path.exists(out):
            return code, None
        with open(out, encoding="utf-8") as f:
            return code, json.load(f)


def main(argv):
    directory, saved = render.HERE, None
    while len(argv) >= 2 and argv[0] in ("--results", "--from"):
        if argv[0] == "--results":
            directory = render.results_directory(argv[1])
        else:
            saved = argv[1]
        argv = argv[2:]
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    binary, args = argv[0], argv[1:]
    if saved:
        with open(saved, encoding="utf-8") as f:
            code, report = 0, json.load(f)
    else:
        code, report = run_binary(binary, args)
    if report is None:
        print(f"binary.py: {binary} wrote no report (exit code {code}); nothing recorded", file=sys.stderr)
        return code or 1
    name = benchmark_name(binary)
    kind = build_type(binary)
    run = render.run_info(note=f"{kind} build" if kind else None, argv=[os.path.relpath(binary)] + args)
    render.record(name, tables_of(name, report), run, MEASURES.get(name), directory)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
