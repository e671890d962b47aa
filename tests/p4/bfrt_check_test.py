#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/p4/bfrt_check.py against a small BF-RT schema written here in
bf-p4c's format: bfrt_python's parameter names (the last part of a field's
name, longer where two would collide, "$" dropped, _mask / _start / _end /
_p_length for ternary, range and LPM keys), actions by their last name part,
default-only and table-only actions, widths, IPv4 and MAC strings, the
fields that must be given, and the fixed PRE tables' fields. Needs no P4 toolchain.
"""

import sys

import bfrt_check
from checks import Checks

check = Checks()


def key(name, match, width):
    return {"name": name, "match_type": match, "type": {"type": "bytes", "width": width}}


def action(name, data, scope="TableAndDefault"):
    return {"name": name, "action_scope": scope,
            "data": [{"name": n, "type": {"type": "bytes", "width": w}} for n, w in data]}


SCHEMA = {"tables": [
    {"name": "pipe.Ing.fwd_0.route", "key": [key("hdr.ipv4.dst", "Exact", 32)],
     "action_specs": [action("Ing.fwd_0.to_port", [("port", 9), ("mac", 48)]),
                      action("Ing.fwd_0.miss", [], "DefaultOnly")]},
    # Two keys end in "dst": both keep one more part.
    {"name": "pipe.Ing.fwd_0.pair", "key": [key("hdr.ipv4.dst", "Exact", 32),
                                            key("hdr.ethernet.dst", "Exact", 48)],
     "action_specs": [action("Ing.fwd_0.hit", [("port", 9)], "TableOnly")]},
    {"name": "pipe.Ing.fwd_0.ranges", "key": [key("meta.job", "Exact", 16),
                                              key("hdr.ina.index", "Range", 32),
                                              key("bitmap", "Ternary", 32),
                                              key("hdr.ipv4.src", "LPM", 32),
                                              key("$MATCH_PRIORITY", "Exact", 32)],
     "action_specs": [action("Ing.fwd_0.set", [("fan_in", 6)])]},
]}


def errors_of(script):
    return bfrt_check.check("p4 = bfrt.prog.pipe\nig = p4.Ing\n" + script, SCHEMA, "prog")[0]


def main():
    check(bfrt_check.param_names(["hdr.ipv4.dst"], ["port"]) == ({"hdr.ipv4.dst": "dst"}, {"port": "port"}),
          "a field is named by its last part")
    k, _ = bfrt_check.param_names(["hdr.ipv4.dst", "hdr.ethernet.dst"], [])
    check(k == {"hdr.ipv4.dst": "ipv4_dst", "hdr.ethernet.dst": "ethernet_dst"},
          f"two fields ending alike keep two parts ({k})")
    k, d = bfrt_check.param_names(["meta.port"], ["port"])
    check(k == {"meta.port": "meta_port"} and d == {"port": "port"},
          f"a key and a data field ending alike: the key keeps two parts ({k}, {d})")
    check(bfrt_check.param_names(["$MATCH_PRIORITY"], [])[0] == {"$MATCH_PRIORITY": "MATCH_PRIORITY"},
          "$ is dropped")
    check(bfrt_check.param_names(["meta.class"], [])[0] == {"meta.class": "key_class"},
          "a Python keyword gets the key_ prefix")

    good = ("ig.fwd_0.route.add_with_to_port(dst='10.0.0.1', port=3, mac='02:00:00:00:00:01')\n"
            "ig.fwd_0.route.set_default_with_miss()\n"
            "ig.fwd_0.pair.add_with_hit(ipv4_dst='10.0.0.1', ethernet_dst='02:00:00:00:00:01', port=1)\n"
            "ig.fwd_0.ranges.add_with_set(job=1, index_start=0, index_end=2047, bitmap=0, "
            "bitmap_mask=0xfffffffe, src='10.0.0.0', src_p_length=8, MATCH_PRIORITY=2, fan_in=1)\n"
            "for t in (ig.fwd_0.route, ig.fwd_0.pair):\n    t.clear()\n"
            "pre = bfrt.pre\npre.node.entry(MULTICAST_NODE_ID=1).push()\n")
    check(errors_of(good) == [], f"a script that matches: no mismatch ({errors_of(good)})")
    for what, script, needle in (
            ("unknown table", "ig.fwd_0.nowhere.add_with_hit(port=1)\n", "no table pipe.Ing.fwd_0.nowhere"),
            ("unknown table in a clear loop", "for t in (ig.fwd_0.gone,):\n    t.clear()\n",
             "no table pipe.Ing.fwd_0.gone"),
            ("unknown action", "ig.fwd_0.route.add_with_drop(dst='10.0.0.1')\n", "no action drop"),
            ("default-only action added", "ig.fwd_0.route.add_with_miss(dst='10.0.0.1')\n", "default-only"),
            ("table-only action as default", "ig.fwd_0.pair.set_default_with_hit(port=1)\n",
             "cannot be the default"),
            ("the full field name", "ig.fwd_0.route.add_with_to_port(hdr_ipv4_dst='10.0.0.1', port=3, "
             "mac='02:00:00:00:00:01')\n", "no parameter hdr_ipv4_dst"),
            ("a short name where two collide", "ig.fwd_0.pair.add_with_hit(dst='10.0.0.1', port=1)\n",
             "no parameter dst"),
            ("a range key given whole", "ig.fwd_0.ranges.add_with_set(job=1, index=5, MATCH_PRIORITY=1, "
             "fan_in=1)\n", "no parameter index"),
            ("a value too wide", "ig.fwd_0.route.add_with_to_port(dst='10.0.0.1', port=512, "
             "mac='02:00:00:00:00:01')\n", "port: 512 does not fit 9 bits"),
            ("a bad address", "ig.fwd_0.route.add_with_to_port(dst='10.0.0.300', port=1, "
             "mac='02:00:00:00:00:01')\n", "not a 32-bit address"),
            ("a bad MAC", "ig.fwd_0.route.add_with_to_port(dst='10.0.0.1', port=1, mac='02:00')\n",
             "not a 48-bit address"),
            ("an action parameter left out", "ig.fwd_0.route.add_with_to_port(dst='10.0.0.1', port=1)\n",
             "mac not given"),
            ("an exact key left out", "ig.fwd_0.route.add_with_to_port(port=1, mac='02:00:00:00:00:01')\n",
             "dst not given"),
            ("a PRE field misspelt", "pre = bfrt.pre\npre.node.entry(MULTICAST_NODE_ID=1, RID=1).push()\n",
             "bfrt.pre.node.entry: no field RID"),
            ("a PRE key left out", "bfrt.pre.mgid.entry(MULTICAST_NODE_ID=[1]).push()\n", "MGID not given"),
            ("nothing of the program", "x = 1\n", "no table of bfrt.prog")):
        errs = errors_of(script)
        check(any(needle in e for e in errs), f"{what}: reported ({errs})")
    return check.result()


if __name__ == "__main__":
    sys.exit(main())
