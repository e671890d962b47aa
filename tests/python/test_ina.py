#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The Python package ina over a real ina-ps (UDP on a private loopback):
four ina.Worker objects in this process are the four workers of a job.

- all-reduce of known tensors (torch and numpy, empty to many fragments,
  not multiples of a fragment) is exact within the quantization bound;
- several all-reduces in flight, waited in any order; futures;
- a per-tensor scale; auto_scale; int32 overflow goes the PS's float path;
- errors: bad config keys and values (ValueError), tensors that are not
  contiguous float32 CPU ones (TypeError), no PS and a job the PS does not
  serve (ina.Error after the stall timeout, naming the job), a closed
  worker.

usage: test_ina.py [unittest args]    (PYTHONPATH and INA_PS_BIN from meson)
"""
import os
import signal
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

harness.need_torch()
harness.need_ina()
NET = harness.private_network()

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ina  # noqa: E402

N = 4
PS_IP = f"{NET}.1"
IPS = [f"{NET}.{10 + r}" for r in range(N)]


def bound(sums, scale, n=N):
    """ina's error bound: n roundings to 1/scale, then float32 rounding of
    the sum."""
    return n * 0.5 / scale + np.abs(sums) * 2.0**-24


# Workers without a PS: a named size stands once the job query timed out.
NO_PS = dict(elements=62, ps_query_timeout_ms=200)


def open_workers(job, ips=IPS, ps=PS_IP, **keys):
    return [ina.Worker(job=job, rank=r, world_size=len(ips), ps=ps, transport="udp", ip=ip,
                       **keys) for r, ip in enumerate(ips)]


def reduce_all(workers, tensors, scale=None):
    works = [w.allreduce_async(t, scale=scale) for w, t in zip(workers, tensors)]
    return [wk.wait(timeout=60) for wk in works]


class AllreduceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ps = harness.Ps(PS_IP, 7, IPS)
        cls.workers = open_workers(7, stall_timeout_ms=20000)

    @classmethod
    def tearDownClass(cls):
        for w in cls.workers:
            w.close()
        cls.ps_stats = cls.ps.stop()

    def check(self, inputs, outputs, scale=1e8):
        want = np.sum([x.astype(np.float64) for x in inputs], axis=0)
        for r, out in enumerate(outputs):
            got = np.asarray(out, dtype=np.float64)
            self.assertEqual(got.shape, want.shape)
            err = np.abs(got - want)
            b = bound(want, scale)
            worst = np.unravel_index(np.argmax(err - b), err.shape)
            self.assertTrue(np.all(err <= b), f"rank {r}: error {err[worst]:.3g} > bound "
                            f"{b[worst]:.3g} at {worst} (sum {want[worst]!r}, got {got[worst]!r})")
        return want

    def test_known_tensors_torch(self):
        # Rank r: (r + 1) * base, base multiples of 1e-4: the sum is 10 * base.
        for n in (1, 61, 62, 63, 1000, 100003):
            base = ((torch.arange(n, dtype=torch.float64) % 2001) - 1000) * 1e-4
            ins = [(base * (r + 1)).to(torch.float32) for r in range(N)]
            outs = reduce_all(self.workers, [t.clone() for t in ins])
            want = self.check([t.numpy() for t in ins], [t.numpy() for t in outs])
            self.assertTrue(np.allclose(want, (base * 10).numpy(), atol=1e-12))

    def test_random_tensors_numpy_and_shapes(self):
        rng = np.random.default_rng(5)
        ins = [rng.normal(0, 1, size=(37, 11)).astype(np.float32) for _ in range(N)]
        outs = [x.copy() for x in ins]
        res = reduce_all(self.workers, outs)
        for o, r in zip(outs, res):
            self.assertIs(o, r)  # in place, the same object back
        self.check(ins, outs)
        # The result is the same float32 bits at every worker.
        for o in outs[1:]:
            self.assertTrue(np.array_equal(o, outs[0]))

    def test_empty_and_blocking(self):
        empty = [torch.zeros(0) for _ in range(N)]
        self.assertEqual([t.numel() for t in reduce_all(self.workers, empty)], [0] * N)
        # The blocking call, from one thread per worker.
        ts = [torch.full((300,), 0.25 * (r + 1)) for r in range(N)]
        th = [threading.Thread(target=w.allreduce, args=(t,)) for w, t in zip(self.workers, ts)]
        for t in th:
            t.start()
        for t in th:
            t.join(60)
        for t in ts:
            self.assertTrue(torch.all(t == 2.5), t[:4])

    def test_many_in_flight_waited_out_of_order(self):
        sizes = [5000, 17, 62 * 40, 1, 9999]
        ins = [[torch.randn(s, generator=torch.Generator().manual_seed(10 * r + i))
                for i, s in enumerate(sizes)] for r in range(N)]
        outs = [[t.clone() for t in row] for row in ins]
        works = [[w.allreduce_async(t) for t in row] for w, row in zip(self.workers, outs)]
        for r in reversed(range(N)):
            for wk in reversed(works[r]):
                self.assertIsNotNone(wk.wait(timeout=60))
                self.assertTrue(wk.is_completed())
        for i in range(len(sizes)):
            self.check([ins[r][i].numpy() for r in range(N)], [outs[r][i].numpy() for r in range(N)])

    def test_future(self):
        ts = [torch.full((1000,), float(r)) for r in range(N)]
        futs = [w.allreduce_async(t).get_future(then=lambda t: t / N)
                for w, t in zip(self.workers, ts)]
        for f in futs:
            v = f.wait()
            self.assertTrue(torch.all(v == 1.5), v[:4])

    def test_per_tensor_scale_and_overflow(self):
        # 15.0 at four workers: 60 * 1e8 is beyond int32. With scale 2^20
        # it fits; with the default 1e8 the switch/PS saturates and the PS
        # asks for floats.
        base = torch.linspace(-1, 1, 3000)
        ins = [(base * 15.0 + 0.001 * r).contiguous() for r in range(N)]
        before = [w.stats() for w in self.workers]
        outs = reduce_all(self.workers, [t.clone() for t in ins], scale=2.0**20)
        mid = [w.stats() for w in self.workers]
        self.check([t.numpy() for t in ins], [t.numpy() for t in outs], scale=2.0**20)
        self.assertEqual([m["float_acks"] - b["float_acks"] for m, b in zip(mid, before)], [0] * N)
        outs = reduce_all(self.workers, [t.clone() for t in ins])
        after = [w.stats() for w in self.workers]
        for a, m in zip(after, mid):
            self.assertGreater(a["overflow_requests"] - m["overflow_requests"], 0)
            self.assertGreater(a["float_acks"] - m["float_acks"], 0)
        # Float sums at the PS: float32 rounding of 4 terms only.
        want = np.sum([t.numpy().astype(np.float64) for t in ins], axis=0)
        for o in outs:
            err = np.abs(o.numpy() - want)
            self.assertTrue(np.all(err <= 4 * np.abs(want) * 2.0**-23 + 1e-12), err.max())

    def test_bad_tensors(self):
        w = self.workers[0]
        cases = [
            (torch.zeros(3, dtype=torch.float64), "float32"),
            (torch.zeros(3, dtype=torch.int32), "float32"),
            (torch.zeros(4, 4).t(), "contiguous"),
            (torch.zeros(3, dtype=torch.float16), "float32"),
            (np.zeros(3), "float32"),
            (np.zeros((4, 4), dtype=np.float32)[:, 1], "contiguous"),
            ([1.0, 2.0], "torch.Tensor or numpy array"),
            ("abc", "torch.Tensor or numpy array"),
            (None, "torch.Tensor or numpy array"),
        ]
        for t, words in cases:
            with self.assertRaises(TypeError) as cm:
                w.allreduce_async(t)
            self.assertIn(words, str(cm.exception))
        ro = np.zeros(3, dtype=np.float32)
        ro.flags.writeable = False
        with self.assertRaisesRegex(TypeError, "writable"):
            w.allreduce(ro)
        for bad in (0, -1.0, float("nan"), float("inf"), "x"):
            with self.assertRaises(ValueError):
                w.allreduce_async(torch.zeros(3), scale=bad)
        # Nothing was submitted: the workers are still in step (a sum works).
        outs = reduce_all(self.workers, [torch.ones(10) for _ in range(N)])
        self.assertTrue(all(torch.all(o == N) for o in outs))


class ConfigAndFailureTest(unittest.TestCase):
    def test_bad_config(self):
        cases = [
            (dict(job=1), "no PS address"),
            (dict(job=1, ps=PS_IP, bogus=3), "unknown worker config key 'bogus'"),
            (dict(job=1, ps=PS_IP, udp_port=70000), "bad value"),
            (dict(job=1, ps="not-an-ip"), "bad value"),
            (dict(job=0, ps=PS_IP), "key 'job' (int 1..65535)"),
            (dict(job=1, ps=PS_IP, cc="fast"), "bad value"),
            (dict(job=1, ps=PS_IP, scale=-3.0), "scale"),
            (dict(job=1, ps=PS_IP, elements=2049), "bad value"),  # above INA_MAX_ELEMENTS
            (dict(job=1, ps=PS_IP, world_size=4, rank=4), "rank"),
            (dict(job=1, ps=PS_IP, rank=-1), "rank"),
            (dict(job=1, ps=PS_IP, fan_in=2, bit=5), "bit"),
            (dict(job=1, ps=PS_IP, stall_timeout_ms=True), "bad value"),
            (dict(job=1, ps=PS_IP, levels=2, world_size=4, rank=1), "bit and fan_in per level"),
        ]
        for kw, words in cases:
            with self.assertRaises(ValueError, msg=kw) as cm:
                ina.Worker(transport="udp", ip=IPS[0], **kw)
            self.assertIn(words, str(cm.exception), kw)

    def test_transport_that_cannot_open(self):
        with self.assertRaisesRegex(ina.Error, "cannot open the worker: transport"):
            ina.Worker(job=1, ps=PS_IP, transport="af_packet", device="nosuchdev0")

    def test_from_env(self):
        # No PS answers: a named size stands after the job query's timeout.
        env = {"INA_JOB": "9", "INA_PS": PS_IP, "INA_TRANSPORT": "udp", "INA_IP": IPS[1],
               "INA_SCALE": "1048576", "INA_ELEMENTS": "62", "INA_PS_QUERY_TIMEOUT_MS": "200",
               "OTHER": "x"}
        keys = ina.config_keys_from_env(env)
        self.assertEqual(keys, {"job": "9", "ps": PS_IP, "transport": "udp", "ip": IPS[1],
                                "scale": "1048576", "elements": "62", "ps_query_timeout_ms": "200"})
        old = dict(os.environ)
        try:
            os.environ.update(env)
            os.environ.pop("WORLD_SIZE", None)
            with self.assertRaisesRegex(ValueError, "rank and world size unknown"):
                ina.Worker.from_env()
            with ina.Worker.from_env(rank=1, world_size=2) as w:
                c = w.config()
                self.assertEqual((c["job"], c["scale"], c["bit"][0], c["fan_in"][0]),
                                 (9, 1048576.0, 1, 2))
                self.assertEqual(w.world_size, 2)
        finally:
            os.environ.clear()
            os.environ.update(old)

    def test_auto_scale(self):
        self.assertEqual(ina.auto_scale(0.0), 1e8)
        self.assertEqual(ina.auto_scale(float("nan"), default=5.0), 5.0)
        self.assertEqual(ina.auto_scale(float("inf")), 1e8)
        for m in (1e-9, 1e-3, 0.7, 1.0, 3.5, 1e4, 1e12):
            s = ina.auto_scale(m, headroom=8)
            self.assertEqual(s, 2.0 ** round(np.log2(s)))  # a power of two
            self.assertLessEqual(8 * m * s, 2**31 - 1)     # headroom x the sum fits int32
            if 2.0**-16 < s < 2.0**48:
                self.assertGreater(16 * m * s, 2**31 - 1)  # and it is the largest such

    def test_no_ps(self):
        # Nobody listens at .2: without a size open fails after the job
        # query's timeout; with one (which stands when no PS answers) the
        # all-reduce fails after the stall timeout with a reason, and the
        # worker refuses further tensors.
        with self.assertRaisesRegex(ina.Error, "no answer from the PS .* to the job query for job 3"):
            ina.Worker(job=3, ps=f"{NET}.2", world_size=1, transport="udp", ip=IPS[0],
                       ps_query_timeout_ms=200)
        w = ina.Worker(job=3, ps=f"{NET}.2", world_size=1, transport="udp", ip=IPS[0],
                       stall_timeout_ms=400, **NO_PS)
        t0 = time.monotonic()
        with self.assertRaises(ina.Error) as cm:
            w.allreduce(torch.ones(100))
        self.assertLess(time.monotonic() - t0, 10)
        msg = str(cm.exception)
        self.assertIn("no parameter packets from the PS", msg)
        self.assertIn("serving job 3", msg)
        with self.assertRaisesRegex(ina.Error, "worker failed"):
            w.allreduce(torch.ones(100))
        w.close()
        with self.assertRaisesRegex(ina.Error, "closed"):
            w.allreduce(torch.ones(1))

    def test_job_not_served(self):
        # A PS that serves job 11 only; the workers are of job 12: the PS
        # says so to their job query, open fails naming the job. Of job 11
        # they learn its size (the harness's job file names 62).
        ps = harness.Ps(f"{NET}.3", 11, IPS[:2])
        try:
            with self.assertRaisesRegex(ina.Error, f"the PS {NET}.3 does not serve job 12"):
                open_workers(12, ips=IPS[:2], ps=f"{NET}.3", stall_timeout_ms=400)
            with self.assertRaisesRegex(ina.Error, "elements 100: the PS sizes job 11 at 62 elements"):
                open_workers(11, ips=IPS[:2], ps=f"{NET}.3", elements=100)
            ws = open_workers(11, ips=IPS[:1], ps=f"{NET}.3")
            self.assertEqual(ws[0].config()["elements"], 62)
            self.assertEqual(ws[0].config()["epoch"], 0, "the PS's: it registers with no switch")
            ws[0].close()
        finally:
            stats = ps.stop()
        self.assertIsNotNone(stats)
        self.assertEqual(stats["completed"], 0)

    def test_close_fails_what_is_in_flight(self):
        # Nobody answers at .5; the stall timeout is long: a wait with a
        # timeout returns None, Ctrl-C interrupts a wait, and close() fails
        # the tensor and its future at once.
        w = ina.Worker(job=14, ps=f"{NET}.5", world_size=1, transport="udp", ip=IPS[0],
                       stall_timeout_ms=60000, **NO_PS)
        work = w.allreduce_async(torch.ones(1000))
        fut = w.allreduce_async(torch.ones(10)).get_future()
        t0 = time.monotonic()
        self.assertIsNone(work.wait(timeout=0.3))
        self.assertFalse(work.is_completed())
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        with self.assertRaises(KeyboardInterrupt):
            work.wait()
        w.close()
        with self.assertRaisesRegex(ina.Error, "worker closed"):
            work.wait(timeout=5)
        with self.assertRaisesRegex(RuntimeError, "worker closed"):
            fut.wait()
        self.assertLess(time.monotonic() - t0, 10)

    def test_future_error(self):
        ws = open_workers(13, ips=IPS[:1], ps=f"{NET}.4", stall_timeout_ms=300, **NO_PS)
        fut = ws[0].allreduce_async(torch.ones(5)).get_future()
        with self.assertRaisesRegex(RuntimeError, "no parameter packets"):
            fut.wait()
        ws[0].close()


if __name__ == "__main__":
    print(f"network: {NET}.x ({'private namespace' if NET == '127.0.0' else 'host loopback'})",
          flush=True)
    unittest.main(verbosity=2)
