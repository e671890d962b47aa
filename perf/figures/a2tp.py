# SPDX-License-Identifier: BSD-3-Clause
"""A²TP (seed 000) figures in the lab.

Fig. 7 (§6.3): two jobs' total aggregation throughput, for the static
partition, ATP and A²TP, (a) as job B's straggling level goes 1 -> 0.2,
(b) as the aggregators go from 100 % to 50 % of the peak-throughput
aggregators (PTA) with B straggling.

Fig. 9 (§6.5): the non-straggler job's iteration time beside a straggling
job, the straggling level going 0.25 -> 0.1, for SwitchML's static
partition, ATP and A²TP.

Fig. 12 (§6.8, sensitivity to the threshold H): total aggregation
throughput of N jobs against H (the worker key a2tp_h), without and with
stragglers (half of the jobs have one straggling worker).

A straggler here is what the paper makes of it (§6.1 "Straggler
injection", §6.3): a worker with a fraction of the bandwidth the others
have, the "straggling level". The paper gets it with background traffic on
the worker's link; here the switch port facing the straggling worker sends
at `level` x the others' rate (the lab's per-host rate_gbps), the port its
parameter packets leave by, so its window moves at `level` of the others'
pace. A background UDP flow at (1 - level) of the link into that port
(the lab's [[background]]) did the same less reproducibly: at level 0.2
it filled the port's queue, and the job took 107-175 s of retransmissions
instead of seconds (docs/figures.md).
"""
import os
import tempfile

import a2tp_fig11

from common import Point, Ratio, Result, in_switch, lab_exact, require_lab, run_lab, sweep

# Every switch port's rate (Gb/s) and ECN threshold (packets): low enough
# that the links, not the two CPUs, bound a run, as in atp.py.
RATE_GBPS = 0.2
ECN = 20
WORKERS = 2
# The straggling worker of a straggling job: its second.
STRAGGLER = 1


def topology(prm, jobs, stragglers, worker_args, cc=lambda k: "a2tp"):
    """A topology file's text: one switch of prm['aggregators'] aggregators,
    `jobs` jobs of WORKERS workers, each with its own PS host, congestion
    control cc(k) (default a2tp) and worker_args(k) for job k; stragglers: {job index: level}, that job's
    straggling worker behind a port at level x the rate."""
    lines = [f'description = "A2TP: {jobs} jobs, stragglers {stragglers}"',
             f"aggregators = {prm['aggregators']}", "", "[[switch]]", 'name = "sw0"',
             f"rate_gbps = {RATE_GBPS}", f"ecn_threshold = {ECN}"]
    hosts = [f"ps{k}" for k in range(jobs)]
    hosts += [f"j{k}w{i}" for k in range(jobs) for i in range(WORKERS)]
    slow = {f"j{k}w{STRAGGLER}": level * RATE_GBPS for k, level in stragglers.items()}
    lines += [f'\n[[host]]\nname = "{h}"\nswitch = "sw0"' +
              (f"\nrate_gbps = {slow[h]:.4f}" if h in slow else "") for h in hosts]
    for k in range(jobs):
        wargs = list(worker_args(k))
        lines += ["", "[[job]]", f"id = {k + 1}", f'name = "job{k + 1}"', f'ps = "ps{k}"',
                  "workers = [" + ", ".join(f'"j{k}w{i}"' for i in range(WORKERS)) + "]",
                  f"tensor = {prm['tensor']}", f"iterations = {prm['iterations']}", f'cc = "{cc(k)}"',
                  "worker_args = [" + ", ".join(f'"{a}"' for a in wargs) + "]"]
    return "\n".join(lines) + "\n"


def run_topology(ctx, text, tag):
    """One lab run of `text`: (report, None or why it was not exact)."""
    with tempfile.NamedTemporaryFile("w", suffix=".toml", prefix=f"a2tp-{tag}-", delete=False) as f:
        f.write(text)
    try:
        rep = run_lab(ctx, f.name, ["--driver", "af_xdp"])
    finally:
        os.unlink(f.name)
    return rep, lab_exact(rep)


def job_gbps(prm, j):
    """A job's aggregation throughput: its bytes per worker over its own time."""
    return prm["tensor"] * 4 * prm["iterations"] * 8 / j["seconds"] / 1e9 if j.get("seconds") else 0.0


def h_args(h):
    return ["--set", f"a2tp_h={h}"]


# ---- Fig. 12 -------------------------------------------------------------

TEXT12 = ("§6.8: \"when N is 8, H should be greater than 0.1 to achieve maximum aggregator "
          "utilization\"; \"the aggregation throughput is only 57Gbps when H is 0, while the maximum "
          "throughput is 63Gbps when H is 0.15\"; with stragglers \"when the threshold exceeds 0.2, "
          "the aggregation throughput decreases significantly, and A²TP gets the lowest throughput "
          "when the threshold is larger than 0.55\"")


def fig12_params(quick):
    if quick:
        return {"jobs": [2, 8], "h": {2: [0.0, 0.15, 0.6], 8: [0.0, 0.15]}, "aggregators": 256,
                "tensor": 1 << 20, "iterations": 1, "level": 0.2, "straggle_jobs": [2]}
    hs = [0.0, 0.05, 0.1, 0.15, 0.2, 0.4, 0.6, 0.8]
    return {"jobs": [2, 8], "h": {2: hs, 8: hs}, "aggregators": 256,
            "tensor": 1 << 21, "iterations": 1, "level": 0.2, "straggle_jobs": [2, 8]}


def fig12_run(ctx, prm, jobs, h, straggle):
    """One run: its point and why it was not exact (or None)."""
    stragglers = {k: prm["level"] for k in range(jobs) if straggle and k % 2}
    rep, bad = run_topology(ctx, topology(prm, jobs, stragglers, lambda k: h_args(h)),
                            f"12-{jobs}-{h}")
    js = rep.get("jobs", [])
    total = sum(job_gbps(prm, j) for j in js)
    series = f"N={jobs}" + (" straggler" if straggle else "")
    detail = {"in switch %": in_switch(rep), "collisions": sum(j.get("collisions_switch") or 0 for j in js),
              "retransmits": sum(j.get("retransmits") or 0 for j in js),
              "slowest s": max((j.get("seconds") or 0 for j in js), default=0)}
    print(f"fig12: {series} H={h}: {total:.3f} Gb/s, {detail}", file=ctx.log, flush=True)
    return Point(h, series, total, None, "", detail), bad


def fig12_paper(p):
    """The text's numbers: Fig. 12(b), N = 8 without stragglers."""
    if p.series == "N=8" and p.x == 0.0:
        return 57.0, "text, §6.8 (Fig. 12(b): H = 0)"
    if p.series == "N=8" and p.x == 0.15:
        return 63.0, "text, §6.8 (Fig. 12(b): H = 0.15, the maximum)"
    return None, "no number in the text at this point (§6.8 states the trend: note)"


def fig12_direction(pts):
    """H = 0.15 at least as high as H = 0 (no premature control: within 5 %
    or above) for every series; with stragglers, H = 0.15 above the largest
    H (no control at all). Returns what breaks it and the ratios."""
    v = {(p.x, p.series): p.ours for p in pts}
    off, ratios = [], []
    hs = sorted({p.x for p in pts})
    for s in sorted({p.series for p in pts}):
        low, mid, high = v.get((0.0, s)), v.get((0.15, s)), v.get((hs[-1], s))
        if low is not None and mid is not None and mid < 0.95 * low:
            off.append(f"{s}: H=0.15 {mid:.3f} Gb/s below H=0 {low:.3f}")
        if "straggler" in s and mid is not None and high is not None and not mid > high:
            off.append(f"{s}: H=0.15 {mid:.3f} Gb/s not above H={hs[-1]} {high:.3f}")
        if s == "N=8" and low is not None and mid:
            ratios.append(Ratio("H=0 / H=0.15 at N=8", low / mid, 57.0 / 63.0))
    return off, ratios


def fig12(ctx):
    require_lab(ctx)
    prm = fig12_params(ctx.quick)
    pts, failures = [], []
    for jobs in prm["jobs"]:
        for straggle in (False, True):
            if straggle and jobs not in prm["straggle_jobs"]:
                continue
            for h in prm["h"][jobs]:
                p, bad = fig12_run(ctx, prm, jobs, h, straggle)
                p.paper, p.how = fig12_paper(p)
                pts.append(p)
                if bad:
                    failures.append(f"{p.series} H={h}: {bad}")
    off, ratios = fig12_direction(pts)
    notes = [
        "paper: N jobs of 4 workers and a PS each on a Tofino with 450 aggregators, 100 Gb/s links; "
        "with stragglers half of the jobs have one straggling worker; " + TEXT12,
        f"scaled: N jobs of {WORKERS} workers and a PS each, one ina-switchd of {prm['aggregators']} "
        f"aggregators, ports at {RATE_GBPS} Gb/s with ECN from {ECN} packets, cc a2tp (its other keys "
        f"at their defaults), {prm['tensor'] * 4 >> 20} MB per worker x {prm['iterations']} iteration(s); "
        f"a straggling job's second worker is behind a port at {prm['level']} x the rate (straggling "
        f"level {prm['level']})",
        "ours: the sum over jobs of each job's bytes per worker over its own time, Gb/s; the paper's "
        "Gb/s are its testbed's, compared here only as the ratio H=0 / H=0.15",
    ]
    return Result("a2tp_fig12", "A²TP Fig. 12: aggregation throughput vs threshold H",
                  "threshold H (a2tp_h)", "aggregation throughput, Gb/s (all jobs)", pts,
                  "H=0.15 not below H=0; with stragglers H=0.15 above the largest H", not off, off,
                  ratios, notes, exact=not failures, failures=failures)


# ---- Fig. 9 --------------------------------------------------------------

SCHEMES9 = ("static", "atp", "a2tp")
TEXT9 = ("§6.5: \"The average iteration time of ATP increases with the heavier stragglers degree\"; "
         "\"Compared with SwitchML and ATP, the iteration time of A²TP is consistently small\"; "
         "\"A²TP reduces iteration time by up to 44% and 37%, respectively\"")


def fig9_params(quick):
    if quick:
        return {"levels": [0.25, 0.1], "aggregators": 128, "tensor": 1 << 20, "iterations": 2}
    return {"levels": [0.25, 0.2, 0.15, 0.1], "aggregators": 128, "tensor": 1 << 20, "iterations": 3}


def scheme_args(scheme, k, aggregators, jobs=2):
    """Job k's worker arguments and congestion control under a scheme:
    static = SwitchML's equal partition (index static:FIRST-END, a fixed
    window that fits the range, docs/worker.md), atp = ATP's hash and
    AIMD, a2tp = A²TP's two windows (both with their defaults)."""
    if scheme != "static":
        return [], scheme
    rng = aggregators // jobs
    return (["--set", f"index=static:{k * rng}-{(k + 1) * rng}", "--set", f"window_capacity={rng}",
             "--set", f"initial_window={rng - 1}", "--set", f"max_window={rng - 1}",
             "--set", "min_rto_us=100000", "--set", "initial_rto_us=300000",
             "--set", "max_rto_us=1000000"], "none")


def two_jobs(ctx, prm, level, scheme, tag):
    """Job 1 (A) beside job 2 (B), whose second worker straggles at
    `level`, both under `scheme`: the report and why the run was not exact
    (or None)."""
    args = {k: scheme_args(scheme, k, prm["aggregators"]) for k in range(2)}
    return run_topology(ctx, topology(prm, 2, {1: level}, lambda k: args[k][0],
                                      lambda k: args[k][1]), f"{tag}-{scheme}-{level}")


def fig9_run(ctx, prm, level, scheme):
    """A's point (its mean iteration time) beside B straggling at `level`,
    and why the run was not exact (or None)."""
    rep, bad = two_jobs(ctx, prm, level, scheme, "9")
    js = {j["id"]: j for j in rep.get("jobs", [])}
    a, b = js.get(1, {}), js.get(2, {})
    it = (a.get("seconds") or 0) / prm["iterations"]
    detail = {"A in switch %": 100 * (a.get("share_switch") or 0),
              "B in switch %": 100 * (b.get("share_switch") or 0),
              "B iteration s": (b.get("seconds") or 0) / prm["iterations"]}
    print(f"fig9: level {level} {scheme}: A {it:.3f} s per iteration, {detail}", file=ctx.log, flush=True)
    return Point(level, scheme, it, None, "", detail), bad


def fig9_direction(pts):
    """ATP's time longer at the heaviest straggling than at the lightest;
    A²TP's the shortest of the three at every level. Returns what breaks it
    and the ratios at the point of A²TP's largest gain."""
    v = {(p.x, p.series): p.ours for p in pts}
    levels = sorted({p.x for p in pts}, reverse=True)
    off = []
    if not v[(levels[-1], "atp")] > v[(levels[0], "atp")]:
        off.append(f"atp: {v[(levels[-1], 'atp')]:.3f} s at level {levels[-1]} not above "
                   f"{v[(levels[0], 'atp')]:.3f} s at {levels[0]}")
    for x in levels:
        for other in ("static", "atp"):
            if not v[(x, "a2tp")] <= v[(x, other)]:
                off.append(f"level {x}: a2tp {v[(x, 'a2tp')]:.3f} s above {other} {v[(x, other)]:.3f} s")
    ratios = []
    for other, paper in (("static", 0.56), ("atp", 0.63)):
        # A level whose runs failed (0 s: the figure's failures say why) has no ratio.
        best = min((v[(x, "a2tp")] / v[(x, other)] for x in levels if v[(x, other)] > 0), default=None)
        if best is not None:
            ratios.append(Ratio(f"a2tp / {other}, smallest over the levels", best, paper))
    return off, ratios


def fig9(ctx):
    require_lab(ctx)
    prm = fig9_params(ctx.quick)
    pts, failures = sweep(ctx, prm["levels"], SCHEMES9, lambda c, x, s: fig9_run(c, prm, x, s),
                          lambda x, s: f"level {x} {s}")
    for p in pts:
        p.how = "no number in the text at a level (§6.5 states the gains 'up to': note)"
    off, ratios = fig9_direction(pts)
    notes = [
        "paper: two jobs of 4 workers (A and B, each its PS) on 450 aggregators, training VGG16, "
        "ResNet50, AlexNet and BERT, B straggling by background traffic on one worker; " + TEXT9 +
        "; the ratios compare A²TP's largest gains (1 - 0.44, 1 - 0.37) with ours",
        f"scaled: the microbenchmark (no compute), two jobs of {WORKERS} workers and a PS each, one "
        f"ina-switchd of {prm['aggregators']} aggregators, ports at {RATE_GBPS} Gb/s with ECN from "
        f"{ECN} packets, {prm['tensor'] * 4 >> 20} MB per worker x {prm['iterations']} iterations; B's "
        "second worker behind a port at level x the rate",
        "static = SwitchML: each job its half of the aggregators (index static:FIRST-END), a fixed "
        "window of its range - 1 (cc none); atp = cc atp, index hash; a2tp = cc a2tp (defaults)",
        "ours: job A's time over its iterations",
    ]
    return Result("a2tp_fig9", "A²TP Fig. 9: non-straggler job's iteration time vs straggling level",
                  "straggling level (job B)", "job A's iteration time, s", pts,
                  "ATP's time grows as the level falls; A²TP the shortest at every level",
                  not off, off, ratios, notes, exact=not failures, failures=failures)


# ---- Fig. 7(a) ------------------------------------------------------------

TEXT7 = ("§6.3: \"the aggregation throughputs of the dynamic solutions (A²TP and ATP) are higher than "
         "that of the static solution (SwitchML) in all cases\"; \"the aggregation throughputs of "
         "SwitchML and ATP decrease with increasing stragglers level, while A²TP still maintains the "
         "high throughput\"")


def fig7_params(quick):
    if quick:
        return {"levels": [1.0, 0.6, 0.2], "aggregators": 128, "tensor": 1 << 20, "iterations": 1}
    return {"levels": [1.0, 0.8, 0.6, 0.4, 0.2], "aggregators": 128, "tensor": 1 << 20,
            "iterations": 2}


def fig7_run(ctx, prm, level, scheme):
    """The two jobs' total aggregation throughput with B straggling at
    `level`, and why the run was not exact (or None)."""
    rep, bad = two_jobs(ctx, prm, level, scheme, "7")
    js = {j["id"]: j for j in rep.get("jobs", [])}
    total = sum(job_gbps(prm, j) for j in js.values())
    detail = {"in switch %": in_switch(rep), "A Gb/s": job_gbps(prm, js.get(1, {})),
              "B Gb/s": job_gbps(prm, js.get(2, {}))}
    print(f"fig7: level {level} {scheme}: {total:.3f} Gb/s, {detail}", file=ctx.log, flush=True)
    return Point(level, scheme, total, None, "", detail), bad


def fig7_direction(pts):
    """ATP and A²TP above static at every level; static and ATP lower at
    the heaviest straggling than without; A²TP keeps at least 90 % of its
    throughput without a straggler."""
    v = {(p.x, p.series): p.ours for p in pts}
    levels = sorted({p.x for p in pts}, reverse=True)
    off = []
    for x in levels:
        for dyn in ("atp", "a2tp"):
            if not v[(x, dyn)] > v[(x, "static")]:
                off.append(f"level {x}: {dyn} {v[(x, dyn)]:.3f} Gb/s not above static {v[(x, 'static')]:.3f}")
    hi, lo = levels[0], levels[-1]
    for s in ("static", "atp"):
        if not v[(lo, s)] < v[(hi, s)]:
            off.append(f"{s}: {v[(lo, s)]:.3f} Gb/s at level {lo} not below {v[(hi, s)]:.3f} at {hi}")
    if v[(lo, "a2tp")] < 0.9 * v[(hi, "a2tp")]:
        off.append(f"a2tp: {v[(lo, 'a2tp')]:.3f} Gb/s at level {lo}, below 90 % of {v[(hi, 'a2tp')]:.3f} at {hi}")
    return off


def fig7(ctx):
    require_lab(ctx)
    prm = fig7_params(ctx.quick)
    pts, failures = sweep(ctx, prm["levels"], SCHEMES9, lambda c, x, s: fig7_run(c, prm, x, s),
                          lambda x, s: f"level {x} {s}")
    for p in pts:
        p.how = "no number in the text (§6.3 states the order: note)"
    off = fig7_direction(pts)
    notes = [
        "paper: Fig. 7(a), two microbenchmark jobs of 4 workers (each its PS) on 450 aggregators, "
        "B's straggling level from 1 to 0.2; " + TEXT7 + "; Fig. 7(b) is a2tp_fig7b",
        f"scaled: two jobs of {WORKERS} workers and a PS each, one ina-switchd of {prm['aggregators']} "
        f"aggregators, ports at {RATE_GBPS} Gb/s with ECN from {ECN} packets, "
        f"{prm['tensor'] * 4 >> 20} MB per worker x {prm['iterations']} iteration(s); B's second "
        "worker behind a port at level x the rate; the schemes as in a2tp_fig9",
        "ours: the sum of both jobs' bytes per worker over each job's own time, Gb/s",
    ]
    return Result("a2tp_fig7", "A²TP Fig. 7(a): aggregation throughput vs straggling level",
                  "straggling level (job B)", "aggregation throughput, Gb/s (both jobs)", pts,
                  "ATP and A²TP above static; static and ATP fall as B straggles, A²TP holds",
                  not off, off, [], notes, exact=not failures, failures=failures)


# ---- Fig. 7(b) ------------------------------------------------------------

TEXT7B = ("§6.3: \"when using 100% of PTA, the aggregation throughputs of the three protocols are "
          "similar due to sufficient aggregators. When the number of available aggregators decreases, "
          "the aggregation throughput of A²TP is kept at 63Gbps, while those of SwitchML and ATP "
          "gradually decrease. Specifically, A²TP increases the aggregation throughput by up to 68% "
          "and 46% than that of SwitchML and ATP\"")
# The peak-throughput aggregators of fig9/fig7's two jobs: static's halves
# of 128 hold windows of 127, and ATP keeps 88-94 % in the switch there.
PTA = 256


def fig7b_params(quick):
    if quick:
        return {"shares": [1.0, 0.5], "level": 0.2, "tensor": 1 << 20, "iterations": 1}
    return {"shares": [1.0, 0.83, 0.67, 0.5], "level": 0.2, "tensor": 1 << 20, "iterations": 2}


def fig7b_run(ctx, prm, share, scheme):
    """Both jobs' total throughput on share x PTA aggregators, B straggling
    at prm['level'], and why the run was not exact (or None)."""
    run = dict(prm, aggregators=int(PTA * share))
    rep, bad = two_jobs(ctx, run, prm["level"], scheme, f"7b{run['aggregators']}")
    js = {j["id"]: j for j in rep.get("jobs", [])}
    total = sum(job_gbps(prm, j) for j in js.values())
    detail = {"aggregators": run["aggregators"], "in switch %": in_switch(rep),
              "A Gb/s": job_gbps(prm, js.get(1, {})), "B Gb/s": job_gbps(prm, js.get(2, {}))}
    print(f"fig7b: {share:.0%} of PTA {scheme}: {total:.3f} Gb/s, {detail}", file=ctx.log, flush=True)
    return Point(int(round(100 * share)), scheme, total, None, "", detail), bad


def fig7b_direction(pts):
    """Similar at 100 % of PTA (every scheme within 20 % of A²TP); with the
    fewest aggregators static and ATP lower than at 100 %, A²TP at least
    90 % of it. Returns what breaks it and the ratios at A²TP's largest
    gains (the text's 1.68 and 1.46)."""
    v = {(p.x, p.series): p.ours for p in pts}
    full, least = max(p.x for p in pts), min(p.x for p in pts)
    off = []
    for s in ("static", "atp"):
        if abs(v[(full, s)] / v[(full, "a2tp")] - 1) > 0.2:
            off.append(f"{full} %: {s} {v[(full, s)]:.3f} Gb/s not within 20 % of a2tp {v[(full, 'a2tp')]:.3f}")
        if not v[(least, s)] < v[(full, s)]:
            off.append(f"{s}: {v[(least, s)]:.3f} Gb/s at {least} % not below {v[(full, s)]:.3f} at {full} %")
    if v[(least, "a2tp")] < 0.9 * v[(full, "a2tp")]:
        off.append(f"a2tp: {v[(least, 'a2tp')]:.3f} Gb/s at {least} %, below 90 % of {v[(full, 'a2tp')]:.3f}")
    xs = sorted({p.x for p in pts})
    ratios = [Ratio(f"a2tp / {s}, largest over the aggregator counts",
                    max(v[(x, "a2tp")] / v[(x, s)] for x in xs), paper)
              for s, paper in (("static", 1.68), ("atp", 1.46))]
    return off, ratios


def fig7b(ctx):
    require_lab(ctx)
    prm = fig7b_params(ctx.quick)
    pts, failures = sweep(ctx, prm["shares"], SCHEMES9, lambda c, x, s: fig7b_run(c, prm, x, s),
                          lambda x, s: f"{x} % of PTA {s}")
    for p in pts:
        p.how = "no number in the text at a point (§6.3 states the gains 'up to': note)"
    off, ratios = fig7b_direction(pts)
    notes = [
        "paper: Fig. 7(b), two microbenchmark jobs of 4 workers on 100 % to 50 % of PTA (900 "
        "aggregators), B straggling at a fixed level; " + TEXT7B,
        f"scaled: a2tp_fig7's two jobs on {', '.join(str(int(PTA * x)) for x in prm['shares'])} "
        f"aggregators (PTA = {PTA} here: static's halves hold windows of {PTA // 2 - 1}), B's second "
        f"worker at level {prm['level']}, {prm['tensor'] * 4 >> 20} MB per worker x "
        f"{prm['iterations']} iteration(s); static's window shrinks with its half (range - 1)",
        "ours: the sum of both jobs' bytes per worker over each job's own time, Gb/s",
    ]
    return Result("a2tp_fig7b", "A²TP Fig. 7(b): aggregation throughput vs aggregators (% of PTA)",
                  "aggregators, % of PTA", "aggregation throughput, Gb/s (both jobs)", pts,
                  "similar at 100 % of PTA; static and ATP fall with fewer aggregators, A²TP holds",
                  not off, off, ratios, notes, exact=not failures, failures=failures)


# ---- Fig. 10 -------------------------------------------------------------

TEXT10 = ("§6.6: \"The iteration time of all schemes increase with more jobs\"; \"A²TP reduces the average "
          "iteration time by up to 66% and 18% compared with SwitchML and ATP with stragglers (i.e., the "
          "number of jobs is larger than 2)\"; \"When the number of jobs is 4, A²TP only reduces the average "
          "iteration time by 12% compared with ATP\"")


def fig10_params(quick):
    if quick:
        return {"jobs": [2, 4], "aggregators": 256, "tensor": 1 << 19, "iterations": 1}
    return {"jobs": [1, 2, 4, 8], "aggregators": 256, "tensor": 1 << 20, "iterations": 2}


def fig10_run(ctx, prm, jobs, scheme):
    """All jobs' mean iteration time with `jobs` jobs under `scheme`; past
    two jobs every other job has a worker straggling at 0.5 (the paper's
    stragglers come from workers of several jobs sharing a server)."""
    stragglers = {k: 0.5 for k in range(1, jobs, 2)} if jobs > 2 else {}
    args = {k: scheme_args(scheme, k, prm["aggregators"], jobs) for k in range(jobs)}
    rep, bad = run_topology(ctx, topology(prm, jobs, stragglers, lambda k: args[k][0], lambda k: args[k][1]),
                            f"10-{scheme}-{jobs}")
    js = rep.get("jobs", [])
    it = sum((j.get("seconds") or 0) for j in js) / len(js) / prm["iterations"] if js else 0.0
    detail = {"in switch %": in_switch(rep), "stragglers": len(stragglers),
              "retransmits": sum(j.get("retransmits") or 0 for j in js)}
    print(f"fig10: {jobs} jobs {scheme}: {it:.3f} s per iteration, {detail}", file=ctx.log, flush=True)
    return Point(jobs, scheme, it, None, "no number in the text at a point (note)", detail), bad


def fig10_direction(pts):
    """Every scheme's time grows from the fewest jobs to the most; past two
    jobs A²TP's is the shortest. The ratios: A²TP against the others at
    the most jobs, and against ATP at 4."""
    v = {(p.x, p.series): p.ours for p in pts}
    ns = sorted({p.x for p in pts})
    off, ratios = [], []
    for s in SCHEMES9:
        if not v[(ns[-1], s)] > v[(ns[0], s)]:
            off.append(f"{s}: {v[(ns[-1], s)]:.3f} s at {ns[-1]} jobs not above {v[(ns[0], s)]:.3f} s at {ns[0]}")
    for n in (x for x in ns if x > 2):
        for other in ("static", "atp"):
            if not v[(n, "a2tp")] <= v[(n, other)]:
                off.append(f"{n} jobs: a2tp {v[(n, 'a2tp')]:.3f} s above {other} {v[(n, other)]:.3f} s")
    top = ns[-1]
    if top > 2:
        ratios.append(Ratio(f"a2tp / static at {top} jobs", v[(top, "a2tp")] / v[(top, "static")], 0.34))
        ratios.append(Ratio(f"a2tp / atp at {top} jobs", v[(top, "a2tp")] / v[(top, "atp")],
                            0.82 if top >= 8 else 0.88))
    return off, ratios


def fig10(ctx):
    require_lab(ctx)
    prm = fig10_params(ctx.quick)
    pts, failures = sweep(ctx, prm["jobs"], SCHEMES9, lambda c, x, s: fig10_run(c, prm, x, s),
                          lambda x, s: f"{x} jobs {s}")
    off, ratios = fig10_direction(pts)
    notes = [
        "paper: 1-8 identical jobs of 4 workers, at most 4 workers of different jobs per server, "
        "SwitchML's aggregators divided equally; " + TEXT10 + "; the ratios: 1 - 0.66 against static at "
        "the most jobs, 1 - 0.18 (8 jobs) or 1 - 0.12 (4 jobs) against ATP",
        f"scaled: {', '.join(map(str, prm['jobs']))} jobs of {WORKERS} workers, each its PS, "
        f"{prm['aggregators']} aggregators, ports at {RATE_GBPS} Gb/s with ECN from {ECN} packets, "
        f"{prm['tensor'] * 4 / (1 << 20):g} MB per worker x {prm['iterations']} iteration(s); past two jobs "
        "every other job's second worker behind a port at half the rate (a straggler)",
        "static, atp, a2tp as in a2tp_fig9; ours: the jobs' mean time per iteration",
    ]
    return Result("a2tp_fig10", "A²TP Fig. 10: mean iteration time vs number of jobs",
                  "jobs", "mean iteration time, s", pts,
                  "every scheme slower with more jobs; past two jobs A²TP the fastest", not off, off,
                  ratios, notes, exact=not failures, failures=failures)


FIGURES = {
    "a2tp_fig10": (fig10, "A²TP Fig. 10: mean iteration time, 1..8 jobs, static / ATP / A²TP (lab)"),
    **a2tp_fig11.FIGURES,
    "a2tp_fig7b": (fig7b, "A²TP Fig. 7(b): two jobs' throughput on 100..50 % of PTA, a straggler (lab)"),
    "a2tp_fig7": (fig7, "A²TP Fig. 7(a): two jobs' throughput beside a straggler, level 1..0.2 (lab)"),
    "a2tp_fig9": (fig9, "A²TP Fig. 9: job A's iteration time beside a straggler, level 0.25..0.1 (lab)"),
    "a2tp_fig12": (fig12, "A²TP Fig. 12: aggregation throughput vs threshold H, N = 2 and 8 (lab)"),
}
