#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compiles the TNA program with the Tofino back end and checks that it fits.

    run_bf_p4c.py [--targets tofino,tofino2,tofino2_pair] [--keep DIR] [-D NAME=VALUE ...]
                  [--write-summary] [--switchd INA_SWITCHD]

A build is a target and its definitions: `tofino` and `tofino2` are the
default builds of Tofino 1 (TNA, word lanes) and Tofino 2 (T2NA, pair
lanes), `tofino2_word` Tofino 2's word lanes (-DINA_WORD_LANES, the layout
of Tofino 1; include/constants.p4). bf-p4c is found in $INA_BF_P4C or on PATH.
For each build it runs

    bf-p4c --std p4-16 --target T --arch A -g -I pipeline/p4 -o OUT pipeline/p4/ina_tna.p4

(with the build's definitions, then -D NAME=VALUE for each -D given, e.g.
-D INA_LANES=16 to build another number of value lanes than the target's
default, constants.p4)
and fails if the compiler does (table placement that does not fit the
pipeline is a compile error), or if the resource report it writes with -g
(`*.res.json` / `resources.json`, the schema read by the back end's own
create_mau_resources.py) names more MAU stages used than the target has.
Prints, per target, the stages used and available, the tables placed in each
stage, and the memories, stateful ALUs, gateways, hash units and PHV
containers used, the figures docs/p4.md quotes. On a failed compile it prints
the compiler's error lines, and, when table placement is what failed, the
stages its last placement attempt took (the back end writes that attempt to
resources.json before it gives up).

With --switchd, each compiled target's BF-RT schema (OUT/bfrt.json) is
checked against the entries p4gen writes for it (tests/p4/bfrt_check.py,
for the configuration of tests/p4/p4gen_fixture.py with and without its
GOAT plan): every table, action and parameter the bfrt_python script names
exists in the program, with values that fit, as bfshell will require on the
switch or the Tofino model.

The p4c driver of the open-source back end (installed as bf-p4c) stops with a
Python AttributeError when it starts the assembler (barefoot.py passes a Path
where it expects a string): the back end has then compiled and placed the
program and written its .bfa and resource report. In that case this script
runs bfas (next to bf-p4c, or on PATH) on the .bfa itself, so that the
assembler's checks still apply.

The evidence stays in the repository: with --write-summary, each build
that fits (with no -D) gets pipeline/p4/fit/<build>.json: the compiler's
version, a SHA-256 over the P4 sources it compiled (pipeline/p4/**/*.p4) and
over p4gen.py (which writes the entries that program runs with), the stages
used of the target's, SRAM, map RAM and TCAM blocks, stateful ALUs, PHV
containers and bits per gress, and the elements per packet (two passes of
INA_LANES and the second pass's late lanes, or one of 2 x INA_LANES in the
pair form). docs/p4.md quotes
those files only. Without bf-p4c (CI, most machines) the test checks instead
that each build's summary was made from the sources as they are now, and
fails when one is stale: a change to the P4 program needs a compile. A build
with no summary yet is a skip.
"""
import argparse
import glob
import hashlib
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile

import bfrt_check
from p4gen_fixture import resolve

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
P4 = os.path.join(ROOT, "pipeline", "p4")
SKIP = 77
ARCH = {"tofino": "tna", "tofino2": "t2na"}
# The builds whose fit the repository records: name -> (target, definitions).
BUILDS = {
    "tofino": ("tofino", []),
    "tofino2": ("tofino2", []),
    "tofino2_word": ("tofino2", ["INA_WORD_LANES=1"]),
}
FIT = os.path.join(P4, "fit")


def sources_hash():
    """SHA-256 over the P4 sources and p4gen.py, path and content of each."""
    h = hashlib.sha256()
    files = sorted(glob.glob(os.path.join(P4, "**", "*.p4"), recursive=True)) + [os.path.join(P4, "p4gen.py")]
    for f in files:
        h.update(os.path.relpath(f, ROOT).encode() + b"\0")
        with open(f, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()


def define(defines, name):
    """The value of the last NAME=VALUE of defines, or None."""
    found = [d.split("=", 1)[1] for d in defines if d.split("=", 1)[0] == name]
    return found[-1] if found else None


def pair_lanes(target, defines):
    """Whether a build has the pair lanes: Tofino 2's default layout
    (include/constants.p4)."""
    if define(defines, "INA_PAIR_LANES") is not None:
        return True
    return target == "tofino2" and define(defines, "INA_WORD_LANES") is None


def default_lanes(target, pair=False):
    """INA_LANES of a build without -D INA_LANES: constants.p4's default for
    the target and layout (Tofino 2's pair lanes, its word lanes, then Tofino 1)."""
    if target == "tofino2":
        test = r"__TARGET_TOFINO__ == 2" + (r" && defined\(INA_PAIR_LANES\)" if pair else "")
    else:
        test = r"defined\(__TARGET_TOFINO__\)"
    with open(os.path.join(P4, "include", "constants.p4")) as f:
        m = re.search(r"#(?:el)?if " + test + r"\s*#define INA_LANES (\d+)", f.read())
    return int(m.group(1)) if m else None


def default_late_lanes(target, pair=False):
    """INA_LATE_LANES of a build without -D INA_LATE_LANES: constants.p4's
    Tofino 1 default, none on Tofino 2 or in the pair form."""
    if target != "tofino" or pair:
        return 0
    with open(os.path.join(P4, "include", "constants.p4")) as f:
        m = re.search(r"#if defined\(__TARGET_TOFINO__\) && __TARGET_TOFINO__ == 1\s*"
                      r"#define INA_LATE_LANES (\d+)", f.read())
    return int(m.group(1)) if m else 0


def default_lead_lanes(target, pair=False, late=0):
    """INA_LEAD_LANES of a build without -D INA_LEAD_LANES: constants.p4's
    Tofino 1 default (with late lanes), none on Tofino 2 or in the pair form."""
    if target != "tofino" or pair or not late:
        return 0
    with open(os.path.join(P4, "include", "constants.p4")) as f:
        m = re.search(r"#ifndef INA_LEAD_LANES\s*#if defined\(__TARGET_TOFINO__\) && "
                      r"__TARGET_TOFINO__ == 1\s*#define INA_LEAD_LANES (\d+)", f.read())
    return int(m.group(1)) if m else 0


def check_summaries(targets):
    """Without a compiler: every target's summary is there and current."""
    now = sources_hash()
    status = missing = 0
    for t in targets:
        path = os.path.join(FIT, f"{t}.json")
        if not os.path.exists(path):
            print(f"skip {t}: no fit summary {os.path.relpath(path, ROOT)} recorded yet (run "
                  "tests/p4/run_bf_p4c.py --write-summary where bf-p4c is)")
            missing += 1
            continue
        with open(path) as f:
            s = json.load(f)
        if s.get("sources_sha256") != now:
            print(f"FAIL {t}: {os.path.relpath(path, ROOT)} was made from other P4 sources "
                  f"({s.get('sources_sha256', '?')[:12]}, now {now[:12]}): compile again with "
                  "run_bf_p4c.py --write-summary")
            status = 1
            continue
        print(f"ok   {t}: {s['stages_used']} of {s['stages_available']} stages, {s['elements_per_packet']} "
              f"elements per packet ({s['compiler']}; summary current, compiler not run here)")
    # Nothing recorded and nothing stale: the fit is unchecked here, a skip.
    return status or (SKIP if missing else 0)


def write_summary(build, compiler, report, out):
    target, defines = BUILDS[build]
    used, available, tables = stages(report)
    tot, per = memories(report)
    pair = pair_lanes(target, defines)
    lanes = int(define(defines, "INA_LANES") or default_lanes(target, pair) or 0)
    late = int(define(defines, "INA_LATE_LANES") or default_late_lanes(target, pair))
    lead = int(define(defines, "INA_LEAD_LANES") or default_lead_lanes(target, pair, late))
    ver = subprocess.run([compiler, "--version"], capture_output=True, text=True)
    summary = {
        "target": target,
        "defines": defines,
        "compiler": (ver.stdout or ver.stderr).strip().splitlines()[-1] if (ver.stdout or ver.stderr) else "?",
        "sources_sha256": sources_hash(),
        "program": "pipeline/p4/ina_tna.p4",
        "stages_used": used,
        "stages_available": available,
        "sram_blocks": tot["sram"],
        "map_ram_blocks": tot["map_ram"],
        "tcam_blocks": tot["tcam"],
        "stateful_alus": tot["stateful_alu"],
        "gateways": tot["gateway"],
        "hash_distribution_units": tot["hash_dist"],
        "phv": {g: {"containers": n, "bits": b} for g, (n, b) in sorted((phv(out) or {}).items())},
        "lanes_per_pass": lanes,
        "elements_per_lane": 2 if pair else 1,
        "passes": 1 if pair else 2,
        "late_lanes": late,
        "lead_lanes": lead,
        "elements_per_packet": (2 * lead + 2 * lanes + late) if lanes else None,
        "stages": {str(n): {"tables": tables[n], "sram_blocks": per.get(n, (0, 0))[0],
                            "stateful_alus": per.get(n, (0, 0))[1]} for n in sorted(tables)},
    }
    os.makedirs(FIT, exist_ok=True)
    path = os.path.join(FIT, f"{build}.json")
    with open(path, "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    print(f"  summary written: {os.path.relpath(path, ROOT)}")


def resource_report(out):
    for pattern in ("**/*.res.json", "**/resources.json"):
        found = sorted(glob.glob(os.path.join(out, pattern), recursive=True))
        if found:
            with open(found[0]) as f:
                return found[0], json.load(f)
    return None, None


def stages(report):
    """(stages used, stages available, {stage: [table, ...]}) from a resources.json."""
    mau = report["resources"]["mau"]
    available = mau.get("nStages")
    tables = {}
    used = 0
    for st in mau.get("mau_stages", []):
        n = st["stage_number"]
        names = set()
        # logical_tables: {"size": N, "ids": [{"id": i, "table_name": ...}, ...]}
        for t in (st.get("logical_tables") or {}).get("ids", []):
            if t.get("table_name"):
                names.add(t["table_name"])
        if names:
            tables[n] = sorted(names)
            used = max(used, n + 1)
    return used, available, tables


def memories(report):
    """Totals over the stages: SRAM, map RAM and TCAM blocks, stateful ALUs,
    gateways, hash distribution units, and per stage the SRAM blocks and
    stateful ALUs."""
    tot = {"sram": 0, "map_ram": 0, "tcam": 0, "stateful_alu": 0, "gateway": 0, "hash_dist": 0}
    per = {}
    for st in report["resources"]["mau"].get("mau_stages", []):
        n = st["stage_number"]
        sram = len((st.get("rams") or {}).get("srams", []))
        salu = len((st.get("meter_alus") or {}).get("meters", []))
        tot["sram"] += sram
        tot["map_ram"] += len((st.get("map_rams") or {}).get("maprams", []))
        tot["tcam"] += len((st.get("tcams") or {}).get("tcams", []))
        tot["stateful_alu"] += salu
        tot["gateway"] += len((st.get("gateways") or {}).get("gateways", []))
        tot["hash_dist"] += len((st.get("hash_distribution_units") or {}).get("units", []))
        per[n] = (sram, salu)
    return tot, per


def phv(out):
    """{gress: (containers, bits)} used, from logs/phv.json."""
    found = sorted(glob.glob(os.path.join(out, "**", "phv.json"), recursive=True))
    if not found:
        return None
    with open(found[0]) as f:
        p = json.load(f)
    used = {}
    for c in p.get("containers", []):
        g = c.get("gress", "?")
        n, b = used.get(g, (0, 0))
        used[g] = (n + 1, b + c.get("bit_width", 0))
    return used


def phv_available(report):
    """(containers, bits) of the target's PHV, normal and tagalong, from the
    resources.json (phv.json lists each group once per use)."""
    have = {}
    for kind, groups in (report["resources"].get("phv_containers") or {}).items():
        have[kind] = (sum(g["units"] for g in groups), sum(g["units"] * g["width"] for g in groups))
    return have


def assemble(compiler, out, target):
    """Runs bfas on the back end's .bfa; True when it succeeds."""
    bfas = os.path.join(os.path.dirname(os.path.realpath(compiler)), "bfas")
    if not os.access(bfas, os.X_OK):
        bfas = shutil.which("bfas")
    found = sorted(glob.glob(os.path.join(out, "**", "*.bfa"), recursive=True))
    if not bfas or not found:
        return False
    r = subprocess.run([bfas, "-o", os.path.dirname(found[0]), found[0]], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL {target}: bfas exited {r.returncode}")
        print("\n".join((r.stdout + r.stderr).strip().splitlines()[-20:]))
    return r.returncode == 0


def print_stages(tables, sram_salu, limit=None):
    for n in sorted(tables):
        sram, salu = sram_salu.get(n, (0, 0))
        names = ", ".join(tables[n])
        if limit and len(names) > limit:
            names = names[:limit] + " ..."
        print(f"  stage {n:2} ({sram} SRAM, {salu} SALU): {names}")


def error_lines(text):
    """The compiler's error messages (each with the source line after it)."""
    lines = text.splitlines()
    keep = []
    for i, line in enumerate(lines):
        if "error" in line.lower() and "warning" not in line.lower():
            keep.extend(lines[i:i + 2])
    return keep[:60] or lines[-30:]


def check_entries(switchd, out, target, defines):
    """p4gen's bfrt_python for the fixture against the compile's bfrt.json;
    False (after the mismatches) if bfshell would refuse it."""
    try:
        with open(os.path.join(out, "bfrt.json")) as f:
            schema = json.load(f)
    except (OSError, ValueError) as e:
        print(f"FAIL {target}: no BF-RT schema to check p4gen's entries against: {e}")
        return False
    lanes = define(defines, "INA_LANES")
    late = define(defines, "INA_LATE_LANES")
    lead = define(defines, "INA_LEAD_LANES")
    pair = pair_lanes(target, defines)
    ok = True
    with tempfile.TemporaryDirectory(prefix="bfrt-check-") as tmp:
        for goat in (False, True):
            what = "with the GOAT plan" if goat else "plain"
            rc, resolved, err = resolve(switchd, tmp, goat)
            if rc != 0:
                print(f"FAIL {target}: ina-switchd --check-config of the fixture ({what}): {err}")
                return False
            r = subprocess.run([sys.executable, os.path.join(P4, "p4gen.py"), "--target", target, "-",
                                *(["--lanes", lanes] if lanes else []),
                                *(["--late-lanes", late] if late else []),
                                *(["--lead-lanes", lead] if lead else []),
                                "--pair-lanes" if pair else "--word-lanes"],
                               input=resolved, capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                print(f"FAIL {target}: p4gen ({what}): {r.stderr.strip()}")
                return False
            errors, checked = bfrt_check.check(r.stdout, schema)
            for e in errors:
                print(f"  p4gen {target} ({what}): {e}")
            print(f"{'ok  ' if not errors else 'FAIL'} {target}: p4gen's entries ({what}) against "
                  f"bfrt.json: {checked} table references, {len(errors)} mismatches")
            ok = ok and not errors
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default=",".join(BUILDS), help="builds, comma separated")
    ap.add_argument("--keep", metavar="DIR", help="keep the compiler's output here")
    ap.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE",
                    help="preprocessor definition for the program (repeatable)")
    ap.add_argument("--write-summary", action="store_true",
                    help="write pipeline/p4/fit/<build>.json for each build that fits (no -D)")
    ap.add_argument("--switchd", metavar="INA_SWITCHD",
                    help="check p4gen's entries against each compile's bfrt.json (this ina-switchd resolves "
                    "the configuration)")
    a = ap.parse_args()
    targets = a.targets.split(",")
    bad = [t for t in targets if t not in BUILDS]
    if bad:
        print(f"run_bf_p4c: error: unknown build {bad[0]} ({', '.join(BUILDS)})", file=sys.stderr)
        return 2
    if a.write_summary and a.defines:
        print("run_bf_p4c: error: --write-summary is for the default build (no -D)", file=sys.stderr)
        return 2
    compiler = os.environ.get("INA_BF_P4C") or shutil.which("bf-p4c")
    if not compiler or not os.access(compiler, os.X_OK):
        print("bf-p4c not found (INA_BF_P4C or PATH): checking the fit summaries in the repository instead")
        return check_summaries(targets)
    status = 0
    base = a.keep or tempfile.mkdtemp(prefix="bf-p4c-")
    try:
        for t in targets:
            target, defines = BUILDS[t]
            # A -D given replaces the build's definition of the same name.
            given = {d.split("=", 1)[0] for d in a.defines}
            defines = [d for d in defines if d.split("=", 1)[0] not in given] + a.defines
            out = os.path.join(base, t)
            os.makedirs(out, exist_ok=True)
            cmd = [compiler, "--std", "p4-16", "--target", target, "--arch", ARCH[target], "-g", "-I", P4,
                   *("-D" + d for d in defines), "-o", out, os.path.join(P4, "ina_tna.p4")]
            print("$ " + " ".join(cmd), flush=True)
            r = subprocess.run(cmd, capture_output=True, text=True)
            text = r.stdout + r.stderr
            if r.returncode != 0:
                driver_bug = ("runAssembler" in text and "AttributeError" in text
                              and "\n0 errors," in text)
                if not driver_bug:
                    print(f"FAIL {t}: bf-p4c exited {r.returncode}")
                    print("\n".join(error_lines(text)))
                    _, report = resource_report(out)
                    if report is not None and "Table placement" in text:
                        used, available, tables = stages(report)
                        print(f"{t}: the last placement attempt took {used} MAU stages "
                              f"(the target has {available}):")
                        print_stages(tables, memories(report)[1], limit=160)
                    status = 1
                    continue
                print(f"{t}: back end done; the driver stopped before the assembler, running bfas")
                if not assemble(compiler, out, t):
                    status = 1
                    continue
            path, report = resource_report(out)
            if report is None:
                print(f"FAIL {t}: compiled, but no resource report (-g) under {out}")
                status = 1
                continue
            used, available, tables = stages(report)
            tot, per = memories(report)
            print(f"{t}: {used} of {available} MAU stages used ({os.path.relpath(path, out)})")
            print(f"  SRAM blocks {tot['sram']}, map RAMs {tot['map_ram']}, TCAM blocks {tot['tcam']}, "
                  f"stateful ALUs {tot['stateful_alu']}, gateways {tot['gateway']}, "
                  f"hash distribution units {tot['hash_dist']}")
            if a.switchd and not check_entries(a.switchd, out, target, defines):
                status = 1
            phv_used = phv(out)
            if phv_used:
                parts = ", ".join(f"{g} {n} containers / {b} bits" for g, (n, b) in sorted(phv_used.items()))
                have = ", ".join(f"{k} {n} / {b}" for k, (n, b) in sorted(phv_available(report).items()))
                print(f"  PHV: {parts} (the target has, per gress: {have})")
            print_stages(tables, per)
            if available is None:
                # Without the target's stage count the fit is not checked:
                # that is a failure, never "fits".
                print(f"FAIL {t}: no mau.nStages in {os.path.relpath(path, out)}, fit not checked")
                status = 1
            elif used > available:
                print(f"FAIL {t}: {used} stages used, the target has {available}")
                status = 1
            else:
                print(f"ok   {t}: fits")
                if a.write_summary:
                    write_summary(t, compiler, report, out)
    finally:
        if not a.keep:
            shutil.rmtree(base, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
