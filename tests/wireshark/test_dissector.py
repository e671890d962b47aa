#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/wireshark/ina.lua, run by tshark over frames written with the
project's wire module (protocol/python/ina_wire.py, itself checked against
wire.h by python_wire_layout): every field of the INA header, the flags by
name and the epoch, int32 and float32 values, every control op with its
workers or GOAT ranges and its authentication trailer, the malformed frames
switchd counts, and NetReduce's tag in a RoCEv2 first packet.

The dissector's constants are read from the Lua file and compared with the
wire module's, so that a change of the wire format alone fails here.

    test_dissector.py SOURCE_ROOT      (exit 77 without tshark)"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)
import ina_wire as wire  # noqa: E402

LUA = os.path.join(ROOT, "tools", "wireshark", "ina.lua")
FAILED = []


def check(what, got, want):
    if got != want:
        FAILED.append(f"{what}: got {got!r}, want {want!r}")


def ip4(text):
    return bytes(int(x) for x in text.split("."))


def frame(l4_payload, dport=wire.INA_UDP_PORT, sport=0xC005):
    udp_len = 8 + len(l4_payload)
    eth = bytes.fromhex("02000000000a02000000000b") + struct.pack("!H", 0x0800)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 1, 0x4000, 64, 17, 0,
                     ip4("10.0.0.1"), ip4("10.0.0.9"))
    return eth + ip + struct.pack("!HHHH", sport, dport, udp_len, 0) + l4_payload


class Cut(bytes):
    """A frame the capture cut (snaplen): `wire_len` bytes on the wire."""
    wire_len = 0


def cut(frame, keep):
    c = Cut(frame[:keep])
    c.wire_len = len(frame)
    return c


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(p), getattr(p, "wire_len", len(p))) + p)


def control(op, job, workers=(), goat=(), status=0, signed=True, elem_count=0):
    entries = [wire.CTRL_WORKER.pack(ip=w[0], mac=w[1], bit=w[2]) for w in workers]
    entries += [wire.CTRL_GOAT_RANGE.pack(first=g[0], end=g[1], children=g[2], fan_in=g[3])
                for g in goat]
    body = wire.pack_ctrl(op, int.from_bytes(ip4("10.0.0.9"), "big"), b"\x02\0\0\0\0\x0b",
                          workers=entries, levels=1, status=status, fan_in=(len(entries),),
                          refresh_ms=500)
    auth = wire.CTRL_AUTH.pack(counter=123456789, mac=(b"\x5a" * 32) if signed else bytes(32))
    return wire.pack_ina(job, type=wire.INA_TYPE_CONTROL, epoch=2, elem_count=elem_count) + body + auth


def frames():
    """(frame, {field: expected text}) pairs; fields as tshark -T fields prints them."""
    g = wire.pack_ina(7, 42, flags=wire.INA_F_RESEND | wire.INA_F_ECN, epoch=3, agg_node=2,
                      agg_index=1234, elem_count=4, level=1, levels=2, bitmap=(0x5, 0x1),
                      fan_in=(4, 2))
    yield frame(g + wire.pack_payload([1, -2, 2147483647, -2147483648])), {
        "ina.version": "1", "ina.type": "0", "ina.job": "7", "ina.seq": "42",
        "ina.agg_node": "2", "ina.agg_index": "1234", "ina.remap_index": str(wire.INA_NO_REMAP),
        "ina.elem_count": "4", "ina.level": "1", "ina.levels": "2", "ina.epoch": "3",
        "ina.flags.resend": "1", "ina.flags.ecn": "1", "ina.flags.ack": "0",
        "ina.bitmap": "0x00000005,0x00000001,0x00000000,0x00000000", "ina.fan_in": "4,2,0,0",
        "ina.value": "1,-2,2147483647,-2147483648", "_ws.expert": ""}
    a = wire.pack_ina(7, 43, flags=wire.INA_F_ACK | wire.INA_F_FLOAT | wire.INA_F_OVERFLOW,
                      remap_index=99, elem_count=2)
    yield frame(a + wire.pack_payload([1.5, -0.25], "f")), {
        "ina.flags.ack": "1", "ina.flags.float": "1", "ina.flags.overflow": "1",
        "ina.remap_index": "99", "ina.value_float": "1.5,-0.25", "ina.value": ""}
    # Cut by the capture's snaplen: judged by its length on the wire, the
    # values captured shown.
    big = wire.pack_ina(7, 45, elem_count=700) + wire.pack_payload(list(range(700)))
    yield cut(frame(big), wire.INA_PAYLOAD_OFFSET + 40), {
        "ina.elem_count": "700", "ina.value": "0,1,2,3,4,5,6,7,8,9", "_ws.expert": ""}
    bad = [(wire.pack_ina(7, 1, version=2), "version 2"), (wire.pack_ina(0, 1), "job 0"),
           (wire.pack_ina(7, 1, elem_count=5) + wire.pack_payload([1, 2]), "elem_count 5"),
           (wire.pack_ina(7, 1, elem_count=wire.INA_MAX_ELEMENTS + 1), "elem_count 2049")]
    for raw, why in bad:
        yield frame(raw), {"_ws.col.Info": re.compile(r"malformed: " + re.escape(why))}
    w = [(int.from_bytes(ip4(f"10.0.1.{i}"), "big"), bytes([2, 0, 0, 0, 1, i]), (1 << i,))
         for i in range(3)]
    yield frame(control(wire.INA_CTRL_REGISTER, 9, workers=w, status=wire.INA_CTRL_RENEW)), {
        "ina.ctrl.op": "1", "ina.ctrl.entries": "3", "ina.ctrl.status": "1",
        "ina.ctrl.ps_ip": "10.0.0.9", "ina.ctrl.ps_mac": "02:00:00:00:00:0b",
        "ina.ctrl.refresh_ms": "500", "ina.ctrl.worker.ip": "10.0.1.0,10.0.1.1,10.0.1.2",
        "ina.ctrl.counter": "123456789", "ina.ctrl.signed": "1", "ina.epoch": "2"}
    yield frame(control(wire.INA_CTRL_ACK, 9, status=wire.INA_CTRL_DENIED, signed=False,
                        elem_count=768)), {
        "ina.ctrl.op": "3", "ina.ctrl.status": "1", "ina.ctrl.signed": "0",
        "ina.elem_count": "768", "_ws.expert": ""}
    yield frame(control(wire.INA_CTRL_GOAT, 9, goat=[(0, 64, 0x3, 2), (64, 128, 0xC, 2)])), {
        "ina.ctrl.op": "4", "ina.ctrl.goat.first": "0,64", "ina.ctrl.goat.end": "64,128",
        "ina.ctrl.goat.fan_in": "2,2", "ina.ctrl.worker.ip": ""}
    yield frame(control(wire.INA_CTRL_JOB_INFO, 9, elem_count=938)[:wire.INA_HDR_LEN + 30]), {
        "_ws.col.Info": re.compile(r"malformed: control payload 30 bytes")}
    yield frame(wire.pack_ina(9, type=wire.INA_TYPE_CONTROL)), {
        "_ws.col.Info": re.compile(r"malformed: control payload shorter than its header")}
    yield from roce_frames()


def roce_frames():
    bth = struct.pack("!BBHB3sB3s", 0x06, 0, 0xFFFF, 0, (17).to_bytes(3, "big"), 0,
                      (100).to_bytes(3, "big"))
    reth = struct.pack("!QII", 0x1000, 0x55, 4096)
    nr = struct.pack("!IIHHBBH", 0x4E524544, 9, 4, 2, 1, 1, 0)
    yield frame(bth + reth + nr + bytes(32) + bytes(4), dport=4791, sport=50000), {
        "netreduce.msg_id": "9", "netreduce.msg_len": "4", "netreduce.ring_id": "2",
        "netreduce.rank": "1", "netreduce.dtype": "1"}
    yield frame(bth + reth + bytes(48) + bytes(4), dport=4791, sport=50000), {
        "netreduce.msg_id": ""}


def lua_constants():
    with open(LUA) as f:
        text = f.read()
    return {k: int(v, 0) for k, v in re.findall(r"^local (\w+) = (0x[0-9A-Fa-f]+|\d+)$", text, re.M)}


def check_constants():
    lua = lua_constants()
    want = {"INA_UDP_PORT": wire.INA_UDP_PORT, "INA_VERSION": wire.INA_VERSION,
            "INA_HDR_LEN": wire.INA_HDR.size, "INA_MAX_LEVELS": wire.INA_MAX_LEVELS,
            "INA_MAX_ELEMENTS": wire.INA_MAX_ELEMENTS, "INA_NO_REMAP": wire.INA_NO_REMAP,
            "CTRL_HDR_LEN": wire.CTRL_HDR.size, "CTRL_ENTRY_LEN": wire.CTRL_WORKER.size,
            "CTRL_AUTH_LEN": wire.CTRL_AUTH.size}
    for k, v in want.items():
        check(f"ina.lua {k}", lua.get(k), v)


def run_tshark(pcap, fields):
    cmd = ["tshark", "-n", "-X", "lua_script:" + LUA, "-r", pcap, "-T", "fields",
           "-E", "separator=\t", "-E", "aggregator=,", "-E", "occurrence=a"]
    for name in fields:
        cmd += ["-e", name]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if out.returncode != 0 or "Lua" in out.stderr and "rror" in out.stderr:
        sys.exit(f"tshark failed ({out.returncode}): {out.stderr.strip()}")
    return [line.split("\t") for line in out.stdout.splitlines()]


def main():
    if not shutil.which("tshark"):
        print("skipped: tshark is not installed (Debian package tshark; scripts/deps.sh installs it)")
        return 77
    check_constants()
    cases = list(frames())
    fields = sorted({k for _, want in cases for k in want})
    with tempfile.TemporaryDirectory() as tmp:
        pcap = os.path.join(tmp, "ina.pcap")
        write_pcap(pcap, [p for p, _ in cases])
        rows = run_tshark(pcap, fields)
    check("frames decoded", len(rows), len(cases))
    for i, ((_, want), row) in enumerate(zip(cases, rows)):
        got = dict(zip(fields, row + [""] * (len(fields) - len(row))))
        for k, v in want.items():
            if isinstance(v, re.Pattern):
                if not v.search(got[k]):
                    FAILED.append(f"frame {i + 1} {k}: {got[k]!r} does not match {v.pattern!r}")
            else:
                check(f"frame {i + 1} {k}", got[k], v)
    for f in FAILED:
        print("FAIL", f)
    print(f"{len(cases)} frames, {sum(len(w) for _, w in cases)} fields checked, "
          f"{len(FAILED)} wrong")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
