# SPDX-License-Identifier: BSD-3-Clause
"""The project's Python folders on sys.path, for what runs from the source
tree: the lab, the benches, the tools, p4gen.py and the tests.

An entry script puts the repository root on sys.path and imports this once:

    ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, ROOT)
    import pythonpath  # noqa: E402,F401  (the project's Python folders)

Then `import ina_wire` (protocol/python), `import p4gen` (pipeline/p4) and
`from lablib import ...` (scripts/lablib) work, and the root leaves sys.path.
FOLDERS are the `root` lines of tests/lint/python_floors.txt, whose lint
checks that they agree and that no module imports from a higher floor
(docs/architecture.md, "The Python half").
The `ina` package itself needs its compiled extension: it comes from a build
(PYTHONPATH=BUILD/workerlib/python) or an install, never from here.
"""
import os
import sys

ROOT = os.path.dirname(os.path.realpath(__file__))
FOLDERS = ("protocol/python", "pipeline/p4", "scripts")

for _d in reversed(FOLDERS):
    _p = os.path.join(ROOT, _d)
    if _p not in sys.path:
        sys.path.insert(0, _p)
# The root itself was only the way here: left on sys.path, every top-level
# folder (common, goat, tests, ...) would import as an empty namespace package
# and hide a real ImportError.
sys.path[:] = [p for p in sys.path if not p or os.path.realpath(p) != ROOT]
