#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The DDP demo's driver (scripts/ddp-demo.sh): one training run through the
INA switch with ina.ddp's communication hook, one with gloo, same model,
seed and batches, in the netns lab; compares them.

    sudo PYTHONPATH=BUILD/workerlib/python scripts/ddp_demo.py
         [--build BUILD] [--topology single-rack] [--steps 200] [--json FILE]
         [--launcher torchrun]

Brings up the topology (default single-rack: one ina-switchd, four workers,
one PS) with scripts/lablib, starts ina-ps for its job, then runs
ddp_digits.py on every worker host twice: --mode ina (gradients through the
switch; DDP's process group, gloo over the same switch as plain IPv4, only
for the initial broadcast) and --mode gloo (DDP's own all-reduce). Prints the
per-step loss of both (mean over ranks), the largest parameter difference
at the end against its bound, test accuracy of both, seconds per step, and
what the switch did. Last line: `ddp: OK` or `ddp: FAILED <reason>`.
With --launcher torchrun each worker host runs `torchrun --nnodes 4
--nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint FIRST_WORKER:PORT`
(the first worker hosts the rendezvous) and the ranks come from torchrun.

The bound. At a step where both runs held the same parameters, the averaged
gradients could differ by at most e_t = ina.ddp.step_gradient_bound: the
quantization (0.5 / scale per worker, from the scale the hook used), the
float32 rounding of our sum, and gloo's float32 rounding. The parameter
difference at the end is held to
    B = sum_t lr / (1 - momentum) * e_t  +  2 ulp(max |parameter|),
every step's gradient difference carried into the parameters by SGD with
momentum as if none of them cancelled and the training did not amplify
them, plus the rounding of float32 parameters themselves. Amplification is
not excluded by mathematics; on this model it is not there: the measured
difference stays a fraction of B (docs/pytorch.md gives the numbers).
Accuracies match when the two models' correct test predictions differ by at
most one sample.
"""
import json
import math
import os
import re
import shutil
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)
from lablib import cli, jobs, netns, render, topology  # noqa: E402
from lablib import lab as labmod  # noqa: E402

PREFIX = "inalabddp"
GLOO_PORT = 29531
RDZV_PORT = 29541  # --launcher torchrun: c10d rendezvous on the first worker
TORCHRUN = "/usr/bin/torchrun"
TRAINER = os.path.join(ROOT, "workerlib", "python", "examples", "ddp_digits.py")


class DemoError(Exception):
    pass


class Interrupted(Exception):
    pass


def _on_signal(signum, frame):
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)
    raise Interrupted(signal.Signals(signum).name)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def start_ps(lab, plan, build_dirs):
    ps_bin = labmod.find_binary(build_dirs, "ina-ps")
    if not ps_bin:
        raise DemoError("ina-ps not found in " + ", ".join(build_dirs))
    switches = {s["name"]: s for s in plan["switches"]}
    job = plan["jobs"][0]
    job["aggregators"] = min(switches[n]["aggregators"] for n in job["switches"])
    host = next(h for h in plan["hosts"] if h["name"] == job["ps"]["name"])
    path = os.path.join(lab.run.conf, f"ps-job{job['id']}.toml")
    with open(path, "w") as f:
        f.write(jobs.ps_job_toml(plan, job, switches,
                                 key_file=render.write_control_key(lab.run.conf)))
    cmd = [ps_bin, "--job", path, "--transport", "auto", "--device", netns.HOST_IF,
           "--ip", host["ip"], "--json", "--register-interval-ms", "500"]
    p = lab.start(f"ps-{host['name']}", host["name"], cmd)
    deadline = time.monotonic() + 15
    while "serving" not in p.log_text():
        if p.poll() is not None or time.monotonic() > deadline:
            raise DemoError(f"ina-ps did not start: {p.tail(3)}")
        time.sleep(0.05)
    # The run's epoch from the switch, which the workers must carry.
    m = re.search(rf"ina-ps: job {job['id']} epoch (\d+)", p.log_text())
    job["epoch"] = int(m.group(1)) if m else 0
    return p


def launch(a, mode, w, ws):
    """The start of one rank's command: the trainer with its rank given, or
    torchrun (one process per node, c10d rendezvous hosted by the first
    worker), which hands the rank, world size and MASTER_ADDR to the trainer
    in its environment. torchrun's MASTER_ADDR is the rank-0 node's host
    name, which every namespace of the lab shares: each node runs in a UTS
    namespace of its own whose host name is its IP, as machines of a
    cluster have names of their own."""
    port = (RDZV_PORT if a.launcher == "torchrun" else GLOO_PORT) + (1 if mode == "ina" else 0)
    endpoint = f"{ws[0]['ip']}:{port}"
    out = os.path.join(a.outdir, f"{mode}-" + ("{rank}" if a.launcher == "torchrun" else str(w["rank"])) + ".json")
    if a.launcher != "torchrun":
        return ["/usr/bin/python3", TRAINER, "--rank", str(w["rank"]), "--world", str(len(ws)),
                "--master", endpoint, "--out", out]
    return ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', w["ip"],
            TORCHRUN, "--nnodes", str(len(ws)), "--nproc_per_node", "1", "--rdzv_backend", "c10d",
            "--rdzv_endpoint", endpoint, "--rdzv_id", f"ddp-{mode}",
            "--rdzv_conf", f"is_host={1 if w is ws[0] else 0}", "--max_restarts", "0",
            # Debian 12's torch 1.13 on Python 3.11 cannot read its own default
            # "--redirects 0 --tee 0" (Std.from_str gives None): redirect and tee
            # stdout, so it still reaches the rank's log.
            "--redirects", "1", "--tee", "1", "--log_dir", os.path.join(a.outdir, f"torchrun-{mode}-{w['name']}"),
            TRAINER, "--out", out]


def run_mode(lab, plan, mode, a, outdir, env):
    job = plan["jobs"][0]
    ws = sorted(job["workers"], key=lambda w: w["rank"])
    a.outdir = outdir
    procs = []
    for w in ws:
        cmd = launch(a, mode, w, ws) + [
               "--mode", mode, "--steps", str(a.steps),
               "--batch", str(a.batch), "--lr", repr(a.lr), "--momentum", repr(a.momentum),
               "--seed", str(a.seed), "--params", os.path.join(outdir, f"{mode}.pt")]
        if mode == "ina":
            cmd += ["--ps", f"{job['ps']['ip']}/{job['ps']['mac']}", "--ip", w["ip"],
                    "--device", netns.HOST_IF, "--transport", a.host_transport,
                    "--job", str(job["id"]), "--epoch", str(job.get("epoch", 0)),
                    "--levels", str(job["levels"]),
                    "--start-level", str(w["start_level"]),
                    "--bit", ",".join(str(b) for b in w["bit"]),
                    "--fan-in", ",".join(str(f) for f in job["fan_in"]),
                    "--aggregators", str(job["aggregators"]), "--scale", a.scale]
            # The size comes from the path unless the topology names one.
            if plan.get("elements_named", True):
                cmd += ["--elements", str(plan["elements"])]
        procs.append(lab.start(f"ddp-{mode}-{w['name']}", w["name"], cmd, env=env))
    deadline = time.monotonic() + a.timeout
    while any(p.alive() for p in procs) and time.monotonic() < deadline:
        time.sleep(0.1)
    bad = []
    for w, p in zip(ws, procs):
        if p.alive():
            p.stop(grace=1.0)
            bad.append(f"{w['name']}: still running after {a.timeout:.0f} s")
        elif p.poll() != 0:
            bad.append(f"{w['name']}: exit {p.poll()}: {p.tail(2)}")
    if bad:
        raise DemoError(f"{mode} run failed: " + "; ".join(bad))
    outs = []
    for w in ws:
        with open(os.path.join(outdir, f"{mode}-{w['rank']}.json")) as f:
            outs.append(json.load(f))
    return outs


def ulp(x):
    return 2.0 ** (math.floor(math.log2(x)) - 23) if x > 0 else 2.0**-149


def compare(ina, gloo, params_ina, params_gloo, world):
    """Everything the report and the verdict need, as one dict."""
    from ina import ddp
    steps = len(ina[0]["steps"])
    lr, mom = ina[0]["lr"], ina[0]["momentum"]
    loss = {m: [sum(o["steps"][t]["loss"] for o in outs) / len(outs) for t in range(steps)]
            for m, outs in (("ina", ina), ("gloo", gloo))}
    # A step takes as long as its slowest rank; the first (DDP's first
    # bucket pass) is left out.
    sps = {m: sum(max(o["steps"][t]["seconds"] for o in outs) for t in range(1, steps)) /
           max(1, steps - 1) for m, outs in (("ina", ina), ("gloo", gloo))}
    eps = []
    for t in range(steps):
        recs = [r for o in ina for r in o["steps"][t].get("records", [])]
        if not recs:
            raise DemoError(f"step {t}: the hook left no record (was it registered?)")
        eps.append(ddp.step_gradient_bound(recs, world))
    max_param = max(ina[0]["max_abs_param"], gloo[0]["max_abs_param"])
    carried = sum(lr / (1 - mom) * e for e in eps)
    bound = carried + 2 * ulp(max_param)
    diff = float((params_ina.double() - params_gloo.double()).abs().max())
    n_test = ina[0]["test_samples"]
    correct = {m: round(outs[0]["test_accuracy"] * n_test) for m, outs in (("ina", ina), ("gloo", gloo))}
    pred_diff = sum(1 for x, y in zip(ina[0]["predictions"], gloo[0]["predictions"]) if x != y)
    first = sorted({r["scale"] for r in ina[0]["steps"][0].get("records", [])})
    scales = sorted({r["scale"] for o in ina for s in o["steps"][1:] for r in s.get("records", [])})
    st = [o["worker"] for o in ina]
    return {
        "steps": steps, "world": world, "lr": lr, "momentum": mom,
        "loss_ina": loss["ina"], "loss_gloo": loss["gloo"],
        "seconds_per_step_ina": sps["ina"], "seconds_per_step_gloo": sps["gloo"],
        "max_param_diff": diff, "bound": bound, "bound_carried": carried,
        "bound_float32_params": 2 * ulp(max_param), "max_abs_param": max_param,
        "accuracy_ina": ina[0]["test_accuracy"], "accuracy_gloo": gloo[0]["test_accuracy"],
        "correct_ina": correct["ina"], "correct_gloo": correct["gloo"], "test_samples": n_test,
        "predictions_differ": pred_diff,
        "replicas_agree_ina": len({o["params_sha1"] for o in ina}) == 1,
        "replicas_agree_gloo": len({o["params_sha1"] for o in gloo}) == 1,
        "scale_first_step": first[0] if first else None,
        "scales": [min(scales), max(scales)] if scales else None,
        "fragments_per_worker": st[0]["fragments"],
        "switch_acks": min(s["switch_acks"] for s in st),
        "float_acks": max(s["float_acks"] for s in st),
        "retransmits": sum(s["retransmits"] for s in st),
        "transport": ina[0].get("transport"),
        # torchrun's run id per rank of each run (None: the rank was given)
        "torchrun_run_ids": {m: [o.get("torchrun_run_id") for o in outs] for m, outs in (("ina", ina), ("gloo", gloo))},
    }


def report(r, switch, ps):
    print(f"\n{'step':>4} {'loss gloo':>12} {'loss ina':>12} {'|diff|':>10}")
    for t, (lg, li) in enumerate(zip(r["loss_gloo"], r["loss_ina"])):
        print(f"{t:>4} {lg:>12.7f} {li:>12.7f} {abs(lg - li):>10.2e}")
    share = ps.get("share_in_network") if ps else None
    print(f"\nworkers {r['world']}, {r['steps']} steps, SGD lr {r['lr']} momentum {r['momentum']}; "
          f"ina transport {r['transport']}")
    print(f"seconds per step:   ina {r['seconds_per_step_ina']:.4f}   gloo "
          f"{r['seconds_per_step_gloo']:.4f}   (ina / gloo {r['seconds_per_step_ina'] / r['seconds_per_step_gloo']:.2f})")
    print(f"test accuracy:      ina {r['accuracy_ina']:.4f}   gloo {r['accuracy_gloo']:.4f}   "
          f"({r['correct_ina']} and {r['correct_gloo']} of {r['test_samples']}; "
          f"{r['predictions_differ']} predictions differ)")
    print(f"max |param diff|:   {r['max_param_diff']:.3e}   bound {r['bound']:.3e} "
          f"(gradient differences carried {r['bound_carried']:.3e} + float32 parameters "
          f"{r['bound_float32_params']:.3e}; ratio {r['max_param_diff'] / r['bound']:.3f})")
    sc = r["scales"]
    scales = (f"{r['scale_first_step']:g} at step 0, then 2^{math.log2(sc[0]):.0f} .. "
              f"2^{math.log2(sc[1]):.0f} (auto)") if sc else "-"
    pct = "-" if share is None else f"{100 * share:.1f}%"
    print(f"through the switch: {r['fragments_per_worker']} fragments per worker, {pct} "
          f"aggregated in the switch (PS), switch aggregations {switch.get('completed')}, "
          f"float fallbacks {r['float_acks']}, retransmits {r['retransmits']}, "
          f"scaling factors {scales}")


def verdict(r, switch, ps, min_accuracy):
    if not r["replicas_agree_ina"] or not r["replicas_agree_gloo"]:
        return "the ranks of one run ended with different parameters"
    if not r["max_param_diff"] <= r["bound"]:
        return f"parameter difference {r['max_param_diff']:.3g} above the bound {r['bound']:.3g}"
    if abs(r["correct_ina"] - r["correct_gloo"]) > 1:
        return (f"test accuracies differ: ina {r['accuracy_ina']:.4f}, gloo "
                f"{r['accuracy_gloo']:.4f}")
    if r["accuracy_gloo"] < min_accuracy:
        return (f"the model did not learn (test accuracy {r['accuracy_gloo']:.3f} < "
                f"{min_accuracy})")
    if not (ps and ps.get("share_in_network")) or not switch.get("completed"):
        return "nothing was aggregated in the switch"
    return None


def main():
    ap = cli.parser(os.environ.get("INA_DEMO_PROG", "ddp_demo.py"), __doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="meson build directory")
    ap.add_argument("--topology", default="single-rack", help="lab topology (config/labs/)")
    ap.add_argument("--driver", default=os.environ.get("INA_LAB_DRIVER", "auto"),
                    choices=["auto", "af_xdp", "af_packet"], help="DPDK driver of the switch ports")
    ap.add_argument("--host-transport", default="auto",
                    choices=["auto", "af_xdp", "af_packet", "udp"], help="packet I/O of ina-ps and the workers")
    ap.add_argument("--steps", type=int, default=200, help="training steps")
    ap.add_argument("--batch", type=int, default=32, help="batch size per worker")
    ap.add_argument("--lr", type=float, default=0.1, help="learning rate")
    ap.add_argument("--momentum", type=float, default=0.9, help="SGD momentum")
    ap.add_argument("--seed", type=int, default=1, help="random seed (same for both runs)")
    ap.add_argument("--scale", default="auto", help="'auto' or a fixed scaling factor")
    ap.add_argument("--min-accuracy", type=float, default=0.9,
                    help="test accuracy the gloo run must reach (the model learned)")
    ap.add_argument("--launcher", choices=["direct", "torchrun"], default="direct",
                    help="start each rank with its rank given (direct), or one torchrun per worker "
                         "namespace with c10d rendezvous on the first worker (torchrun)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per training run")
    ap.add_argument("--json", metavar="FILE", help="also write the comparison as JSON")
    ap.add_argument("--prefix", default=PREFIX, help="lab prefix")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("ddp: FAILED needs root (network namespaces, AF_XDP, hugepages)")
        return 2
    try:
        import torch
        import ina  # noqa: F401
        import sklearn  # noqa: F401
    except ImportError as e:
        print(f"ddp: FAILED {e} (scripts/deps.sh installs python3-torch, python3-sklearn; "
              "PYTHONPATH=BUILD/workerlib/python)")
        return 2
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _on_signal)
    build_dirs = [os.path.abspath(a.build)]
    env = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p and os.path.isdir(
        os.path.join(p, "ina")))}
    try:
        lab = labmod.Lab(a.prefix, log=log)
    except labmod.LabError as e:
        print(f"ddp: FAILED {e}")
        return 2
    outdir = os.path.join(lab.run.path, "ddp")
    why, r = None, None
    try:
        plan = labmod.load_plan(a.topology, os.path.join(ROOT, "config", "labs"), {})
        if len(plan["jobs"]) != 1:
            raise DemoError(f"topology {a.topology}: want one job, it has {len(plan['jobs'])}")
        lab.up(plan, driver=a.driver, build_dirs=build_dirs)
        # A run before this one in the same lab left its rank outputs and,
        # with torchrun, one log folder per worker: start from an empty folder.
        shutil.rmtree(outdir, ignore_errors=True)
        os.makedirs(outdir)
        ps = start_ps(lab, plan, build_dirs)
        t0 = time.monotonic()
        log(f"ddp: {a.steps} steps through the switch (ina.ddp hook)")
        ina_out = run_mode(lab, plan, "ina", a, outdir, env)
        t1 = time.monotonic()
        log(f"ddp: {a.steps} steps with gloo")
        gloo_out = run_mode(lab, plan, "gloo", a, outdir, env)
        t2 = time.monotonic()
        # The job's counters summed over the switches.
        switch = {}
        for sw in plan["switches"]:
            c = (lab.counters(sw["name"]).get("jobs") or {}).get(str(plan["jobs"][0]["id"])) or {}
            for k, v in c.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    switch[k] = switch.get(k, 0) + v
        ps.stop(grace=5.0)
        ps_json = jobs.last_json(ps.log_text()) or {}
        ps_stats = next((j for j in ps_json.get("jobs", []) if j.get("job") == plan["jobs"][0]["id"]),
                        None)
        r = compare(ina_out, gloo_out, torch.load(os.path.join(outdir, "ina.pt")),
                    torch.load(os.path.join(outdir, "gloo.pt")), len(ina_out))
        r["run_seconds_ina"], r["run_seconds_gloo"] = t1 - t0, t2 - t1
        r["switch"] = switch
        r["ps"] = ps_stats
        report(r, switch, ps_stats)
        why = verdict(r, switch, ps_stats, a.min_accuracy)
    except (DemoError, labmod.LabError, jobs.JobError, topology.TopologyError, netns.NetError) as e:
        why = str(e)
    except Interrupted as e:
        why = f"interrupted ({e})"
    except Exception as e:  # noqa: BLE001 (the last line must still be the verdict)
        traceback.print_exc()
        why = f"{type(e).__name__}: {e}"
    finally:
        try:
            lab.down(quiet=True)
        except labmod.LabError as e:
            log(f"ddp: cleanup: {e}")
    if a.json and r is not None:
        r["ok"], r["reason"] = why is None, why
        with open(a.json, "w") as f:
            json.dump(r, f, indent=1)
    print(f"logs in {lab.run.logs}, rank outputs in {outdir}")
    if why:
        print(f"ddp: FAILED {why}")
        return 1
    print("ddp: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
