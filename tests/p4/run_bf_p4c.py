#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compiles the TNA program with the Tofino back end and checks that it fits.

    run_bf_p4c.py [--targets tofino,tofino2] [--keep DIR]

bf-p4c is found in $INA_BF_P4C or on PATH; without it the test is skipped
(exit 77). For each target (Tofino 1: TNA, Tofino 2: T2NA) it runs

    bf-p4c --std p4-16 --target T --arch A -g -I pipeline/p4 -o OUT pipeline/p4/ina_tna.p4

and fails if the compiler does (table placement that does not fit the
pipeline is a compile error), or if the resource report it writes with -g
(`*.res.json` / `resources.json`, the schema read by the back end's own
create_mau_resources.py) names more MAU stages used than the target has.
Prints, per target, the stages used and available and the tables placed in
each stage, the figures docs/p4.md quotes.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
P4 = os.path.join(ROOT, "pipeline", "p4")
SKIP = 77
ARCH = {"tofino": "tna", "tofino2": "t2na"}


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
        # logical_tables: {"size": N, "ids": [{"table_name": ...}, ...]}
        for t in (st.get("logical_tables") or {}).get("ids", []):
            if t.get("table_name"):
                names.add(t["table_name"])
        for b in (st.get("xbar_bytes") or {}).get("bytes", []):
            for u in b.get("usages", []):
                if u.get("used_by"):
                    names.add(u["used_by"])
        if names:
            tables[n] = sorted(names)
            used = max(used, n + 1)
    return used, available, tables


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default="tofino,tofino2")
    ap.add_argument("--keep", metavar="DIR", help="keep the compiler's output here")
    a = ap.parse_args()
    compiler = os.environ.get("INA_BF_P4C") or shutil.which("bf-p4c")
    if not compiler or not os.access(compiler, os.X_OK):
        print("skipped: bf-p4c not found (set INA_BF_P4C or put the Tofino back end on PATH; docs/p4.md)")
        return SKIP
    targets = a.targets.split(",")
    bad = [t for t in targets if t not in ARCH]
    if bad:
        print(f"run_bf_p4c: error: unknown target {bad[0]} (tofino, tofino2)", file=sys.stderr)
        return 2
    status = 0
    base = a.keep or tempfile.mkdtemp(prefix="bf-p4c-")
    try:
        for t in targets:
            out = os.path.join(base, t)
            os.makedirs(out, exist_ok=True)
            cmd = [compiler, "--std", "p4-16", "--target", t, "--arch", ARCH[t], "-g", "-I", P4,
                   "-o", out, os.path.join(P4, "ina_tna.p4")]
            print("$ " + " ".join(cmd), flush=True)
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {t}: bf-p4c exited {r.returncode}")
                print("\n".join((r.stdout + r.stderr).strip().splitlines()[-30:]))
                status = 1
                continue
            path, report = resource_report(out)
            if report is None:
                print(f"FAIL {t}: compiled, but no resource report (-g) under {out}")
                status = 1
                continue
            used, available, tables = stages(report)
            print(f"{t}: {used} of {available} MAU stages used ({os.path.relpath(path, out)})")
            for n in sorted(tables):
                print(f"  stage {n:2}: {', '.join(tables[n])}")
            if available is not None and used > available:
                print(f"FAIL {t}: {used} stages used, the target has {available}")
                status = 1
            else:
                print(f"ok   {t}: fits")
    finally:
        if not a.keep:
            shutil.rmtree(base, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
