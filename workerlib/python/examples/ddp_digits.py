#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One rank of a small DistributedDataParallel training run: an MLP
(64-128-10) on scikit-learn's digits (8x8 images, 10 classes, shipped with
python3-sklearn), gradients all-reduced either by DDP's own gloo all-reduce
or through the INA switch with ina.ddp's communication hook.

    ddp_digits.py --mode ina|gloo --rank R --world N --master IP:PORT
                  [--ps IP/MAC --ip IP --device eth0 --job 1 --bit B --fan-in N ...]
                  [--steps 100 --batch 32 --lr 0.1 --momentum 0.9 --seed 1]
                  --out FILE.json [--params FILE.pt]
    torchrun --nnodes N --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint IP:PORT \
        ddp_digits.py --mode ina|gloo [--ps ... --bit B ...] --out DIR/ina-{rank}.json

Without --rank, --world and --master it is one process of torchrun: rank,
world size and the rendezvous come from torchrun's environment (RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT), and "{rank}" in --out is replaced by
the rank. A rank is then the order the nodes joined, not a host's: each node
gives its own --bit (its IP's bit in the job) where the default (bit = rank)
would not match the job the PS registered.

Both modes start from the same parameters (seed), see the same batches (one
permutation of the training set per epoch from the seed; rank r takes its
slice of each global batch) and run the same optimizer, so their results
differ only by how the gradients were summed. Writes FILE.json: per-step
local loss and seconds, the hook's per-step records (ina), test accuracy and
predictions, a checksum of the final parameters, the worker's counters;
rank 0 saves the final parameters to --params.

scripts/ddp-demo.sh runs it in the lab (scripts/ddp_demo.py).
"""
import argparse
import datetime
import hashlib
import json
import os
import sys
import time

TEST_SHARE = 0.2


def load_digits_split(seed):
    """Digits as float32 in [0, 1]; a fixed 80/20 train/test split."""
    import numpy as np
    import torch
    from sklearn.datasets import load_digits
    d = load_digits()
    x = torch.tensor(d.data.astype(np.float32) / 16.0)
    y = torch.tensor(d.target, dtype=torch.long)
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    n_test = int(len(x) * TEST_SHARE)
    te, tr = perm[:n_test], perm[n_test:]
    return x[tr], y[tr], x[te], y[te]


def model(seed, hidden=128):
    import torch
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, 10))


def batches(n_train, world, batch, steps, seed):
    """Per step, the global batch's indices (rank r: [r*batch, (r+1)*batch))."""
    import torch
    g = torch.Generator().manual_seed(seed + 1)
    glob = world * batch
    order, pos = torch.randperm(n_train, generator=g), 0
    for _ in range(steps):
        if pos + glob > n_train:
            order, pos = torch.randperm(n_train, generator=g), 0
        yield order[pos:pos + glob]
        pos += glob


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=["ina", "gloo"], required=True)
    ap.add_argument("--rank", type=int, help="this rank (default: torchrun's RANK)")
    ap.add_argument("--world", type=int, help="ranks (default: torchrun's WORLD_SIZE)")
    ap.add_argument("--master", help="IP:PORT of rank 0 (gloo rendezvous; default: torchrun's "
                                     "MASTER_ADDR:MASTER_PORT)")
    ap.add_argument("--iface", default="eth0", help="gloo's interface")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--batch", type=int, default=32, help="samples per rank and step")
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--params")
    # ina worker config (docs/worker.md keys)
    ap.add_argument("--job", type=int, default=1)
    ap.add_argument("--epoch", default="auto",
                    help="the job's run, or auto: the one the PS answers (docs/protocol.md, Epochs)")
    ap.add_argument("--ps", help="PS as IP/MAC")
    ap.add_argument("--ip")
    ap.add_argument("--device", default="eth0")
    ap.add_argument("--transport", default="auto")
    ap.add_argument("--levels", type=int, default=1)
    ap.add_argument("--start-level", type=int, default=0)
    ap.add_argument("--bit", help="per level, comma separated (default: rank)")
    ap.add_argument("--fan-in", help="per level, comma separated (default: world)")
    ap.add_argument("--elements", default="auto",
                    help="values per fragment, or auto: the job's size, asked of the PS")
    ap.add_argument("--aggregators", type=int, default=4096)
    ap.add_argument("--scale", default="auto", help="'auto' or a fixed scaling factor")
    a = ap.parse_args()

    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = a.iface
    timeout = datetime.timedelta(seconds=120)
    given = [a.rank is not None, a.world is not None, a.master is not None]
    if all(given):
        dist.init_process_group("gloo", init_method=f"tcp://{a.master}", rank=a.rank,
                                world_size=a.world, timeout=timeout)
    elif not any(given) and "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        dist.init_process_group("gloo", init_method="env://", timeout=timeout)  # torchrun's
        a.rank, a.world = dist.get_rank(), dist.get_world_size()
        a.master = None
    else:
        print("ddp_digits: give --rank, --world and --master, or none of them under torchrun "
              "(RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)", file=sys.stderr)
        return 2
    a.out = a.out.replace("{rank}", str(a.rank))
    xtr, ytr, xte, yte = load_digits_split(a.seed)
    ddp_model = DDP(model(a.seed))
    worker = state = None
    if a.mode == "ina":
        import ina
        from ina import ddp
        if not a.ps:
            print("ddp_digits: --mode ina needs --ps IP/MAC", file=sys.stderr)
            return 2
        keys = dict(job=a.job, epoch=a.epoch, ps=a.ps, device=a.device, transport=a.transport,
                    levels=a.levels, start_level=a.start_level, elements=a.elements,
                    aggregators=a.aggregators, stall_timeout_ms=30000)
        if a.ip:
            keys["ip"] = a.ip
        if a.bit:
            keys["bit"] = a.bit
        if a.fan_in:
            keys["fan_in"] = a.fan_in
        worker = ina.Worker(rank=a.rank, world_size=a.world, **keys)
        state = ddp.register(ddp_model, worker, record=True, scale=a.scale)
    opt = torch.optim.SGD(ddp_model.parameters(), lr=a.lr, momentum=a.momentum)
    loss_fn = torch.nn.CrossEntropyLoss()
    out = {"mode": a.mode, "rank": a.rank, "world": a.world, "steps": [],
           "lr": a.lr, "momentum": a.momentum,
           # who gave the rank: torchrun's agent (its run id), or the command line
           "torchrun_run_id": os.environ.get("TORCHELASTIC_RUN_ID") if a.master is None else None}
    dist.barrier()
    for step, idx in enumerate(batches(len(xtr), a.world, a.batch, a.steps, a.seed)):
        mine = idx[a.rank * a.batch:(a.rank + 1) * a.batch]
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = loss_fn(ddp_model(xtr[mine]), ytr[mine])
        loss.backward()
        opt.step()
        secs = time.perf_counter() - t0
        rec = {"step": step, "loss": float(loss), "seconds": secs}
        if state is not None:
            rec["records"] = state.take_records()
        out["steps"].append(rec)
    with torch.no_grad():
        pred = ddp_model(xte).argmax(1)
    out["test_accuracy"] = float((pred == yte).float().mean())
    out["test_samples"] = len(yte)
    out["predictions"] = pred.tolist()
    flat = torch.cat([p.detach().reshape(-1) for p in ddp_model.parameters()])
    out["params_sha1"] = hashlib.sha1(flat.numpy().tobytes()).hexdigest()
    out["max_abs_param"] = float(flat.abs().max())
    if a.rank == 0 and a.params:
        torch.save(flat, a.params)
    if worker is not None:
        out["worker"] = worker.stats()
        out["transport"] = worker.transport
    dist.barrier()
    if worker is not None:
        worker.close()
    dist.destroy_process_group()
    with open(a.out, "w") as f:
        json.dump(out, f)
    print(f"ddp_digits: rank {a.rank} {a.mode}: {a.steps} steps, test accuracy "
          f"{out['test_accuracy']:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
