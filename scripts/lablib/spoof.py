#!/usr/bin/python3
"""A misbehaving host for the lab's security tests, sending gradient packets
from this host's own address, as fast as --rate allows, until SIGTERM.

- spoof (another job's id, bit 0): a switch must drop them at admission
  (the source is not a registered worker of that job) and count them; the
  job's results must not change.
- hoard (--cover: this host's own job, its own bit and the run's epoch, so
  admission takes them): one fragment per aggregator index, sent over and
  over. Each claims its aggregator when it is free and, as a duplicate,
  keeps it fresh, so neither the GC nor the idle sweep ever frees it: the
  host ends up holding every aggregator the switch lets its job hold.
  The fragments never complete (one contribution of fan_in) and their seqs
  (from --seq-base, 0x90000000: half the seq space behind any real seq) are
  `stale` at the job's PS, so the job's own results do not change.
- forge (--results: parameter packets, the ACK flag, of another job, sent
  from this host's port with that job's PS address as source, to the job's
  multicast group): a switch must drop them (forged_result_drops), neither
  freeing an aggregator nor delivering them to the job's workers.
- hijack (--control: control messages for another job to the switch,
  alternately a registration that makes this host the job's only worker and
  an unregistration, every other one in the name of the job's PS (its IP and
  MAC as source), each with a fresh counter and signed with a key this host
  guesses): a switch must drop them all (control_auth_drops) without a log
  line each, and the job must keep its registration and its aggregators.

- malformed (--malformed: this host's packets of a job, every other one
  with INA version 2, the others with elem_count one more than the payload
  carries): a switch must drop them (classify counts the other version
  `malformed`; the others die at admission or in the pipeline), and a
  capture decoded with tools/wireshark/ina.lua must show all as malformed.

Frames follow protocol/include/ina/wire.h; the aggregator index is the same
CRC-32 hash the workers use, so the packets land on the job's aggregators.
"""

import argparse
import hashlib
import hmac
import os
import signal
import socket
import struct
import sys
import time
import zlib

# Run as a script (jobs.py starts it).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import pythonpath  # noqa: E402,F401  (the project's Python folders)
import ina_wire as wire  # noqa: E402


def ipv4_checksum(hdr):
    s = sum(struct.unpack("!10H", hdr))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return (~s) & 0xFFFF


def agg_index(a, seq):
    return zlib.crc32(struct.pack("!HI", a.job, seq)) % a.aggregators


def covering_seqs(a):
    """From --seq-base on, the first seq that hashes to each aggregator index."""
    seqs, seen, seq = [], set(), a.seq_base
    while len(seen) < a.aggregators:
        i = agg_index(a, seq)
        if i not in seen:
            seen.add(i)
            seqs.append(seq)
        seq = (seq + 1) & 0xFFFFFFFF
    return seqs


def frame(a, seq):
    n = a.elements
    idx = agg_index(a, seq)
    fan = (a.fan_in + [0, 0, 0, 0])[:4]
    bitmap = [1 << a.bit] * 4  # claims this bit at every level
    flags = 0
    if a.results:  # a parameter packet: ACK, no bitmaps, no fan-in
        flags = wire.INA_F_ACK
        bitmap, fan = [0] * 4, [0] * 4
    # epoch: the run's (docs/protocol.md, "Epochs")
    version, count = wire.INA_VERSION, n
    if a.malformed:  # another version, or more elements than the payload has
        version, count = (2, n) if seq % 2 == 0 else (wire.INA_VERSION, n + 1)
    ina = wire.pack_ina(a.job, seq, version=version, flags=flags, epoch=a.epoch, agg_index=idx,
                        elem_count=count, levels=a.levels, bitmap=bitmap, fan_in=fan)
    payload = wire.pack_payload([a.value] * n)
    udp_len = 8 + len(ina) + len(payload)
    udp = struct.pack("!HHHH", wire.steering_src_port(idx), wire.INA_UDP_PORT, udp_len, 0)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, seq & 0xFFFF, 0, 64, 17, 0,
                               socket.inet_aton(a.src_ip), socket.inet_aton(a.dst_ip)))
    ip[10:12] = struct.pack("!H", ipv4_checksum(bytes(ip)))
    eth = bytes.fromhex(a.dst_mac.replace(":", "")) + bytes.fromhex(a.src_mac.replace(":", "")) + \
        b"\x08\x00"
    return eth + bytes(ip) + udp + ina + payload


def ip_u32(ip):
    return struct.unpack("!I", socket.inet_aton(ip))[0]


def control_frame(a, k, counter):
    """Message k of the hijack (docs/protocol.md, "Control messages"):
    register (op 1) with this host as the job's only worker, or unregister
    (op 2); from this host, or in the PS's name for odd k."""
    ps_ip, ps_mac = a.ps_ip or a.src_ip, a.ps_mac or a.src_mac
    src_ip, src_mac = (ps_ip, ps_mac) if k % 2 else (a.src_ip, a.src_mac)
    op = wire.INA_CTRL_REGISTER if (k // 2) % 2 == 0 else wire.INA_CTRL_UNREGISTER
    mac_b = lambda m: bytes.fromhex(m.replace(":", ""))
    workers = [(ip_u32(a.src_ip), mac_b(a.src_mac), (0, 255, 255, 255))] \
        if op == wire.INA_CTRL_REGISTER else []
    body = wire.pack_ctrl(op, ip_u32(src_ip), mac_b(src_mac), workers=workers, levels=1,
                          fan_in=(1,) if op == wire.INA_CTRL_REGISTER else ())
    body += struct.pack("!Q", counter)  # struct ina_ctrl_auth up to its MAC
    ina = wire.pack_ina(a.job, type=wire.INA_TYPE_CONTROL)
    signed = ina + body
    mac = hmac.new(a.key, wire.ctrl_mac_input(ip_u32(a.dst_ip), ip_u32(src_ip), signed),
                   hashlib.sha256).digest()
    udp_len = 8 + len(signed) + len(mac)
    udp = struct.pack("!HHHH", 40000, wire.INA_UDP_PORT, udp_len, 0)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, k & 0xFFFF, 0, 64, 17, 0,
                               socket.inet_aton(src_ip), socket.inet_aton(a.dst_ip)))
    ip[10:12] = struct.pack("!H", ipv4_checksum(bytes(ip)))
    return mac_b(a.dst_mac) + mac_b(src_mac) + b"\x08\x00" + bytes(ip) + udp + signed + mac


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--device", required=True)
    ap.add_argument("--src-ip", required=True)
    ap.add_argument("--src-mac", required=True)
    ap.add_argument("--dst-ip", required=True, help="the job's PS")
    ap.add_argument("--dst-mac", required=True)
    ap.add_argument("--job", type=int, required=True)
    ap.add_argument("--elements", type=int, default=62)
    ap.add_argument("--aggregators", type=int, default=4096)
    ap.add_argument("--levels", type=int, default=1)
    ap.add_argument("--fan-in", default="1")
    ap.add_argument("--value", type=int, default=1 << 24, help="int32 value in every element")
    ap.add_argument("--seqs", type=int, default=65536, help="cycle over sequence numbers 0..seqs-1")
    ap.add_argument("--bit", type=int, default=0, help="bitmap bit claimed at every level")
    ap.add_argument("--epoch", type=int, default=0, help="the job's run (flags bits 8-15)")
    ap.add_argument("--seq-base", type=lambda x: int(x, 0), default=0, help="first seq")
    ap.add_argument("--cover", action="store_true",
                    help="cycle over one seq per aggregator index (hoarding)")
    ap.add_argument("--results", action="store_true",
                    help="parameter packets (ACK) instead of gradients (forged results)")
    ap.add_argument("--control", action="store_true",
                    help="control messages for the job to the switch at --dst-ip (hijack)")
    ap.add_argument("--ps-ip", help="the job's PS, whose name every other control message takes")
    ap.add_argument("--ps-mac")
    ap.add_argument("--malformed", action="store_true",
                    help="INA version 2 and elem_count beyond the payload, alternately")
    ap.add_argument("--count", type=int, default=0, help="stop after this many frames (0: never)")
    ap.add_argument("--rate", type=float, default=20000, help="frames per second")
    a = ap.parse_args()
    a.fan_in = [int(x) for x in a.fan_in.split(",") if x]

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    try:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((a.device, 0))
    except OSError as e:
        print(f"spoof: {a.device}: {e.strerror}", file=sys.stderr)
        return 1
    seqs = covering_seqs(a) if a.cover else [(a.seq_base + i) & 0xFFFFFFFF for i in range(a.seqs)]
    frames = [frame(a, q) for q in seqs] if a.cover or a.results else None
    if a.control:
        # The switch's key is not this host's to know: a guess. Counters
        # start at the clock (in ns, as a PS's do) so that none is a replay.
        a.key = os.urandom(32)
        base = time.time_ns()
        frames = None
    sent, k, t0 = 0, 0, time.monotonic()
    last_report = t0
    while not stop and not (a.count and sent >= a.count):
        try:
            if a.control:
                s.send(control_frame(a, sent, base + sent))
            else:
                s.send(frames[k] if frames else frame(a, seqs[k]))
            sent += 1
        except OSError:
            time.sleep(0.001)
        k = (k + 1) % len(seqs)
        target = t0 + sent / a.rate
        now = time.monotonic()
        if target > now:
            time.sleep(target - now)
        if now - last_report >= 1.0:
            print(f"spoof: sent {sent}", flush=True)
            last_report = now
    print(f"spoof: sent {sent}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
