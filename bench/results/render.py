#!/usr/bin/env python3
"""The benchmarks' figures: bench/results/<benchmark>.json, the table each renders
(<benchmark>.md), and bench/README.md's copies of those tables, between
`<!-- results:<benchmark> -->` and `<!-- /results -->`.

  render.py           render every results file; exit 1 when a <benchmark>.md or a table of
                      bench/README.md is not what its JSON renders
  render.py --write   rewrite every <benchmark>.md and the README's tables from the JSON

A results file (JSON):
  benchmark  its name (the file's)
  measures   what the benchmark measures, in a sentence
  runs       {id: {date, commit, machine, command, note}}: the runs its rows come from (any
             field may be null when unknown)
  tables     [{name, title, key, columns, rows}]: key names the columns that identify a row (a
             new run's row replaces the rows with the same key); columns are
             [{key, label, digits?, significant?}]; each row is {"run": id, <column key>: cell}
             and may hold more fields than the columns show.
A cell is a number, a string, null (shown as —), a list (shown joined by " / "), a quantity
{"value": v, "unit": u} or pairs {name: value} (shown as "name value, ..."). A column's `digits`
fixes the decimals of its numbers, `significant` rounds them to that many significant digits.

Every driver records its run through record(); nothing else writes these files.
"""
import argparse
import datetime
import decimal
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
README = os.path.join(ROOT, "bench", "README.md")
MARKER = re.compile(r"<!-- results:([a-z0-9_-]+) -->\n(.*?)<!-- /results -->", re.S)


# ------------------------------------------------------------------ rendering
def number(v, column):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    if column.get("digits") is not None:  # half up, on the decimal the JSON holds (1.15 -> 1.2)
        exact = decimal.Decimal(repr(v)).quantize(decimal.Decimal(1).scaleb(-column["digits"]), decimal.ROUND_HALF_UP)
        return f"{exact:,.{column['digits']}f}"
    if column.get("significant") and v != 0:
        decimals = column["significant"] - 1 - math.floor(math.log10(abs(v)))
        if decimals <= 0:
            return f"{round(v, decimals):,.0f}"
        return f"{round(v, decimals):,.{decimals}f}".rstrip("0").rstrip(".")
    return f"{v:,}"


def cell(v, column):
    """The text of one cell."""
    if v is None:
        return "—"
    if isinstance(v, list):
        return " / ".join(cell(x, column) for x in v)
    if isinstance(v, dict) and "value" in v:
        return f"{cell(v['value'], column)} {v.get('unit', '')}".rstrip()
    if isinstance(v, dict):
        return ", ".join(f"{k} {cell(x, column)}" for k, x in v.items())
    return number(v, column).replace("|", "\\|")


def numeric(v):
    if isinstance(v, list):
        return all(numeric(x) for x in v)
    if isinstance(v, dict) and "value" in v:
        return numeric(v["value"])
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) or \
        (isinstance(v, str) and v.startswith(">"))


def render_table(table, with_run):
    """A markdown table: the columns that hold anything (all of them without rows), numbers
    right-aligned."""
    columns = [c for c in table["columns"]
               if not table["rows"] or any(r.get(c["key"]) not in (None, "", [], {}) for r in table["rows"])]
    if with_run:
        columns.append({"key": "run", "label": "run"})
    align = ["---:" if i and all(numeric(r.get(c["key"])) for r in table["rows"]) else "---"
             for i, c in enumerate(columns)]
    lines = ["| " + " | ".join(c["label"] for c in columns) + " |", "| " + " | ".join(align) + " |"]
    for row in table["rows"]:
        lines.append("| " + " | ".join(cell(row.get(c["key"]), c) for c in columns) + " |")
    return lines


def render_run(run_id, run, only):
    parts = [p for p in (run.get("date"), f"commit {run['commit']}" if run.get("commit") else None) if p]
    text = ", ".join(parts) or "date and commit not recorded"
    if run.get("machine"):
        text += f"; {run['machine']}"
    if run.get("command"):
        text += f"; `{run['command']}`"
    text += "."
    if run.get("note"):
        text += f" {run['note'].rstrip('.')}."
    return ("Run: " if only else f"**{run_id}**: ") + text


def render(doc):
    """The markdown of a results file: each table with its title, then the runs."""
    runs = doc["runs"]
    lines = []
    for table in doc["tables"]:
        if table.get("title"):
            lines += [table["title"], ""]
        lines += render_table(table, len(runs) > 1) + [""]
    ids = sorted(runs, key=lambda i: (len(i), i))
    if len(ids) == 1:
        lines.append(render_run(ids[0], runs[ids[0]], True))
    elif ids:
        lines.append("Runs: " + " ".join(render_run(i, runs[i], False) for i in ids))
    return "\n".join(lines).rstrip("\n") + "\n"


# ------------------------------------------------------------------ checking
def validate(doc, name):
    """Raises ValueError naming what is wrong with a results file."""
    for field in ("benchmark", "measures", "runs", "tables"):
        if field not in doc:
            raise ValueError(f"{name}: no {field}")
    if doc["benchmark"] != name:
        raise ValueError(f"{name}: benchmark is {doc['benchmark']!r}, not the file's name")
    for table in doc["tables"]:
        keys = {c["key"] for c in table["columns"]}
        for k in table["key"]:
            if k not in keys:
                raise ValueError(f"{name}/{table['name']}: key {k!r} is not a column")
        for row in table["rows"]:
            if row.get("run") not in doc["runs"]:
                raise ValueError(f"{name}/{table['name']}: row {row} names no run of the file")


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    validate(doc, os.path.basename(path)[:-len(".json")])
    return doc


def results_files(directory=HERE):
    return sorted(f[:-len(".json")] for f in os.listdir(directory) if f.endswith(".json"))


def readme_tables(text):
    """{benchmark: the text between its markers}."""
    return {m.group(1): m.group(2) for m in MARKER.finditer(text)}


def fill_readme(text, rendered):
    """The README with each marked table replaced by its benchmark's rendering."""
    def replace(m):
        if m.group(1) not in rendered:
            raise ValueError(f"bench/README.md: no results file for <!-- results:{m.group(1)} -->")
        return f"<!-- results:{m.group(1)} -->\n{rendered[m.group(1)]}<!-- /results -->"
    return MARKER.sub(replace, text)


# ------------------------------------------------------------------ recording
def merge(doc, tables, run_id):
    """Puts each table's rows into doc: a row replaces the rows with its key (in the place of the
    first), others are appended; columns, title and key are the driver's."""
    stored = {t["name"]: t for t in doc["tables"]}
    for table in tables:
        old = stored.get(table["name"])
        if old is None:
            old = dict(table, rows=[])
            doc["tables"].append(old)
            stored[table["name"]] = old
        old.update({k: table[k] for k in ("title", "key", "columns")})
        rows = list(old["rows"])
        for row in table["rows"]:
            row = dict(row, run=run_id)
            same = [i for i, r in enumerate(rows) if all(r.get(k) == row.get(k) for k in table["key"])]
            if same:
                rows[same[0]] = row
                rows = [r for i, r in enumerate(rows) if i not in same[1:]]
            else:
                rows.append(row)
        old["rows"] = rows
    used = {r["run"] for t in doc["tables"] for r in t["rows"]}
    doc["runs"] = {i: r for i, r in doc["runs"].items() if i in used}


def next_run_id(runs):
    n = 0
    while True:
        n += 1
        i, name = n, ""
        while i:
            i, rest = divmod(i - 1, 26)
            name = chr(ord("a") + rest) + name
        if name not in runs:
            return name


def run_info(note=None, argv=None):
    """This run: date (UTC), commit, machine (cores, system, load average) and command."""
    commit = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True,
                            text=True).stdout.strip() or None
    system = ""
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release") as f:
            system = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line).get("PRETTY_NAME", "").strip('"')
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    machine = ", ".join(p for p in (f"{os.cpu_count()} cores", system, f"load {load:.1f} at the end" if load is not None
                                    else "") if p)
    argv = list(sys.argv if argv is None else argv)
    if argv and os.path.isabs(argv[0]) and argv[0].startswith(ROOT + os.sep):
        argv[0] = os.path.relpath(argv[0], ROOT)
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "commit": commit,
            "machine": machine, "command": " ".join(argv), "note": note}


def record(benchmark, tables, run, measures=None, directory=HERE):
    """Merges one run's tables into <directory>/<benchmark>.json and rewrites <benchmark>.md.
    Returns the JSON's path. `directory` None records nothing (a driver's --results none)."""
    if directory is None:
        return None
    path = os.path.join(directory, f"{benchmark}.json")
    doc = load(path) if os.path.exists(path) else {"benchmark": benchmark, "measures": measures, "runs": {},
                                                   "tables": []}
    if measures:
        doc["measures"] = measures
    run_id = next_run_id(doc["runs"])
    doc["runs"][run_id] = run
    merge(doc, tables, run_id)
    validate(doc, benchmark)
    os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(directory, f"{benchmark}.md"), "w", encoding="utf-8") as f:
        f.write(render(doc))
    print(f"{benchmark}: figures recorded in {os.path.relpath(path, ROOT) if path.startswith(ROOT) else path} "
          f"(python3 bench/results/render.py --write puts them into bench/README.md)")
    return path


def add_argument(parser, default=HERE):
    """A driver's --results DIR: where record() writes ('none': nowhere)."""
    parser.add_argument("--results", default=default,
                        help="where to record the figures (default bench/results/; none: not recorded)")


def results_directory(value):
    """The directory a --results value names; None for none."""
    return None if value in (None, "", "none") else os.path.abspath(value)


def table(name, title, key, columns, rows):
    """A table as record() takes it; columns as (key, label) or (key, label, {digits|significant})."""
    return {"name": name, "title": title, "key": key, "rows": rows,
            "columns": [dict({"key": c[0], "label": c[1]}, **(c[2] if len(c) > 2 else {})) for c in columns]}


# ------------------------------------------------------------------ command
def check(directory=HERE, readme=README, write=False):
    """The differences between the files and what their JSON renders (rewritten with write)."""
    problems, rendered = [], {}
    for name in results_files(directory):
        rendered[name] = render(load(os.path.join(directory, f"{name}.json")))
        md = os.path.join(directory, f"{name}.md")
        current = None
        if os.path.exists(md):
            with open(md, encoding="utf-8") as f:
                current = f.read()
        if current != rendered[name]:
            problems.append(f"{os.path.relpath(md, ROOT)} is not what {name}.json renders")
            if write:
                with open(md, "w", encoding="utf-8") as f:
                    f.write(rendered[name])
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    filled = fill_readme(text, rendered)
    for name, block in readme_tables(text).items():
        if block != rendered[name]:
            problems.append(f"bench/README.md's table {name} is not what bench/results/{name}.json renders")
    if write and filled != text:
        with open(readme, "w", encoding="utf-8") as f:
            f.write(filled)
    return problems


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--write", action="store_true", help="rewrite the .md files and the README's tables")
    p.add_argument("--dir", default=HERE, help=argparse.SUPPRESS)
    p.add_argument("--readme", default=README, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    problems = check(a.dir, a.readme, a.write)
    for problem in problems:
        print(("rewritten: " if a.write else "FAIL: ") + problem)
    if problems and not a.write:
        print("run python3 bench/results/render.py --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
