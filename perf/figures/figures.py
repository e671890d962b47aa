#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The papers' figures re-run here, one command per figure (docs/figures.md).

    perf/figures/figures.py FIGURE [--quick] [--sim | --lab] [--json] [--allow-miss] [--out DIR] [--build DIR]
    perf/figures/figures.py --summary [--quick] [--json] [--allow-miss] [--build DIR]
    perf/figures/figures.py --list

Each figure prints a table (x, series, our value, the paper's value and how
it was read), writes a PNG with both (--out, FIGURE.png) and ends with a
verdict line: "same direction, every ratio within 20 % of the paper's", or
which point is off and why. --quick: fewer points and smaller tensors, one
iteration, about two minutes for a whole figure on a two-CPU machine.
Figures that run the lab (atp_*, a2tp_*) need root; the goat_* ones replay
sim/goat_sim and need only the build. --sim runs a lab figure's topologies
in the ns-3 model instead (ina-sim: the same plans and worker keys, links
at the topologies' rates, no CPU in the way); the figures of SIM_DEFAULT run
there unless --lab (docs/figures.md says which and why).

--summary runs every figure in turn and prints one table: figure, backend,
the paper's claim, ours (the verdict), whether the direction held and how
many ratios are within 20 % of the paper's (docs/figures.md opens with it).

Exit status: 0 when the figure ran and kept the paper's direction (with
--allow-miss: whatever its verdict; --json says whether it held), 1 when
its direction is not the paper's, a run failed or a lab run was not exact
(--summary: for any figure), 2 on bad usage, 77 when the figure needs the
lab and it cannot run here (the reason on stderr; --summary lists it as
skipped).
"""
import json
import os
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)
from lablib import cli  # noqa: E402

import a2tp  # noqa: E402
import atp  # noqa: E402
import common  # noqa: E402
import goat  # noqa: E402

FIGURES = {**goat.FIGURES, **atp.FIGURES, **a2tp.FIGURES}
# Figures whose mechanism the two-CPU lab cannot isolate, run in the ns-3
# model by default (docs/figures.md, "Backends"): Figs. 13a and 14 compare
# aggregator allocations at the switch-to-PS link's rate, where the lab's
# CPUs, not the link, set the pace.
SIM_DEFAULT = ("atp_fig13", "atp_fig14")
SKIP = 77


def backend(name, sim=False):
    """Where a figure runs: the GOAT figures replay sim/goat_sim, the ATP
    and A²TP ones the lab (scripts/lab), or with --sim the ns-3 model."""
    return "goat-sim" if name.startswith("goat_") else "ns-3" if sim else "lab"


def run_one(ctx, name):
    """(Result or None, exit status) of one figure."""
    try:
        return FIGURES[name][0](ctx), 0
    except common.CannotRun as e:
        print(f"figures.py: {name}: skipped: {e}", file=sys.stderr)
        return None, SKIP
    except RuntimeError as e:
        print(f"figures.py: {name}: {e}", file=sys.stderr)
        return None, 1


def status(res, allow_miss):
    if res.exact is False:
        return 1
    return 0 if res.direction_ok or allow_miss else 1


def summary_row(name, res, rc, sim):
    if res is None:
        return {"figure": name, "backend": backend(name, sim), "claim": FIGURES[name][1],
                "ours": "skipped" if rc == SKIP else "failed", "direction_ok": None,
                "ratios_within": None, "ratios": None}
    within = sum(1 for r in res.ratios if r.within())
    return {"figure": name, "backend": backend(name, sim), "claim": res.direction, "ours": res.verdict(),
            "direction_ok": res.direction_ok, "ratios_within": within, "ratios": len(res.ratios),
            "exact": res.exact}


def summary(a):
    rows, worst = [], 0
    for name in sorted(FIGURES):
        ctx = context(a, name)
        res, rc = run_one(ctx, name)
        if res is not None:
            common.plot(res, os.path.join(a.out, f"{name}.png"))
            rc = status(res, a.allow_miss)
        elif rc == SKIP:
            rc = 0
        worst = max(worst, rc)
        rows.append(summary_row(name, res, rc, ctx.sim))
        print(f"figures.py: {name}: {rows[-1]['ours']}", file=sys.stderr, flush=True)
    if a.json:
        print(json.dumps({"quick": a.quick, "figures": rows}))
        return worst
    print("| figure | backend | paper's claim | ours | direction | ratios within 20 % |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        held = "-" if r["direction_ok"] is None else "held" if r["direction_ok"] else "**not held**"
        ratios = "-" if r["ratios"] is None else f"{r['ratios_within']} of {r['ratios']}"
        print(f"| `{r['figure']}` | {r['backend']} | {r['claim']} | {r['ours']} | {held} | {ratios} |")
    held = sum(1 for r in rows if r["direction_ok"])
    ran = sum(1 for r in rows if r["direction_ok"] is not None)
    every = sum(1 for r in rows if r["ratios"] is not None and r["ratios_within"] == r["ratios"])
    print(f"\n{held} of {ran} figures keep the paper's direction; {every} have every ratio within 20 %")
    return worst


def context(a, name):
    sim = (a.sim or (name in SIM_DEFAULT and not a.lab)) and not name.startswith("goat_")
    return common.Context(build=os.path.abspath(a.build), out=a.out, quick=a.quick,
                          prefix=common.lab_prefix(name), sim=sim)


def main():
    ap = cli.parser("figures.py", __doc__)
    ap.add_argument("figure", nargs="?", choices=sorted(FIGURES), metavar="FIGURE",
                    help="the figure to re-run (--list names them)")
    ap.add_argument("--list", action="store_true", help="list the figures and exit")
    ap.add_argument("--summary", action="store_true", help="run every figure; one table of their verdicts")
    ap.add_argument("--allow-miss", action="store_true",
                    help="exit 0 although a figure's direction is not the paper's")
    ap.add_argument("--quick", action="store_true",
                    help="fewer points, smaller tensors, one iteration (about 2 minutes a figure)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--sim", action="store_true",
                       help="run a lab figure's topologies in the ns-3 model (ina-sim) instead of the lab")
    where.add_argument("--lab", action="store_true",
                       help="run a figure that uses the model by default (atp_fig13, atp_fig14) in the lab")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON object")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "figures"), help="directory for the PNG")
    ap.add_argument("--build", default=os.environ.get("INA_BUILD_DIR", os.path.join(ROOT, "build")),
                    help="meson build directory")
    a = ap.parse_args()
    if a.list:
        for name in sorted(FIGURES):
            print(f"{name:<12} {FIGURES[name][1]}")
        return 0
    # SIGTERM as Ctrl-C: a running lab is taken down before we exit.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if a.summary:
        return summary(a)
    if not a.figure:
        ap.error("name a FIGURE (--list names them) or --summary")
    ctx = context(a, a.figure)
    res, rc = run_one(ctx, a.figure)
    if res is None:
        return rc
    png = common.plot(res, os.path.join(a.out, f"{a.figure}.png"))
    if a.json:
        print(json.dumps(dict(res.to_json(), png=png, quick=a.quick, backend=backend(a.figure, ctx.sim))))
    else:
        common.print_table(res)
        print(f"png: {png or 'not written (no matplotlib for this python)'}")
    return status(res, a.allow_miss)


if __name__ == "__main__":
    sys.exit(main())
