"""What the user documentation shows as code: the files, their fenced blocks and inline code spans.

Both docs tests read the documentation through this module, so they agree on which files are
documentation and on what counts as a command line or an example.
"""
import glob
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# The documentation users read (README, docs/, the manifests' and benchmarks' and fuzzing's notes).
DOC_GLOBS = ["README.md", "docs/*.md", "deploy/**/*.md", "bench/README.md", "tests/fuzz/README.md"]

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
INLINE = re.compile(r"(`+)(.+?)\1")


def doc_files():
    files = set()
    for pattern in DOC_GLOBS:
        files.update(glob.glob(os.path.join(ROOT, pattern), recursive=True))
    return sorted(os.path.relpath(f, ROOT) for f in files)


class Block:
    """A fenced code block: its language tag, first line number and text."""

    def __init__(self, doc, line, language, text):
        self.doc, self.line, self.language, self.text = doc, line, language, text

    def where(self):
        return f"{self.doc}:{self.line}"


def parse(doc):
    """(blocks, spans): the fenced blocks of a file, and its inline code spans as (line, text)."""
    blocks, spans = [], []
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence, start, language, body = None, 0, "", []
    for number, line in enumerate(lines, 1):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence, start, language, body = opened.group(2), number + 1, opened.group(3).lower(), []
        elif fence is not None and line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
            blocks.append(Block(doc, start, language, "\n".join(body)))
            fence = None
        elif fence is not None:
            body.append(line)
        else:
            spans.extend((number, m.group(2).strip()) for m in INLINE.finditer(line))
    return blocks, spans


def command_lines(block):
    """The logical lines of a shell block: continuations joined, prompts and comments dropped."""
    out, pending = [], ""
    for raw in block.text.split("\n"):
        line = raw.rstrip()
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        line = re.sub(r"^\s*\$\s+", "", line)
        line = re.sub(r"(^|\s)#.*$", "", line)
        if line.strip():
            out.append(line.strip())
    return out


def section_blocks(doc, heading):
    """The fenced blocks of the section of `doc` under the heading whose text starts with `heading`
    (down to the next heading of the same or a higher level), in order."""
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        lines = f.read().split("\n")
    start = end = None
    level = 0
    fenced = False
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            fenced = not fenced
        if fenced or not line.startswith("#"):
            continue
        hashes = len(line) - len(line.lstrip("#"))
        title = line.lstrip("#").strip()
        if start is None and title.startswith(heading):
            start, level = number, hashes
        elif start is not None and hashes <= level:
            end = number
            break
    if start is None:
        raise KeyError(f"{doc}: no section '{heading}'")
    end = end or len(lines) + 1
    return [b for b in parse(doc)[0] if start < b.line < end]


def section_commands(doc, heading):
    """The command lines of the shell blocks of a section, in order."""
    out = []
    for block in section_blocks(doc, heading):
        if block.language in ("sh", "bash", "shell", "console"):
            out.extend(command_lines(block))
    return out
