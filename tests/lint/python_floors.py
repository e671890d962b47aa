#!/usr/bin/env python3
"""Fails unless the project's Python imports go down the floors of its
folders, as include_floors.py holds the C++ includes: every Python file has a
floor, no module imports one of a higher floor, or of another folder on its
own floor that an `allow` line does not name, and no modules import each
other in a cycle (imports inside functions count: they only defer one).
Lists each violation.

The floors are written once, in python_floors.txt next to this script:
`N path...` puts folders (or files) on floor N, the longest path that holds
a file deciding; `allow A B` lets folder A import folder B on the same
floor; `root DIR` is where `import NAME` looks, after a script's own folder
(a file outside a package), as pythonpath.py's FOLDERS make it. Where the
source root has pythonpath.py, its FOLDERS must be the `root` lines.
Imports that resolve to no file of the tree (the standard library, torch,
the built `ina` package) are not the project's and are skipped.

    python_floors.py SOURCE_ROOT [FLOORS_FILE]"""
import ast
import os
import sys

from floors import read_floors, violations
from sources import python_sources

DEFAULT_FLOORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python_floors.txt")


def folder_of(f, floor):
    """The longest floor path that is f or holds it; None without one."""
    parts = f.split("/")
    for k in range(len(parts), 0, -1):
        p = "/".join(parts[:k])
        if p in floor:
            return p
    return None


def find(root, base, names):
    """The file that `import names[0].names[1]...` reaches under base (a
    folder relative to root), or None: the deepest module or package of the
    dotted name that exists (a package's __init__.py)."""
    found, d = None, base
    for k, name in enumerate(names):
        p = os.path.join(d, name)
        if os.path.isfile(os.path.join(root, p + ".py")):
            return os.path.normpath(p + ".py")
        init = os.path.join(p, "__init__.py")
        if not os.path.isfile(os.path.join(root, init)):
            return found
        found, d = os.path.normpath(init), p
    return found


def imports(root, f, roots):
    """[(dotted name as a list, folders to look in, in order)] of f's
    imports; `from X import a, b` gives X.a and X.b (find() falls back to X
    where a is no module). An absolute import looks in f's own folder first
    only where f is no package's module (a script, or a module beside one)."""
    with open(os.path.join(root, f), encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), f)
    here = os.path.dirname(f)
    absolute = ([] if os.path.isfile(os.path.join(root, here, "__init__.py")) else [here]) + roots
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name.split("."), absolute) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mod = node.module.split(".") if node.module else []
            bases = absolute
            if node.level:
                base = here
                for _ in range(node.level - 1):
                    base = os.path.dirname(base)
                bases = [base]
            out += [(mod + [a.name], bases) for a in node.names]
    return out


def import_graph(root, files, roots):
    """{file: {files it imports}}, each import taken from the first folder
    that has it, as Python's own search would."""
    graph = {}
    for f in files:
        graph[f] = set()
        for names, bases in imports(root, f, roots):
            for base in bases:
                t = find(root, base, names)
                if t:
                    if t != f:
                        graph[f].add(t)
                    break
    return graph


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def helper_folders(root):
    """pythonpath.py's FOLDERS, read without running it; None without it."""
    path = os.path.join(root, "pythonpath.py")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as fh:
        for node in ast.parse(fh.read()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "FOLDERS" for t in node.targets):
                return list(ast.literal_eval(node.value))
    return []


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    root = sys.argv[1]
    floor, allowed, extra = read_floors(sys.argv[2] if len(sys.argv) == 3 else DEFAULT_FLOORS, ("root",))
    roots = extra["root"]
    files = python_sources(root)
    graph = import_graph(root, files, roots)
    found, crossing = violations(graph, floor, allowed, lambda f: folder_of(f, floor),
                                 lambda f: f if folder_of(f, floor) is None else None, "imports")
    for c in cycles(graph):
        found.append("import cycle: " + " -> ".join(c + [c[0]]))
    helper = helper_folders(root)
    if helper is not None and helper != roots:
        found.append(f"pythonpath.py's FOLDERS {helper} are not the `root` lines {roots}")
    if crossing == 0 and not found:
        sys.exit(f"python_floors: no import between folders in {len(files)} files: wrong source root?")
    for v in found:
        print("python floor: " + v)
    print(f"python_floors: {len(files)} files, {crossing} imports between folders, "
          f"{len(found)} violations")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
