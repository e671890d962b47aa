# SPDX-License-Identifier: BSD-3-Clause
"""A²TP (seed 000) Fig. 11 in the lab (§6.6, "Effectiveness of straggling
estimation"): one job of four workers and a PS; background traffic on the
link of its last worker grows in steps (1, 20, 40, 60 Gb/s of 100, 3 s
each) and falls back; the job's aggregation throughput and A²TP's
estimated straggling degree follow it. The paper: "when the aggregation
throughput drops to 22Gbps due to straggler, the estimated straggling
degree is 0.4, and if there is no straggler, the estimated straggling
degree is approximately 0.99".

Here: ports at RATE_GBPS, the background a UDP flow (the lab's
[[background]], iperf3) from a spare host into the last worker's port at the
same fractions of the port's rate, one step after another; the job's
workers traced every TRACE_MS (ina-worker --trace): the first worker's
ACKs per interval are the job's throughput, its `straggling` A²TP's
estimate gamma (eq. (3)).
"""
from common import Point, Ratio, Result, lab_exact, lab_topology, require_lab, run_topology

RATE_GBPS = 0.2
ECN = 20
WORKERS = 4
TRACE_MS = 50
# The paper's background, as fractions of the link, step after step.
STEPS = (0.01, 0.2, 0.4, 0.6, 0.4, 0.2, 0.01)
PAPER_NONE, PAPER_HEAVY = 0.99, 0.4


def params(quick):
    if quick:
        return {"step_s": 0.6, "tensor": 1 << 18, "iterations": 100}
    return {"step_s": 1.5, "tensor": 1 << 19, "iterations": 100}


def topology(prm):
    """One job of WORKERS workers and its PS on one switch, a spare host
    sending STEPS into the last worker's port."""
    hosts = {"ps0": {}, "bg0": {}}
    names = [f"w{i}" for i in range(WORKERS)]
    hosts.update({h: {} for h in names})
    job = {"id": 1, "name": "job1", "ps": "ps0", "workers": names, "tensor": prm["tensor"],
           "iterations": prm["iterations"], "cc": "a2tp", "trace_ms": TRACE_MS}
    text = lab_topology("A2TP Fig. 11: stepped background into the last worker's port", {"aggregators": 4096},
                        {"name": "sw0", "rate_gbps": RATE_GBPS, "ecn_threshold": ECN}, hosts, [job])
    for i, share in enumerate(STEPS):
        text += "\n".join(["", "[[background]]", f'name = "step{i}"', 'from = "bg0"', f'to = "{names[-1]}"',
                           'protocol = "udp"', f"rate_mbps = {share * RATE_GBPS * 1000:.1f}",
                           f"start_s = {i * prm['step_s']:.2f}", f"stop_s = {(i + 1) * prm['step_s']:.2f}", ""])
    return text


def samples(trace, elements):
    """[(t_s, Gb/s per worker, straggling)] per trace interval."""
    out = []
    for a, b in zip(trace, trace[1:]):
        dt = (b["t_ms"] - a["t_ms"]) / 1e3
        if dt > 0:
            out.append((b["t_ms"] / 1e3, (b["acks"] - a["acks"]) * elements * 32 / dt / 1e9, b["straggling"]))
    return out


def per_step(smp, step_s):
    """Per background step: (mean Gb/s, mean straggling) of the samples in
    its second half (the first half lets the estimate settle)."""
    out = []
    for i in range(len(STEPS)):
        xs = [s for s in smp if (i + 0.5) * step_s <= s[0] < (i + 1) * step_s]
        out.append((sum(s[1] for s in xs) / len(xs), sum(s[2] for s in xs) / len(xs)) if xs else (None, None))
    return out


def fig11(ctx):
    require_lab(ctx)
    prm = params(ctx.quick)
    rep = run_topology(ctx, topology(prm), "a2tp-fig11", ["--driver", "af_xdp"], timeout=300)
    bad = lab_exact(rep)
    failures = [bad] if bad else []
    flows = rep.get("background", [])
    if not flows or not all(f.get("ok") for f in flows):
        failures.append("background steps did not all run: " +
                        "; ".join(f"{f.get('name')}: {f.get('error')}" for f in flows if not f.get("ok")))
    job = (rep.get("jobs") or [{}])[0]
    trace = (job.get("traces") or {}).get("w0", [])
    steps = per_step(samples(trace, job.get("elements") or 0), prm["step_s"])
    pts = []
    for i, (share, (gbps, gamma)) in enumerate(zip(STEPS, steps)):
        x = round((i + 1) * prm["step_s"], 2)
        if gamma is None:
            continue
        paper = PAPER_NONE if share == STEPS[0] else PAPER_HEAVY if share == max(STEPS) else None
        how = ("text, §6.6 (no straggler)" if share == STEPS[0] else
               "text, §6.6 (throughput at its lowest)" if share == max(STEPS) else "-")
        pts.append(Point(x, "estimated straggling", gamma, paper, how,
                         {"background, share of the link": share, "Gb/s per worker": gbps}))
    light = [p.ours for p in pts if p.detail["background, share of the link"] == STEPS[0]]
    heavy = [p.ours for p in pts if p.detail["background, share of the link"] == max(STEPS)]
    off, ratios = [], []
    if not light or not heavy:
        off.append("the job did not last through the background's steps")
    else:
        g_light, g_heavy = sum(light) / len(light), sum(heavy) / len(heavy)
        if not g_heavy < g_light:
            off.append(f"estimated straggling {g_heavy:.2f} at the heaviest background, {g_light:.2f} at the lightest")
        ratios.append(Ratio("straggling at the heaviest / the lightest background", g_heavy / g_light,
                            PAPER_HEAVY / PAPER_NONE))
    notes = [
        "paper: W5-W8 and PS2 at 100 Gb/s; background on W8's link at 1, 20, 40, 60 Gb/s, 3 s each, "
        "then back down, stopping at 20 s; throughput 22 Gb/s and estimate 0.4 at the heaviest, 0.99 "
        "without a straggler (text)",
        f"scaled: {WORKERS} workers, ports at {RATE_GBPS} Gb/s (ECN from {ECN} packets), a UDP flow from a "
        f"spare host into the last worker's port at {', '.join(f'{s:g}' for s in STEPS)} of its rate, "
        f"{prm['step_s']} s each; {prm['tensor'] * 4 / (1 << 20):g} MB x {prm['iterations']} rounds per "
        "worker, cc a2tp",
        f"ours: the first worker's straggling estimate (ina-worker --trace every {TRACE_MS} ms), the mean "
        "over the second half of each step (the first lets it settle); x: the step's end, s",
    ]
    return Result("a2tp_fig11", "A²TP Fig. 11: the estimated straggling degree as background traffic steps",
                  "time, s (each step's end)", "estimated straggling degree (1: none)", pts,
                  "a lower estimate under the heaviest background than under the lightest", not off, off,
                  ratios, notes, exact=not failures, failures=failures)


FIGURES = {
    "a2tp_fig11": (fig11, "A²TP Fig. 11: the straggling estimate as background traffic steps up and down (lab)"),
}
