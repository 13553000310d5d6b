#!/usr/bin/env python3
"""Upstream's HPA test tables, decided by `explain` with the rules of the release they come from
(tests/explain/upstream/README.md).

Each directory (an era: v1.20, v1.32) holds one snapshot per upstream test function, written by
upstream/generate.py, and INEXPRESSIBLE.md, one line per upstream test explain cannot express.
A snapshot is read as rules_test.py reads one (`# now:`, `# expect ARGS: CHECKS`, the same
checks), plus `# args: ...`, arguments given to every one of its expect lines (the controller's
flags as upstream's tests set them). A table test puts each subcase in a namespace of its own and
its expect lines name it with `--hpa`; a subcase is one upstream case, and passes when every one
of its expect lines does.
Usage: upstream_test.py HPA_CONTROLLER DIR...
"""
import concurrent.futures
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rules_test  # noqa: E402


def case_of(args):
    """the subcase an expect line is about: its --hpa, or the whole file"""
    return args[args.index("--hpa") + 1] if "--hpa" in args else ""


def run_dir(binary, folder, pool):
    cases, failed, runs, failures, jobs = {}, set(), 0, [], []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".yaml"):
            continue
        snapshot = os.path.join(folder, name)
        now, expects = rules_test.expectations(snapshot)
        with open(snapshot, encoding="utf-8") as f:
            common = next((line.removeprefix("# args:").split() for line in f if line.startswith("# args:")), [])
        if not now or not expects:
            failures.append(f"{name}: needs '# now: ...' first and at least one '# expect ...: ...' line")
            continue
        for args, checks in expects:
            jobs.append((name, args, checks, pool.submit(rules_test.run, binary, snapshot, now, args + common)))
    for name, args, checks, job in jobs:
        key = (name, case_of(args))
        cases[key] = True
        answer = job.result()
        runs += 1
        for c in checks:
            if answer["json"] is None and c.split()[0] not in ("exit", "stderr"):
                problem = f"exit {answer['exit']}: {answer['stderr'].strip()}"
            else:
                problem = rules_test.check(answer, c)
            if problem:
                failed.add(key)
                failures.append(f"{name} {' '.join(args)}: {problem}")
                if answer["json"] is None:
                    break
    inexpressible = 0
    listing = os.path.join(folder, "INEXPRESSIBLE.md")
    if os.path.exists(listing):
        with open(listing, encoding="utf-8") as f:
            inexpressible = sum(1 for line in f if line.startswith("- "))
    else:
        failures.append("INEXPRESSIBLE.md is missing (one line per upstream test explain cannot express)")
    files = len({n for n, _ in cases})
    print(f"{os.path.basename(folder)}: {len(cases)} upstream cases in {files} files run ({runs} explain runs), "
          f"{len(cases) - len(failed)} passed, {len(failed)} failed; {inexpressible} inexpressible (INEXPRESSIBLE.md)")
    return failures


def main():
    binary, folders = sys.argv[1], sys.argv[2:]
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for folder in folders:
            failures += [f"{os.path.basename(folder)}/{f}" for f in run_dir(binary, folder, pool)]
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
