"""GOAT jobs in the lab (docs/goat.md, "In the lab"): the planner's inputs
from the lab's topology, and the plan from ina-goat-plan.

For each job of mode "goat": conf/goat-job<id>-topology.json (the switches
on the job's paths with their id, memory B(s) and hops to the PS; every
worker's hops to each of them and to the PS), conf/goat-job<id>-model.json
(the tensor cut into goat_submodels equal sub-models) and the plan,
conf/goat-job<id>.json (or a copy of the job's hand-written goat_plan_file).
The PS sends each switch its part ([goat] of its job file; with goat_install
= "config", each switch's [[goat]] table names the plan instead) and every
worker reads its part (ina-worker --goat-plan).
"""

import json
import os
import subprocess


class GoatError(Exception):
    pass


def plan_file(job):
    return f"goat-job{job['id']}.json"


def planner_inputs(plan, job):
    """(topology, model) for ina-goat-plan, as dicts (goat/examples/)."""
    switches = {s["name"]: s for s in plan["switches"]}
    hosts = {h["name"]: h for h in plan["hosts"]}
    on_path = job["switches"]
    topo = {"ps": job["ps"]["name"], "switches": [], "workers": []}
    for n in on_path:
        s = switches[n]
        mem = job["goat_memory_bytes"] or s["aggregators"] * plan["elements"] * 4
        topo["switches"].append({"name": n, "id": job["switch_ids"][n], "memory_bytes": mem,
                                 "distance_to_ps": job["hops_to_ps"][n]})
    for w in job["workers"]:
        home = hosts[w["name"]]["switch"]
        d = {n: 1 + job["switch_hops"][home][n] for n in on_path}
        d[job["ps"]["name"]] = 1 + job["hops_to_ps"][home]
        topo["workers"].append({"name": w["name"], "distance": d})
    k, n = job["goat_submodels"], job["tensor"]
    subs, at = [], 0
    for g in range(k):
        end = n * (g + 1) // k
        subs.append({"name": f"part{g}", "elements": end - at})
        at = end
    model = {"name": f"job{job['id']}-tensor", "element_bytes": 4, "submodels": subs}
    return topo, model


def make_plans(plan, conf_dir, planner, log=print):
    """Writes the inputs and runs `planner` (ina-goat-plan) for every goat
    job, or copies the job's hand-written goat_plan; sets job["goat_plan"]
    to the plan's path in conf_dir."""
    for job in plan["jobs"]:
        if job["mode"] != "goat":
            continue
        if job["goat_plan_file"]:
            given = os.path.join(os.path.dirname(plan["path"]), job["goat_plan_file"])
            out = os.path.join(conf_dir, plan_file(job))
            try:
                with open(given) as f:
                    p = json.load(f)
            except (OSError, ValueError) as e:
                raise GoatError(f"job {job['id']}: goat_plan {given}: {e}")
            with open(out, "w") as f:
                json.dump(p, f, indent=1)
            log(f"lab: job {job['id']} GOAT plan from {given}")
            job["goat_plan"] = out
            continue
        if not planner:
            raise GoatError(f"job {job['id']} is a GOAT job but ina-goat-plan was not built "
                            "(it needs GLPK: libglpk-dev)")
        topo, model = planner_inputs(plan, job)
        base = os.path.join(conf_dir, f"goat-job{job['id']}")
        with open(base + "-topology.json", "w") as f:
            json.dump(topo, f, indent=1)
        with open(base + "-model.json", "w") as f:
            json.dump(model, f, indent=1)
        out = os.path.join(conf_dir, plan_file(job))
        r = subprocess.run([planner, "--topology", base + "-topology.json", "--model",
                            base + "-model.json", "--seed", str(job["goat_seed"]), "--out", out],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            raise GoatError(f"ina-goat-plan for job {job['id']}: {r.stderr.strip()}")
        with open(out) as f:
            p = json.load(f)["plan"]
        held = ", ".join(f"{s['name']}: {len(s['submodels'])}" for s in p["switches"])
        to_ps = sum(1 for s in p["submodels"] if not s["aggregated_by"])
        log(f"lab: job {job['id']} GOAT plan: sub-models per switch {held}, {to_ps} to the PS")
        job["goat_plan"] = out
