#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One figure of perf/figures in its --quick form: the paper's direction
holds (for ATP Figs. 13 and 14 and A²TP Figs. 7, 9 and 12 the part of it that holds here),
the figure's own checks below, and (lab figures) every run was exact.

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
    # --allow-miss: the direction is judged below, by this figure's rules.
    r = subprocess.run(["/usr/bin/python3", FIGURES, figure, "--quick", "--json", "--allow-miss", "--out", out,
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
    """ATP Fig. 14, in the ns-3 model by default (figures.py SIM_DEFAULT;
    the direction, hash above linear from 2 jobs on and at least 0.8 of
    static, is asserted in main()). Static finishes nothing at the PS:
    each job's window fits its own range. Hash keeps a single job whole in
    the switch (its window slots take distinct aggregators) and, with jobs
    sharing the switch, most of their fragments (70 % or more; 80-83 % in
    the quick run)."""
    errs = []
    v = {(p["x"], p["series"]): p for p in res["points"]}
    for (x, series), p in sorted(v.items()):
        # A static collision can only be a stale resend of a fragment its
        # peer saw complete (docs/worker.md): never more than the resends,
        # and nothing is finished at the PS.
        d = p["detail"]
        if series == "static" and (d["in switch %"] < 99.99 or d["collisions"] > d["retransmits"]):
            errs.append(f"static at {x} jobs fell back to the PS: {d}")
        if series == "hash" and x == 1 and d["in switch %"] < 99.99:
            errs.append(f"one job, hash: {d['in switch %']:.1f} % in the switch, not all: {d}")
        if series == "hash" and x >= 2 and d["in switch %"] < 70:
            errs.append(f"{x} jobs, hash: {d['in switch %']:.1f} % in the switch, below 70 %")
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
    """ATP Fig. 13a, in the ns-3 model by default (figures.py SIM_DEFAULT;
    the paper's direction, dynamic degrading less than static as the
    aggregators fall, is asserted in main()). Static aggregates everything
    in the switch at every share (its window fits its range); dynamic
    leaves more to the PS as the aggregators fall."""
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


def a2tp_fig12_checks(res):
    """A²TP Fig. 12: what reproduces here in every run (docs/figures.md): at
    N = 8 more fragments aggregate in the switch at H = 0.15 than at H = 0,
    the aggregator utilization the paper says H = 0 loses (5 % against 54 %
    in the full run). At N = 2 it is printed: 19 % against 60 % in the full
    run, but a quick run in a clean chroot had 55.5 % at H = 0 and 52.4 % at
    0.15. The throughputs are printed: beyond H = 0 they vary more from run
    to run than with H."""
    share = {(p["x"], p["series"]): p["detail"]["in switch %"] for p in res["points"]}
    errs = []
    for s in sorted({p["series"] for p in res["points"]} - {"N=2", "N=2 straggler"}):
        if not share[(0.15, s)] > share[(0.0, s)]:
            errs.append(f"{s}: in switch at H=0.15 {share[(0.15, s)]:.1f} % not above H=0 "
                        f"{share[(0.0, s)]:.1f} %")
    return errs


def a2tp_fig9_checks(res):
    """A²TP Fig. 9: what holds here in every run (docs/figures.md): the
    straggler is one (job B slower at the heaviest level than at the
    lightest under static and ATP); static never falls back to the PS.
    Printed, not asserted: ATP's job A against the level (it moved by less
    than the run-to-run spread: 0.274 s at 0.25 and 0.242 s at 0.1 in one
    quick run), A²TP against the others (the slowest here), and A²TP's own
    job B, whose resends can dwarf the straggler (3.966 s at 0.25 and
    3.788 s at 0.1 in one CI run)."""
    v = {(p["x"], p["series"]): p for p in res["points"]}
    levels = sorted({p["x"] for p in res["points"]})
    errs = []
    for s in ("static", "atp"):
        heavy, light = v[(levels[0], s)]["detail"]["B iteration s"], v[(levels[-1], s)]["detail"]["B iteration s"]
        if not heavy > light:
            errs.append(f"{s}: job B {heavy:.3f} s per iteration at level {levels[0]}, not above "
                        f"{light:.3f} s at {levels[-1]}")
    for x in levels:
        d = v[(x, "static")]["detail"]
        if d["A in switch %"] < 99.99 or d["B in switch %"] < 99.99:
            errs.append(f"static at level {x} fell back to the PS: {d}")
    return errs


def a2tp_fig7_checks(res):
    """A²TP Fig. 7(a): what holds here (docs/figures.md): the straggler is
    one (job B slower at the heaviest level than without, every scheme);
    static never falls back to the PS. The paper's order is printed, not
    asserted: static is the fastest here more often than not."""
    v = {(p["x"], p["series"]): p for p in res["points"]}
    levels = sorted({p["x"] for p in res["points"]})
    errs = []
    # Job B's throughput against the level is printed: a quick run in a
    # clean chroot had ATP's job B faster at level 0.2 than at 1.
    for s in ("static", "atp", "a2tp"):
        lo, hi = v[(levels[0], s)]["detail"]["B Gb/s"], v[(levels[-1], s)]["detail"]["B Gb/s"]
        print(f"  {s}: job B {lo:.3f} Gb/s at level {levels[0]}, {hi:.3f} at {levels[-1]}")
    for x in levels:
        if v[(x, "static")]["detail"]["in switch %"] < 99.99:
            errs.append(f"static at level {x} fell back to the PS: {v[(x, 'static')]['detail']}")
    return errs


def a2tp_fig7b_checks(res):
    """A²TP Fig. 7(b): what holds here (docs/figures.md): with fewer
    aggregators ATP keeps less in the switch (more collisions); static never
    falls back to the PS. The throughputs are printed, not asserted."""
    v = {(p["x"], p["series"]): p["detail"]["in switch %"] for p in res["points"]}
    xs = sorted({p["x"] for p in res["points"]})
    errs = []
    if not v[(xs[0], "atp")] < v[(xs[-1], "atp")]:
        errs.append(f"atp: in switch {v[(xs[0], 'atp')]:.1f} % at {xs[0]} % of PTA not below "
                    f"{v[(xs[-1], 'atp')]:.1f} % at {xs[-1]} %")
    for x in xs:
        if v[(x, "static")] < 99.99:
            errs.append(f"static at {x} % of PTA fell back to the PS: {v[(x, 'static')]:.1f} % in switch")
    return errs


def a2tp_fig10_checks(res):
    """A²TP Fig. 10: what holds here in every run (docs/figures.md): static,
    each job its share of the aggregators, is slower with the most jobs than
    with the fewest and never falls back to the PS. ATP's and A²TP's times
    against the number of jobs, and A²TP against the others, are printed:
    between 1, 2 and 4 jobs ATP's order varied from run to run."""
    v = {(p["x"], p["series"]): p for p in res["points"]}
    ns = sorted({p["x"] for p in res["points"]})
    errs = []
    for s in ("static",):
        if not v[(ns[-1], s)]["ours"] > v[(ns[0], s)]["ours"]:
            errs.append(f"{s}: {v[(ns[-1], s)]['ours']:.3f} s at {ns[-1]} jobs not above "
                        f"{v[(ns[0], s)]['ours']:.3f} s at {ns[0]}")
    for n in ns:
        if v[(n, "static")]["detail"]["in switch %"] < 99.99:
            errs.append(f"static at {n} jobs fell back to the PS: {v[(n, 'static')]['detail']}")
    return errs


def a2tp_fig11_checks(res):
    """A²TP Fig. 11: the trace covers every background step (an estimate
    per step, each in [0, 1] as eq. (3) says); the paper's direction is
    asserted by main() (a lower estimate under the heaviest step than
    under the lightest); and here also that the estimate falls with the
    throughput: at the heaviest step it is below 0.8 of the lightest
    steps' (0.39-0.68 of it in six runs; the paper's 0.4)."""
    errs = []
    pts = sorted(res["points"], key=lambda p: p["x"])
    if len(pts) != 7:
        errs.append(f"{len(pts)} steps traced, want 7")
    if not all(0.0 <= p["ours"] <= 1.0 for p in pts):
        errs.append(f"an estimate outside [0, 1]: {[p['ours'] for p in pts]}")
    for r in res.get("ratios", []):
        if r["label"].startswith("straggling at the heaviest") and not r["ours"] < 0.8:
            errs.append(f"straggling at the heaviest step {r['ours']:.2f} of the lightest's, want < 0.8")
    for p in pts:
        print(f"  step {p['x']}: {p['detail']['Gb/s per worker']:.3f} Gb/s per worker")
    return errs


# Each figure's own checks: what holds here whatever the machine's load.
CHECKS = {"atp_fig10": atp_fig10_checks, "atp_fig13": atp_fig13_checks, "atp_fig13b": atp_fig13b_checks,
          "atp_fig13c": atp_fig13c_checks, "atp_fig14": atp_fig14_checks, "atp_fig20": atp_fig20_checks,
          "a2tp_fig12": a2tp_fig12_checks, "a2tp_fig9": a2tp_fig9_checks, "a2tp_fig7": a2tp_fig7_checks,
          "a2tp_fig7b": a2tp_fig7b_checks, "a2tp_fig11": a2tp_fig11_checks,
          "a2tp_fig10": a2tp_fig10_checks}
# Figures whose direction is printed, not asserted: their checks assert
# the part of it that reproduces here (docs/figures.md says why).
DIRECTION_PRINTED = ("atp_fig13b", "atp_fig13c", "a2tp_fig12", "a2tp_fig9",
                     "a2tp_fig7", "a2tp_fig7b", "a2tp_fig10")


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
        if figure in CHECKS:
            errs += CHECKS[figure](res)
        for p in res["points"]:
            print(f"  {p['x']} {p['series']}: ours {p['ours']:.3f}, paper {p['paper']} {p['detail']}")
    for e in errs:
        print(f"FAIL: {e}")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
