#!/usr/bin/env python3
"""Lists the functions of C++ sources longer than a limit (lines from the opening brace to the
closing one). A function is a brace block opened at namespace or class scope after a parameter
list; lambdas and blocks inside a function count towards that function.

  hack/function-lengths.py [--max N] [--list] PATH...   (directories are searched for .cc/.h)

Exits 1 when a function exceeds --max (default 80), printing each as file:line: name (N lines).
"""
import argparse
import os
import re
import sys

KEYWORDS_NOT_FUNCTIONS = re.compile(r"\b(namespace|class|struct|union|enum)\b")
CONTROL = re.compile(r"^(if|for|while|switch|catch|do|else|try)\b")


def strip(text):
    """Blanks out comments, string and character literals, keeping newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """Yields (name, first line, line count) of every function body at namespace/class scope."""
    code = strip(text)
    scopes = []  # "ns" (namespace, class, extern), "block", or (open position, head) of a function
    start = 0  # where the current declaration began
    for i, c in enumerate(code):
        if c in ";":
            start = i + 1
        elif c == "{":
            head = " ".join(code[start:i].split())
            inside_function = has_function_scope(scopes)
            if inside_function:
                scopes.append("block")
            elif KEYWORDS_NOT_FUNCTIONS.search(head.split("(")[0]) or "(" not in head or head.startswith("extern"):
                scopes.append("ns")
            elif CONTROL.match(head) or head.rstrip().endswith("="):
                scopes.append("block")
            else:
                scopes.append((i, head))
            start = i + 1
        elif c == "}":
            if scopes:
                top = scopes.pop()
                if isinstance(top, tuple):
                    open_at, head = top
                    first = code.count("\n", 0, open_at) + 1
                    last = code.count("\n", 0, i) + 1
                    name = re.sub(r"\s*\(.*", "", head.split(" : ")[0]).split(" ")[-1] if head else "?"
                    yield name, first, last - first + 1
            start = i + 1


def has_function_scope(scopes):
    return any(isinstance(s, tuple) for s in scopes)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max", type=int, default=80)
    parser.add_argument("--list", action="store_true", help="print every function with its length")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    files = []
    for p in args.paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, f) for f in names if f.endswith((".cc", ".h"))]
        else:
            files.append(p)
    too_long = []
    for f in sorted(files):
        with open(f, encoding="utf-8") as fh:
            for name, line, count in functions(fh.read()):
                if args.list:
                    print(f"{count:5d} {f}:{line}: {name}")
                if count > args.max:
                    too_long.append((f, line, name, count))
    for f, line, name, count in too_long:
        print(f"{f}:{line}: {name} ({count} lines, more than {args.max})")
    return 1 if too_long else 0


if __name__ == "__main__":
    sys.exit(main())
