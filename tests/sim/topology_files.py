#!/usr/bin/python3
"""Topology files with several paths (docs/sim.md, "Topology files"):
planned for the ns-3 model, refused by the lab.

  topology_files.py SOURCE_ROOT [INA_SIM]

Checks that scripts/sim-plan plans a fat-tree (scripts/sim-topology --kind
fat-tree --k 4) with every equal-cost port behind each address; that the
lab (scripts/lab gen) refuses a file whose switches name several uplinks,
in one line naming the switch; that mode tree over several paths, an uplink
cycle and two spellings of the uplinks are refused; and, where INA_SIM is
given, that ina-sim refuses a TCP background flow naming the flow.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
SIM_DIR = os.path.join(ROOT, "tests", "sim")


def script(name, *args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", name), *args],
                          capture_output=True, text=True, timeout=60)


def plan_of(d, toml_text):
    path = os.path.join(d, "t.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(toml_text)
    return script("sim-plan", path, "-o", os.path.join(d, "plan.json"))


def check_fat_tree(d, errors):
    topo = os.path.join(d, "ft.toml")
    p = script("sim-topology", "--kind", "fat-tree", "--k", "4", "--jobs", "2", "-o", topo)
    q = script("sim-plan", topo, "-o", os.path.join(d, "ft.json"))
    if p.returncode or q.returncode:
        return errors.append(f"fat-tree: sim-topology/sim-plan failed: {p.stderr}{q.stderr}")
    with open(os.path.join(d, "ft.json"), encoding="utf-8") as f:
        plan = json.load(f)
    sw = {s["name"]: s for s in plan["switches"]}
    if len(sw) != 20 or len(plan["hosts"]) != 16 + 2:
        errors.append(f"fat-tree k=4: {len(sw)} switches and {len(plan['hosts'])} hosts, expected 20 and 18")
    # A host of pod 3 is behind both uplinks of an edge switch of pod 0,
    # behind both core ports of each aggregation switch of pod 0, and
    # behind one port of a core.
    far = next(h["ip"] for h in plan["hosts"] if h["switch"] == "e3x1")
    for name, want in (("e0x0", 2), ("a0x0", 2), ("a0x1", 2), ("c0", 1), ("a3x0", 1)):
        n = sum(1 for p in sw[name]["ports"] if any(x["ip"] == far for x in p["neighbours"]))
        if n != want:
            errors.append(f"fat-tree: {name} reaches a host of e3x1 over {n} ports, expected {want}")


def check_refusals(d, errors):
    lab = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "lab"), "gen",
                          os.path.join(SIM_DIR, "leaf-spine.toml"), "--out", os.path.join(d, "gen")],
                         capture_output=True, text=True, timeout=60)
    if lab.returncode == 0 or "switch tor0 has 2 uplinks: the lab builds trees" not in lab.stderr \
            or len(lab.stderr.strip().splitlines()) != 1:
        errors.append(f"lab gen of a multi-path file: exit {lab.returncode}, {lab.stderr.strip()!r}")
    head = 'elements = 256\n[[switch]]\nname = "s1"\n[[switch]]\nname = "s2"\n'
    cases = {
        "needs one path from each worker": head + '[[switch]]\nname = "t0"\nuplinks = ["s1", "s2"]\n'
        '[[switch]]\nname = "t1"\nuplinks = ["s1", "s2"]\n[[host]]\nname = "p"\nswitch = "t0"\n'
        '[[host]]\nname = "w"\nswitch = "t1"\n[[job]]\nid = 1\nps = "p"\nworkers = ["w"]\n',
        "uplinks form a cycle": head + '[[switch]]\nname = "t0"\nuplinks = ["s1", "s2", "t1"]\n'
        '[[switch]]\nname = "t1"\nuplink = "t0"\n',
        "name 'uplink' or 'uplinks', not both": head + '[[switch]]\nname = "t0"\nuplink = "s1"\nuplinks = ["s2"]\n',
    }
    for want, text in cases.items():
        r = plan_of(d, text)
        if r.returncode == 0 or want not in r.stderr:
            errors.append(f"expected sim-plan to refuse with {want!r}: exit {r.returncode}, {r.stderr.strip()!r}")


def check_tcp_refused(d, ina_sim, errors):
    text = open(os.path.join(SIM_DIR, "background.toml"), encoding="utf-8").read()
    r = plan_of(d, text.replace('protocol = "udp"', 'protocol = "tcp"'))
    if r.returncode:
        return errors.append(f"sim-plan of a TCP flow: {r.stderr}")
    s = subprocess.run([ina_sim, os.path.join(d, "plan.json")], capture_output=True, text=True, timeout=60)
    if s.returncode != 2 or "background flow bg1: protocol tcp is not modelled" not in s.stderr:
        errors.append(f"ina-sim with a TCP flow: exit {s.returncode}, {s.stderr.strip()!r}")


def main():
    errors = []
    with tempfile.TemporaryDirectory() as d:
        check_fat_tree(d, errors)
        check_refusals(d, errors)
        if len(sys.argv) > 2 and sys.argv[2]:
            check_tcp_refused(d, sys.argv[2], errors)
        else:
            print("ina-sim not built: the TCP flow's refusal is not checked")
    for e in errors:
        print("FAIL: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
