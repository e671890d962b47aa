#!/usr/bin/python3
"""A²TP against ATP and SwitchML's static split, in the settings the paper made it for.

Docs: docs/worker.md, "A²TP"; every figure is a ratio against the baseline run by
the same command, and every check is asserted: exit 1 when one fails.

  perf/a2tp_bench/a2tp_bench.py [--parts two-jobs,fig13,lab] [--quick] [--json FILE]

two-jobs  the ns-3 model: two jobs of four workers on one switch of 256
          aggregators, 62 values per fragment, job B with a worker behind a
          link at --level of the others' 100 Gb/s. Job A alone, then beside
          B, under ATP and under A²TP. Checks: under A²TP job A's iteration
          (its second half, once the windows have settled) within 1.1x of A
          alone while under ATP it is slower; gamma_A >= 0.9, gamma_B <= 0.5.
fig13     scripts/sim-a2tp-fig13 (--quick: its 4 x 4 x 12 leaf-spine) with
          --stragglers 0, 0.1, 0.25, each job --fig13-iterations (8) of
          --fig13-tensor (65536) floats: A²TP's windows change once per
          round, and the script's own defaults give a job one round per
          iteration (--quick: 8192 floats) and two iterations, which its
          control loop cannot act on (docs/worker.md, "A²TP"). Checks: with
          stragglers A²TP's average iteration <= 0.9x ATP's and <=
          SwitchML's in every row; without, <= 1.05x ATP's.
lab       (root) scripts/lab run single-rack --size 16M --iterations 2, ATP
          then A²TP in the same minute. Checks: A²TP within 1.2x ATP's time,
          >= 95 % in the switch, bypass <= 1 % of the packets, retransmits
          <= 0.1 %.
Every run must also finish exact (the model's and the lab's own checks).
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)
from lablib import cli  # noqa: E402

RTO_KEYS = ["min_rto_us=200", "max_rto_us=5000", "initial_rto_us=2000"]


def two_jobs_topology(level, alone, iterations, aggregators=256, elements=62, tensor=65536):
    lines = ['description = "two jobs on one switch, job B with a straggler"',
             f"aggregators = {aggregators}", f"elements = {elements}", "", "[[switch]]", 'name = "sw0"',
             "ecn_threshold = 64", ""]
    for h in ["psa", "psb"] + [f"a{i}" for i in range(4)] + [f"b{i}" for i in range(4)]:
        lines += ["[[host]]", f'name = "{h}"', 'switch = "sw0"']
        if h == "b3" and level < 1:
            lines.append(f"rate_gbps = {100 * level}")
        lines.append("")
    jobs = [("1", "psa", "a")] + ([] if alone else [("2", "psb", "b")])
    for jid, ps, p in jobs:
        lines += ["[[job]]", f"id = {jid}", f'ps = "{ps}"',
                  "workers = [" + ", ".join(f'"{p}{i}"' for i in range(4)) + "]",
                  f"tensor = {tensor}", f"iterations = {iterations}", ""]
    return "\n".join(lines)


def sim(build, d, name, toml, cc):
    """The model's JSON report of one run; exits on a run that is not exact."""
    topo, plan, out = (os.path.join(d, f"{name}.{x}") for x in ("toml", "plan.json", "json"))
    with open(topo, "w", encoding="utf-8") as f:
        f.write(toml)
    subprocess.run([os.path.join(ROOT, "scripts", "sim-plan"), topo, "-o", plan], check=True,
                   stdout=subprocess.DEVNULL)
    cmd = [os.path.join(build, "sim", "ns3", "ina-sim"), plan, "--json", out, "--worker", f"cc={cc}"]
    for kv in RTO_KEYS:
        cmd += ["--worker", kv]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"a2tp_bench: {name} {cc}: ina-sim failed: {r.stdout[-300:]}{r.stderr[-300:]}")
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def settled(job):
    """Mean iteration (ms) of the second half of a job's iterations."""
    its = job["iteration_ms"]
    half = its[len(its) // 2:]
    return sum(half) / len(half)


def part_two_jobs(a, d, checks):
    rows = {}
    for cc in ("atp", "a2tp"):
        alone = sim(a.build, d, f"alone-{cc}", two_jobs_topology(a.level, True, a.iterations), cc)
        both = sim(a.build, d, f"two-{cc}", two_jobs_topology(a.level, False, a.iterations), cc)
        ja, jb = both["jobs"]
        rows[cc] = {"A alone ms": settled(alone["jobs"][0]), "A ms": settled(ja), "B ms": settled(jb),
                    "gamma A": ja["straggling"], "gamma B": jb["straggling"],
                    "A iterations ms": ja["iteration_ms"], "B iterations ms": jb["iteration_ms"],
                    "B bypass": jb["bypass_sent"], "B timeouts": jb["timeouts"]}
        r = rows[cc]
        print(f"two-jobs {cc:4}: job A {r['A ms']:.4f} ms beside B, {r['A alone ms']:.4f} alone "
              f"({r['A ms'] / r['A alone ms']:.2f}x); job B {r['B ms']:.4f} ms; gamma A {r['gamma A']:.2f}, "
              f"B {r['gamma B']:.2f}; B bypassed {r['B bypass']}, timeouts {r['B timeouts']}")
    a2, atp = rows["a2tp"], rows["atp"]
    checks.append(("two-jobs: A under A²TP within 1.1x of A alone", a2["A ms"] <= 1.1 * a2["A alone ms"]))
    checks.append(("two-jobs: A under ATP slower than alone (by more than 10 %)",
                   atp["A ms"] > 1.1 * atp["A alone ms"]))
    checks.append(("two-jobs: gamma A >= 0.9", a2["gamma A"] >= 0.9))
    checks.append(("two-jobs: gamma B <= 0.5", a2["gamma B"] <= 0.5))
    return rows


def part_fig13(a, d, checks):
    rows = {}
    for frac in (0.0, 0.1, 0.25):
        out = os.path.join(d, f"fig13-{frac}.json")
        cmd = [os.path.join(ROOT, "scripts", "sim-a2tp-fig13"), "--build", a.build, "--json", out,
               "--stragglers", str(frac), "--iterations", str(a.fig13_iterations),
               "--tensor", str(a.fig13_tensor)] + (["--quick"] if a.quick else [])
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"a2tp_bench: sim-a2tp-fig13 --stragglers {frac} failed: {r.stdout[-400:]}")
        with open(out, encoding="utf-8") as f:
            res = json.load(f)
        by = {}
        for row in res["rows"]:
            by.setdefault((row["panel"], row["x"]), {})[row["scheme"]] = row["avg_iteration_ms"]
        rows[frac] = {f"{p}:{x:g}": v for (p, x), v in by.items()}
        for key, v in rows[frac].items():
            ratio_atp = v["A2TP"] / v["ATP"]
            ratio_sml = v["A2TP"] / v["SwitchML"]
            print(f"fig13 stragglers {frac:<4} {key:>8}: SwitchML {v['SwitchML']:.3f} ATP {v['ATP']:.3f} "
                  f"A²TP {v['A2TP']:.3f} ms (A²TP/ATP {ratio_atp:.2f}, A²TP/SwitchML {ratio_sml:.2f})")
            if frac:
                checks.append((f"fig13 stragglers {frac} {key}: A²TP <= 0.9x ATP", ratio_atp <= 0.9))
                checks.append((f"fig13 stragglers {frac} {key}: A²TP <= SwitchML", ratio_sml <= 1.0))
            else:
                checks.append((f"fig13 no stragglers {key}: A²TP <= 1.05x ATP", ratio_atp <= 1.05))
    return rows


def lab_run(build, cc):
    cmd = [os.path.join(ROOT, "scripts", "lab"), "--prefix", "inalaba2tp", "run", "single-rack", "--size", "16M",
           "--iterations", "2", "--build", build, "--json", "--timeout", "300",
           "--worker-arg=--cc", f"--worker-arg={cc}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    try:
        job = json.loads(r.stdout)["jobs"][0]
    except (ValueError, KeyError, IndexError):
        raise SystemExit(f"a2tp_bench: lab run ({cc}) gave no report: {r.stderr.strip()[-300:]}")
    if not job["finished"] or not job["within_bound"]:
        raise SystemExit(f"a2tp_bench: lab run ({cc}) did not finish within its error bound: {job}")
    return job


def part_lab(a, d, checks):
    if os.geteuid() != 0:
        raise SystemExit("a2tp_bench: the lab part needs root (network namespaces)")
    atp, a2 = lab_run(a.build, "atp"), lab_run(a.build, "a2tp")
    for cc, j in (("atp", atp), ("a2tp", a2)):
        print(f"lab {cc:4}: {j['seconds']:.3f} s, {100 * (j['share_switch'] or 0):.1f} % in the switch, "
              f"bypass {j['bypass_sent']} of {j['packets_sent']} packets, retransmits {j['retransmits']}")
    packets = max(1, a2["packets_sent"])
    checks.append(("lab: A²TP within 1.2x ATP's time", a2["seconds"] <= 1.2 * atp["seconds"]))
    checks.append(("lab: A²TP >= 95 % in the switch", (a2["share_switch"] or 0) >= 0.95))
    checks.append(("lab: A²TP bypass <= 1 % of its packets", a2["bypass_sent"] <= 0.01 * packets))
    checks.append(("lab: A²TP retransmits <= 0.1 % of its packets", a2["retransmits"] <= 0.001 * packets))
    return {"atp": atp, "a2tp": a2}


def main():
    ap = cli.parser("a2tp_bench.py", __doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--parts", default="two-jobs,fig13,lab", help="comma list of two-jobs, fig13, lab")
    ap.add_argument("--quick", action="store_true", help="fig13 on its quick leaf-spine")
    ap.add_argument("--level", type=float, default=0.2, help="job B's straggler: its link rate as a fraction")
    ap.add_argument("--iterations", type=int, default=16, help="two-jobs: iterations per job")
    ap.add_argument("--fig13-iterations", type=int, default=8, help="fig13: iterations per job")
    ap.add_argument("--fig13-tensor", type=int, default=65536, help="fig13: floats per worker and iteration")
    ap.add_argument("--json", help="write the figures and checks here")
    a = ap.parse_args()
    parts = [p for p in a.parts.split(",") if p]
    unknown = set(parts) - {"two-jobs", "fig13", "lab"}
    if unknown:
        ap.error(f"--parts: unknown {', '.join(sorted(unknown))} (two-jobs, fig13, lab)")
    if not 0 < a.level <= 1:
        ap.error("--level must be in (0, 1]")
    checks, out = [], {}
    with tempfile.TemporaryDirectory() as d:
        runners = {"two-jobs": part_two_jobs, "fig13": part_fig13, "lab": part_lab}
        for p in parts:
            out[p] = runners[p](a, d, checks)
    failed = [name for name, ok in checks if not ok]
    for name, ok in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"parts": out, "checks": [{"check": n, "ok": ok} for n, ok in checks]}, f, indent=1)
    print(f"a2tp_bench: {len(checks) - len(failed)} of {len(checks)} checks hold")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
