#!/usr/bin/env python3
"""make bench-predictive: the forecast control (hpa-controller.io/forecast) against reactive scaling
alone and against Crane's method, replayed on generated traces (see bench/README.md).

Each trace is six weeks of a workload's total cpu demand, one sample a minute, from its own seed
(bench/predictive/traces.cc): daily and weekly cycles with noise; a trend; a holiday; a level
shift halfway; a spike that is not seasonal; a random walk without cycle. The HPA: cpu at 60 % of
a 1-core request, 2 to 100 replicas, upstream's defaults (15 s sync, tolerance 0.1, 5-minute
downscale stabilization), each pod Ready 3 minutes after its creation. Six runs per trace:
  reactive   no forecast
  forecast   hpa-controller.io/forecast: {mode: Active}: the forecast's defaults (margin 1.05)
  crane      {mode: Active, quantile: 1, trend: None, margin: 1.1, recent: 0s}: the maximum of the
             same phase over the past cycles, times 1.1 (Crane's EHPA, which a quiet day does not
             lower)
  margin-1, margin-1.1, margin-1.15   {mode: Active, margin: M}: the forecast with other
             headroom, the frontier that Crane's is also compared on at its own cost
The figures (replay's summary: pod-minutes above target, replica-hours; docs/replay.md) count from
the end of the warm-up (two weeks); the level shift's also from one week after the shift.

The goals: on every seasonal trace the forecast has >= 50 % fewer pod-minutes above target than
reactive at <= 10 % more replica-hours, and is ahead of Crane's (fewer pod-minutes above target at
no more replica-hours, or fewer replica-hours at no more pod-minutes); the level shift's from a
week after it; on the random walk <= 2 % more replica-hours than reactive. Beside the verdict,
"at Crane's cost" gives the forecast's setting (defaults or a margin) with the fewest pod-minutes
above target at no more replica-hours than Crane's, and whether it is ahead of Crane's. Prints the table and
the verdicts, records the figures (--results) and exits 1 when a goal is missed.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "results"))
import render  # noqa: E402

TRACES = ("seasonal", "trend", "holiday", "level-shift", "spike", "random-walk")
MODES = ("reactive", "forecast", "crane")
FRONTIER = ("margin-1", "forecast", "margin-1.1", "margin-1.15")
MEASURES = ("Replays of generated six-week traces with a 3-minute pod start: pod-minutes above target "
            "(under-provisioned) and replica-hours (cost) of reactive scaling alone, of the forecast control "
            "in its default settings (margin 1.05) and with margins 1 to 1.15, and of Crane's method (maximum of the same "
            "phase over past cycles x 1.1).")


def run_trace(binary, trace, weeks, warmup, week_file, seed_offset=0):
    argv = [binary, "--trace", trace, "--weeks", str(weeks), "--warmup-weeks", str(warmup),
            "--seed-offset", str(seed_offset)]
    if trace == "seasonal" and week_file:
        argv += ["--week", week_file]
    out = subprocess.run(argv, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"bench-predictive: {trace}: {out.stderr.strip()}")
    return json.loads(out.stdout)["traces"][0]


def change(a, b):
    """b against a, in percent (None when a is 0)."""
    return None if a == 0 else (b - a) / a * 100


def windows(trace):
    """(window name, {mode: figures}) of a trace: after the warm-up, and the level shift's from a
    week after the shift."""
    out = [("after the warm-up", {r["mode"]: r["figures"] for r in trace["runs"]})]
    if trace["trace"] == "level-shift":
        out.append(("a week after the shift on", {r["mode"]: r["afterShift"] for r in trace["runs"]}))
    return out


def verdict(trace, window, fig):
    """The goals this window is judged by, and the misses (empty: met). None: not judged."""
    r, f, c = fig["reactive"], fig["forecast"], fig["crane"]
    pm = lambda x: x["podMinutesAboveTarget"]  # noqa: E731
    rh = lambda x: x["replicaHours"]  # noqa: E731
    if not trace["seasonal"]:
        cost = change(rh(r), rh(f))
        return ["replica-hours +%.1f %% > 2 %%" % cost] if cost is not None and cost > 2 else []
    if trace["trace"] == "level-shift" and window == "after the warm-up":
        return None  # judged from a week after the shift
    misses = []
    fewer = change(pm(r), pm(f))
    if fewer is None or fewer > -50:
        misses.append("pod-minutes above target %s vs reactive (goal -50 %%)" %
                      ("n/a" if fewer is None else "%+.0f %%" % fewer))
    cost = change(rh(r), rh(f))
    if cost is not None and cost > 10:
        misses.append("replica-hours %+.1f %% vs reactive (goal +10 %%)" % cost)
    ahead = (pm(f) < pm(c) and rh(f) <= rh(c)) or (rh(f) < rh(c) and pm(f) <= pm(c))
    if not ahead:
        misses.append("not ahead of Crane's")
    return misses


def at_cranes_cost(fig):
    """The forecast's setting with the fewest pod-minutes above target at no more replica-hours than
    Crane's: (text, ahead of Crane's), or None when no setting costs no more."""
    c = fig["crane"]
    within = [(fig[m]["podMinutesAboveTarget"], fig[m]["replicaHours"], m) for m in FRONTIER
              if m in fig and fig[m]["replicaHours"] <= c["replicaHours"]]
    if not within:
        return None
    pm, rh, mode = min(within)
    ahead = pm < c["podMinutesAboveTarget"] or (pm <= c["podMinutesAboveTarget"] and rh < c["replicaHours"])
    name = "defaults" if mode == "forecast" else mode.replace("-", " ")
    return "%s: %s pod-min, %s replica-h" % (name, f"{pm:,.0f}", f"{rh:,.0f}"), ahead


def rows_of(results):
    rows = []
    for trace in results["traces"]:
        for window, fig in windows(trace):
            v = verdict(trace, window, fig)
            row = {"trace": trace["trace"], "window": window,
                   "goals": "—" if v is None else ("met" if not v else "missed: " + "; ".join(v))}
            for mode in MODES:
                row[f"{mode}_pm"] = fig[mode]["podMinutesAboveTarget"]
                row[f"{mode}_pm_strict"] = fig[mode]["podMinutesAboveTargetStrict"]
                row[f"{mode}_rh"] = fig[mode]["replicaHours"]
            row["pm_change"] = change(fig["reactive"]["podMinutesAboveTarget"],
                                      fig["forecast"]["podMinutesAboveTarget"])
            row["rh_change"] = change(fig["reactive"]["replicaHours"], fig["forecast"]["replicaHours"])
            frontier = at_cranes_cost(fig) if trace["seasonal"] else None
            row["at_crane_cost"] = "—" if frontier is None else "%s (%s)" % (
                frontier[0], "ahead" if frontier[1] else "not ahead")
            rows.append((row, v))
    return rows


def results_table(rows):
    one = {"digits": 0}
    columns = [("trace", "trace"), ("window", "counted"),
               ("reactive_pm", "reactive: pod-min above target", one), ("reactive_rh", "reactive: replica-h", one),
               ("forecast_pm", "forecast: pod-min above target", one), ("forecast_rh", "forecast: replica-h", one),
               ("crane_pm", "Crane's: pod-min above target", one), ("crane_rh", "Crane's: replica-h", one),
               ("pm_change", "forecast vs reactive: pod-min (%)", one),
               ("rh_change", "forecast vs reactive: replica-h (%)", {"digits": 1}),
               ("at_crane_cost", "forecast at Crane's cost"),
               ("goals", "goals")]
    return [render.table("predictive", None, ["trace", "window"], columns, [r for r, _ in rows])]


def text_table(rows):
    lines = ["%-12s %-26s %10s %9s %10s %9s %10s %9s %8s %8s  %s" % (
        "trace", "counted", "react pm", "react rh", "fcst pm", "fcst rh", "crane pm", "crane rh", "pm %", "rh %",
        "goals; at Crane's cost")]
    for r, _ in rows:
        pct = lambda v: "—" if v is None else "%+.1f" % v  # noqa: E731
        lines.append("%-12s %-26s %10.0f %9.0f %10.0f %9.0f %10.0f %9.0f %8s %8s  %s" % (
            r["trace"], r["window"], r["reactive_pm"], r["reactive_rh"], r["forecast_pm"], r["forecast_rh"],
            r["crane_pm"], r["crane_rh"], pct(r["pm_change"]), pct(r["rh_change"]),
            r["goals"] + "; " + r["at_crane_cost"]))
    return "\n".join(lines)


PLOT = """set terminal svg size 1400,480 dynamic font 'sans,11' background '#ffffff'
set output {output}
set title 'The seasonal trace, week 5 (four weeks of history): pods at 60 % of a 1-core request, each Ready 3 minutes after its creation'
set xlabel 'hours since Monday 00:00'
set ylabel 'pods'
set xtics 24
set mxtics 4
set grid xtics
set key top right
set xrange [0:168]
plot {data} using 1:2 with lines lc rgb '#b0b0b0' title 'load / 0.6 cores (the pods it needs)', \\
     {data} using 3:4 with lines lc rgb '#1f77b4' dt 2 title 'forecast / 0.6 cores, drawn at the instant it forecasts', \\
     {data} using 1:5 with steps lc rgb '#2ca02c' title 'floor', \\
     {data} using 1:8 with steps lc rgb '#000000' title 'replicas with the forecast', \\
     {data} using 1:7 with steps lc rgb '#d62728' title 'replicas, reactive alone'
"""


def plot_week(data, output):
    """The week's SVG through gnuplot; a message instead when gnuplot is missing or fails."""
    script = PLOT.format(output=json.dumps(output), data=json.dumps(data))
    try:
        done = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    except FileNotFoundError:
        return "gnuplot not found: no plot"
    return f"plot written to {os.path.relpath(output, ROOT)}" if done.returncode == 0 else \
        f"gnuplot failed: {done.stderr.strip()}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default=os.path.join(ROOT, "build", "bench", "predictive", "predictive_replay"))
    p.add_argument("--trace", action="append", choices=TRACES, help="only this trace (repeatable)")
    p.add_argument("--weeks", type=int, default=6)
    p.add_argument("--warmup-weeks", type=int, default=2)
    p.add_argument("--jobs", type=int, default=2, help="traces replayed at once (one process each)")
    p.add_argument("--json", help="also write the replays' figures to this file")
    p.add_argument("--from", dest="saved", help="judge and record the figures a run wrote with --json instead of "
                   "replaying")
    p.add_argument("--plot", default=os.path.join(HERE, "week.svg"),
                   help="the seasonal trace's fifth week as an SVG (default bench/predictive/week.svg; none: no plot)")
    p.add_argument("--seed-offset", type=int, default=0,
                   help="every trace's noise from its seed + N: the same shapes with noise the defaults were not "
                   "chosen on; judged and printed, neither recorded nor plotted")
    render.add_argument(p)
    a = p.parse_args(argv)
    if a.seed_offset < 0:
        p.error("--seed-offset must not be negative")
    if a.seed_offset:
        a.plot, a.results = None, None
    started = time.time()
    traces = a.trace or list(TRACES)
    plot = None if a.plot in (None, "", "none") or "seasonal" not in traces or a.saved else os.path.abspath(a.plot)
    week_file = os.path.join(os.path.dirname(a.binary), "week.dat") if plot else None
    if a.saved:
        with open(a.saved) as f:
            results = json.load(f)
        traces = [t["trace"] for t in results["traces"]]
        a.weeks, a.warmup_weeks = results["weeks"], results["warmupWeeks"]
    else:
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            done = list(pool.map(
                lambda t: run_trace(a.binary, t, a.weeks, a.warmup_weeks, week_file, a.seed_offset), traces))
        results = {"weeks": a.weeks, "warmupWeeks": a.warmup_weeks, "traces": done,
                   "seconds": round(time.time() - started)}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    rows = rows_of(results)
    print(text_table(rows))
    elapsed = results.get("seconds", time.time() - started)
    print(f"bench-predictive: {len(traces)} traces in {elapsed:.0f} s")
    if plot:
        print("bench-predictive: " + plot_week(week_file, plot))
    note = (f"{a.weeks} weeks a trace, the first {a.warmup_weeks} not counted; above target: beyond the 0.1 "
            f"tolerance; {len(traces)} traces in {elapsed:.0f} s, {a.jobs} at a time")
    if a.saved:
        note += f"; figures from a run's --json ({os.path.basename(a.saved)})"
    render.record("predictive", results_table(rows), render.run_info(note), MEASURES,
                  render.results_directory(a.results))
    missed = [r for r, v in rows if v]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
