#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One rank of the gloo baseline of perf/e2e_bench: torch.distributed
all_reduce (gloo over TCP) of a float32 tensor, in a lab worker's namespace,
through the same ina-switchd that forwards it as plain IPv4.

    gloo_worker.py --rank R --world W --master IP:PORT --size BYTES

Rank r's tensor is (r + 1) * base with base[i] = ((i % 2001) - 1000) * 1e-4,
so every rank knows the exact sum. Prints one JSON line: seconds (the timed
all_reduce, after a warm-up and a barrier), correct, max_abs_error.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import pythonpath  # noqa: E402,F401  (the project's Python folders)
from lablib import cli  # noqa: E402


def main():
    ap = cli.parser("gloo_worker.py", __doc__)
    ap.add_argument("--rank", type=int, required=True, help="this rank (0..world-1)")
    ap.add_argument("--world", type=int, required=True, help="ranks in the group")
    ap.add_argument("--master", required=True, help="IP:PORT of rank 0")
    ap.add_argument("--size", type=cli.size_arg, required=True,
                    help="float32 tensor bytes (K, M, G = KiB, MiB, GiB)")
    ap.add_argument("--iface", default="eth0", help="interface gloo uses")
    cli.refuse_old("gloo_worker.py", sys.argv[1:], {"--floats": "use --size BYTES (4 per float: --size 1M)"})
    a = ap.parse_args()
    a.floats = max(1, a.size // 4)
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
