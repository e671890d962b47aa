#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Control plane of the P4 build: turns the resolved configuration of
ina-switchd (`ina-switchd --check-config FILE`, JSON, config/README.md) into
table entries and multicast groups, as a bfrt_python script for Tofino or
simple_switch_CLI commands for BMv2. ina-switchd alone reads the TOML and
fills in its defaults, so the software switch and both P4 targets run one
configuration.

    ina-switchd --check-config switch.toml > switch.json
    p4gen.py --target bmv2   [--port-map 0=1,1=2] [--cpu-port 64]  switch.json > cmds.txt
    p4gen.py --target tofino [--port-map 0=0,1=4] [--cpu-port 192] switch.json > setup.py
    p4gen.py --target tofino2 ...   (the Tofino entries for the Tofino 2 build's pair lanes)
    p4gen.py --target bmv2 --lanes 22 --late-lanes 18 ...   (a -DINA_LANES=22 -DINA_LATE_LANES=18 build)
    p4gen.py --target bmv2 --lanes 15 --late-lanes 18 --lead-lanes 7 ...   (Tofino 1's layout on BMv2)
    ina-switchd --check-config switch.toml | p4gen.py --target bmv2 - > cmds.txt

The functions are also used by tests/p4/run_vectors.py, so the vector runner
programs BMv2 exactly the way a deployment does.
"""

import argparse
import ipaddress
import json
import os
import sys

# The wire format's one Python definition, workerlib/python/ina/wire.py, by
# path: p4gen runs from the source tree, and the ina package itself would
# need its compiled extension.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "workerlib",
                                "python", "ina"))
import wire  # noqa: E402

# INA_LANES of the program per target and lane layout (constants.p4's
# defaults), --lanes: word lanes (two passes of INA_LANES elements) and pair
# lanes (2 * INA_LANES elements in one pass).
P4_LANES = {"bmv2": 31, "tofino": 15, "tofino2": 23}
P4_PAIR_LANES = {"bmv2": 31, "tofino2": 31}
# The layout a target builds by default: pair lanes on Tofino 2 only.
P4_PAIR_DEFAULT = {"bmv2": False, "tofino": False, "tofino2": True}
# INA_LATE_LANES of the word lanes' default builds, --late-lanes: lanes of
# the second pass alone, elements 2 * INA_LANES.. (stages/aggregator_value_late.p4).
P4_LATE_LANES = {"bmv2": 0, "tofino": 18, "tofino2": 0}
P4_LATE_LANES_MAX = 18
# INA_LEAD_LANES of the default builds, --lead-lanes: word lanes in the last
# two stages whose elements lead each pass's (stages/aggregator_value_lead.p4;
# Tofino 1's 62 elements in two passes, docs/p4.md).
P4_LEAD_LANES = {"bmv2": 0, "tofino": 7, "tofino2": 0}
P4_LEAD_LANES_MAX = 7
P4_MAX_ELEMENTS = 2 * P4_LANES["bmv2"]  # set from the build's lanes and passes (docs/p4.md)
P4_LEVELS = 2
# Clock ticks of the two targets (the `now` the P4 program compares), in ns.
TICK_NS = {"bmv2": 64_000, "tofino": 65_536}
# Largest gc_timeout in ticks (filter.p4 needs it below 2^31).
GC_TICKS_MAX = 2**31 - 1
# Tofino's queue depth counts 80-byte cells; BMv2's counts packets.
TOFINO_CELL_BYTES = 80
# Table, action and register names, as the P4 program defines them.
INGRESS = "InaIngress"
EGRESS = "InaEgress"
T_CONFIG = INGRESS + ".switch_config_0.ina_config"
T_ROUTE = INGRESS + ".forward_0.ipv4_route"
T_L2 = INGRESS + ".forward_0.l2_forward"
T_JOB_MC = INGRESS + ".forward_0.job_multicast"
T_MC_MAC = EGRESS + ".egress_ina_0.mcast_mac"
T_MC_REWRITE = EGRESS + ".egress_ina_0.mcast_rewrite"
T_ECN = EGRESS + ".egress_ina_0.ecn_threshold"
ADM = INGRESS + ".admission_0."
T_JOB_ADM = ADM + "job_admission"
T_SRC_IP = ADM + "source_ip"
T_SRC_PORT = ADM + "source_port"
T_PS_ADM = ADM + "ps_admission"
T_WORKER_ADM = ADM + "worker_admission"
# Keys of worker_admission's level: 0..3, and 4 for any level above
# (stages/admission.p4).
ADM_LEVEL_KEYS = 5
NOT_AT_LEVEL = 255            # a worker's bit at a level it takes no part in
NO_SHARE_LIMIT = 0xFFFFFFFF   # a job's share when it may hold the whole table
T_GOAT = INGRESS + ".parse_0.goat_children"
# The overflow test's tables (stages/aggregator_value.p4): one lane_clips
# table per 15 lanes (a ternary key holds 524 bits, 33 per lane): lane_clips,
# lane_clips_1, lane_clips_2, all with the action set_clipped. The pair form
# (Tofino 2, stages/aggregator_value_pair.p4) tests its 2 * lanes elements in
# one table per 13 elements, each table with its own action set_clip_<k>. The
# late lanes (stages/aggregator_value_late.p4) have three, late_clips (late
# lanes 0-3, action set_late_clip_0), late_clips_1 (4-14, set_late_clip_1)
# and late_clips_2 (15-17, set_late_clip_2), each setting a bit that
# lane_clips folds into the overflow: lane_clips then has the keys
# late_clip_<k> of the build's tables after value_op, and one entry per bit.
CLIPS_CONTROL = "aggregator_value_0"
LATE_CLIPS = (("aggregator_value_late_0.late_clips", "set_late_clip_0", range(0, 4)),
              ("aggregator_value_late_0.late_clips_1", "set_late_clip_1", range(4, 15)),
              ("aggregator_value_late_0.late_clips_2", "set_late_clip_2", range(15, 18)))
LANES_PER_CLIPS = 15
# The lead lanes' overflow tests (stages/aggregator_value_lead.p4): the first
# pass's lead elements by the second pass's parser (lead_limit, which
# lane_clips folds for a recirculated frame: one entry on both keys); the
# second pass's in egress (lead_clips), on an adding or a reading packet
# (VALUE_READ, 4 &&& 7).
LEAD_FOLD_KEYS = ("lead_limit", "recirculated")
LEAD_CLIPS = ("lead_overflow_0.lead_clips", "set_overflow")
VALUE_READING = (4, 7)
PAIR_ELEMENTS_PER_CLIPS = 13
# lane_clips (stages/aggregator_value.p4): an adding packet's value_op
# (VALUE_ADD or VALUE_ADD_READ, 2 &&& 0b110) and an element at a limit.
VALUE_ADDING = (2, 6)
LANE_LIMITS = (0x7FFFFFFF, 0x80000000)
RESOLVE_HINT = "expected the resolved configuration of `ina-switchd --check-config FILE`"


class ConfigError(Exception):
    pass


def ip_int(s, where):
    try:
        return int(ipaddress.IPv4Address(s))
    except (ipaddress.AddressValueError, ValueError):
        raise ConfigError(f"{where}: not an IPv4 address: {s!r}")


def ip_str(v):
    return str(ipaddress.IPv4Address(v))


def mac_int(s, where):
    """A MAC string, or None (ina-switchd's "not given") as 0."""
    if s is None:
        return 0
    parts = str(s).split(":")
    if len(parts) != 6 or not all(len(p) == 2 for p in parts):
        raise ConfigError(f"{where}: not a MAC address: {s!r}")
    try:
        return int("".join(parts), 16)
    except ValueError:
        raise ConfigError(f"{where}: not a MAC address: {s!r}")


def mac_str(v):
    return ":".join(f"{(v >> (8 * i)) & 0xFF:02x}" for i in range(5, -1, -1))


def load_config(path):
    """Reads the resolved configuration (a file, or "-" for stdin) into the
    plain model the emitters use."""
    try:
        if path == "-":
            raw = json.load(sys.stdin)
        else:
            with open(path, encoding="utf-8") as f:
                raw = json.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror}")
    except (ValueError, UnicodeDecodeError) as e:
        # A TOML file given by mistake lands here too.
        raise ConfigError(f"{path}: not JSON ({e}); {RESOLVE_HINT}")
    return model_from_resolved(raw, path)


def _get(d, key, kind, where):
    """d[key], which must be of `kind`: no defaults here, ina-switchd filled
    them all in, so a missing key means the input is not its output."""
    if not isinstance(d, dict):
        raise ConfigError(f"{where}: not an object; {RESOLVE_HINT}")
    # "file: switch.ip", "file: port[0].device", "file: switch"
    name = f"{where}.{key}" if ": " in where else f"{where}: {key}"
    if key not in d:
        raise ConfigError(f"{name}: missing; {RESOLVE_HINT}")
    v = d[key]
    ok = isinstance(v, kind) and not (kind is int and isinstance(v, bool))
    if not ok:
        kind_name = (kind.__name__ if isinstance(kind, type)
                     else " or ".join(k.__name__ for k in kind))
        raise ConfigError(f"{name}: expected {kind_name}, got {v!r}")
    return v


def _ints(d, key, where):
    v = _get(d, key, list, where)
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise ConfigError(f"{where}.{key}: expected a list of integers, got {v!r}")
    return v


def model_from_resolved(raw, where="config"):
    """The resolved configuration (config/README.md, JSON) as the model the
    emitters use: integers for addresses, the fields p4gen needs."""
    sw = _get(raw, "switch", dict, where)
    sw_where = f"{where}: switch"
    m = {
        "switch_id": _get(sw, "id", int, sw_where),
        "ip": ip_int(_get(sw, "ip", str, sw_where), sw_where + ".ip"),
        "aggregators": _get(sw, "aggregators", int, sw_where),
        "elements": _get(sw, "elements", int, sw_where),
        "gc_timeout_ms": _get(sw, "gc_timeout_ms", int, sw_where),
        "ports": [],
        "jobs": [],
    }
    for i, p in enumerate(_get(raw, "port", list, where)):
        pw = f"{where}: port[{i}]"
        nbs = []
        for k, n in enumerate(_get(p, "neighbour", list, pw)):
            nw = f"{pw}.neighbour[{k}]"
            nbs.append({"ip": ip_int(_get(n, "ip", str, nw), nw + ".ip"),
                        "mac": mac_int(_get(n, "mac", str, nw), nw + ".mac")})
        m["ports"].append({
            "device": _get(p, "device", str, pw),
            "name": _get(p, "name", str, pw),
            "ecn_threshold": _get(p, "ecn_threshold", int, pw),
            "neighbours": nbs,
        })
    for i, j in enumerate(_get(raw, "job", list, where)):
        jw = f"{where}: job[{i}]"
        workers = []
        for k, w in enumerate(_get(j, "worker", list, jw)):
            ww = f"{jw}.worker[{k}]"
            workers.append({
                "ip": ip_int(_get(w, "ip", str, ww), ww + ".ip"),
                "mac": mac_int(_get(w, "mac", (str, type(None)), ww), ww + ".mac"),
                "bit": _ints(w, "bit", ww),
            })
        m["jobs"].append({
            "id": _get(j, "id", int, jw),
            "ps_ip": ip_int(_get(j, "ps_ip", str, jw), jw + ".ps_ip"),
            "ps_mac": mac_int(_get(j, "ps_mac", (str, type(None)), jw), jw + ".ps_mac"),
            "levels": _get(j, "levels", int, jw),
            "fan_in": _ints(j, "fan_in", jw),
            "max_aggregators": _get(j, "max_aggregators", int, jw),
            "workers": workers,
        })
    # GOAT (docs/goat.md, "Split sub-models"): the ranges of a [[goat]] that
    # carry their children, [first, end, fan_in, children]; whole ranges need
    # no entry (the fragment's own fan-in).
    m["goat_children"] = []
    for i, g in enumerate(raw.get("goat") or []):
        gw = f"{where}: goat[{i}]"
        for k, r in enumerate(_get(g, "aggregators", list, gw)):
            if not isinstance(r, list) or len(r) not in (2, 4) or \
                    not all(isinstance(x, int) for x in r):
                raise ConfigError(f"{gw}.aggregators[{k}]: want [first, end] or [first, end, fan_in, children]")
            if len(r) == 4:
                m["goat_children"].append((_get(g, "job", int, gw), r[0], r[1], r[2], r[3]))
    return m


def check_p4_limits(m):
    """What the P4 build cannot do that the software switch can: reported, the
    entries are still generated for what it can do (docs/p4.md)."""
    notes = []
    if m["elements"] > P4_MAX_ELEMENTS:
        notes.append(f"elements = {m['elements']}: the P4 build aggregates at most "
                     f"{P4_MAX_ELEMENTS}; larger packets are dropped as malformed_elements")
    for j in m["jobs"]:
        if j["levels"] > P4_LEVELS:
            notes.append(f"job {j['id']}: levels = {j['levels']}; the P4 build aggregates "
                         f"levels 0 and 1 only, higher levels are forwarded to the PS")
    return notes


def parse_port_map(text, m):
    """'0=1,1=2' or 'eth0=1' (config port index or device name = P4 port)."""
    mapping = {i: i for i in range(len(m["ports"]))}
    if not text:
        return mapping
    names = {p["name"]: i for i, p in enumerate(m["ports"])}
    for item in text.split(","):
        k, sep, v = item.partition("=")
        if not sep:
            raise ConfigError(f"--port-map: '{item}' is not KEY=PORT")
        k = k.strip()
        if k.isdigit():
            idx = int(k)
        elif k in names:
            idx = names[k]
        else:
            raise ConfigError(f"--port-map: no port '{k}' in the configuration")
        if idx >= len(m["ports"]):
            raise ConfigError(f"--port-map: port index {idx} is beyond the configuration")
        try:
            mapping[idx] = int(v, 0)
        except ValueError:
            raise ConfigError(f"--port-map: '{v}' is not a port number")
    return mapping


def admission_entries(j, port_of, p4port, aggregators):
    """The admission entries of one job (stages/admission.p4), as switchd's
    build_job() binds its members: each to the port its neighbour entry
    names (by IP, else by MAC) and to its configured MAC. A job in the
    resolved configuration has no epoch (switchd does not check a config
    job's); a caller that mirrors a PS's registration sets j["epoch"]. The
    job's share of the aggregators is its max_aggregators, no limit when that
    is the whole table (switchd's build_job(), one table here)."""
    share = NO_SHARE_LIMIT if j["max_aggregators"] >= aggregators else j["max_aggregators"]
    out = {"job": (j["id"], j.get("epoch", 0), 0 if j.get("epoch") is None else 1, share),
           "ip": [], "port": [], "ps": [], "worker": []}
    warnings = []
    jid, ps_ip = j["id"], j["ps_ip"]
    out["ip"].append((jid, ps_ip, "ps_ip"))
    ps_port = port_of(ps_ip, j["ps_mac"])
    if ps_port is None:
        warnings.append(f"job {jid}: PS {ip_str(ps_ip)} is not a neighbour of any port: its "
                        f"parameter packets are dropped (forged_result_drops)")
    else:
        out["port"].append((jid, ps_ip, p4port(ps_port)))
        out["ps"].append((jid, ps_ip, p4port(ps_port), j["ps_mac"]))
        if not j["ps_mac"]:
            warnings.append(f"job {jid}: PS {ip_str(ps_ip)} has no ps_mac: its parameter "
                            f"packets are dropped (forged_result_drops), as switchd does")
    for w in j["workers"]:
        if w["ip"] == ps_ip:
            continue  # admit() takes the PS's IP as the PS's, whatever else it is
        out["ip"].append((jid, w["ip"], "worker_ip"))
        port = port_of(w["ip"], w["mac"])
        if port is None:
            continue  # plan() warns: it has no parameter copy either
        out["port"].append((jid, w["ip"], p4port(port)))
        if not w["mac"]:
            warnings.append(f"job {jid}: worker {ip_str(w['ip'])} has no mac: its gradients "
                            f"are dropped (spoof_mac_drops), as switchd does")
        bits = w["bit"] + [NOT_AT_LEVEL] * (j["levels"] - len(w["bit"]))
        start = next((l for l in range(j["levels"]) if bits[l] != NOT_AT_LEVEL), j["levels"])
        for level in range(ADM_LEVEL_KEYS):
            if level >= j["levels"] or level > start:
                rule = ("admit_level", None)      # a lower switch's result, or past the levels
            elif level < start:
                rule = ("below_first_level", None)
            else:
                rule = ("check_bit", 1 << bits[level])
            out["worker"].append((jid, w["ip"], p4port(port), w["mac"], level) + rule)
    return out, warnings


def plan(m, port_map, cpu_port, target, flood_group=None):
    """Everything both targets need, target-neutral."""
    if target not in TICK_NS:
        raise ConfigError(f"unknown target {target}")
    p4port = lambda i: port_map[i]
    by_ip, by_mac = {}, {}
    routes, l2 = [], []
    for i, p in enumerate(m["ports"]):
        for n in p["neighbours"]:
            by_ip[n["ip"]] = (i, n["mac"])
            by_mac[n["mac"]] = i
            routes.append((n["ip"], p4port(i), n["mac"]))
            l2.append((n["mac"], p4port(i)))
    job_ids = {j["id"] for j in m["jobs"]}
    if flood_group is None:
        flood_group = 0xFFFF
        while flood_group in job_ids:
            flood_group -= 1
    def port_of(ip, mac):
        hop = by_ip.get(ip)
        return hop[0] if hop else by_mac.get(mac)
    admission = {"job": [], "ip": [], "port": [], "ps": [], "worker": []}
    groups = []      # (group, rid, [ports])
    job_mc = []      # (job, group)
    rewrites = []    # (rid, port, mac, ip)
    warnings = []
    for j in m["jobs"]:
        entries, notes = admission_entries(j, port_of, p4port, m["aggregators"])
        warnings += notes
        admission["job"].append(entries["job"])
        for k in ("ip", "port", "ps", "worker"):
            admission[k] += entries[k]
        gid = j["id"]
        group_ip = wire.job_group(j["id"])
        group_mac = int.from_bytes(wire.job_group_mac(j["id"]), "big")
        per_port = {}
        for w in j["workers"]:
            hop = by_ip.get(w["ip"])
            port = hop[0] if hop else by_mac.get(w["mac"])
            if port is None:
                warnings.append(f"job {j['id']}: worker {ip_str(w['ip'])} is not a neighbour "
                                f"of any port: no parameter copy for it, and its gradients "
                                f"are dropped (spoof_port_drops)")
                continue
            per_port.setdefault(port, []).append(w)
        ports = sorted(per_port)
        if not ports:
            continue
        groups.append((gid, gid, [p4port(i) for i in ports]))
        job_mc.append((j["id"], gid))
        for i in ports:
            ws = per_port[i]
            if len(ws) == 1:
                hop = by_ip.get(ws[0]["ip"])
                mac = hop[1] if hop else ws[0]["mac"]
                rewrites.append((gid, p4port(i), mac, ws[0]["ip"]))
            else:
                rewrites.append((gid, p4port(i), group_mac, group_ip))
    all_ports = [p4port(i) for i in range(len(m["ports"]))]
    if all_ports:
        groups.append((flood_group, flood_group, all_ports))
    tick = TICK_NS[target]
    gc_ticks = (m["gc_timeout_ms"] * 1_000_000 + tick - 1) // tick
    # Below 2^31 ticks (39 hours on Tofino, 38 on BMv2): filter.p4 compares
    # the clock with it by the sign of a 32-bit difference.
    gc_ticks = min(gc_ticks, GC_TICKS_MAX)
    ecn = []
    frame = 86 + 4 * min(m["elements"], P4_MAX_ELEMENTS)
    for i, p in enumerate(m["ports"]):
        if p["ecn_threshold"]:
            depth = p["ecn_threshold"]
            if target == "tofino":
                depth *= (frame + TOFINO_CELL_BYTES - 1) // TOFINO_CELL_BYTES
            # Negated: stages/forward.p4's set_threshold adds it to the depth.
            ecn.append((p4port(i), -depth & 0xFFFFFFFF))
    return {
        "config": {
            "aggregators": m["aggregators"],
            "elements": min(m["elements"], P4_MAX_ELEMENTS),
            "switch_id": m["switch_id"],
            "gc_timeout": gc_ticks,
            "cpu_port": cpu_port,
            "flood_group": flood_group,
        },
        "routes": routes,
        "l2": l2,
        "groups": groups,
        "job_multicast": job_mc,
        "rewrites": rewrites,
        "ecn": ecn,
        "admission": admission,
        # (job, agg_node, first, last, fan_in, allowed): agg_node is this
        # switch, so fragments for other switches miss (parse.p4).
        "goat_children": [(job, m["switch_id"], first, end - 1, fan, bits)
                          for job, first, end, fan, bits in m["goat_children"]],
        "warnings": warnings + check_p4_limits(m),
        # The build's lanes (main sets them from the command line).
        "lanes": P4_LANES["bmv2"],
        "late": 0,
        "lead": 0,
        "pair": False,
    }


def clip_tables(lanes, pair=False, late=0):
    """The overflow test's tables of a build: (table under InaIngress, action,
    [element key, ...]) each. A key names a lane's element (the single-word
    lanes, tested in each pass: elem_<lane>), in the pair form one of the
    2 * lanes elements (elem_<element>), or a late lane's (late_<lane>)."""
    per, words = (PAIR_ELEMENTS_PER_CLIPS, 2 * lanes) if pair else (LANES_PER_CLIPS, lanes)
    tables = [(f"{CLIPS_CONTROL}.lane_clips" + ("" if g == 0 else f"_{g}"),
               f"set_clip_{g}" if pair else "set_clipped",
               [f"elem_{w}" for w in range(g * per, min(words, (g + 1) * per))])
              for g in range((words + per - 1) // per)]
    tables += [(table, action, [f"late_{i}" for i in lanes_of if i < late])
               for table, action, lanes_of in LATE_CLIPS if late > lanes_of[0]]
    return tables


def late_clip_bits(late, lead=0):
    """The keys lane_clips has for the late lanes' overflow bits, one per
    late_clips table of the build, and the lead lanes' (LEAD_FOLD_KEYS)."""
    return ([f"late_clip_{k}" for k, (_, _, lanes_of) in enumerate(LATE_CLIPS) if late > lanes_of[0]]
            + (list(LEAD_FOLD_KEYS) if lead else []))


def lane_clips(lanes, pair=False, late=0):
    """(table, action, priority, key, limit, [key of the table, ...]) of the
    overflow entries: two per element key, in the table of the key's group,
    prioritised in key order."""
    keys = [(table, action, key, group) for table, action, group in clip_tables(lanes, pair, late)
            for key in group]
    return [(table, action, 2 * n + k + 1, key, limit, group)
            for n, (table, action, key, group) in enumerate(keys)
            for k, limit in enumerate(LANE_LIMITS)]


def late_clip_folds(lanes, late, lead=0):
    """(priority, [bit, ...]) of lane_clips' entries that fold the late and
    lead lanes' overflow bits into the overflow, after every element entry:
    one per late_clips table, one for the lead lanes on both their keys."""
    first = len(lane_clips(lanes, False, late))
    folds = [[bit] for bit in late_clip_bits(late)] + ([list(LEAD_FOLD_KEYS)] if lead else [])
    return [(first + k + 1, bits) for k, bits in enumerate(folds)]


def lead_clips(lead):
    """(priority, value_op, key, limit) of egress lead_clips' entries: two
    per lead lane for an adding packet and two for a reading one."""
    return [(n + 1, op, f"lead_{i}", limit)
            for n, (op, i, limit) in enumerate((op, i, limit)
                                               for op in (VALUE_ADDING, VALUE_READING)
                                               for i in range(lead) for limit in LANE_LIMITS)]


def emit_bmv2(pl):
    c = pl["config"]
    out = ["# generated by pipeline/p4/p4gen.py: simple_switch_CLI commands"]
    for w in pl["warnings"]:
        out.append(f"# warning: {w}")
    out.append(f"table_set_default {T_CONFIG} set_config {c['aggregators']} {c['elements']} "
               f"{c['switch_id']} {c['gc_timeout']} {c['cpu_port']} {c['flood_group']}")
    for ip, port, mac in pl["routes"]:
        out.append(f"table_add {T_ROUTE} to_neighbour {ip_str(ip)} => {port} {mac_str(mac)}")
    for mac, port in pl["l2"]:
        out.append(f"table_add {T_L2} to_port {mac_str(mac)} => {port}")
    for job, gid in pl["job_multicast"]:
        out.append(f"table_add {T_JOB_MC} to_group {job} => {gid}")
    # A copy that already carries the port's address only takes its MAC
    # (mcast_mac); any other is rewritten (stages/forward.p4).
    for rid, port, mac, ip in pl["rewrites"]:
        out.append(f"table_add {T_MC_MAC} group_mac {rid} {port} {ip_str(ip)} => {mac_str(mac)}")
        out.append(f"table_add {T_MC_REWRITE} rewrite {rid} {port} => {mac_str(mac)} {ip_str(ip)}")
    for port, minus_depth in pl["ecn"]:
        out.append(f"table_add {T_ECN} set_threshold {port} => {minus_depth}")
    out += bmv2_admission(pl["admission"])
    bits = late_clip_bits(pl["late"], pl["lead"])
    first = f"{CLIPS_CONTROL}.lane_clips"
    for table, action, prio, key, limit, group in lane_clips(pl["lanes"], pl["pair"], pl["late"]):
        # Every key of the element's table: validity and element, wildcards
        # but this element's; in lane_clips the late lanes' bits first.
        keys = " ".join(["0&&&0"] * len(bits) if table == first else [])
        keys += " " + " ".join(f"1&&&1 {limit:#x}&&&0xffffffff" if k == key else "0&&&0 0&&&0"
                               for k in group)
        out.append(f"table_add {INGRESS}.{table} {action} "
                   f"{VALUE_ADDING[0]}&&&{VALUE_ADDING[1]} {keys.strip()} => {prio}")
    lanes_of_first = clip_tables(pl["lanes"], pl["pair"])[0][2]
    for prio, fold in late_clip_folds(pl["lanes"], pl["late"], pl["lead"]):
        keys = " ".join("1&&&1" if b in fold else "0&&&0" for b in bits)
        keys += " " + " ".join("0&&&0 0&&&0" for _ in lanes_of_first)
        out.append(f"table_add {INGRESS}.{first} set_clipped "
                   f"{VALUE_ADDING[0]}&&&{VALUE_ADDING[1]} {keys} => {prio}")
    for prio, (op, mask), key, limit in lead_clips(pl["lead"]):
        keys = " ".join(f"1&&&1 {limit:#x}&&&0xffffffff" if f"lead_{i}" == key else "0&&&0 0&&&0"
                        for i in range(pl["lead"]))
        out.append(f"table_add {EGRESS}.{LEAD_CLIPS[0]} {LEAD_CLIPS[1]} {op}&&&{mask} {keys} "
                   f"=> {prio}")
    for job, node, first, last, fan, bits in pl["goat_children"]:
        # A range and ternary table: the last number is the entry's priority
        # (the lowest wins). Per range: a zero bitmap, a bitmap within the
        # children's bits, any other (goat_children in stages/parse.p4).
        key = f"{job} {node} {first}->{last}"
        out.append(f"table_add {T_GOAT} children_bitmap_bad {key} 0&&&0xffffffff => 1")
        out.append(f"table_add {T_GOAT} set_children {key} 0&&&{~bits & 0xFFFFFFFF:#x} => {fan} 2")
        out.append(f"table_add {T_GOAT} children_bitmap_bad {key} 0&&&0 => 3")
    # The PRE numbers nodes in creation order, from 0.
    for node, (gid, rid, ports) in enumerate(pl["groups"]):
        out.append(f"mc_mgrp_create {gid}")
        out.append(f"mc_node_create {rid} {' '.join(str(p) for p in ports)}")
        out.append(f"mc_node_associate {gid} {node}")
    return "\n".join(out) + "\n"


def bmv2_admission(a):
    out = []
    for job, epoch, checked, share in a["job"]:
        out.append(f"table_add {T_JOB_ADM} registered {job} => {epoch} {checked} {share}")
    for job, ip, role in a["ip"]:
        out.append(f"table_add {T_SRC_IP} {role} {job} {ip_str(ip)} =>")
    for job, ip, port in a["port"]:
        out.append(f"table_add {T_SRC_PORT} right_port {job} {ip_str(ip)} {port} =>")
    for job, ip, port, mac in a["ps"]:
        out.append(f"table_add {T_PS_ADM} is_ps {job} {ip_str(ip)} {port} {mac_str(mac)} =>")
    for job, ip, port, mac, level, action, mask in a["worker"]:
        data = "" if mask is None else f" {mask}"
        out.append(f"table_add {T_WORKER_ADM} {action} {job} {ip_str(ip)} {port} "
                   f"{mac_str(mac)} {level} =>{data}")
    return out


def tofino_admission(a):
    out = []
    adm = "ig.admission_0"
    for job, epoch, checked, share in a["job"]:
        out.append(f"{adm}.job_admission.add_with_registered(job_id={job}, epoch={epoch}, "
                   f"checked={checked}, share={share})")
    for job, ip, role in a["ip"]:
        out.append(f"{adm}.source_ip.add_with_{role}(job_id={job}, src_ip='{ip_str(ip)}')")
    for job, ip, port in a["port"]:
        out.append(f"{adm}.source_port.add_with_right_port(job_id={job}, src_ip='{ip_str(ip)}', "
                   f"in_port={port})")
    for job, ip, port, mac in a["ps"]:
        out.append(f"{adm}.ps_admission.add_with_is_ps(job_id={job}, src_ip='{ip_str(ip)}', "
                   f"in_port={port}, src_mac='{mac_str(mac)}')")
    for job, ip, port, mac, level, action, mask in a["worker"]:
        data = "" if mask is None else f", mask={mask}"
        out.append(f"{adm}.worker_admission.add_with_{action}(job_id={job}, "
                   f"src_ip='{ip_str(ip)}', in_port={port}, src_mac='{mac_str(mac)}', "
                   f"level={level}{data})")
    return out


def emit_tofino(pl, program="ina_tna"):
    c = pl["config"]
    out = [
        "# generated by pipeline/p4/p4gen.py: run with bfshell -b <this file>",
        "# (SDE 9.x bfrt_python). Clears and reprograms every INA table.",
    ]
    for w in pl["warnings"]:
        out.append(f"# warning: {w}")
    out += [
        f"p4 = bfrt.{program}.pipe",
        "ig = p4.InaIngress",
        "eg = p4.InaEgress",
        "for t in (ig.forward_0.ipv4_route, ig.forward_0.l2_forward,",
        "          ig.forward_0.job_multicast, eg.egress_ina_0.mcast_mac, eg.egress_ina_0.mcast_rewrite,",
        "          eg.egress_ina_0.ecn_threshold, ig.parse_0.goat_children,",
        "          ig.admission_0.job_admission, ig.admission_0.source_ip,",
        "          ig.admission_0.source_port, ig.admission_0.ps_admission,",
        "          ig.admission_0.worker_admission,",
        "          " + ", ".join([f"ig.{t}" for t, _, _ in clip_tables(pl["lanes"], pl["pair"], pl["late"])]
                                 + ([f"eg.{LEAD_CLIPS[0]}"] if pl["lead"] else []))
        + "):",
        "    t.clear()",
        f"ig.switch_config_0.ina_config.set_default_with_set_config(aggregators={c['aggregators']}, "
        f"elements={c['elements']}, switch_id={c['switch_id']}, gc_timeout={c['gc_timeout']}, "
        f"cpu_port={c['cpu_port']}, flood_group={c['flood_group']})",
    ]
    for ip, port, mac in pl["routes"]:
        out.append(f"ig.forward_0.ipv4_route.add_with_to_neighbour(dst='{ip_str(ip)}', "
                   f"port={port}, mac='{mac_str(mac)}')")
    for mac, port in pl["l2"]:
        out.append(f"ig.forward_0.l2_forward.add_with_to_port(dst='{mac_str(mac)}', port={port})")
    for job, gid in pl["job_multicast"]:
        out.append(f"ig.forward_0.job_multicast.add_with_to_group(job_id={job}, group={gid})")
    for rid, port, mac, ip in pl["rewrites"]:
        out.append(f"eg.egress_ina_0.mcast_mac.add_with_group_mac(rid={rid}, egress_port={port}, "
                   f"dst='{ip_str(ip)}', mac='{mac_str(mac)}')")
        out.append(f"eg.egress_ina_0.mcast_rewrite.add_with_rewrite(rid={rid}, egress_port={port}, "
                   f"mac='{mac_str(mac)}', ip='{ip_str(ip)}')")
    for port, minus_depth in pl["ecn"]:
        out.append(f"eg.egress_ina_0.ecn_threshold.add_with_set_threshold(egress_port={port}, "
                   f"minus_depth={minus_depth:#x})")
    out += tofino_admission(pl["admission"])
    for table, action, prio, key, limit, _ in lane_clips(pl["lanes"], pl["pair"], pl["late"]):
        out.append(f"ig.{table}.add_with_{action}("
                   f"value_op={VALUE_ADDING[0]}, value_op_mask={VALUE_ADDING[1]}, "
                   f"{key}_valid=1, {key}_valid_mask=1, {key}={limit:#x}, "
                   f"{key}_mask=0xffffffff, MATCH_PRIORITY={prio})")
    for prio, fold in late_clip_folds(pl["lanes"], pl["late"], pl["lead"]):
        bits = "".join(f"{bit}=1, {bit}_mask=1, " for bit in fold)
        out.append(f"ig.{CLIPS_CONTROL}.lane_clips.add_with_set_clipped("
                   f"value_op={VALUE_ADDING[0]}, value_op_mask={VALUE_ADDING[1]}, "
                   f"{bits}MATCH_PRIORITY={prio})")
    for prio, (op, mask), key, limit in lead_clips(pl["lead"]):
        out.append(f"eg.{LEAD_CLIPS[0]}.add_with_{LEAD_CLIPS[1]}(value_op={op}, value_op_mask={mask}, "
                   f"{key}_valid=1, {key}_valid_mask=1, {key}={limit:#x}, "
                   f"{key}_mask=0xffffffff, MATCH_PRIORITY={prio})")
    for job, node, first, last, fan, bits in pl["goat_children"]:
        # Per range: a zero bitmap, a bitmap within the children's bits, any
        # other (goat_children in stages/parse.p4); the lowest
        # MATCH_PRIORITY wins.
        key = (f"job_id={job}, agg_node={node}, agg_index_start={first}, "
               f"agg_index_end={last}")
        out.append(f"ig.parse_0.goat_children.add_with_children_bitmap_bad({key}, bitmap=0, "
                   f"bitmap_mask=0xffffffff, MATCH_PRIORITY=1)")
        out.append(f"ig.parse_0.goat_children.add_with_set_children({key}, bitmap=0, "
                   f"bitmap_mask={~bits & 0xFFFFFFFF:#x}, MATCH_PRIORITY=2, fan_in={fan})")
        out.append(f"ig.parse_0.goat_children.add_with_children_bitmap_bad({key}, bitmap=0, "
                   f"bitmap_mask=0, MATCH_PRIORITY=3)")
    out += ["pre = bfrt.pre",
            "pre.mgid.clear()",
            "pre.node.clear()"]
    for node, (gid, rid, ports) in enumerate(pl["groups"], start=1):
        out.append(f"pre.node.entry(MULTICAST_NODE_ID={node}, MULTICAST_RID={rid}, "
                   f"MULTICAST_LAG_ID=[], DEV_PORT={ports}).push()")
        out.append(f"pre.mgid.entry(MGID={gid}, MULTICAST_NODE_ID=[{node}], "
                   f"MULTICAST_NODE_L1_XID_VALID=[False], MULTICAST_NODE_L1_XID=[0]).push()")
    out.append("bfrt.complete_operations()")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config", help="resolved configuration: the JSON of "
                    "`ina-switchd --check-config FILE`, or - for stdin")
    ap.add_argument("--target", choices=("bmv2", "tofino", "tofino2"), required=True,
                    help="tofino2: the Tofino entries for the Tofino 2 build's layout")
    ap.add_argument("--port-map", default="",
                    help="config port (index or device name) = P4 port, comma separated; "
                         "default: port i is P4 port i")
    ap.add_argument("--cpu-port", type=int, default=None,
                    help="where control messages go (default: 64 on BMv2, 192 on Tofino)")
    ap.add_argument("--program", default="ina_tna", help="P4 program name under bfrt (Tofino)")
    ap.add_argument("--lanes", type=int, default=None,
                    help="INA_LANES the program was built with (default: the target's "
                         "default build, 31 on BMv2, 15 on Tofino, 31 pair lanes on Tofino 2, "
                         "23 word lanes there; elements are capped at twice that and the "
                         "lead lanes, and the late lanes)")
    ap.add_argument("--late-lanes", type=int, default=None,
                    help="INA_LATE_LANES the program was built with: word lanes of the second "
                         "pass alone (default: 18 on Tofino, 0 elsewhere; 0..18)")
    ap.add_argument("--lead-lanes", type=int, default=None,
                    help="INA_LEAD_LANES the program was built with: word lanes whose "
                         "elements lead each pass's, tested in the second pass and egress "
                         "(default: 7 on Tofino, 0 elsewhere; 0..7, with late lanes)")
    layout = ap.add_mutually_exclusive_group()
    layout.add_argument("--pair-lanes", dest="pair_lanes", action="store_true", default=None,
                        help="the pair lanes (-DINA_PAIR_LANES on BMv2; Tofino 2's default): two "
                             "elements per lane, one pass")
    layout.add_argument("--word-lanes", dest="pair_lanes", action="store_false",
                        help="the word lanes (-DINA_WORD_LANES on Tofino 2; the default "
                             "elsewhere): one element per lane, two passes")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args(argv)
    if a.pair_lanes is None:
        a.pair_lanes = P4_PAIR_DEFAULT[a.target]
    if a.pair_lanes and a.target == "tofino":
        print("p4gen: error: --pair-lanes: the pair lanes need Tofino 2's stateful ALU "
              "(--target tofino2 or bmv2)", file=sys.stderr)
        return 2
    if a.lanes is None:
        a.lanes = P4_PAIR_LANES[a.target] if a.pair_lanes else P4_LANES[a.target]
    if a.late_lanes is None:
        a.late_lanes = 0 if a.pair_lanes else P4_LATE_LANES[a.target]
    if a.late_lanes and a.pair_lanes:
        print("p4gen: error: --late-lanes: the pair lanes take one pass, late lanes are the "
              "word lanes' second", file=sys.stderr)
        return 2
    if not 0 <= a.late_lanes <= P4_LATE_LANES_MAX:
        print(f"p4gen: error: --late-lanes {a.late_lanes}: the program has 0 to "
              f"{P4_LATE_LANES_MAX} late lanes", file=sys.stderr)
        return 2
    if a.lead_lanes is None:
        a.lead_lanes = 0 if a.pair_lanes or not a.late_lanes else P4_LEAD_LANES[a.target]
    if not 0 <= a.lead_lanes <= P4_LEAD_LANES_MAX:
        print(f"p4gen: error: --lead-lanes {a.lead_lanes}: the program has 0 to "
              f"{P4_LEAD_LANES_MAX} lead lanes", file=sys.stderr)
        return 2
    if a.lead_lanes and (a.pair_lanes or not a.late_lanes):
        print("p4gen: error: --lead-lanes: lead lanes are the word lanes', with late lanes "
              "(--late-lanes 1..18)", file=sys.stderr)
        return 2
    # Tofino 2 runs the Tofino entries; only its default layout and lanes differ.
    a.target = "tofino" if a.target == "tofino2" else a.target
    if not 1 <= a.lanes <= 31:
        print(f"p4gen: error: --lanes {a.lanes}: the program has 1 to 31 lanes", file=sys.stderr)
        return 2
    if a.lanes + a.lead_lanes > 31:
        print(f"p4gen: error: --lanes {a.lanes} and --lead-lanes {a.lead_lanes}: at most 31 "
              "together", file=sys.stderr)
        return 2
    global P4_MAX_ELEMENTS
    P4_MAX_ELEMENTS = 2 * a.lead_lanes + 2 * a.lanes + a.late_lanes
    try:
        m = load_config(a.config)
        pm = parse_port_map(a.port_map, m)
        cpu = a.cpu_port if a.cpu_port is not None else (64 if a.target == "bmv2" else 192)
        pl = plan(m, pm, cpu, a.target)
        pl.update(lanes=a.lanes, late=a.late_lanes, lead=a.lead_lanes, pair=a.pair_lanes)
    except ConfigError as e:
        print(f"p4gen: error: {e}", file=sys.stderr)
        return 2
    for w in pl["warnings"]:
        print(f"p4gen: warning: {w}", file=sys.stderr)
    text = emit_bmv2(pl) if a.target == "bmv2" else emit_tofino(pl, a.program)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
