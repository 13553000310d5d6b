#!/usr/bin/env python3
"""Each rule that changed between kube-controller-manager releases, decided by `explain` on both
sides of its release (docs/behavior.md, "Rules per release").

Every snapshot under rules/ starts with `# now: <RFC 3339>` and says what it expects, one line per
command line:

    # expect --decision-rules=1.20: desiredReplicas == 4; reason == "All metrics below target"
    # expect --decision-rules=1.37 --feature-gates=X=false: exit == 2; stderr ~ "locked to true"

Each line runs `hpa-controller explain -f SNAPSHOT --now NOW -o json ARGS` and checks the JSON
answer: `PATH == JSON` (equal), `PATH ~ "text"` (a string containing it), `PATH absent`. A PATH is
dot-separated keys and list indexes; `list[key=value]` picks the entry whose key has that value,
`list[key]` lists that key of every entry (`list[a,b]`: a list of [a, b] per entry), and
`len(PATH)` is the length of a list.
`exit` and `stderr` check the process instead. A snapshot without expectations is a mistake.
Usage: rules_test.py HPA_CONTROLLER RULES_DIR
"""
import json
import os
import re
import subprocess
import sys

CHECK = re.compile(r"^(?P<path>[\w.\[\]=,()-]+)\s+(?:(?P<op>==|~)\s+(?P<value>.+)|(?P<absent>absent))$")
PICK = re.compile(r"^(?P<list>\w+)\[(?P<key>\w+)=(?P<value>[^\]]+)\]$")
PROJECT = re.compile(r"^(?P<list>\w+)\[(?P<keys>\w+(?:,\w+)*)\]$")
LENGTH = re.compile(r"^len\((?P<path>.+)\)$")
MISSING = object()


def resolve(doc, path):
    length = LENGTH.match(path)
    if length:
        node = resolve(doc, length["path"])
        return len(node) if isinstance(node, list) else MISSING
    node = doc
    for part in path.split("."):
        pick = PICK.match(part)
        project = PROJECT.match(part)
        if project:
            entries = node.get(project["list"], MISSING) if isinstance(node, dict) else MISSING
            if not isinstance(entries, list):
                return MISSING
            keys = project["keys"].split(",")
            node = [[e.get(k) for k in keys] if len(keys) > 1 else e.get(keys[0]) for e in entries if isinstance(e, dict)]
        elif pick:
            entries = node.get(pick["list"], []) if isinstance(node, dict) else []
            node = next((e for e in entries if isinstance(e, dict) and e.get(pick["key"]) == pick["value"]), MISSING)
        elif isinstance(node, list) and part.isdigit():
            node = node[int(part)] if int(part) < len(node) else MISSING
        elif isinstance(node, dict):
            node = node.get(part, MISSING)
        else:
            node = MISSING
        if node is MISSING:
            return MISSING
    return node


def check(answer, text):
    m = CHECK.match(text.strip())
    if not m:
        return f"cannot read the check {text!r}"
    path = m["path"]
    actual = answer[path] if path in ("exit", "stderr") else resolve(answer["json"], path)
    if m["absent"]:
        return None if actual is MISSING else f"{path} is {json.dumps(actual)}, expected absent"
    expected = json.loads(m["value"])
    if actual is MISSING:
        return f"{path} is absent"
    if m["op"] == "~":
        ok = isinstance(actual, str) and expected in actual
    else:
        ok = actual == expected
    return None if ok else f"{path} is {json.dumps(actual)}, expected {m['op']} {json.dumps(expected)}"


def run(binary, snapshot, now, args):
    proc = subprocess.run([binary, "explain", "-f", snapshot, "--now", now, "-o", "json", *args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    answer = {"exit": proc.returncode, "stderr": proc.stderr, "json": None}
    if proc.returncode == 0:
        answer["json"] = json.loads(proc.stdout)
    return answer


def expectations(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    now = lines[0].removeprefix("# now: ") if lines and lines[0].startswith("# now: ") else None
    out = []
    for line in lines:
        if line.startswith("# expect"):
            args, _, checks = line.removeprefix("# expect").partition(":")
            out.append((args.split(), [c for c in checks.split("; ") if c.strip()]))
    return now, out


def main():
    binary, folder = sys.argv[1], sys.argv[2]
    failures, count = [], 0
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".yaml"):
            continue
        snapshot = os.path.join(folder, name)
        now, cases = expectations(snapshot)
        if not now or not cases:
            failures.append(f"{name}: needs '# now: ...' first and at least one '# expect ...: ...' line")
            continue
        for args, checks in cases:
            answer = run(binary, snapshot, now, args)
            count += 1
            for c in checks:
                if answer["json"] is None and c.split()[0] not in ("exit", "stderr"):
                    failures.append(f"{name} {' '.join(args)}: exit {answer['exit']}: {answer['stderr'].strip()}")
                    break
                problem = check(answer, c)
                if problem:
                    failures.append(f"{name} {' '.join(args)}: {problem}")
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)
    print(f"rules: {count} explain runs as expected")


if __name__ == "__main__":
    main()
