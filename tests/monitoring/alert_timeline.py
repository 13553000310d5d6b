#!/usr/bin/env python3
"""The alerts of a Prometheus over time, for the in-cluster tests' timelines.

  alert_timeline.py --prometheus URL --out FILE          polls /api/v1/alerts every 2 s until
                                                          killed, and appends each change of an
                                                          alert's state: "TIME NAME STATE LABELS"
                                                          (STATE pending, firing or resolved)
  alert_timeline.py --render FILE --marks MARKS --since T
                                                          the changes and the test's marks ("TIME
                                                          what happened") merged, in seconds from
                                                          T, as a table
"""
import argparse
import json
import time
import urllib.request


def labels_text(labels):
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()) if k not in ("alertname", "severity"))


def poll(url, out):
    states = {}
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/v1/alerts", timeout=5) as r:
                alerts = json.load(r)["data"]["alerts"]
        except Exception:  # noqa: BLE001 - Prometheus restarting or reloading: try again
            time.sleep(2)
            continue
        now = time.time()
        seen = {}
        for a in alerts:
            key = (a["labels"]["alertname"], labels_text(a["labels"]))
            seen[key] = a["state"]
        changes = [(k, s) for k, s in seen.items() if states.get(k) != s]
        changes += [(k, "resolved") for k in states if k not in seen]
        with open(out, "a") as f:
            for (name, labels), state in changes:
                f.write(f"{now:.3f} {name} {state} {labels or '-'}\n")
        states = seen
        time.sleep(2)


def render(path, marks, since):
    rows = []
    for file, kind in ((path, "alert"), (marks, "mark")):
        try:
            with open(file) as f:
                for line in f:
                    t, rest = line.split(" ", 1)
                    rows.append((float(t), kind, rest.strip()))
        except FileNotFoundError:
            pass
    print(f"{'at (s)':>8}  event")
    for t, kind, text in sorted(rows):
        if kind == "mark":
            print(f"{t - since:8.1f}  --- {text}")
        else:
            name, state, labels = text.split(" ", 2)
            print(f"{t - since:8.1f}  {name} {state}" + ("" if labels == "-" else f" ({labels})"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--prometheus")
    p.add_argument("--out")
    p.add_argument("--render")
    p.add_argument("--marks")
    p.add_argument("--since", type=float, default=0)
    a = p.parse_args()
    if a.render:
        render(a.render, a.marks, a.since)
    else:
        poll(a.prometheus, a.out)


if __name__ == "__main__":
    main()
