#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration tests of ina-switchd: a real switchd process on net_af_packet
ports over veth pairs in a network namespace this test creates; scapy sends
INA frames from the host ends and checks what comes out.

    switchd_test.py INA_SWITCHD CASE      (run as root; see CASES below)

Topology (all in namespace swd<pid>):  hN <-> swN, switchd owns swN.
  h0: worker 10.0.0.1      h1: workers 10.0.0.2 and 10.0.0.3 (one port, two
  workers: the parameter packet goes there as one group copy)
  h2: PS 10.0.0.100
"""
import atexit
import ctypes
import hashlib
import hmac
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib

# The wire format's one Python definition, protocol/python/ina_wire.py:
# meson runs this file from the source tree.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import pythonpath  # noqa: E402,F401  (the project's Python folders)
import ina_wire as wire  # noqa: E402

UDP_PORT = wire.INA_UDP_PORT
F_ACK, F_RESEND, F_COLLISION, F_ECN = wire.INA_F_ACK, wire.INA_F_RESEND, wire.INA_F_COLLISION, wire.INA_F_ECN
F_OVERFLOW, F_BYPASS = wire.INA_F_OVERFLOW, wire.INA_F_BYPASS
HOSTS = {0: ("10.0.0.1", "02:00:00:00:00:01"), 1: ("10.0.0.2", "02:00:00:00:00:02"),
         2: ("10.0.0.3", "02:00:00:00:00:03")}
PS_IP, PS_MAC = "10.0.0.100", "02:00:00:00:00:64"
SW_IP, SW_MAC = "10.0.0.254", "02:00:00:00:00:fe"
JOB = 7
AGGS = 1024
NS = f"swd{os.getpid()}"
# The switch's control key (control_key_file), shared with the test's "PS".
KEY = bytes(range(32))
WRONG_KEY = bytes(range(1, 33))


# Every process this test starts is killed when the test ends, however it
# ends: failed check, exception, or meson's SIGTERM on a timeout (turned into
# SystemExit so that atexit runs). PR_SET_PDEATHSIG covers a SIGKILL of this
# process too.
_children = []


def _kill_children():
    for p in _children:
        if p.poll() is None:
            p.kill()
            p.wait()


atexit.register(_kill_children)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))


def _die_with_parent():
    ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def spawn(args, **kw):
    p = subprocess.Popen(args, preexec_fn=_die_with_parent, **kw)
    _children.append(p)
    return p


def fail(msg):
    print("FAIL:", msg, flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok:", msg, flush=True)


def sh(*cmd, check_rc=True):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if check_rc and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return r


def agg_index(job, seq, n=AGGS):
    return zlib.crc32(struct.pack(">HI", job, seq)) % n


def group_of(job):
    """The job's multicast group and its MAC, as text (wire.job_group)."""
    return wire.ip_text(wire.job_group(job)), wire.mac_text(wire.job_group_mac(job))


def ina_frame(src_ip, dst_ip, dst_mac, src_mac, job, seq, values, flags=0, index=None, level=0,
              levels=1, bitmaps=(0, 0, 0, 0), fan_in=(3, 0, 0, 0), typ=0, extra=b"", tos=0,
              agg_node=0, epoch=0):
    """`epoch`: the job's run, flags bits 8-15 (docs/protocol.md, "Epochs")."""
    from scapy.all import Ether, IP, UDP, Raw
    if index is None:
        index = agg_index(job, seq)
    hdr = wire.pack_ina(job, seq, type=typ, flags=flags & 0xFF, epoch=epoch, agg_node=agg_node,
                        agg_index=index, elem_count=len(values), level=level, levels=levels,
                        bitmap=bitmaps, fan_in=fan_in)
    payload = hdr + wire.pack_payload(values) + extra
    return (Ether(dst=dst_mac, src=src_mac) / IP(src=src_ip, dst=dst_ip, tos=tos, id=1) /
            UDP(sport=40000, dport=UDP_PORT, chksum=0) / Raw(payload))


def gradient(worker, seq, values, bit, **kw):
    ip, mac = HOSTS[worker]
    return ina_frame(ip, PS_IP, PS_MAC, mac, kw.pop("job", JOB), seq, values,
                     bitmaps=(1 << bit, 0, 0, 0), **kw)


def parse_ina(pkt):
    from scapy.all import UDP, IP
    if UDP not in pkt or pkt[UDP].dport != UDP_PORT:
        return None
    b = bytes(pkt[UDP].payload)
    f = wire.unpack_ina(b)
    n, hl = f["elem_count"], wire.INA_HDR_LEN
    vals = wire.unpack_payload(b, n, hl) if len(b) >= hl + 4 * n else None
    return dict(type=f["type"], flags=f["flags"], job=f["job_id"], agg_node=f["agg_node"], seq=f["seq"],
                index=f["agg_index"], elems=n, level=f["level"], levels=f["levels"],
                bitmap=list(f["bitmap"]), values=vals, ip_src=pkt[IP].src,
                ip_dst=pkt[IP].dst, tos=pkt[IP].tos, mac_dst=pkt.dst, raw=b)


def setns(name):
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    fd = os.open(f"/var/run/netns/{name}", os.O_RDONLY)
    if libc.setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
        raise OSError(ctypes.get_errno(), "setns")
    os.close(fd)


class Topology:
    """Namespace with veth pairs hN <-> swN."""

    def __init__(self, nports, mtu=1500):
        self.nports = nports
        sh("ip", "netns", "add", NS)
        self.extra_ns = []
        for i in range(nports):
            sh("ip", "-n", NS, "link", "add", f"h{i}", "type", "veth", "peer", "name", f"sw{i}")
        sh("ip", "netns", "exec", NS, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        sh("ip", "netns", "exec", NS, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
        for i in range(nports):
            sh("ip", "-n", NS, "link", "set", f"sw{i}", "mtu", str(mtu), "up")
            if i in HOSTS or i == 2:
                pass
            sh("ip", "-n", NS, "link", "set", f"h{i}", "address",
               HOSTS[i][1] if i < 2 else PS_MAC)
            sh("ip", "-n", NS, "link", "set", f"h{i}", "mtu", str(mtu), "up")
        sh("ip", "-n", NS, "link", "set", "lo", "up")

    def cleanup(self):
        for ns in self.extra_ns:
            sh("ip", "netns", "del", ns, check_rc=False)
        sh("ip", "netns", "del", NS, check_rc=False)


def config_text(nports=3, lcores=1, extra_switch="", port_extra=None, jobs=True, qpairs=1,
                driver="af_packet", elements=62, vdev_extra="", key=True, job_extra=""):
    port_extra = port_extra or {}
    nbs = {0: [HOSTS[0]], 1: [HOSTS[1], HOSTS[2]], 2: [(PS_IP, PS_MAC)]}
    s = f"""[switch]
id = 1
ip = "{SW_IP}"
mac = "{SW_MAC}"
aggregators = {AGGS}
elements = {elements}
lcores = {list(range(lcores))}
stats_interval_s = 1
idle_sleep_us = 100
mbufs = 8191
rx_descriptors = 256
tx_descriptors = 256
{extra_switch}
"""
    if key:  # written next to the config by Switchd
        s += 'control_key_file = "control.key"\n'
    for p in range(nports):
        if driver == "af_xdp":
            s += f'\n[[port]]\ndevice = "net_af_xdp{p},iface=sw{p},queue_count={qpairs}"\n'
        else:
            s += f'\n[[port]]\ndevice = "net_af_packet{p},iface=sw{p},qpairs={qpairs}{vdev_extra}"\n'
        s += port_extra.get(p, "")
        for ip, mac in nbs.get(p, []):
            s += f'[[port.neighbour]]\nip = "{ip}"\nmac = "{mac}"\n'
    if jobs:
        s += f"""
[[job]]
id = {JOB}
ps_ip = "{PS_IP}"
ps_mac = "{PS_MAC}"
levels = 1
fan_in = [3]
{job_extra}
[[job.worker]]
ip = "{HOSTS[0][0]}"
mac = "{HOSTS[0][1]}"
bit = [0]
[[job.worker]]
ip = "{HOSTS[1][0]}"
mac = "{HOSTS[1][1]}"
bit = [1]
[[job.worker]]
ip = "{HOSTS[2][0]}"
mac = "{HOSTS[2][1]}"
bit = [2]
"""
    return s


class Switchd:
    def __init__(self, binary, cfg_text, lcores=1, tmp=None, skip_if_no_port=False):
        self.prefix = f"swd{os.getpid()}"
        self.cfg = os.path.join(tmp, "switchd.toml")
        with open(self.cfg, "w") as f:
            f.write(cfg_text)
        fd = os.open(os.path.join(tmp, "control.key"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, (KEY.hex() + "\n").encode())
        os.close(fd)
        self.log = open(os.path.join(tmp, "switchd.log"), "w+")
        self.p = spawn([binary, "--no-huge", "-m", "256", "--file-prefix", self.prefix,
                                   "--log-level", "lib.eal:notice", "--", "--config", self.cfg],
                                  stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.p.poll() is not None:
                if skip_if_no_port and "does not exist" in self.output():
                    print("SKIP: this PMD cannot open the veth here:\n" + self.output()[-1500:])
                    sys.exit(77)
                fail(f"ina-switchd exited early ({self.p.returncode}):\n{self.output()}")
            if re.search(r"\] ready", self.output()):
                break
            time.sleep(0.1)
        else:
            fail("ina-switchd did not start:\n" + self.output())
        time.sleep(0.3)

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def telemetry(self, cmd):
        path = f"/var/run/dpdk/{self.prefix}/dpdk_telemetry.v2"
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect(path)
        s.recv(16384)
        s.send(cmd.encode())
        r = json.loads(s.recv(65536).decode())
        s.close()
        return r[cmd.split(",")[0]]

    def stop(self):
        """Stops the switch (once: a case that stops it to read the final
        summary gets its output again from main's call)."""
        if getattr(self, "stopped_output", None) is not None:
            return self.stopped_output
        self.p.send_signal(signal.SIGINT)
        try:
            rc = self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("ina-switchd did not stop on SIGINT")
        out = self.output()
        check(rc == 0, f"ina-switchd exits 0 on SIGINT (rc {rc})")
        # A sanitized build (ina-switchd-asan) reports into the same log, up
        # to the last free at exit.
        report = re.search(r"AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:", out)
        check(not report, "no sanitizer report" +
              (f":\n{out[max(0, report.start() - 200):report.start() + 3000]}" if report else ""))
        check("final:" in out and "stopped" in out, "final summary logged")
        # Whatever the case sent, every packet ends in a counter
        # (docs/switchd.md, "Where every packet went").
        m = re.search(r"final: accounting .*, unexplained (-?\d+)", out)
        check(m and m.group(1) == "0", f"every packet accounted for ({m and m.group(0)})")
        left = [f for f in os.listdir("/dev/hugepages") if f.startswith(self.prefix)] \
            if os.path.isdir("/dev/hugepages") else []
        check(not left, "no hugepage files left behind")
        self.stopped_output = out
        return out


def exchange(send, ifaces, to_send, timeout=2.0, want=None):
    """Sends frames (iface, pkt) and returns {iface: [parsed INA frames]}."""
    from scapy.all import AsyncSniffer, sendp, conf
    conf.verb = 0
    sniffers = {i: AsyncSniffer(iface=i, store=True, filter=f"udp port {UDP_PORT}") for i in ifaces}
    for s in sniffers.values():
        s.start()
    time.sleep(0.5)
    # Consecutive frames for one interface go out in one call (one socket),
    # so that a burst really is a burst.
    i = 0
    while i < len(to_send):
        j = i
        while j < len(to_send) and to_send[j][0] == to_send[i][0]:
            j += 1
        sendp([p for _, p in to_send[i:j]], iface=to_send[i][0], verbose=False)
        i = j
    deadline = time.time() + timeout
    while time.time() < deadline:
        if want and all(len(sniffers[i].results or []) >= n for i, n in want.items()):
            time.sleep(0.2)
            break
        time.sleep(0.05)
    out = {}
    for i, s in sniffers.items():
        s.stop()
        out[i] = [p for p in (parse_ina(x) for x in s.results) if p]
    return out


# ----------------------------------------------------------------------------- cases

def case_aggregation(sw, lcores=1):
    vals = [[i * 10 + w for i in range(62)] for w in range(3)]
    seqs = [5, 6, 7, 8]  # several indices: with 2 lcores both own some
    sends = []
    for seq in seqs:
        for w in range(3):
            iface = "h0" if w == 0 else "h1"
            sends.append((iface, gradient(w, seq, vals[w], bit=w)))
    got = exchange(None, ["h2"], sends, want={"h2": len(seqs)})["h2"]
    res = {p["seq"]: p for p in got if p["job"] == JOB}
    check(sorted(res) == seqs, f"one result per fragment at the PS (got seqs {sorted(res)})")
    for seq in seqs:
        p = res[seq]
        check(p["values"] == [sum(v[i] for v in vals) for i in range(62)],
              f"seq {seq}: sum of the three workers")
        check(p["bitmap"][0] == 0b111 and p["level"] == 1, f"seq {seq}: bitmap 0b111, level 1")
    check(len(got) == len(seqs), "no partial or duplicate output")
    t = sw.telemetry(f"/ina/job,{JOB}")
    check(t["completed"] == len(seqs) and t["aggregated"] == 3 * len(seqs),
          f"telemetry /ina/job: completed {t['completed']}, aggregated {t['aggregated']}")
    r = subprocess.run(["/usr/bin/dpdk-telemetry.py", "-f", sw.prefix], input="/ina/summary\n",
                       capture_output=True, text=True, timeout=20)
    check(r.returncode == 0 and '"completed"' not in r.stdout and '"aggregators_in_use"' in r.stdout,
          "dpdk-telemetry.py reads /ina/summary")
    # Each lcore's state (aggregator registers, counters, queues) sits on
    # its own CPU's NUMA node, and the start-up log says so once per lcore.
    for k in range(lcores):
        t = sw.telemetry(f"/ina/lcore,{k}")
        # job counters (65536 x 11) + value registers (62 elements in rows of 64)
        per_lcore_min = 65536 * 11 * 8 + t["aggregator_slots"] * 64 * 4
        check(t["memory_socket"] == t["socket"] >= 0,
              f"lcore {k}: state on socket {t['memory_socket']}, CPU on socket {t['socket']}")
        check(t["memory_bytes"] >= per_lcore_min,
              f"lcore {k}: {t['memory_bytes']} bytes of state counted (>= {per_lcore_min})")
    placed = re.findall(r"lcore \d+ \(index (\d+)\): state on socket (\d+) \([\d.]+ MiB\)",
                        sw.output())
    check(sorted(int(i) for i, _ in placed) == list(range(lcores)),
          f"start-up log: one placement line per lcore ({placed})")
    if lcores > 1:
        done = [sw.telemetry(f"/ina/lcore,{k}")["completed"] for k in range(lcores)]
        check(sum(done) == len(seqs) and min(done) > 0,
              f"each lcore completed the fragments it owns ({done})")
        for k in range(3):
            check(re.search(rf"port net_af_packet{k} steering: ", sw.output()) is not None,
                  f"steering mode of port {k} printed at start")
            check(sw.telemetry(f"/ina/port,{k}")["steering"].startswith("queue k to lcore k"),
                  f"port {k}: one RX queue per lcore (telemetry)")


def case_jumbo(sw, lcores=1):
    n = 700
    vals = [[(i * 7 + w * 1000) * (-1) ** i for i in range(n)] for w in range(3)]
    seqs = [11, 12]
    sends = [("h0" if w == 0 else "h1", gradient(w, seq, vals[w], bit=w)) for seq in seqs for w in range(3)]
    got = exchange(None, ["h2"], sends, want={"h2": len(seqs)})["h2"]
    res = {p["seq"]: p for p in got if p["job"] == JOB}
    check(sorted(res) == seqs, f"one {n}-element result per fragment at the PS (got seqs {sorted(res)})")
    for seq in seqs:
        check(res[seq]["elems"] == n and res[seq]["values"] == [sum(v[i] for v in vals) for i in range(n)],
              f"seq {seq}: all {n} elements are the sum of the three workers")
    t = sw.telemetry(f"/ina/job,{JOB}")
    check(t["completed"] == len(seqs), f"telemetry /ina/job: completed {t['completed']}")


def case_collision(sw, lcores=1):
    idx = agg_index(JOB, 100)
    first = gradient(0, 100, [1] * 62, bit=0)
    other = gradient(1, 200, [2] * 62, bit=1, index=idx)  # same aggregator, other seq
    got = exchange(None, ["h2"], [("h0", first), ("h1", other)], want={"h2": 1})["h2"]
    check(len(got) == 1, f"exactly the colliding packet reaches the PS ({len(got)})")
    p = got[0]
    check(p["seq"] == 200 and p["flags"] & F_COLLISION and p["flags"] & F_RESEND,
          f"collision packet carries RESEND|COLLISION (flags {p['flags']:#x})")
    check(p["level"] == 1 and p["values"] == [2] * 62, "level flipped, payload untouched")
    t = sw.telemetry(f"/ina/job,{JOB}")
    check(t["collisions"] == 1, "telemetry counts the collision")


def case_multicast(sw, lcores=1, driver="af_packet"):
    seq = 9
    vals = list(range(100, 162))
    ack = ina_frame(PS_IP, *group_of(JOB), PS_MAC, JOB, seq, vals,
                    flags=F_ACK)
    got = exchange(None, ["h0", "h1"], [("h2", ack)], want={"h0": 1, "h1": 1})
    h0 = [p for p in got["h0"] if p["flags"] & F_ACK]
    h1 = [p for p in got["h1"] if p["flags"] & F_ACK]
    check(len(h0) == 1 and len(h1) == 1, f"one parameter copy per port ({len(h0)}, {len(h1)})")
    check(h0[0]["ip_dst"] == HOSTS[0][0] and h0[0]["mac_dst"] == HOSTS[0][1],
          "single worker behind h0 gets a unicast copy (its IP and MAC)")
    check((h1[0]["ip_dst"], h1[0]["mac_dst"]) == group_of(JOB),
          "two workers behind h1 get the group copy")
    check(h0[0]["values"] == vals and h1[0]["values"] == vals, "payload intact in every copy")
    s = sw.telemetry("/ina/summary")
    check(s["multicast_copies"] == 2, "two copies made")
    if driver == "af_packet":
        check(s["multicast_flat_copies"] == 0, "payload shared by the copies (chained mbufs)")
    else:
        check(s["multicast_flat_copies"] == 2, f"{driver} cannot send chains: flat copies")
    # A parameter packet with the PS's addresses on a port toward workers is not
    # the PS's: it is dropped as a forged result, not replicated.
    ack2 = ina_frame(PS_IP, *group_of(JOB), PS_MAC, JOB, seq + 1,
                     vals, flags=F_ACK)
    got = exchange(None, ["h0"], [("h1", ack2)], timeout=1)
    check(not [p for p in got["h0"] if p["flags"] & F_ACK and p["seq"] == seq + 1],
          "parameter packet from h1 (not the PS's port) does not reach h0")
    s2 = sw.telemetry("/ina/summary")
    check(s2["multicast_copies"] == s["multicast_copies"] and s2["forged_result_drops"] == 1,
          "no copy made, counted as forged_result_drops")


def case_split_horizon(sw, lcores=1):
    """A job whose worker sits behind the PS's port (an upper switch registered
    with every worker of a multi-level job sees the lower switch's workers
    behind its uplink): the parameter packet is never sent back out of the
    port it came in on."""
    w4 = ("10.0.0.4", "02:00:00:00:00:04")  # a neighbour on port 2, with the PS
    reg = ctrl(1, [(HOSTS[0][0], HOSTS[0][1], 0), (w4[0], w4[1], 1)])
    exchange(None, ["h2"], [("h2", reg)], timeout=1, want={"h2": 1})
    check(21 in sw.telemetry("/ina/jobs"), "job 21 registered")
    vals = list(range(62))
    ack = ina_frame(PS_IP, *group_of(21), PS_MAC, 21, 3, vals, flags=F_ACK,
                    epoch=1)
    got = exchange(None, ["h0", "h2"], [("h2", ack)], want={"h0": 1})
    check(len([p for p in got["h0"] if p["flags"] & F_ACK]) == 1, "the worker behind h0 gets its copy")
    check(not [p for p in got["h2"] if p["flags"] & F_ACK and p["ip_dst"] != group_of(21)[0]],
          "no copy back out of the PS's port")
    s = sw.telemetry("/ina/summary")
    check(s["multicast_split_horizon"] == 1 and s["forged_result_drops"] == 0,
          f"split horizon counted ({s['multicast_split_horizon']})")


def case_admission(sw, lcores=1):
    stranger = ina_frame("10.0.0.9", PS_IP, PS_MAC, "02:00:00:00:00:09", JOB, 11, [1] * 62,
                         bitmaps=(1, 0, 0, 0))
    wrong_bit = gradient(0, 12, [1] * 62, bit=1)  # worker 0 claiming worker 1's bit
    unregistered = ina_frame(HOSTS[0][0], PS_IP, PS_MAC, HOSTS[0][1], 99, 1, [5] * 62,
                             bitmaps=(1, 0, 0, 0))
    got = exchange(None, ["h2"], [("h0", stranger), ("h0", wrong_bit), ("h0", unregistered)],
                   want={"h2": 1})["h2"]
    check(all(p["job"] == 99 for p in got) and len(got) == 1,
          f"only the unregistered job's packet reaches the PS ({[p['job'] for p in got]})")
    check(got[0]["values"] == [5] * 62 and got[0]["level"] == 0,
          "unregistered job forwarded without aggregation")
    t = sw.telemetry(f"/ina/job,{JOB}")
    check(t["admission_drops"] == 2, f"two admission drops counted ({t['admission_drops']})")
    u = sw.telemetry("/ina/job,99")
    check(u["registered"] == 0 and u["unregistered"] == 1, "unregistered forward counted")
    # The job's PS may send to a worker through the switch (overflow float request).
    req = ina_frame(PS_IP, HOSTS[0][0], HOSTS[0][1], PS_MAC, JOB, 13, [],
                    flags=F_OVERFLOW | F_RESEND | F_BYPASS, level=1, bitmaps=(1, 0, 0, 0))
    got = exchange(None, ["h0"], [("h2", req)], want={"h0": 1})["h0"]
    check(len([p for p in got if p["seq"] == 13]) == 1, "the PS's float request reaches the worker")
    t = sw.telemetry(f"/ina/job,{JOB}")
    check(t["admission_drops"] == 2, "the PS is not subject to admission")
    check(t["aggregated"] == 0, "nothing aggregated from rejected sources")


def case_forged_result(sw, lcores=1):
    """A parameter packet is taken only from the job's PS: its IP, its MAC, on
    its port. Forged ones neither free the aggregator nor reach any worker."""
    seq = 31
    idx = agg_index(JOB, seq)
    exchange(None, ["h2"], [("h0", gradient(0, seq, [1] * 62, bit=0))], timeout=0.5)
    check(sw.telemetry("/ina/aggregators")["in_use"] == 1, "worker 0's contribution holds an aggregator")
    evil = [9999] * 62
    group = group_of(JOB)
    forged = [
        ("h0", ina_frame(HOSTS[0][0], group[0], group[1], HOSTS[0][1], JOB, seq, evil, flags=F_ACK)),
        ("h0", ina_frame(PS_IP, group[0], group[1], PS_MAC, JOB, seq, evil, flags=F_ACK)),
        ("h2", ina_frame(PS_IP, group[0], group[1], "02:00:00:00:00:99", JOB, seq, evil, flags=F_ACK)),
        ("h1", ina_frame(PS_IP, group[0], group[1], PS_MAC, JOB, seq, evil, flags=F_ACK, index=idx)),
    ]
    got = exchange(None, ["h0", "h1"], forged, timeout=1.5)
    # The sniffers see what the test itself sends out of h0 (two) and h1 (one).
    n0 = len([p for p in got["h0"] if p["flags"] & F_ACK])
    n1 = len([p for p in got["h1"] if p["flags"] & F_ACK])
    check(n0 == 2 and n1 == 1, f"no forged parameter packet reaches a worker ({n0 - 2}, {n1 - 1})")
    s = sw.telemetry("/ina/summary")
    t = sw.telemetry(f"/ina/job,{JOB}")
    check(s["forged_result_drops"] == 4 and t["forged_result_drops"] == 4,
          f"four forged results counted ({s['forged_result_drops']}, job {t['forged_result_drops']})")
    check(s["multicast_copies"] == 0 and sw.telemetry("/ina/aggregators")["in_use"] == 1,
          "nothing replicated, the aggregator still held")
    # The other workers complete it: the sum is the workers' alone.
    got = exchange(None, ["h2"], [("h1", gradient(1, seq, [2] * 62, bit=1)),
                                  ("h1", gradient(2, seq, [3] * 62, bit=2))], want={"h2": 1})["h2"]
    check(len(got) == 1 and got[0]["values"] == [6] * 62, "the result is the three workers' sum")
    real = ina_frame(PS_IP, group[0], group[1], PS_MAC, JOB, seq, [6] * 62, flags=F_ACK)
    got = exchange(None, ["h0", "h1"], [("h2", real)], want={"h0": 1, "h1": 1})
    check(len([p for p in got["h0"] if p["flags"] & F_ACK]) == 1 and
          len([p for p in got["h1"] if p["flags"] & F_ACK]) == 1, "the PS's own parameter packet is replicated")
    check(sw.telemetry("/ina/aggregators")["in_use"] == 0, "and frees the aggregator")


def case_spoof(sw, lcores=1):
    """A gradient is admitted only from its worker's port and MAC: another
    host using a worker's IP (on its own port, or with its own MAC on the
    worker's segment) is dropped under spoof_port_drops / spoof_mac_drops and
    holds no aggregator."""
    seq = 41
    ip0, mac0 = HOSTS[0]
    bad = [
        # worker 0's addresses from the port of workers 1 and 2
        ("h1", ina_frame(ip0, PS_IP, PS_MAC, mac0, JOB, seq, [1000] * 62, bitmaps=(1, 0, 0, 0))),
        ("h1", ina_frame(ip0, PS_IP, PS_MAC, mac0, JOB, seq + 1, [1000] * 62, bitmaps=(1, 0, 0, 0))),
        # worker 0's IP on its own port with another MAC
        ("h0", ina_frame(ip0, PS_IP, PS_MAC, "02:00:00:00:00:77", JOB, seq, [1000] * 62,
                         bitmaps=(1, 0, 0, 0))),
        # the PS's address from a worker port (a forged float request)
        ("h1", ina_frame(PS_IP, ip0, mac0, PS_MAC, JOB, seq, [], flags=F_OVERFLOW | F_RESEND | F_BYPASS,
                         level=1, bitmaps=(1, 0, 0, 0))),
    ]
    got = exchange(None, ["h0", "h2"], bad, timeout=1.5)
    # h0's sniffer sees the one frame the test sends out of h0.
    check(len(got["h0"]) == 1 and not got["h2"], "nothing spoofed gets through")
    s = sw.telemetry("/ina/summary")
    t = sw.telemetry(f"/ina/job,{JOB}")
    check(s["spoof_port_drops"] == 3 and s["spoof_mac_drops"] == 1,
          f"counted: spoof_port_drops {s['spoof_port_drops']}, spoof_mac_drops {s['spoof_mac_drops']}")
    check(t["spoof_drops"] == 4 and t["admission_drops"] == 0 and t["aggregated"] == 0,
          f"per job: spoof_drops {t['spoof_drops']}, nothing aggregated")
    check(sw.telemetry("/ina/aggregators")["in_use"] == 0, "no aggregator held by spoofed gradients")
    good = [("h0", gradient(0, seq, [1] * 62, bit=0)), ("h1", gradient(1, seq, [2] * 62, bit=1)),
            ("h1", gradient(2, seq, [3] * 62, bit=2))]
    got = exchange(None, ["h2"], good, want={"h2": 1})["h2"]
    check(len(got) == 1 and got[0]["values"] == [6] * 62, "the real workers' sum is exact")


def send_now(iface, frames):
    """Sends at once (exchange() waits for its sniffers first)."""
    from scapy.all import sendp
    sendp(frames, iface=iface, verbose=False)


def claim_job21(sw, seqs, value=1, epoch=1):
    """Worker 0 of job 21 (fan-in 2, run `epoch`) contributes to each fragment
    of seqs; returns the aggregators in use 0.2 s later."""
    send_now("h0", [gradient(0, s, [value] * 62, bit=0, job=21, fan_in=(2, 0, 0, 0), epoch=epoch)
                    for s in seqs])
    time.sleep(0.2)
    return sw.telemetry("/ina/aggregators")["in_use"]


def case_unregister_frees(sw, lcores=1):
    """Removing a job frees its aggregators at once; registering it again
    with new content starts from empty aggregators; a refresh (same content)
    keeps them."""
    workers = [(HOSTS[0][0], HOSTS[0][1], 0), (HOSTS[1][0], HOSTS[1][1], 1)]
    exchange(None, ["h2"], [("h2", ctrl(1, workers))], timeout=1, want={"h2": 1})
    check(claim_job21(sw, range(1, 9)) == 8, "job 21 holds eight aggregators")
    exchange(None, ["h2"], [("h2", ctrl(1, workers, status=1, epoch=1))], timeout=1, want={"h2": 1})
    check(sw.telemetry("/ina/aggregators")["in_use"] == 8, "a refresh (renewal of epoch 1) keeps them")
    exchange(None, ["h2"], [("h2", ctrl(2, []))], timeout=1, want={"h2": 1})
    time.sleep(0.2)
    check(sw.telemetry("/ina/aggregators")["in_use"] == 0, "unregistering frees all eight at once")
    s = sw.telemetry("/ina/summary")
    check(s["purge_frees"] == 8 and sw.telemetry("/ina/job,21")["purge_frees"] == 8,
          f"counted as purge_frees ({s['purge_frees']})")
    # A new registration with other content (the job restarted with worker
    # 1's bit moved) must not see the old run's partial sums.
    exchange(None, ["h2"], [("h2", ctrl(1, workers))], timeout=1, want={"h2": 1})
    check(claim_job21(sw, [1], value=1000, epoch=2) == 1, "the old run (epoch 2) holds a partial sum for seq 1")
    moved = [(HOSTS[0][0], HOSTS[0][1], 1), (HOSTS[1][0], HOSTS[1][1], 0)]
    exchange(None, ["h2"], [("h2", ctrl(1, moved))], timeout=1, want={"h2": 1})
    time.sleep(0.2)
    check(sw.telemetry("/ina/aggregators")["in_use"] == 0, "re-registration with new content frees it")
    g = [("h0", gradient(0, 1, [4] * 62, bit=1, job=21, fan_in=(2, 0, 0, 0), epoch=3)),
         ("h1", gradient(1, 1, [5] * 62, bit=0, job=21, fan_in=(2, 0, 0, 0), epoch=3))]
    got = exchange(None, ["h2"], g, want={"h2": 1})["h2"]
    check(len(got) == 1 and got[0]["values"] == [9] * 62,
          f"the new run's sum has nothing of the old one ({got[0]['values'][:2] if got else None})")


def case_share(sw, lcores=1):
    """Fair share (docs/security.md): config job 7 may hold max_aggregators = 4,
    split over the lcores as the aggregators are. Worker 0 starts 12 fragments
    (indices 0..11, six per lcore with two): 4 claim, the other 8 are refused
    and go to the PS whole with RESEND|COLLISION, counted share_refusals per
    lcore and per job. The other two workers' packets complete the 4 held
    fragments in the switch and follow the refused ones to the PS: every sum
    is exact. The parameter packets free the 4, and the job claims again. A
    job a PS registers gets the switch's default, job_share (0.25) of 1024."""
    vals = {w: [w * 100 + i for i in range(62)] for w in range(3)}
    want = [sum(vals[w][i] for w in range(3)) for i in range(62)]
    seqs = list(range(1000, 1012))
    first = [("h0", gradient(0, q, vals[0], bit=0, index=q - 1000)) for q in seqs]
    got = exchange(None, ["h2"], first, want={"h2": 8})["h2"]
    refused = sorted(p["seq"] for p in got)
    check(len(refused) == 8 and all(p["flags"] & 0xFF == F_RESEND | F_COLLISION and p["level"] == 1 and
                                    p["values"] == vals[0] and p["bitmap"][0] == 1 for p in got),
          f"8 of 12 claims refused, sent on whole with RESEND|COLLISION ({len(got)})")
    t = sw.telemetry(f"/ina/job,{JOB}")
    check(t["max_aggregators"] == 4 and t["aggregators_held"] == 4 and t["share_refusals"] == 8,
          f"/ina/job: holds {t['aggregators_held']} of max {t['max_aggregators']}, "
          f"share_refusals {t['share_refusals']}")
    per_lcore = [sw.telemetry(f"/ina/lcore,{k}")["share_refusals"] for k in range(lcores)]
    held = [sw.telemetry(f"/ina/lcore,{k}")["aggregators_in_use"] for k in range(lcores)]
    check(per_lcore == [8 // lcores] * lcores and held == [4 // lcores] * lcores,
          f"each lcore holds its share ({held}) and counts its refusals ({per_lcore})")
    rest = [(("h1", gradient(w, q, vals[w], bit=w, index=q - 1000))) for q in seqs for w in (1, 2)]
    got = exchange(None, ["h2"], rest, want={"h2": 20})["h2"]
    results = {p["seq"]: p for p in got if not p["flags"] & F_RESEND}
    whole = [p for p in got if p["flags"] & F_RESEND]
    check(sorted(results) == sorted(set(seqs) - set(refused)) and
          all(p["values"] == want and p["bitmap"][0] == 7 for p in results.values()),
          f"the 4 held fragments complete in the switch with exact sums ({sorted(results)})")
    sums = {q: [sum(p["values"][i] for p in whole if p["seq"] == q) + vals[0][i] for i in range(62)]
            for q in refused}
    check(len(whole) == 16 and all(v == want for v in sums.values()),
          f"the refused fragments reach the PS whole, their sums exact ({len(whole)} packets)")
    check(sw.telemetry(f"/ina/job,{JOB}")["share_refusals"] == 24, "24 refusals in all")
    acks = [("h2", ina_frame(PS_IP, *group_of(JOB), PS_MAC, JOB, q,
                             want, flags=F_ACK, index=q - 1000)) for q in sorted(results)]
    exchange(None, ["h0"], acks, want={"h0": 4})
    check(sw.telemetry(f"/ina/job,{JOB}")["aggregators_held"] == 0 and
          sw.telemetry("/ina/aggregators")["in_use"] == 0, "the parameter packets free all 4")
    again = [("h0", gradient(0, q, vals[0], bit=0, index=q - 2000)) for q in range(2000, 2012)]
    got = exchange(None, ["h2"], again, want={"h2": 8})["h2"]
    check(len(got) == 8 and sw.telemetry(f"/ina/job,{JOB}")["aggregators_held"] == 4,
          f"freed, the job claims its 4 again ({len(got)} refused)")
    exchange(None, ["h2"], [("h2", ctrl(1, [(HOSTS[0][0], HOSTS[0][1], 0)]))], timeout=1, want={"h2": 1})
    t = sw.telemetry("/ina/job,21")
    check(t["registered"] == 1 and t["max_aggregators"] == 256,
          f"a job registered by its PS may hold job_share 0.25 of 1024 ({t.get('max_aggregators')})")
    check("max 256 of 1024 aggregators" in sw.output() and "max 4 of 1024 aggregators" in sw.output(),
          "each registration logs its limit")


def case_restart_dead_run(sw, lcores=1):
    """A job's only worker dies mid-run (its PS too: nothing ACKs), and the
    same job id is restarted at once, before any sweep (gc_timeout_ms = 0),
    with identical content. The new run gets a new epoch; the dead run's
    aggregators are freed and its late packets dropped, so the new run's sums
    are exact. Before epochs the identical registration was a refresh: the
    new run's gradients matched the dead run's <job, seq> and came out with
    the dead run's 1000 added."""
    one = [(HOSTS[0][0], HOSTS[0][1], 0)]
    got = exchange(None, ["h2"], [("h2", ctrl(1, one, fan_in=1))], timeout=1, want={"h2": 1})["h2"]
    check(ack_epochs(got) == [1], f"run 1 gets epoch 1 ({ack_epochs(got)})")
    dead = [("h0", gradient(0, s, [1000] * 62, bit=0, job=21, fan_in=(1, 0, 0, 0), epoch=1))
            for s in range(1, 9)]
    got = exchange(None, ["h2"], dead, want={"h2": 8})["h2"]
    check(len(got) == 8 and sw.telemetry("/ina/aggregators")["in_use"] == 8,
          "run 1's worker completed eight fragments, no ACK came: eight aggregators held")
    got = exchange(None, ["h2"], [("h2", ctrl(1, one, fan_in=1))], timeout=1, want={"h2": 1})["h2"]
    check(ack_epochs(got) == [2], f"the restart (a new run, same content) gets epoch 2 ({ack_epochs(got)})")
    time.sleep(0.2)
    check(sw.telemetry("/ina/aggregators")["in_use"] == 0, "the dead run's aggregators are freed at once")
    # Late packets of the dead run: dropped, never claim an aggregator.
    send_now("h0", [gradient(0, s, [1000] * 62, bit=0, job=21, fan_in=(1, 0, 0, 0), epoch=1)
                    for s in range(9, 13)])
    time.sleep(0.2)
    s = sw.telemetry("/ina/summary")
    j = sw.telemetry("/ina/job,21")
    check(s["stale_epoch_drops"] == 4 and j["stale_epoch_drops"] == 4,
          f"the dead run's late packets are counted as stale_epoch_drops ({s['stale_epoch_drops']})")
    check(sw.telemetry("/ina/aggregators")["in_use"] == 0, "and hold nothing")
    new = [("h0", gradient(0, s, [3] * 62, bit=0, job=21, fan_in=(1, 0, 0, 0), epoch=2))
           for s in range(1, 13)]
    got = exchange(None, ["h2"], new, want={"h2": 12})["h2"]
    vals = sorted({tuple(p["values"]) for p in got if p["job"] == 21})
    check(len(got) == 12 and vals == [tuple([3] * 62)],
          f"the new run's sums are exact ({len(got)} results, values {[v[:1] for v in vals]})")
    check(all(p["flags"] >> 8 == 2 for p in got), "its results carry epoch 2")


def case_stale_renewal(sw, lcores=1):
    """docs/ps.md, "Restarting a PS": a renewal is applied only for the
    job's run. A new-run request resent (its ACK late) gets a second epoch;
    the PS kept the first ACK's and renews it, and that run, nobody else's,
    is taken back. Once the job's run has been renewed, a renewal of an
    older epoch (a stale PS, or a restarted one resuming the wrong run) is
    denied (control_denied) and the job keeps its epoch."""
    one = [(HOSTS[0][0], HOSTS[0][1], 0)]

    def send(status=0, epoch=0):
        got = exchange(None, ["h2"], [("h2", ctrl(1, one, fan_in=1, status=status, epoch=epoch))],
                       timeout=1, want={"h2": 1})["h2"]
        a = acks(got)
        check(len(a) == 1, f"one ACK per message ({a})")
        return a[0][1], ack_epochs(got)[0]

    check(send() == (wire.INA_CTRL_APPLIED, 1), "a new run gets epoch 1")
    check(send() == (wire.INA_CTRL_APPLIED, 2), "its resend, a new run too, gets epoch 2")
    check(send(1, 1) == (wire.INA_CTRL_APPLIED, 1),
          "the PS renews the epoch of the first ACK: the resend's unrenewed run yields to it")
    check(sw.telemetry("/ina/job,21")["epoch"] == 1, "the job runs epoch 1 again")
    check(send() == (wire.INA_CTRL_APPLIED, 2), "a new run of the job: epoch 2")
    check(send(1, 2) == (wire.INA_CTRL_APPLIED, 2), "renewed by its PS")
    status, epoch = send(1, 1)
    check(status == wire.INA_CTRL_DENIED and epoch == 0,
          f"a renewal of the older run 1 is denied ({status}, epoch {epoch})")
    check(sw.telemetry("/ina/summary")["control_denied"] == 1, "and counted control_denied")
    check(sw.telemetry("/ina/job,21")["epoch"] == 2, "the job keeps epoch 2")
    check("renewal of job 21 epoch 1 from" in sw.output(), "the switch logs the stale renewal")


def case_sweep(sw, lcores=1):
    """gc_timeout_ms = 500: aggregators idle past it are freed by each lcore's
    sweep, with no other packet landing on them."""
    exchange(None, ["h0"], [("h2", ctrl(1, [(HOSTS[0][0], HOSTS[0][1], 0),
                                            (HOSTS[1][0], HOSTS[1][1], 1)]))], timeout=0.5)
    time.sleep(0.3)
    check(21 in sw.telemetry("/ina/jobs"), "job 21 registered")
    check(claim_job21(sw, range(1, 21)) == 20, "a job's worker holds twenty aggregators, then dies")
    time.sleep(1.5)
    a = sw.telemetry("/ina/aggregators")["in_use"]
    s = sw.telemetry("/ina/summary")
    check(a == 0 and s["sweep_frees"] == 20, f"all twenty freed by the sweep ({a} left, {s['sweep_frees']} swept)")
    check(sw.telemetry("/ina/job,21")["gc_frees"] == 20, "counted as the job's gc_frees")


def case_lease(sw, lcores=1):
    """A PS that says it re-registers every 200 ms keeps its job while it does;
    once it stops, the job expires after lease_refreshes (3) x 200 ms and its
    aggregators are freed."""
    workers = [(HOSTS[0][0], HOSTS[0][1], 0), (HOSTS[1][0], HOSTS[1][1], 1)]
    for i in range(8):
        # The first registration is a new run (epoch 1), the rest renew it.
        send_now("h2", [ctrl(1, workers, refresh_ms=200, status=min(i, 1), epoch=min(i, 1))])
        time.sleep(0.15)
        if i == 1:
            send_now("h0", [gradient(0, s, [1] * 62, bit=0, job=21, fan_in=(2, 0, 0, 0), epoch=1)
                            for s in range(1, 5)])
    check(21 in sw.telemetry("/ina/jobs"), "a refreshing PS keeps its job")
    check(sw.telemetry("/ina/aggregators")["in_use"] == 4, "and its aggregators")
    check("lease 600 ms" in sw.output(), "the lease is logged at registration")
    time.sleep(1.2)
    check(21 not in sw.telemetry("/ina/jobs"), "expired once its PS stopped")
    s = sw.telemetry("/ina/summary")
    check(s["lease_expiries"] == 1 and sw.telemetry("/ina/aggregators")["in_use"] == 0,
          f"lease_expiries {s['lease_expiries']}, aggregators freed")
    check(re.search(r"job 21 expired: PS 10.0.0.100 has not renewed", sw.output()) is not None,
          "the expiry is logged")
    # The config job (no lease) never expires.
    check(JOB in sw.telemetry("/ina/jobs"), f"config job {JOB} stays")


def case_ecn(sw, lcores=1):
    # Port 2 (to the PS) is shaped to 2 Mbit/s with ECN above 4 packets:
    # a burst of 40 frames queues up, later ones leave marked.
    filler = [("h0", ina_frame(HOSTS[0][0], PS_IP, PS_MAC, HOSTS[0][1], 99, s, [0] * 62,
                               bitmaps=(1, 0, 0, 0))) for s in range(40)]
    agg = [("h0", gradient(0, 300, [1] * 62, bit=0)), ("h1", gradient(1, 300, [2] * 62, bit=1)),
           ("h1", gradient(2, 300, [3] * 62, bit=2))]
    from scapy.all import sendp
    got = exchange(None, ["h2"], filler + agg, timeout=6, want={"h2": 41})["h2"]
    marked = [p for p in got if p["flags"] & F_ECN]
    check(len(got) >= 30, f"shaped port delivers the burst ({len(got)} of 41)")
    check(marked and all(p["tos"] & 3 == 3 for p in marked),
          f"{len(marked)} packets carry INA ECN and IP CE")
    check(not (got[0]["flags"] & F_ECN), "the first packet (empty queue) is not marked")
    res = [p for p in got if p["job"] == JOB]
    check(len(res) == 1 and res[0]["values"] == [6] * 62 and res[0]["flags"] & F_ECN,
          "aggregated result keeps the ECN mark")
    t = sw.telemetry("/ina/port,2")
    check(t["ecn_marks"] >= len(marked) > 0, f"port telemetry counts ECN marks ({t['ecn_marks']})")


def case_random_drop(sw, lcores=1):
    # Port 2 (to the PS) drops with probability 0.5; other ports drop nothing.
    n = 200
    burst = [("h0", ina_frame(HOSTS[0][0], PS_IP, PS_MAC, HOSTS[0][1], 99, s, [0] * 62,
                              bitmaps=(1, 0, 0, 0))) for s in range(n)]
    got = exchange(None, ["h2"], burst, timeout=4, want={"h2": n})["h2"]
    t = sw.telemetry("/ina/port,2")
    check(50 <= len(got) <= 150, f"about half arrive with drop_rate 0.5 ({len(got)} of {n})")
    check(t["random_drops"] == n - len(got), f"every random drop counted ({t['random_drops']})")
    check(sw.telemetry("/ina/port,0")["random_drops"] == 0, "drop rate is per port (off elsewhere)")


def case_gc(sw, lcores=1):
    # gc_timeout_ms = 2500. Worker 0 claims an aggregator for seq 400 and
    # dies; the parameter packet of another fragment (seq 401) hashed to
    # the same index frees it, but only after the timeout.
    idx = agg_index(JOB, 400)
    claim = gradient(0, 400, [1] * 62, bit=0)
    exchange(None, ["h2"], [("h0", claim)], timeout=0.5)
    a = sw.telemetry("/ina/aggregators")
    check(a["in_use"] == 1, "aggregator held by the dead fragment")
    ack = ina_frame(PS_IP, *group_of(JOB), PS_MAC, JOB, 401,
                    [0] * 62, flags=F_ACK, index=idx)
    exchange(None, ["h0"], [("h2", ack)], timeout=0.5)
    a = sw.telemetry("/ina/aggregators")
    check(a["in_use"] == 1, "a fresh aggregator is not collected")
    time.sleep(2.5)
    exchange(None, ["h0"], [("h2", ack)], timeout=0.5)
    a = sw.telemetry("/ina/aggregators")
    check(a["in_use"] == 0, "stale aggregator freed after the timeout")
    t = sw.telemetry(f"/ina/job,{JOB}")
    check(t["gc_frees"] == 1, f"GC free counted ({t['gc_frees']})")
    again = [("h0", gradient(0, 402, [1] * 62, bit=0, index=idx)),
             ("h1", gradient(1, 402, [2] * 62, bit=1, index=idx)),
             ("h1", gradient(2, 402, [3] * 62, bit=2, index=idx))]
    got = exchange(None, ["h2"], again, want={"h2": 1})["h2"]
    check(len(got) == 1 and got[0]["seq"] == 402 and got[0]["values"] == [6] * 62 and
          not got[0]["flags"] & F_COLLISION, "the freed aggregator completes a new fragment")


def case_forwarding(sw, lcores=1):
    """Non-INA traffic: ARP, ICMP, TCP through the switch, plus ARP for the switch."""
    from scapy.all import Ether, ARP, IP, ICMP, TCP, AsyncSniffer, sendp, srp1, conf
    conf.verb = 0
    sn = {i: AsyncSniffer(iface=i, store=True) for i in ("h1", "h2")}
    for s in sn.values():
        s.start()
    time.sleep(0.5)
    h0ip, h0mac = HOSTS[0]
    sendp(Ether(src=h0mac, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=h0mac, psrc=h0ip,
                                                          pdst=PS_IP), iface="h0")
    sendp(Ether(src=h0mac, dst=PS_MAC) / IP(src=h0ip, dst=PS_IP) / ICMP(id=77), iface="h0")
    sendp(Ether(src=h0mac, dst=PS_MAC) / IP(src=h0ip, dst=PS_IP) / TCP(sport=1234, dport=80),
          iface="h0")
    time.sleep(1.0)
    res = {i: s.stop() for i, s in sn.items()}
    h2 = res["h2"]
    check(any(ARP in p and p[ARP].pdst == PS_IP for p in h2), "ARP request forwarded by target IP")
    check(not any(ARP in p for p in res["h1"]), "ARP for a known target is not flooded")
    check(any(ICMP in p and p[ICMP].id == 77 for p in h2), "ICMP forwarded by the neighbour table")
    check(any(TCP in p and p[TCP].dport == 80 for p in h2), "TCP forwarded by the neighbour table")
    r = srp1(Ether(src=h0mac, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=h0mac, psrc=h0ip,
                                                             pdst=SW_IP), iface="h0", timeout=2)
    check(r is not None and ARP in r and r[ARP].op == 2 and r[ARP].hwsrc == SW_MAC,
          "switch answers ARP for its own IP")


def case_malformed(sw, lcores=1):
    """Frames to the INA UDP port without a valid INA header are dropped,
    each counted under its own reason: a truncated header `malformed_short`,
    version 2 `malformed_version`, job 0 `malformed_job` (in /ina/summary,
    /ina/pipeline and /ina/lcore,<k>), their total `malformed`; plain UDP to
    the next port still passes. (A runt cannot be sent here: the kernel
    refuses frames shorter than Ethernet's header on a packet socket.)"""
    from scapy.all import Ether, IP, UDP, Raw
    h0ip, h0mac = HOSTS[0]
    good = gradient(0, 300, [1] * 62, bit=0)
    raw = bytes(good[UDP].payload)
    base = Ether(dst=PS_MAC, src=h0mac) / IP(src=h0ip, dst=PS_IP)
    bad = [
        base / UDP(sport=40000, dport=UDP_PORT, chksum=0) / Raw(raw[:20]),   # short INA header
        base / UDP(sport=40000, dport=UDP_PORT, chksum=0) / Raw(bytes([2]) + raw[1:]),  # version 2
        base / UDP(sport=40000, dport=UDP_PORT, chksum=0) / Raw(raw[:4] + b"\0\0" + raw[6:]),  # job 0
    ]
    assert wire.unpack_ina(raw)["job_id"] == JOB and wire.INA_HDR.offsets["job_id"] == 4  # bytes 4..5
    plain = base / UDP(sport=40000, dport=UDP_PORT + 1) / Raw(b"x" * 40)
    before = sw.telemetry("/ina/summary")
    sends = [("h0", p) for p in bad] + [("h0", plain)]
    from scapy.all import AsyncSniffer, sendp
    sn = AsyncSniffer(iface="h2", store=True, filter="udp")
    sn.start()
    time.sleep(0.5)
    for i, p in sends:
        sendp(p, iface=i, verbose=False)
    deadline = time.time() + 5
    while time.time() < deadline:
        after = sw.telemetry("/ina/summary")
        if after["malformed"] - before["malformed"] >= 3:
            break
        time.sleep(0.1)
    time.sleep(0.3)
    got = sn.stop()
    check(after["malformed"] - before["malformed"] == 3,
          f"three malformed INA frames counted ({after['malformed'] - before['malformed']})")
    reasons = ("malformed_short", "malformed_version", "malformed_job")
    moved = {k: after[k] - before[k] for k in after if k.startswith("malformed_") and after[k] != before[k]}
    check(moved == {k: 1 for k in reasons}, f"one each under its own reason: {moved}")
    pipe = sw.telemetry("/ina/pipeline")
    lc = [sw.telemetry(f"/ina/lcore,{k}") for k in range(lcores)]
    check(all(pipe[k] == after[k] == sum(t[k] for t in lc) for k in reasons),
          f"/ina/pipeline and the lcores agree: {[(k, pipe[k], [t[k] for t in lc]) for k in reasons]}")
    check(not any(UDP in p and p[UDP].dport == UDP_PORT for p in got),
          "no malformed INA frame reaches the PS")
    check(any(UDP in p and p[UDP].dport == UDP_PORT + 1 for p in got), "plain UDP still forwarded")
    check(after["no_route"] == before["no_route"], "nothing counted under no_route")


def case_runtime(sw, lcores=1):
    # /ina/runtime (docs/switchd.md, "The chain"): per stage, the packets
    # the chain took, on each lcore and summed. Four fragments of three
    # workers: every gradient through classify, admission and the pipeline;
    # one result per fragment through forward and egress.
    before = sw.telemetry("/ina/runtime")
    seqs = [21, 22, 23, 24]
    sends = [("h0" if w == 0 else "h1", gradient(w, seq, [w + 1] * 62, bit=w)) for seq in seqs for w in range(3)]
    got = exchange(None, ["h2"], sends, want={"h2": len(seqs)})["h2"]
    check(len([p for p in got if p["job"] == JOB]) == len(seqs), "one result per fragment")
    after = sw.telemetry("/ina/runtime")
    stages = ["rx", "classify", "handoff", "admission", "pipeline", "netreduce", "control", "forward",
              "replicate", "egress", "tx", "total"]
    check(all(k in after for k in stages) and after["lcores"] == lcores and after["tsc_hz"] > 0,
          f"/ina/runtime names every stage ({sorted(k for k in after if isinstance(after[k], dict))})")
    d = {k: {f: after[k][f] - before[k][f] for f in ("calls", "packets", "cycles")} for k in stages}
    n = len(sends)
    # ARP or other host traffic may come in the window too: at least ours.
    check(d["classify"]["packets"] >= n, f"classify took the {n} gradients ({d['classify']['packets']})")
    # rx counts the RX queues' bursts and, with several lcores, the hand-off
    # rings' too: at least what classify took.
    check(d["rx"]["packets"] >= d["classify"]["packets"], "rx took what classify did")
    check(d["admission"]["packets"] >= n and d["pipeline"]["packets"] >= n,
          f"admission and the pipeline took every gradient ({d['admission']['packets']}, "
          f"{d['pipeline']['packets']})")
    check(d["forward"]["packets"] >= len(seqs) and d["egress"]["packets"] >= len(seqs),
          f"forward and egress took every result ({d['forward']['packets']}, {d['egress']['packets']})")
    for k in stages:
        if d[k]["packets"]:
            check(d[k]["calls"] > 0 and d[k]["cycles"] > 0, f"{k}: calls and cycles with its packets")
    check(d["netreduce"]["packets"] == 0, "no RoCEv2 here: netreduce idle")
    one = [sw.telemetry(f"/ina/runtime,{k}") for k in range(lcores)]
    check(sum(x["pipeline"]["packets"] for x in one) == after["pipeline"]["packets"],
          "the lcores' rows sum to /ina/runtime's")


def case_too_wide(sw, lcores=1):
    """Gradients wider than the switch's elements (62): 100 elements from
    each of the three workers reach the PS unaggregated, RESEND | COLLISION
    and level + 1, values intact; the PS's parameter packet, as wide,
    reaches every worker. Counted too_wide (/ina/pipeline, /ina/summary and
    /ina/job,7 with too_wide_elements 100) and logged once for the job with
    both sizes, however many arrive."""
    n = 100
    vals = [[i * 3 + w * 1000 for i in range(n)] for w in range(3)]
    seqs = (400, 401)
    sends = [("h0" if w == 0 else "h1", gradient(w, seq, vals[w], bit=w)) for seq in seqs for w in range(3)]
    got = exchange(None, ["h2"], sends, want={"h2": len(sends)})["h2"]
    mine = [p for p in got if p["job"] == JOB and p["seq"] in seqs]
    check(len(mine) == len(sends), f"every too-wide gradient reached the PS ({len(mine)} of {len(sends)})")
    for p in mine:
        check(p["flags"] & (F_RESEND | F_COLLISION) == F_RESEND | F_COLLISION and p["level"] == 1,
              f"marked like a collision, level 1: flags {p['flags']:#x} level {p['level']}")
        w = p["bitmap"][0].bit_length() - 1
        check(p["elems"] == n and p["values"] == vals[w], f"worker {w}'s {n} values intact")
    # The PS sums what it got (each worker once) and answers as wide.
    for seq in seqs:
        total = [sum(vals[w][i] for w in range(3)) for i in range(n)]
        ack = ina_frame(PS_IP, *group_of(JOB), PS_MAC, JOB, seq, total, flags=F_ACK)
        res = exchange(None, ["h0", "h1"], [("h2", ack)], want={"h0": 1, "h1": 1})
        for h in ("h0", "h1"):
            acks = [p for p in res[h] if p["flags"] & F_ACK and p["seq"] == seq]
            check(acks and acks[0]["values"] == total, f"{h} gets seq {seq}'s {n}-element result")
    pipe, summ, job = (sw.telemetry(c) for c in ("/ina/pipeline", "/ina/summary", f"/ina/job,{JOB}"))
    check(pipe["too_wide"] == summ["too_wide"] == job["too_wide"] == len(sends),
          f"too_wide {pipe['too_wide']} / {summ['too_wide']} / {job['too_wide']}, want {len(sends)}")
    check(job["too_wide_elements"] == n, f"too_wide_elements {job['too_wide_elements']}")
    check(summ["malformed"] == 0 and job["malformed"] == 0, "nothing dropped as malformed")
    time.sleep(0.3)  # the control thread looks every 50 ms
    warned = [l for l in sw.output().splitlines() if f"job {JOB}: a gradient of" in l]
    check(len(warned) == 1 and f"of {n} elements" in warned[0] and "(62 elements)" in warned[0],
          f"one warning for the job, with both sizes: {warned}")


SRC_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def case_trace(sw, lcores=1):
    """The packet trace (/ina/trace, tools/ina-trace): armed, it records a
    claiming gradient, a colliding one and a malformed frame with their
    input and the counters of their path: the claim, the collision and its
    fallback to the PS, the malformed drop."""
    from scapy.all import Ether, IP, UDP, Raw, sendp
    tool = os.path.join(SRC_ROOT, "tools", "ina-trace")
    tracer = subprocess.Popen(["/usr/bin/python3", tool, "--file-prefix", sw.prefix, "-n", "40",
                               "--wait", "4", "--json"], stdout=subprocess.PIPE, text=True)
    time.sleep(1.0)  # armed before the packets leave
    idx = agg_index(JOB, 100)
    first = gradient(0, 100, [1] * 62, bit=0)
    other = gradient(1, 200, [2] * 62, bit=1, index=idx)
    raw = bytes(first[UDP].payload)
    h0ip, h0mac = HOSTS[0]
    bad = Ether(dst=PS_MAC, src=h0mac) / IP(src=h0ip, dst=PS_IP) / \
        UDP(sport=40000, dport=UDP_PORT, chksum=0) / Raw(bytes([2]) + raw[1:])
    for iface, p in (("h0", first), ("h1", other), ("h0", bad)):
        sendp(p, iface=iface, verbose=False)
        time.sleep(0.2)
    out, _ = tracer.communicate(timeout=30)
    check(tracer.returncode == 0, f"ina-trace exits 0 ({tracer.returncode})")
    recs = [json.loads(line) for line in out.splitlines() if line.strip()]
    ina = {(r.get("seq"), r.get("job")): r for r in recs if r["class"] == "ina" and "to_lcore" not in r}
    claim, coll = ina.get((100, JOB)), ina.get((200, JOB))
    check(claim is not None, f"the claiming gradient is traced ({len(recs)} records)")
    check(coll is not None, "the colliding gradient is traced")
    check(claim["agg_index"] == idx and claim["bitmap"] == 1 and claim["src"] == h0ip,
          f"its input fields as sent ({claim})")
    check({"pipeline/claimed", "pipeline/aggregated", "job/aggregated"} <= set(claim["steps"]),
          f"the claim's path: {claim['steps']}")
    check({"pipeline/collision", "job/collisions", "job/sent_to_ps"} <= set(coll["steps"]),
          f"the collision's path names the collision and the PS fallback: {coll['steps']}")
    check(coll["agg_index"] == idx and coll["bitmap"] == 2, f"the collision's input ({coll})")
    bad_recs = [r for r in recs if r["class"] == "dropped_in_classify"]
    check(any("pipeline/malformed_version" in r["steps"] for r in bad_recs),
          f"the malformed frame ends in pipeline/malformed_version ({bad_recs})")
    text = subprocess.run(["/usr/bin/python3", tool, "--file-prefix", sw.prefix, "--read-only"],
                          capture_output=True, text=True, timeout=30).stdout
    check("seq 200" in text and "pipeline/collision" in text, "the readable form names them too")


def scrape(url, accept=None):
    import urllib.request
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers.get("Content-Type", ""), r.read().decode()


def counter_helps():
    """{list: {name: help}} from the counter lists' X-macros (third column)."""
    lists = {"port": ("switchd/src/stats.h", "SWITCHD_PORT_COUNTERS"),
             "lcore": ("switchd/src/stats.h", "SWITCHD_LCORE_COUNTERS"),
             "job": ("switchd/src/stats.h", "SWITCHD_JOB_COUNTERS"),
             "pipeline": ("pipeline/include/ina/pipeline.h", "INA_PIPELINE_COUNTERS")}
    out = {}
    for key, (path, macro) in lists.items():
        text = open(os.path.join(SRC_ROOT, path)).read()
        block = text[text.index("#define " + macro):]
        out[key] = dict(re.findall(r'X\((\w+), k\w+, "([^"]*)"\)', block[:block.index("\n\n")]))
    return out


def case_exporter(sw, lcores=1):
    """tools/ina-exporter against the running switch: every number of
    /ina/summary, /ina/port, /ina/lcore and /ina/job is a metric with the
    kind and help of its counter list, equal to what telemetry says; drops
    by reason; OpenMetrics on request; a switch that does not answer is
    up 0, not a crash; a bad command line exits 2."""
    from prometheus_client.parser import text_string_to_metric_families
    from scapy.all import Ether, IP, UDP, Raw
    tool = os.path.join(SRC_ROOT, "tools", "ina-exporter")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exp = spawn(["/usr/bin/python3", tool, "--metrics-port", str(port), "--switchd", f"sw1={sw.prefix}",
                 "--switchd", "gone=swdnosuchprefix"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check("serving http://127.0.0.1:" in exp.stdout.readline(), "ina-exporter says where it serves")
    vals = [[i + w for i in range(62)] for w in range(3)]
    seqs = [11, 12, 13]
    sends = [("h0" if w == 0 else "h1", gradient(w, seq, vals[w], bit=w)) for seq in seqs for w in range(3)]
    raw = bytes(sends[0][1][UDP].payload)
    h0ip, h0mac = HOSTS[0]
    bad = Ether(dst=PS_MAC, src=h0mac) / IP(src=h0ip, dst=PS_IP) / \
        UDP(sport=40000, dport=UDP_PORT, chksum=0) / Raw(bytes([2]) + raw[1:])
    got = exchange(None, ["h2"], sends + [("h0", bad)], want={"h2": len(seqs)})["h2"]
    check(len([p for p in got if p["job"] == JOB]) == len(seqs), "the fragments completed at the PS")
    settled_counters(sw)
    ctype, text = scrape(f"http://127.0.0.1:{port}/metrics")
    fams = {f.name: f for f in text_string_to_metric_families(text)}

    def value(name, **labels):
        f = fams.get(name)
        want = {k: str(v) for k, v in labels.items()}
        vs = [smp.value for smp in f.samples if all(smp.labels.get(k) == v for k, v in want.items())
              and not smp.name.endswith("_created")] if f else []
        return vs[0] if len(vs) == 1 else None

    job = sw.telemetry(f"/ina/job,{JOB}")
    check(value("ina_switchd_job_aggregated", switch="sw1", job=JOB) == job["aggregated"] == 3 * len(seqs),
          f"job {JOB}'s aggregated: {value('ina_switchd_job_aggregated', switch='sw1', job=JOB)} "
          f"= telemetry {job['aggregated']}")
    check(value("ina_switchd_job_completed", switch="sw1", job=JOB) == job["completed"] == len(seqs),
          "job's completed as telemetry says")
    helps = counter_helps()
    # set: metric prefix, telemetry command, labels, the counter lists its numbers come from
    sets = {"summary": ("ina_switchd", "/ina/summary", {}, ("port", "lcore", "pipeline")),
            "port": ("ina_switchd_port", "/ina/port,0", {"port": sw.telemetry("/ina/ports")[0]}, ("port",)),
            "lcore": ("ina_switchd_lcore", "/ina/lcore,0", {"lcore": 0}, ("lcore", "pipeline")),
            "job": ("ina_switchd_job", f"/ina/job,{JOB}", {"job": JOB}, ("job",))}
    for what, (prefix, cmd, labels, from_lists) in sets.items():
        desc = sw.telemetry(f"/ina/counters,{what}")
        tel = sw.telemetry(cmd)
        numbers = {k: v for k, v in tel.items() if isinstance(v, int)}
        missing = sorted(set(numbers) - set(desc))
        check(not missing, f"/ina/counters,{what} describes every number of {cmd} (missing {missing})")
        wrong = []
        for name, v in numbers.items():
            kind, _, help_text = desc[name].partition(" ")
            f = fams.get(f"{prefix}_{name}")
            want_type = "gauge" if kind == "gauge" else "counter"
            lists = [helps[k] for k in from_lists if name in helps[k]]
            if f is None or f.type != want_type or f.documentation != help_text:
                wrong.append(f"{name}: {f and f.type}/{want_type} {f and f.documentation!r}")
            elif lists and help_text not in [h[name] for h in lists]:
                wrong.append(f"{name}: help {help_text!r} is not its list's")
            elif name not in ("busy_ns", "queue_depth") and value(f.name, switch="sw1", **labels) != v:
                wrong.append(f"{name}: {value(f.name, switch='sw1', **labels)} != telemetry {v}")
        check(not wrong, f"{len(numbers)} numbers of {cmd}: metric, type, help and value "
                         f"as telemetry and the counter lists say ({wrong[:5]})")
    kinds = counter_kinds()
    desc = sw.telemetry("/ina/counters,lcore")
    bad_kinds = [n for n, k in {**kinds["lcore"], **kinds["pipeline"]}.items()
                 if desc[n].split(" ")[0] != {"kEvent": "event", "kDrop": "drop", "kGauge": "gauge"}[k]]
    check(not bad_kinds, f"/ina/counters's kinds are the lists' ({bad_kinds})")
    summary = sw.telemetry("/ina/summary")
    check(summary["malformed_version"] >= 1 and
          value("ina_switchd_drops", switch="sw1", reason="malformed_version") == summary["malformed_version"],
          f"drops by reason: malformed_version {summary['malformed_version']}")
    reasons = {smp.labels["reason"] for smp in fams["ina_switchd_drops"].samples}
    want_reasons = {n for n, k in {**kinds["lcore"], **kinds["port"], **kinds["pipeline"]}.items() if k == "kDrop"}
    check(reasons == want_reasons, f"one drops series per drop counter ({sorted(reasons ^ want_reasons)} differ)")
    # The stage costs (/ina/runtime,<k>): one series per stage, the
    # packets as telemetry counted them (nothing moves once settled).
    rt = sw.telemetry("/ina/runtime,0")
    stages = {k: v for k, v in rt.items() if isinstance(v, dict) and k != "total"}
    wrong = [k for k, v in stages.items()
             if value("ina_switchd_stage_packets", switch="sw1", lcore=0, stage=k) != v["packets"]]
    check(stages and not wrong and fams["ina_switchd_stage_cycles"].type == "counter" and
          value("ina_switchd_tsc_hz", switch="sw1") == rt["tsc_hz"],
          f"per stage of lcore 0: {len(stages)} stages' packets as /ina/runtime,0 says ({wrong})")
    check(value("ina_exporter_up", source="sw1", kind="switchd") == 1 and
          value("ina_exporter_up", source="gone", kind="switchd") == 0,
          "ina_exporter_up: 1 for the switch, 0 for a prefix with no switch")
    ctype, om = scrape(f"http://127.0.0.1:{port}/metrics", "application/openmetrics-text; version=1.0.0")
    check(ctype.startswith("application/openmetrics-text") and om.rstrip().endswith("# EOF") and
          "# TYPE ina_switchd_job_aggregated counter" in om, f"OpenMetrics when asked ({ctype})")
    check(exp.poll() is None, "the exporter still runs")
    exp.terminate()
    check(exp.wait(timeout=10) == 0, "the exporter exits 0 on SIGTERM")
    for args, want in ((["--metrics-port", "0", "--switchd", "x"], "--metrics-port 0"),
                       (["--switchd", "x"], "--metrics-port"),
                       (["--metrics-port", str(port)], "nothing to export")):
        r = subprocess.run(["/usr/bin/python3", tool] + args, capture_output=True, text=True, timeout=30)
        check(r.returncode == 2 and want in r.stderr.strip().splitlines()[-1],
              f"ina-exporter {' '.join(args)}: exit 2 naming {want!r}")


def counter_kinds():
    """{list: {name: kind}} from the counter lists' X-macros, whose second
    column is the kind (pipeline/include/ina/counter_kind.h): what switchd
    takes for a drop, read from the same place."""
    lists = {"port": ("switchd/src/stats.h", "SWITCHD_PORT_COUNTERS"),
             "lcore": ("switchd/src/stats.h", "SWITCHD_LCORE_COUNTERS"),
             "job": ("switchd/src/stats.h", "SWITCHD_JOB_COUNTERS"),
             "pipeline": ("pipeline/include/ina/pipeline.h", "INA_PIPELINE_COUNTERS"),
             "netreduce": ("pipeline/include/ina/netreduce.h", "INA_NR_COUNTERS")}
    out = {}
    for key, (path, macro) in lists.items():
        text = open(os.path.join(SRC_ROOT, path)).read()
        block = text[text.index("#define " + macro):]
        out[key] = dict(re.findall(r"X\((\w+), (k\w+),", block[:block.index("\n\n")]))
        if not out[key] or set(out[key].values()) - {"kEvent", "kDrop", "kGauge"}:
            fail(f"cannot read the kinds of {macro} in {path}: {out[key]}")
    return out


def drops_of(counters, kinds):
    """The non-zero counters of kind kDrop among `counters` (a telemetry dict)."""
    return {n: counters[n] for n, k in kinds.items() if k == "kDrop" and counters.get(n)}


def settled_counters(sw, timeout=10):
    """/ina/summary, /ina/pipeline and /ina/netreduce once two readings
    0.3 s apart agree (busy_ns aside) and nothing is queued or in a
    hand-off ring: the switch is idle, and one reading is one instant."""
    last = None
    deadline = time.time() + timeout
    while time.time() < deadline:
        s = sw.telemetry("/ina/summary")
        s.pop("busy_ns")
        now = (s, sw.telemetry("/ina/pipeline"), sw.telemetry("/ina/netreduce"))
        if now == last and s["queue_depth"] == 0 and s["handoff_out"] == s["handoff_in"]:
            return now
        last = now
        time.sleep(0.3)
    fail(f"the switch's counters did not settle: {last}")


def packet_accounting(s, p, nr, nports, kinds):
    """docs/switchd.md, "Where every packet went": the terms of
    rx + made == tx + drops + consumed + queued from the telemetry."""
    drops = sum(sum(drops_of(c, kinds[k]).values())
                for c, k in ((s, "lcore"), (s, "port"), (p, "pipeline"), (nr, "netreduce")))
    made = (s["control_acks"] + s["multicast_copies"] + s["multicast_alloc_drops"] +
            s["flooded"] * (nports - 1) + s["netreduce_results"] + s["netreduce_result_drops"] +
            s["netreduce_alloc_drops"])
    consumed = s["absorbed"] + s["control_received"] + p["multicast"] + s["flooded"]
    queued = s["queue_depth"] + s["handoff_out"] - s["handoff_in"]
    return dict(rx=s["rx_packets"], made=made, tx=s["tx_packets"], drops=drops, consumed=consumed,
                queued=queued)


def summary_drops(line):
    """A summary line's drops: (total, {"": switch, "lcore 0": ..., "port P": ...,
    "job J": ...}), each section {name: count}."""
    m = re.search(r" drops (\d+)(?::(.*))?$", line)
    if not m:
        fail(f"no drops in the summary line: {line}")
    sections = {}
    for i, part in enumerate((m.group(2) or "").split(" | ") if m.group(2) else []):
        head, body = part.rsplit(":", 1) if i else ("", part)
        sections[head.strip()] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", body)}
    return int(m.group(1)), sections


def summary_drop_sections(sw, counters, kinds, nports, jobs, lcores):
    """What the summaries must name, by section ("" the switch, "port NAME",
    "job N", "lcore K"): every non-zero drop counter of the switch
    (`counters`: its summary, pipeline and netreduce telemetry), of each
    port, of `jobs` and, with several, of each lcore."""
    s, p, nr = counters
    switch = {**drops_of(s, kinds["lcore"]), **drops_of(s, kinds["port"]),
              **drops_of(p, kinds["pipeline"]), **drops_of(nr, kinds["netreduce"])}
    want_sections = {"": switch}
    for i in range(nports):
        t = sw.telemetry(f"/ina/port,{i}")
        if drops_of(t, kinds["port"]):
            want_sections[f"port {t['name']}"] = drops_of(t, kinds["port"])
    for job in jobs:
        t = drops_of(sw.telemetry(f"/ina/job,{job}"), kinds["job"])
        if t:
            want_sections[f"job {job}"] = t
    if lcores > 1:
        for k in range(lcores):
            t = sw.telemetry(f"/ina/lcore,{k}")
            d = {**drops_of(t, kinds["lcore"]), **drops_of(t, kinds["pipeline"])}
            if d:
                want_sections[f"lcore {k}"] = d
    return want_sections


def case_accounting(sw, lcores=1):
    """Every packet is explained by the counters: after a mix of every kind
    of traffic (gradients that complete, one that stays, a collision, a
    duplicate, malformed frames, spoofed and forged sources, a stale epoch,
    an unknown job, non-INA traffic, ARP, a flood, a parameter packet that
    multicasts, a control message), rx + made == tx + drops + consumed +
    queued holds exactly, and the periodic and final summaries name every
    non-zero drop counter of the switch, each lcore, port and job. Port 0
    (worker 0) drops everything sent to it (drop_rate 1), so that a port's
    drops take part too."""
    from scapy.all import Ether, ARP, IP, ICMP, UDP, Raw
    kinds = counter_kinds()
    ip0, mac0 = HOSTS[0]
    vals = [[i + 10 * w for i in range(62)] for w in range(3)]
    good = gradient(0, 300, [1] * 62, bit=0)
    raw = bytes(good[UDP].payload)
    to_ps = Ether(dst=PS_MAC, src=mac0) / IP(src=ip0, dst=PS_IP)
    arp = Ether(src=mac0, dst="ff:ff:ff:ff:ff:ff")
    group = group_of(JOB)
    seqs = [50, 51, 52, 53]
    h0 = [gradient(0, s, vals[0], bit=0) for s in seqs] + [
        gradient(0, 60, [5] * 62, bit=0),  # held: no other worker sends seq 60
        gradient(0, 60, [5] * 62, bit=0),  # its duplicate
        to_ps / UDP(sport=40000, dport=UDP_PORT, chksum=0) / Raw(bytes([2]) + raw[1:]),  # version 2
        to_ps / UDP(sport=40000, dport=UDP_PORT, chksum=0) / Raw(raw[:4] + b"\0\0" + raw[6:]),  # job 0
        gradient(0, 70, [1] * 62, bit=0, extra=b"\0" * 4),  # UDP length != elem_count's
        ina_frame(ip0, PS_IP, PS_MAC, "02:00:00:00:00:77", JOB, 71, [1] * 62, bitmaps=(1, 0, 0, 0)),
        ina_frame("10.0.0.9", PS_IP, PS_MAC, "02:00:00:00:00:09", JOB, 72, [1] * 62, bitmaps=(1, 0, 0, 0)),
        ina_frame(ip0, PS_IP, PS_MAC, mac0, 99, 1, [3] * 62, bitmaps=(1, 0, 0, 0)),  # unknown job
        to_ps / UDP(sport=1, dport=UDP_PORT + 1) / Raw(b"x" * 40),
        to_ps / ICMP(id=77),
        Ether(dst="02:00:00:00:00:50", src=mac0) / IP(src=ip0, dst="10.0.0.50") / ICMP(),  # no route
        arp / ARP(op=1, hwsrc=mac0, psrc=ip0, pdst="10.0.0.99"),  # unknown target: flooded
        arp / ARP(op=1, hwsrc=mac0, psrc=ip0, pdst=SW_IP),  # answered into port 0's drops
        Ether(dst=SW_MAC, src=mac0) / IP(src=ip0, dst=SW_IP) / UDP(sport=1, dport=5000),
    ]
    h1 = [gradient(w, s, vals[w], bit=w) for s in seqs for w in (1, 2)] + [
        ina_frame(ip0, PS_IP, PS_MAC, mac0, JOB, 73, [1] * 62, bitmaps=(1, 0, 0, 0)),  # worker 0's IP
        ina_frame(PS_IP, group[0], group[1], PS_MAC, JOB, 50, [9] * 62, flags=F_ACK),  # not the PS's port
        Ether(src=HOSTS[1][1], dst="ff:ff:ff:ff:ff:ff") /
        ARP(op=1, hwsrc=HOSTS[1][1], psrc=HOSTS[1][0], pdst=SW_IP),
    ]
    workers21 = [(ip0, mac0, 0), (HOSTS[1][0], HOSTS[1][1], 1)]
    h2 = [ctrl(1, workers21)]  # registers job 21, run (epoch) 1
    sent = 0

    def send_and_wait(frames_by_iface):
        nonlocal sent
        for iface, frames in frames_by_iface:
            send_now(iface, frames)
            sent += len(frames)
        deadline = time.time() + 5
        while sw.telemetry("/ina/summary")["rx_packets"] < sent and time.time() < deadline:
            time.sleep(0.1)

    send_and_wait([("h0", h0), ("h1", h1), ("h2", h2)])
    # The control thread registers the job after the lcore has counted the
    # message (and after every lcore's next quiescent state): wait for it.
    deadline = time.time() + 5
    while 21 not in sw.telemetry("/ina/jobs") and time.time() < deadline:
        time.sleep(0.05)
    check(21 in sw.telemetry("/ina/jobs"), "job 21 registered by its control message")
    # After the first round: a collision on seq 60's aggregator, a stale run
    # of job 21, the PS's parameter packet for seq 50 (completed above).
    send_and_wait([("h1", [gradient(1, 61, [2] * 62, bit=1, index=agg_index(JOB, 60))]),
                   ("h0", [gradient(0, 5, [1] * 62, bit=0, job=21, fan_in=(2, 0, 0, 0), epoch=0)]),
                   ("h2", [ina_frame(PS_IP, group[0], group[1], PS_MAC, JOB, 50,
                                     [sum(v[i] for v in vals) for i in range(62)], flags=F_ACK)])])
    s, p, nr = settled_counters(sw)
    check(s["rx_packets"] == sent, f"every frame sent reached switchd ({s['rx_packets']} of {sent})")
    # Each kind of traffic took its path, so that each term below is tested.
    want = {"absorbed": 9, "malformed": 3, "malformed_version": 1, "malformed_job": 1, "spoof_mac_drops": 1, "spoof_port_drops": 1,
            "admission_drops": 1, "forged_result_drops": 1, "stale_epoch_drops": 1, "no_route": 1,
            "to_switch_drops": 1, "flooded": 1, "arp_replies": 2, "unregistered_job": 1,
            "control_received": 1, "control_acks": 1, "multicast_copies": 2, "random_drops": 2}
    got = {k: s[k] for k in want}
    check(got == want, f"each path taken as sent: {got}")
    want_p = {"duplicate": 1, "malformed_length": 1, "malformed_version": 1, "malformed_job": 1, "completed": 4, "collision": 1, "multicast": 1,
              "aggregated": 13}
    got_p = {k: p[k] for k in want_p}
    check(got_p == want_p, f"pipeline: {got_p}")
    check(s["absorbed"] == p["aggregated"] - p["completed"],
          "absorbed: the gradients aggregated that did not complete (no resends here)")
    nports = len(sw.telemetry("/ina/ports"))
    a = packet_accounting(s, p, nr, nports, kinds)
    check(a["rx"] + a["made"] == a["tx"] + a["drops"] + a["consumed"] + a["queued"],
          "rx + made == tx + drops + consumed + queued: "
          f"{a['rx']} + {a['made']} == {a['tx']} + {a['drops']} + {a['consumed']} + {a['queued']}")
    want_sections = summary_drop_sections(sw, (s, p, nr), kinds, nports, (JOB, 21, 99), lcores)
    check(set(want_sections) >= {"", "port net_af_packet0", f"job {JOB}", "job 21"},
          f"drops on the switch, port 0, jobs {JOB} and 21: {sorted(want_sections)}")
    time.sleep(1.5)  # a periodic summary (stats_interval_s 1) after the last packet
    out = sw.stop()
    lines = out.splitlines()
    final = [l for l in lines if "] final: " in l and " rx " in l and "aggregated" in l]
    periodic = [l for l in lines if re.search(r"\] \d+\.\ds rx ", l)]
    check(len(final) == 1 and periodic, "a final and a periodic summary line")
    print("\n".join([periodic[-1]] + [l for l in lines if "] final: " in l]))
    for what, line in (("final", final[0]), ("periodic", periodic[-1])):
        total, sections = summary_drops(line)
        check(total == a["drops"], f"{what} summary: drops {total} (telemetry {a['drops']})")
        check(sections == want_sections, f"{what} summary names every non-zero drop counter: "
              f"{sections} (telemetry {want_sections})")
    check("spoof_mac_drops=1" in final[0], "the final summary names spoof_mac_drops")
    m = re.search(r"final: accounting rx (\d+) \+ made (\d+) = tx (\d+) \+ drops (\d+) \+ "
                  r"consumed (\d+) \+ queued (\d+), unexplained (-?\d+)", out)
    check(m and int(m.group(7)) == 0, f"final accounting: nothing unexplained ({m and m.group(0)})")
    logged = dict(zip(("rx", "made", "tx", "drops", "consumed", "queued"), map(int, m.groups()[:6])))
    check(logged == a, f"final accounting {logged} == telemetry's {a}")


def fuzz_templates():
    """Valid frames of every kind a port sees, as raw bytes: gradients from
    each worker (plain, resend, collision, jumbo length), a parameter packet
    from the PS, a control message, plain UDP."""
    from scapy.all import Ether, IP, UDP, Raw
    t = []
    for w in range(3):
        ip, mac = HOSTS[w]
        t.append(("h0" if w == 0 else "h1", bytes(gradient(w, 500 + w, [w + 1] * 62, bit=w))))
        t.append(("h0" if w == 0 else "h1", bytes(gradient(w, 600, [7] * 62, bit=w, flags=F_RESEND))))
        t.append(("h0" if w == 0 else "h1", bytes(gradient(w, 700, [1] * 3, bit=w, levels=2, level=1))))
    ack = ina_frame(PS_IP, *group_of(JOB), PS_MAC, JOB, 500, [6] * 62, flags=F_ACK,
                    bitmaps=(7, 0, 0, 0))
    t.append(("h2", bytes(ack)))
    t.append(("h2", bytes(ctrl(1, [(HOSTS[0][0], HOSTS[0][1], 0)], job=22))))
    t.append(("h0", bytes(Ether(dst=PS_MAC, src=HOSTS[0][1]) / IP(src=HOSTS[0][0], dst=PS_IP) /
                          UDP(sport=1, dport=UDP_PORT + 1) / Raw(b"x" * 64))))
    return t


def _fuzz_ina_fields():
    """(frame offset, size) of the INA header fields fuzz_frame mutates: each
    scalar field, and the first two entries of bitmap and fan_in (levels 0
    and 1), in wire.h order."""
    lay, base = wire.INA_HDR, wire.INA_HDR_OFFSET
    scalars = [(base + lay.offsets[n], lay.sizes[n]) for n, code in lay.fields if not code[:-1]]
    per_level = [(n, lay.sizes[n] // lay.counts[n]) for n in ("bitmap", "fan_in")]
    return tuple(scalars + [(base + lay.offsets[n] + k * size, size) for n, size in per_level for k in (0, 1)])


FUZZ_INA_FIELDS = _fuzz_ina_fields()


def fuzz_frame(rnd, tmpl):
    """One mutation of a template: header fields set to random or edge
    values, bytes flipped anywhere, the frame cut short or extended."""
    f = bytearray(tmpl)
    edge = (0, 1, 0x7F, 0x80, 0xFF, 0xFFFF, 0xFFFFFFFF, 0x80000000)
    for _ in range(rnd.randint(1, 4)):
        op = rnd.randrange(8)
        if op <= 2 and len(f) >= wire.INA_PAYLOAD_OFFSET:  # an INA header field
            off, size = rnd.choice(FUZZ_INA_FIELDS)
            v = rnd.choice(edge) if rnd.random() < 0.5 else rnd.getrandbits(8 * size)
            f[off:off + size] = (v & ((1 << (8 * size)) - 1)).to_bytes(size, "big")
        elif op == 3 and len(f) >= 42:  # IP or UDP header field
            off, size = rnd.choice(((14, 1), (16, 2), (20, 2), (22, 1), (23, 1), (38, 2), (40, 2), (12, 2)))
            f[off:off + size] = rnd.getrandbits(8 * size).to_bytes(size, "big")
        elif op == 4:
            del f[rnd.randrange(14, len(f) + 1):]
        elif op == 5:
            f += rnd.randbytes(rnd.randrange(1, 200))
        else:
            i = rnd.randrange(len(f))
            f[i] ^= 1 << rnd.randrange(8)
    # At most the links' 1514 bytes: a longer frame never reaches switchd
    # (the veth drops it), and jumbo frames have their own cases.
    return bytes(f[:1514]) if len(f) >= 14 else bytes(tmpl[:14])


def case_fuzz(sw, lcores=1):
    """INA_FUZZ_FRAMES (default 10^6) mutated frames from every host port,
    paced so that switchd reads them: it stays up, answers telemetry, counts
    what it drops, and (ina-switchd-asan) reports nothing at exit."""
    import random
    n = int(os.environ.get("INA_FUZZ_FRAMES", "1000000"))
    seed = int(os.environ.get("INA_FUZZ_SEED", "1"))
    rnd = random.Random(seed)
    templates = fuzz_templates()
    socks = {}
    for iface in ("h0", "h1", "h2"):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((iface, 0))
        socks[iface] = s
    before = sw.telemetry("/ina/summary")
    t0 = time.time()
    sent = refused = 0
    while sent + refused < n:
        for _ in range(min(200, n - sent - refused)):
            iface, tmpl = templates[rnd.randrange(len(templates))]
            try:
                socks[iface].send(fuzz_frame(rnd, tmpl))
                sent += 1
            except OSError:  # the kernel refuses some lengths on a packet socket
                refused += 1
        # Pace to what switchd reads (its af_packet rings hold a few
        # hundred frames): wait while it is more than 400 behind and still
        # reading (a frame the kernel lost never arrives).
        last, still = -1, time.time()
        while time.time() - still < 0.05:
            got = sw.telemetry("/ina/summary")["rx_packets"] - before["rx_packets"]
            if sent - got < 400:
                break
            if got != last:
                last, still = got, time.time()
            time.sleep(0.002)
        if sw.p.poll() is not None:
            fail(f"ina-switchd died after {sent} fuzzed frames:\n{sw.output()[-3000:]}")
    time.sleep(1)
    after = sw.telemetry("/ina/summary")
    secs = time.time() - t0
    got = after["rx_packets"] - before["rx_packets"]
    drops = {k: after[k] - before.get(k, 0) for k in after
             if isinstance(after[k], int) and after[k] != before.get(k, 0)}
    print(f"fuzz: seed {seed}, {sent} frames sent in {secs:.1f} s ({refused} refused by the "
          f"kernel), switchd received {got}")
    print("fuzz: counters that moved: " + json.dumps(drops, sort_keys=True))
    check(got >= 0.9 * sent, f"switchd read at least 90% of the fuzzed frames ({got} of {sent})")
    check(after["malformed"] > before["malformed"], "malformed frames counted")
    # Still a working switch: a fresh fragment aggregates and reaches the PS.
    res = exchange(True, ["h2"], [("h0", gradient(0, 90000, [1] * 62, bit=0)),
                                  ("h1", gradient(1, 90000, [2] * 62, bit=1)),
                                  ("h1", gradient(2, 90000, [3] * 62, bit=2))], want={"h2": 1})
    got_ps = [p for p in res["h2"] if p["seq"] == 90000]
    check(got_ps and got_ps[0]["values"] == [6] * 62, "a fragment after the fuzz aggregates exactly")
    for s in socks.values():
        s.close()


_last_counter = [0]


def next_counter():
    """Strictly increasing, near the wall clock: what a PS sends."""
    _last_counter[0] = max(_last_counter[0] + 1, time.time_ns())
    return _last_counter[0]


def ip_u32(ip):
    return struct.unpack(">I", socket.inet_aton(ip))[0]


def ctrl(op, workers, job=21, src=(PS_IP, PS_MAC), key=KEY, counter=None, ps_ip=None,
         refresh_ms=0, status=0, epoch=0, fan_in=2):
    """A control message from the PS at `src`: register (op 1) `workers` [(ip, mac, bit)]
    for a one-level job with fan-in 2, or unregister (op 2); signed with `key`
    (None: MAC left zero) over the addresses, the INA header and the payload.
    `refresh_ms`: the PS says it repeats the registration this often.
    `status` 0: a new run (the switch gives the next epoch); 1: a renewal of
    `epoch` (INA header flags bits 8-15)."""
    ip, mac = src
    body = wire.pack_ctrl(op, ip_u32(ps_ip or ip), mac_bytes(mac), levels=1, status=status,
                          fan_in=(fan_in,), refresh_ms=refresh_ms,
                          workers=[(ip_u32(wip), mac_bytes(wmac), (bit, 255, 255, 255))
                                   for wip, wmac, bit in workers])
    return signed_ctrl(src, job, body, key, next_counter() if counter is None else counter, epoch)


def mac_bytes(mac):
    return bytes.fromhex(mac.replace(":", ""))


def signed_ctrl(src, job, body, key, counter, epoch=0):
    """The control frame from `src` to the switch for `job` with control
    payload `body` (header and entries), its counter and a MAC with `key`
    (None: left zero)."""
    ip, mac = src
    auth = wire.CTRL_AUTH.pack(counter=counter)
    frame = ina_frame(ip, SW_IP, SW_MAC, mac, job, 0, [], typ=wire.INA_TYPE_CONTROL, levels=0, index=0,
                      fan_in=(0, 0, 0, 0), extra=body + auth, epoch=epoch)
    if key:
        from scapy.all import Raw
        signed = bytes(frame[Raw])[:-wire.INA_CTRL_MAC_LEN]
        mac_in = wire.ctrl_mac_input(ip_u32(SW_IP), ip_u32(ip), signed)
        frame[Raw].load = signed + hmac.new(key, mac_in, hashlib.sha256).digest()
    return frame


def ctrl_counter(frame):
    from scapy.all import UDP
    return wire.CTRL_AUTH.unpack(bytes(frame[UDP].payload)[-wire.CTRL_AUTH.size:])["counter"]


def acks(parsed, key=KEY):
    """The control ACKs among parsed frames whose MAC verifies:
    [(job, status, counter)]."""
    out = []
    for p in parsed:
        if not is_ctrl_ack(p):
            continue
        b = p["raw"]
        mac_in = wire.ctrl_mac_input(ip_u32(p["ip_dst"]), ip_u32(p["ip_src"]), b[:-wire.INA_CTRL_MAC_LEN])
        if key and not hmac.compare_digest(hmac.new(key, mac_in, hashlib.sha256).digest(),
                                           b[-wire.INA_CTRL_MAC_LEN:]):
            continue
        hdr, _, auth = wire.unpack_ctrl(b[wire.INA_HDR_LEN:])
        out.append((p["job"], hdr["status"], auth["counter"]))
    return out


def is_ctrl_ack(p):
    """A parsed frame that is a control ACK: no workers, op INA_CTRL_ACK."""
    b = p["raw"]
    return (p["type"] == wire.INA_TYPE_CONTROL and
            len(b) == wire.INA_HDR_LEN + wire.CTRL_HDR.size + wire.CTRL_AUTH.size and
            b[wire.INA_HDR_LEN + wire.CTRL_HDR.offsets["op"]] == wire.INA_CTRL_ACK)


def ack_epochs(parsed, key=KEY):
    """The epochs (INA flags bits 8-15) of the verified control ACKs among parsed frames."""
    return [wire.flags_epoch(p["flags"]) for p in parsed if is_ctrl_ack(p) and acks([p], key)]


def case_churn(sw, lcores=1):
    """Job 21 registered and unregistered in a loop for 6 s while its workers'
    gradients flow and telemetry reads the job table: every reader (lcores,
    telemetry) holds the table under RCU, so none may see a freed version.
    The suite runs it against ina-switchd-asan too (switchd_churn_asan*),
    where ASan and UBSan check that."""
    import threading
    # Every message needs a fresh counter: a copy would be a replay.
    # The first registration is a new run (epoch 1); the others renew it,
    # so the gradients (epoch 1) stay current and reach the aggregators.
    regs = [bytes(ctrl(1, [(HOSTS[0][0], HOSTS[0][1], 0), (HOSTS[1][0], HOSTS[1][1], 1)],
                       status=min(i, 1), epoch=min(i, 1)))
            for i in range(1500)]
    unregs = [bytes(ctrl(2, [])) for _ in range(1500)]
    grads = [bytes(gradient(w, seq, [1] * 62, bit=w, job=21, fan_in=(2, 0, 0, 0), epoch=1))
             for seq in range(64) for w in (0, 1)]
    stop = threading.Event()
    counts = {"gradients": 0, "telemetry": 0}
    errors = []

    def raw(iface):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((iface, 0))
        return s

    def traffic():
        out = [raw("h0"), raw("h1")]
        while not stop.is_set():
            for i, g in enumerate(grads):
                out[i % 2].send(g)
            counts["gradients"] += len(grads)

    def telemetry():
        while not stop.is_set():
            try:
                sw.telemetry("/ina/job,21")
                sw.telemetry("/ina/jobs")
                sw.telemetry("/ina/summary")
                counts["telemetry"] += 3
            except OSError as e:
                errors.append(e)
                return

    threads = [threading.Thread(target=traffic), threading.Thread(target=telemetry)]
    for t in threads:
        t.start()
    ps = raw("h2")
    sent = 0
    end = time.time() + 6
    while time.time() < end and sent < 2 * len(regs):
        ps.send(regs[sent // 2])
        time.sleep(0.002)
        ps.send(unregs[sent // 2])
        time.sleep(0.002)
        sent += 2
    stop.set()
    for t in threads:
        t.join()
    check(sw.p.poll() is None, "ina-switchd still runs")
    check(not errors, f"telemetry answered throughout ({errors[:1]})")
    s = sw.telemetry("/ina/summary")
    # Under load (or a sanitizer build) the kernel or the control ring may
    # drop some; what matters is that the table was swapped many times.
    check(s["control_accepted"] >= 100,
          f"the job table was replaced again and again ({s['control_accepted']} of {sent} "
          f"control messages applied)")
    check(counts["gradients"] > 1000 and counts["telemetry"] > 30,
          f"traffic and telemetry ran alongside ({counts})")
    out = sw.output()
    check("AddressSanitizer" not in out and "runtime error" not in out, "no sanitizer report")


def case_control(sw, lcores=1):
    """Registers job 21 at run time with a control message, aggregates, unregisters."""
    reg = ctrl(1, [(HOSTS[0][0], HOSTS[0][1], 0), (HOSTS[1][0], HOSTS[1][1], 1)])
    got = exchange(None, ["h2"], [("h2", reg)], timeout=2, want={"h2": 2})
    check(21 in sw.telemetry("/ina/jobs"), "job 21 registered by a control message")
    check(acks(got["h2"]) == [(21, 0, ctrl_counter(reg))],
          f"the registration is ACKed to the PS: applied, its counter echoed, signed ({acks(got['h2'])})")
    check(ack_epochs(got["h2"]) == [1], f"with the run's epoch, 1 ({ack_epochs(got['h2'])})")
    caps = [p["elems"] for p in got["h2"] if p["type"] == 1 and acks([p])]
    check(caps == [62], f"stating the switch's cap, its elements (62), in elem_count ({caps}; docs/protocol.md)")
    check(sw.telemetry("/ina/job,21")["epoch"] == 1, "the job table holds epoch 1")
    g = [("h0", gradient(0, 1, [4] * 62, bit=0, job=21, fan_in=(2, 0, 0, 0), epoch=1)),
         ("h1", gradient(1, 1, [5] * 62, bit=1, job=21, fan_in=(2, 0, 0, 0), epoch=1))]
    got = exchange(None, ["h2"], g, want={"h2": 2})["h2"]
    check(len(got) == 1 and got[0]["values"] == [9] * 62, "job 21 aggregates without a restart")
    exchange(None, ["h0"], [("h2", ctrl(2, []))], timeout=0.5)
    time.sleep(0.3)
    check(21 not in sw.telemetry("/ina/jobs"), "job 21 unregistered by a control message")
    bad = ctrl(1, [])
    got = exchange(None, ["h2"], [("h2", bad)], timeout=2, want={"h2": 2})
    check(sw.telemetry("/ina/summary")["control_rejected"] == 1, "malformed control message rejected")
    check(acks(got["h2"]) == [(21, 2, ctrl_counter(bad))], "and answered as invalid (status 2)")


def goat_ctrl(ranges, job=JOB, key=KEY, src=(PS_IP, PS_MAC)):
    """A GOAT control message (op 4, docs/protocol.md): this job's aggregator
    ranges [(first, end)] or [(first, end, fan_in, children)] on the switch,
    signed like a registration."""
    entries = []
    for r in ranges:
        fan_in, children = (r[2], r[3]) if len(r) > 2 else (0, 0)
        entries.append(wire.CTRL_GOAT_RANGE.pack(first=r[0], end=r[1], children=children, fan_in=fan_in))
    body = wire.pack_ctrl(wire.INA_CTRL_GOAT, ip_u32(src[0]), bytes(6), workers=entries)
    return signed_ctrl(src, job, body, key, next_counter())


# The GOAT plan of case_goat, in ina-goat-plan's format: three sub-models of
# 1000, 3000 and 6000 elements; this switch (id 1) holds the first and the
# last, switch 2 the middle one.
GOAT_PLAN = {"plan": {
    "switches": [{"name": "s1", "id": 1, "submodels": ["a", "c"]},
                 {"name": "s2", "id": 2, "submodels": ["b"]}],
    "submodels": [{"name": "a", "first_element": 0, "end_element": 1000},
                  {"name": "b", "first_element": 1000, "end_element": 4000},
                  {"name": "c", "first_element": 4000, "end_element": 10000}],
    "workers": [{"name": f"w{w}", "ranges": [
        {"submodel": "a", "first_element": 0, "end_element": 1000, "agg_node": 1},
        {"submodel": "b", "first_element": 1000, "end_element": 4000, "agg_node": 2},
        {"submodel": "c", "first_element": 4000, "end_element": 10000, "agg_node": 1}]}
        for w in range(3)]}}


def case_goat(sw, lcores=1):
    """GOAT (docs/goat.md, "Installing a plan"): job 7's assignment comes
    from a plan file, with aggregators [0, 100) and [400, 1024). Fragments
    naming this switch (id 1) in its ranges aggregate; those naming switch 2
    pass untouched (three packets at the PS whose values add up exactly);
    this switch outside its ranges, or no switch, pass too. A signed control
    message then moves the assignment; a bad one is answered invalid."""
    out = sw.output()
    check(re.search(r"job 7: GOAT assignment \(config\): switch 1 aggregates aggregators "
                    r"\[0, 100\) \[400, 1024\) sub-models a, c from plan", out) is not None,
          "the plan's part for switch 1 installed at start-up and logged")
    vals = [[(i + 1) * (w + 1) * (-1) ** i for i in range(62)] for w in range(3)]
    want = [sum(v[i] for v in vals) for i in range(62)]

    def three(seq, index, node):
        return [("h0" if w == 0 else "h1", gradient(w, seq, vals[w], bit=w, index=index, agg_node=node))
                for w in range(3)]

    sends = three(1, 5, 1) + three(2, 500, 1) + three(3, 150, 2) + three(4, 150, 1) + three(5, 7, 0)
    got = exchange(None, ["h2"], sends, want={"h2": 1 + 1 + 3 + 3 + 3})["h2"]
    by_seq = {}
    for p in got:
        if p["job"] == JOB:
            by_seq.setdefault(p["seq"], []).append(p)
    for seq in (1, 2):
        r = by_seq.get(seq, [])
        check(len(r) == 1 and r[0]["values"] == want and r[0]["bitmap"][0] == 0b111,
              f"seq {seq}: agg_node 1 in the switch's ranges: one aggregated result ({len(r)} packets)")
    for seq, why in ((3, "names switch 2"), (4, "names this switch outside its ranges"),
                     (5, "names no switch")):
        r = by_seq.get(seq, [])
        check(len(r) == 3 and sorted(p["bitmap"][0] for p in r) == [1, 2, 4] and
              all(p["level"] == 0 for p in r), f"seq {seq} {why}: three untouched packets ({len(r)})")
        check([sum(p["values"][i] for p in r) for i in range(62)] == want,
              f"seq {seq}: the PS's sum of the passed packets is exact")
        check(all(p["agg_node"] == (2 if seq == 3 else 1 if seq == 4 else 0) for p in r),
              f"seq {seq}: agg_node kept")
    s = sw.telemetry("/ina/summary")
    check(s["goat_unassigned"] == 3 and s["goat_no_node"] == 3,
          f"summary: goat_unassigned {s['goat_unassigned']}, goat_no_node {s['goat_no_node']} (3 each)")
    pl = sw.telemetry("/ina/pipeline")
    check(pl["goat_forwarded"] == 3, f"pipeline: goat_forwarded {pl['goat_forwarded']} (switch 2's)")
    j = sw.telemetry(f"/ina/job,{JOB}")
    check(j["goat_passed"] == 6 and j["completed"] == 2,
          f"job: goat_passed {j['goat_passed']} (6), completed {j['completed']} (2)")

    # A control message moves the assignment to [100, 200): index 150 now
    # aggregates here, index 5 passes.
    m = goat_ctrl([(100, 200)])
    got = exchange(None, ["h2"], [("h2", m)], timeout=2, want={"h2": 2})["h2"]
    check(acks(got) == [(JOB, 0, ctrl_counter(m))], f"GOAT control message applied and ACKed ({acks(got)})")
    got = exchange(None, ["h2"], three(6, 150, 1) + three(7, 5, 1), want={"h2": 4})["h2"]
    r6 = [p for p in got if p["seq"] == 6]
    r7 = [p for p in got if p["seq"] == 7]
    check(len(r6) == 1 and r6[0]["values"] == want, "index 150 aggregates after the control message")
    check(len(r7) == 3, "index 5 passes after the control message")
    check("GOAT assignment (control message from 10.0.0.100): switch 1 aggregates aggregators [100, 200)"
          in sw.output(), "the new assignment is logged")

    # Invalid (beyond the 1024 aggregators), unsigned, and overlapping
    # another job's ranges.
    bad = goat_ctrl([(1000, 2000)])
    got = exchange(None, ["h2"], [("h2", bad)], timeout=2, want={"h2": 2})["h2"]
    check(acks(got) == [(JOB, 2, ctrl_counter(bad))], f"range beyond the switch: answered invalid ({acks(got)})")
    before = sw.telemetry("/ina/summary")["control_auth_drops"]
    got = exchange(None, ["h2"], [("h2", goat_ctrl([(0, 10)], key=WRONG_KEY))], timeout=1)["h2"]
    check(not acks(got) and sw.telemetry("/ina/summary")["control_auth_drops"] == before + 1,
          "a GOAT message with a wrong MAC is dropped unanswered")
    reg = ctrl(1, [(HOSTS[0][0], HOSTS[0][1], 0), (HOSTS[1][0], HOSTS[1][1], 1)])
    exchange(None, ["h2"], [("h2", reg)], timeout=1, want={"h2": 2})
    ov = goat_ctrl([(150, 250)], job=21)
    got = exchange(None, ["h2"], [("h2", ov)], timeout=2, want={"h2": 2})["h2"]
    check(acks(got) == [(21, 2, ctrl_counter(ov))], "ranges overlapping job 7's: invalid (exclusive)")
    ok = goat_ctrl([(300, 400)], job=21)
    got = exchange(None, ["h2"], [("h2", ok)], timeout=2, want={"h2": 2})["h2"]
    check(acks(got) == [(21, 0, ctrl_counter(ok))], "disjoint ranges for job 21: applied")
    rm = goat_ctrl([])
    got = exchange(None, ["h2"], [("h2", rm)], timeout=2, want={"h2": 2})["h2"]
    check(acks(got) == [(JOB, 0, ctrl_counter(rm))] and "switch 1 aggregates nothing (removed)" in sw.output(),
          "no ranges: job 7's assignment removed")
    got = exchange(None, ["h2"], three(8, 5, 0), want={"h2": 1})["h2"]
    check(len(got) == 1 and got[0]["values"] == want, "without an assignment agg_node 0 aggregates again")


def case_goat_split(sw, lcores=1):
    """A sub-model split between nodes (docs/goat.md, "Split sub-models"):
    the plan arrives only by control message (no [[goat]] table). Range
    [0, 512) aggregates workers 0 and 1 only (fan-in 2, bits 0b011): their
    fragments complete without worker 2, whatever fan-in they carry, and
    leave with bitmap 0b011; worker 2 sends its part of the fragment to the
    PS (bypass, the same index), and the PS's sum of the two is exact. Range
    [512, 1024) is whole: all three, by the fragments' own fan-in. A worker
    outside a range's children is dropped as a malformed bitmap."""
    check("GOAT assignment" not in sw.output(), "no assignment at start-up (no [[goat]] table)")
    m = goat_ctrl([(0, 512, 2, 0b011), (512, 1024)])
    got = exchange(None, ["h2"], [("h2", m)], timeout=2, want={"h2": 2})["h2"]
    check(acks(got) == [(JOB, 0, ctrl_counter(m))], f"split assignment applied and ACKed ({acks(got)})")
    check("switch 1 aggregates aggregators [0, 512) for 2 workers (bits 0x3) [512, 1024)" in sw.output(),
          "the split range and its children are logged")
    bad = goat_ctrl([(0, 512, 3, 0b011)])
    got = exchange(None, ["h2"], [("h2", bad)], timeout=2, want={"h2": 2})["h2"]
    check(acks(got) == [(JOB, 2, ctrl_counter(bad))], "a fan-in that does not count its children: invalid")

    vals = [[(i + 1) * (w + 3) * (-1) ** (i + w) for i in range(62)] for w in range(3)]
    want = [sum(v[i] for v in vals) for i in range(62)]
    sends = [("h0", gradient(0, 1, vals[0], bit=0, index=5, agg_node=1)),
             ("h1", gradient(1, 1, vals[1], bit=1, index=5, agg_node=1)),
             ("h1", gradient(2, 1, vals[2], bit=2, index=5, agg_node=0, flags=F_BYPASS))]
    sends += [("h0" if w == 0 else "h1", gradient(w, 2, vals[w], bit=w, index=600, agg_node=1))
              for w in range(3)]
    sends += [("h1", gradient(2, 3, vals[2], bit=2, index=7, agg_node=1))]
    before = sw.telemetry("/ina/pipeline")["malformed_bitmap"]
    got = exchange(None, ["h2"], sends, want={"h2": 3})["h2"]
    one = sorted((p for p in got if p["seq"] == 1), key=lambda p: p["bitmap"][0])
    check(len(one) == 2 and one[0]["bitmap"][0] == 0b011 and one[0]["level"] == 1 and
          one[0]["values"] == [vals[0][i] + vals[1][i] for i in range(62)],
          f"seq 1: workers 0 and 1 aggregated into one result, bitmap 0b011 "
          f"({[(p['bitmap'][0], p['level']) for p in one]})")
    check(len(one) == 2 and one[1]["bitmap"][0] == 0b100 and one[1]["index"] == 5 and
          [one[0]["values"][i] + one[1]["values"][i] for i in range(62)] == want,
          "seq 1: worker 2's part reaches the PS at the same index; the PS's sum is exact")
    two = [p for p in got if p["seq"] == 2]
    check(len(two) == 1 and two[0]["bitmap"][0] == 0b111 and two[0]["values"] == want,
          f"seq 2 in the whole range: all three workers ({len(two)} packets)")
    check(not any(p["seq"] == 3 for p in got) and
          sw.telemetry("/ina/pipeline")["malformed_bitmap"] == before + 1,
          "seq 3: worker 2 in the range of workers 0 and 1 is dropped (malformed_bitmap)")

    # An assignment its PS installed goes with the job's registration (job
    # 7's, which takes the whole table, removed first).
    exchange(None, ["h2"], [("h2", goat_ctrl([]))], timeout=1, want={"h2": 1})
    reg = ctrl(1, [(HOSTS[0][0], HOSTS[0][1], 0), (HOSTS[1][0], HOSTS[1][1], 1)])
    exchange(None, ["h2"], [("h2", reg)], timeout=1, want={"h2": 1})
    g21 = goat_ctrl([(600, 700)], job=21)
    got = exchange(None, ["h2"], [("h2", g21)], timeout=2, want={"h2": 1})["h2"]
    check(acks(got) == [(21, 0, ctrl_counter(g21))], "job 21's assignment applied")
    exchange(None, ["h2"], [("h2", ctrl(2, []))], timeout=1, want={"h2": 1})
    time.sleep(0.3)
    check(re.search(r"job 21: GOAT assignment \(control message from 10\.0\.0\.100\): switch 1 aggregates "
                    r"nothing \(removed\)", sw.output()) is not None,
          "unregistering job 21 removes the assignment its PS installed")


def goat_table(tmp):
    plan = os.path.join(tmp, "goat-plan.json")
    with open(plan, "w") as f:
        json.dump(GOAT_PLAN, f)
    return f'\n[[goat]]\njob = {JOB}\nplan = "{plan}"\naggregators = [[400, 1024], [0, 100]]\n'


def goat_config_errors(binary, tmp):
    """[[goat]] tables that must not validate, each with a clear message."""
    good = config_text(nports=3, key=False)
    plan = os.path.join(tmp, "plan.json")
    with open(plan, "w") as f:
        json.dump(GOAT_PLAN, f)
    split = json.loads(json.dumps(GOAT_PLAN))
    split["plan"]["workers"][2]["ranges"][0]["agg_node"] = 0
    with open(os.path.join(tmp, "split.json"), "w") as f:
        json.dump(split, f)

    def run(extra):
        path = os.path.join(tmp, "goat.toml")
        with open(path, "w") as f:
            f.write(good + extra)
        r = subprocess.run([binary, "--check-config", path], capture_output=True, text=True)
        return r.returncode, r.stderr + r.stdout

    rc, out = run(f'\n[[goat]]\njob = 7\nplan = "{plan}"\n')
    check(rc == 0 and json.loads(out)["goat"] == [{"job": 7, "plan": plan, "submodels": ["a", "c"],
                                                   "aggregators": [[0, 1024]]}],
          f"a plan's part validates and --check-config prints its ranges: {out[-300:]}")
    # Worker 2 sends sub-model a to the PS: a split (docs/goat.md, "Split
    # sub-models"). The switch's table is cut in two: [0, 512) for a's
    # workers 0 and 1 (fan-in 2, bits 0b11), [512, 1024) for c, whole.
    rc, out = run(f'\n[[goat]]\njob = 7\nplan = "{tmp}/split.json"\n')
    check(rc == 0 and json.loads(out)["goat"][0]["aggregators"] == [[0, 512, 2, 3], [512, 1024]],
          f"a split plan's part: a range per signature with its children: {out[-300:]}")
    for extra, msg in (
            ('[[goat]]\njob = 7\n', "give a plan"),
            ('[[goat]]\njob = 7\naggregators = [[5, 5]]\n', "is empty"),
            ('[[goat]]\njob = 7\naggregators = [[0, 2000]]\n', "beyond the switch's 1024 aggregators"),
            ('[[goat]]\njob = 7\naggregators = [[0, 10], [5, 20]]\n', "overlap"),
            ('[[goat]]\njob = 7\naggregators = [[0, 10]]\n[[goat]]\njob = 8\naggregators = [[9, 20]]\n',
             "GOAT ranges are exclusive"),
            ('[[goat]]\njob = 7\naggregators = [[0, 10]]\n[[goat]]\njob = 7\naggregators = [[20, 30]]\n',
             "two [[goat]] tables"),
            ('[[goat]]\njob = 7\naggregators = [3]\n', "[first, end]"),
            (f'[[goat]]\njob = 7\nplan = "{tmp}/none.json"\n', "none.json"),
            (f'[[goat]]\njob = 7\nplan = "{tmp}/split.json"\naggregators = [[0, 100], [400, 1024]]\n',
             "needs one range of aggregators for the job, not 2"),
            (f'[[goat]]\njob = 7\nplan = "{plan}"\nfrob = 1\n', "unknown key")):
        rc, out = run("\n" + extra)
        check(rc == 2 and re.search(r"goat\[\d\]\.\w+: .*" + re.escape(msg), out) is not None,
              f"[[goat]] error '{msg}': {out.strip()[-200:]}")
    good9 = good.replace("\nid = 1\n", "\nid = 9\n", 1)
    path = os.path.join(tmp, "goat9.toml")
    with open(path, "w") as f:
        f.write(good9 + f'\n[[goat]]\njob = 7\nplan = "{plan}"\n')
    r = subprocess.run([binary, "--check-config", path], capture_output=True, text=True)
    check(r.returncode == 2 and "the plan has no switch with id 9" in r.stderr,
          f"a plan without this switch's id: {r.stderr.strip()[-200:]}")


def job_state(sw, job):
    t = sw.telemetry(f"/ina/job,{job}")
    return (t["registered"], t.get("workers"), t.get("ps"))


def control_counters(sw):
    s = sw.telemetry("/ina/summary")
    return {k: s[k] for k in ("control_accepted", "control_rejected", "control_auth_drops",
                              "control_replay_drops", "control_denied", "control_acks")}


def case_control_auth(sw, lcores=1):
    """Unsigned, wrong-key, tampered, replayed and stale control messages are
    dropped under their counter, unanswered, and leave the job table as it was;
    their log lines are rate-limited."""
    workers = [(HOSTS[0][0], HOSTS[0][1], 0), (HOSTS[1][0], HOSTS[1][1], 1)]
    reg = ctrl(1, workers)
    got = exchange(None, ["h2"], [("h2", reg)], timeout=2, want={"h2": 2})
    check(acks(got["h2"]) == [(21, 0, ctrl_counter(reg))], "a good registration is ACKed")
    before, table = control_counters(sw), job_state(sw, 21)
    check(table == (1, 2, PS_IP), f"job 21: two workers, PS {PS_IP} ({table})")
    from scapy.all import Raw
    tampered = ctrl(1, workers[:1])
    raw = bytearray(bytes(tampered[Raw]))
    raw[wire.INA_HDR_LEN + wire.CTRL_HDR.size + 3] ^= 1  # the first worker's address
    tampered[Raw].load = bytes(raw)
    cases = [
        ("unsigned", ctrl(2, [], key=None), "control_auth_drops"),
        ("wrong key", ctrl(2, [], key=WRONG_KEY), "control_auth_drops"),
        ("tampered", tampered, "control_auth_drops"),
        ("replayed", reg, "control_replay_drops"),
        ("stale counter", ctrl(2, [], counter=time.time_ns() - 120 * 10**9), "control_replay_drops"),
        ("counter far ahead", ctrl(2, [], counter=time.time_ns() + 120 * 10**9), "control_replay_drops"),
    ]
    for name, frame, counter in cases:
        prev = control_counters(sw)
        got = exchange(None, ["h2"], [("h2", frame)], timeout=0.8)
        now = control_counters(sw)
        check(now[counter] == prev[counter] + 1 and
              all(now[k] == prev[k] for k in now if k != counter),
              f"{name}: counted under {counter} only ({prev} -> {now})")
        check(not acks(got["h2"], key=None), f"{name}: no answer")
        check(job_state(sw, 21) == table, f"{name}: job 21 unchanged")
    # A flood of bad messages: counted, but the log stays short.
    lines_before = sw.output().count("dropped")
    flood = [("h2", ctrl(2, [], key=WRONG_KEY)) for _ in range(300)]
    exchange(None, [], flood, timeout=0.5)
    deadline = time.time() + 5
    while time.time() < deadline and control_counters(sw)["control_auth_drops"] < before["control_auth_drops"] + 303:
        time.sleep(0.1)
    c = control_counters(sw)
    check(c["control_auth_drops"] == before["control_auth_drops"] + 303,
          f"300 forged messages counted ({c['control_auth_drops']})")
    lines = sw.output().count("dropped") - lines_before
    check(lines <= 5, f"their log is rate-limited ({lines} lines for 300 messages)")
    check(job_state(sw, 21) == table, "job 21 unchanged after the flood")
    unreg = ctrl(2, [])
    got = exchange(None, ["h2"], [("h2", unreg)], timeout=2, want={"h2": 2})
    check(job_state(sw, 21)[0] == 0 and acks(got["h2"]) == [(21, 0, ctrl_counter(unreg))],
          "the PS itself can still unregister it")


def case_control_owner(sw, lcores=1):
    """A config job cannot be replaced or removed by control messages; a job
    registered by PS A cannot be replaced or removed by host B, even one that
    holds the key; A can."""
    workers = [(HOSTS[0][0], HOSTS[0][1], 0), (HOSTS[1][0], HOSTS[1][1], 1)]
    config_job = job_state(sw, JOB)
    check(config_job == (1, 3, PS_IP), f"config job {JOB} registered ({config_job})")
    for name, frame in [("unregister", ctrl(2, [], job=JOB)), ("replace", ctrl(1, workers, job=JOB))]:
        prev = control_counters(sw)
        got = exchange(None, ["h2"], [("h2", frame)], timeout=2, want={"h2": 2})
        now = control_counters(sw)
        check(now["control_denied"] == prev["control_denied"] + 1,
              f"{name} config job {JOB}: counted control_denied")
        check(acks(got["h2"]) == [(JOB, 1, ctrl_counter(frame))], f"{name}: answered denied (status 1)")
        check(job_state(sw, JOB) == config_job, f"{name}: config job {JOB} unchanged")
    reg = ctrl(1, workers)
    exchange(None, ["h2"], [("h2", reg)], timeout=2, want={"h2": 2})
    table = job_state(sw, 21)
    check(table == (1, 2, PS_IP), f"job 21 registered by PS A ({table})")
    b = HOSTS[0]
    hijack = ctrl(1, [(b[0], b[1], 0)], src=b)
    remove = ctrl(2, [], src=b)
    for name, frame in [("replace", hijack), ("unregister", remove)]:
        prev = control_counters(sw)
        got = exchange(None, ["h0"], [("h0", frame)], timeout=2, want={"h0": 2})
        now = control_counters(sw)
        check(now["control_denied"] == prev["control_denied"] + 1, f"host B's {name}: control_denied")
        check(acks(got["h0"]) == [(21, 1, ctrl_counter(frame))], f"host B's {name}: answered denied")
        check(job_state(sw, 21) == table, f"host B's {name}: job 21 unchanged")
    spoofed = ctrl(1, [(b[0], b[1], 0)], src=b, ps_ip=PS_IP)
    prev = control_counters(sw)
    exchange(None, ["h0"], [("h0", spoofed)], timeout=0.8)
    check(control_counters(sw)["control_rejected"] == prev["control_rejected"] + 1 and
          job_state(sw, 21) == table, "host B naming PS A as ps_ip: rejected, job unchanged")
    again = ctrl(1, workers[:1])
    got = exchange(None, ["h2"], [("h2", again)], timeout=2, want={"h2": 2})
    check(job_state(sw, 21) == (1, 1, PS_IP) and acks(got["h2"]) == [(21, 0, ctrl_counter(again))],
          "PS A replaces its own job")


def case_control_open(sw, lcores=1):
    """control_auth = false and no key: unsigned messages are applied and
    answered; a config job with control = "allow" can be replaced."""
    workers = [(HOSTS[0][0], HOSTS[0][1], 0), (HOSTS[1][0], HOSTS[1][1], 1)]
    check("control_auth = false" in sw.output(), "the open mode is warned about at start")
    reg = ctrl(1, workers, job=JOB, key=None)
    got = exchange(None, ["h2"], [("h2", reg)], timeout=2, want={"h2": 2})
    check(job_state(sw, JOB) == (1, 2, PS_IP), "unsigned registration replaces the allowed config job")
    check(acks(got["h2"], key=None) == [(JOB, 0, ctrl_counter(reg))], "and is ACKed (unsigned)")
    prev = control_counters(sw)
    exchange(None, ["h2"], [("h2", reg)], timeout=0.8)
    check(control_counters(sw)["control_replay_drops"] == prev["control_replay_drops"] + 1,
          "the counter is still checked: a copy is a replay")


def case_control_nokey(sw, lcores=1):
    """No key and control_auth left at its default: control messages are dropped."""
    check("no control_key_file" in sw.output(), "the closed mode is logged at start")
    got = exchange(None, ["h2"], [("h2", ctrl(1, [(HOSTS[0][0], HOSTS[0][1], 0)], key=None))],
                   timeout=0.8)
    check(control_counters(sw)["control_auth_drops"] == 1 and job_state(sw, 21)[0] == 0 and
          not acks(got["h2"], key=None), "an unsigned registration is dropped, counted, unanswered")


def case_ping(binary, tmp):
    """Real kernel ping between two namespaces through the switch."""
    topo = Topology(2)
    try:
        for i in range(2):
            ns = f"{NS}h{i}"
            sh("ip", "netns", "add", ns)
            topo.extra_ns.append(ns)
            sh("ip", "-n", NS, "link", "set", f"h{i}", "netns", ns)
            sh("ip", "-n", ns, "addr", "add", f"{HOSTS[i][0]}/24", "dev", f"h{i}")
            sh("ip", "-n", ns, "link", "set", f"h{i}", "up")
        setns(NS)
        sw = Switchd(binary, config_text(nports=2, jobs=False), tmp=tmp)
        r = sh("ip", "netns", "exec", f"{NS}h0", "ping", "-c", "3", "-i", "0.2", "-W", "2",
               HOSTS[1][0], check_rc=False)
        check(r.returncode == 0, "ping through the switch: " + r.stdout.strip().splitlines()[-2])
        sw.stop()
    finally:
        topo.cleanup()


def config_errors(binary, tmp):
    def run(text, *eal):
        path = os.path.join(tmp, "bad.toml")
        with open(path, "w") as f:
            f.write(text)
        r = subprocess.run([binary, *(eal or ("--no-huge", "-m", "128", "--file-prefix",
                                              f"swdcfg{os.getpid()}")), "--", "--config", path],
                           capture_output=True, text=True, timeout=30)
        return r.returncode, r.stderr + r.stdout, path
    good = config_text(nports=1, jobs=False, key=False)
    rc, out, path = run(good.replace("id = 1", "id = 1\nfrobnicate = 3"))
    check(rc != 0 and re.search(re.escape(path) + r":3:1: switch.frobnicate: unknown key", out),
          "unknown key -> file:line:col: key: unknown key")
    rc, out, path = run(good.replace("aggregators = 1024", "aggregators = -5"))
    check(rc != 0 and re.search(re.escape(path) + r":\d+:\d+: switch.aggregators: must be", out),
          "bad value -> file:line and key")
    rc, out, path = run(good + '[[port.neighbour]]\nip = "10.0.0.300"\nmac = "02:00:00:00:00:01"\n')
    check(rc != 0 and re.search(r"port\[0\]\.neighbour\[\d+\]\.ip: not an IPv4 address", out), "bad IP address")
    rc, out, path = run(good.replace("[switch]", "[switch]\n[switch]"))
    check(rc != 0 and re.search(re.escape(path) + r":2:", out), "TOML syntax error with line")
    rc, out, path = run(good.replace(f"lcores = [0]", "lcores = [0, 77]"))
    check(rc != 0 and "CPU 77 does not exist" in out and "lcores" in out,
          "more lcores than the machine has")
    rc, out, path = run(good.replace("iface=sw0", "iface=swd_no_such_if"))
    check(rc != 0 and "port 'net_af_packet0' does not exist" in out, "missing port: " +
          (out.strip().splitlines() or [""])[-1])
    rc, out, path = run(good, "--file-prefix", f"swdcfg{os.getpid()}")
    if not any(int(open(f"/sys/kernel/mm/hugepages/{d}/free_hugepages").read())
               for d in os.listdir("/sys/kernel/mm/hugepages")):
        check(rc != 0 and "--no-huge" in out and len(out.strip().splitlines()) == 1,
              "no hugepages -> one line saying to use --no-huge")
    cfg_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "config")
    examples = sorted(f for f in os.listdir(cfg_dir) if f.startswith("switchd") and f.endswith(".toml"))
    for f in examples:
        r = subprocess.run([binary, "--check-config", os.path.join(cfg_dir, f)],
                           capture_output=True, text=True)
        check(r.returncode == 0 and r.stdout.startswith("{"), f"example config/{f} validates")
    check(len(examples) >= 2, "example configs present")
    r = subprocess.run([binary, "--help"], capture_output=True, text=True)
    check(r.returncode == 0 and "--config" in r.stdout, "--help")
    r = subprocess.run([binary, "--version"], capture_output=True, text=True)
    check(r.returncode == 0 and "ina-switchd" in r.stdout, "--version")


CASES = {
    "aggregation": (case_aggregation, {}),
    "collision": (case_collision, {}),
    "multicast": (case_multicast, {}),
    "admission": (case_admission, {}),
    "forged_result": (case_forged_result, {"extra_switch": "gc_timeout_ms = 0"}),
    "spoof": (case_spoof, {}),
    "split_horizon": (case_split_horizon, {"port_extra": {2: '[[port.neighbour]]\nip = "10.0.0.4"\nmac = "02:00:00:00:00:04"\n'}}),
    "unregister_frees": (case_unregister_frees, {"extra_switch": "gc_timeout_ms = 0"}),
    "sweep": (case_sweep, {"extra_switch": "gc_timeout_ms = 500"}),
    "lease": (case_lease, {"extra_switch": "gc_timeout_ms = 0"}),
    "restart_dead_run": (case_restart_dead_run, {"extra_switch": "gc_timeout_ms = 0"}),
    "stale_renewal": (case_stale_renewal, {}),
    "share": (case_share, {"extra_switch": "gc_timeout_ms = 0\njob_share = 0.25",
                           "job_extra": "max_aggregators = 4"}),
    "ecn": (case_ecn, {"port_extra": {2: "rate_gbps = 0.0002\necn_threshold = 4\nqueue_capacity = 256\n"}}),
    "random_drop": (case_random_drop, {"port_extra": {2: "drop_rate = 0.5\n"}}),
    "gc": (case_gc, {"extra_switch": "gc_timeout_ms = 2500"}),
    "forwarding": (case_forwarding, {}),
    "malformed": (case_malformed, {}),
    "trace": (case_trace, {}),
    "accounting": (case_accounting, {"port_extra": {0: "drop_rate = 1.0\n"}}),
    "fuzz": (case_fuzz, {}),
    "churn": (case_churn, {}),
    "control": (case_control, {}),
    "goat": (case_goat, {"goat": True, "job_extra": 'control = "allow"'}),
    "goat_split": (case_goat_split, {"job_extra": 'control = "allow"'}),
    "control_auth": (case_control_auth, {}),
    "control_owner": (case_control_owner, {}),
    "control_open": (case_control_open, {"key": False, "extra_switch": "control_auth = false",
                                         "job_extra": 'control = "allow"'}),
    "control_nokey": (case_control_nokey, {"key": False}),
    # Fragments larger than a standard frame: 700 elements make 2886-byte
    # frames, so the links carry a 3000-byte MTU and af_packet 3 KiB slots (a
    # whole number of them per block: the PMD walks the ring at frame stride).
    "too_wide": (case_too_wide, {}),
    "runtime": (case_runtime, {}),
    "exporter": (case_exporter, {}),
    "jumbo": (case_jumbo, {"elements": 700, "mtu": 3000, "vdev_extra": ",blocksz=12288,framesz=3072"}),
}
# Every case also runs with two data-path lcores (one RX/TX queue pair each
# per port): the same verdicts must hold whichever lcore a packet lands on.
CASES.update({f"{k}_2lcores": (fn, dict(opts, lcores=2)) for k, (fn, opts) in list(CASES.items())})


def main():
    binary, case = sys.argv[1], sys.argv[2]
    if os.geteuid() != 0:
        print("SKIP: needs root (network namespaces)")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="swd") as tmp:
        if case == "config_errors":
            return config_errors(binary, tmp)
        if case == "ping":
            return case_ping(binary, tmp)
        if case == "goat_config":
            return goat_config_errors(binary, tmp)
        fn, opts = CASES[case]
        lcores = opts.get("lcores", 1)
        if lcores > os.cpu_count():
            print(f"SKIP: needs {lcores} CPUs")
            sys.exit(77)
        topo = Topology(3, mtu=opts.get("mtu", 1500))
        try:
            setns(NS)
            driver = opts.get("driver", "af_packet")
            sw = Switchd(binary, config_text(lcores=lcores, qpairs=lcores, driver=driver,
                                             extra_switch=opts.get("extra_switch", ""),
                                             port_extra=opts.get("port_extra"),
                                             elements=opts.get("elements", 62),
                                             vdev_extra=opts.get("vdev_extra", ""),
                                             key=opts.get("key", True),
                                             job_extra=opts.get("job_extra", ""))
                         + (goat_table(tmp) if opts.get("goat") else ""), tmp=tmp,
                         skip_if_no_port=driver != "af_packet")
            try:
                if "driver" in opts:
                    fn(sw, lcores=lcores, driver=driver)
                else:
                    fn(sw, lcores=lcores)
            except SystemExit:
                print(sw.output()[-3000:])
                sw.p.kill()
                raise
            sw.stop()
        finally:
            topo.cleanup()


if __name__ == "__main__":
    main()
