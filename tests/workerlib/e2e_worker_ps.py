#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""End-to-end: ina-worker processes all-reduce through a real ina-ps, no
switch, over real UDP packets on the loopback of a network namespace this
test creates (or, without root, on the host loopback with addresses unique
to this run). Each case checks that every worker's result is exact within
the quantization bound (ina-worker exits 3 otherwise) and that the PS and
the workers counted what the case is about (faults, floats, A2TP, ...).

usage: e2e_worker_ps.py INA_WORKER INA_PS TEST_C_API [case ...]
"""
import json
import os
import shutil
import socket
import struct
import subprocess
import threading
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import pythonpath  # noqa: E402,F401  (the project's Python folders)
import ina_wire as wire  # noqa: E402

WORKER, PS, C_API = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = sys.argv[4:]


def in_private_netns():
    if os.environ.get("INA_E2E_NETNS") == "1":
        return True
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    env = dict(os.environ, INA_E2E_NETNS="1")
    r = subprocess.run(["unshare", "-n", "--", sys.executable] + sys.argv, env=env, timeout=600)
    sys.exit(r.returncode)


NETNS = in_private_netns()
if NETNS:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    NET = "127.0.0"
else:
    NET = "127.%d.%d" % (20 + os.getpid() % 200, (os.getpid() // 200) % 250)


def job_toml(job, workers, ps_count=1, ps_index=0, window=4096, elements=62, switch=None):
    # elements None: left to the path (docs/ps.md, "Fragment size").
    lines = [
        "id = %d" % job, "aggregators = 4096", "window = %d" % window,
        "levels = 1", "fan_in = [%d]" % workers, "ps_count = %d" % ps_count,
        "ps_index = %d" % ps_index, 'ack = "unicast"', "",
    ]
    if elements is not None:
        lines.insert(1, "elements = %d" % elements)
    if switch:
        lines += ["[switch]", 'ip = "%s"' % switch, 'mac = "02:00:00:00:00:fe"', ""]
    for r in range(workers):
        lines += ["[[worker]]", 'ip = "%s.%d"' % (NET, 10 + r),
                  'mac = "02:00:00:00:00:%02x"' % (10 + r), "bit = [%d]" % r, ""]
    return "\n".join(lines)


def run_case(name, workers=2, size="256K", rounds=3, worker_args=(), ps_args=(), ps_count=1,
             per_worker_args=None, check=None, timeout=120, elements=62):
    tmp = tempfile.mkdtemp(prefix="ina-e2e-worker-")
    job = 7
    pss = []
    try:
        for k in range(ps_count):
            path = os.path.join(tmp, "job%d.toml" % k)
            with open(path, "w") as f:
                f.write(job_toml(job, workers, ps_count, k, elements=elements))
            out = open(os.path.join(tmp, "ps%d.out" % k), "w")
            p = subprocess.Popen([PS, "--job", path, "--transport", "udp", "--ip", "%s.%d" % (NET, 1 + k),
                                  "--json"] + list(ps_args), stdout=out, stderr=subprocess.STDOUT)
            pss.append((p, out, os.path.join(tmp, "ps%d.out" % k)))
        time.sleep(0.3)
        for p, _, path in pss:
            if p.poll() is not None:
                raise AssertionError("%s: ina-ps exited early: %s" % (name, open(path).read()))
        ps_list = ",".join("%s.%d" % (NET, 1 + k) for k in range(ps_count))
        procs = []
        for r in range(workers):
            cmd = [WORKER, "--job", str(job), "--rank", str(r), "--workers", str(workers),
                   "--ps", ps_list, "--transport", "udp", "--ip", "%s.%d" % (NET, 10 + r),
                   "--size", str(size), "--rounds", str(rounds), "--json",
                   "--seed", str(100 + r)] + list(worker_args)
            if per_worker_args:
                cmd += per_worker_args(r)
            procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        results = []
        for r, p in enumerate(procs):
            try:
                out, err = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                raise AssertionError("%s: worker %d timed out" % (name, r))
            if p.returncode != 0:
                raise AssertionError("%s: worker %d exit %d: %s %s" % (name, r, p.returncode, out, err))
            results.append(json.loads(out))
        ps_stats = []
        for p, out, path in pss:
            p.terminate()
            p.wait(timeout=10)
            out.close()
            text = open(path).read()
            ps_stats.append(json.loads(text[text.index("{"):])["jobs"][0])
        frags = results[0]["fragments"]
        for w in results:
            assert w["within_bound"], (name, w)
            assert w["fragments"] == frags, (name, "workers disagree on fragment count")
            assert w["acks"] == frags, (name, w["acks"], frags)
        completed = sum(s["completed"] for s in ps_stats)
        assert completed == frags, (name, "PS completed %d of %d fragments" % (completed, frags))
        if check:
            check(results, ps_stats)
        print("ok   %-16s fragments %d  max error %.3g  goodput %.3f Gb/s  retransmits %s  %s" % (
            name, frags, max(w["max_abs_error"] for w in results),
            min(w["goodput_gbps"] for w in results), [w["retransmits"] for w in results],
            results[0]["transport"]))
    finally:
        for p, out, _ in pss:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def check_faults(results, ps_stats):
    # The shim really dropped/duplicated: the workers had to recover.
    assert sum(w["retransmits"] for w in results) > 0, "no retransmissions under 1% loss"
    assert sum(w["duplicate_acks"] for w in results) > 0, "no duplicate ACKs under duplication"
    assert sum(s["duplicates"] + s["after_done"] for s in ps_stats) > 0


def check_timeout_recovery(results, ps_stats):
    # recovery = timeout: every loss waits for the timer, none is resent
    # on the ACKs' signal (ATP Fig. 10's SwitchML baseline).
    assert sum(w["retransmits"] for w in results) > 0, "no retransmissions under 1% loss"
    assert sum(w["fast_retransmits"] for w in results) == 0, [w["fast_retransmits"] for w in results]
    assert sum(w["timeouts"] for w in results) > 0, "no timeouts"


def check_overflow(results, ps_stats):
    assert all(w["float_fragments_sent"] > 0 for w in results), "no float answers"
    assert all(w["float_acks"] > 0 for w in results), "no float parameter packets"
    assert sum(s["overflows"] for s in ps_stats) > 0


def check_a2tp(results, ps_stats):
    assert all(w["cc"] == "a2tp" for w in results)
    # ACW starts at 8 of LCW 200: the rest of the window bypasses the switch.
    assert all(w["bypass_sent"] > 0 for w in results), "no bypass packets"
    assert all(w["agg_window"] <= w["window"] for w in results)
    # One decision per fragment for the whole job: the same fragments, so
    # the same count, bypassed at every worker.
    counts = {w["bypass_sent"] for w in results}
    assert len(counts) == 1, f"the workers bypassed different fragments: {sorted(counts)}"


def check_two_ps(results, ps_stats):
    assert all(s["completed"] > 0 for s in ps_stats), "a PS got nothing"
    assert all(s["not_owned"] == 0 for s in ps_stats), "fragments sent to the wrong PS"


# A GOAT plan in ina-goat-plan's format for two workers and a 0.25 MB round
# (65,536 floats): the first quarter to the PS (agg_node 0: sent with the
# bypass flag), the rest to switch 3 (no switch here: the PS adds it).
GOAT_DIR = tempfile.mkdtemp(prefix="ina-e2e-goat-")
GOAT_PLAN = os.path.join(GOAT_DIR, "plan.json")
with open(GOAT_PLAN, "w") as _f:
    json.dump({"plan": {
        "switches": [{"name": "s3", "id": 3, "submodels": ["b"]}],
        "submodels": [{"name": "a", "first_element": 0, "end_element": 16384},
                      {"name": "b", "first_element": 16384, "end_element": 65536}],
        "workers": [{"name": "w%d" % r, "ranges": [
            {"submodel": "a", "first_element": 0, "end_element": 16384, "agg_node": 0},
            {"submodel": "b", "first_element": 16384, "end_element": 65536, "agg_node": 3}]}
            for r in range(2)]}}, _f)


def check_goat(results, ps_stats):
    # Fragments whose first element is below 16,384: 265 per round, 3 rounds.
    for w in results:
        assert w["bypass_sent"] == 3 * 265, ("goat_plan", w["bypass_sent"])


def run_goat_errors():
    """A plan for another model size, or without this worker: exit 2, one line."""
    base = [WORKER, "--job", "7", "--rank", "0", "--workers", "2", "--ps", NET + ".1",
            "--transport", "udp", "--ip", NET + ".10", "--rounds", "1"]
    for extra, want in ((["--goat-plan", GOAT_PLAN, "--size", "512K"],
                         "the plan's model has 65536 elements, a round of --size has 131072"),
                        (["--goat-plan", GOAT_PLAN, "--size", "256K", "--goat-worker", "w9"],
                         "no worker 'w9'"),
                        (["--goat-plan", GOAT_PLAN + ".none", "--size", "256K"], "cannot open")):
        r = subprocess.run(base + extra, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and want in r.stderr and len(r.stderr.strip().splitlines()) == 1, \
            ("goat_errors", extra, r.returncode, r.stderr)
    print("ok   %-16s bad plans refused with one line each" % "goat_errors")


def check_auto_size(want):
    def check(results, ps_stats):
        assert all(w["elements"] == want for w in results), ("auto size", [w["elements"] for w in results])
    return check


CASES = {
    "clean": dict(),
    "four_workers": dict(workers=4),
    "faults_1pct": dict(worker_args=["--host-drop", "0.01", "--duplicate", "0.01", "--reorder", "0.01"],
                        ps_args=["--host-drop", "0.01", "--duplicate", "0.01", "--reorder", "0.01", "--seed", "9"],
                        check=check_faults),
    "timeout_recovery": dict(worker_args=["--host-drop", "0.01", "--set", "recovery=timeout",
                                          "--set", "min_rto_us=1000", "--set", "initial_rto_us=1000"],
                             check=check_timeout_recovery),
    "overflow_floats": dict(worker_args=["--pattern", "overflow"], check=check_overflow),
    "a2tp": dict(worker_args=["--cc", "a2tp", "--set", "initial_acw=8"], check=check_a2tp),
    "cc_none_threads": dict(worker_args=["--cc", "none", "--threads", "2", "--tensors", "4"]),
    "two_ps": dict(ps_count=2, check=check_two_ps),
    "goat_plan": dict(worker_args=["--cc", "none", "--goat-plan", GOAT_PLAN],
                      per_worker_args=lambda r: ["--goat-worker", "w%d" % r], check=check_goat),
    # No size anywhere: the PS takes its interface's (loopback: the most,
    # 2048) and the workers ask it.
    "auto_size": dict(elements=None, check=check_auto_size(2048)),
}

def run_c_api():
    """The C API, one worker (the sum is its own tensor)."""
    tmp = tempfile.mkdtemp(prefix="ina-e2e-worker-")
    path = os.path.join(tmp, "job.toml")
    with open(path, "w") as f:
        f.write(job_toml(7, 1))
    ps = subprocess.Popen([PS, "--job", path, "--transport", "udp", "--ip", NET + ".1"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        r = subprocess.run([C_API, NET + ".1", NET + ".10"], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, ("c_api", r.stdout, r.stderr)
        print("ok   %-16s %s" % ("c_api", r.stdout.strip()))
    finally:
        ps.kill()
        ps.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def run_no_ps():
    """No PS at all: the worker asks it for the job's fragment size at open
    and fails with a one-line reason after ps_query_timeout_ms instead of
    hanging, and the tool exits 1."""
    t0 = time.time()
    r = subprocess.run([WORKER, "--job", "7", "--rank", "0", "--workers", "1", "--ps", NET + ".1",
                        "--transport", "udp", "--ip", NET + ".10", "--size", "10K", "--rounds", "1",
                        "--json", "--set", "ps_query_timeout_ms=1500"], capture_output=True, text=True, timeout=60)
    took = time.time() - t0
    assert r.returncode == 1, ("no_ps", r.returncode, r.stdout, r.stderr)
    assert "no answer from the PS %s.1 to the job query for job 7 within 1500 ms" % NET in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert 1.4 < took < 30, took
    print("ok   %-16s failed after %.1f s: %s" % ("no_ps", took, r.stderr.strip().splitlines()[0]))


class FakeSwitch:
    """Plays a switch's control plane for ina-ps on the udp transport: ACKs
    every registration and unregistration (unsigned: the job has no key),
    stating `cap` elements in the ACK's elem_count (docs/protocol.md)."""

    def __init__(self, ip, cap):
        self.cap = cap
        self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.s.bind((ip, 18766))
        self.s.settimeout(0.2)
        self.stop = False
        self.t = threading.Thread(target=self.serve, daemon=True)
        self.t.start()

    def serve(self):
        while not self.stop:
            try:
                data, src = self.s.recvfrom(65536)
            except socket.timeout:
                continue
            if len(data) < wire.INA_HDR_LEN or wire.unpack_ina(data)["type"] != wire.INA_TYPE_CONTROL:
                continue
            msg = wire.unpack_ctrl(data[wire.INA_HDR_LEN:])
            if msg is None or msg[0]["op"] not in (wire.INA_CTRL_REGISTER, wire.INA_CTRL_UNREGISTER):
                continue
            (ctrl, _, auth), job = msg, wire.unpack_ina(data)["job_id"]
            epoch = 1 if ctrl["op"] == wire.INA_CTRL_REGISTER else 0
            ina = wire.pack_ina(job, type=wire.INA_TYPE_CONTROL, epoch=epoch, remap_index=0,
                                elem_count=self.cap)
            ack = wire.pack_ctrl(wire.INA_CTRL_ACK, struct.unpack("!I", socket.inet_aton(src[0]))[0], bytes(6))
            self.s.sendto(ina + ack + wire.CTRL_AUTH.pack(counter=auth["counter"], mac=bytes(32)), src)

    def close(self):
        self.stop = True
        self.t.join()
        self.s.close()


def start_ps(tmp, toml_text, ip, extra=()):
    path = os.path.join(tmp, "job.toml")
    with open(path, "w") as f:
        f.write(toml_text)
    return subprocess.Popen([PS, "--job", path, "--transport", "udp", "--ip", ip] + list(extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def expect_one_line_error(what, p, code, want, timeout=30):
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == code, (what, p.returncode, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and want in lines[0], (what, want, err)
    return lines[0]


def run_size_checks():
    """The fragment size from the path (docs/protocol.md, "Fragment size"):
    the PS takes the least of its interface's cap and its switch's stated
    cap, and a named size above either is one line and exit 2 at start; a
    worker learns the size from the PS, and a named size above the PS's, or
    one its own interface cannot carry, is one line at open."""
    tmp = tempfile.mkdtemp(prefix="ina-e2e-size-")
    sw = NET + ".254"
    try:
        # A switch that carries 100 elements: an auto job takes 100 ...
        fake = FakeSwitch(sw, 100)
        try:
            ps = start_ps(tmp, job_toml(7, 1, elements=None, switch=sw), NET + ".1")
            line = ps.stdout.readline()
            assert "ina-ps: job 7 epoch 1 elements 100" in line, line
            # No --epoch: the worker takes the epoch with the size (JOB_INFO).
            w = subprocess.run([WORKER, "--job", "7", "--rank", "0", "--workers", "1",
                                "--ps", NET + ".1", "--transport", "udp", "--ip", NET + ".10",
                                "--size", "10K", "--rounds", "2", "--json"],
                               capture_output=True, text=True, timeout=60)
            assert w.returncode == 0, ("auto behind a switch", w.returncode, w.stderr)
            out = json.loads(w.stdout)
            assert out["elements"] == 100 and out["epoch"] == 1 and out["within_bound"], out
            # A named epoch wins over the PS's: this one is stale to the PS,
            # which drops every fragment: no parameter packet comes back.
            w = subprocess.run([WORKER, "--job", "7", "--epoch", "2", "--rank", "0", "--workers", "1",
                                "--ps", NET + ".1", "--transport", "udp", "--ip", NET + ".10",
                                "--size", "1K", "--rounds", "1", "--set", "stall_timeout_ms=1000"],
                               capture_output=True, text=True, timeout=60)
            assert w.returncode != 0 and "no parameter packets" in w.stderr, ("named epoch", w.returncode, w.stderr)
            ps.terminate()
            ps.communicate(timeout=10)
            # ... and a job that names more is refused, naming the switch and both numbers.
            ps = start_ps(tmp, job_toml(7, 1, elements=1000, switch=sw), NET + ".1")
            expect_one_line_error("named above the switch", ps, 2,
                                  "ina-ps: error: job 7: elements 1000 is more than switch %s carries "
                                  "(100 elements)" % sw)
        finally:
            fake.close()
        # A worker naming more than the PS's size is refused at open.
        ps = start_ps(tmp, job_toml(7, 1, elements=62), NET + ".1")
        time.sleep(0.3)
        w = subprocess.run([WORKER, "--job", "7", "--rank", "0", "--workers", "1", "--ps", NET + ".1",
                            "--transport", "udp", "--ip", NET + ".10", "--elements", "100", "--rounds", "1"],
                           capture_output=True, text=True, timeout=60)
        assert w.returncode == 1 and len(w.stderr.strip().splitlines()) == 1 and \
            "elements 100: the PS sizes job 7 at 62 elements" in w.stderr, ("worker above the PS", w.stderr)
        # A job the PS does not serve.
        w = subprocess.run([WORKER, "--job", "8", "--rank", "0", "--workers", "1", "--ps", NET + ".1",
                            "--transport", "udp", "--ip", NET + ".10", "--rounds", "1"],
                           capture_output=True, text=True, timeout=60)
        assert w.returncode == 1 and "the PS %s.1 does not serve job 8" % NET in w.stderr, w.stderr
        ps.terminate()
        ps.communicate(timeout=10)
        if NETNS:
            # An interface of MTU 1500 carries 357 elements (1514-byte frames).
            subprocess.run(["ip", "link", "add", "d0", "type", "veth", "peer", "name", "d1"], check=True)
            subprocess.run(["ip", "addr", "add", "10.9.0.1/24", "dev", "d0"], check=True)
            subprocess.run(["ip", "addr", "add", "10.9.0.2/24", "dev", "d1"], check=True)
            subprocess.run(["ip", "link", "set", "d0", "up"], check=True)
            subprocess.run(["ip", "link", "set", "d1", "up"], check=True)
            ps = start_ps(tmp, job_toml(7, 1, elements=1000), "10.9.0.1")
            expect_one_line_error("named above the PS's interface", ps, 2,
                                  "elements 1000 does not fit this PS's interface: udp carries 1514-byte "
                                  "frames, at most 357 elements")
            ps = start_ps(tmp, job_toml(7, 1, elements=None), NET + ".1")
            assert "elements 2048" in ps.stdout.readline()
            w = subprocess.run([WORKER, "--job", "7", "--rank", "0", "--workers", "1", "--ps", NET + ".1",
                                "--transport", "udp", "--ip", "10.9.0.2", "--rounds", "1"],
                               capture_output=True, text=True, timeout=60)
            assert w.returncode == 1 and "the PS sizes job 7 at 2048 elements, this worker's interface (udp) " \
                "carries at most 357" in w.stderr, ("worker's interface", w.stderr)
            ps.terminate()
            ps.communicate(timeout=10)
        print("ok   %-16s sizes from the path; mismatches refused with one line each" % "size_checks")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    print("network: %s (%s)" % (NET, "private namespace" if NETNS else "host loopback"))
    for name, kw in CASES.items():
        if ONLY and name not in ONLY:
            continue
        run_case(name, **kw)
    if not ONLY or "c_api" in ONLY:
        run_c_api()
    if not ONLY or "no_ps" in ONLY:
        run_no_ps()
    if not ONLY or "size_checks" in ONLY:
        run_size_checks()
    if not ONLY or "goat_errors" in ONLY:
        run_goat_errors()
    shutil.rmtree(GOAT_DIR, ignore_errors=True)
