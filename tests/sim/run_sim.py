#!/usr/bin/python3
"""Runs one lab topology in the ns-3 model and checks its results.

  run_sim.py INA_SIM PLAN_TOOL [TOPOLOGY] [--plan-args ARGS] [--min-share X] [--max-share X]
             [--min-absorbed X] [--min-retransmits N] [--min-collisions N]
             [--ecmp PREFIX]... [--busy PREFIX:N]... [--slower A:B:RATIO]...
             [--min-flow-bytes N] [-- INA_SIM_ARGS...]

PLAN_TOOL writes the plan (scripts/sim-plan TOPOLOGY, or scripts/sim-leaf-spine
or scripts/sim-topology --plan with --plan-args) with -o FILE.

Fails unless every job finished every iteration with the exact sum at every
worker, and its share of fragments aggregated in the network (and its
retransmissions, the switches' collisions) lies where the arguments say.
--ecmp: some switch named PREFIX... sent frames out of two or more of its
uplink ports. --busy: at least N switches named PREFIX... sent frames.
--slower: job A's time (the sum of its iterations) is at least RATIO times
job B's. --min-flow-bytes: every background flow delivered that many bytes.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run(args, sim_args):
    with tempfile.TemporaryDirectory() as d:
        plan, out = os.path.join(d, "plan.json"), os.path.join(d, "out.json")
        cmd = [args.plan_tool] + ([args.topology] if args.topology else []) + args.plan_args.split()
        subprocess.run(cmd + ["-o", plan], check=True)
        p = subprocess.run([args.ina_sim, plan, "--json", out] + sim_args, capture_output=True, text=True,
                           timeout=args.timeout)
        print(p.stdout, end="")
        print(p.stderr, end="", file=sys.stderr)
        if not os.path.exists(out):
            raise SystemExit(f"ina-sim exited {p.returncode} without results")
        with open(out, encoding="utf-8") as f:
            return p.returncode, json.load(f)


def check(args, rc, res):
    errors = []
    if rc != 0:
        errors.append(f"ina-sim exited {rc}")
    for j in res["jobs"]:
        name = f"job {j['id']}"
        if not j["exact"] or j["wrong_values"] or len(j["iteration_ms"]) != j["iterations"]:
            errors.append(f"{name}: not every iteration exact ({j['wrong_values']} wrong values, "
                          f"{len(j['iteration_ms'])} of {j['iterations']} iterations, {j['errors']})")
        share = j["in_network_share"]
        if not args.min_share <= share <= args.max_share:
            errors.append(f"{name}: in-network share {share:.3f} outside [{args.min_share}, {args.max_share}]")
        if j["absorbed_share"] < args.min_absorbed:
            errors.append(f"{name}: the switches absorbed {j['absorbed_share']:.3f} of the workers' packets, "
                          f"expected at least {args.min_absorbed}")
        if j["retransmits"] < args.min_retransmits:
            errors.append(f"{name}: {j['retransmits']} retransmits, expected at least {args.min_retransmits}")
    errors += check_network(args, res)
    collisions = sum(s["collisions"] for s in res["switches"])
    if collisions < args.min_collisions:
        errors.append(f"switches: {collisions} collisions, expected at least {args.min_collisions}")
    for s in res["switches"]:
        if s["occupied_at_end"]:
            errors.append(f"switch {s['name']}: {s['occupied_at_end']} aggregators still held at the end")
    return errors


def check_network(args, res):
    """What the paths, the jobs' times and the background flows show."""
    errors = []
    switches = res["switches"]
    for prefix in args.ecmp:
        spread = [s["name"] for s in switches if s["name"].startswith(prefix)
                  and sum(1 for p in s["ports"] if p["up"] and p["tx"]) >= 2]
        if not spread:
            errors.append(f"no switch named {prefix}... sent on two or more of its uplinks (no ECMP there)")
        else:
            print(f"ECMP at {', '.join(spread)}")
    for spec in args.busy:
        prefix, n = spec.rsplit(":", 1)
        busy = [s["name"] for s in switches if s["name"].startswith(prefix) and s["tx"]]
        if len(busy) < int(n):
            errors.append(f"switches named {prefix}...: {len(busy)} sent frames ({busy}), expected at least {n}")
    ms = {j["id"]: sum(j["iteration_ms"]) for j in res["jobs"]}
    for spec in args.slower:
        a, b, ratio = spec.split(":")
        a, b, ratio = int(a), int(b), float(ratio)
        print(f"job {a}: {ms[a]:.3f} ms, job {b}: {ms[b]:.3f} ms (ratio {ms[a] / ms[b]:.2f}, at least {ratio})")
        if ms[a] < ratio * ms[b]:
            errors.append(f"job {a} took {ms[a]:.3f} ms, less than {ratio} x job {b}'s {ms[b]:.3f} ms")
    for f in res.get("background", []):
        if f["bytes_received"] < max(1, args.min_flow_bytes):
            errors.append(f"background flow {f['name']}: {f['bytes_received']} bytes received, "
                          f"expected at least {max(1, args.min_flow_bytes)}")
    if args.min_flow_bytes and not res.get("background"):
        errors.append("no background flow in the results")
    return errors


def main():
    argv = sys.argv[1:]
    sim_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, sim_args = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser()
    ap.add_argument("ina_sim")
    ap.add_argument("plan_tool")
    ap.add_argument("topology", nargs="?")
    ap.add_argument("--plan-args", default="")
    ap.add_argument("--min-absorbed", type=float, default=0.0)
    ap.add_argument("--min-share", type=float, default=1.0)
    ap.add_argument("--max-share", type=float, default=1.0)
    ap.add_argument("--min-retransmits", type=int, default=0)
    ap.add_argument("--min-collisions", type=int, default=0)
    ap.add_argument("--ecmp", action="append", default=[])
    ap.add_argument("--busy", action="append", default=[])
    ap.add_argument("--slower", action="append", default=[])
    ap.add_argument("--min-flow-bytes", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args(argv)
    rc, res = run(args, sim_args)
    errors = check(args, rc, res)
    for e in errors:
        print("FAIL: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
