#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The papers' figures re-run here, one command per figure (docs/figures.md).

    perf/figures/figures.py FIGURE [--quick] [--json] [--out DIR] [--build DIR]
    perf/figures/figures.py --list

Each figure prints a table (x, series, our value, the paper's value and how
it was read), writes a PNG with both (--out, FIGURE.png) and ends with a
verdict line: "same direction, every ratio within 20 % of the paper's", or
which point is off and why. --quick: fewer points and smaller tensors, one
iteration, about two minutes for a whole figure on a two-CPU machine.
Figures that run the lab (atp_*, a2tp_*) need root; the goat_* ones replay
perf/goat_sim and need only the build.

Exit status: 0 when the figure ran (whatever its verdict; --json says
whether the direction held), 1 when a run failed or a lab run was not
exact, 2 on bad usage, 77 when the figure needs the lab and it cannot run
here (the reason on stderr).
"""
import json
import os
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from lablib import cli  # noqa: E402

import a2tp  # noqa: E402
import atp  # noqa: E402
import common  # noqa: E402
import goat  # noqa: E402

FIGURES = {**goat.FIGURES, **atp.FIGURES, **a2tp.FIGURES}
SKIP = 77


def main():
    ap = cli.parser("figures.py", __doc__)
    ap.add_argument("figure", nargs="?", choices=sorted(FIGURES), metavar="FIGURE",
                    help="the figure to re-run (--list names them)")
    ap.add_argument("--list", action="store_true", help="list the figures and exit")
    ap.add_argument("--quick", action="store_true",
                    help="fewer points, smaller tensors, one iteration (about 2 minutes a figure)")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON object")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "figures"), help="directory for the PNG")
    ap.add_argument("--build", default=os.environ.get("INA_BUILD_DIR", os.path.join(ROOT, "build")),
                    help="meson build directory")
    a = ap.parse_args()
    if a.list:
        for name in sorted(FIGURES):
            print(f"{name:<12} {FIGURES[name][1]}")
        return 0
    if not a.figure:
        ap.error("name a FIGURE (--list names them)")
    ctx = common.Context(build=os.path.abspath(a.build), out=a.out, quick=a.quick,
                         prefix=common.lab_prefix(a.figure))
    fn = FIGURES[a.figure][0]
    # SIGTERM as Ctrl-C: a running lab is taken down before we exit.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        res = fn(ctx)
    except common.CannotRun as e:
        print(f"figures.py: {a.figure}: skipped: {e}", file=sys.stderr)
        return SKIP
    except RuntimeError as e:
        print(f"figures.py: {a.figure}: {e}", file=sys.stderr)
        return 1
    png = common.plot(res, os.path.join(a.out, f"{a.figure}.png"))
    if a.json:
        print(json.dumps(dict(res.to_json(), png=png, quick=a.quick)))
    else:
        common.print_table(res)
        print(f"png: {png or 'not written (no matplotlib for this python)'}")
    return 1 if res.exact is False else 0


if __name__ == "__main__":
    sys.exit(main())
