#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""docs/pytorch.md, "Pointing an existing DDP script at the switch", as written:

    test_ddp_recipe.py BUILD_DIR     (root; skips without root or torch)

An existing DDP script (gloo process group, DistributedDataParallel, SGD on a
small model) gets the doc's three lines after wrapping the model:

    import ina
    from ina import ddp
    ddp.register(model, ina.Worker.from_env())

and runs on the four worker hosts of the single-rack lab with the doc's
environment only, INA_JOB, INA_PS, INA_DEVICE=eth0 and INA_IP (no epoch, no
fragment size: both come from the PS), with `python3 train.py`; one ina-ps
serves the job, as the doc says it must. The script's own launch gives
RANK, WORLD_SIZE, MASTER and GLOO_SOCKET_IFNAME=eth0 (gloo's, for both runs).
The same script without the three lines is the gloo baseline. Asserted: every rank of the INA run exits 0 with
the same final parameters; they match the gloo run's within 1e-4 (the
quantization leaves ~1e-7 here); the losses went down; the switch completed
aggregations of job 1 and dropped none of its packets as stale; the worker
asked the PS for the epoch (the switch's, >= 1). The lab (prefix
inalabrcp) is removed at the end, also on failure.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)

PREFIX = "inalabrcp"
MASTER_PORT = 29571
STEPS = 15

# The "existing" script: its own rendezvous (rank and master from its
# environment), DDP, SGD. RECIPE marks where the doc's lines go.
TRAIN = '''import hashlib, json, os, sys
import torch
import torch.distributed as dist
RECIPE_IMPORTS
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo", init_method="tcp://" + os.environ["MASTER"], rank=rank, world_size=world)
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
model = torch.nn.parallel.DistributedDataParallel(net)
RECIPE_REGISTER
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
g = torch.Generator().manual_seed(100 + rank)
x, y = torch.randn(64, 32, generator=g), torch.randint(0, 4, (64,), generator=g)
losses = []
for step in range(STEPS):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    losses.append(float(loss))
flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
json.dump({"rank": rank, "losses": losses, "params": flat.tolist(),
           "sha1": hashlib.sha1(flat.numpy().tobytes()).hexdigest()}, open(sys.argv[1], "w"))
dist.barrier()
'''
RECIPE_IMPORTS = "import ina\nfrom ina import ddp"
RECIPE_REGISTER = "ddp.register(model, ina.Worker.from_env())                 # gradients now go through the switch"


def check(cond, msg):
    if not cond:
        print(f"FAIL: {msg}", flush=True)
        sys.exit(1)
    print(f"ok    {msg}", flush=True)


def script(path, with_recipe):
    text = TRAIN.replace("STEPS", str(STEPS))
    text = text.replace("RECIPE_IMPORTS", RECIPE_IMPORTS if with_recipe else "")
    text = text.replace("RECIPE_REGISTER", RECIPE_REGISTER if with_recipe else "")
    with open(path, "w") as f:
        f.write(text)


def run_ranks(lab, plan, train, outdir, mode, env_of):
    ws = sorted(plan["jobs"][0]["workers"], key=lambda w: w["rank"])
    procs = []
    for w in ws:
        # The script's own launch: its rank and master, and gloo's interface
        # (the lab's namespaces share one host name, which gloo would use).
        env = dict(env_of(w), RANK=str(w["rank"]), WORLD_SIZE=str(len(ws)),
                   MASTER=f"{ws[0]['ip']}:{MASTER_PORT + (mode == 'ina')}", GLOO_SOCKET_IFNAME="eth0")
        procs.append(lab.start(f"recipe-{mode}-{w['name']}", w["name"],
                               ["/usr/bin/python3", train, os.path.join(outdir, f"{mode}-{w['rank']}.json")],
                               env=env))
    deadline = time.monotonic() + 150
    while any(p.alive() for p in procs) and time.monotonic() < deadline:
        time.sleep(0.2)
    for w, p in zip(ws, procs):
        if p.alive():
            p.stop(grace=1.0)
        check(p.poll() == 0, f"{mode}: {w['name']} (rank {w['rank']}) exits 0 ({p.poll()}: {p.tail(3)})")
    return [json.load(open(os.path.join(outdir, f"{mode}-{w['rank']}.json"))) for w in ws]


def main():
    build = os.path.abspath(sys.argv[1])
    if os.geteuid() != 0:
        harness.skip("needs root (network namespaces, AF_XDP)")
    harness.need_torch()
    harness.need_ina()
    import ddp_demo  # scripts/ddp_demo.py: the lab's PS for a DDP job
    from lablib import lab as labmod
    from lablib import netns

    lab = labmod.Lab(PREFIX, log=lambda m: print(m, flush=True))
    try:
        plan = labmod.load_plan("single-rack", os.path.join(ROOT, "config", "labs"), {})
        lab.up(plan, build_dirs=[build])
        ps = ddp_demo.start_ps(lab, plan, [build])
        job = plan["jobs"][0]
        check(all(w["bit"] == [w["rank"]] for w in job["workers"]) and job["levels"] == 1,
              "single-rack is one switch level, each worker's bit its rank (the doc's case)")
        check(netns.HOST_IF == "eth0", "the hosts' interface is eth0, as in the doc's command")
        with tempfile.TemporaryDirectory(prefix="recipe", dir=lab.run.path) as tmp:
            ina_py, gloo_py = os.path.join(tmp, "train.py"), os.path.join(tmp, "train_gloo.py")
            script(ina_py, True)
            script(gloo_py, False)
            # The doc's environment, nothing else of INA's.
            doc_env = lambda w: {"INA_JOB": str(job["id"]), "INA_PS": f"{job['ps']['ip']}/{job['ps']['mac']}",
                                 "INA_DEVICE": "eth0", "INA_IP": w["ip"]}
            for k in [k for k in os.environ if k.startswith("INA_")]:
                os.environ.pop(k)
            ina_out = run_ranks(lab, plan, ina_py, tmp, "ina", doc_env)
            gloo_out = run_ranks(lab, plan, gloo_py, tmp, "gloo", lambda w: {})
        check(len({o["sha1"] for o in ina_out}) == 1, "every rank of the INA run ends with the same parameters")
        diff = max(abs(a - b) for a, b in zip(ina_out[0]["params"], gloo_out[0]["params"]))
        check(diff <= 1e-4, f"the INA run's parameters match gloo's: max difference {diff:.2e} <= 1e-4")
        check(ina_out[0]["losses"][-1] < ina_out[0]["losses"][0],
              f"the loss went down ({ina_out[0]['losses'][0]:.4f} -> {ina_out[0]['losses'][-1]:.4f})")
        c = (lab.counters("sw0").get("jobs") or {}).get(str(job["id"])) or {}
        check(c.get("completed", 0) > 0 and c.get("stale_epoch_drops", 1) == 0,
              f"the switch aggregated job {job['id']} (completed {c.get('completed')}) and dropped "
              f"none of it as stale ({c.get('stale_epoch_drops')})")
        check(job.get("epoch", 0) >= 1 and c.get("epoch") == job["epoch"],
              f"the workers, given no epoch, used the switch's ({job.get('epoch')}) from the PS")
        ps.stop(grace=5.0)
        print("ddp recipe: OK")
        return 0
    finally:
        lab.down(quiet=True)


if __name__ == "__main__":
    sys.exit(main())
