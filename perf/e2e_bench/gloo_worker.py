#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One rank of the gloo baseline of perf/e2e_bench: torch.distributed
all_reduce (gloo over TCP) of a float32 tensor, in a lab worker's namespace,
through the same ina-switchd that forwards it as plain IPv4.

    gloo_worker.py --rank R --world W --master IP:PORT --floats N

Rank r's tensor is (r + 1) * base with base[i] = ((i % 2001) - 1000) * 1e-4,
so every rank knows the exact sum. Prints one JSON line: seconds (the timed
all_reduce, after a warm-up and a barrier), correct, max_abs_error.
"""
import argparse
import json
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--world", type=int, required=True)
    ap.add_argument("--master", required=True, help="IP:PORT of rank 0")
    ap.add_argument("--floats", type=int, required=True)
    ap.add_argument("--iface", default="eth0")
    a = ap.parse_args()
    import torch
    import torch.distributed as dist

    os.environ["GLOO_SOCKET_IFNAME"] = a.iface
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://{a.master}", rank=a.rank,
                            world_size=a.world, timeout=__import__("datetime").timedelta(seconds=120))
    base = (torch.arange(a.floats, dtype=torch.float64) % 2001 - 1000) * 1e-4
    t = (base * (a.rank + 1)).to(torch.float32)
    warm = torch.ones(1024)
    dist.all_reduce(warm)
    dist.barrier()
    t0 = time.monotonic()
    dist.all_reduce(t)
    secs = time.monotonic() - t0
    want = base * (a.world * (a.world + 1) / 2)
    err = float((t.to(torch.float64) - want).abs().max())
    # float32 sums of W terms: a few ulps of the largest partial sum.
    bound = float(want.abs().max()) * a.world * 2.0 ** -23 + 1e-7
    print(json.dumps({"rank": a.rank, "seconds": secs, "max_abs_error": err, "bound": bound,
                      "correct": err <= bound}), flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
