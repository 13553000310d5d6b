#!/usr/bin/env python3
"""The documentation names only things that exist.

For every file of markdown_code.DOC_GLOBS, in its code (fenced blocks and inline spans):
  - every `make TARGET` is a target of the Makefile;
  - every --flag given to hpa-controller, hpa-controller explain/replay/handback, kubectl hpa
    explain/replay/handback or hpa-sim is in that command's --help, and every --flag in the first
    column of a flags table is in hpa-controller's (daemon, explain or replay);
  - every container argument (`- --flag`, `value: --flag`) of a YAML example and of deploy/'s
    manifests and patches is a flag of the daemon;
  - every hpa-controller.io/ annotation is a string of the source (src/, cmd/);
  - every metric of hpa-controller's (hpa_controller_*, horizontal_pod_autoscaler_controller_*,
    rest_client_*, workqueue_*) is registered by the source;
  - every repository path (and every relative markdown link) exists in the tree.
Each failure names the file and line. Usage: docs_claims_test.py BUILD_DIR
"""
import glob
import os
import re
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from markdown_code import section_commands, ROOT, command_lines, doc_files, parse  # noqa: E402

TOP_LEVEL = ("src/", "docs/", "deploy/", "hack/", "tests/", "bench/", "cmd/", "cmake/", ".ci/")
ROOT_FILES = {"Makefile", "README.md", "CMakeLists.txt", ".clang-format"}
METRIC = re.compile(r"\b((?:hpa_controller|horizontal_pod_autoscaler_controller|rest_client|workqueue)_[a-z0-9_]+)")
ANNOTATION = re.compile(r"\bhpa-controller\.io/[a-z0-9-]+")
FLAG = re.compile(r"(?<![\w-])--[a-z0-9][a-z0-9-]*")
LINK = re.compile(r"\]\(([^)\s]+)\)")
SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}


def help_flags(argv):
    if not os.access(argv[0], os.X_OK):
        sys.exit(f"docs_claims: {argv[0]} is not built (the test reads each command's --help)")
    out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False).stdout
    flags = set(FLAG.findall(out))
    if not flags:
        sys.exit(f"docs_claims: no flags in the help of {' '.join(argv)}:\n{out}")
    return flags


def command_flags(build):
    controller = os.path.join(build, "cmd", "hpa-controller", "hpa-controller")
    plugin = os.path.join(build, "cmd", "hpa-controller", "kubectl-hpa")
    sim = os.path.join(build, "cmd", "hpa-sim", "hpa-sim")
    return {
        "hpa-controller": help_flags([controller, "--help"]),
        "hpa-controller explain": help_flags([controller, "explain", "--help"]),
        "hpa-controller replay": help_flags([controller, "replay", "--help"]),
        "kubectl hpa explain": help_flags([plugin, "explain", "--help"]),
        "kubectl hpa replay": help_flags([plugin, "replay", "--help"]),
        "hpa-controller handback": help_flags([controller, "handback", "--help"]),
        "kubectl hpa handback": help_flags([plugin, "handback", "--help"]),
        "hpa-sim": help_flags([sim, "--help"]),
    }


def make_targets():
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        return set(re.findall(r"^([a-z][a-z0-9-]*):", f.read(), re.M))


def source_text():
    parts = []
    for pattern in ("src/**/*.cc", "src/**/*.h", "cmd/**/*.cc", "cmd/**/*.h"):
        for path in glob.glob(os.path.join(ROOT, pattern), recursive=True):
            with open(path, encoding="utf-8") as f:
                parts.append(f.read())
    return "\n".join(parts)


def expand_braces(text):
    """a_{x,y} -> a_x a_y, as a shell would (one level)."""
    return re.sub(r"(\w*_)\{([\w,]+)\}(\w*)",
                  lambda m: " ".join(m.group(1) + part + m.group(3) for part in m.group(2).split(",")), text)


# A metric name of ours as a whole string literal of the source: given to prometheus-cpp's
# .Name(...) or to a family the telemetry renders itself (src/telemetry/decision_metrics.cc).
METRIC_LITERAL = re.compile(r'"((?:hpa_controller|horizontal_pod_autoscaler_controller|rest_client|workqueue)_[a-z0-9_]+)"')


def registered_metrics(source):
    return set(METRIC_LITERAL.findall(source))


def settings_texts():
    """(where, YAML text) of every settings file shipped or shown: deploy/controller/settings.yaml
    and the `value: |` of each `# DIR/settings.yaml` block of the docs."""
    path = os.path.join(ROOT, "deploy", "controller", "settings.yaml")
    with open(path, encoding="utf-8") as f:
        yield "deploy/controller/settings.yaml", f.read()
    for doc in doc_files():
        for block in parse(doc)[0]:
            if block.language == "yaml" and re.match(r"^#\s*[\w.-]+/settings\.yaml\s*$", block.text.split("\n", 1)[0]):
                for op in yaml.safe_load(block.text) or []:
                    if op.get("path") == "/data/settings.yaml":
                        yield block.where(), op["value"]


def commands_in(text):
    """(command, rest) for each shell segment of a line that runs one of ours."""
    for segment in re.split(r"&&|\|\||[;|]|\$\(", text):
        tokens = segment.split()
        while tokens and re.match(r"^[A-Z_][A-Z0-9_]*=", tokens[0]):
            tokens.pop(0)  # VAR=value before the command
        if not tokens:
            continue
        head = os.path.basename(tokens[0].strip("\"'"))
        if head in ("hpa-controller", "kubectl-hpa") or (head == "kubectl" and tokens[1:2] == ["hpa"]):
            rest = tokens[2:] if head == "kubectl" else tokens[1:]
            name = "hpa-controller" if head == "hpa-controller" else "kubectl hpa"
            if rest and rest[0] in ("explain", "replay", "handback"):
                yield f"{name} {rest[0]}", " ".join(rest[1:])
            elif name == "hpa-controller":
                yield name, " ".join(rest)
        elif head == "hpa-sim":
            yield "hpa-sim", " ".join(tokens[1:])


def code_texts(doc):
    """(line, text, kind) of the doc's code: 'command' lines of shell blocks and prompts, 'span's,
    and 'table' first cells."""
    blocks, spans = parse(doc)
    for block in blocks:
        if block.language in SHELL_LANGUAGES:
            for line in command_lines(block):
                yield block.line, line, "command"
        elif block.language == "":
            for offset, line in enumerate(block.text.split("\n")):
                if line.startswith("$ "):
                    yield block.line + offset, line[2:], "command"
        yield block.line, block.text, "block"
    for line, text in spans:
        yield line, text, "span"
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            cells = line.split("|")
            if line.startswith("|") and len(cells) > 2 and cells[1].strip().startswith("`--"):
                yield number, cells[1], "table"


def path_exists(path):
    path = path.split("#")[0].rstrip("/")
    if any(c in path for c in "*?["):
        # Files of the tree by pattern (tests/explain/cases/*.yaml); a pattern of built binaries
        # (bench/*_bench, under a build directory) names no file of the tree.
        return "." not in os.path.basename(path) or bool(glob.glob(os.path.join(ROOT, path)))
    return os.path.exists(os.path.join(ROOT, path))


def candidate_paths(text):
    kubectl = "kubectl" in text
    for token in re.split(r"[\s`'\"(),;=]+", text):
        token = token.rstrip(".:")
        if not token.startswith(TOP_LEVEL) and token not in ROOT_FILES:
            continue
        if kubectl and re.fullmatch(r"deploy/[a-z0-9-]+", token):
            continue  # kubectl's TYPE/NAME (deploy/hpa-controller), not the folder
        if re.search(r"[<>{}$]|\.\.\.|[A-Z]{3,}", token):
            continue  # a placeholder (tests/<folder>/, FILE), not a path
        yield token


class Checker:
    def __init__(self, build):
        self.flags = command_flags(build)
        self.daemon_flags = self.flags["hpa-controller"] | self.flags["hpa-controller explain"] | \
            self.flags["hpa-controller replay"]
        self.targets = make_targets()
        source = source_text()
        self.source = source
        self.metrics = registered_metrics(source)
        self.failures = []

    def fail(self, doc, line, what):
        self.failures.append(f"{doc}:{line}: {what}")

    def check_text(self, doc, line, text, kind):
        if kind in ("command", "span"):
            for command, rest in commands_in(text):
                for flag in FLAG.findall(rest):
                    if flag not in self.flags[command]:
                        self.fail(doc, line, f"{flag} is not a flag of `{command}` (its --help)")
            for target in re.findall(r"(?:^|[\s;&(])make\s+([a-z][a-z0-9-]*)", text):
                if target not in self.targets:
                    self.fail(doc, line, f"`make {target}`: no such target in the Makefile")
        if kind == "table":
            for flag in FLAG.findall(text):
                if flag not in self.daemon_flags:
                    self.fail(doc, line, f"{flag} (flags table) is not a flag of hpa-controller")
        if kind in ("block", "span"):
            for annotation in ANNOTATION.findall(text):
                annotation = annotation.rstrip("-")  # `kubectl annotate ... NAME-` removes it
                if f'"{annotation}' not in self.source and f"{annotation}\"" not in self.source:
                    self.fail(doc, line, f"annotation {annotation} is not in the source")
            for metric in METRIC.findall(expand_braces(text)):
                base = re.sub(r"_(bucket|sum|count)$", "", metric)
                if metric not in self.metrics and base not in self.metrics:
                    self.fail(doc, line, f"metric {metric} is not registered by the source")
            for path in candidate_paths(text):
                if not path_exists(path):
                    self.fail(doc, line, f"path {path} does not exist")

    def check_links(self, doc):
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for target in LINK.findall(line):
                    if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                        continue
                    resolved = os.path.normpath(os.path.join(os.path.dirname(doc), target.split("#")[0]))
                    if not os.path.exists(os.path.join(ROOT, resolved)):
                        self.fail(doc, number, f"link {target} leads nowhere ({resolved})")

    def check_container_args(self, where, text):
        for offset, line in enumerate(text.split("\n")):
            m = re.match(r"^\s*(?:-|value:)\s+(--[a-z0-9][a-z0-9-]*)", line)
            if m and m.group(1) not in self.flags["hpa-controller"]:
                self.fail(where[0], where[1] + offset, f"container argument {m.group(1)} is not a flag of hpa-controller")

    def check_migration(self):
        """The README's migration and docs/operations.md's rollback say the same, and the settings
        the docs give are settings the daemon takes."""
        readme = section_commands("README.md", "5. Rolling back")
        operations = section_commands("docs/operations.md", "Rolling back")
        if readme != operations:
            self.fail("docs/operations.md", 1, f"the rollback's commands {operations} are not the README's {readme}")
        values = {}
        for doc in ("README.md", "docs/install.md", "docs/operations.md"):
            with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
                text = f.read()
            values[doc] = set(re.findall(r"--controllers=(\*[^`\s)]*)", text))
            for value in values[doc]:
                if "bootstrapsigner" not in value or "tokencleaner" not in value:
                    self.fail(doc, 1, f"--controllers={value} turns kubeadm's bootstrapsigner or tokencleaner off")
        switch = "*,bootstrapsigner,tokencleaner,-horizontalpodautoscaling"
        for doc, found in values.items():
            if switch not in found:
                self.fail(doc, 1, f"does not give the switch's value --controllers={switch}")
        for where, text in settings_texts():
            for key in yaml.safe_load(text) or {}:
                if f"--{key}" not in self.flags["hpa-controller"]:
                    self.fail(where, 1, f"setting {key} is not a flag of hpa-controller (--config takes flag names)")

    def run(self):
        self.check_migration()
        docs = doc_files()
        for doc in docs:
            for line, text, kind in code_texts(doc):
                self.check_text(doc, line, text, kind)
            for block in parse(doc)[0]:
                if block.language == "yaml":
                    self.check_container_args((doc, block.line), block.text)
            self.check_links(doc)
        for manifest in glob.glob(os.path.join(ROOT, "deploy", "**", "*.yaml"), recursive=True):
            with open(manifest, encoding="utf-8") as f:
                self.check_container_args((os.path.relpath(manifest, ROOT), 1), f.read())
        return docs


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    checker = Checker(os.path.abspath(sys.argv[1]))
    docs = checker.run()
    for failure in checker.failures:
        print(f"FAIL: {failure}")
    if checker.failures:
        sys.exit(f"docs_claims: {len(checker.failures)} claim(s) of the docs do not hold")
    print(f"docs_claims: {len(docs)} files; every make target, flag, annotation, metric and path they name exists")


if __name__ == "__main__":
    main()
