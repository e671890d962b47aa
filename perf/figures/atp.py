# SPDX-License-Identifier: BSD-3-Clause
"""ATP (seed 001) figures in the lab.

Fig. 16 (§5.5, "With non-ATP traffic"): one job's aggregation goodput
with and without background TCP flows into one of its workers' links;
ATP's congestion control should take near its fair share of that link,
and both kinds of traffic together near the link's rate.

Fig. 14 (§5.4.2, "Effectiveness of ATP's Hashing Scheme"): aggregation
throughput of 1..8 jobs on one switch with 100 % of the peak-throughput
aggregators (PTA), for ATP's hash-based dynamic allocation, linear dynamic
allocation (index = seq mod N) and the static baseline (SwitchML's equal
partition). Here: J jobs of W workers each on one ina-switchd, one PS host
for all of them (ATP's "identical placement for workers and PS": the jobs
share the switch-to-PS link, which keeps them in step), a fixed window of
`range - 1` fragments per worker, and a switch of J x range aggregators
(100 % of PTA: the static partition gives each job what its window needs),
every port shaped so that the link to the PS is the bottleneck, as in ATP's
set-up. The three schemes are the worker's `index` key
(docs/worker.md, "Aggregator index"): hash, linear, static:FIRST-END.
"""
import os
import tempfile

import atp_fig10
import atp_fig13
import atp_fig13bc
import atp_fig20
from common import Point, Ratio, Result, all_jobs_gbps, in_switch, lab_exact, require_lab, run_lab

SCHEMES = ("hash", "linear", "static")
# Each job's aggregators under the static partition, the fixed window of
# every worker (below it), and the rate of every switch port (Gb/s): low
# enough that the shared link to the PS, not the two CPUs, bounds a run.
RANGE = 256
WINDOW = RANGE - 1
RATE_GBPS = 0.2
# Packets per egress queue: every window of 8 jobs fits (2 x 8 x 255), so a
# burst toward the PS waits in the queue instead of being dropped. (8192
# made the mbuf pool of 17 ports too large for AF_XDP, and the lab fell back
# to net_af_packet: the figure compares runs on one driver.)
QUEUE = 4096
TEXT14 = ("§5.4.2: \"ATP's hash-based scheme matches the baseline static scheme and greatly "
          "outperforms the linear-based scheme\"")


def fig14_topology(prm, jobs, scheme):
    """A topology file's text: one switch of jobs x range aggregators whose
    ports send at rate_gbps, `jobs` jobs of `workers` workers and one PS
    each, all with a fixed window below the range and the scheme's index
    policy."""
    workers, rng = prm["workers"], prm["range"]
    lines = [f'description = "ATP Fig. 14: {jobs} jobs x {workers} workers, {scheme} index"',
             f"aggregators = {jobs * rng}", "", "[[switch]]", 'name = "sw0"',
             f"rate_gbps = {prm['rate_gbps']}", f"queue_capacity = {QUEUE}"]
    hosts = ["ps0"] + [f"j{k}w{i}" for k in range(jobs) for i in range(workers)]
    lines += [f'\n[[host]]\nname = "{h}"\nswitch = "sw0"' for h in hosts]
    for k in range(jobs):
        index = {"hash": "hash", "linear": "linear",
                 "static": f"static:{k * rng}-{(k + 1) * rng}"}[scheme]
        # A window of range - 1 fragments in a span of at most `range`
        # (window_capacity): a job never has two fragments of one static
        # aggregator in flight, not even around a late ACK. ps_window =
        # range makes ATP's remap epochs short (a hint applies two epochs
        # after its collision, docs/worker.md): 256 fragments, not 4096.
        wargs = ["--set", f"index={index}", "--set", f"window_capacity={rng}",
                 "--set", f"max_window={prm['window']}", "--set", f"ps_window={rng}",
                 "--set", "min_rto_us=100000", "--set", "initial_rto_us=300000",
                 "--set", "max_rto_us=1000000"]
        lines += ["", "[[job]]", f"id = {k + 1}", f'name = "job{k + 1}"', 'ps = "ps0"',
                  "workers = [" + ", ".join(f'"j{k}w{i}"' for i in range(workers)) + "]",
                  f"tensor = {prm['tensor']}", f"iterations = {prm['iterations']}", 'cc = "none"',
                  f"window = {prm['window']}",
                  "worker_args = [" + ", ".join(f'"{a}"' for a in wargs) + "]"]
    return "\n".join(lines) + "\n"


def fig14_params(quick):
    if quick:
        return {"jobs": [1, 2, 4], "workers": 2, "range": RANGE, "window": WINDOW,
                "tensor": 1 << 21, "iterations": 1, "rate_gbps": RATE_GBPS}
    return {"jobs": [1, 2, 4, 6, 8], "workers": 2, "range": RANGE, "window": WINDOW,
            "tensor": 1 << 21, "iterations": 2, "rate_gbps": RATE_GBPS}


def fig14_run(ctx, prm, jobs, scheme):
    """One lab run: its point and whether it was exact (None) or why not."""
    text = fig14_topology(prm, jobs, scheme)
    with tempfile.NamedTemporaryFile("w", suffix=".toml", prefix=f"fig14-{scheme}-{jobs}-",
                                     delete=False) as f:
        f.write(text)
    try:
        # Every run on AF_XDP ports: fail rather than fall back to
        # net_af_packet, whose speed differs (docs/lab.md, "Fragment size").
        rep = run_lab(ctx, f.name, ["--driver", "af_xdp"])
    finally:
        os.unlink(f.name)
    bad = lab_exact(rep)
    js = rep.get("jobs", [])
    total, slowest = all_jobs_gbps(rep, prm["tensor"] * 4 * prm["iterations"])
    detail = {
        "in switch %": in_switch(rep),
        "collisions": sum(j.get("collisions_switch") or 0 for j in js),
        "retransmits": sum(j.get("retransmits") or 0 for j in js),
        "slowest s": slowest,
    }
    print(f"fig14: {jobs} jobs {scheme}: {total:.3f} Gb/s, {detail}", file=ctx.log, flush=True)
    return Point(jobs, scheme, total, None, "", detail), bad


def fig14_direction(pts):
    """The paper's direction: hash above linear from 2 jobs on (the text's
    "greatly outperforms"), hash at least 0.8 of static ("matches"). Returns
    the points that break it and the hash / static ratios."""
    v = {(p.x, p.series): p.ours for p in pts}
    off, ratios = [], []
    for x in sorted({p.x for p in pts}):
        h, li, s = v.get((x, "hash")), v.get((x, "linear")), v.get((x, "static"))
        if x >= 2 and h is not None and li is not None and not h > li:
            off.append(f"{x} jobs: hash {h:.3f} Gb/s not above linear {li:.3f}")
        if h is not None and s and not h >= 0.8 * s:
            off.append(f"{x} jobs: hash {h:.3f} Gb/s below 0.8 x static {s:.3f}")
        if h is not None and s:
            share = next(p.detail.get("in switch %") for p in pts if p.x == x and p.series == "hash")
            share = "?" if share is None else f"{share:.0f}"
            ratios.append(Ratio(f"hash / static at {x} jobs", h / s, 1.0,
                                f"hash aggregates {share} % in the switch at {x} jobs: with exactly as "
                                "many aggregators as the jobs' window slots, a rehash hint moves a "
                                "colliding slot to a random aggregator, free only as often as the slots "
                                "leave one free; static's partition is perfect by construction"))
    return off, ratios


def fig14(ctx):
    require_lab(ctx)
    prm = fig14_params(ctx.quick)
    pts, failures = [], []
    for jobs in prm["jobs"]:
        for scheme in SCHEMES:
            p, bad = fig14_run(ctx, prm, jobs, scheme)
            pts.append(p)
            if bad:
                failures.append(f"{jobs} jobs {scheme}: {bad}")
    for p in pts:
        p.how = "no number in the text (§5.4.2 states the order: note)"
    off, ratios = fig14_direction(pts)
    size = prm["tensor"] * 4 >> 20
    notes = [
        "paper: 8 microbenchmark jobs on a Tofino at 100 % of PTA; its plotted throughputs are not in "
        "the text we have, only the ordering (" + TEXT14 + "); the paper's column compares ratios: "
        "hash / static = 1 ('matches')",
        f"scaled: {', '.join(map(str, prm['jobs']))} jobs of {prm['workers']} workers (one PS host for all) on "
        f"one ina-switchd whose ports send at {prm['rate_gbps']} Gb/s (the switch-to-PS link is the "
        f"bottleneck, as in ATP's set-up), {size} MB per worker x {prm['iterations']} iteration(s), a "
        f"fixed window of {prm['window']} fragments (cc none), aggregators = jobs x {prm['range']} "
        "(100 % of PTA)",
        "ours: every job's bytes per worker over the time until the last job finished (jobs start "
        "together); 'in switch %': the fragments of all jobs the switch aggregated completely",
        "static = the worker's index static:FIRST-END, each job its own equal range; its window fits "
        "its range, so it never falls back to the PS (docs/worker.md, 'Aggregator index')",
    ]
    return Result("atp_fig14", "ATP Fig. 14: hash vs linear vs static aggregator allocation",
                  "jobs", "aggregation throughput, Gb/s (all jobs)", pts,
                  "hash above linear from 2 jobs on; hash matches static", not off, off, ratios,
                  notes, exact=not failures, failures=failures)


# Fig. 16: the switch ports' rate (Gb/s) and ECN threshold (packets) that
# both ATP and the background TCP flows react to.
ECN16 = 20
TEXT16 = ("§5.5: \"ATP is able to achieve near the fair share of the bottleneck link (the uplink "
          "from this worker) and that the sum of goodput from both traffic types is close to link rate\"")


def fig16_topology(prm, flows):
    """One job of `workers` workers (cc atp) and `flows` TCP flows, each from
    its own host into worker w0's port, started before the workers."""
    workers = [f"w{i}" for i in range(prm["workers"])]
    hosts = ["ps0"] + workers + [f"bg{i}" for i in range(flows)]
    lines = [f'description = "ATP Fig. 16: one job beside {flows} background flows"',
             "[[switch]]", 'name = "sw0"', f"rate_gbps = {prm['rate_gbps']}",
             f"ecn_threshold = {ECN16}"]
    lines += [f'\n[[host]]\nname = "{h}"\nswitch = "sw0"' for h in hosts]
    lines += ["", "[[job]]", "id = 1", 'ps = "ps0"',
              "workers = [" + ", ".join(f'"{w}"' for w in workers) + "]",
              f"tensor = {prm['tensor']}", f"iterations = {prm['iterations']}", 'cc = "atp"']
    for i in range(flows):
        # Cubic with ECN: a TCP that reacts to the switch's CE marks as ATP
        # does to its ECN flag (the machine's default, BBR, ignores them).
        lines += ["", "[[background]]", f'name = "bg{i}"', f'from = "bg{i}"', 'to = "w0"',
                  'congestion = "cubic"', "ecn = true", f"start_s = {-prm['lead_s']}"]
    return "\n".join(lines) + "\n"


def fig16_params(quick):
    if quick:
        return {"flows": [0, 2], "workers": 2, "tensor": 1 << 22, "iterations": 1,
                "rate_gbps": RATE_GBPS, "lead_s": 1.0}
    return {"flows": [0, 1, 2], "workers": 3, "tensor": 1 << 23, "iterations": 1,
            "rate_gbps": RATE_GBPS, "lead_s": 2.0}


def fig16_run(ctx, prm, flows):
    """One lab run: its points (atp, and with flows non-atp and their sum)
    and whether it was exact (None) or why not."""
    with tempfile.NamedTemporaryFile("w", suffix=".toml", prefix=f"fig16-{flows}-",
                                     delete=False) as f:
        f.write(fig16_topology(prm, flows))
    try:
        rep = run_lab(ctx, f.name, ["--driver", "af_xdp"])
    finally:
        os.unlink(f.name)
    bad = lab_exact(rep)
    bg = rep.get("background", [])
    if not bad and (len(bg) != flows or not all(b["ok"] for b in bg)):
        bad = "background flows did not all run: " + "; ".join(
            f"{b['name']}: {b['error']}" for b in bg)
    j = (rep.get("jobs") or [{}])[0]
    atp = j.get("goodput_gbps") or 0.0
    other = sum(b.get("gbps_during_jobs") or 0.0 for b in bg)
    detail = {"job s": j.get("seconds"), "ECN marks": j.get("ecn_marks"),
              "retransmits": j.get("retransmits"),
              "TCP retransmits": sum(b.get("retransmits") or 0 for b in bg) if bg else None}
    print(f"fig16: {flows} flows: atp {atp:.3f} Gb/s, non-atp {other:.3f} Gb/s, {detail}",
          file=ctx.log, flush=True)
    pts = [Point(flows, "atp", atp, None, "", detail)]
    if flows:
        pts += [Point(flows, "non-atp", other, None, "", {}),
                Point(flows, "sum", atp + other, None, "", {})]
    return pts, bad


def fig16_direction(pts, rate):
    """The text's claims, as max-min fairness: with more background flows
    than its demand leaves room for (link / (flows + 1) below its goodput
    alone: Fig. 16b), the job gets less than alone; it always keeps a real
    share (at least half its max-min share, min(alone, link / (flows +
    1)): not starved by TCP) and the background carries something. Returns
    what breaks them and the ratios against the text's "near the fair share"
    and "close to link rate"."""
    v = {(p.x, p.series): p.ours for p in pts}
    alone = v.get((0, "atp"))
    off, ratios = [], []
    for n in sorted({p.x for p in pts if p.x}):
        atp, other = v[(n, "atp")], v[(n, "non-atp")]
        fair = min(alone, rate / (n + 1)) if alone else rate / (n + 1)
        if alone is not None and rate / (n + 1) < alone and not atp < alone:
            off.append(f"{n} flows: atp {atp:.3f} Gb/s not below {alone:.3f} alone")
        if atp < 0.5 * fair:
            off.append(f"{n} flows: atp {atp:.3f} Gb/s below half its max-min share {fair:.3f}")
        if other <= 0:
            off.append(f"{n} flows: the background carried nothing while the job ran")
        why = (f"alone, the job reaches {alone / rate:.0%} of the link's {rate} Gb/s here (two "
               "shared CPUs run the switch, workers, PS and iperf3)") if alone else ""
        ratios.append(Ratio(f"atp / max-min share at {n} flows", atp / fair, 1.0, why))
        ratios.append(Ratio(f"(atp + non-atp) / link at {n} flows", (atp + other) / rate, 1.0, why))
    return off, ratios


def fig16(ctx):
    require_lab(ctx)
    prm = fig16_params(ctx.quick)
    pts, failures = [], []
    for flows in prm["flows"]:
        p, bad = fig16_run(ctx, prm, flows)
        pts += p
        if bad:
            failures.append(f"{flows} flows: {bad}")
    for p in pts:
        p.how = "no number in the text (§5.5 states the sharing: note)"
    off, ratios = fig16_direction(pts, prm["rate_gbps"])
    notes = [
        "paper: a job of 6 workers and 1 PS at 100 Gb/s, background flows on the link to one "
        "worker from t = 0, the job from t = 25 s, goodput over time (Fig. 16b, microbenchmark); "
        "the text gives no number, only " + TEXT16,
        f"scaled: one job of {prm['workers']} workers (cc atp), {prm['tensor'] * 4 >> 20} MB per worker x "
        f"{prm['iterations']} iteration(s), every switch port at {prm['rate_gbps']} Gb/s with ECN "
        f"marking from {ECN16} packets; 0..{max(prm['flows'])} iperf3 TCP flows (cubic, ECN) from "
        f"their own hosts into worker w0's port, started {prm['lead_s']} s before the workers "
        "(lab [[background]], docs/lab.md)",
        "ours: atp = the job's goodput per worker (bytes per worker over the slowest worker's "
        "time); non-atp = the flows' goodput at their receiver while the job ran; the job's max-min "
        "share = min(its goodput alone, link / (flows + 1))",
    ]
    return Result("atp_fig16", "ATP Fig. 16: aggregation goodput with non-ATP traffic",
                  "background TCP flows", "goodput, Gb/s", pts,
                  "less than alone where the fair share is below it; at least half the max-min "
                  "share; both carry",
                  not off, off, ratios, notes, exact=not failures, failures=failures)


FIGURES = {
    "atp_fig14": (fig14, "ATP Fig. 14: hash vs linear vs static allocation, 1..8 jobs (lab)"),
    "atp_fig16": (fig16, "ATP Fig. 16: aggregation goodput beside background TCP flows (lab)"),
    **atp_fig10.FIGURES,
    **atp_fig13.FIGURES,
    **atp_fig13bc.FIGURES,
    **atp_fig20.FIGURES,
}
