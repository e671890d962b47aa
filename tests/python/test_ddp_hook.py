#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""ina.ddp's communication hook against gloo on a tiny model: four ranks
(processes), a gloo process group on a private loopback, a real ina-ps.

Each rank holds two copies of the same model, one DistributedDataParallel
with the ina hook and one with DDP's own gloo all-reduce, and feeds both the
same batches.

- lock step (6 steps): before every step the ina copy takes the gloo copy's
  parameters, so both compute their local gradients from the same point;
  the averaged gradients must then agree within the quantization bound
  (ina.ddp.bucket_error_bound for each bucket, from the scaling factor the
  hook used) plus gloo's own float32 rounding ((n-1) 2^-24 sum_i |g_i| / n,
  sum_i |g_i| all-reduced over gloo). Steps 2 on use the automatic scaling
  factor chosen from the previous sum, identical at every rank.
- free running (12 steps, SGD with momentum): the two copies train apart;
  per-step losses must agree to 1e-4 and the final parameters within the
  bound scripts/ddp-demo.sh states (sum over steps of lr / (1 - momentum)
  times ina.ddp.step_gradient_bound, plus two float32 ulps).
- overflow: with a fixed scale of 1e8 and gradients 1000 times larger the
  int32 sums overflow, the PS finishes them in float32, and the result
  still matches gloo within two float32 summations;
- the hook rejects a non-float32 bucket with a TypeError from backward.

usage: test_ddp_hook.py            (spawns its ranks: test_ddp_hook.py --rank R ...)
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

N = 4
JOB = 21


def rank_main(a):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    import ina
    from ina import ddp

    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", init_method=f"tcp://{a.master}", rank=a.rank, world_size=N)
    worker = ina.Worker(job=JOB, rank=a.rank, world_size=N, ps=a.ps, transport="udp",
                        ip=a.ip, stall_timeout_ms=20000)

    def net():
        torch.manual_seed(1)
        return torch.nn.Sequential(torch.nn.Linear(12, 24), torch.nn.Tanh(), torch.nn.Linear(24, 5))

    g = torch.Generator().manual_seed(100 + a.rank)
    batches = [(torch.randn(16, 12, generator=g), torch.randint(0, 5, (16,), generator=g))
               for _ in range(12)]
    loss_fn = torch.nn.CrossEntropyLoss()
    out = {"rank": a.rank, "lockstep": [], "free": []}

    # ---- lock step ----
    m_gloo, m_ina = DDP(net()), DDP(net())
    state = ddp.register(m_ina, worker, record=True)
    opt = torch.optim.SGD(m_gloo.parameters(), lr=0.2)
    local = net()
    for step, (x, y) in enumerate(batches[:6]):
        with torch.no_grad():
            for pi, pg, pl in zip(m_ina.parameters(), m_gloo.parameters(), local.parameters()):
                pi.copy_(pg)
                pl.copy_(pg)
        for m in (m_gloo, m_ina, local):
            m.zero_grad()
            loss_fn(m(x), y).backward()
        # sum_i |g_i| over the ranks (gloo), for gloo's rounding bound.
        abs_sum = [p.grad.abs() for p in local.parameters()]
        for t in abs_sum:
            dist.all_reduce(t)
        recs = state.take_records()
        assert len(recs) >= 1, "the hook was not called"
        b_ina = max(ddp.bucket_error_bound(r, N) for r in recs)
        worst = 0.0
        for pi, pg, s in zip(m_ina.parameters(), m_gloo.parameters(), abs_sum):
            diff = (pi.grad.double() - pg.grad.double()).abs()
            bound = b_ina + (N - 1) * 2.0**-24 * s.double() / N + 1e-30
            ratio = float((diff / bound).max())
            worst = max(worst, ratio)
            assert ratio <= 1.0, (f"rank {a.rank} step {step}: gradient difference "
                                  f"{float(diff.max()):.3g} beyond the bound (ratio {ratio:.2f})")
        out["lockstep"].append({"step": step, "scales": [r["scale"] for r in recs],
                                "bound_ina": b_ina, "worst_ratio": worst})
        opt.step()

    # ---- overflow: a fixed scale of 1e8 and gradients 1000 times larger ----
    # Sums beyond int32: the PS asks for the floats and sums them; the
    # result must still match gloo within two float32 summations.
    m_gloo, m_ina = DDP(net()), DDP(net())
    ddp.register(m_ina, worker, scale=1e8)
    local = net()
    floats_before = worker.stats()["float_acks"]
    x, y = batches[0]
    for m in (m_gloo, m_ina, local):
        m.zero_grad()
        (1000.0 * loss_fn(m(x), y)).backward()
    abs_sum = [p.grad.abs() for p in local.parameters()]
    for t in abs_sum:
        dist.all_reduce(t)
    worst = 0.0
    for pi, pg, s in zip(m_ina.parameters(), m_gloo.parameters(), abs_sum):
        diff = (pi.grad.double() - pg.grad.double()).abs()
        ratio = float((diff / (2 * (N - 1) * 2.0**-24 * s.double() / N + 1e-30)).max())
        worst = max(worst, ratio)
    out["overflow"] = {"float_acks": worker.stats()["float_acks"] - floats_before,
                       "worst_ratio": worst,
                       "largest_grad": max(float(p.grad.abs().max()) for p in m_gloo.parameters())}

    # ---- free running ----
    m_gloo, m_ina = DDP(net()), DDP(net())
    state = ddp.register(m_ina, worker, record=True)
    lr, mom = 0.1, 0.9
    opts = [torch.optim.SGD(m.parameters(), lr=lr, momentum=mom) for m in (m_gloo, m_ina)]
    for step, (x, y) in enumerate(batches):
        losses = []
        for m, o in zip((m_gloo, m_ina), opts):
            o.zero_grad()
            loss = loss_fn(m(x), y)
            loss.backward()
            o.step()
            losses.append(float(loss))
        out["free"].append({"step": step, "loss_gloo": losses[0], "loss_ina": losses[1],
                            "records": state.take_records()})
    diff = max(float((pi - pg).abs().max()) for pi, pg in zip(m_ina.parameters(),
                                                              m_gloo.parameters()))
    out["param_diff"] = diff
    out["lr"], out["momentum"] = lr, mom
    out["max_abs_param"] = max(float(p.abs().max()) for p in m_gloo.parameters())
    out["stats"] = {k: v for k, v in worker.stats().items()
                    if k in ("tensors", "fragments", "float_acks", "retransmits")}

    # ---- a half-precision bucket is refused ----
    m_half = DDP(net().double())
    ddp.register(m_half, worker)
    try:
        m_half(batches[0][0].double()).sum().backward()
        out["double_refused"] = "no error"
    except TypeError as e:
        out["double_refused"] = str(e)
    except RuntimeError as e:  # DDP may wrap the hook's exception
        out["double_refused"] = str(e)
    dist.barrier()
    worker.close()
    dist.destroy_process_group()
    print("RESULT " + json.dumps(out), flush=True)
    return 0


def main():
    harness.need_torch()
    harness.need_ina()
    net = harness.private_network()
    ps_ip = f"{net}.1"
    ips = [f"{net}.{10 + r}" for r in range(N)]
    master = f"{ps_ip}:{29600 + os.getpid() % 300}"
    t0 = time.monotonic()
    with harness.Ps(ps_ip, JOB, ips) as ps:
        procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--rank", str(r),
                                   "--master", master, "--ps", ps_ip, "--ip", ips[r]],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for r in range(N)]
        outs = []
        for r, p in enumerate(procs):
            try:
                text, _ = p.communicate(timeout=240)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                raise AssertionError(f"rank {r} timed out")
            if p.returncode != 0:
                raise AssertionError(f"rank {r} exit {p.returncode}:\n{text[-3000:]}")
            line = [ln for ln in text.splitlines() if ln.startswith("RESULT ")]
            assert line, f"rank {r}: no result:\n{text[-2000:]}"
            outs.append(json.loads(line[-1][7:]))
        ps_stats = ps.stop()
    for o in outs:
        for s in o["lockstep"]:
            print(f"rank {o['rank']} lock step {s['step']}: scales {s['scales']}, "
                  f"ina bound {s['bound_ina']:.3g}, worst diff/bound {s['worst_ratio']:.3f}")
    # Every rank used the same scaling factors (they come from identical sums).
    for o in outs:
        assert [s["scales"] for s in o["lockstep"]] == [s["scales"] for s in outs[0]["lockstep"]], \
            "ranks chose different scaling factors"
    scales = [s["scales"][0] for s in outs[0]["lockstep"]]
    assert scales[0] == 1e8 and all(s != 1e8 for s in scales[1:]), scales
    for st in outs[0]["free"]:
        print(f"step {st['step']:2d}: loss gloo {st['loss_gloo']:.7f}  ina {st['loss_ina']:.7f}")
    # The bound scripts/ddp-demo.sh states (scripts/ddp_demo.py):
    # every step's gradient bound (all ranks' records) carried into the
    # parameters by SGD with momentum, plus two float32 ulps of the largest
    # parameter.
    from ina import ddp
    lr, mom = outs[0]["lr"], outs[0]["momentum"]
    carried = sum(lr / (1 - mom) * ddp.step_gradient_bound(
        [r for o in outs for r in o["free"][t]["records"]], N) for t in range(len(outs[0]["free"])))
    top = max(o["max_abs_param"] for o in outs)
    bound = carried + 2 * 2.0 ** (math.floor(math.log2(top)) - 23)
    for o in outs:
        for st in o["free"]:
            assert abs(st["loss_gloo"] - st["loss_ina"]) <= 1e-4 * max(1.0, st["loss_gloo"]), st
        print(f"rank {o['rank']}: largest parameter difference {o['param_diff']:.3g}, "
              f"bound {bound:.3g}; {o['stats']}")
        assert o["param_diff"] <= bound, (o["param_diff"], bound)
        assert "float32" in o["double_refused"], o["double_refused"]
        ov = o["overflow"]
        print(f"rank {o['rank']}: overflow step: {ov['float_acks']} float fragments, largest "
              f"gradient {ov['largest_grad']:.3g}, worst diff/bound {ov['worst_ratio']:.3f}")
        assert ov["float_acks"] > 0, ov
        assert ov["worst_ratio"] <= 1.0, ov
    assert ps_stats and ps_stats["completed"] == outs[0]["stats"]["fragments"], ps_stats
    print(f"ddp hook: OK ({time.monotonic() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    if "--rank" in sys.argv:
        ap = argparse.ArgumentParser()
        ap.add_argument("--rank", type=int, required=True)
        ap.add_argument("--master", required=True)
        ap.add_argument("--ps", required=True)
        ap.add_argument("--ip", required=True)
        sys.exit(rank_main(ap.parse_args()))
    sys.exit(main())
