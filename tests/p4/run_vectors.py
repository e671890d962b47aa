#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plays the conformance vectors (tests/vectors/*.vec, format in
tests/vectors/README.md) against the v1model build of the switch program on
BMv2.

    run_vectors.py [-v] [--keep] [--all] [--wait S] [--pair-lanes]
                   [--lanes L] [--late-lanes N] [--lead-lanes K]
                   [file.vec | dir]...

The build is the v1model default (31 word lanes, 62 elements in two passes)
unless told: --pair-lanes the pair form (-DINA_PAIR_LANES, Tofino 2's
layout), --lanes L and --late-lanes N the word lanes with second-pass-only
lanes (-DINA_LANES=L -DINA_LATE_LANES=N), e.g. 25 and 12 for 62 elements,
and --lead-lanes K with lead lanes (-DINA_LEAD_LANES=K: 15, 18 and 7 are
Tofino 1's layout, 62 elements in two passes).

Needs p4c-bm2-ss, simple_switch and simple_switch_CLI on PATH; without them
it prints what is missing and exits 77 (skipped). Vectors whose `targets`
line does not name `p4` are counted as skipped (`--all` runs them anyway, to
see which of the listed differences still hold).

Each vector runs in a fresh simple_switch that reads and writes pcap files
(--use-files): port 1 is where packets come in (10.0.0.1, the vectors'
sender), port 2 leads to the PS (10.0.0.100, the vectors' destination), ports
3 and 4 hold the job's workers (10.0.1.1 and 10.0.1.2, the multicast group),
port 5 is the CPU port (control messages). The tables are written by
pipeline/p4/p4gen.py from a resolved configuration (the same code and input
format that program a deployment), the `before` registers by
simple_switch_CLI, and the counters and registers are read back the same way
once every packet has been counted.

Admission (stages/admission.p4) runs ahead of the switch program. A vector
of tests/vectors describes the switch program (process()) alone: the runner
registers each job its frames name with the sender as the job's PS, which
admission lets through on its port and MAC without a bit check (the PS's
float requests), so every packet reaches the program as in the cpu runner.
The vectors of tests/p4/admission state their registrations (`job:` and
`worker:` lines) and the port, source IP and MAC of each packet, and check
the admission counters (the names of switchd's; docs/p4.md).
"""

import argparse
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
P4_DIR = os.path.join(ROOT, "pipeline", "p4")
P4_MAIN = os.path.join(P4_DIR, "ina_v1model.p4")
PIPELINE_H = os.path.join(ROOT, "pipeline", "include", "ina", "pipeline.h")
CONSTANTS_P4 = os.path.join(P4_DIR, "include", "constants.p4")
VECTOR_DIR = os.path.join(ROOT, "tests", "vectors")
ADMISSION_DIR = os.path.join(ROOT, "tests", "p4", "admission")
SWITCHD_STATS_H = os.path.join(ROOT, "switchd", "src", "stats.h")
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)
import ina_wire as wire  # noqa: E402
import p4gen  # noqa: E402

SKIP = 77
DEFAULT_LANES = 31             # INA_LANES of the v1model build (constants.p4)
LANES = DEFAULT_LANES
P4_AGGREGATORS = 4096          # INA_AGGREGATORS of the build
PORT_IN, PORT_PS, PORT_W1, PORT_W2, PORT_CPU = 1, 2, 3, 4, 5
PORTS = (PORT_IN, PORT_PS, PORT_W1, PORT_W2, PORT_CPU)
PS_IP, PS_MAC = 0x0A000064, 0x020000000002
SENDER_IP, SENDER_MAC = 0x0A000001, 0x020000000001
# The hosts behind each port (the neighbour entries of the resolved config).
NEIGHBOURS = {PORT_IN: [(SENDER_IP, SENDER_MAC)],
              PORT_PS: [(PS_IP, PS_MAC)],
              PORT_W1: [(0x0A000101, 0x020000000101)],
              PORT_W2: [(0x0A000102, 0x020000000102)]}
# Keys of an `in:` line (tests/vectors/README.md); `port`, `src_ip` and
# `src_mac` are the admission vectors' (tests/p4/admission).
IN_KEYS = {"now", "raw", "version", "type", "flags", "job", "agg_node", "seq", "index", "remap",
           "elems", "level", "levels", "bitmaps", "fan_ins", "values", "eth_type", "ip_vihl",
           "ip_tos", "ip_len", "ip_proto", "udp_dport", "udp_len", "frame_len",
           "port", "src_ip", "src_mac"}
FLAGS = wire.FLAG_NAMES
ING = "InaIngress"
REG_ID = ING + ".aggregator_id_0.aggregator_id_reg"          # key (target.p4)
REG_ID_TS = ING + ".aggregator_id_0.aggregator_id_reg_ts"    # ~timestamp
REG_BITMAP = ING + ".aggregator_bitmap_0.aggregator_bitmap_reg"
# The same bitmap, in the array that returns the merge (aggregator_bitmap.p4).
REG_BITMAP_MERGED = ING + ".aggregator_bitmap_0.aggregator_bitmap_merged_reg"
REG_COUNT = ING + ".aggregator_count_0.aggregator_count_reg"
REG_FLAGS = ING + ".aggregator_flags_0.aggregator_flags_reg"
REG_LANE = ING + ".aggregator_value_0.aggregator_value_{}"
REG_LATE = ING + ".aggregator_value_late_0.aggregator_late_{}"
REG_LEAD = ING + ".aggregator_value_lead_0.aggregator_lead_{}"


# The build under test: the single-word lanes, or with --pair-lanes the pair
# form (-DINA_PAIR_LANES: two elements per lane, one pass); LATE late lanes
# (-DINA_LATE_LANES, elements 2 * LANES.., second pass only); LEAD lead
# lanes (-DINA_LEAD_LANES, whose elements come first: 0..LEAD-1 in the
# second pass, LEAD..2 * LEAD - 1 in the first).
PAIR = False
LATE = 0
LEAD = 0


def max_elements():
    """INA_P4_MAX_ELEMENTS of the build (include/constants.p4)."""
    if PAIR:
        return 2 * LANES
    return 2 * LEAD + 2 * LANES + LATE


def lane_arrays():
    """The value lanes' register arrays of the build."""
    if PAIR:
        # A pair lane is two arrays on BMv2 (target.p4): elements 2i, 2i+1.
        return [REG_LANE.format(l) + half for l in range(LANES) for half in ("", "_hi")]
    return ([REG_LANE.format(l) for l in range(LANES)] + [REG_LATE.format(l) for l in range(LATE)]
            + [REG_LEAD.format(l) for l in range(LEAD)])


def lane_row(element, index):
    """(array, row) of an aggregator's element in the lane arrays: the first
    pass's row of aggregator i at i, the second's at INA_AGGREGATORS + i
    (stages/aggregator_value.p4), a late lane's at i
    (stages/aggregator_value_late.p4); with lead lanes, elements
    0..LEAD-1 are theirs in the second row and LEAD..2 * LEAD - 1 in the
    first, the word lanes' follow (stages/aggregator_value_lead.p4); in the
    pair form, lane element // 2, row i (stages/aggregator_value_pair.p4)."""
    if PAIR:
        return REG_LANE.format(element // 2) + ("_hi" if element % 2 else ""), index
    if element < LEAD:
        return REG_LEAD.format(element), P4_AGGREGATORS + index
    if element < 2 * LEAD:
        return REG_LEAD.format(element - LEAD), index
    element -= 2 * LEAD
    if element < LANES:
        return REG_LANE.format(element), index
    if element < 2 * LANES:
        return REG_LANE.format(element - LANES), P4_AGGREGATORS + index
    return REG_LATE.format(element - 2 * LANES), index
REG_JOB_HELD = "job_held"                                     # stages/fair_share.p4
CTR_REASON = ING + ".counters_0.reason_counter"
CTR_ADMISSION = ING + ".admission_0.admission_counter"
CTR_SIDE = {"claimed": ING + ".counters_0.claimed_counter",
            "aggregated": ING + ".counters_0.aggregated_counter",
            "overflow": ING + ".aggregator_flags_0.overflow_counter",
            "multicast": ING + ".counters_0.multicast_counter"}


class VectorError(Exception):
    pass


# ---- the vector file -------------------------------------------------------

def parse_int(s):
    s = s.strip()
    return int(s, 16) if s.lower().startswith(("0x", "-0x")) else int(s, 10)


def parse_flags(s):
    v = 0
    for n in s.split("|"):
        n = n.strip()
        if n in FLAGS:
            v |= FLAGS[n]
        else:
            v |= parse_int(n)
    return v


def parse_values(s):
    out = []
    if s == "":
        return out
    for item in s.split(","):
        if "*" in item:
            v, n = item.split("*")
            out += [parse_int(v)] * parse_int(n)
        elif ".." in item[1:]:
            i = item.index("..", 1)
            a, b = parse_int(item[:i]), parse_int(item[i + 2:])
            out += list(range(a, b + 1)) if a <= b else list(range(a, b - 1, -1))
        else:
            out.append(parse_int(item))
    return [v & 0xFFFFFFFF for v in out]


def parse_list(s, n=4):
    items = [parse_int(x) for x in s.split(",")] if s else []
    return items + [0] * (n - len(items))


def kv(words):
    out = {}
    for w in words:
        k, sep, v = w.partition("=")
        if not sep:
            raise VectorError(f"expected key=value, got '{w}'")
        out[k] = v
    return out


def parse_vector(path):
    v = {"path": path, "name": os.path.basename(path)[:-4], "targets": [], "skip": {},
         "config": {}, "before": [], "after": [], "io": [], "counters": {},
         "jobs": [], "workers": []}
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, rest = line.partition(":")
            if not sep:
                raise VectorError(f"{path}:{no}: no keyword")
            rest = rest.strip()
            try:
                if key == "name":
                    v["name"] = rest
                elif key == "targets":
                    v["targets"] = rest.split()
                elif key == "skip":
                    t, _, why = rest.partition(" ")
                    v["skip"][t] = why
                elif key == "config":
                    for k, x in kv(rest.split()).items():
                        # max_aggregators=<job>:<n>,... (the fair share)
                        v["config"][k] = ({parse_int(j): parse_int(n) for j, n in
                                           (item.split(":") for item in x.split(","))}
                                          if k == "max_aggregators" else parse_int(x))
                elif key in ("before", "after"):
                    w = rest.split()
                    agg = {"index": parse_int(w[0])}
                    if len(w) == 2 and w[1] == "empty":
                        agg["empty"] = True
                    else:
                        agg.update(kv(w[1:]))
                    v[key].append(agg)
                elif key == "in":
                    fields = kv(rest.split())
                    unknown = sorted(set(fields) - IN_KEYS)
                    if unknown:
                        raise VectorError(f"unknown in key(s) {unknown}")
                    v["io"].append({"in": fields, "out": None})
                elif key == "job":
                    v["jobs"].append(kv(rest.split()))
                elif key == "worker":
                    v["workers"].append(kv(rest.split()))
                elif key == "out":
                    w = rest.split()
                    if not v["io"] or v["io"][-1]["out"] is not None:
                        raise VectorError("out: without its in:")
                    v["io"][-1]["out"] = {"verdict": w[0], "reason": w[1], "fields": kv(w[2:])}
                elif key == "counters":
                    v["counters"].update({k: parse_int(x) for k, x in kv(rest.split()).items()})
                elif key == "doc":
                    pass
                else:
                    raise VectorError(f"unknown keyword '{key}'")
            except (ValueError, IndexError) as e:
                raise VectorError(f"{path}:{no}: {e}")
    return v


def put_ina(b, f):
    """Writes the INA header and payload of frame fields `f` into bytearray b."""
    values = parse_values(f["values"]) if "values" in f else [0] * parse_int(f.get("elems", "0"))
    elems = parse_int(f["elems"]) if "elems" in f else len(values)
    typ = f.get("type", "0")
    typ = {"data": 0, "control": 1}[typ] if typ in ("data", "control") else parse_int(typ)
    remap = f.get("remap", "none")
    hdr = wire.pack_ina(
        parse_int(f.get("job", "0")), parse_int(f.get("seq", "0")),
        version=parse_int(f.get("version", "1")), type=typ, flags=parse_flags(f.get("flags", "0")),
        agg_node=parse_int(f.get("agg_node", "0")), agg_index=parse_int(f.get("index", "0")),
        remap_index=wire.INA_NO_REMAP if remap == "none" else parse_int(remap), elem_count=elems,
        level=parse_int(f.get("level", "0")), levels=parse_int(f.get("levels", "1")),
        bitmap=parse_list(f.get("bitmaps", "")), fan_in=parse_list(f.get("fan_ins", "")))
    need = wire.frame_len(len(values))
    if len(b) < need:
        b.extend(bytes(need - len(b)))
    b[wire.INA_HDR_OFFSET:wire.INA_PAYLOAD_OFFSET] = hdr
    for i, x in enumerate(values):
        off = wire.INA_PAYLOAD_OFFSET + 4 * i
        b[off:off + 4] = struct.pack("!I", x)
    return len(values)


def build_frame(f):
    if "raw" in f:
        return bytes.fromhex(f["raw"])
    values = parse_values(f["values"]) if "values" in f else [0] * parse_int(f.get("elems", "0"))
    payload = 4 * len(values)
    b = bytearray(wire.INA_PAYLOAD_OFFSET + payload)
    b[0:6] = PS_MAC.to_bytes(6, "big")
    b[6:12] = p4gen.mac_int(f.get("src_mac", p4gen.mac_str(SENDER_MAC)), "src_mac").to_bytes(6, "big")
    b[12:14] = struct.pack("!H", parse_int(f.get("eth_type", "0x0800")))
    ip = bytearray(struct.pack(
        "!BBHHHBBHII", parse_int(f.get("ip_vihl", "0x45")), parse_int(f.get("ip_tos", "0")),
        parse_int(f.get("ip_len", str(wire.IPV4_HDR.size + wire.UDP_HDR.size + wire.INA_HDR_LEN + payload))), 0, 0x4000, 64,
        parse_int(f.get("ip_proto", "17")), 0,
        p4gen.ip_int(f.get("src_ip", p4gen.ip_str(SENDER_IP)), "src_ip"), PS_IP))
    s = sum(struct.unpack("!10H", ip))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    ip[10:12] = struct.pack("!H", ~s & 0xFFFF)
    b[14:34] = ip
    udp_fixed = wire.UDP_HDR.size + wire.INA_HDR_LEN
    b[34:42] = struct.pack("!HHHH", wire.INA_UDP_PORT, parse_int(f.get("udp_dport", str(wire.INA_UDP_PORT))),
                           parse_int(f.get("udp_len", str(udp_fixed + payload))), 0)
    put_ina(b, f)
    if "frame_len" in f:
        n = parse_int(f["frame_len"])
        b = b[:n] if n <= len(b) else b + bytes(n - len(b))
    return bytes(b)


def build_expected(fields, in_frame):
    b = bytearray(in_frame)
    put_ina(b, fields)
    return bytes(b)


# ---- pcap ------------------------------------------------------------------

def write_pcap(path, frames):
    """frames: (sequence number, frame). simple_switch --use-files replays
    the packets of all ports in timestamp order, so the number (as the
    timestamp) keeps the vector's order across ports."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in frames:
            f.write(struct.pack("<IIII", 1 + i, 0, len(fr), len(fr)))
            f.write(fr)


def read_pcap(path):
    frames = []
    try:
        data = open(path, "rb").read()
    except FileNotFoundError:
        return frames
    if len(data) < 24:
        return frames
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        off += 16
        frames.append(data[off:off + incl])
        off += incl
    return frames


# ---- the switch ------------------------------------------------------------

def counter_names():
    """INA_PIPELINE_COUNTERS of pipeline.h, in order; checked against the P4
    constants so that a counter added on one side only is caught."""
    text = open(PIPELINE_H).read()
    block = text[text.index("#define INA_PIPELINE_COUNTERS"):]
    block = block[:block.index("enum class Counter")]
    names = re.findall(r"X\((\w+),", block)
    p4 = {}
    for n, i in re.findall(r"const reason_t CTR_(\w+) = (\d+);", open(CONSTANTS_P4).read()):
        p4[n] = int(i)
    for i, n in enumerate(names):
        if p4.get(n) != i:
            raise VectorError(f"counter '{n}' is number {i} in pipeline.h but "
                              f"{p4.get(n)} in pipeline/p4/include/constants.p4")
    if len(p4) != len(names):
        extra = sorted(set(p4) - set(names))
        raise VectorError(f"constants.p4 has counters pipeline.h lacks: {extra}")
    return names, admission_counter_names()


def admission_counter_names():
    """The admission counters of constants.p4 (ADM_*), in their numbering;
    each must be one of switchd's per-lcore counters of the same name
    (SWITCHD_LCORE_COUNTERS), so that both builds count a refusal alike."""
    text = open(SWITCHD_STATS_H).read()
    block = text[text.index("#define SWITCHD_LCORE_COUNTERS"):]
    block = block[:block.index("\n\n")]
    switchd = set(re.findall(r"X\((\w+),", block))
    p4 = re.findall(r"const adm_reason_t ADM_(\w+) = (\d+);", open(CONSTANTS_P4).read())
    names = [n for n, _ in sorted(p4, key=lambda x: int(x[1]))]
    if [int(i) for _, i in sorted(p4, key=lambda x: int(x[1]))] != list(range(len(names))):
        raise VectorError("constants.p4: the ADM_ counters are not numbered 0..n-1")
    for n in names:
        if n not in switchd:
            raise VectorError(f"admission counter '{n}' of constants.p4 is not a switchd counter "
                              f"(switchd/src/stats.h)")
    return names


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Cli:
    def __init__(self, tools, port):
        self.tools = tools
        self.port = port

    def run(self, commands):
        cmd = self.tools["cli"] + ["--thrift-port", str(self.port)]
        r = subprocess.run(cmd, input="\n".join(commands) + "\n", capture_output=True,
                           text=True, timeout=120)
        if r.returncode != 0:
            raise VectorError(f"simple_switch_CLI failed: {r.stderr.strip()[-500:]}")
        errs = [l for l in r.stdout.splitlines()
                if re.search(r"Error|Invalid|not found|No such|exception", l, re.I)]
        if errs:
            raise VectorError("simple_switch_CLI: " + "; ".join(errs[:3]))
        return r.stdout

    def read_registers(self, names):
        """Whole arrays, in one CLI run (each run costs a second)."""
        out = self.run([f"register_read {n}" for n in names])
        arrays = []
        for name in names:
            m = re.search(re.escape(name) + r"\s*=\s*(.*)", out)
            if not m:
                raise VectorError(f"cannot read register {name}: {out[-300:]}")
            arrays.append([int(x) for x in m.group(1).replace(",", " ").split()])
        return arrays

    def read_counters(self, names):
        """names: (pipeline counters, admission counters). Returns every
        counter by name, and how many packets were counted: each packet
        bumps one reason or one admission counter."""
        pipeline, admission = names
        cmds = [f"counter_read {CTR_REASON} {i}" for i in range(len(pipeline))]
        cmds += [f"counter_read {CTR_ADMISSION} {i}" for i in range(len(admission))]
        cmds += [f"counter_read {CTR_SIDE[n]} 0" for n in sorted(CTR_SIDE)]
        out = self.run(cmds)
        vals = [int(x) for x in re.findall(r"(\d+) packets", out)]
        if len(vals) != len(cmds):
            raise VectorError(f"counter_read: {len(vals)} values for {len(cmds)} reads")
        n = len(pipeline) + len(admission)
        c = dict(zip(pipeline + admission, vals[:n]))
        for name, x in zip(sorted(CTR_SIDE), vals[n:]):
            c[name] += x
        return c, sum(vals[:n])


def tools_or_skip():
    need = {"p4c-bm2-ss": shutil.which("p4c-bm2-ss"), "simple_switch": shutil.which("simple_switch"),
            "simple_switch_CLI": shutil.which("simple_switch_CLI")}
    missing = [k for k, v in need.items() if not v]
    if missing:
        print(f"skipped: {', '.join(missing)} not on PATH (the P4 toolchain; see docs/p4.md)")
        sys.exit(SKIP)
    # simple_switch_CLI needs the thrift Python module; run it with an
    # interpreter that has it.
    cli = [need["simple_switch_CLI"]]
    for py in (os.environ.get("INA_P4_PYTHON"), "/usr/bin/python3", sys.executable):
        if py and subprocess.run([py, "-c", "import thrift"], capture_output=True).returncode == 0:
            cli = [py, need["simple_switch_CLI"]]
            break
    return {"p4c": need["p4c-bm2-ss"], "switch": need["simple_switch"], "cli": cli}


def compile_program(tools, workdir):
    out = os.path.join(workdir, "ina_v1model.json")
    defines = [f"-DINA_AGGREGATORS={P4_AGGREGATORS}"]
    if PAIR:
        defines.append("-DINA_PAIR_LANES=1")
    if LANES != DEFAULT_LANES:
        defines.append(f"-DINA_LANES={LANES}")
    if LATE:
        defines.append(f"-DINA_LATE_LANES={LATE}")
    if LEAD:
        defines.append(f"-DINA_LEAD_LANES={LEAD}")
    r = subprocess.run([tools["p4c"], "--std", "p4-16", "-I", P4_DIR, *defines,
                        "-o", out, P4_MAIN],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise VectorError("p4c-bm2-ss failed:\n" + r.stderr)
    return out


def agg_key(job, seq, epoch=0):
    """The aggregator_id key as parse.p4 forms it: job ++ (seq[15:0] ^ epoch << 8)."""
    return (job << 16) | ((seq ^ (epoch << 8)) & 0xFFFF)


def before_commands(v, elements):
    cmds = []
    held = {}
    for a in v["before"]:
        i = a["index"]
        job, seq = parse_int(a.get("job", "0")), parse_int(a.get("seq", "0"))
        epoch = parse_int(a.get("epoch", "0"))
        # The timestamp is stored inverted (aggregator_id.p4). Vector time
        # t is taken as BMv2 tick t, which lies before the replay (the
        # switch has run for --wait seconds, about 47000 ticks): the
        # aggregator is as old as the vector says or older. Only the GC
        # reads it, and GC is off in every P4 run (run_vector).
        ts = ~parse_int(a.get("timestamp", "0")) & 0xFFFFFFFF
        cmds.append(f"register_write {REG_ID} {i} {agg_key(job, seq, epoch)}")
        cmds.append(f"register_write {REG_ID_TS} {i} {ts}")
        cmds.append(f"register_write {REG_BITMAP} {i} {parse_int(a.get('bitmap', '0'))}")
        cmds.append(f"register_write {REG_BITMAP_MERGED} {i} {parse_int(a.get('bitmap', '0'))}")
        cmds.append(f"register_write {REG_COUNT} {i} {parse_int(a.get('count', '0'))}")
        fl = (parse_int(a.get("ecn", "0")) | parse_int(a.get("col", "0")) << 1 |
              parse_int(a.get("overflow", "0")) << 2)
        cmds.append(f"register_write {REG_FLAGS} {i} {fl}")
        values = parse_values(a.get("values", ""))
        for e, x in enumerate(values[:max_elements()]):
            array, row = lane_row(e, i)
            sx = x - (1 << 32) if x & 0x80000000 else x
            cmds.append(f"register_write {array} {row} {sx}")
        held[job] = held.get(job, 0) + 1
    # job_held follows the keys written, as the software switch's write() keeps it.
    cmds += [f"register_write {REG_JOB_HELD} {job} {n}" for job, n in sorted(held.items())]
    return cmds


def stated_jobs(v):
    """The `job:` and `worker:` lines (tests/p4/admission) as the [[job]]
    tables of a resolved configuration, and the epochs a PS registered."""
    jobs, epochs = {}, {}
    for j in v["jobs"]:
        jid = parse_int(j["id"])
        levels = parse_int(j.get("levels", "1"))
        jobs[jid] = {"id": jid, "ps_ip": j.get("ps_ip", p4gen.ip_str(PS_IP)),
                     "ps_mac": j.get("ps_mac", p4gen.mac_str(PS_MAC)), "levels": levels,
                     "max_aggregators": v["config"].get("aggregators", 4096),
                     "fan_in": [parse_int(x) for x in j["fan_ins"].split(",")][:levels],
                     "control": "deny", "worker": []}
        if "epoch" in j:
            epochs[jid] = parse_int(j["epoch"])
    for w in v["workers"]:
        jid = parse_int(w["job"])
        if jid not in jobs:
            raise VectorError(f"worker: job {jid} has no job: line")
        jobs[jid]["worker"].append({"ip": w["ip"], "mac": w.get("mac"),
                                    "bit": [parse_int(x) for x in w["bits"].split(",")]})
    return [jobs[j] for j in sorted(jobs)], epochs


def resolved_config(v, jobs):
    """The vector's switch as `ina-switchd --check-config` would print it
    (config/README.md), the only input p4gen takes. Without `job:` lines,
    each job the frames name, with the sender as its PS (see the top)."""
    cfg = v["config"]
    if v["jobs"]:
        job_tables, _ = stated_jobs(v)
    else:
        # Two workers, one behind each worker port, so that the group has
        # two ports; their addresses are never rewritten here (below).
        job_tables = [{"id": j, "ps_ip": p4gen.ip_str(SENDER_IP),
                       "ps_mac": p4gen.mac_str(SENDER_MAC), "levels": 1, "fan_in": [2],
                       "max_aggregators": cfg.get("max_aggregators", {}).get(
                           j, cfg.get("aggregators", 4096)),
                       "control": "deny", "worker": [
                           {"ip": "10.0.1.1", "mac": "02:00:00:00:01:01", "bit": [0]},
                           {"ip": "10.0.1.2", "mac": "02:00:00:00:01:02", "bit": [1]}]}
                      for j in sorted(jobs)]
    return {
        "switch": {"id": cfg.get("switch_id", 1), "ip": "10.0.0.254", "mac": None,
                   "aggregators": cfg.get("aggregators", 4096),
                   "elements": cfg.get("elements", 62), "gc_timeout_ms": 0},
        "port": [
            {"device": f"p{p}", "name": f"p{p}", "vdev": True, "rate_gbps": 0.0,
             "queue_capacity": 1024, "ecn_threshold": 0, "drop_rate": 0.0,
             "neighbour": [{"ip": p4gen.ip_str(ip), "mac": p4gen.mac_str(mac)}
                           for ip, mac in NEIGHBOURS.get(p, [])]}
            for p in PORTS],
        "job": job_tables,
    }


def switch_plan(v, jobs):
    cfg = v["config"]
    model = p4gen.model_from_resolved(resolved_config(v, jobs), v.get("name", "vector"))
    _, epochs = stated_jobs(v)
    for j in model["jobs"]:
        if j["id"] in epochs:
            j["epoch"] = epochs[j["id"]]
    port_map = {i: p for i, p in enumerate(PORTS)}
    pl = p4gen.plan(model, port_map, PORT_CPU, "bmv2")
    pl.update(lanes=LANES, late=LATE, lead=LEAD, pair=PAIR)
    # The multicast copies get p4gen's per-port rewrite (expected_outputs
    # applies it to the frame a vector states); port W2's keeps the address
    # the vectors' frames carry (PS_IP), so that both of the program's paths
    # run: an address rewritten with its checksum (W1), a MAC alone (W2).
    # Config aggregators/elements are the vector's own, not capped.
    pl["rewrites"] = [(rid, port, mac, PS_IP if port == PORT_W2 else ip)
                      for rid, port, mac, ip in pl["rewrites"]]
    pl["config"]["elements"] = cfg.get("elements", 62)
    return pl


def table_commands(pl):
    return [l for l in p4gen.emit_bmv2(pl).splitlines() if l and not l.startswith("#")]


def pass_ports(frame, in_port):
    """Where the forwarding tables the runner installs send a frame that the
    switch program passes (stages/forward.p4, as switchd's forward_ipv4 and
    forward_l2): flood (every port but the one it came in on) for broadcast
    and multicast, a neighbour's port for its addresses."""
    flood = [p for p in PORTS if p != in_port]
    by_ip = {ip: p for p, hosts in NEIGHBOURS.items() for ip, _ in hosts}
    by_mac = {mac: p for p, hosts in NEIGHBOURS.items() for _, mac in hosts}
    if len(frame) < 14:
        # A runt: process() passes it and switchd's L2 lookup sends it to
        # the PS's address. The P4 build drops it (docs/p4.md difference
        # 14; runt_pass is cpu only), which --all shows.
        return [PORT_PS]
    if frame[12:14] == b"\x08\x00" and len(frame) >= 34:
        dst = struct.unpack("!I", frame[30:34])[0]
        if dst >> 28 == 0xE or dst == 0xFFFFFFFF:
            return flood
        if dst in by_ip:
            return [by_ip[dst]]
    if frame[0] & 1:
        return flood
    mac = int.from_bytes(frame[0:6], "big")
    return [by_mac[mac]] if mac in by_mac else []


def frame_job(frame):
    """The job id of an INA frame (IPv4, options included, UDP to the INA
    port), else None: the jobs a vector's frames name, raw ones included."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return None
    udp = 14 + 4 * (frame[14] & 0xF)
    ina = udp + wire.UDP_HDR.size
    job = ina + wire.INA_HDR.offsets["job_id"]
    if len(frame) < job + 2 or struct.unpack("!H", frame[udp + 2:udp + 4])[0] != wire.INA_UDP_PORT:
        return None
    return struct.unpack("!H", frame[job:job + 2])[0]


def in_port(step):
    p = parse_int(step["in"].get("port", str(PORT_IN)))
    if p not in PORTS:
        raise VectorError(f"in: port={p} is not one of the runner's ports {PORTS}")
    return p


def rewritten(frame, mac, ip):
    """A multicast copy as switchd's copy_for makes it: the port's MAC; its
    IPv4 address, and the header checksum recomputed, only if that
    changes."""
    b = bytearray(frame)
    b[0:6] = mac.to_bytes(6, "big")
    if len(b) >= 34 and b[12:14] == b"\x08\x00" and struct.unpack("!I", b[30:34])[0] != ip:
        b[30:34] = struct.pack("!I", ip)
        ihl = 4 * (b[14] & 0xF)
        b[24:26] = b"\x00\x00"
        s = sum(struct.unpack(f"!{ihl // 2}H", bytes(b[14:14 + ihl])))
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        b[24:26] = struct.pack("!H", ~s & 0xFFFF)
    return bytes(b)


def expected_outputs(v, pl):
    """Per port, the frames that must come out."""
    exp = {p: [] for p in PORTS}
    group_ports = {gid: ports for gid, _, ports in pl["groups"]}
    job_group = dict(pl["job_multicast"])
    rewrites = {(rid, port): (mac, ip) for rid, port, mac, ip in pl["rewrites"]}
    for step in v["io"]:
        frame = build_frame(step["in"])
        o = step["out"]
        if o is None:
            raise VectorError("in: without its out:")
        verdict = o["verdict"]
        if verdict == "drop":
            continue
        if verdict in ("pass", "control"):
            out = frame
        else:
            out = build_expected(o["fields"], frame)
        if verdict == "multicast":
            gid = job_group.get(frame_job(frame))
            for p in group_ports.get(gid, []):
                exp[p].append(rewritten(out, *rewrites[(gid, p)]) if (gid, p) in rewrites else out)
            continue
        elif verdict == "control":
            ports = [PORT_CPU]
        elif verdict == "pass":
            ports = pass_ports(frame, in_port(step))
        else:
            ports = [PORT_PS]
        for p in ports:
            exp[p].append(out)
    return exp


def diff_frame(a, b):
    if len(a) != len(b):
        return f"length {len(a)}, expected {len(b)}"
    for i in range(len(a)):
        if a[i] != b[i]:
            where = ("INA header" if wire.INA_HDR_OFFSET <= i < wire.INA_PAYLOAD_OFFSET else
                     "payload" if i >= wire.INA_PAYLOAD_OFFSET else "outer headers")
            return f"first difference at byte {i} ({where}): got {a[i]:#04x}, expected {b[i]:#04x}"
    return ""


def compare_port(port, exp, got):
    """The frames out of one port, byte for byte, as a multiset: every
    expected frame must come out exactly once and nothing else. The order is
    not compared: a packet that takes the second pass (recirculation, docs/
    p4.md "Two passes") leaves after a one-pass packet sent behind it, on
    BMv2 as on Tofino, so the order of frames on a port is not something
    the P4 target keeps (docs/p4.md, difference "Order on a port")."""
    left = list(got)
    missing = []
    for k, e in enumerate(exp):
        if e in left:
            left.remove(e)
        else:
            missing.append((k, e))
    problems = []
    # Pair each missing frame with a leftover one, in order, to say how
    # they differ.
    for (k, e), g in zip(missing, left):
        problems.append(f"port {port}: frame {k + 1} of {len(exp)} not out; an unexpected frame "
                        f"in its place: {diff_frame(g, e)}")
    for k, _ in missing[len(left):]:
        problems.append(f"port {port}: frame {k + 1} missing ({len(exp)} expected, "
                        f"{len(got)} out)")
    if len(left) > len(missing):
        problems.append(f"port {port}: {len(left) - len(missing)} unexpected frame(s)")
    return problems


def run_vector(v, tools, json_path, names, args):
    problems = []
    cfg = v["config"]
    if cfg.get("stride", 1) != 1:
        raise VectorError("stride != 1 has no meaning on a P4 switch (mark it `targets: cpu`)")
    if cfg.get("gc_timeout", 0) != 0:
        raise VectorError("gc_timeout != 0 depends on the clock, which a BMv2 run cannot set "
                          "(mark it `targets: cpu`)")
    if cfg.get("aggregators", 4096) > P4_AGGREGATORS:
        raise VectorError(f"aggregators above the build's {P4_AGGREGATORS}")
    frames = [build_frame(s["in"]) for s in v["io"]]
    ports = [in_port(s) for s in v["io"]]
    jobs = {frame_job(f) for f in frames} - {None, 0}
    pl = switch_plan(v, jobs)
    exp = expected_outputs(v, pl)
    work = tempfile.mkdtemp(prefix=f"ina-p4-{v['name']}-")
    try:
        for p in PORTS:
            write_pcap(os.path.join(work, f"p{p}_in.pcap"),
                       [(i, f) for i, (f, q) in enumerate(zip(frames, ports)) if q == p])
        thrift = free_port()
        cmd = [tools["switch"], "--use-files", str(args.wait), "--thrift-port", str(thrift),
               "--device-id", "0"]
        for p in PORTS:
            cmd += ["-i", f"{p}@p{p}"]
        cmd.append(json_path)
        log = open(os.path.join(work, "switch.log"), "w")
        start = time.monotonic()
        sw = subprocess.Popen(cmd, cwd=work, stdout=log, stderr=subprocess.STDOUT)
        try:
            cli = Cli(tools, thrift)
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", thrift), timeout=0.2).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or sw.poll() is not None:
                        raise VectorError("simple_switch did not start (switch.log in --keep)")
                    time.sleep(0.05)
            cli.run(table_commands(pl) + before_commands(v, cfg.get("elements", 62)))
            if time.monotonic() - start > args.wait - 0.2:
                raise VectorError(f"programming took longer than --wait {args.wait}s; "
                                  f"packets may have run before it")
            # Every packet bumps exactly one reason or admission counter,
            # in its last pass.
            time.sleep(max(0.0, start + args.wait - time.monotonic()))
            deadline = time.monotonic() + 20
            while True:
                time.sleep(0.3)
                c, reasons = cli.read_counters(names)
                if reasons >= len(frames) or time.monotonic() > deadline:
                    break
            time.sleep(0.2)
            c, reasons = cli.read_counters(names)
            if reasons != len(frames):
                problems.append(f"{reasons} packets counted, {len(frames)} sent")
            regs = read_registers(cli, v)
            held = read_job_held(cli, jobs | {parse_int(a.get("job", "0")) for a in v["before"]})
        finally:
            sw.terminate()
            try:
                sw.wait(5)
            except subprocess.TimeoutExpired:
                sw.kill()
                sw.wait()
            log.close()
        got = {p: read_pcap(os.path.join(work, f"p{p}_out.pcap")) for p in PORTS}
    finally:
        if args.keep:
            print(f"  kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    for p in PORTS:
        problems += compare_port(p, exp[p], got[p])
    all_names = names[0] + names[1]
    unknown = sorted(set(v["counters"]) - set(all_names))
    if unknown:
        problems.append(f"counters: unknown counter(s) {unknown}")
    want = {n: v["counters"].get(n, 0) for n in all_names}
    lead_only = lead_only_limits(v)
    for n in all_names:
        if n == "overflow" and lead_only and c[n] <= want[n]:
            continue
        if c[n] != want[n]:
            problems.append(f"counter {n} = {c[n]}, expected {want[n]}")
    problems += check_registers(v, regs)
    problems += check_job_held(regs, held)
    return problems


def read_job_held(cli, jobs):
    """job_held of each job (stages/fair_share.p4)."""
    out = cli.run([f"register_read {REG_JOB_HELD} {j}" for j in sorted(jobs)])
    vals = [int(x) for x in re.findall(re.escape(REG_JOB_HELD) + r"\[\d+\]\s*=\s*(\d+)", out)]
    if len(vals) != len(jobs):
        raise VectorError(f"register_read {REG_JOB_HELD}: {len(vals)} values for {len(jobs)} jobs")
    return dict(zip(sorted(jobs), vals))


def check_job_held(regs, held):
    """job_held of every job equals the aggregators whose key names it, as
    the cpu runner checks the software switch's."""
    occupied = {}
    for key in regs["id"]:
        if key:
            occupied[key >> 16] = occupied.get(key >> 16, 0) + 1
    return [f"job_held[{j}] = {n}, but {occupied.get(j, 0)} aggregators hold job {j}"
            for j, n in sorted(held.items()) if n != occupied.get(j, 0)]


def read_registers(cli, v):
    names = [REG_ID, REG_BITMAP, REG_COUNT, REG_FLAGS, REG_BITMAP_MERGED]
    if any("values" in a for a in v["after"]):
        names += lane_arrays()
    arrays = cli.read_registers(names)
    regs = dict(zip(("id", "bitmap", "count", "flags", "bitmap_merged"), arrays[:5]))
    regs["lanes"] = dict(zip(names[5:], arrays[5:]))
    return regs


def lead_only_limits(v):
    """With lead lanes (--lead-lanes): whether the vector's aggregators hold
    an element at INT32_MAX or INT32_MIN (its `after` values), and only in
    the lead lanes' elements (0..2 * LEAD - 1). The lead lanes' clips reach
    the result's OVERFLOW flag (compared as every frame is), but one the
    second pass's lead elements alone show is made in egress, past the
    aggregator's flags and the overflow counter, and a packet that does not
    complete is not tested at all (the word holds the limit for the packet
    that completes): for such a vector the runner takes an overflow counter
    up to the expected and either aggregator overflow flag (docs/p4.md,
    Differences, 17)."""
    if not LEAD:
        return False
    at_limit = [e for a in v["after"] if "values" in a
                for e, x in enumerate(parse_values(a["values"]))
                if x & 0xFFFFFFFF in (0x7FFFFFFF, 0x80000000)]
    return bool(at_limit) and all(e < 2 * LEAD for e in at_limit)


def check_registers(v, regs):
    problems = []
    lead_only = lead_only_limits(v)
    n = v["config"].get("aggregators", 4096)
    listed = set()
    for a in v["after"]:
        i = a["index"]
        listed.add(i)
        key = regs["id"][i]
        if a.get("empty"):
            if key != 0:
                problems.append(f"aggregator {i}: occupied by job {key >> 16}, expected empty")
            continue
        job, seq = parse_int(a.get("job", "0")), parse_int(a.get("seq", "0"))
        epoch = parse_int(a.get("epoch", "0"))
        if key != agg_key(job, seq, epoch):
            problems.append(f"aggregator {i}: key job {key >> 16} seq^epoch<<8 {key & 0xFFFF:#x}, "
                            f"expected job {job} seq {seq} epoch {epoch}")
        for name, reg in (("bitmap", "bitmap"), ("count", "count")):
            want = parse_int(a.get(name, "0"))
            if regs[reg][i] != want:
                problems.append(f"aggregator {i}: {name} {regs[reg][i]:#x}, expected {want:#x}")
        fl = regs["flags"][i]
        for bit, name in ((1, "ecn"), (2, "col"), (4, "overflow")):
            want = parse_int(a.get(name, "0"))
            if name == "overflow" and lead_only:
                continue
            if bool(fl & bit) != bool(want):
                problems.append(f"aggregator {i}: {name} {int(bool(fl & bit))}, expected {want}")
        if "values" in a:
            values = parse_values(a["values"])
            for e, x in enumerate(values[:max_elements()]):
                array, row = lane_row(e, i)
                got = regs["lanes"][array][row] & 0xFFFFFFFF
                if got != x:
                    problems.append(f"aggregator {i}: value[{e}] {got:#x}, expected {x:#x}")
                    break
    for i in range(min(n, len(regs["id"]))):
        if regs["id"][i] and i not in listed:
            problems.append(f"aggregator {i}: occupied but has no after: line")
        # The two bitmap arrays are one bitmap, updated alike.
        if regs["bitmap_merged"][i] != regs["bitmap"][i]:
            problems.append(f"aggregator {i}: bitmap arrays differ ({regs['bitmap'][i]:#x}, "
                            f"{regs['bitmap_merged'][i]:#x})")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", default=[VECTOR_DIR, ADMISSION_DIR])
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep each run's pcap files and log")
    ap.add_argument("--all", action="store_true", help="also run vectors not marked for p4")
    ap.add_argument("--wait", type=int, default=3,
                    help="seconds simple_switch waits before replaying (programming time)")
    ap.add_argument("--pair-lanes", action="store_true",
                    help="run the pair form (-DINA_PAIR_LANES: two elements per lane, one pass)")
    ap.add_argument("--lanes", type=int, default=DEFAULT_LANES,
                    help="INA_LANES of the build (1..31)")
    ap.add_argument("--late-lanes", type=int, default=0,
                    help="INA_LATE_LANES of the build (0..18, word lanes only)")
    ap.add_argument("--lead-lanes", type=int, default=0,
                    help="INA_LEAD_LANES of the build (0..7, with late lanes)")
    args = ap.parse_args()
    global PAIR, LANES, LATE, LEAD
    PAIR, LANES, LATE, LEAD = args.pair_lanes, args.lanes, args.late_lanes, args.lead_lanes
    if LEAD and (not LATE or not 0 < LEAD <= 7 or LEAD + LANES > 31):
        ap.error("--lead-lanes 1..7: with late lanes, at most 31 with --lanes")
    if not 1 <= LANES <= 31 or not 0 <= LATE <= 18 or (PAIR and LATE):
        ap.error("--lanes 1..31, --late-lanes 0..18, and no late lanes in the pair form")
    tools = tools_or_skip()
    files = []
    for p in args.paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".vec"))
        else:
            files.append(p)
    try:
        names = counter_names()
    except VectorError as e:
        print(f"error: {e}")
        return 1
    build = tempfile.mkdtemp(prefix="ina-p4-build-")
    try:
        try:
            json_path = compile_program(tools, build)
        except VectorError as e:
            print(f"error: {e}")
            return 1
        passed = failed = skipped = 0
        for path in files:
            try:
                v = parse_vector(path)
            except (VectorError, OSError) as e:
                print(f"ERROR {path}: {e}")
                failed += 1
                continue
            if "p4" not in v["targets"] and not args.all:
                skipped += 1
                if args.verbose:
                    print(f"skip  {v['name']}: {v['skip'].get('p4', 'not a p4 vector')}")
                continue
            t0 = time.monotonic()
            try:
                problems = run_vector(v, tools, json_path, names, args)
            except (VectorError, p4gen.ConfigError) as e:
                problems = [str(e)]
            tag = "" if "p4" in v["targets"] else " (not a p4 vector)"
            if problems:
                failed += 1
                print(f"FAIL  {v['name']}{tag}")
                for p in problems:
                    print(f"      {p}")
            else:
                passed += 1
                print(f"pass  {v['name']}{tag} ({time.monotonic() - t0:.1f}s)")
        print(f"{passed} passed, {failed} failed, {skipped} skipped")
        # The vectors are in the tree: none run means a wrong path or
        # `targets` lines, not a pass.
        if passed == 0 and not failed:
            print("FAIL  no vector ran")
            return 1
        return 1 if failed else 0
    finally:
        shutil.rmtree(build, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
