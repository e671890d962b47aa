#!/usr/bin/env python3
"""Fails unless the project's own `#include "..."`s go down the floors of
its top-level folders: every folder that holds C or C++ files has a floor,
and no file includes a file of a higher floor, or of another folder on its
own floor that an `allow` line does not name. Lists each violation.

The floors are written once, in include_floors.txt next to this script:
`N folder...` puts folders on floor N, `allow A B` lets folder A include
folder B on the same floor. Includes resolve as in include_cycles.py.

    include_floors.py SOURCE_ROOT [FLOORS_FILE]"""
import os
import sys

from include_cycles import include_graph
from sources import project_sources

DEFAULT_FLOORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include_floors.txt")


def read_floors(path):
    """-> ({folder: floor}, {(including, included)} allowed on one floor)."""
    floor, allowed = {}, set()
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if words[0] == "allow" and len(words) == 3:
                allowed.add((words[1], words[2]))
            elif words[0].isdigit() and len(words) > 1:
                for folder in words[1:]:
                    if folder in floor:
                        sys.exit(f"{path}:{n}: {folder} has two floors")
                    floor[folder] = int(words[0])
            else:
                sys.exit(f"{path}:{n}: neither `N folder...` nor `allow A B`")
    return floor, allowed


def top(path):
    return path.split(os.sep, 1)[0]


def violations(graph, floor, allowed):
    """Messages, one per folder without a floor and per include that goes
    up or sideways without leave; and the number of cross-folder includes."""
    found = []
    for folder in sorted({top(f) for f in graph if os.sep in f}):
        if folder not in floor:
            found.append(f"{folder}/ has no floor")
    crossing = 0
    for f in sorted(graph):
        a = top(f)
        for t in graph[f]:
            b = top(t)
            if a == b or a not in floor or b not in floor:
                continue
            crossing += 1
            if floor[b] > floor[a]:
                found.append(f"{f} (floor {floor[a]}) includes {t} (floor {floor[b]}): a higher floor")
            elif floor[b] == floor[a] and (a, b) not in allowed:
                found.append(f"{f} includes {t}: {a}/ and {b}/ share floor {floor[a]}, "
                             f"and `allow {a} {b}` is not declared")
    return found, crossing


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    root = sys.argv[1]
    floor, allowed = read_floors(sys.argv[2] if len(sys.argv) == 3 else DEFAULT_FLOORS)
    files = project_sources(root, skip_top=())
    graph = include_graph(root, files)
    found, crossing = violations(graph, floor, allowed)
    if crossing == 0 and not found:
        sys.exit(f"include_floors: no include between folders in {len(files)} files: wrong source root?")
    for v in found:
        print("include floor: " + v)
    print(f"include_floors: {len(files)} files, {crossing} includes between folders, "
          f"{len(found)} violations")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
