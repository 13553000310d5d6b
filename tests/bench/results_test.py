#!/usr/bin/env python3
"""bench/results/: every results file parses and renders, bench/README.md's tables are what the
files render, and the one writer (render.py) with each driver's rows, on synthetic results.

Usage: results_test.py (no build needed; nothing in the tree is written)
"""
import contextlib
import copy
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for sub in ("results", "scale", "shadow", "soak", "soak-incluster", "recovery", "failover"):
    sys.path.insert(0, os.path.join(ROOT, "bench", sub))
import alternate  # noqa: E402
import render  # noqa: E402
import binary  # noqa: E402

RUN = {"date": "2026-12-01 10:00 UTC", "commit": "abc1234", "machine": "2 cores", "command": "make bench-x",
       "note": None}

# ------------------------------------------------------------------ synthetic results of each driver
SCALE = {
    "run": {"n": 100, "pods": 1, "namespaces": 10, "duration": 120, "coldTimeout": 900, "stepTimeout": 600,
            "controllerArgs": "", "hpaAnnotations": []},
    "sim": {"readySeconds": 3.8, "latency": {"apiserver-namespace": {"items": 10, "p50_ms": 0.82, "p90_ms": 0.98}}},
    "controllers": {name: {
        "windowStart": 0, "windowEnd": 120, "reconciles": rec, "cpuSeconds": cpu, "rssMiB": rss, "coldStart": 3.8,
        "coldStartRequests": {"requests": 120}, "allWaits": [float(i) for i in range(1, 101)],
        "sampleWaits": [6.0, 7.0, 8.0], "scaleChangesInWindow": 0, "loadInWindow": "0.4",
        "window": {"requests": 80, "reads": 80, "writes": 0, "hpaWrites": 0},
        "memory": {"binary": 3.2, "libraries": 12.4, "heap": 4.1, "threads": 25}}
        for name, rec, cpu, rss in (("hpa-controller", 800, 0.136, 19.8), ("kube-controller-manager", 800, 0.792, 79.8))},
}
RECOVERY = {"n": 48, "namespaces": 2, "sync": 5, "down": 2, "k": 2, "trials": 2, "controllers": {
    "hpa-controller": {"restart": [{"waits": [2.0, 4.0], "allReconciled": 2.4}, {"waits": [3.0, None], "allReconciled": 4.6}],
                       "compaction": [{"waits": [1.0, 1.0]}, {"waits": [2.0, 5.0]}]}}}
FAILOVER = {"n": 2000, "namespaces": 10, "controllers": {"hpa-controller": {
    "takenAfterKill": 16.6, "allReconciled": 0.7, "rssMiB": {"leader": 36.7, "standby": 26.4},
    "firstTwoPeriods": {"requests": 25, "lists": 20, "writes": 0, "hpaWrites": 0, "scaleWrites": 0,
                        "byCategory": {"metrics.k8s.io pods list": 20, "discovery get": 5}}}}}
SHADOW = {"mode": "steps, 10 minutes", "seed": 1, "hpas": 20, "comparisons": 381, "agree": 378,
          "diverge": 3, "agreementPercent": 99.2126, "byCause": {"agree": 378, "inputs": 1, "history": 2, "warmup": 0,
                                                                 "rules": 0},
          "divergencesWithoutBehavior": 0, "divergencesWithBehavior": 3, "divergences": {},
          "writesOutsideLease": 0, "writes": 298, "kcmStatusUpdatesLogged": 900}
SOAK = {"n": 100, "minutes": 30, "faults": {"apiserver restarts": 20, "etcd compactions": 5, "metrics outages": 3,
                                            "leader kills": 5},
        "caches": {"pods": {"server": [244, 7], "cache": [244, 7]},
                   "horizontalpodautoscalers": {"server": [100, 8], "cache": [100, 8]}},
        "early_downscales": [], "memory_and_fds": {"A": {"pid": 1, "from_s": 1559, "rss_mib": [22.8, 23.5], "fds": [14, 14]}},
        "failures": [], "unsettled": 0}
SOAK_INCLUSTER = {
    "minutes": 10, "seed": 37, "per_kind": 1, "workloads": 20,
    "faults": [{"kind": "kubelet", "handover_s": None, "recovery_s": 1.0},
               {"kind": "drain", "handover_s": 1.3, "recovery_s": 26.0},
               {"kind": "oom", "handover_s": 21.8, "recovery_s": 10.0}],
    "gaps": {"scrapes": 596, "failed": 4, "longest_gap_s": 5.7, "failed_by_fault": {"oom": 1}},
    "terms": [{}, {}, {}], "non_leader_writes": [], "writes_accepted": 441, "writes_refused": 0, "pods_writing": 3,
    "early_downscales": [], "restarts": {"a": 2, "b": 1}, "unexplained_restarts": 0,
    "memory": {"a pid 1": {"first_mib": 19.6, "last_mib": 22.0}, "b pid 2": {"first_mib": 20.0, "last_mib": 24.2}},
    "caches": {"pods": {"server": [63, 1], "cache": [63, 1]}}, "unsettled": 0, "failures": []}
GBENCH = {"context": {"num_cpus": 2}, "benchmarks": [
    {"name": "BM_A/pods:10", "run_name": "BM_A/pods:10", "run_type": "iteration", "repetitions": 2,
     "iterations": 100, "real_time": 0.7, "cpu_time": 0.6, "time_unit": "us", "ns/pod": 6e-08},
    {"name": "BM_A/pods:10_mean", "run_name": "BM_A/pods:10", "run_type": "aggregate", "aggregate_name": "mean",
     "repetitions": 2, "iterations": 2, "real_time": 0.71, "cpu_time": 0.61, "time_unit": "us", "ns/pod": 6.1e-08},
    {"name": "BM_A/pods:10_median", "run_name": "BM_A/pods:10", "run_type": "aggregate", "aggregate_name": "median",
     "repetitions": 2, "iterations": 2, "real_time": 0.72, "cpu_time": 0.62, "time_unit": "us", "ns/pod": 6.2e-08},
    {"name": "BM_B/real_time_median", "run_name": "BM_B/real_time", "run_type": "aggregate",
     "aggregate_name": "median", "repetitions": 2, "iterations": 2, "real_time": 39.0, "cpu_time": 30.0,
     "time_unit": "ms", "label": "gz", "bytes": 562000.0}]}
INPROCESS = {"hpas": 100, "pods_per_hpa": 10, "namespaces": 10, "period_s": 15.0, "seconds": 1,
             "phases_us": {"HPA from the cache": 0.25, "scale (in-memory API)": 0.21, "pods of the selector (index)": 2.62,
                           "pod metrics (batched, selected)": 1.13, "whole reconcile": 14.98},
             "steady": [{"workers": 1, "reconciles_per_s": 20087.4, "per_cpu_s": 20088.1, "per_cpu_s_without_api": 25833.2}],
             "heap": {"bytes_per_pod": 702.3, "bytes_per_hpa": 44000.0}}

# inprocess_scale_bench's output (the lines alternate.py reads), and runs of two builds from it.
OUTPUT = """phases (one thread):
  phase pod metrics (batched, selected)       10.64 us per HPA
  phase whole reconcile                       24.50 us per HPA
steady reconciles (5 s each), the controller's clock standing still:
  1 worker :     37576 reconciles/s,     40000 per CPU-second (CPU 4.70 of 5.00 s wall)
  2 workers:     70000 reconciles/s,     35000 per CPU-second (CPU 2.00 of 1.00 s wall)
"""
ALTERNATING = [dict(alternate.parse(OUTPUT.replace("40000", str(v))), binary=b, round=n)
               for n, (b, v) in enumerate([("old", 40000), ("new", 39000), ("old", 42000), ("new", 41000)])]


def synthetic_tables():
    """{benchmark: its driver's tables for the synthetic result above}."""
    import failover_bench
    import recovery_bench
    import report
    import shadow_bench
    import soak
    import soak_incluster
    return {"scale": report.results_tables(SCALE), "recovery": recovery_bench.results_tables(RECOVERY),
            "failover": failover_bench.results_tables(FAILOVER), "shadow": shadow_bench.results_tables(SHADOW),
            "soak": soak.results_tables(SOAK), "soak-incluster": soak_incluster.results_tables(SOAK_INCLUSTER),
            "replicacalc": binary.gbench_tables(GBENCH), "inprocess_scale": binary.inprocess_tables(INPROCESS),
            "inprocess_scale_alternating": alternate.tables(ALTERNATING, ["old", "new"])}


def scratch(test):
    """A temporary directory removed after the test, and record()'s messages kept off the output."""
    directory = tempfile.mkdtemp()
    test.addCleanup(shutil.rmtree, directory)
    test.enterContext(contextlib.redirect_stdout(io.StringIO()))
    return directory


def rows(doc, table):
    return next(t for t in doc["tables"] if t["name"] == table)["rows"]


class TheTree(unittest.TestCase):
    """The committed files: every results file parses and renders, and the README shows it."""

    def test_every_results_file_renders_to_its_markdown(self):
        names = render.results_files()
        self.assertTrue(names, "bench/results/ holds no results file")
        for name in names:
            doc = render.load(os.path.join(render.HERE, f"{name}.json"))
            with open(os.path.join(render.HERE, f"{name}.md"), encoding="utf-8") as f:
                self.assertEqual(f.read(), render.render(doc), f"{name}.md (python3 bench/results/render.py --write)")

    def test_readme_tables_are_the_files(self):
        with open(render.README, encoding="utf-8") as f:
            text = f.read()
        included = render.readme_tables(text)
        self.assertEqual(sorted(included), render.results_files(), "every results file is in bench/README.md, once")
        self.assertEqual(text.count("<!-- results:"), len(included), "a results marker without its <!-- /results -->")
        self.assertEqual(render.check(), [], "python3 bench/results/render.py --write")

    def test_readme_is_a_method_not_a_notebook(self):
        with open(render.README, encoding="utf-8") as f:
            self.assertLess(len(f.read().splitlines()), 300, "bench/README.md is under 300 lines")


class Rendering(unittest.TestCase):
    def test_cells(self):
        self.assertEqual(render.cell(None, {}), "—")
        self.assertEqual(render.cell(1234567, {}), "1,234,567")
        self.assertEqual(render.cell(0.1, {"digits": 2}), "0.10")
        self.assertEqual(render.cell(851234.0, {"significant": 3}), "851,000")
        self.assertEqual(render.cell(0.6904, {"significant": 3}), "0.69")
        self.assertEqual(render.cell([7, 22, ">600"], {}), "7 / 22 / >600")
        self.assertEqual(render.cell({"value": 8.07, "unit": "µs"}, {}), "8.07 µs")
        self.assertEqual(render.cell({"ns/pod": 58.04, "bytes": 3}, {"significant": 2}), "ns/pod 58, bytes 3")
        self.assertEqual(render.cell("a | b", {}), "a \\| b")

    def test_table_hides_empty_columns_and_names_runs(self):
        doc = {"benchmark": "x", "measures": "m", "runs": {"a": RUN, "b": dict(RUN, commit=None, note="transcribed")},
               "tables": [render.table("t", "Title:", ["k"], [("k", "key"), ("v", "value", {"digits": 1}),
                                                              ("empty", "nothing")],
                                       [{"k": "one", "v": 1, "run": "a"}, {"k": "two", "v": None, "run": "b"}])]}
        render.validate(doc, "x")
        self.assertEqual(render.render(doc), "\n".join([
            "Title:", "", "| key | value | run |", "| --- | ---: | --- |", "| one | 1.0 | a |", "| two | — | b |", "",
            "Runs: **a**: 2026-12-01 10:00 UTC, commit abc1234; 2 cores; `make bench-x`. "
            "**b**: 2026-12-01 10:00 UTC; 2 cores; `make bench-x`. transcribed.", ""]))

    def test_a_file_without_runs_renders(self):
        doc = {"benchmark": "x", "measures": "m", "runs": {}, "tables": [render.table("t", None, ["k"], [("k", "key")], [])]}
        self.assertEqual(render.render(doc), "| key |\n| --- |\n")

    def test_validate_names_what_is_wrong(self):
        doc = {"benchmark": "x", "measures": "m", "runs": {"a": RUN},
               "tables": [render.table("t", None, ["k"], [("k", "key")], [{"k": 1, "run": "b"}])]}
        with self.assertRaisesRegex(ValueError, "names no run"):
            render.validate(doc, "x")
        doc["tables"][0]["key"] = ["nope"]
        with self.assertRaisesRegex(ValueError, "key 'nope' is not a column"):
            render.validate(doc, "x")
        with self.assertRaisesRegex(ValueError, "not the file's name"):
            render.validate(dict(doc, benchmark="y"), "x")

    def test_readme_markers(self):
        text = "a\n<!-- results:x -->\nold\n<!-- /results -->\nb\n"
        self.assertEqual(render.readme_tables(text), {"x": "old\n"})
        self.assertEqual(render.fill_readme(text, {"x": "new\n"}), "a\n<!-- results:x -->\nnew\n<!-- /results -->\nb\n")
        with self.assertRaisesRegex(ValueError, "no results file"):
            render.fill_readme(text, {})


class Recording(unittest.TestCase):
    def setUp(self):
        self.dir = scratch(self)

    def record(self, rows, run=RUN):
        table = render.table("t", None, ["k"], [("k", "key"), ("v", "value")], rows)
        return render.load(render.record("x", [table], dict(run), "measures x", self.dir))

    def test_a_run_replaces_the_rows_of_its_keys_and_drops_runs_no_row_names(self):
        first = self.record([{"k": 1, "v": "a"}, {"k": 2, "v": "a"}])
        self.assertEqual(list(first["runs"]), ["a"])
        second = self.record([{"k": 2, "v": "b"}, {"k": 3, "v": "b"}], dict(RUN, commit="def5678"))
        self.assertEqual([(r["k"], r["v"], r["run"]) for r in rows(second, "t")], [(1, "a", "a"), (2, "b", "b"), (3, "b", "b")])
        self.assertEqual(second["runs"]["b"]["commit"], "def5678")
        third = self.record([{"k": 1, "v": "c"}])
        self.assertEqual(sorted(third["runs"]), ["b", "c"], "run a named no row any more")
        with open(os.path.join(self.dir, "x.md"), encoding="utf-8") as f:
            self.assertEqual(f.read(), render.render(third))

    def test_nothing_is_recorded_with_results_none(self):
        self.assertIsNone(render.record("x", [], RUN, directory=render.results_directory("none")))
        self.assertEqual(os.listdir(self.dir), [])

    def test_run_ids(self):
        self.assertEqual(render.next_run_id({}), "a")
        self.assertEqual(render.next_run_id({chr(ord("a") + i): 0 for i in range(26)}), "aa")

    def test_check_and_write(self):
        self.record([{"k": 1, "v": "a"}])
        readme = os.path.join(self.dir, "README.md")
        with open(readme, "w", encoding="utf-8") as f:
            f.write("# B\n<!-- results:x -->\nstale\n<!-- /results -->\n")
        self.assertEqual(len(render.check(self.dir, readme)), 1)
        self.assertEqual(render.main(["--dir", self.dir, "--readme", readme]), 1)
        self.assertEqual(render.main(["--dir", self.dir, "--readme", readme, "--write"]), 0)
        self.assertEqual(render.check(self.dir, readme), [])

    def test_run_info(self):
        info = render.run_info(note="n", argv=[os.path.join(ROOT, "bench", "x.py"), "--n", "2"])
        self.assertEqual(info["command"], "bench/x.py --n 2")
        self.assertIn("cores", info["machine"])


class Drivers(unittest.TestCase):
    """Each driver's rows from a synthetic result, recorded and rendered by the one writer."""

    def setUp(self):
        self.dir = scratch(self)
        self.docs = {}
        for name, tables in synthetic_tables().items():
            self.docs[name] = render.load(render.record(name, copy.deepcopy(tables), dict(RUN), "m", self.dir))
            render.render(self.docs[name])

    def test_scale(self):
        hpa, kcm = rows(self.docs["scale"], "controllers")
        self.assertEqual((hpa["n"], hpa["shape"], hpa["flags"]), (100, [1, 10], "default"))
        self.assertAlmostEqual(hpa["period_s"], 15.0)
        self.assertAlmostEqual(kcm["cpu_ms"], 0.99)
        self.assertEqual(hpa["step_all_s"], [50, 90, 100])
        self.assertEqual(hpa["sample_wait_s"], [7.0, 8.0, 8.0])
        self.assertEqual((hpa["sim_ready_s"], kcm["sim_list_ms"]), (3.8, [0.82, 0.98]))
        self.assertEqual(hpa["memory_mib"], [3.2, 12.4, 4.1])
        import report
        run = dict(SCALE["run"], controllerArgs="--kube-api-qps=100",
                   hpaAnnotations=["hpa-controller.io/fallback=after=3", "hpa-controller.io/record-decision=true"])
        self.assertEqual(report.flags(run), "--kube-api-qps=100; annotations fallback, record-decision")

    def test_recovery(self):
        (row,) = rows(self.docs["recovery"], "recovery")
        self.assertEqual((row["restart_s"], row["compaction_s"]), ([3.0, 3.0, 4.0], [2.25, 1.5, 5.0]))
        self.assertEqual((row["never"], row["restart_again_s"], row["compaction_again_s"]), (1, [2.4, 4.6], None))
        self.assertIn("| 2.3 / 1.5 / 5.0 |", render.render(self.docs["recovery"]))

    def test_failover(self):
        (row,) = rows(self.docs["failover"], "failover")
        self.assertEqual((row["taken_s"], row["requests"], row["rss_mib"]), (16.6, 25, [36.7, 26.4]))
        self.assertIn("discovery get 5", render.render(self.docs["failover"]))

    def test_shadow(self):
        (row,) = rows(self.docs["shadow"], "shadow")
        self.assertEqual(row["workload"], "steps, 10 minutes, 20 HPAs, seed 1")
        self.assertEqual((row["inputs"], row["history"], row["divergences"], row["lease_writes"]), (1, 2, [0, 3], 298))
        self.assertIn("| 99.21 |", render.render(self.docs["shadow"]))

    def test_soak(self):
        (row,) = rows(self.docs["soak"], "soak")
        self.assertEqual((row["died"], row["caches"], row["at_rest"], row["result"]),
                         (0, "equal: pods 244, HPAs 100", "100 of 100", "ok"))
        self.assertEqual(row["memory"], "A 22.8 → 23.5 MiB, 14 → 14 descriptors (from 1,559 s)")

    def test_soak_incluster(self):
        faults = {r["fault"]: r for r in rows(self.docs["soak-incluster"], "faults")}
        self.assertEqual((faults["kubelet"]["handovers"], faults["kubelet"]["handover_s"]), (0, None))
        self.assertEqual((faults["oom"]["handover_s"], faults["oom"]["failed_scrapes"]), ([21.8, 21.8], 1))
        self.assertEqual(faults["cut-off"]["injected"], 0)
        (checks,) = rows(self.docs["soak-incluster"], "checks")
        self.assertEqual((checks["writes"], checks["terms"], checks["scrapes"], checks["restarts"], checks["rss_mib"]),
                         ([441, 0], 3, [4, 596], [3, 0], [19.6, 24.2]))
        self.assertEqual((checks["at_size"], checks["result"]), ("20 of 20", "ok"))

    def test_google_benchmark(self):
        median, real = rows(self.docs["replicacalc"], "benchmarks")
        self.assertEqual((median["benchmark"], median["time"], median["statistic"]),
                         ("BM_A/pods:10", {"value": 0.62, "unit": "µs"}, "median of 2"))
        self.assertAlmostEqual(median["counters"]["ns/pod"], 62.0)
        self.assertEqual((real["time"], real["label"], real["counters"]), ({"value": 39.0, "unit": "ms"}, "gz",
                                                                           {"bytes": 562000.0}))
        plain = binary.gbench_rows({"benchmarks": GBENCH["benchmarks"][:1]})
        self.assertEqual((plain[0]["time"]["value"], plain[0]["statistic"]), (0.6, ""))
        self.assertEqual(binary.benchmark_name("build-bench/bench/pod_cache_bench"), "pod_cache")

    def test_google_benchmark_from_a_saved_report(self):
        report = os.path.join(self.dir, "report.json")
        with open(report, "w", encoding="utf-8") as f:
            json.dump(GBENCH, f)
        self.assertEqual(binary.main(["--results", self.dir, "--from", report, "build/bench/scrape_bench", "--x"]), 0)
        doc = render.load(os.path.join(self.dir, "scrape.json"))
        self.assertEqual(doc["runs"]["a"]["command"].split()[-1], "--x")

    def test_inprocess(self):
        doc = self.docs["inprocess_scale"]
        (steady,) = rows(doc, "steady")
        self.assertEqual((steady["period"], steady["workers"], steady["without_api"]), (15.0, 1, 25833.2))
        (shape,) = rows(doc, "shape")
        self.assertEqual((shape["HPA from the cache"], shape["whole reconcile"]), (0.25, 14.98))
        self.assertIn("| 100 | 10 | 10 | 702 | 44,000 | 0.25 | 0.21 | 2.62 | 1.13 | 15 |", render.render(doc))

    def test_alternating(self):
        self.assertEqual(alternate.parse(OUTPUT), {"whole": 24.5, "metrics": 10.64, "workers": 1, "per_s": 37576.0,
                                                   "per_cpu_s": 40000.0})
        doc = self.docs["inprocess_scale_alternating"]
        self.assertEqual(len(rows(doc, "runs")), 4)
        old, new = rows(doc, "summary")
        self.assertEqual((old["per_cpu_s"], old["range"], old["ratio"]), (41000, [40000, 42000], 1))
        self.assertAlmostEqual(old["spread"], 100 / 41)
        self.assertAlmostEqual(new["ratio"], 40000 / 41000)
        self.assertIn("| new | 2 | 24.50 | 10.64 | 40,000 | 39,000 / 41,000 | 2.5 | 0.976 |", render.render(doc))


if __name__ == "__main__":
    unittest.main()
