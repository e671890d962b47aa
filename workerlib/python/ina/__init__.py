# SPDX-License-Identifier: BSD-3-Clause
"""ina: all-reduce through in-network aggregation switches (ATP) from Python.

    import ina
    w = ina.Worker(job=1, rank=r, world_size=4, ps="10.18.1.1/02:18:00:00:01:01",
                   device="eth0")
    w.allreduce(t)                      # t: float32 CPU tensor (or numpy array), summed in place
    work = w.allreduce_async(t)         # several may be in flight; same order on every worker
    work.wait()                         # or work.get_future(): a torch.futures.Future

    from ina import ddp
    ddp.register(model, w)              # a DistributedDataParallel model's buckets go through
                                        # the switch (docs/pytorch.md)

Every worker of a job must submit the same tensors (same sizes) in the same
order. Values are sent as int32 (x * scale, rounded; ATP §3.8): the sum of n
workers is off by at most n / (2 * scale) plus the float rounding of the sum
(|sum| * 2^-24). A sum that overflows int32 in a switch is finished by the PS
in float32 (the workers resend those fragments as floats). NaN inputs are
sent as 0.

Errors: a bad config key or value raises ValueError, a tensor that is not a
contiguous float32 CPU tensor TypeError, a worker that cannot open or an
all-reduce that fails (no PS, job not served, stall) ina.Error.
"""
import math
import os
import queue
import threading

from ._ina import Error  # noqa: F401  (a RuntimeError)
from ._ina import Worker as _Worker
from ._version import __version__  # noqa: F401  (the project's version)

__all__ = ["Error", "Worker", "Work", "config_keys_from_env", "auto_scale", "__version__"]

# Keys of ina::set_config_key (docs/worker.md, "Configuration"); `rank` is
# Worker's own argument.
CONFIG_KEYS = (
    "job", "epoch", "levels", "start_level", "bit", "fan_in", "ps", "next_hop_mac", "transport",
    "device", "eal_args", "ip", "udp_port", "udp_gso", "drop", "duplicate", "reorder", "seed", "elements",
    "aggregators", "cc", "scale", "agg_node", "goat", "goat_aggregators", "threads", "initial_window", "min_window",
    "max_window", "ssthresh", "ps_window", "a2tp_w", "a2tp_g", "a2tp_h", "a2tp_gamma_smoothing",
    "initial_acw", "a2tp_round_us", "a2tp_flows", "min_rto_us", "max_rto_us",
    "initial_rto_us", "max_backoff", "timeout_burst", "recovery", "reorder_window_pct", "delay_target_us",
    "window_capacity", "stall_timeout_ms", "ps_query_timeout_ms",
)

INT32_MAX = 2**31 - 1


def _text(key, v):
    if isinstance(v, bool):
        raise ValueError(f"ina: bad value {v!r} for worker config key '{key}'")
    if isinstance(v, (list, tuple)):
        return ",".join(_text(key, x) for x in v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def config_keys_from_env(environ=None):
    """The worker config keys set as INA_<KEY> environment variables
    (INA_JOB=1, INA_PS=10.18.1.1/02:..., INA_DEVICE=eth0, ...)."""
    env = os.environ if environ is None else environ
    return {k: env["INA_" + k.upper()] for k in CONFIG_KEYS if "INA_" + k.upper() in env}


class Worker:
    """A worker of an INA job: opens the transport and the sender threads.

    Keyword arguments are the worker library's config keys (docs/worker.md):
    job, ps ("IP[/MAC],..."), device, ip, transport, levels, bit, fan_in,
    scale, elements (default "auto": the job's size, asked of the PS),
    aggregators, cc, stall_timeout_ms, ... Lists may be
    given for the per-level keys. With `world_size` (and `rank`) and no
    `bit` / `fan_in`, the job is one switch level: bit = rank,
    fan_in = world_size.
    """

    def __init__(self, *, rank=0, world_size=None, **keys):
        for k in keys:
            if k not in CONFIG_KEYS:
                raise ValueError(f"ina: unknown worker config key '{k}' "
                                 f"(keys: {', '.join(CONFIG_KEYS)})")
        if not isinstance(rank, int) or isinstance(rank, bool) or rank < 0:
            raise ValueError(f"ina: rank must be a non-negative integer, got {rank!r}")
        if "ps" not in keys:
            raise ValueError("ina: no PS address: give ps='IP[/MAC]' (or INA_PS with from_env)")
        if world_size is not None:
            try:
                multi = int(keys.get("levels", 1)) > 1
            except (TypeError, ValueError):
                multi = False  # the library rejects the value below, naming the key
            top = 1 << 20 if multi else 32  # one level: the fan-in is the world size
            if not isinstance(world_size, int) or not 1 <= world_size <= top or rank >= world_size:
                raise ValueError(f"ina: need 0 <= rank < world_size <= {top}, got rank {rank}, "
                                 f"world_size {world_size!r}")
            if multi and not ("bit" in keys and "fan_in" in keys):
                raise ValueError("ina: a job of several levels needs bit and fan_in per level "
                                 "(comma lists, as scripts/lab derives them)")
            keys.setdefault("bit", rank)
            keys.setdefault("fan_in", world_size)
        pairs = [("rank", str(rank))] + [(k, _text(k, v)) for k, v in keys.items()]
        self._w = _Worker(pairs)
        self.rank = rank
        cfg = self._w.config()
        if world_size is None:
            world_size = 1
            for i in range(cfg["levels"]):
                world_size *= max(1, cfg["fan_in"][i])
        self.world_size = world_size
        self._completer = None
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls, rank=None, world_size=None, **keys):
        """A worker configured from INA_<KEY> environment variables; rank
        and world size from the arguments, else torch.distributed (when
        initialized), else RANK / WORLD_SIZE."""
        if rank is None or world_size is None:
            r, n = _dist_rank_world()
            rank = r if rank is None else rank
            world_size = n if world_size is None else world_size
        merged = config_keys_from_env()
        merged.update(keys)
        return cls(rank=rank, world_size=world_size, **merged)

    # ---- all-reduce ---------------------------------------------------

    def allreduce(self, tensor, scale=None):
        """Sums `tensor` over the job's workers, in place; returns it."""
        self._w.allreduce(_buffer(tensor), _scale(scale))
        return tensor

    def allreduce_async(self, tensor, scale=None):
        """Starts an all-reduce of `tensor` (kept alive until done); returns
        a Work. Their futures complete in the order of submission."""
        return Work(self, self._w.allreduce_async(_buffer(tensor), _scale(scale)), tensor)

    # ---- the rest -----------------------------------------------------

    def stats(self):
        """Counters of the library (ina::WorkerStats) as a dict."""
        return self._w.stats()

    def config(self):
        return self._w.config()

    @property
    def transport(self):
        return self._w.transport()

    def close(self):
        """Stops the sender threads. All-reduces still in flight fail
        ("worker closed"), and so do their futures."""
        self._w.close()
        with self._lock:
            c, self._completer = self._completer, None
        if c:
            c.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _complete(self, work, fn, fut):
        """Runs fn() once `work` is done and sets `fut` to its value (one
        thread per worker, in submission order)."""
        with self._lock:
            if self._completer is None:
                if self._w.closed():
                    raise Error("ina: the worker is closed")
                self._completer = _Completer()
            c = self._completer
        c.put(work, fn, fut)


class Work:
    """An all-reduce in flight (Worker.allreduce_async)."""

    def __init__(self, worker, handle, tensor):
        self._worker, self._h, self.tensor = worker, handle, tensor

    def is_completed(self):
        return self._h.done()

    def wait(self, timeout=None):
        """Waits until done and returns the tensor (None if `timeout`
        seconds passed first); raises ina.Error if the all-reduce failed."""
        if not self._h.wait(-1.0 if timeout is None else float(timeout)):
            return None
        return self.tensor

    def get_future(self, then=None):
        """A torch.futures.Future set to the tensor (or to then(tensor))
        once the all-reduce is done, or to the error."""
        import torch
        fut = torch.futures.Future()
        t = self.tensor
        self._worker._complete(self._h, (lambda: then(t)) if then else (lambda: t), fut)
        return fut


class _Completer:
    """One daemon thread that waits for handles in submission order and
    completes their futures (a handle's wait releases the GIL)."""

    def __init__(self):
        self.q = queue.Queue()
        self.t = threading.Thread(target=self._run, name="ina-completer", daemon=True)
        self.t.start()

    def put(self, handle, fn, fut):
        self.q.put((handle, fn, fut))

    def stop(self):
        self.q.put(None)
        self.t.join(timeout=5.0)

    def _run(self):
        while True:
            item = self.q.get()
            if item is None:
                return
            handle, fn, fut = item
            try:
                handle.wait(-1.0)
                value = fn()
            except BaseException as e:  # noqa: BLE001 (handed to the future's waiter)
                fut.set_exception(e)
                continue
            fut.set_result(value)


def auto_scale(max_abs_sum, headroom=8.0, default=1e8):
    """A power-of-two scaling factor for a tensor whose last sum over the job
    had largest magnitude `max_abs_sum`: the int32 range holds `headroom`
    times that (partial sums and single workers' values may exceed the final
    sum; what still overflows goes the PS's float path). Every worker gets
    the same factor from the same sum. `default` when there is no usable
    sum (first round, all zero, not finite)."""
    if not (max_abs_sum > 0 and math.isfinite(max_abs_sum)):
        return float(default)
    e = math.floor(math.log2(INT32_MAX / (float(headroom) * float(max_abs_sum))))
    return float(2.0 ** max(-16, min(48, e)))


def _scale(scale):
    if scale is None:
        return 0.0
    try:
        s = float(scale)
    except (TypeError, ValueError):
        raise ValueError(f"ina: scale must be a positive number, got {scale!r}") from None
    if not (s > 0 and math.isfinite(s)):
        raise ValueError(f"ina: scale must be a positive finite number, got {scale!r}")
    return s


def _buffer(t):
    """A writable float32 buffer sharing memory with t (torch or numpy)."""
    torch = _torch_if_tensor(t)
    if torch is not None:
        if t.dtype != torch.float32:
            raise TypeError(f"ina: all-reduce takes float32 tensors, got {t.dtype}")
        if t.device.type != "cpu":
            raise TypeError(f"ina: all-reduce takes CPU tensors, got one on {t.device}")
        if t.layout != torch.strided:
            raise TypeError(f"ina: all-reduce takes dense tensors, got {t.layout}")
        if not t.is_contiguous():
            raise TypeError("ina: the tensor must be contiguous (call .contiguous() first)")
        return t.detach().numpy()
    try:
        memoryview(t)
    except TypeError:
        raise TypeError("ina: all-reduce takes a float32 torch.Tensor or numpy array, got "
                        f"{type(t).__name__}") from None
    return t


def _torch_if_tensor(t):
    mod = type(t).__module__ or ""
    if not mod.startswith("torch"):
        return None
    import torch
    return torch if isinstance(t, torch.Tensor) else None


def _dist_rank_world():
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
    except ImportError:
        pass
    try:
        return int(os.environ.get("RANK", "0")), int(os.environ["WORLD_SIZE"])
    except (KeyError, ValueError):
        raise ValueError("ina: rank and world size unknown: pass them, initialize "
                         "torch.distributed, or set RANK and WORLD_SIZE") from None
