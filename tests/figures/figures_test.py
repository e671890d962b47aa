#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One figure of perf/figures in its --quick form: the paper's direction
holds, and (lab figures) every run was exact.

    figures_test.py BUILD FIGURE

Exit 0 pass, 1 fail, 77 skip with the reason (the figure needs the lab and
it cannot run here, or goat-sim is not built).
"""
import json
import os
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIGURES = os.path.join(SRC, "perf", "figures", "figures.py")
SKIP = 77


def run_figure(build, figure, out):
    r = subprocess.run(["/usr/bin/python3", FIGURES, figure, "--quick", "--json", "--out", out,
                        "--build", build], capture_output=True, text=True, timeout=600)
    sys.stderr.write(r.stderr)
    if r.returncode == SKIP:
        print(f"skipped: {(r.stderr.strip().splitlines() or ['no reason'])[-1]}")
        sys.exit(SKIP)
    try:
        return r.returncode, json.loads(r.stdout)
    except ValueError:
        print(f"FAIL: {figure} printed no JSON (exit {r.returncode})")
        sys.exit(1)


def atp_fig14_checks(res):
    """Beyond the direction of every point: the mechanisms behind it. Static
    never falls back to the PS; hash keeps more in the switch than linear
    from 2 jobs on, and moves more data in total there."""
    errs = []
    pts = res["points"]
    for p in pts:
        if p["series"] == "static" and (p["detail"]["collisions"] or p["detail"]["in switch %"] < 99.99):
            errs.append(f"static at {p['x']} jobs fell back to the PS: {p['detail']}")
    v = {(p["x"], p["series"]): p for p in pts}
    multi = sorted({p["x"] for p in pts if p["x"] >= 2})
    for x in multi:
        h, li = v[(x, "hash")]["detail"]["in switch %"], v[(x, "linear")]["detail"]["in switch %"]
        if not h > li:
            errs.append(f"{x} jobs: hash keeps {h:.1f} % in the switch, linear {li:.1f} %")
    return errs


def main():
    build, figure = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="figures-test-") as out:
        rc, res = run_figure(build, figure, out)
        print(res["verdict"])
        errs = []
        if rc != 0:
            errs.append(f"exit {rc}")
        if not res["direction_ok"]:
            errs.append(f"not the paper's direction ({res['direction']}): {res['direction_off']}")
        if res["exact"] is False:
            errs.append(f"runs not exact: {res['failures']}")
        if res.get("png") and not os.path.getsize(res["png"]):
            errs.append(f"empty PNG {res['png']}")
        if figure == "atp_fig14":
            errs += atp_fig14_checks(res)
        for p in res["points"]:
            print(f"  {p['x']} {p['series']}: ours {p['ours']:.3f}, paper {p['paper']} {p['detail']}")
    for e in errs:
        print(f"FAIL: {e}")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
