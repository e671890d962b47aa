# SPDX-License-Identifier: BSD-3-Clause
"""What the Python package's tests share: a private network (the loopback of
a network namespace this process moves into, or without root the host
loopback with addresses unique to this run), a real ina-ps serving a job
over UDP, and the skip rule (exit 77, meson's SKIP, with the reason).

The tests run under /usr/bin/python3 (Debian's python3-torch) with
PYTHONPATH=<build>/workerlib/python and INA_PS_BIN=<build>/ps/ina-ps, both
set by tests/python/meson.build.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77


def skip(reason):
    print(f"SKIP: {reason}", flush=True)
    sys.exit(SKIP)


def need_torch():
    try:
        import torch  # noqa: F401
        import torch.distributed  # noqa: F401
    except ImportError as e:
        skip(f"python3-torch is not installed ({e}); scripts/deps.sh installs it")


def need_ina():
    try:
        import ina  # noqa: F401
    except ImportError as e:
        skip(f"the ina package is not importable ({e}): build it (ninja -C BUILD ina-python) and "
             "set PYTHONPATH=BUILD/workerlib/python")


def private_network():
    """Re-runs this script in a new network namespace when root (once);
    returns the first three octets of the addresses to use."""
    if os.environ.get("INA_PY_NETNS") == "1":
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        return "127.0.0"
    if os.geteuid() == 0 and shutil.which("unshare"):
        env = dict(os.environ, INA_PY_NETNS="1")
        r = subprocess.run(["unshare", "-n", "--", sys.executable] + sys.argv, env=env)
        sys.exit(r.returncode)
    pid = os.getpid()
    return "127.%d.%d" % (20 + pid % 200, (pid // 200) % 250)


def job_toml(job, ips, ack="unicast", window=4096):
    lines = [f"id = {job}", "elements = 62", "aggregators = 4096", f"window = {window}",
             "levels = 1", f"fan_in = [{len(ips)}]", f'ack = "{ack}"', ""]
    for r, ip in enumerate(ips):
        lines += ["[[worker]]", f'ip = "{ip}"', 'mac = "02:00:00:00:00:%02x"' % (10 + r),
                  f"bit = [{r}]", ""]
    return "\n".join(lines)


class Ps:
    """One ina-ps serving `job` for workers at `ips`, over UDP at `ip`."""

    def __init__(self, ip, job, ips):
        binary = os.environ.get("INA_PS_BIN")
        if not binary or not os.access(binary, os.X_OK):
            skip("ina-ps not built (INA_PS_BIN unset)")
        self.dir = tempfile.mkdtemp(prefix="ina-py-test-")
        path = os.path.join(self.dir, "job.toml")
        with open(path, "w") as f:
            f.write(job_toml(job, ips))
        self.log = os.path.join(self.dir, "ps.log")
        self.out = open(self.log, "w")
        self.p = subprocess.Popen([binary, "--job", path, "--transport", "udp", "--ip", ip, "--json"],
                                  stdout=self.out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while "serving" not in self.text():
            if self.p.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"ina-ps did not start: {self.text()[-500:]}")
            time.sleep(0.02)

    def text(self):
        with open(self.log) as f:
            return f.read()

    def stop(self):
        """Stops the PS; returns its per-job JSON counters (or None). Once."""
        if hasattr(self, "stats"):
            return self.stats
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.out.close()
        text = self.text()
        shutil.rmtree(self.dir, ignore_errors=True)
        try:
            self.stats = json.loads(text[text.index("{"):])["jobs"][0]
        except (ValueError, KeyError, IndexError):
            self.stats = None
        return self.stats

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
