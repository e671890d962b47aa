# SPDX-License-Identifier: BSD-3-Clause
"""ATP (seed 001) Figs. 13b and 13c in the lab (§5.4.1): the per-10 ms
traces behind Fig. 13a, from the same three jobs on one switch (atp_fig13's
topology, dynamic allocation).

Fig. 13b: "the total number of aggregations at the PS every 10ms for each
job with ATP's dynamic approach using 100% of PTA, starting at job warm-up.
Initially, there are hash collisions [...], which leads to aggregation at
the PS. After 500ms, ATP's hash-collision avoidance kicks in and the
dynamic approach converges to complete in-network aggregation."

Fig. 13c: "the number of aggregations performed at the switch every 10ms
when only 33% of PTA are available [...] when one job enters an off phase
(zero in-network aggregations), the number of in-network aggregations for
the remaining jobs increases."

The traces are the workers' own (ina-worker --trace, the lab's job key
trace_ms = 10): every 10 ms a job's first worker records its ACKs and how
many of them the PS marked aggregated in the switch, so the differences
between samples are the job's fragments completed in the switch and at the
PS in that interval. The off phase is ina-worker's --compute-ms between two
rounds of job 3.
"""
from atp_fig13 import ELEMENTS, JOBS, PTA_PER_JOB, QUEUE, RTO_ARGS, WORKERS
from common import (Point, Result, lab_exact, lab_topology, median, require_lab,
                    run_topology)

TRACE_MS = 10
# Rows of the table and points of the plot: the 10 ms counts averaged over
# bins of this many ms (a run has a few hundred samples per job).
BIN_MS = 100
# Fig. 13b's convergence time in the paper.
WARMUP_MS = 500
# Fig. 13c: the first samples, while every window opens, are left out.
WARM_MS = 100


def topology(prm, pct, off_job=None):
    """atp_fig13's three dynamic jobs at pct % of PTA, traced every 10 ms;
    off_job (an index) runs prm['off_rounds'] rounds with an off phase of
    prm['off_ms'] between them."""
    share = max(2, PTA_PER_JOB * pct // 100)
    hosts = {"ps0": {}}
    jobs = []
    for k in range(JOBS):
        names = [f"j{k}w{i}" for i in range(WORKERS)]
        hosts.update({h: {} for h in names})
        wargs = ["--set", "index=hash", "--set", f"window_capacity={PTA_PER_JOB}",
                 "--set", f"max_window={PTA_PER_JOB - 1}", "--set", f"ps_window={PTA_PER_JOB}"] + RTO_ARGS
        tensor, rounds = prm["tensor"], prm["rounds"]
        if k == off_job:
            tensor, rounds = prm["off_tensor"], prm["off_rounds"]
            wargs += ["--compute-ms", str(prm["off_ms"])]
        jobs.append({"id": k + 1, "name": f"job{k + 1}", "ps": "ps0", "workers": names,
                     "tensor": tensor, "iterations": rounds, "cc": "none", "window": PTA_PER_JOB - 1,
                     "trace_ms": TRACE_MS, "worker_args": wargs})
    return lab_topology(f"ATP Fig. 13b/c: {pct} % of PTA, dynamic, traced",
                        {"aggregators": JOBS * share, "elements": ELEMENTS},
                        {"name": "sw0", "queue_capacity": QUEUE}, hosts, jobs)


def per_interval(trace):
    """[(t_ms, in switch, at the PS)] per trace interval: the differences
    of a worker's cumulative ACKs, split by the PS's in-switch mark."""
    out = []
    for a, b in zip(trace, trace[1:]):
        sw = b["switch_acks"] - a["switch_acks"]
        out.append((b["t_ms"], sw, b["acks"] - a["acks"] - sw))
    return out


def binned(samples, which, span_ms):
    """Per BIN_MS bin from 0 to span_ms: the mean count per 10 ms."""
    rows = []
    for start in range(0, int(span_ms) + 1, BIN_MS):
        xs = [s[which] for s in samples if start <= s[0] < start + BIN_MS]
        rows.append((start, sum(xs) / len(xs) if xs else 0.0))
    return rows


def job_intervals(rep):
    """{job name: per_interval of its first worker's trace}."""
    out = {}
    for j in rep.get("jobs", []):
        traces = j.get("traces") or {}
        first = sorted(traces)[0] if traces else None
        out[j["name"]] = per_interval(traces[first]) if first else []
    return out


def run_traced(ctx, prm, pct, off_job, failures):
    rep = run_topology(ctx, topology(prm, pct, off_job), f"fig13bc-{pct}", ["--driver", "af_xdp"])
    bad = lab_exact(rep)
    if bad:
        failures.append(f"{pct} %: {bad}")
    return job_intervals(rep)


def fig13b_params(quick):
    return {"tensor": 1 << 19 if quick else 1 << 20, "rounds": 1, "off_tensor": 0, "off_rounds": 0,
            "off_ms": 0}


def fig13b(ctx):
    require_lab(ctx)
    prm = fig13b_params(ctx.quick)
    failures = []
    iv = run_traced(ctx, prm, 100, None, failures)
    span = max((s[0] for v in iv.values() for s in v), default=0)
    pts = [Point(t, name, v, None, "no number in the text (note)")
           for name in sorted(iv) for t, v in binned(iv[name], 2, span)]
    early = [s[2] for v in iv.values() for s in v if s[0] < WARMUP_MS]
    late = [s[2] for v in iv.values() for s in v if s[0] >= WARMUP_MS]
    off = []
    e, l_ = (sum(early) / len(early) if early else 0.0), (sum(late) / len(late) if late else 0.0)
    if not late:
        off.append(f"the run ended within {WARMUP_MS} ms: nothing to compare after warm-up")
    elif not l_ < e:
        off.append(f"at the PS per 10 ms and job: {e:.2f} in the first {WARMUP_MS} ms, {l_:.2f} after")
    total_sw = sum(s[1] for v in iv.values() for s in v)
    total_ps = sum(s[2] for v in iv.values() for s in v)
    notes = [
        "paper: 3 VGG16 jobs, 100 % of PTA (1980 aggregators), dynamic: PS aggregations while hash "
        "collisions last, none after about 500 ms (the text's own words; its plotted counts are not in "
        "the text we have)",
        f"scaled: atp_fig13's lab (3 jobs of {WORKERS} workers, {ELEMENTS}-element fragments, unshaped, "
        f"PTA = {JOBS} x {PTA_PER_JOB}), one run, {prm['tensor'] * 4 / (1 << 20):g} MB per worker; each "
        f"job's first worker traced every {TRACE_MS} ms (ina-worker --trace)",
        f"ours: fragments completed at the PS per {TRACE_MS} ms, the mean over {BIN_MS} ms bins; over the "
        f"whole run {total_ps} at the PS and {total_sw} in the switch (all jobs); first {WARMUP_MS} ms "
        f"{e:.2f} per {TRACE_MS} ms and job, after {l_:.2f}",
    ]
    return Result("atp_fig13b", "ATP Fig. 13b: aggregations at the PS per 10 ms, 100 % of PTA, dynamic",
                  "time since the jobs started, ms", f"aggregations at the PS per {TRACE_MS} ms", pts,
                  f"fewer aggregations at the PS after the first {WARMUP_MS} ms than in them", not off, off,
                  [], notes, exact=not failures, failures=failures, dense_x=True)


def fig13c_params(quick):
    # Jobs 1 and 2 one long round; job 3 two short ones with an off phase
    # between them that falls inside the others' round.
    if quick:
        return {"tensor": 1 << 19, "rounds": 1, "off_tensor": 1 << 16, "off_rounds": 3, "off_ms": 250}
    return {"tensor": 1 << 20, "rounds": 1, "off_tensor": 1 << 16, "off_rounds": 5, "off_ms": 300}


def off_phases(samples):
    """[(from_ms, to_ms)]: the stretches in which a job completed nothing,
    after its first completion and before its last (a sample at t counts
    the interval that ends at t)."""
    phases, start, prev, seen = [], None, 0.0, False
    for t, sw, ps in samples:
        if sw + ps > 0:
            if start is not None and seen:
                phases.append((start, prev))
            start, seen = None, True
        elif start is None:
            start = prev
        prev = t
    return phases


def in_phases(t, phases):
    """Whether the interval ending at t lies within one of the phases."""
    return any(a <= t - TRACE_MS and t <= b for a, b in phases)


def fig13c(ctx):
    require_lab(ctx)
    prm = fig13c_params(ctx.quick)
    failures = []
    iv = run_traced(ctx, prm, 33, JOBS - 1, failures)
    names = sorted(iv)
    span = max((s[0] for v in iv.values() for s in v), default=0)
    pts = [Point(t, name, v, None, "no number in the text (note)")
           for name in names for t, v in binned(iv[name], 1, span)]
    phases = off_phases(iv[names[-1]]) if names else []
    # The other jobs' in-switch aggregations per 10 ms while the off job is
    # off, and while it is on (both only while the others still run).
    others = [s for n in names[:-1] for s in iv[n]]
    others_end = min((max((s[0] for s in iv[n] if s[1] + s[2] > 0), default=0) for n in names[:-1]),
                     default=0)
    # After the warm-up, as the paper's trace: in the first 100 ms every
    # job's window opens at once.
    others = [s for s in others if WARM_MS <= s[0] <= others_end]
    during = [s[1] for s in others if in_phases(s[0], phases)]
    outside = [s[1] for s in others if not in_phases(s[0], phases)]
    d, o = median(during), median(outside)
    off = []
    if not during:
        off.append(f"{names[-1] if names else 'job 3'}'s off phase did not fall while the others ran")
    elif not d > o:
        off.append(f"the other jobs' in-switch aggregations per {TRACE_MS} ms: {d:.1f} while "
                   f"{names[-1]} was off, {o:.1f} while it ran")
    notes = [
        "paper: 3 jobs at 33 % of PTA, dynamic: \"when one job enters an off phase (zero in-network "
        "aggregations), the number of in-network aggregations for the remaining jobs increases\" "
        "(samples 120-180 of its trace); its plotted counts are not in the text we have",
        f"scaled: atp_fig13's lab at 33 % of PTA ({JOBS} x {max(2, PTA_PER_JOB * 33 // 100)} aggregators); "
        f"jobs 1-2 one round of {prm['tensor'] * 4 / (1 << 20):g} MB per worker, job 3 {prm['off_rounds']} "
        f"rounds of {prm['off_tensor'] * 4 / (1 << 20):g} MB with {prm['off_ms']} ms off between them "
        "(ina-worker --compute-ms)",
        f"ours: fragments completed in the switch per {TRACE_MS} ms, the mean over {BIN_MS} ms bins; "
        f"the other jobs' median per {TRACE_MS} ms and job after the first {WARM_MS} ms: {d:.1f} while "
        f"{names[-1] if names else '-'} was off ({len(during)} samples), {o:.1f} while it ran ({len(outside)})",
    ]
    return Result("atp_fig13c", "ATP Fig. 13c: aggregations in the switch per 10 ms, 33 % of PTA, an off phase",
                  "time since the jobs started, ms", f"aggregations in the switch per {TRACE_MS} ms", pts,
                  "more in-switch aggregations for the other jobs while one job is off", not off, off,
                  [], notes, exact=not failures, failures=failures, dense_x=True)


FIGURES = {
    "atp_fig13b": (fig13b, "ATP Fig. 13b: aggregations at the PS per 10 ms, 100 % of PTA (lab, traced)"),
    "atp_fig13c": (fig13c, "ATP Fig. 13c: in-switch aggregations per 10 ms with an off phase (lab, traced)"),
}
