#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One figure of perf/figures in its --quick form: the paper's direction
holds (for ATP Figs. 13 and 14 the part of it that reproduces here), the
figure's own checks below, and (lab figures) every run was exact.

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
    """ATP Fig. 14: what reproduces here (docs/figures.md). Static finishes
    nothing at the PS and carries more than hash wherever jobs share the switch.
    Hash against linear is printed, not asserted: linear's jobs sometimes
    fall into step (25 % in the switch at 4 jobs) and sometimes drift apart
    (96 % at 2 jobs), so its side of the paper's direction is a coin here."""
    errs = []
    v = {(p["x"], p["series"]): p for p in res["points"]}
    for (x, series), p in sorted(v.items()):
        # A static collision can only be a stale resend of a fragment its
        # peer saw complete (docs/worker.md): never more than the resends,
        # and nothing is finished at the PS.
        d = p["detail"]
        if series == "static" and (d["in switch %"] < 99.99 or d["collisions"] > d["retransmits"]):
            errs.append(f"static at {x} jobs fell back to the PS: {d}")
        if series == "hash" and x >= 2 and not p["ours"] < v[(x, "static")]["ours"]:
            errs.append(f"{x} jobs: hash {p['ours']:.3f} Gb/s not below static "
                        f"{v[(x, 'static')]['ours']:.3f}, which never falls back to the PS")
    return errs


def atp_fig20_checks(res):
    """ATP Fig. 20: every job keeps a fair part of its throughput alone
    when it shares the switch. The paper loses 10 %; here the two jobs
    also share the machine's two CPUs, and on a loaded machine a job kept
    0.55 of it (docs/figures.md), so the floor is 0.3. The direction
    (identical jobs equal when shared, the 5-worker job not above the
    2-worker one) is the figure's, checked in main()."""
    errs = []
    for p in res["points"]:
        if not p["ours"] >= 0.3:
            errs.append(f"{p['x']} {p['series']}: shared / alone {p['ours']:.2f}, below 0.3")
    return errs


def atp_fig10_checks(res):
    """ATP Fig. 10: the recovery modes are what they say. SwitchML's
    (recovery = timeout) resends only on its timer; ATP's resends on the
    ACKs' signal too, so at the highest loss rate some of its resends are
    not timeouts (a lost resend, or a fragment whose later ACKs were lost
    too, still waits for the timer). The direction (ATP above SwitchML
    from 0.5 %) is the figure's, checked in main()."""
    errs = []
    top = max(p["x"] for p in res["points"])
    for p in res["points"]:
        d = p["detail"]
        if p["series"] == "switchml" and d["retransmits"] != d["timeouts"]:
            errs.append(f"switchml at {p['x']} %: {d['retransmits']} retransmits, "
                        f"{d['timeouts']} of them timeouts")
        if p["series"] == "atp" and p["x"] == top and not d["timeouts"] < d["retransmits"]:
            errs.append(f"atp at {p['x']} %: {d['timeouts']} of {d['retransmits']} retransmits "
                        "were timeouts")
    return errs


def atp_fig13_checks(res):
    """ATP Fig. 13a: what holds here whatever the machine's load. Static
    aggregates everything in the switch at every share (its window fits
    its range); dynamic leaves more to the PS as the aggregators fall.
    The paper's direction (dynamic degrades less than static) is printed,
    not asserted: in three quick runs it held twice (docs/figures.md)."""
    errs = []
    v = {(p["x"], p["series"]): p["detail"] for p in res["points"]}
    pcts = sorted({p["x"] for p in res["points"]})
    for pct in pcts:
        d = v[(pct, "static")]
        if d["in switch %"] < 99.0:
            errs.append(f"static at {pct} % of PTA: {d['in switch %']:.1f} % in the switch")
    lo, hi = v[(pcts[0], "dynamic")], v[(pcts[-1], "dynamic")]
    if not lo["in switch %"] < hi["in switch %"]:
        errs.append(f"dynamic: {lo['in switch %']:.1f} % in the switch at {pcts[0]} % of PTA, "
                    f"not below {hi['in switch %']:.1f} % at {pcts[-1]} %")
    return errs


def series_of(res):
    """{series: [ours, ...] in time order}."""
    out = {}
    for p in sorted(res["points"], key=lambda p: p["x"]):
        out.setdefault(p["series"], []).append(p["ours"])
    return out


def atp_fig13b_checks(res):
    """ATP Fig. 13b: every job traced over the run, and at 100 % of PTA
    some fragments completed at the PS (hash collisions). Whether they
    fall after 500 ms is printed: here they do not (docs/figures.md)."""
    s = series_of(res)
    errs = [] if sorted(s) == ["job1", "job2", "job3"] else [f"series {sorted(s)}, want job1-3"]
    for name, v in s.items():
        if len(v) < 3:
            errs.append(f"{name}: {len(v)} points of 100 ms")
    if not sum(sum(v) for v in s.values()) > 0:
        errs.append("nothing completed at the PS at 100 % of PTA")
    return errs


def atp_fig13c_checks(res):
    """ATP Fig. 13c: job 3's off phase shows in its trace (a 100 ms bin
    without in-switch aggregations between two with), and the other jobs
    aggregate in the switch meanwhile. Whether they aggregate more then is
    printed (it held in two of three quick runs under load)."""
    s = series_of(res)
    errs = [] if sorted(s) == ["job1", "job2", "job3"] else [f"series {sorted(s)}, want job1-3"]
    j3 = s.get("job3", [])
    on = [i for i, v in enumerate(j3) if v > 0]
    gaps = [i for i in range(on[0], on[-1]) if j3[i] == 0] if on else []
    if not gaps:
        errs.append(f"job3's trace shows no off phase: {[round(v, 1) for v in j3]}")
    elif not any(s[n][i] > 0 for n in ("job1", "job2") if n in s for i in gaps if i < len(s[n])):
        errs.append("the other jobs aggregated nothing in the switch while job3 was off")
    return errs


# Figures whose direction is printed, not asserted (their checks above
# say what is asserted instead, and docs/figures.md why).
DIRECTION_PRINTED = ("atp_fig13", "atp_fig13b", "atp_fig13c", "atp_fig14")


def main():
    build, figure = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="figures-test-") as out:
        rc, res = run_figure(build, figure, out)
        print(res["verdict"])
        errs = []
        if rc != 0:
            errs.append(f"exit {rc}")
        if not res["direction_ok"] and figure not in DIRECTION_PRINTED:
            errs.append(f"not the paper's direction ({res['direction']}): {res['direction_off']}")
        if res["exact"] is False:
            errs.append(f"runs not exact: {res['failures']}")
        if res.get("png") and not os.path.getsize(res["png"]):
            errs.append(f"empty PNG {res['png']}")
        if figure == "atp_fig13":
            errs += atp_fig13_checks(res)
        if figure == "atp_fig13b":
            errs += atp_fig13b_checks(res)
        if figure == "atp_fig13c":
            errs += atp_fig13c_checks(res)
        if figure == "atp_fig14":
            errs += atp_fig14_checks(res)
        if figure == "atp_fig10":
            errs += atp_fig10_checks(res)
        if figure == "atp_fig20":
            errs += atp_fig20_checks(res)
        for p in res["points"]:
            print(f"  {p['x']} {p['series']}: ours {p['ours']:.3f}, paper {p['paper']} {p['detail']}")
    for e in errs:
        print(f"FAIL: {e}")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
