#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The lab figures quoted in docs/worker.md and docs/lab.md, measured again.

    sudo perf/lab_figures.py [--build DIR] [--runs N] [--json]

Runs each scenario N times through `scripts/lab run ... --json` (real
ina-switchd, ina-ps and ina-worker processes in network namespaces) and
prints, per scenario and job: job seconds (min / median / max), the share of
fragments aggregated in the switch, retransmits, and the largest error
against its bound. Nothing is timed against a target here: these are the
numbers a user sees on this machine, printed with the command that made them.
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)
from lablib import cli  # noqa: E402

# name, scripts/lab run arguments
SCENARIOS = [
    ("single-rack 2 x 1 MB", ["single-rack", "--size", "1M", "--iterations", "2"]),
    ("two-level 2 x 1 MB", ["two-level", "--size", "1M", "--iterations", "2"]),
    ("multi-tenant (the demo)", ["multi-tenant"]),
    ("multi-tenant, cc a2tp", ["multi-tenant", "--worker-arg=--cc", "--worker-arg=a2tp"]),
]


def run_once(build, args):
    cmd = [os.path.join(ROOT, "scripts", "lab"), "--prefix", "inalabfig", "run", *args,
           "--build", build, "--json", "--timeout", "120"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {"error": (r.stderr.strip().splitlines() or ["no report"])[-1]}


def summarise(name, reports):
    rows = []
    jobs = {}
    for rep in reports:
        for j in rep.get("jobs", []):
            jobs.setdefault(j["name"], []).append(j)
    for jname, js in jobs.items():
        secs = sorted(j["seconds"] for j in js if j["finished"])
        share = [j["share_switch"] for j in js if j.get("share_switch") is not None]
        rows.append({
            "scenario": name, "job": jname, "runs": len(js),
            "finished": sum(1 for j in js if j["finished"]),
            "within_bound": sum(1 for j in js if j.get("within_bound")),
            "seconds_min": secs[0] if secs else None,
            "seconds_median": statistics.median(secs) if secs else None,
            "seconds_max": secs[-1] if secs else None,
            "share_switch_min": min(share) if share else None,
            "share_switch_median": statistics.median(share) if share else None,
            "retransmits_median": statistics.median([j.get("retransmits") or 0 for j in js]),
            "max_abs_error": max((j.get("max_abs_error") or 0 for j in js), default=None),
            "error_bound": max((j.get("error_bound") or 0 for j in js), default=None),
        })
    errors = [r["error"] for r in reports if "error" in r and not r.get("jobs")]
    return rows, errors


def main():
    ap = cli.parser("lab_figures.py", __doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="meson build directory")
    ap.add_argument("--runs", type=int, default=10, help="runs of each scenario (1..100)")
    ap.add_argument("--json", action="store_true", help="one JSON object per scenario and job")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("lab_figures: needs root (network namespaces)", file=sys.stderr)
        return 2
    if not 1 <= a.runs <= 100:
        print("lab_figures: --runs must be 1..100", file=sys.stderr)
        return 2
    f = lambda v, fmt: "-" if v is None else format(v, fmt)
    if not a.json:
        print(f"{'scenario':<26}{'job':<8}{'ok':>6}{'s min':>8}{'median':>8}{'max':>8}"
              f"{'switch%':>9}{'retx':>7}{'max err':>10}{'bound':>9}")
    bad = 0
    for name, args in SCENARIOS:
        rows, errors = summarise(name, [run_once(a.build, args) for _ in range(a.runs)])
        for r in rows:
            bad += r["runs"] - r["within_bound"]
            if a.json:
                print(json.dumps(r), flush=True)
                continue
            share = r["share_switch_median"]
            print(f"{name:<26}{r['job']:<8}{r['within_bound']:>3}/{r['runs']:<2}"
                  f"{f(r['seconds_min'], '.2f'):>8}{f(r['seconds_median'], '.2f'):>8}"
                  f"{f(r['seconds_max'], '.2f'):>8}{f(None if share is None else 100 * share, '.1f'):>9}"
                  f"{f(r['retransmits_median'], '.0f'):>7}{f(r['max_abs_error'], '.1e'):>10}"
                  f"{f(r['error_bound'], '.0e'):>9}", flush=True)
        for e in errors:
            print(f"{name}: a run failed: {e}", flush=True)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
