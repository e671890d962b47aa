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

from floors import read_floors, violations
from include_cycles import include_graph
from sources import project_sources

DEFAULT_FLOORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include_floors.txt")


def top(path):
    return path.split(os.sep, 1)[0]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    root = sys.argv[1]
    floor, allowed, _ = read_floors(sys.argv[2] if len(sys.argv) == 3 else DEFAULT_FLOORS)
    files = project_sources(root, skip_top=())
    graph = include_graph(root, files)
    # A folder is its top-level name; files at the root have none.
    found, crossing = violations(graph, floor, allowed,
                                 lambda f: top(f) if top(f) in floor else None,
                                 lambda f: top(f) + "/" if os.sep in f and top(f) not in floor else None,
                                 "includes")
    if crossing == 0 and not found:
        sys.exit(f"include_floors: no include between folders in {len(files)} files: wrong source root?")
    for v in found:
        print("include floor: " + v)
    print(f"include_floors: {len(files)} files, {crossing} includes between folders, "
          f"{len(found)} violations")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
