#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Allreduce time end to end, in the lab, against what a user would run instead.

    sudo perf/e2e_bench/e2e_bench.py [--build DIR] [--workers N] [--sizes 1M,16M,64M]
                                     [--modes ina,ps,gloo] [--json] [--plot FILE]

Brings up one lab (one ina-switchd, W workers, one PS; network namespaces and
veth pairs) and, on those same namespaces, for every tensor size times one
allreduce of that many bytes of float32 per worker in three modes:

  ina   switchd aggregates (ATP); ina-worker + ina-ps
  ps    the same switchd and PS with aggregation off: every fragment to the PS
  gloo  torch.distributed all_reduce with gloo (Debian's python3-torch),
        TCP between the worker namespaces through the same switchd

Every result is checked against the exact sum (ina-worker against its
quantization bound, gloo against float32 rounding). --repeat N (3 by
default) runs every size N times, the modes interleaved (ina, ps, gloo, ina,
ps, gloo, ...), so that a burst of load on a shared machine falls on every
mode alike; a mode's seconds is the median of its runs, and every run must
be exact. Prints a table; --json one object per line (mode, workers, bytes,
seconds, runs, gbps_per_worker, retransmit_ratio (the largest of the runs),
correct); --plot a PNG of seconds per size and mode.
"""
import argparse
import json
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)
from lablib import cli, jobs, topology  # noqa: E402
from lablib import lab as labmod  # noqa: E402

PREFIX = "inalabe2e"
GLOO_PORT = 29517


def parse_size(text):
    n = cli.parse_size(text)
    if n < 4 or n % 4 or n > (1 << 30):
        raise ValueError(f"size {text}: want a multiple of 4 bytes up to 1G (e.g. 1M, 64M)")
    return n


def topology_text(workers, elements, link_gbps=0.0, ecn_threshold=0, ps_args=()):
    # elements None: the topology names none, the lab's default (the path sizes the job).
    lines = ["# perf/e2e_bench: one switch, one PS, the workers", f'description = "e2e bench, {workers} workers"',
             "aggregators = 4096"] + ([f"elements = {elements}"] if elements is not None else []) + [
             "", "[[switch]]", 'name = "sw0"',
             f"rate_gbps = {link_gbps}", f"ecn_threshold = {ecn_threshold}", "",
             "[[host]]", 'name = "ps0"', 'switch = "sw0"']
    for w in range(workers):
        lines += ["", "[[host]]", f'name = "w{w}"', 'switch = "sw0"']
    names = ", ".join(f'"w{w}"' for w in range(workers))
    lines += ["", "[[job]]", "id = 1", 'ps = "ps0"', f"workers = [{names}]", "tensor = 1024",
              "iterations = 1"]
    if ps_args:
        lines.append("ps_args = [" + ", ".join(json.dumps(x) for x in ps_args) + "]")
    return "\n".join(lines) + "\n"


def run_ina(lab, topo_path, mode, floats, build_dirs, timeout, worker_args, host_transport):
    plan = labmod.load_plan(topo_path, os.path.join(ROOT, "config", "labs"),
                            {"tensor": floats, "iterations": 1, "mode_all": mode})
    args = argparse.Namespace(timeout=timeout, fault=[], worker_arg=worker_args,
                              host_transport=host_transport)
    r = jobs.run_jobs(lab, plan, build_dirs, args)
    j = r["jobs"][0]
    sent = (j.get("fragments") or 0) * j["workers"]
    return {"seconds": j["seconds"], "correct": bool(j["finished"] and j.get("within_bound")),
            "retransmit_ratio": (j.get("retransmits") or 0) / sent if sent else None,
            "share_switch": j.get("share_switch"),
            "ps_cpu_us_per_fragment": j.get("ps_cpu_us_per_fragment")}


def run_gloo(lab, plan, floats, timeout):
    ws = plan["jobs"][0]["workers"]
    master = f"{ws[0]['ip']}:{GLOO_PORT}"
    script = os.path.join(ROOT, "perf", "e2e_bench", "gloo_worker.py")
    procs = [lab.start(f"gloo-{w['name']}", w["name"],
                       ["/usr/bin/python3", script, "--rank", str(i), "--world", str(len(ws)),
                        "--master", master, "--size", str(floats * 4)])
             for i, w in enumerate(ws)]
    deadline = time.monotonic() + timeout
    while any(p.alive() for p in procs) and time.monotonic() < deadline:
        time.sleep(0.1)
    out = []
    for p in procs:
        if p.alive():
            p.stop(grace=1.0)
        out.append(jobs.last_json(p.log_text()))
    if not all(out):
        tail = next((p.tail(2) for p, o in zip(procs, out) if not o), "")
        return {"seconds": None, "correct": False, "retransmit_ratio": None, "error": tail}
    return {"seconds": max(o["seconds"] for o in out), "correct": all(o["correct"] for o in out),
            "retransmit_ratio": None}


def summary_row(mode, workers, size, runs):
    """One (size, mode) over its repeated runs: the median time, every run
    exact, the largest retransmitted ratio."""
    secs = sorted(r["seconds"] for r in runs if r["seconds"] is not None)
    med = None
    if len(secs) == len(runs):
        mid = len(secs) // 2
        med = secs[mid] if len(secs) % 2 else (secs[mid - 1] + secs[mid]) / 2
    ratios = [r["retransmit_ratio"] for r in runs if r.get("retransmit_ratio") is not None]
    row = {"mode": mode, "workers": workers, "bytes": size, "seconds": med,
           "runs": [r["seconds"] for r in runs],
           "gbps_per_worker": size * 8 / med / 1e9 if med else None,
           "retransmit_ratio": max(ratios) if ratios else None,
           "correct": all(r["correct"] for r in runs)}
    for k in ("share_switch", "ps_cpu_us_per_fragment"):
        vals = [r[k] for r in runs if r.get(k) is not None]
        if vals:
            row[k] = min(vals) if k == "share_switch" else sorted(vals)[len(vals) // 2]
    return row


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for mode in dict.fromkeys(r["mode"] for r in rows):
        pts = [(r["bytes"] / 2**20, r["seconds"]) for r in rows if r["mode"] == mode and r["seconds"]]
        if pts:
            ax.plot(*zip(*pts), marker="o", label=mode)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("tensor per worker (MB)")
    ax.set_ylabel("allreduce time (s)")
    ax.set_title(f"allreduce, {rows[0]['workers']} workers, one lab")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = cli.parser("e2e_bench.py", __doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="meson build directory")
    ap.add_argument("--workers", type=int, default=4, help="workers (2..16)")
    ap.add_argument("--sizes", default="1M,16M,64M",
                    help="tensor sizes per worker, comma separated: bytes, K, M, G = KiB, MiB, GiB; "
                         "multiples of 4 up to 1G")
    ap.add_argument("--modes", default="ina,ps,gloo", help="modes to run, comma separated: ina, ps, gloo")
    ap.add_argument("--elements", default="auto",
                    help="values per fragment in ina and ps modes: auto (the lab's default: the path "
                         "sizes the job, docs/lab.md) or 1..2048 (the lab raises the MTU)")
    ap.add_argument("--link-gbps", type=cli.rate_arg, default=0.0,
                    help="shape every switch port's egress to this rate (a link of that speed); 0: not shaped")
    ap.add_argument("--ecn-threshold", type=int, default=0,
                    help="egress queue depth (packets) at which the switch marks ECN; 0: never")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of every size and mode, interleaved; the median is reported (1..20, default 3)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per allreduce")
    ap.add_argument("--worker-arg", action="append", default=[], metavar="ARG",
                    help="extra ina-worker argument for ina and ps modes (repeatable)")
    ap.add_argument("--ps-arg", action="append", default=[], metavar="ARG",
                    help="extra ina-ps argument for ina and ps modes (repeatable), e.g. --ps-arg=--threads=2")
    ap.add_argument("--host-transport", choices=("af_xdp", "af_packet", "udp"),
                    help="transport of ina-worker and ina-ps in ina and ps modes (default: the lab's, af_xdp)")
    ap.add_argument("--json", action="store_true", help="one JSON object per line instead of the table")
    ap.add_argument("--plot", metavar="FILE", help="also write a PNG of seconds per size and mode")
    a = ap.parse_args()
    try:
        sizes = [parse_size(s) for s in a.sizes.split(",")]
        modes = a.modes.split(",")
        bad = [m for m in modes if m not in ("ina", "ps", "gloo")]
        if bad:
            raise ValueError(f"unknown mode {bad[0]} (ina, ps, gloo)")
        if a.elements == "auto":
            a.elements = None
        elif not a.elements.isdigit() or not 1 <= int(a.elements) <= 2048:
            raise ValueError("--elements must be auto or 1..2048")
        else:
            a.elements = int(a.elements)
        if not 2 <= a.workers <= 16:
            raise ValueError("--workers must be 2..16")
        if not 1 <= a.repeat <= 20:
            raise ValueError("--repeat must be 1..20")
    except ValueError as e:
        print(f"e2e_bench: error: {e}", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("e2e_bench: error: needs root (network namespaces)", file=sys.stderr)
        return 2
    if "gloo" in modes:
        try:
            import torch.distributed  # noqa: F401
        except ImportError:
            print("e2e_bench: error: gloo mode needs python3-torch (scripts/deps.sh installs it)",
                  file=sys.stderr)
            return 2
    build_dirs = [os.path.abspath(a.build)]
    with tempfile.NamedTemporaryFile("w", suffix=".toml", prefix="e2e-") as t:
        t.write(topology_text(a.workers, a.elements, a.link_gbps, a.ecn_threshold, a.ps_arg))
        t.flush()
        # The switch's configuration is written once, at lab.up, and a job
        # it lists is aggregated whatever mode a run asks for: list none.
        # In ina mode the PS registers the job (control message, ACKed) and
        # unregisters it when it exits, so ps mode always meets a switch that
        # does not know the job and only forwards.
        plan = labmod.load_plan(t.name, os.path.join(ROOT, "config", "labs"), {"mode_all": "none"})
        lab = labmod.Lab(PREFIX, log=lambda m: print(m, file=sys.stderr, flush=True))
        rows = []
        try:
            lab.up(plan, build_dirs=build_dirs)
            for size in sizes:
                # A mode named twice (ina,ps,ina) keeps its runs apart.
                runs = [[] for _ in modes]
                for _ in range(a.repeat):
                    for i, mode in enumerate(modes):
                        if mode == "gloo":
                            runs[i].append(run_gloo(lab, plan, size // 4, a.timeout))
                        else:
                            runs[i].append(run_ina(lab, t.name, "tree" if mode == "ina" else "none", size // 4,
                                                   build_dirs, a.timeout, a.worker_arg, a.host_transport))
                for mode, rs in zip(modes, runs):
                    row = summary_row(mode, a.workers, size, rs)
                    rows.append(row)
                    if a.json:
                        print(json.dumps(row), flush=True)
        except (labmod.LabError, jobs.JobError, topology.TopologyError) as e:
            print(f"e2e_bench: error: {e}", file=sys.stderr)
            return 1
        finally:
            lab.down(quiet=True)
    if not a.json:
        f = lambda v, fmt: "-" if v is None else format(v, fmt)
        print(f"{'size':>6} {'mode':<5}{'seconds':>9}{'Gb/s/worker':>13}{'retx':>9}{'vs ps':>7}"
              f"{'vs gloo':>9}  correct  runs (s)")
        for r in rows:
            same = {x["mode"]: x["seconds"] for x in rows if x["bytes"] == r["bytes"]}
            rel = lambda m: same.get(m) / r["seconds"] if same.get(m) and r["seconds"] else None
            print(f"{r['bytes'] >> 20:>5}M {r['mode']:<5}{f(r['seconds'], '.3f'):>9}"
                  f"{f(r['gbps_per_worker'], '.3f'):>13}{f(r['retransmit_ratio'], '.2%'):>9}"
                  f"{f(rel('ps'), '.2f'):>7}{f(rel('gloo'), '.2f'):>9}  {str(r['correct']):<7}  "
                  + " / ".join(f(x, '.3f') for x in r["runs"]))
    if a.plot and rows:
        plot(rows, a.plot)
    problems = [p for r in rows for p in check_row(r)]
    for p in problems:
        print(f"e2e_bench: FAILED {p}", file=sys.stderr)
    return 1 if problems else 0


def check_row(r):
    """Whether a run did what its mode names: an exact result, and in ina
    mode aggregation in the switch, in ps mode none."""
    where = f"{r['bytes'] >> 20}M {r['mode']}"
    p = [] if r["correct"] else [f"{where}: the result is not the exact sum (or did not come)"]
    if r["mode"] == "ina" and not r.get("share_switch"):
        p.append(f"{where}: nothing was aggregated in the switch")
    if r["mode"] == "ps" and r.get("share_switch"):
        p.append(f"{where}: {r['share_switch']:.1%} aggregated in the switch, PS only asked")
    return p


if __name__ == "__main__":
    sys.exit(main())
