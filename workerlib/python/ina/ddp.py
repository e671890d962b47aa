# SPDX-License-Identifier: BSD-3-Clause
"""A DistributedDataParallel communication hook that all-reduces every
gradient bucket through the INA switches and the PS instead of the process
group.

    import ina
    from ina import ddp
    model = torch.nn.parallel.DistributedDataParallel(net)   # gloo process group as usual
    ddp.register(model, ina.Worker.from_env())                # buckets now go through the switch

The process group is still used by DDP for what is not a gradient (the
initial broadcast of the parameters and buffers); every bucket is summed by
the worker library and divided by the world size, like DDP's own all-reduce.

Scaling factor (ATP §3.8, §B.3): with scale="auto" (default) each bucket is
quantized with a power of two chosen from that bucket's previous sum,
auto_scale(max|sum|, headroom): every worker holds the same sum, so every
worker picks the same factor without a message. The first round of a bucket
uses the worker's `scale` (1e8 unless configured). A sum that still
overflows int32 is finished by the PS in float32. A number gives a fixed
factor for every bucket.
"""
import math

import torch

from . import Worker, auto_scale

__all__ = ["HookState", "allreduce_hook", "register", "bucket_error_bound", "step_gradient_bound"]


class HookState:
    """What allreduce_hook needs: the worker, the world size, the scaling
    policy, and (record=True) one record per bucket all-reduce: bucket
    index, numel, the scale used, the largest |value| of the sum and of this
    worker's own gradients."""

    def __init__(self, worker, world_size=None, scale="auto", headroom=8.0, record=False):
        if not isinstance(worker, Worker):
            raise TypeError(f"ina.ddp: want an ina.Worker, got {type(worker).__name__}")
        if scale != "auto":
            try:
                scale = float(scale)
            except (TypeError, ValueError):
                raise ValueError(f"ina.ddp: scale must be 'auto' or a number, got {scale!r}") from None
            if not (scale > 0 and math.isfinite(scale)):
                raise ValueError(f"ina.ddp: scale must be positive and finite, got {scale!r}")
        if not (float(headroom) >= 1.0):
            raise ValueError(f"ina.ddp: headroom must be >= 1, got {headroom!r}")
        self.worker = worker
        self.world_size = int(world_size or worker.world_size)
        self.scale = scale
        self.headroom = float(headroom)
        self.default_scale = float(worker.config()["scale"])
        self.records = [] if record else None
        self._last = {}  # (bucket index, numel) -> largest |sum| of its last round

    def scale_for(self, key):
        if self.scale != "auto":
            return self.scale
        return auto_scale(self._last.get(key, 0.0), self.headroom, self.default_scale)

    def _done(self, key, scale, summed, local):
        m = float(summed.abs().max()) if summed.numel() else 0.0
        self._last[key] = m
        if self.records is not None:
            self.records.append({"bucket": key[0], "numel": key[1], "scale": scale,
                                 "max_abs_sum": m, "max_abs_local": local})
        return summed.div_(self.world_size)

    def take_records(self):
        """The records since the last call (record=True), oldest first."""
        if self.records is None:
            return []
        out, self.records = self.records, []
        return out


def allreduce_hook(state, bucket):
    """DDP comm hook: sum the bucket over the job through the switch, divide
    by the world size; returns a torch.futures.Future of the bucket."""
    buf = bucket.buffer()
    if buf.dtype != torch.float32:
        raise TypeError(f"ina.ddp: gradients must be float32, bucket {bucket.index()} is {buf.dtype}")
    key = (bucket.index(), buf.numel())
    scale = state.scale_for(key)
    local = float(buf.abs().max()) if state.records is not None and buf.numel() else 0.0
    work = state.worker.allreduce_async(buf, scale=scale)
    return work.get_future(then=lambda t: state._done(key, scale, t, local))


def register(model, worker=None, **state_args):
    """Registers allreduce_hook on a DistributedDataParallel model; returns
    its HookState. worker: an ina.Worker (default Worker.from_env())."""
    if not hasattr(model, "register_comm_hook"):
        raise TypeError("ina.ddp: register wants a torch.nn.parallel.DistributedDataParallel "
                        f"model, got {type(model).__name__}")
    if worker is None:
        worker = Worker.from_env()
    import torch.distributed as dist
    if dist.is_initialized() and dist.get_world_size() != worker.world_size:
        raise ValueError(f"ina.ddp: the process group has {dist.get_world_size()} ranks but the "
                         f"INA job has {worker.world_size} workers (bit / fan_in)")
    state = HookState(worker, **state_args)
    model.register_comm_hook(state, allreduce_hook)
    return state


def bucket_error_bound(record, world_size):
    """Largest error of one element of a bucket's average (a record of
    HookState(record=True)) against the exact average of the workers' float32
    gradients, for fragments summed as integers: every worker rounds its
    value to a multiple of 1/scale (<= 0.5/scale each, n of them, then
    divided by n), the int32 sum's conversion to float32 (<= |sum| 2^-24,
    divided by n), and the division by n when n is not a power of two
    (<= |avg| 2^-24). Fragments that overflowed were summed by the PS in
    float32 instead (Worker.stats()["float_acks"] counts them)."""
    n = int(world_size)
    m = float(record["max_abs_sum"])
    b = 0.5 / float(record["scale"]) + m * 2.0**-24 / n
    if n & (n - 1):
        b += m / n * 2.0**-24
    return b


def step_gradient_bound(records, world_size):
    """Largest difference, for one training step, between an element of the
    averaged gradient this hook delivers and the one DDP's own gloo
    all-reduce delivers from the same local gradients: bucket_error_bound
    (ours against the exact average) plus gloo's float32 rounding against
    it, (n - 1) 2^-24 max_i |g_i| (n - 1 additions of values g_i / n, each
    partial sum at most sum_i |g_i| / n <= max_i |g_i|). `records`: that
    step's records of every rank (max_abs_local differs per rank)."""
    n = int(world_size)
    if not records:
        return 0.0
    ours = max(bucket_error_bound(r, n) for r in records)
    local = max(float(r.get("max_abs_local", 0.0)) for r in records)
    return ours + (n - 1) * 2.0**-24 * local
