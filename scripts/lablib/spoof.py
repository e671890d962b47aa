#!/usr/bin/python3
"""A misbehaving host for the lab's admission test: sends gradient packets
that carry another job's id (and a bitmap bit of one of its workers) from
this host's own address, as fast as --rate allows, until SIGTERM.

A switch must drop them at admission (the source is not a registered worker
of that job) and count them; the job's results must not change.
Frames follow pipeline/include/ina/wire.h; the aggregator index is the same
CRC-32 hash the workers use, so the packets land on the job's aggregators.
"""

import argparse
import signal
import socket
import struct
import sys
import time
import zlib

INA_UDP_PORT = 18766


def ipv4_checksum(hdr):
    s = sum(struct.unpack("!10H", hdr))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return (~s) & 0xFFFF


def frame(a, seq):
    n = a.elements
    idx = zlib.crc32(struct.pack("!HI", a.job, seq)) % a.aggregators
    fan = (a.fan_in + [0, 0, 0, 0])[:4]
    bitmap = [1, 1, 1, 1]  # claims bit 0 at every level
    ina = struct.pack("!BBHHHIIIHBB4I4B", 1, 0, 0, a.job, 0, seq, idx, 0xFFFFFFFF, n, 0,
                      a.levels, *bitmap, *fan)
    payload = struct.pack(f"!{n}i", *([a.value] * n))
    udp_len = 8 + len(ina) + len(payload)
    udp = struct.pack("!HHHH", 0xC000 | (idx & 0x3FFF), INA_UDP_PORT, udp_len, 0)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, seq & 0xFFFF, 0, 64, 17, 0,
                               socket.inet_aton(a.src_ip), socket.inet_aton(a.dst_ip)))
    ip[10:12] = struct.pack("!H", ipv4_checksum(bytes(ip)))
    eth = bytes.fromhex(a.dst_mac.replace(":", "")) + bytes.fromhex(a.src_mac.replace(":", "")) + \
        b"\x08\x00"
    return eth + bytes(ip) + udp + ina + payload


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
    sent, seq, t0 = 0, 0, time.monotonic()
    last_report = t0
    while not stop:
        try:
            s.send(frame(a, seq))
            sent += 1
        except OSError:
            time.sleep(0.001)
        seq = (seq + 1) % a.seqs
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
