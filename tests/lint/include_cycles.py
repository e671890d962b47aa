#!/usr/bin/env python3
"""Fails on a cycle of `#include "..."` between the project's own files
(headers and sources, tests included), listing each cycle.

An include resolves like the compiler would find it among the project's
files: next to the including file first, else the one file whose path ends
with the included name (`ina/pipeline.h` -> pipeline/include/ina/pipeline.h),
preferring the including file's top-level folder when several do. Generated
and system headers are not project files and are skipped.

    include_cycles.py SOURCE_ROOT"""
import os
import re
import sys

from sources import project_sources

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def resolve(name, including, files, by_suffix):
    here = os.path.normpath(os.path.join(os.path.dirname(including), name))
    if here in files:
        return here
    found = by_suffix.get(os.path.normpath(name), [])
    if len(found) == 1:
        return found[0]
    top = including.split(os.sep, 1)[0]
    same_top = [f for f in found if f.split(os.sep, 1)[0] == top]
    return same_top[0] if len(same_top) == 1 else None


def include_graph(root, files):
    fileset = set(files)
    by_suffix = {}
    for f in files:
        parts = f.split(os.sep)
        for i in range(len(parts)):
            by_suffix.setdefault(os.sep.join(parts[i:]), []).append(f)
    graph = {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        edges = []
        for name in INCLUDE.findall(text):
            target = resolve(name, f, fileset, by_suffix)
            if target and target not in edges:
                edges.append(target)
        graph[f] = edges
    return graph


def cycles(graph):
    """One cycle per back edge found by an iterative depth-first search."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {f: WHITE for f in graph}
    found = []
    for start in sorted(graph):
        if colour[start] != WHITE:
            continue
        stack = [(start, iter(graph[start]))]
        path = [start]
        colour[start] = GREY
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = BLACK
                stack.pop()
                path.pop()
            elif colour[nxt] == GREY:
                found.append(path[path.index(nxt):] + [nxt])
            elif colour[nxt] == WHITE:
                colour[nxt] = GREY
                stack.append((nxt, iter(graph[nxt])))
                path.append(nxt)
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    files = project_sources(root, skip_top=())
    graph = include_graph(root, files)
    edges = sum(len(e) for e in graph.values())
    if edges < 50:
        sys.exit(f"include_cycles: only {edges} project includes in {len(files)} files: "
                 "wrong source root?")
    found = cycles(graph)
    for c in found:
        print("include cycle: " + " -> ".join(c))
    print(f"include_cycles: {len(files)} files, {edges} project includes, {len(found)} cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
