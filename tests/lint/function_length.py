#!/usr/bin/env python3
"""Fails listing every function longer than the limit (120 lines) in the
project's C/C++ sources outside tests/, as universal-ctags counts them (from
the line of the function's name to its closing brace, `--fields=+ne`), and in
its Python files, tests/ included, as Python's own parser counts them (from
the `def` line to the function's last line; a nested function counts in its
own right and in the function around it).

    function_length.py SOURCE_ROOT [--max N] [--ctags PATH]"""
import argparse
import ast
import os
import subprocess
import sys

from sources import project_sources, python_sources


def long_functions(root, files, limit, ctags):
    # One ctags process over all files; -f - writes the tags to stdout.
    cmd = [ctags, "--languages=C,C++", "--language-force=C++", "--kinds-C++=f",
           "--fields=+ne", "--extras=-q", "-f", "-"] + files
    r = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"function_length: {' '.join(cmd[:7])} ... failed:\n{r.stderr}")
    found = []
    for line in r.stdout.splitlines():
        cols = line.split("\t")
        if len(cols) < 4:
            continue
        fields = dict(c.split(":", 1) for c in cols[3:] if ":" in c)
        if "line" not in fields or "end" not in fields:
            continue
        start, end = int(fields["line"]), int(fields["end"])
        length = end - start + 1
        if length > limit:
            found.append((length, cols[1], start, cols[0]))
    return found, r.stdout


def long_python_functions(root, files, limit):
    """(found, number of functions) over the Python files; a file Python
    cannot parse is a failure of its own, not a pass."""
    found, n = [], 0
    for path in files:
        try:
            with open(os.path.join(root, path), "rb") as f:
                tree = ast.parse(f.read(), filename=path)
        except (SyntaxError, ValueError) as e:
            sys.exit(f"function_length: {path}: not parsed as Python: {e}")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n += 1
                length = node.end_lineno - node.lineno + 1
                if length > limit:
                    found.append((length, path, node.lineno, node.name))
    return found, n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--max", type=int, default=120)
    ap.add_argument("--ctags", default="ctags")
    args = ap.parse_args()
    files = project_sources(args.root)
    if not files:
        sys.exit(f"function_length: no C/C++ sources under {args.root}")
    found, tags = long_functions(args.root, files, args.max, args.ctags)
    # Guard against a ctags that reads nothing (not universal-ctags, or no
    # end: field): the project certainly has functions.
    n = sum(1 for line in tags.splitlines() if "\tend:" in line)
    if n < 100:
        sys.exit(f"function_length: ctags found only {n} functions with an end line in "
                 f"{len(files)} files; is {args.ctags} universal-ctags?")
    py_files = python_sources(args.root)
    py_found, py_n = long_python_functions(args.root, py_files, args.max)
    for length, path, start, name in sorted(found + py_found, reverse=True):
        print(f"{path}:{start}: {name} is {length} lines (limit {args.max})")
    print(f"function_length: {n} C/C++ functions in {len(files)} files, {py_n} Python functions "
          f"in {len(py_files)} files, {len(found) + len(py_found)} longer than {args.max} lines")
    return 1 if found or py_found else 0


if __name__ == "__main__":
    sys.exit(main())
