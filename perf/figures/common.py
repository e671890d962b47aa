# SPDX-License-Identifier: BSD-3-Clause
"""What every figure of perf/figures shares: the result it hands back, the
table, the PNG, the verdict, and running a generated lab topology through
`scripts/lab run --json`, or through the ns-3 model (`--sim`: the same
topology planned by `scripts/sim-plan` and run by `ina-sim`, its report
turned into the lab's).

A figure is a function `run(ctx) -> Result`. Its points are (x, series,
ours, paper, how): `paper` is the value the paper gives at that point
(None where it gives none) and `how` says where it comes from: the text's
own number, or "read off Fig. N, +-X".
"""
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAB = os.path.join(ROOT, "scripts", "lab")
SIM_PLAN = os.path.join(ROOT, "scripts", "sim-plan")

# Every ratio of ours within this of the paper's: the verdict's tolerance.
TOLERANCE = 0.20
# Ratios both below this are compared by difference (at most half of it).
NEAR_ZERO = 0.05


@dataclass
class Point:
    x: object
    series: str
    ours: float
    paper: float = None
    how: str = ""
    detail: dict = field(default_factory=dict)  # extra columns (share in switch, ...)


@dataclass
class Ratio:
    """One ratio the verdict compares: ours against the paper's."""
    label: str
    ours: float
    paper: float
    why_off: str = ""  # the reason, when it is known to be off

    def within(self):
        # Two near-zero shares (GOAT's 60 MB of 8.4 GB against our 0) are
        # the same finding: there 20 % of the paper's would be 0.001.
        if max(abs(self.ours), abs(self.paper)) < NEAR_ZERO:
            return abs(self.ours - self.paper) <= NEAR_ZERO / 2
        return abs(self.ours / self.paper - 1) <= TOLERANCE


@dataclass
class Result:
    name: str
    title: str
    xlabel: str
    ylabel: str
    points: list
    direction: str            # the paper's direction, as checked
    direction_ok: bool
    direction_off: list = field(default_factory=list)  # the points that break it
    ratios: list = field(default_factory=list)
    notes: list = field(default_factory=list)           # how read, what was scaled
    exact: bool = None        # every lab run finished within its bound (None: no lab)
    failures: list = field(default_factory=list)       # runs that did not
    logscale: bool = False
    logscale_x: bool = False  # x spans decades (loss rates)
    dense_x: bool = False     # x is time: no tick per point

    def verdict(self):
        """One line: the direction, then the ratios against the paper's."""
        if not self.direction_ok:
            return "NOT the paper's direction (" + self.direction + "): " + "; ".join(self.direction_off)
        off = [r for r in self.ratios if not r.within()]
        if not off:
            n = len(self.ratios)
            return ("same direction, every ratio within 20 % of the paper's" if n else
                    "same direction (the paper states no number to compare a ratio with)")
        whys = []
        for r in off:
            if r.why_off and r.why_off not in whys:
                whys.append(r.why_off)
        return ("same direction; off by more than 20 %: " +
                "; ".join(f"{r.label} {r.ours:.2f} vs paper {r.paper:.2f}" for r in off) +
                (". Why: " + "; ".join(whys) if whys else ""))

    def to_json(self):
        return {
            "figure": self.name, "title": self.title, "xlabel": self.xlabel, "ylabel": self.ylabel,
            "points": [p.__dict__ for p in self.points],
            "direction": self.direction, "direction_ok": self.direction_ok,
            "direction_off": self.direction_off,
            "ratios": [dict(r.__dict__, within=r.within()) for r in self.ratios],
            "verdict": self.verdict(), "notes": self.notes, "exact": self.exact,
            "failures": self.failures,
        }


@dataclass
class Context:
    build: str
    out: str
    quick: bool
    prefix: str = "inalabfig"
    log: object = sys.stderr
    sim: bool = False         # run the topologies in the ns-3 model, not the lab


def median(xs):
    """The median of a list of numbers (0.0 for none)."""
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2 if n else 0.0


def lab_prefix(figure):
    """The lab prefix of a figure's runs, its own so that labs of several
    figures (or people) never share namespaces: atp_fig16 -> inalabatp16."""
    return "inalab" + figure.replace("_fig", "").replace("_", "")[:8]


def fmt(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def print_table(res, out=sys.stdout):
    """x, series, ours, paper, how the paper's value was read, and any
    detail columns the figure's points carry."""
    details = []
    for p in res.points:
        details += [k for k in p.detail if k not in details]
    head = ["x", "series", "ours", "paper"] + details + ["paper's value"]
    rows = [[fmt(p.x), p.series, fmt(p.ours), fmt(p.paper)] +
            [fmt(p.detail.get(k)) for k in details] + [p.how or "-"] for p in res.points]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print(f"{res.title}\n  x: {res.xlabel}; values: {res.ylabel}", file=out)
    print("  ".join(h.ljust(w) if i in (1, len(head) - 1) else h.rjust(w)
                    for i, (h, w) in enumerate(zip(head, widths))).rstrip(), file=out)
    for r in rows:
        print("  ".join(c.ljust(w) if i in (1, len(head) - 1) else c.rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))).rstrip(), file=out)
    for n in res.notes:
        print(f"  note: {n}", file=out)
    for r in res.ratios:
        print(f"  ratio {r.label}: ours {r.ours:.3f}, paper {r.paper:.3f}"
              f" ({'within' if r.within() else 'NOT within'} 20 %)", file=out)
    if res.exact is not None:
        print(f"  every lab run exact: {'yes' if res.exact else 'NO: ' + '; '.join(res.failures)}", file=out)
    print(f"verdict: {res.verdict()}", file=out)


def plot(res, path):
    """Ours as solid lines with markers, the paper's values as hollow
    markers of the same colour. Returns the path, or None without
    matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    series = []
    for p in res.points:
        if p.series not in series:
            series.append(p.series)
    for i, s in enumerate(series):
        pts = [p for p in res.points if p.series == s]
        colour = f"C{i}"
        ax.plot([p.x for p in pts], [p.ours for p in pts], "o-", color=colour, label=f"{s} (ours)")
        paper = [p for p in pts if p.paper is not None]
        if paper:
            ax.plot([p.x for p in paper], [p.paper for p in paper], "s", mfc="none", ms=10,
                    color=colour, label=f"{s} (paper)")
    xs = sorted({p.x for p in res.points})
    if res.logscale_x:
        ax.set_xscale("log")
    if not res.dense_x:
        ax.set_xticks(xs)
    if res.logscale_x:
        ax.set_xticklabels([fmt(x) for x in xs])
    if res.logscale:
        ax.set_yscale("symlog", linthresh=0.1)
    elif all(p.ours >= 0 for p in res.points):
        ax.set_ylim(bottom=0)
    ax.set_xlabel(res.xlabel)
    ax.set_ylabel(res.ylabel)
    ax.set_title(res.title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.text(0.01, 0.01, res.verdict()[:110], fontsize=6)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def run_lab(ctx, topology, args=(), timeout=180):
    """`scripts/lab run TOPOLOGY ... --json`: the report, or {"error": why}.
    One lab at a time, under this figure's prefix. With ctx.sim the ns-3
    model runs the topology instead (run_sim; `args`, the lab's, are not
    used)."""
    if ctx.sim:
        return run_sim(ctx, topology)
    cmd = ["/usr/bin/python3", LAB, "--prefix", ctx.prefix, "run", topology, "--build", ctx.build,
           "--json", "--timeout", str(timeout), *args]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=timeout + 120)
    except subprocess.TimeoutExpired:
        stop_lab(p)
        return {"error": f"scripts/lab run did not end within {timeout + 120} s"}
    except BaseException:
        stop_lab(p)
        raise
    try:
        return json.loads(out)
    except ValueError:
        return {"error": f"exit {p.returncode}: " + ((err.strip().splitlines() or ["no report"])[-1])}


def sim_binary(build):
    return os.path.join(build, "sim", "ns3", "ina-sim")


def run_sim(ctx, topology, timeout=1800):
    """The topology in the ns-3 model (docs/sim.md): the same plan and
    worker keys as the lab's, every switch port at the topology's
    rate_gbps, the hosts' own links unshaped (100 Gb/s, as the lab's
    veths). The report in the lab's form (sim_report), or {"error": why}."""
    with tempfile.TemporaryDirectory(prefix="figures-sim-") as d:
        plan, out = os.path.join(d, "plan.json"), os.path.join(d, "sim.json")
        p = subprocess.run(["/usr/bin/python3", SIM_PLAN, topology, "-o", plan],
                           capture_output=True, text=True)
        if p.returncode != 0:
            return {"error": "sim-plan: " + ((p.stderr.strip().splitlines() or ["failed"])[-1])}
        cmd = [sim_binary(ctx.build), plan, "--json", out, "--host-rate-gbps", "100",
               "--max-time-s", str(timeout)]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"ina-sim did not end within {timeout} s"}
        if not os.path.exists(out):
            return {"error": f"ina-sim exit {p.returncode}: " +
                    ((p.stderr.strip().splitlines() or ["no report"])[-1])}
        with open(out, encoding="utf-8") as f:
            rep = json.load(f)
    print(f"ina-sim: {rep.get('wall_s', 0):.1f} s wall for {rep.get('sim_end_ms', 0):.1f} ms simulated",
          file=ctx.log, flush=True)
    return sim_report(rep)


def sim_report(rep):
    """ina-sim's JSON as the lab's report: per job finished, within its bound
    (the model checks every value exactly: bound 0), seconds (the sum of its
    iterations), iteration_s, share_switch, ps_completed, retransmits,
    collisions_switch (the fragments the PS saw collided)."""
    jobs = []
    for j in rep.get("jobs", []):
        its = [ms / 1000 for ms in j.get("iteration_ms", [])]
        jobs.append({"id": j["id"], "name": f"job{j['id']}", "finished": bool(j.get("done")),
                     "within_bound": bool(j.get("exact")), "max_abs_error": j.get("wrong_values"),
                     "error_bound": 0, "seconds": sum(its), "iteration_s": its,
                     "share_switch": j.get("in_network_share"), "ps_completed": j.get("fragments_completed"),
                     "retransmits": j.get("retransmits"), "collisions_switch": j.get("ps_collisions"),
                     "ecn_marks": j.get("ecn_acks"), "goodput_gbps": None})
    return {"jobs": jobs, "switches": rep.get("switches", []), "backend": "ns-3"}


def stop_lab(p):
    """SIGTERM: scripts/lab then takes its lab down (docs/lab.md, "Cleaning up")."""
    p.terminate()
    try:
        p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()


def lab_exact(report):
    """None when every job of the report finished within its quantization
    bound, else why not."""
    if "error" in report:
        return report["error"]
    bad = [f"{j['name']}: finished {j['finished']}, error {j.get('max_abs_error')} "
           f"(bound {j.get('error_bound')})" for j in report.get("jobs", [])
           if not (j["finished"] and j["within_bound"])]
    if not report.get("jobs"):
        bad.append("no job in the report")
    return "; ".join(bad) or None


def lab_can_run(build):
    """None when a lab can run here, else the reason (root, netns, the
    binaries)."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, AF_XDP, hugepages)"
    for b in ("switchd/ina-switchd", "ps/ina-ps", "workerlib/ina-worker"):
        if not os.path.exists(os.path.join(build, b)):
            return f"{b} is not built in {build}"
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        return "no network namespaces (ip netns list failed)"
    return None


class CannotRun(Exception):
    """The figure needs what this machine lacks (the reason): exit 77."""


def all_jobs_gbps(rep, bytes_per_worker):
    """All jobs of a report, started together: their bytes per worker over
    the time until the last one finished (what the switch and the PS links
    carried together), and that time."""
    js = rep.get("jobs", [])
    slowest = max((j["seconds"] for j in js), default=0)
    return (len(js) * bytes_per_worker * 8 / slowest / 1e9 if slowest else 0.0), slowest


def in_switch(rep):
    """The share (%) of all jobs' fragments the switches aggregated
    completely; None when the PS completed none."""
    js = rep.get("jobs", [])
    done = sum(j.get("ps_completed") or 0 for j in js)
    got = sum((j.get("share_switch") or 0) * (j.get("ps_completed") or 0) for j in js)
    return 100 * got / done if done else None


def require_lab(ctx):
    """Raises CannotRun unless a lab can run here (lab_can_run), or with
    ctx.sim unless ina-sim is built."""
    if ctx.sim:
        if not os.path.exists(sim_binary(ctx.build)):
            raise CannotRun(f"sim/ns3/ina-sim is not built in {ctx.build} (libns3-dev, docs/sim.md)")
        return
    why = lab_can_run(ctx.build)
    if why:
        raise CannotRun(why)


def sweep(ctx, xs, series, run, label):
    """run(ctx, x, s) -> (Point, why not exact or None) for every x and
    series, x outermost: the points and the failures, each named
    label(x, s)."""
    pts, failures = [], []
    for x in xs:
        for s in series:
            p, bad = run(ctx, x, s)
            pts.append(p)
            if bad:
                failures.append(f"{label(x, s)}: {bad}")
    return pts, failures


def toml_value(v):
    """A TOML scalar or list of scalars (the lab topology's keys)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return str(v)


def lab_topology(description, top, switch, hosts, jobs):
    """A lab topology file's text (config/labs/README.md): `top` the
    top-level keys, one switch (its keys, with `name`), hosts cabled to it
    (name -> their extra keys) and jobs (each a dict of [[job]] keys)."""
    lines = [f"description = {toml_value(description)}"]
    lines += [f"{k} = {toml_value(v)}" for k, v in top.items()]
    lines += ["", "[[switch]]"] + [f"{k} = {toml_value(v)}" for k, v in switch.items()]
    for name, keys in hosts.items():
        lines += ["", "[[host]]", f"name = {toml_value(name)}", f"switch = {toml_value(switch['name'])}"]
        lines += [f"{k} = {toml_value(v)}" for k, v in keys.items()]
    for job in jobs:
        lines += ["", "[[job]]"] + [f"{k} = {toml_value(v)}" for k, v in job.items()]
    return "\n".join(lines) + "\n"


def run_topology(ctx, text, tag, args=(), timeout=180):
    """run_lab on a topology given as text (written to a temporary file
    named after `tag`)."""
    with tempfile.NamedTemporaryFile("w", suffix=".toml", prefix=f"{tag}-", delete=False) as f:
        f.write(text)
    try:
        return run_lab(ctx, f.name, args, timeout)
    finally:
        os.unlink(f.name)
