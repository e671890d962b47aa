#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""NetReduce on the wire: RoCEv2 RC packets through a real ina-switchd.

    roce_wire_test.py INA_SWITCHD CASE      (run as root; CASES below)

The test is the ranks' RoCE NICs: it builds every RoCEv2 RC packet itself
(Ethernet / IPv4 / UDP 4791 / BTH / RETH / payload / ICRC) and checks every
packet that comes back, with its own ICRC (zlib's CRC-32 over the fields the
IBTA spec masks), independent of the switch's code (ISA-L).

Topology, namespace nr<pid>: hR <-> swR for rank R = 0, 1, 2; switchd owns
swR (net_af_packet). Rank R (10.1.0.R+1) holds an RC connection to its ring
successor R+1 mod 3; the switch aggregates the ring's messages and writes
the sum into every connection, so hR+1 receives connection R's results.
"""
import atexit
import ctypes
import json
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib

RANKS = 3
WINDOW = 2
MSG_LEN = 3
MTU = 256
NS = f"nr{os.getpid()}"
HOST = [(f"10.1.0.{r + 1}", f"02:00:00:00:01:{r + 1:02x}") for r in range(RANKS)]
SW_IP, SW_MAC = "10.1.0.254", "02:00:00:00:01:fe"
MAGIC = 0x4E524544
F32, I32 = 2, 1
RINGS = {1: F32, 2: I32}  # ring id -> element type
OP_WRITE_FIRST, OP_WRITE_MIDDLE, OP_WRITE_LAST = 0x06, 0x07, 0x08
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4

_children = []


def _kill_children():
    for p in _children:
        if p.poll() is None:
            p.kill()
            p.wait()


atexit.register(_kill_children)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))


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


# ------------------------------------------------------------------ RoCEv2

def icrc(frame):
    """ICRC of a frame (without its last 4 bytes): CRC-32 over 8 bytes of
    0xFF, then IPv4 with TOS, TTL and checksum as 1s, UDP with checksum as
    1s, BTH with resv8a as 1s, the rest up to the ICRC (IBTA A17.3.3)."""
    b = bytearray(frame[14:len(frame) - 4])
    b[1] = 0xFF            # IPv4 TOS (DSCP + ECN)
    b[8] = 0xFF            # TTL
    b[10:12] = b"\xff\xff"  # header checksum
    b[26:28] = b"\xff\xff"  # UDP checksum
    b[32] = 0xFF           # BTH resv8a
    return zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF


def ip_checksum(h):
    s = sum(struct.unpack(">10H", h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


class Conn:
    """Rank r's RC connection to its successor on a ring."""

    def __init__(self, ring, rank):
        self.ring, self.rank = ring, rank
        self.succ = (rank + 1) % RANKS
        self.src, self.dst = HOST[rank][0], HOST[self.succ][0]
        self.dqpn = 0x10000 * ring + 0x100 + self.succ
        self.psn0 = (0xFFFFF8 + 4 * rank + ring) & 0xFFFFFF  # wraps within the test

    def psn(self, m, k):
        return (self.psn0 + m * MSG_LEN + k) & 0xFFFFFF


def values(ring, rank, m, k):
    n = MTU // 4 - (4 if k == 0 else 0)
    if RINGS[ring] == F32:
        return [float(m * 1000 + k * 100 + i) + 0.25 * rank for i in range(n)]
    return [(m * 1000 + k * 100 + i) * (1 if rank % 2 else -3) + rank for i in range(n)]


def expected(ring, m, k):
    cols = [values(ring, r, m, k) for r in range(RANKS)]
    return [sum(c) for c in zip(*cols)]


def pack_values(ring, vals):
    return struct.pack(f"<{len(vals)}{'f' if RINGS[ring] == F32 else 'i'}", *vals)


def unpack_values(ring, b):
    return list(struct.unpack(f"<{len(b) // 4}{'f' if RINGS[ring] == F32 else 'i'}", b))


OP_SEND_FIRST, OP_SEND_MIDDLE, OP_SEND_LAST = 0x00, 0x01, 0x02
VERB = {"op": "write"}  # the verb the ranks' messages use: "write" or "send"


def rdma_write_packet(c, m, k):
    """Packet k of message m (one RDMA WRITE, or SEND, of MSG_LEN packets)."""
    first, middle, last = ((OP_WRITE_FIRST, OP_WRITE_MIDDLE, OP_WRITE_LAST) if VERB["op"] == "write"
                           else (OP_SEND_FIRST, OP_SEND_MIDDLE, OP_SEND_LAST))
    op = first if k == 0 else last if k == MSG_LEN - 1 else middle
    payload = b""
    if k == 0 and op == OP_WRITE_FIRST:
        payload += struct.pack(">QII", 0x7F0000000000 + 0x100000 * c.rank + MTU * MSG_LEN * m,
                               0x2000 + c.rank, MSG_LEN * MTU)  # RETH
    if k == 0:
        payload += struct.pack(">IIHHBBH", MAGIC, m, MSG_LEN, c.ring, c.rank, RINGS[c.ring], 0)
    payload += pack_values(c.ring, values(c.ring, c.rank, m, k))
    bth = struct.pack(">BBHB3sB3s", op, 0, 0xFFFF, 0, c.dqpn.to_bytes(3, "big"),
                      0x80 if k == MSG_LEN - 1 else 0, c.psn(m, k).to_bytes(3, "big"))
    udp_len = 8 + len(bth) + len(payload) + 4
    udp = struct.pack(">HHHH", 49152 + c.rank, 4791, udp_len, 0)
    ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0x02, 20 + udp_len, c.psn(m, k) & 0xFFFF,
                               0x4000, 64, 17, 0, socket.inet_aton(c.src), socket.inet_aton(c.dst)))
    ip[10:12] = struct.pack(">H", ip_checksum(bytes(ip)))
    eth = mac(SW_MAC) + mac(HOST[c.rank][1]) + b"\x08\x00"
    f = eth + bytes(ip) + udp + bth + payload
    return f + struct.pack("<I", icrc(f + b"\0\0\0\0"))


def parse(frame):
    """A RoCEv2 frame as a dict, or None."""
    if len(frame) < 58 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return None
    if struct.unpack(">H", frame[36:38])[0] != 4791:
        return None
    ip_len = struct.unpack(">H", frame[16:18])[0]
    f = frame[:14 + ip_len]
    op = f[42]
    off = 54 + (16 if op in (OP_WRITE_FIRST, 0x0A) else 0) + \
        (16 if op in (OP_WRITE_FIRST, 0x0A, OP_SEND_FIRST, 0x04) else 0)
    return dict(src=socket.inet_ntoa(f[26:30]), dst=socket.inet_ntoa(f[30:34]), op=op,
                dqpn=int.from_bytes(f[47:50], "big"), psn=int.from_bytes(f[51:54], "big"),
                icrc_ok=struct.unpack("<I", f[-4:])[0] == icrc(f), head=f[:off],
                payload=f[off:-4], raw=f)


# ------------------------------------------------------------------ harness

def setns(name):
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    fd = os.open(f"/var/run/netns/{name}", os.O_RDONLY)
    if libc.setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
        raise OSError(ctypes.get_errno(), "setns")
    os.close(fd)


class Topology:
    def __init__(self):
        sh("ip", "netns", "add", NS)
        sh("ip", "netns", "exec", NS, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        sh("ip", "netns", "exec", NS, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
        for r in range(RANKS):
            sh("ip", "-n", NS, "link", "add", f"h{r}", "type", "veth", "peer", "name", f"sw{r}")
            sh("ip", "-n", NS, "link", "set", f"sw{r}", "up")
            sh("ip", "-n", NS, "link", "set", f"h{r}", "address", HOST[r][1])
            sh("ip", "-n", NS, "link", "set", f"h{r}", "up")
        sh("ip", "-n", NS, "link", "set", "lo", "up")

    def cleanup(self):
        sh("ip", "netns", "del", NS, check_rc=False)


def config_text(lcores=1, extra=""):
    s = f"""[switch]
ip = "{SW_IP}"
mac = "{SW_MAC}"
lcores = {list(range(lcores))}
stats_interval_s = 1
idle_sleep_us = 100
mbufs = 8191
rx_descriptors = 256
tx_descriptors = 256
control_auth = false
"""
    for r in range(RANKS):
        s += f'\n[[port]]\ndevice = "net_af_packet{r},iface=sw{r},qpairs={lcores}"\n'
        s += f'[[port.neighbour]]\nip = "{HOST[r][0]}"\nmac = "{HOST[r][1]}"\n'
    s += f"\n[netreduce]\nconnections = 64\n{extra}\n"
    for ring, typ in RINGS.items():
        s += (f"[[netreduce.ring]]\nid = {ring}\nranks = {RANKS}\nwindow = {WINDOW}\n"
              f"msg_len = {MSG_LEN}\nmtu = {MTU}\ntype = \"{'float32' if typ == F32 else 'int32'}\"\n")
    return s


class Switchd:
    def __init__(self, binary, cfg_text, tmp):
        self.prefix = f"nr{os.getpid()}"
        self.cfg = os.path.join(tmp, "switchd.toml")
        with open(self.cfg, "w") as f:
            f.write(cfg_text)
        self.log = open(os.path.join(tmp, "switchd.log"), "w+")
        self.p = subprocess.Popen(
            [binary, "--no-huge", "-m", "256", "--file-prefix", self.prefix, "--log-level",
             "lib.eal:notice", "--", "--config", self.cfg],
            stdout=self.log, stderr=subprocess.STDOUT,
            preexec_fn=lambda: ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL))
        _children.append(self.p)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.p.poll() is not None:
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
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect(f"/var/run/dpdk/{self.prefix}/dpdk_telemetry.v2")
        s.recv(16384)
        s.send(cmd.encode())
        r = json.loads(s.recv(65536).decode())
        s.close()
        return r[cmd.split(",")[0]]

    def counters(self):
        return self.telemetry("/ina/netreduce")

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        try:
            rc = self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("ina-switchd did not stop on SIGINT")
        check(rc == 0, f"ina-switchd exits 0 on SIGINT (rc {rc})")
        out = self.output()
        report = re.search(r"AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:", out)
        check(not report, "no sanitizer report" +
              (f":\n{out[max(0, report.start() - 200):report.start() + 3000]}" if report else ""))
        # Results made for the other ranks, contributions the slots took,
        # RoCE drops: every packet ends in a counter (docs/switchd.md,
        # "Where every packet went").
        m = re.search(r"final: accounting .*, unexplained (-?\d+)", out)
        check(m and m.group(1) == "0", f"every packet accounted for ({m and m.group(0)})")


class Wire:
    """One raw socket per host end: the ranks' NICs."""

    def __init__(self):
        self.socks = []
        for r in range(RANKS):
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            s.bind((f"h{r}", 0))
            s.setblocking(False)
            self.socks.append(s)
        time.sleep(0.2)
        self.drain()

    def drain(self):
        for s in self.socks:
            try:
                while True:
                    s.recv(65536)
            except BlockingIOError:
                pass

    def send(self, rank, frame):
        self.socks[rank].send(frame)

    def receive(self, want, timeout=3.0):
        """RoCE frames arriving at each host, until `want` in all or timeout."""
        got = [[] for _ in range(RANKS)]
        deadline = time.time() + timeout
        while time.time() < deadline and sum(len(g) for g in got) < want:
            ready, _, _ = select.select(self.socks, [], [], 0.05)
            for s in ready:
                r = self.socks.index(s)
                try:
                    while True:
                        data, addr = s.recvfrom(65536)
                        if addr[2] == PACKET_OUTGOING:
                            continue
                        p = parse(data)
                        if p:
                            got[r].append(p)
                except BlockingIOError:
                    pass
        time.sleep(0.1)
        for r, s in enumerate(self.socks):  # late duplicates
            try:
                while True:
                    data, addr = s.recvfrom(65536)
                    if addr[2] != PACKET_OUTGOING and parse(data):
                        got[r].append(parse(data))
            except BlockingIOError:
                pass
        return got


def check_results(got, ring, m, ks=range(MSG_LEN), what=""):
    """Every connection of `ring` carries the sum of packets ks of message m,
    with its own headers (PSN, QP, IPs, RETH, nr_hdr) and a valid ICRC."""
    for r in range(RANKS):
        c = Conn(ring, r)
        for k in ks:
            mine = [p for p in got[c.succ] if p["dqpn"] == c.dqpn and p["psn"] == c.psn(m, k)]
            if not mine:
                fail(f"{what}: ring {ring} rank {r} message {m} packet {k}: no result at h{c.succ}")
            sent = parse(rdma_write_packet(c, m, k))
            for p in mine:
                if not p["icrc_ok"]:
                    fail(f"{what}: ring {ring} rank {r} msg {m} pkt {k}: bad ICRC")
                # The switch routes it: destination MAC the successor's.
                if p["head"][12:] != sent["head"][12:] or p["head"][6:12] != sent["head"][6:12] \
                        or p["head"][:6] != mac(HOST[c.succ][1]):
                    fail(f"{what}: ring {ring} rank {r} msg {m} pkt {k}: headers differ from the rank's")
                got_v = unpack_values(ring, p["payload"])
                if got_v != expected(ring, m, k):
                    fail(f"{what}: ring {ring} rank {r} msg {m} pkt {k}: sum differs "
                         f"(first {got_v[:4]} want {expected(ring, m, k)[:4]})")


def send_message(wire, ring, rank, m, ks=range(MSG_LEN)):
    c = Conn(ring, rank)
    for k in ks:
        wire.send(rank, rdma_write_packet(c, m, k))


def delta(before, after):
    return {k: after[k] - before[k] for k in after if isinstance(after[k], int) and after[k] != before.get(k)}


def settled_delta(sw, before, want, timeout=5.0):
    """The counters' delta once it holds at least `want` (a packet just sent
    may still be in the veth or the switch's queue), or after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        d = delta(before, sw.counters())
        if all(d.get(k, 0) >= v for k, v in want.items()) or time.monotonic() > deadline:
            return d
        time.sleep(0.02)


# ------------------------------------------------------------------ cases

def case_aggregate(sw, wire):
    """Six messages per rank on ring 1 (float32), one window at a time: the
    2N slots are reused and freed one window ahead."""
    before = sw.counters()
    for m in range(6):
        for r in range(RANKS):
            send_message(wire, 1, r, m)
        got = wire.receive(RANKS * MSG_LEN)
        check_results(got, 1, m, what=f"message {m}")
        check(sum(len(g) for g in got) == RANKS * MSG_LEN,
              f"message {m}: {RANKS * MSG_LEN} results, exact sums, valid ICRC, own PSN/QP/RETH")
    d = delta(before, sw.counters())
    check(d.get("roce_completed") == 6 * MSG_LEN and d.get("roce_aggregated") == 6 * MSG_LEN * RANKS,
          f"counters: completed {d.get('roce_completed')}, aggregated {d.get('roce_aggregated')}")
    check(d.get("roce_clt_filled") == 6 * RANKS, "every first packet filled the CLT")
    check(d.get("roce_freed") == (6 - WINDOW) * MSG_LEN, f"slots freed one window ahead ({d.get('roce_freed')})")
    check(sw.counters()["connections"] == RANKS, "CLT holds one entry per connection")
    # With two lcores, RoCE packets that arrive on lcore 1's queue are handed
    # to the NetReduce lcore (how many depends on the kernel's flow hash).
    lcores = sw.telemetry("/ina/lcores")
    print("info: handed to the NetReduce lcore:",
          sum(sw.telemetry(f"/ina/lcore,{k}")["handoff_out"] for k in lcores))
    # The CLT and the ring arrays come from the memory of the lcore that runs
    # the stage, on its NUMA node: that lcore's state is larger than another
    # lcore's by at least the tables (their aggregator shares differ by at
    # most one row).
    nr = sw.telemetry("/ina/netreduce")
    own = sw.telemetry(f"/ina/lcore,{nr['lcore']}")
    check(nr["memory_bytes"] > 0 and own["memory_socket"] == own["socket"] >= 0,
          f"NetReduce tables ({nr['memory_bytes']} bytes) on lcore {nr['lcore']}'s node "
          f"(state on socket {own['memory_socket']}, CPU on {own['socket']})")
    for k in lcores:
        if k != nr["lcore"]:
            other = sw.telemetry(f"/ina/lcore,{k}")
            grown = own["memory_bytes"] - other["memory_bytes"]
            check(grown >= 0.9 * nr["memory_bytes"],
                  f"lcore {nr['lcore']} holds the tables: {grown} bytes more than lcore {k}")


def case_send(sw, wire):
    """Messages as RC SENDs (no RETH; the nr_hdr right after the BTH), as
    the worker library's RoCE transport sends them."""
    VERB["op"] = "send"
    for m in range(5):
        for r in range(RANKS):
            send_message(wire, 1, r, m)
        got = wire.receive(RANKS * MSG_LEN)
        check_results(got, 1, m, what=f"send message {m}")
        check(sum(len(g) for g in got) == RANKS * MSG_LEN and
              all(p["op"] in (OP_SEND_FIRST, OP_SEND_MIDDLE, OP_SEND_LAST) for g in got for p in g),
              f"SEND message {m}: results exact, SEND opcodes kept, ICRC valid")


def warm_up(sw, wire, ring=1, upto=1):
    for m in range(upto):
        for r in range(RANKS):
            send_message(wire, ring, r, m)
        check_results(wire.receive(RANKS * MSG_LEN), ring, m, what=f"warm-up message {m}")


def case_loss(sw, wire):
    """Loss of a first packet, of a middle packet, go-back-N resends."""
    warm_up(sw, wire)
    # Message 1: rank 0's first packet is lost; its next packets meet the
    # CLT of message 0 and are dropped (PSN - PSN0 >= MsgLen).
    before = sw.counters()
    send_message(wire, 1, 0, 1, ks=[1, 2])
    for r in (1, 2):
        send_message(wire, 1, r, 1)
    got = wire.receive(1, timeout=1.0)
    check(sum(len(g) for g in got) == 0, "first packet lost: nothing completes")
    d = delta(before, sw.counters())
    check(d.get("roce_first_lost") == 2, f"both followers dropped as roce_first_lost ({d})")
    send_message(wire, 1, 0, 1)  # go-back-N from the first packet
    got = wire.receive(RANKS * MSG_LEN)
    check_results(got, 1, 1, what="after the first packet's resend")
    check(sum(len(g) for g in got) == RANKS * MSG_LEN, "go-back-N resend completes message 1 exactly")

    # Message 2: rank 1's middle packet is lost, its last one gets through;
    # go-back-N resends 1 and 2: packet 2 is already in, never added twice.
    before = sw.counters()
    send_message(wire, 1, 1, 2, ks=[0, 2])
    send_message(wire, 1, 1, 2, ks=[1, 2])  # the resend
    d = settled_delta(sw, before, {"roce_duplicate": 1})
    check(d.get("roce_duplicate") == 1, f"resent last packet counted as duplicate ({d})")
    for r in (0, 2):
        send_message(wire, 1, r, 2)
    got = wire.receive(RANKS * MSG_LEN)
    check_results(got, 1, 2, what="middle packet lost")
    check(sum(len(g) for g in got) == RANKS * MSG_LEN, "middle packet loss: every sum exact once")

    # The result of message 3 packet 1 to rank 2's successor is lost: rank 2
    # resends from packet 1 and gets the result again from the slot.
    for r in range(RANKS):
        send_message(wire, 1, r, 3)
    check_results(wire.receive(RANKS * MSG_LEN), 1, 3, what="message 3")
    before = sw.counters()
    send_message(wire, 1, 2, 3, ks=[1, 2])
    got = wire.receive(2)
    c = Conn(1, 2)
    again = [p for p in got[c.succ] if p["dqpn"] == c.dqpn]
    check(sorted(p["psn"] for p in again) == [c.psn(3, 1), c.psn(3, 2)] and
          all(p["icrc_ok"] and unpack_values(1, p["payload"]) == expected(1, 3, k)
              for p, k in zip(sorted(again, key=lambda p: p["psn"]), (1, 2))),
          "lost result: the resend gets the same sum back, ICRC valid, into its connection only")
    check(sum(len(g) for g in got) == 2, "no result into the other connections")
    check(delta(before, sw.counters()).get("roce_result_resent") == 2, "counted roce_result_resent")


def case_gobackn(sw, wire):
    """Go-back-N across a message boundary: rank 2 resends from message 1's
    middle after message 2's first packet went out; the CLT holds message 2,
    the resent packets of message 1 are addressed from MsgLen."""
    warm_up(sw, wire)
    before = sw.counters()
    send_message(wire, 1, 2, 1)
    send_message(wire, 1, 2, 2, ks=[0])
    send_message(wire, 1, 2, 1, ks=[1, 2])  # go back
    send_message(wire, 1, 2, 2)
    d = settled_delta(sw, before, {"roce_duplicate": 3})
    check(d.get("roce_duplicate") == 3, f"three resent packets, none added twice ({d})")
    for r in (0, 1):
        send_message(wire, 1, r, 1)
        send_message(wire, 1, r, 2)
    got = wire.receive(2 * RANKS * MSG_LEN)
    check_results(got, 1, 1, what="go-back-N message 1")
    check_results(got, 1, 2, what="go-back-N message 2")
    check(sum(len(g) for g in got) == 2 * RANKS * MSG_LEN, "two messages in the window, sums exact")


def case_two_rings(sw, wire):
    """Ring 1 (float32) and ring 2 (int32) at once, packets interleaved."""
    before = sw.counters()
    for m in range(3):
        for k in range(MSG_LEN):
            for r in range(RANKS):
                for ring in (1, 2):
                    send_message(wire, ring, r, m, ks=[k])
        got = wire.receive(2 * RANKS * MSG_LEN)
        check_results(got, 1, m, what=f"ring 1 message {m}")
        check_results(got, 2, m, what=f"ring 2 message {m}")
        check(sum(len(g) for g in got) == 2 * RANKS * MSG_LEN, f"message {m}: both rings exact")
    check(sw.counters()["connections"] == 2 * RANKS, "CLT: one entry per connection and ring")
    check(delta(before, sw.counters()).get("roce_completed") == 2 * 3 * MSG_LEN, "completions counted")


def case_bad_input(sw, wire):
    """A corrupted packet, an unknown ring, ordinary RoCE traffic."""
    warm_up(sw, wire)
    before = sw.counters()
    f = bytearray(rdma_write_packet(Conn(1, 0), 1, 1))
    f[100] ^= 0x10
    wire.send(0, bytes(f))
    bad_tag = bytearray(rdma_write_packet(Conn(1, 1), 1, 0))
    struct.pack_into(">H", bad_tag, 54 + 16 + 10, 99)  # ring 99
    bad_tag[-4:] = struct.pack("<I", icrc(bytes(bad_tag)))
    wire.send(1, bytes(bad_tag))
    got = wire.receive(1, timeout=1.0)
    d = delta(before, sw.counters())
    check(d.get("roce_icrc_bad") == 1 and d.get("roce_tag_invalid") == 1,
          f"corrupted packet and unknown ring counted ({d})")
    check(sum(len(g) for g in got) == 0, "neither reaches a host")
    # An ACK from rank 1 to rank 0 is not NetReduce's: forwarded untouched.
    c = Conn(1, 0)
    ack = bytearray(rdma_write_packet(Conn(1, 1), 1, 1))
    ack = ack[:54] + struct.pack(">I", 0) + b"\0\0\0\0"
    ack = bytearray(ack)
    ack[42] = 0x11
    ack[14 + 2:14 + 4] = struct.pack(">H", len(ack) - 14)
    ack[38:40] = struct.pack(">H", len(ack) - 34)
    ack[30:34] = socket.inet_aton(c.src)
    ack[-4:] = struct.pack("<I", icrc(bytes(ack)))
    wire.send(1, bytes(ack))
    got = wire.receive(1)
    check(len(got[0]) == 1 and got[0][0]["raw"][14:] == bytes(ack)[14:], "ACK forwarded untouched to rank 0")


CLT_TIMEOUT_MS = 300  # the "expired" case's clt_timeout_ms


def case_expired(sw, wire):
    """The CLT forgets the ring mid-message (idle past clt_timeout_ms): a
    later packet of the message is dropped, never forwarded with its raw
    values, which the receiver would take for the result (its PSN is the
    one expected). A resend from the first packet fills the CLT again."""
    warm_up(sw, wire)
    for r in range(RANKS):
        send_message(wire, 1, r, 1, ks=[0])
    check_results(wire.receive(RANKS), 1, 1, ks=[0], what="message 1 packet 0")
    time.sleep(2 * CLT_TIMEOUT_MS / 1000)
    check(sw.counters()["connections"] == 0, "idle connections left the CLT")
    before = sw.counters()
    send_message(wire, 1, 0, 1, ks=[1])
    got = wire.receive(1, timeout=1.0)
    check(sum(len(g) for g in got) == 0, "packet of a forgotten connection reaches no host")
    d = delta(before, sw.counters())
    check(d.get("roce_clt_miss") == 1 and "roce_aggregated" not in d, f"counted roce_clt_miss ({d})")
    for r in range(RANKS):  # the senders go back to the message's first packet
        send_message(wire, 1, r, 1)
    got = wire.receive(RANKS * MSG_LEN)
    check_results(got, 1, 1, what="resend from the first packet")
    check(sum(len(g) for g in got) == RANKS * MSG_LEN, "the resend completes message 1 exactly")


CASES = {"aggregate": case_aggregate, "send": case_send, "loss": case_loss, "gobackn": case_gobackn,
         "two_rings": case_two_rings, "bad_input": case_bad_input, "expired": case_expired}


def config_errors(binary, tmp):
    bad = [("type = \"float32\"", "type = \"float16\"", "type: must be \"float32\" or \"int32\""),
           (f"ranks = {RANKS}", "ranks = 1", "ranks: must be between 2 and 32"),
           (f"mtu = {MTU}", "mtu = 258", "mtu: must be a multiple of 4"),
           ("id = 2", "id = 1", "ring 1 configured twice"),
           (f"window = {WINDOW}", "window = 0", "window: must be between 1"),
           ("connections = 64", "connections = 64\nspeed = 1", "netreduce.speed: unknown key")]
    for old, new, want in bad:
        path = os.path.join(tmp, "bad.toml")
        with open(path, "w") as f:
            f.write(config_text().replace(old, new, 1))
        r = subprocess.run([binary, "--check-config", path], capture_output=True, text=True)
        check(r.returncode == 2 and want in r.stderr, f"config '{new.splitlines()[-1]}': {r.stderr.strip()}")


def main():
    binary, case = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="nr") as tmp:
        if case == "config_errors":
            return config_errors(binary, tmp)
        if os.geteuid() != 0:
            print("SKIP: needs root (network namespaces)")
            sys.exit(77)
        lcores = 2 if case.endswith("_2lcores") else 1
        fn = CASES[case.replace("_2lcores", "")]
        if lcores > os.cpu_count():
            print(f"SKIP: needs {lcores} CPUs")
            sys.exit(77)
        topo = Topology()
        try:
            setns(NS)
            extra = f"clt_timeout_ms = {CLT_TIMEOUT_MS}" if case == "expired" else ""
            sw = Switchd(binary, config_text(lcores, extra), tmp)
            try:
                fn(sw, Wire())
            except SystemExit:
                print(sw.output()[-3000:])
                print(json.dumps(sw.counters()))
                sw.p.kill()
                raise
            sw.stop()
        finally:
            topo.cleanup()


if __name__ == "__main__":
    main()
