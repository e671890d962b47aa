#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A long run of two jobs with loss, reordering and duplicates: exact every
round, memory flat, nothing held at the end.

    sudo perf/soak/soak.py [--build DIR] [--minutes 20] [--sample-s 60] [--warmup-s 120]

Brings up the multi-tenant lab (config/labs/multi-tenant.toml: two jobs of
three workers and a PS each, on one ina-switchd with fewer aggregators than
their windows want) and runs both jobs at once, each for about --minutes of
back-to-back rounds (allreduce of the topology's tensor), every round
checked against the exact sum by each worker. The workers' transports drop
--loss, reorder --reorder and duplicate --duplicate of the frames they send
and receive (ina-worker's fault shim, --host-drop, --reorder, --duplicate;
each worker its own seed). The rounds run in as few iterations (one PS and
worker process each per job) as the time allows: each iteration is sized
to fill the time left at the pace of the one before (the first at that of
a ten-round calibration run, whose first rounds are slower), so the
processes live for minutes and their memory over time means something;
switchd lives for the whole run.

Every --sample-s seconds the resident set (VmRSS of /proc/PID/status) of
switchd, the PSs and the workers is sampled, and the switch's aggregators
in use. Fails (exit 1) when a round of a job is not exact or a job does not
finish, when any process's RSS grows more than --rss-growth (5 %) over its
sample at --warmup-s, or when the switch still holds aggregators once the
jobs are done (after its GC timeout has passed). Prints a table (--json: one
object).
"""
import argparse
import json
import math
import os
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)
from lablib import cli, jobs, topology  # noqa: E402
from lablib import lab as labmod  # noqa: E402

TOPOLOGY = "multi-tenant"


def rss_kib(pid):
    """VmRSS of a live process in KiB, None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


class Sampler(threading.Thread):
    """Samples the RSS of the lab's switchd, PS and worker processes and the
    switch's aggregators in use every `period` seconds while the soak runs."""

    def __init__(self, lab, switch, period):
        super().__init__(daemon=True)
        self.lab, self.switch, self.period = lab, switch, period
        self.rows = []
        self.stop_event = threading.Event()
        self.t0 = None

    def sample(self):
        now = time.monotonic() - self.t0
        procs, pids = {}, {}
        for name, p in list(self.lab.procs.items()):
            if name.startswith(("switchd-", "ps-", "worker-")) and p.alive():
                v = rss_kib(p.pid)
                if v is not None:
                    # A restarted PS (ps-HOST.restartN) is its host's PS.
                    key = name.split(".")[0]
                    procs[key], pids[key] = v, p.pid
        snap = self.lab.counters(self.switch)
        held = (snap.get("summary") or {}).get("aggregators_in_use")
        self.rows.append({"t_s": round(now, 1), "rss_kib": procs, "pids": pids, "aggregators_in_use": held})

    def run(self):
        self.t0 = time.monotonic()
        # The first sample once the workers have started (the run's set-up
        # takes a few seconds), then one per period.
        next_t = min(10.0, self.period)
        while not self.stop_event.wait(max(0.0, self.t0 + next_t - time.monotonic())):
            self.sample()
            next_t += self.period


def rss_growth(rows, warmup_s):
    """Per process (name and PID): RSS at its first sample at or after
    warmup_s, the most after it, and the growth ratio. A process's first
    sample never counts (a process of a later iteration may be sampled
    while it is still filling its buffers); one sampled fewer than twice
    from then on is left out."""
    out = {}
    keys = sorted({(n, r["pids"][n]) for r in rows for n in r["rss_kib"]})
    for n, pid in keys:
        mine = [r for r in rows if r["pids"].get(n) == pid]
        later = [r["rss_kib"][n] for r in mine[1:] if r["t_s"] >= warmup_s]
        if len(later) < 2:
            continue
        base, top = later[0], max(later[1:])
        out[f"{n}:{pid}"] = {"name": n, "pid": pid, "samples": len(later), "base_kib": base, "max_kib": top,
                             "growth": top / base - 1 if base else 0.0}
    return out


def settle_held(lab, switch, wait_s):
    """The switch's aggregators in use once nothing of the jobs can still
    arrive: polled until 0 or wait_s passed."""
    deadline = time.monotonic() + wait_s
    while True:
        held = (lab.counters(switch).get("summary") or {}).get("aggregators_in_use")
        if held == 0 or time.monotonic() > deadline:
            return held
        time.sleep(0.2)


def run_jobs(lab, plan_overrides, build_dirs, worker_args, timeout, seeds=True):
    plan = labmod.load_plan(TOPOLOGY, os.path.join(ROOT, "config", "labs"), plan_overrides)
    if seeds:
        # Each worker's fault shim its own random sequence.
        k = 1
        for job in plan["jobs"]:
            for w in job["workers"]:
                w["worker_args"] = list(w.get("worker_args", [])) + ["--seed", str(k)]
                k += 1
    args = argparse.Namespace(timeout=timeout, fault=[], worker_arg=worker_args, host_transport=None)
    return plan, jobs.run_jobs(lab, plan, build_dirs, args)


def job_problems(report, where):
    out = []
    for j in report["jobs"]:
        if not j["finished"]:
            out.append(f"{where}: job {j['id']} did not finish: {j.get('errors')}")
        elif not j["within_bound"]:
            out.append(f"{where}: job {j['id']}: a round was not exact (largest error "
                       f"{j['max_abs_error']}, bound {j['error_bound']})")
    return out


def check_args(a):
    """The tensor size in bytes, or None after a one-line error."""
    try:
        size = cli.parse_size(a.size)
        if size < 4 or size % 4 or size > (1 << 30):
            raise ValueError(f"--size {a.size}: want a multiple of 4 bytes up to 1G")
        if not 0.5 <= a.minutes <= 1440:
            raise ValueError("--minutes must be 0.5..1440")
        if not 1 <= a.sample_s <= 3600:
            raise ValueError("--sample-s must be 1..3600")
        if not 0 <= a.warmup_s < a.minutes * 60:
            raise ValueError("--warmup-s must be 0 or more and below the run's length")
        for name in ("loss", "reorder", "duplicate"):
            if not 0 <= getattr(a, name) <= 0.5:
                raise ValueError(f"--{name} must be 0..0.5")
        if not 0 < a.rss_growth < 10:
            raise ValueError("--rss-growth must be above 0 and below 10")
        labmod.check_prefix(a.prefix)
    except (ValueError, labmod.LabError) as e:
        print(f"soak: error: {e}", file=sys.stderr)
        return None
    if os.geteuid() != 0:
        print("soak: error: needs root (network namespaces)", file=sys.stderr)
        return None
    return size


def main():
    ap = cli.parser("soak.py", __doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="meson build directory")
    ap.add_argument("--minutes", type=float, default=20.0, help="how long the jobs run (0.5..1440)")
    ap.add_argument("--sample-s", type=float, default=60.0, help="seconds between RSS samples (1..3600)")
    ap.add_argument("--warmup-s", type=float, default=120.0,
                    help="RSS growth is measured from the first sample at or after this many seconds")
    ap.add_argument("--rss-growth", type=float, default=0.05,
                    help="largest allowed RSS growth of a process after --warmup-s (fraction)")
    ap.add_argument("--loss", type=float, default=0.001, help="workers' frames dropped (fraction, 0..0.5)")
    ap.add_argument("--reorder", type=float, default=0.01, help="workers' frames reordered (fraction, 0..0.5)")
    ap.add_argument("--duplicate", type=float, default=0.001,
                    help="workers' frames duplicated (fraction, 0..0.5)")
    ap.add_argument("--size", default="2M", help="tensor per worker and round (bytes; K, M, G)")
    ap.add_argument("--prefix", default="inalabsoak", help="the lab's namespace prefix")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    a = ap.parse_args()
    size = check_args(a)
    if size is None:
        return 2
    build_dirs = [os.path.abspath(a.build)]
    worker_args = ["--host-drop", repr(a.loss), "--reorder", repr(a.reorder), "--duplicate", repr(a.duplicate)]
    floats = size // 4
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    plan = labmod.load_plan(TOPOLOGY, os.path.join(ROOT, "config", "labs"), {"tensor": floats})
    switch = plan["switches"][0]["name"]
    gc_s = plan["gc_timeout_ms"] / 1000.0
    lab = labmod.Lab(a.prefix, log=log)
    problems, result = [], {}
    try:
        lab.up(plan, build_dirs=build_dirs)
        # Calibration: three rounds of both jobs, the same faults, to size
        # the soak's round count per job.
        calib_rounds = 10
        _, cal = run_jobs(lab, {"tensor": floats, "iterations": calib_rounds}, build_dirs, worker_args,
                          timeout=300)
        problems += job_problems(cal, "calibration")
        if problems:
            raise jobs.JobError("; ".join(problems))
        # The slower job sets the pace, so neither outlasts the time by much.
        pace = cal["wall_s"] / calib_rounds
        log(f"soak: calibration {pace:.3f} s per round")
        sampler = Sampler(lab, switch, a.sample_s)
        sampler.start()
        iterations = []
        totals = {}
        t_end = time.monotonic() + a.minutes * 60
        try:
            while not problems and time.monotonic() < t_end - 1:
                rounds = max(calib_rounds, int(math.ceil((t_end - time.monotonic()) / pace)))
                _, rep = run_jobs(lab, {"tensor": floats, "iterations": rounds}, build_dirs, worker_args,
                                  timeout=max(600.0, a.minutes * 60 * 3))
                n = len(iterations) + 1
                problems += job_problems(rep, f"iteration {n}")
                pace = rep["wall_s"] / rounds
                iterations.append({"rounds": rounds, "wall_s": rep["wall_s"],
                                   "exact": all(j["finished"] and j["within_bound"] for j in rep["jobs"])})
                log(f"soak: iteration {n}: {rounds} rounds in {rep['wall_s']:.1f} s, "
                    f"{'exact' if iterations[-1]['exact'] else 'NOT EXACT'}")
                for j in rep["jobs"]:
                    t = totals.setdefault(j["id"], {"id": j["id"], "rounds": 0, "exact_iterations": 0,
                                                    "seconds": 0.0, "fragments": 0, "retransmits": 0,
                                                    "timeouts": 0, "collisions_switch": 0, "max_abs_error": 0.0,
                                                    "error_bound": j["error_bound"]})
                    t["rounds"] += rounds
                    t["exact_iterations"] += bool(j["finished"] and j["within_bound"])
                    for k in ("seconds", "fragments", "retransmits", "timeouts"):
                        t[k] += j.get(k) or 0
                    # The switch's counters run on across iterations (one switchd).
                    t["collisions_switch"] = j.get("collisions_switch") or 0
                    t["max_abs_error"] = max(t["max_abs_error"], j.get("max_abs_error") or 0.0)
        finally:
            sampler.stop_event.set()
            sampler.join()
        held_end = rep["switches"][switch].get("aggregators_in_use")
        held_after = settle_held(lab, switch, 4 * gc_s + 2)
        if held_after:
            problems.append(f"{held_after} aggregators still held {4 * gc_s + 2:.0f} s after the jobs ended "
                            f"(gc_timeout_ms {gc_s * 1000:.0f})")
        growth = rss_growth(sampler.rows, a.warmup_s)
        if not growth:
            problems.append(f"fewer than two RSS samples after {a.warmup_s:.0f} s: nothing to compare")
        for n, g in growth.items():
            if g["growth"] > a.rss_growth:
                problems.append(f"{g['name']} (PID {g['pid']}): RSS grew {g['growth']:.1%} after {a.warmup_s:.0f} s "
                                f"({g['base_kib']} -> {g['max_kib']} KiB)")
        result = {
            "minutes": a.minutes, "size_bytes": size, "iterations": iterations,
            "loss": a.loss, "reorder": a.reorder, "duplicate": a.duplicate,
            "jobs": [totals[k] for k in sorted(totals)],
            "samples": sampler.rows, "rss_growth": growth,
            "aggregators_in_use_at_end": held_end, "aggregators_in_use_after_gc": held_after,
            "problems": problems, "ok": not problems,
        }
    except (labmod.LabError, jobs.JobError, topology.TopologyError) as e:
        print(f"soak: error: {e}", file=sys.stderr)
        return 1
    finally:
        lab.down(quiet=True)
    if a.json:
        print(json.dumps(result))
    else:
        print_table(result)
    for p in problems:
        print(f"soak: FAILED {p}", file=sys.stderr)
    return 1 if problems else 0


def print_table(r):
    names = sorted({n for s in r["samples"] for n in s["rss_kib"]},
                   key=lambda n: (not n.startswith("switchd"), not n.startswith("ps-"), n))
    short = [n.split("-", 1)[1] for n in names]
    its = r["iterations"]
    print(f"soak: {TOPOLOGY}, {r['minutes']:g} min, {sum(i['rounds'] for i in its)} rounds of "
          f"{r['size_bytes'] >> 10} KiB per worker and job in {len(its)} iterations "
          f"({', '.join(str(i['rounds']) for i in its)} rounds), loss {r['loss']:.2%}, "
          f"reorder {r['reorder']:.2%}, duplicate {r['duplicate']:.2%} on the workers' frames")
    print("RSS (MiB) per process over time; held = the switch's aggregators in use")
    print(f"{'t (s)':>7} " + " ".join(f"{s:>7}" for s in short) + f" {'held':>6}")
    for s in r["samples"]:
        cells = [f"{s['rss_kib'][n] / 1024:7.1f}" if n in s["rss_kib"] else f"{'-':>7}" for n in names]
        print(f"{s['t_s']:7.0f} " + " ".join(cells) + f" {s['aggregators_in_use'] if s['aggregators_in_use'] is not None else '-':>6}")
    g = r["rss_growth"]
    print("RSS growth of each process after the warm-up (its first sample from then to its largest later): " +
          ", ".join(f"{x['name'].split('-', 1)[1]}/{x['pid']} {x['growth']:+.1%}" for x in g.values()))
    for j in r["jobs"]:
        print(f"job {j['id']}: {j['rounds']} rounds, {j['exact_iterations']} of {len(its)} iterations exact "
              f"(largest error {j['max_abs_error']:.3g}, bound {j['error_bound']}), {j['seconds']:.1f} s busy, "
              f"{j['fragments']} fragments, {j['retransmits']} retransmits ({j['timeouts']} timeouts), "
              f"{j['collisions_switch']} collisions")
    print(f"aggregators held: {r['aggregators_in_use_at_end']} when the jobs ended, "
          f"{r['aggregators_in_use_after_gc']} after the GC timeout")
    print("verdict: " + ("ok" if r["ok"] else "FAILED"))


if __name__ == "__main__":
    sys.exit(main())
