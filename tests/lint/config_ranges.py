#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every documented range is the enforced one. Reads the `key | range |
default | meaning` tables of config/README.md (ina-switchd), docs/ps.md
(ina-ps job files) and docs/worker.md (the worker's config keys) and, for
each numeric key, writes a minimal valid file (or command line) with the
value at each bound (must be accepted) and one past it (must be refused, the
error naming the key), checked with `ina-switchd --check-config`, `ina-ps
--check-job` and `ina-worker --check-config --set KEY=VALUE`. A numeric row
whose range does not parse fails: the tables are meant to be read by
programs too. The [goat] keys of a job file get a small GOAT plan next to it
(GOAT_PLAN). A bound is a number, B^E, B^E-1 or B^E/D (2^64/1000: the
floor); `>` before the low bound or `<` before the high one leaves it out.

    config_ranges.py SOURCE_ROOT INA_SWITCHD INA_PS INA_WORKER
"""

import copy
import json
import os
import re
import subprocess
import sys
import tempfile

HEADER = "| key | range | default | meaning |"
NUMERIC = re.compile(r"^(array of )?(int|float)\b")
BOUND = r"-?[0-9.]+(?:e-?[0-9]+)?(?:\^[0-9]+)?(?:-1)?(?:/[0-9]+(?:\^[0-9]+)?)?"
RANGE = re.compile(r"^(array of )?(int|float) (>)?(" + BOUND + r")\.\.(<)?(" + BOUND + r")(?:[,;]| |$)")

# A GOAT plan (ina-goat-plan's format, docs/goat.md) for the [goat] keys of a
# job file: one worker, whose one sub-model goes to the PS, and two switches
# that aggregate nothing, with the lowest and the highest id, so that a
# [[goat.switch]] of either is valid on its own.
GOAT_PLAN = {"plan": {
    "switches": [{"name": "s1", "id": 1, "submodels": []}, {"name": "s2", "id": 65535, "submodels": []}],
    "submodels": [{"name": "a", "first_element": 0, "end_element": 100}],
    "workers": [{"name": "w0", "ranges": [{"submodel": "a", "first_element": 0, "end_element": 100,
                                           "agg_node": 0}]}]}}

SWITCH_BASE = {"switch": {"ip": "10.0.0.254"}, "port": [{"device": "net_null0"}]}
SWITCH_SECTIONS = {
    "egress": lambda c: c.setdefault("egress", {}),
    "port.neighbour": lambda c: c["port"][0].setdefault(
        "neighbour", [{"ip": "10.0.0.1", "mac": "02:00:00:00:00:01"}]),
    "job": lambda c: c.setdefault("job", [{"id": 1, "ps_ip": "10.0.0.100", "fan_in": [2],
                                           "worker": [{"ip": "10.0.0.1", "bit": [0]}]}]),
    "goat": lambda c: c.setdefault("goat", [{"job": 1, "aggregators": [[0, 16]]}]),
    "netreduce": lambda c: c.setdefault("netreduce", {"ring": [{"id": 1, "ranks": 2}]}),
}
SWITCH_SECTIONS["job.worker"] = SWITCH_SECTIONS["job"]
SWITCH_SECTIONS["netreduce.ring"] = SWITCH_SECTIONS["netreduce"]

PS_BASE = {"id": 1, "levels": 1, "fan_in": [2], "worker": [{"ip": "10.0.0.1", "bit": [0]}]}
PS_SECTIONS = {
    "switch": lambda c: c.setdefault("switch", {"ip": "10.0.0.254", "mac": "02:00:00:00:00:fe"}),
    "worker": lambda c: None,
    "goat": lambda c: c.setdefault("goat", {"plan": "plan.json"}),
    "goat.switch": lambda c: c.setdefault("goat", {"plan": "plan.json", "switch": [
        {"id": 1, "ip": "10.0.0.254", "mac": "02:00:00:00:00:fe"}]}),
}


WORKER_BASE = ["--check-config", "--job", "1", "--rank", "0", "--workers", "2", "--ps", "10.0.0.100"]
WINDOW_MAX = 2 ** 24 - 1


def number(text):
    if "/" in text:
        return number(text.split("/")[0]) // number(text.split("/")[1])
    if text.endswith("-1") and "^" in text:
        return number(text[:-2]) - 1
    if "^" in text:
        b, e = text.split("^")
        return int(b) ** int(e)
    return float(text) if "." in text or "e" in text else int(text)


def tables(path):
    """(section, keys, range cell) of every row of the key/range tables."""
    rows, section, in_table = [], None, False
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            m = re.search(r"`\[\[?([a-z_.]+)\]\]?`", line)
            section = m.group(1) if m else ""
            in_table = False
        elif line == HEADER:
            in_table = True
        elif in_table and line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows.append((section, re.findall(r"`([a-z_0-9]+)`", cells[0]), cells[1]))
        elif not line.startswith("|"):
            in_table = False
    return rows


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.9f}"
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return json.dumps(v) if isinstance(v, str) else str(v)


def toml_text(d, prefix=""):
    lines = [f"{k} = {toml_value(v)}" for k, v in d.items()
             if not isinstance(v, dict) and not (isinstance(v, list) and v and isinstance(v[0], dict))]
    for k, v in d.items():
        if isinstance(v, dict):
            lines += ["", f"[{prefix}{k}]"] + toml_text(v, prefix + k + ".")
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for e in v:
                lines += ["", f"[[{prefix}{k}]]"] + toml_text(e, prefix + k + ".")
    return lines


def table_at(cfg, section):
    t = cfg
    for part in section.split(".") if section else []:
        t = t[part]
        t = t[0] if isinstance(t, list) else t
    return t


def fix_up(kind, cfg, section, key, value):
    """What a value needs around it to be the only thing refused."""
    if key == "levels":
        n = max(value, 0) if value <= 4 else 1
        t = table_at(cfg, section)
        t["fan_in"] = [2] * n
        t["worker"][0]["bit"] = [0] * n
    elif kind == "switchd" and (section, key) == ("job", "max_aggregators"):
        cfg["switch"]["aggregators"] = 2 ** 24
    elif kind == "ps" and key == "window":
        cfg["elements"] = 1  # the job's memory limit leaves the range to `window`
    elif kind == "ps" and key == "ps_index":
        cfg["ps_count"] = 1024


def config_with(kind, section, key, array, value):
    cfg = copy.deepcopy(SWITCH_BASE if kind == "switchd" else PS_BASE)
    sections = SWITCH_SECTIONS if kind == "switchd" else PS_SECTIONS
    if section in sections:
        sections[section](cfg)
    table_at(cfg, section)[key] = [value] if array else value
    fix_up(kind, cfg, section, key, value)
    return "\n".join(toml_text(cfg)) + "\n"


def worker_fix_up(key, value):
    """The other keys a worker probe needs, set after it (so that a refused
    value is refused first)."""
    levels = {"levels": value if 0 <= value <= 4 else 1, "start_level": 4}.get(key)
    if levels is not None:
        n = max(levels, 1)
        return {"levels": levels, "fan_in": ",".join(["2"] * n), "bit": ",".join(["0"] * n)} \
            if key == "start_level" else {"fan_in": ",".join(["2"] * n), "bit": ",".join(["0"] * n)}
    if key in ("initial_window", "min_window", "ssthresh", "initial_acw"):
        return {"window_capacity": WINDOW_MAX + 1, "max_window": WINDOW_MAX}
    if key == "max_window":
        return {"window_capacity": WINDOW_MAX + 1, "initial_window": 1}
    if key == "window_capacity":
        return {"max_window": 15, "initial_window": 15}
    if key == "min_rto_us":
        return {"max_rto_us": 2 ** 64 // 1000}
    if key == "max_rto_us":
        return {"min_rto_us": 1}
    return {}


def worker_args(key, value):
    """ina-worker's command line: the probed key first."""
    sets = {key: value}
    sets.update({k: v for k, v in worker_fix_up(key, value).items() if k != key})
    args = list(WORKER_BASE)
    for k, v in sets.items():
        args += ["--set", f"{k}={repr(v) if isinstance(v, float) else v}"]
    return args


def outcome(kind, binaries, text, tmp):
    if kind == "worker":
        r = subprocess.run([binaries[2]] + text, capture_output=True, text=True, timeout=30)
        return r.returncode, r.stderr.strip()
    path = os.path.join(tmp, "switchd.toml" if kind == "switchd" else "job.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    args = [binaries[0], "--check-config", path] if kind == "switchd" else [binaries[1], "--check-job", path]
    r = subprocess.run(args, capture_output=True, text=True, timeout=30)
    return r.returncode, r.stderr.strip()


def probes(m):
    """(value, accepted) pairs at and past the bounds of a parsed range."""
    is_float, exclusive, open_hi = m.group(2) == "float", bool(m.group(3)), bool(m.group(5))
    lo, hi = number(m.group(4)), number(m.group(6))
    if is_float:
        eps = 1e-6 * max(1.0, abs(hi))
        lo_in = lo + eps if exclusive else float(lo)
        hi_in = hi - eps if open_hi else float(hi)
        return [(lo_in, True), (float(lo) if exclusive else lo - eps, False), (hi_in, True),
                (float(hi) if open_hi else hi + eps, False)]
    return [(lo, True), (lo - 1, False), (hi, True), (hi + 1, False)]


def check_row(kind, binaries, section, key, m, tmp):
    failures = 0
    for value, want in probes(m):
        text = worker_args(key, value) if kind == "worker" else \
            config_with(kind, section, key, bool(m.group(1)), value)
        rc, err = outcome(kind, binaries, text, tmp)
        name = f"{section}.{key}" if section else key
        ok = rc == 0 if want else (rc == 2 and key in err)
        print(f"{'ok  ' if ok else 'FAIL'} {kind} {name} = {value}: "
              f"{'accepted' if rc == 0 else 'refused'}{'' if ok else ' (' + err + ')'}")
        if not ok:
            shown = " ".join(text) if kind == "worker" else text
            print("      " + shown.replace("\n", "\n      "))
        failures += not ok
    return failures


def main():
    root, binaries = sys.argv[1], sys.argv[2:5]
    docs = [("switchd", os.path.join(root, "config", "README.md")), ("ps", os.path.join(root, "docs", "ps.md")),
            ("worker", os.path.join(root, "docs", "worker.md"))]
    failures, checked = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "plan.json"), "w", encoding="utf-8") as f:
            json.dump(GOAT_PLAN, f)  # the job file's goat.plan, next to it
        for kind, doc in docs:
            for section, keys, cell in tables(doc):
                if not NUMERIC.match(cell):
                    continue
                m = RANGE.match(cell)
                if not m:
                    print(f"FAIL {doc}: {section} {keys}: range '{cell}' is not 'int|float [>]A..B'")
                    failures += 1
                    continue
                for key in keys:
                    failures += check_row(kind, binaries, section, key, m, tmp)
                    checked += 1
    print(f"{checked} keys checked, {failures} failures")
    return 1 if failures or checked < 80 else 0


if __name__ == "__main__":
    sys.exit(main())
