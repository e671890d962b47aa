#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""pipeline/p4/p4gen.py takes the resolved configuration of
`ina-switchd --check-config FILE` (JSON) and nothing else: the entries it
writes for both targets come from ina-switchd's defaults, and input that is
not that JSON (the TOML itself, a key missing, a wrong type) is one error
line and exit 2, never a traceback. Needs no P4 toolchain.

    p4gen_test.py INA_SWITCHD
"""

import json
import os
import subprocess
import sys
import tempfile

from checks import Checks
from p4gen_fixture import resolve

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
P4GEN = os.path.join(ROOT, "pipeline", "p4", "p4gen.py")
check = Checks()


def p4gen(*args, stdin=None):
    return subprocess.run([sys.executable, P4GEN, *args], input=stdin, capture_output=True,
                          text=True, timeout=30)


def one_error(r, what, needle):
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2 and r.stdout == "" and len(lines) == 1 and
          lines[0].startswith("p4gen: error: ") and needle in lines[0],
          f"{what}: exit 2, one line ({r.returncode}: {r.stderr.strip()})")


def generated(binary, tmp):
    rc, resolved, err = resolve(binary, tmp)
    check(rc == 0, f"ina-switchd --check-config ({err})")
    b = p4gen("--target", "bmv2", "--port-map", "0=1,1=2", "-", stdin=resolved)
    check(b.returncode == 0 and b.stderr == "", f"bmv2 from stdin ({b.stderr.strip()})")
    # aggregators 4096 and elements 62 are ina-switchd's defaults; 500 ms is
    # 7813 ticks of 64 us; the CPU port defaults to 64 on BMv2.
    check("set_config 4096 62 1 7813 64 65535" in b.stdout, "bmv2: switch config with defaults")
    check("to_neighbour 10.0.0.100 => 2 02:00:00:00:00:64" in b.stdout, "bmv2: route to the PS")
    check("to_group 9 => 9" in b.stdout and "mc_node_create 9 1" in b.stdout, "bmv2: job group")
    # The threshold negated: set_threshold adds it to the queue depth.
    check("set_threshold 2 => 4294967292" in b.stdout and "set_threshold 1 =>" not in b.stdout,
          "bmv2: ECN threshold only where set")
    # A multicast copy: the port's MAC alone when it already carries the
    # worker's address (mcast_mac), else MAC and address (stages/forward.p4).
    eg = "table_add InaEgress.egress_ina_0."
    check(f"{eg}mcast_mac group_mac 9 1 10.0.0.1 => 02:00:00:00:00:01" in b.stdout.splitlines() and
          f"{eg}mcast_rewrite rewrite 9 1 => 02:00:00:00:00:01 10.0.0.1" in b.stdout.splitlines(),
          "bmv2: multicast rewrite of the worker's port, both tables")
    # Admission (stages/admission.p4): members bound to their neighbour's
    # port and their configured MAC; a config job's epoch is not checked.
    adm = "table_add InaIngress.admission_0."
    for line, what in (
            (f"{adm}job_admission registered 9 => 0 0 4294967295",
             "job registered, epoch unchecked, no share limit"),
            (f"{adm}source_ip ps_ip 9 10.0.0.100 =>", "the PS's IP"),
            (f"{adm}source_ip worker_ip 9 10.0.0.1 =>", "the worker's IP"),
            (f"{adm}source_port right_port 9 10.0.0.1 1 =>", "the worker's port"),
            (f"{adm}ps_admission is_ps 9 10.0.0.100 2 02:00:00:00:00:64 =>", "the PS, whole"),
            (f"{adm}worker_admission check_bit 9 10.0.0.1 1 02:00:00:00:00:01 0 => 1",
             "the worker's bit at its first level"),
            (f"{adm}worker_admission admit_level 9 10.0.0.1 1 02:00:00:00:00:01 4 =>",
             "any level past the job's admitted")):
        check(line in b.stdout.splitlines(), f"bmv2: admission: {what}")
    path = os.path.join(tmp, "sw.json")
    with open(path, "w") as f:
        f.write(resolved)
    lane_entries(path)
    lead_entries(path)
    t = p4gen("--target", "tofino", path)
    check(t.returncode == 0 and "aggregators=4096, elements=62, switch_id=1, gc_timeout=7630, "
          "cpu_port=192" in t.stdout, "tofino from a file: switch config with defaults")
    # 86 + 4 x 62 bytes = 5 cells of 80 bytes per packet.
    check("add_with_set_threshold(egress_port=1, minus_depth=0xffffffec)" in t.stdout,
          "tofino: ECN in cells, negated")
    check("eg.egress_ina_0.mcast_mac.add_with_group_mac(rid=9, egress_port=0, dst='10.0.0.1', "
          "mac='02:00:00:00:00:01')" in t.stdout and
          "eg.egress_ina_0.mcast_rewrite.add_with_rewrite(rid=9, egress_port=0, "
          "mac='02:00:00:00:00:01', ip='10.0.0.1')" in t.stdout,
          "tofino: multicast rewrite of the worker's port, both tables")
    check("ig.admission_0.ps_admission.add_with_is_ps(job_id=9, src_ip='10.0.0.100', in_port=1, "
          "src_mac='02:00:00:00:00:64')" in t.stdout, "tofino: admission of the PS")
    check("ig.admission_0.worker_admission.add_with_check_bit(job_id=9, src_ip='10.0.0.1', "
          "in_port=0, src_mac='02:00:00:00:00:01', level=0, mask=1)" in t.stdout,
          "tofino: admission of the worker")
    # A member without a MAC is bound to 00:..:00 as switchd binds it: said.
    c = json.loads(resolved)
    c["job"][0]["worker"][0]["mac"] = None
    w = p4gen("--target", "bmv2", "-", stdin=json.dumps(c))
    check(w.returncode == 0 and "worker 10.0.0.1 has no mac" in w.stderr and
          "spoof_mac_drops" in w.stderr, f"a worker without a mac is warned about ({w.stderr.strip()})")
    return json.loads(resolved)


def lane_entries(path):
    """The overflow tables' entries of each build's lanes, and the caps on
    `elements` that follow from them (stages/aggregator_value*.p4)."""
    # The default Tofino build has 7 lead lanes, 15 lanes and 18 late lanes
    # (constants.p4): 7 + 7 + 15 + 15 + 18 = 62 elements in two passes, so
    # the configuration's 62 stands, uncapped and unwarned; lane_clips gets
    # two entries per lane, one per late overflow bit and one for the lead
    # lanes' limit, late_clips two per late lane 0-3, late_clips_1 per late
    # lane 4-14 and late_clips_2 per late lane 15-17, egress lead_clips two
    # per lead lane and value action, all cleared first.
    d = p4gen("--target", "tofino", path)
    check(d.returncode == 0 and "elements=62," in d.stdout and d.stderr == "",
          f"tofino default build: 62 elements, uncapped ({d.stderr.strip()})")
    check(d.stdout == p4gen("--target", "tofino", "--lead-lanes", "7", path).stdout,
          "tofino: --lead-lanes 7 is the default build's")
    clips = [x for x in d.stdout.splitlines() if "lane_clips.add_with_set_clipped" in x]
    check(len(clips) == 34 and "elem_14=0x80000000" in clips[-5]
          and all(f"late_clip_{k}=1, late_clip_{k}_mask=1, MATCH_PRIORITY={67 + k}" in clips[k - 4]
                  for k in range(3))
          and "lead_limit=1, lead_limit_mask=1, recirculated=1, recirculated_mask=1, "
              "MATCH_PRIORITY=70" in clips[-1],
          f"tofino default build: 30 lane_clips entries, 3 for the late bits, 1 for the lead "
          f"lanes ({len(clips)})")
    late_tables = (("late_clips", "set_late_clip_0", 8, "late_0", "late_3"),
                   ("late_clips_1", "set_late_clip_1", 22, "late_4", "late_14"),
                   ("late_clips_2", "set_late_clip_2", 6, "late_15", "late_17"))
    for table, action, n, first, last in late_tables:
        late = [x for x in d.stdout.splitlines()
                if x.startswith(f"ig.aggregator_value_late_0.{table}.add_with_{action}(")]
        cleared = f"ig.aggregator_value_late_0.{table},"
        check(len(late) == n and f"{first}_valid=1, {first}_valid_mask=1, {first}=0x7fffffff" in late[0]
              and f"{last}=0x80000000" in late[-1] and cleared in d.stdout,
              f"tofino default build: {n} {table} entries, {first} to {last}, cleared ({len(late)})")
    d0 = p4gen("--target", "tofino", "--late-lanes", "0", path)
    check(d0.returncode == 0 and "elements=30," in d0.stdout and "late" not in d0.stdout,
          f"tofino without late lanes: elements capped at 30 ({d0.stderr.strip()})")
    for args, needle in ((("--target", "tofino2", "--late-lanes", "3"), "pair lanes take one pass"),
                         (("--target", "tofino", "--late-lanes", "19"), "0 to 18 late lanes"),
                         (("--target", "tofino", "--lead-lanes", "8"), "0 to 7 lead lanes"),
                         (("--target", "tofino", "--late-lanes", "0", "--lead-lanes", "7"),
                          "with late lanes")):
        one_error(p4gen(*args, path), f"p4gen {' '.join(args)}", needle)
    # BMv2's late form (-DINA_LANES=22 -DINA_LATE_LANES=18, the vectors'
    # p4_vectors_late): 62 elements; late_clips holds late lanes 0-3,
    # late_clips_1 4-14 and late_clips_2 15-17, each entry wildcarding the
    # table's other lanes; lane_clips' entries write its three late bits,
    # wildcards but in the three entries that fold them in.
    bl = p4gen("--target", "bmv2", "--lanes", "22", "--late-lanes", "18", path)
    lines = bl.stdout.splitlines()
    check(bl.returncode == 0 and bl.stderr == "" and "set_config 4096 62 " in bl.stdout,
          f"bmv2, 22 lanes and 18 late lanes: 62 elements ({bl.stderr.strip()})")
    for k, (table, n, others, prio) in enumerate((("late_clips", 8, 3, 52),
                                                  ("late_clips_1", 22, 10, 74),
                                                  ("late_clips_2", 6, 2, 80))):
        got = [x for x in lines if f" InaIngress.aggregator_value_late_0.{table} " in x]
        check(len(got) == n and all(f" set_late_clip_{k} 2&&&6 " in x for x in got)
              and got[-1].endswith("0&&&0 0&&&0 " * others + f"1&&&1 0x80000000&&&0xffffffff => {prio}"),
              f"bmv2, 22 lanes and 18 late lanes: {n} {table} entries ({got[-1:]})")
    lc = [x for x in lines if " InaIngress.aggregator_value_0.lane_clips " in x]
    folds = ["1&&&1 0&&&0 0&&&0", "0&&&0 1&&&1 0&&&0", "0&&&0 0&&&0 1&&&1"]
    check(len(lc) == 33 and lc[0].split()[4:8] == ["0&&&0", "0&&&0", "0&&&0", "1&&&1"]
          and all(lc[k - 3].endswith(f"2&&&6 {folds[k]} " + "0&&&0 0&&&0 " * 15 + f"=> {81 + k}")
                  for k in range(3)),
          f"bmv2, 22 lanes and 18 late lanes: lane_clips folds the late bits ({lc[-1:]})")
    t = p4gen("--target", "tofino", "--lanes", "31", "--late-lanes", "0", path)
    # One lane_clips table per 15 lanes (a ternary key holds 524 bits).
    for table, n, last in (("lane_clips", 30, "elem_14="), ("lane_clips_1", 30, "elem_29="),
                           ("lane_clips_2", 2, "elem_30=")):
        got = [x for x in t.stdout.splitlines() if f".{table}.add_with_set_clipped" in x]
        check(len(got) == n and last in got[-1] and f"aggregator_value_0.{table}" in t.stdout,
              f"tofino, 31 lanes: {n} {table} entries ({len(got)})")
    # Tofino 2's word lanes (-DINA_WORD_LANES): 23 lanes, 46 elements in two
    # passes, 46 entries in two tables.
    t2 = p4gen("--target", "tofino2", "--word-lanes", path)
    clips2 = [x for x in t2.stdout.splitlines() if "add_with_set_clipped" in x]
    check(t2.returncode == 0 and "elements=46," in t2.stdout and len(clips2) == 46
          and "lane_clips_1.add_with_set_clipped" in clips2[-1] and "elem_22=" in clips2[-1],
          f"tofino2 word lanes: 23 lanes ({len(clips2)} lane_clips entries)")
    # The default Tofino 2 build, its pair lanes: 31 lanes of two elements,
    # the protocol's 62 in one pass, uncapped; one overflow table per 13
    # elements, each with its own action. --pair-lanes says the same; with
    # --lanes 23 (an older build) elements are capped at 46 and the fifth
    # table is gone.
    pr = p4gen("--target", "tofino2", path)
    check(pr.stdout == p4gen("--target", "tofino2", "--pair-lanes", path).stdout,
          "tofino2: the pair lanes are the default")
    check(pr.returncode == 0 and "elements=62," in pr.stdout and "at most" not in pr.stderr,
          f"tofino2 pair form: 62 elements, 2 x 31 ({pr.stderr.strip()})")
    for k, (table, n, last) in enumerate((("lane_clips", 26, "elem_12="), ("lane_clips_1", 26, "elem_25="),
                                          ("lane_clips_2", 26, "elem_38="), ("lane_clips_3", 26, "elem_51="),
                                          ("lane_clips_4", 20, "elem_61="))):
        got = [x for x in pr.stdout.splitlines() if f".{table}.add_with_" in x]
        check(len(got) == n and all(f".{table}.add_with_set_clip_{k}(" in x for x in got)
              and last in got[-1] and "MATCH_PRIORITY=124" in pr.stdout,
              f"tofino2 pair form: {n} {table} entries, action set_clip_{k} ({len(got)})")
    check("lane_clips_5" not in pr.stdout and "set_clipped" not in pr.stdout,
          "tofino2 pair form: no sixth table, no single-word action")
    p23 = p4gen("--target", "tofino2", "--lanes", "23", path)
    check(p23.returncode == 0 and "elements=46," in p23.stdout and "lane_clips_4" not in p23.stdout
          and len([x for x in p23.stdout.splitlines() if ".lane_clips_3.add_with_" in x]) == 14,
          f"tofino2 pair form, 23 lanes: elements capped at 46, four tables ({p23.stderr.strip()})")
    bad = p4gen("--target", "tofino", "--pair-lanes", path)
    check(bad.returncode == 2 and "Tofino 2" in bad.stderr,
          f"pair form refused for Tofino 1 ({bad.stderr.strip()})")
    both = p4gen("--target", "tofino2", "--pair-lanes", "--word-lanes", path)
    check(both.returncode == 2 and "not allowed with" in both.stderr,
          f"one lane layout at a time ({both.stderr.strip()[-80:]})")
    # BMv2's pair form: 31 lanes, 62 elements; the last table holds 52..61.
    bp = [x for x in p4gen("--target", "bmv2", "--pair-lanes", path).stdout.splitlines()
          if ".lane_clips_4 " in x]
    check(len(bp) == 20 and all(" set_clip_4 2&&&6 " in x for x in bp)
          and bp[-1].endswith("0&&&0 0&&&0 1&&&1 0x80000000&&&0xffffffff => 124"),
          f"bmv2 pair form: lane_clips_4 holds elements 52..61 ({bp[-1:]})")
    b31 = [x for x in p4gen("--target", "bmv2", path).stdout.splitlines()
           if ".lane_clips_2 set_clipped" in x]
    check(len(b31) == 2 and b31[0].endswith("2&&&6 1&&&1 0x7fffffff&&&0xffffffff => 61"),
          f"bmv2: lane_clips_2 holds lane 30 only ({b31[:1]})")


def lead_entries(path):
    """The lead lanes' entries (stages/aggregator_value_lead.p4): Tofino 1's
    default build has 7, whose egress lead_clips gets two entries per lane
    for an adding and two for a reading packet, cleared first; without them
    elements are capped at 2 x 15 + 18."""
    d = p4gen("--target", "tofino", path)
    d2 = p4gen("--target", "tofino", "--lead-lanes", "0", path)
    check(d2.returncode == 0 and "elements=48," in d2.stdout and "at most 48" in d2.stderr
          and "lead" not in d2.stdout,
          f"tofino without lead lanes: elements capped at 2 x 15 + 18 ({d2.stderr.strip()})")
    lead = [x for x in d.stdout.splitlines() if x.startswith("eg.lead_overflow_0.lead_clips.add_with_set_overflow(")]
    check(len(lead) == 28
          and "value_op=2, value_op_mask=6, lead_0_valid=1, lead_0_valid_mask=1, lead_0=0x7fffffff" in lead[0]
          and "value_op=4, value_op_mask=7, lead_6_valid=1" in lead[-1]
          and "lead_6=0x80000000" in lead[-1] and "MATCH_PRIORITY=28" in lead[-1]
          and "eg.lead_overflow_0.lead_clips):" in d.stdout,
          f"tofino default build: 28 egress lead_clips entries, cleared ({len(lead)})")
    # BMv2 in Tofino 1's layout (p4_vectors_late): lane_clips' last entry folds
    # the lead lanes' limit in a recirculated frame; egress lead_clips has
    # an adding and a reading entry per lead lane and limit.
    bd = p4gen("--target", "bmv2", "--lanes", "15", "--late-lanes", "18", "--lead-lanes", "7", path)
    bdl = bd.stdout.splitlines()
    lcd = [x for x in bdl if " InaIngress.aggregator_value_0.lane_clips " in x]
    eg = [x for x in bdl if x.startswith("table_add InaEgress.lead_overflow_0.lead_clips set_overflow ")]
    check(bd.returncode == 0 and "set_config 4096 62 " in bd.stdout and len(lcd) == 34
          and lcd[-1].endswith("2&&&6 0&&&0 0&&&0 0&&&0 1&&&1 1&&&1 " + "0&&&0 0&&&0 " * 15 + "=> 70")
          and len(eg) == 28 and eg[0].split()[3:7] == ["2&&&6", "1&&&1", "0x7fffffff&&&0xffffffff", "0&&&0"]
          and eg[-1].split()[3] == "4&&&7" and eg[-1].endswith("1&&&1 0x80000000&&&0xffffffff => 28"),
          f"bmv2, Tofino 1's layout: lane_clips folds the lead limit, 28 lead_clips entries "
          f"({lcd[-1:]}, {eg[-1:]})")


def goat_children(binary, tmp):
    """The fixture's GOAT plan (p4gen_fixture.py) splits sub-model a: its run
    carries the children (fan-in 1, bit 0), which become one goat_children
    entry per target; the whole run needs none."""
    rc, out, err = resolve(binary, tmp, goat=True)
    check(rc == 0, f"ina-switchd --check-config with a split [[goat]] ({err})")
    b = p4gen("--target", "bmv2", "-", stdin=out)
    lines = [x for x in b.stdout.splitlines() if "goat_children" in x]
    check(lines == [
        "table_add InaIngress.parse_0.goat_children children_bitmap_bad 9 1 0->2047 "
        "0&&&0xffffffff => 1",
        "table_add InaIngress.parse_0.goat_children set_children 9 1 0->2047 "
        "0&&&0xfffffffe => 1 2",
        "table_add InaIngress.parse_0.goat_children children_bitmap_bad 9 1 0->2047 0&&&0 => 3"],
          f"bmv2: the split run's three goat_children entries ({lines})")
    t = p4gen("--target", "tofino", "-", stdin=out)
    check("ig.parse_0.goat_children.add_with_set_children(job_id=9, agg_node=1, agg_index_start=0, "
          "agg_index_end=2047, bitmap=0, bitmap_mask=0xfffffffe, MATCH_PRIORITY=2, fan_in=1)"
          in t.stdout, "tofino: the same entries")


def bad_input(resolved, tmp):
    toml = os.path.join(tmp, "sw.toml")
    one_error(p4gen("--target", "bmv2", toml), "the TOML itself", "not JSON")
    one_error(p4gen("--target", "bmv2", os.path.join(tmp, "none.json")), "missing file",
              "No such file")
    cases = [
        ("no switch", lambda c: c.pop("switch"), "switch: missing"),
        ("no aggregators", lambda c: c["switch"].pop("aggregators"), "switch.aggregators: missing"),
        ("elements a string", lambda c: c["switch"].update(elements="62"),
         "switch.elements: expected int"),
        ("id a bool", lambda c: c["switch"].update(id=True), "switch.id: expected int"),
        ("bad neighbour ip", lambda c: c["port"][0]["neighbour"][0].update(ip="10.0.0.300"),
         "port[0].neighbour[0].ip: not an IPv4 address"),
        ("bad worker mac", lambda c: c["job"][0]["worker"][0].update(mac="zz"),
         "job[0].worker[0].mac: not a MAC address"),
        ("no worker mac key", lambda c: c["job"][0]["worker"][0].pop("mac"),
         "job[0].worker[0].mac: missing"),
        ("fan_in not ints", lambda c: c["job"][0].update(fan_in=["x"]),
         "job[0].fan_in: expected a list of integers"),
        ("port not an object", lambda c: c["port"].__setitem__(0, 5), "port[0]: not an object"),
    ]
    for what, change, needle in cases:
        c = json.loads(json.dumps(resolved))
        change(c)
        one_error(p4gen("--target", "bmv2", "-", stdin=json.dumps(c)), what, needle)
    one_error(p4gen("--target", "bmv2", "-", stdin="[1, 2]"), "a list", "not an object")
    one_error(p4gen("--target", "bmv2", "--port-map", "0=x", "-", stdin=json.dumps(resolved)),
              "bad port map", "not a port number")


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="p4gen") as tmp:
        resolved = generated(binary, tmp)
        goat_children(binary, tmp)
        bad_input(resolved, tmp)
    return check.result()


if __name__ == "__main__":
    sys.exit(main())
