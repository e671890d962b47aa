#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""README.md, "Running on a real NIC pair", followed as written, with a veth
pair in place of each of the NIC's two ports:

    nic_pair_test.py --build DIR

The switch's namespace holds the two switch ends, opened as net_af_packet
vdevs where the recipe names PCI addresses; behind port 0 a bridge (the
workers' ToR) joins two worker namespaces, behind port 1 the PS's namespace.
The hosts take the addresses of config/switchd-nic.toml's neighbours.

What the test does, by README step:
  key  ina-switchd --gen-key control.key (the file both configs name)
  1-2  no hugepages (EAL --no-huge) and no binding: the ports are vdevs
  3    config/switchd-nic.toml with only what step 3 says to write: the two
       devices, lcores (a CPU this machine has), the key line uncommented;
       plus idle_sleep_us, because this machine is shared. --check-config
       must show control_auth true with the key file.
  4    ina-switchd [EAL args] -- --config my.toml
  5    config/ps-example.toml with the switch's ip and MAC, the key line
       uncommented and the workers' addresses; ina-ps --job job.toml
       --device eth0; ina-worker --job 1 --rank r --workers 2 --ps IP/MAC
       --device eth0, without --epoch.

Asserted: the PS registers (signed) and prints its epoch, >= 1; each worker
finishes every round within the quantization bound and reports that epoch;
part of the fragments completes in the switch; the switch counts no
stale_epoch_drops and no control_auth_drops for the job, the PS no stale
packet. Exit 0 pass, 1 fail, 77 skip (not root, ina-switchd not built).
Everything it made (namespaces, files, DPDK runtime directory) is removed,
also when it fails or is interrupted.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)
from lablib import telemetry  # noqa: E402  (the lab's reader of /ina/... counters)

SKIP = 77
PREFIX = f"inanic{os.getpid() % 10000000}"
# The switch's two port MACs: on a NIC, read before binding (ip link).
SWITCH_MAC = ["02:00:00:0a:00:f0", "02:00:00:0a:00:f1"]
JOB_TIMEOUT_S = 180  # a deadline on a loaded two-core machine, not an expectation


class Failed(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failed(msg)
    print(f"ok    {msg}")


def sh(*cmd, check_rc=True):
    p = subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    if check_rc and p.returncode:
        raise Failed(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
    return p


def ns(name):
    return f"{PREFIX}-{name}"


def in_ns(name, *cmd):
    return ["ip", "netns", "exec", ns(name), *cmd]


def replace_once(text, old, new, what):
    """The example's text with `old` replaced: the test fails when the
    example no longer has what the README tells the reader to change."""
    if text.count(old) != 1:
        raise Failed(f"{what}: expected exactly one '{old}' in the example")
    return text.replace(old, new)


class Net:
    """The cabling: namespaces, veth pairs, a bridge as the workers' ToR."""

    NAMES = ["sw", "tor", "w0", "w1", "ps"]

    def __init__(self):
        self.made = []

    def up(self, hosts):
        for n in self.NAMES:
            sh("ip", "netns", "add", ns(n))
            self.made.append(n)
            # No IPv6 router solicitations or DAD packets into the switch.
            for k in ("all", "default"):
                sh(*in_ns(n, "sysctl", "-q", "-w", f"net.ipv6.conf.{k}.disable_ipv6=1"), check_rc=False)
            sh("ip", "-n", ns(n), "link", "set", "lo", "up")
        sh("ip", "-n", ns("tor"), "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", ns("tor"), "link", "set", "br0", "up")
        links = [("sw", "p0", SWITCH_MAC[0], "tor", "tosw", None),
                 ("sw", "p1", SWITCH_MAC[1], "ps", "eth0", hosts["ps"]["mac"]),
                 ("tor", "w0", None, "w0", "eth0", hosts["w0"]["mac"]),
                 ("tor", "w1", None, "w1", "eth0", hosts["w1"]["mac"])]
        for a, a_if, a_mac, b, b_if, b_mac in links:
            cmd = ["ip", "link", "add", a_if, "netns", ns(a)]
            cmd += ["address", a_mac] if a_mac else []
            cmd += ["type", "veth", "peer", "name", b_if, "netns", ns(b)]
            cmd += ["address", b_mac] if b_mac else []
            sh(*cmd)
            for n, dev in ((a, a_if), (b, b_if)):
                # A frame taken by AF_XDP / AF_PACKET must be whole: no
                # partial checksums, no GSO super-frames.
                sh(*in_ns(n, "ethtool", "-K", dev, "tx", "off", "rx", "off", "tso", "off", "gso", "off",
                          "gro", "off"), check_rc=False)
                sh("ip", "-n", ns(n), "link", "set", dev, "up")
        for dev in ("tosw", "w0", "w1"):
            sh("ip", "-n", ns("tor"), "link", "set", dev, "master", "br0")
        for h in ("w0", "w1", "ps"):
            sh("ip", "-n", ns(h), "addr", "add", f"{hosts[h]['ip']}/24", "dev", "eth0")

    def down(self):
        for n in reversed(self.made):
            sh("ip", "netns", "del", ns(n), check_rc=False)
        self.made = []


class Proc:
    """A process with its output in a file; stop() ends it by its own pid."""

    def __init__(self, cmd, log_path):
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.p = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, text=True)

    def text(self):
        with open(self.log_path) as f:
            return f.read()

    def wait_for(self, pattern, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = re.search(pattern, self.text(), re.M)
            if m:
                return m
            if self.p.poll() is not None:
                break
            time.sleep(0.2)
        return re.search(pattern, self.text(), re.M)

    def stop(self, sig=signal.SIGINT, timeout=30):
        if self.p.poll() is None:
            self.p.send_signal(sig)
            try:
                self.p.wait(timeout)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.log.close()
        return self.p.returncode


def last_json(text):
    """The JSON object a program printed last (ina-ps --json: indented)."""
    start = text.rfind("\n{")
    start = 0 if text.startswith("{") and start < 0 else start + 1
    try:
        return json.loads(text[start:])
    except ValueError:
        return None


def usable_cpu():
    return max(os.sched_getaffinity(0))


def run_recipe(build, tmp):
    switchd = os.path.join(build, "switchd", "ina-switchd")
    ps_bin = os.path.join(build, "ps", "ina-ps")
    worker_bin = os.path.join(build, "workerlib", "ina-worker")
    with open(os.path.join(ROOT, "config", "switchd-nic.toml")) as f:
        nic_text = f.read()
    with open(os.path.join(ROOT, "config", "ps-example.toml")) as f:
        job_text = f.read()
    nic = tomllib.loads(nic_text)
    to_workers, to_ps = nic["port"]
    hosts = {"w0": to_workers["neighbour"][0], "w1": to_workers["neighbour"][1], "ps": to_ps["neighbour"][0]}

    # The control key, in the folder of both configs.
    key = os.path.join(tmp, "control.key")
    r = sh(switchd, "--gen-key", key)
    check(os.stat(key).st_mode & 0o777 == 0o600, "ina-switchd --gen-key wrote the key, mode 0600")

    # Step 3: the config, and its check.
    cfg = replace_once(nic_text, f'device = "{to_workers["device"]}"', 'device = "net_af_packet0,iface=p0"',
                       "port 0")
    cfg = replace_once(cfg, f'device = "{to_ps["device"]}"', 'device = "net_af_packet1,iface=p1"', "port 1")
    cfg = replace_once(cfg, "lcores = [" + ", ".join(str(c) for c in nic["switch"]["lcores"]) + "]",
                       f"lcores = [{usable_cpu()}]\nidle_sleep_us = 100", "lcores")
    cfg = replace_once(cfg, '\n# control_key_file = "control.key"', '\ncontrol_key_file = "control.key"',
                       "the key line")
    my = os.path.join(tmp, "my.toml")
    with open(my, "w") as f:
        f.write(cfg)
    r = sh(switchd, "--check-config", my)
    sw = json.loads(r.stdout)["switch"]
    check(sw["control_auth"] is True and sw["control_key_file"] == key,
          f"--check-config: control_auth true, control_key_file {sw['control_key_file']}")

    net = Net()
    procs = []
    try:
        net.up(hosts)

        # Step 4: the switch.
        sw_proc = Proc(in_ns("sw", switchd, "--no-huge", "-m", "512", "--file-prefix", PREFIX,
                             "--log-level", "lib.eal:warning", "--", "--config", my),
                       os.path.join(tmp, "switchd.log"))
        procs.append(sw_proc)
        if not sw_proc.wait_for(r"\bready\b", 60):
            raise Failed(f"ina-switchd did not start: {sw_proc.text()[-2000:]}")
        print("ok    ina-switchd ready")

        # Step 5: the PS, then the workers.
        # Lines at their start ("\n"): the example's commented GOAT part
        # holds the same keys.
        job = replace_once(job_text, '\nip = "10.0.0.254"', f'\nip = "{nic["switch"]["ip"]}"', "switch ip")
        job = replace_once(job, '\nmac = "02:00:00:00:00:fe"', f'\nmac = "{SWITCH_MAC[1]}"', "switch mac")
        job = replace_once(job, '\n# control_key_file = "control.key"   # the switch',
                           '\ncontrol_key_file = "control.key"   # the switch', "the job's key line")
        for i, w in enumerate(("w0", "w1")):
            job = replace_once(job, f'\nip = "10.0.0.{i + 1}"', f'\nip = "{hosts[w]["ip"]}"', f"worker {i} ip")
            job = replace_once(job, f'\nmac = "02:00:00:00:00:0{i + 1}"', f'\nmac = "{hosts[w]["mac"]}"',
                               f"worker {i} mac")
        job_path = os.path.join(tmp, "job.toml")
        with open(job_path, "w") as f:
            f.write(job)
        ps = Proc(in_ns("ps", ps_bin, "--job", job_path, "--device", "eth0", "--json"),
                  os.path.join(tmp, "ps.log"))
        procs.append(ps)
        if not ps.wait_for(r"^ina-ps: serving", 60):
            raise Failed(f"ina-ps did not serve the job: {ps.text()[-2000:]}")
        m = re.search(r"^ina-ps: job 1 epoch (\d+) elements (\d+)", ps.text(), re.M)
        check(m and int(m.group(1)) >= 1, f"the PS registered job 1 with the switch: epoch {m and m.group(1)}")
        epoch = int(m.group(1))

        ps_addr = f"{hosts['ps']['ip']}/{hosts['ps']['mac']}"
        workers = []
        for rank, w in enumerate(("w0", "w1")):
            workers.append(Proc(in_ns(w, worker_bin, "--job", "1", "--rank", str(rank), "--workers", "2",
                                      "--ps", ps_addr, "--device", "eth0", "--size", "256K", "--rounds", "3",
                                      "--json", "--quiet"),
                                os.path.join(tmp, f"worker{rank}.log")))
        procs += workers
        end = time.monotonic() + JOB_TIMEOUT_S
        for w in workers:
            try:
                w.p.wait(max(1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise Failed(f"a worker did not finish within {JOB_TIMEOUT_S} s: {w.text()[-2000:]}")
        for rank, w in enumerate(workers):
            out = last_json(w.text())
            check(w.p.returncode == 0 and out is not None and out["within_bound"],
                  f"worker {rank} finished exact (exit {w.p.returncode}, max error "
                  f"{out and out['max_abs_error']}, bound {out and out['error_bound']})")
            check(out["epoch"] == epoch, f"worker {rank} took the PS's epoch {out['epoch']} without --epoch")
            check(out["switch_acks"] > 0, f"worker {rank}: {out['switch_acks']} fragments completed in the switch")

        snap = telemetry.snapshot(PREFIX)
        check("error" not in snap, f"switch telemetry read ({snap.get('error')})")
        j = snap["jobs"].get("1") or {}
        check(j.get("completed", 0) > 0 and j.get("stale_epoch_drops") == 0 and j.get("epoch") == epoch,
              f"switch job 1: epoch {j.get('epoch')}, completed {j.get('completed')}, "
              f"stale_epoch_drops {j.get('stale_epoch_drops')}")
        check(snap["summary"].get("control_auth_drops") == 0, "switch: no control_auth_drops")

        rc = ps.stop()
        out = last_json(ps.text())
        pj = (out or {}).get("jobs", [{}])[0]
        check(rc == 0 and pj.get("stale_epoch") == 0 and pj.get("completed", 0) > 0,
              f"ina-ps exit {rc}: completed {pj.get('completed')}, stale_epoch {pj.get('stale_epoch')}")
        rc = sw_proc.stop()
        check(rc == 0, f"ina-switchd stopped, exit {rc}")
    finally:
        for p in reversed(procs):
            p.stop(signal.SIGTERM, timeout=10)
        net.down()
        shutil.rmtree(os.path.join("/var/run/dpdk", PREFIX), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: the NIC-pair test needs root (network namespaces)")
        return SKIP
    if not os.path.exists(os.path.join(a.build, "switchd", "ina-switchd")):
        print("SKIP: ina-switchd not built (a build without DPDK)")
        return SKIP
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="ina-nic-")
    try:
        run_recipe(a.build, tmp)
        print(f"PASS nic_pair ({time.monotonic() - t0:.1f} s)")
        return 0
    except Failed as e:
        print(f"FAIL nic_pair: {e}")
        for name in ("switchd", "ps", "worker0", "worker1"):
            path = os.path.join(tmp, name + ".log")
            if os.path.exists(path):
                with open(path) as f:
                    print(f"--- {name}.log (last lines)\n" + "".join(f.readlines()[-15:]))
        return 1
    except KeyboardInterrupt:
        print("FAIL nic_pair: interrupted")
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
