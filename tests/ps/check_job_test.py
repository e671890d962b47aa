#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`ina-ps --check-job FILE...`: the job files as JSON on stdout (every
default filled in, docs/ps.md "Checking a job file"), or one error line per
invalid file and exit 2. Opens nothing: no root, no interface.

    check_job_test.py INA_PS
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
failures = 0

MINIMAL = 'id = 3\nlevels = 1\nfan_in = [2]\n\n[[worker]]\nip = "10.0.0.1"\nbit = [0]\n'


def check(cond, what):
    global failures
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures += 1


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=30)


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def defaults(binary, tmp):
    path = write(tmp, "min.toml", MINIMAL)
    r = run(binary, "--check-job", path)
    check(r.returncode == 0 and r.stderr == "", f"minimal job: exit 0, nothing on stderr ({r.stderr.strip()})")
    try:
        jobs = json.loads(r.stdout)
    except ValueError as e:
        check(False, f"stdout is JSON ({e})")
        return
    want = {"file": path, "id": 3, "elements": "auto", "aggregators": 4096, "window": 4096, "levels": 1,
            "fan_in": [2], "ps_count": 1, "ps_index": 0, "ack": "unicast", "ack_holdoff_us": 100,
            "float_holdoff_us": 1000, "bypass_holdoff_us": 2000, "float_slots": 256, "switch": None,
            "worker": [{"ip": "10.0.0.1", "mac": None, "bit": [0]}], "goat": None}
    check(jobs == [want], f"every default filled in ({jobs})")


def switch_and_key(binary, tmp):
    key = "00112233445566778899aabbccddeeff"
    write(tmp, "ctl.key", key + "\n")
    os.chmod(os.path.join(tmp, "ctl.key"), 0o600)
    path = write(tmp, "sw.toml", MINIMAL.replace(
        "\n[[worker]]", '[switch]\nip = "10.0.0.254"\nmac = "02:00:00:00:00:fe"\n'
        'control_key_file = "ctl.key"\n\n[[worker]]'))
    r = run(binary, "--check-job", path)
    check(r.returncode == 0, f"a job with a switch and its key validates ({r.stderr.strip()})")
    if r.returncode == 0:
        j = json.loads(r.stdout)[0]
        check(j["ack"] == "multicast" and j["switch"] == {
            "ip": "10.0.0.254", "mac": "02:00:00:00:00:fe", "control_key_file": os.path.join(tmp, "ctl.key"),
            "register_timeout_ms": 10000} and key not in r.stdout,
            f"switch: key file by its resolved path, never the key ({j['switch']})")


def several_and_errors(binary, tmp):
    a = write(tmp, "a.toml", MINIMAL)
    b = write(tmp, "b.toml", MINIMAL.replace("id = 3", "id = 4"))
    r = run(binary, "--check-job", a, b)
    jobs = json.loads(r.stdout) if r.returncode == 0 else []
    check([j["id"] for j in jobs] == [3, 4], "several files: one array, in the order given")
    bad = write(tmp, "bad.toml", MINIMAL.replace("bit = [0]", "bits = [0]"))
    typo = write(tmp, "typo.toml", "windw = 8\n" + MINIMAL)
    r = run(binary, "--check-job", a, bad, typo)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2 and r.stdout == "" and lines == [
        f"ina-ps: error: invalid job: {bad}:7:1: worker[0].bits: unknown key; renamed: use `bit`",
        f"ina-ps: error: invalid job: {typo}:1:1: windw: unknown key; did you mean `window`?"],
        f"invalid files: exit 2, one line each with file:line ({lines})")
    r = run(binary, "--check-job", a, a)
    check(r.returncode == 2 and "job 3 given twice" in r.stderr, "a job id twice is refused")
    r = run(binary, "--check-job")
    check(r.returncode == 2 and "at least one job file" in r.stderr, "no file: usage error")


def example(binary):
    path = os.path.join(ROOT, "config", "ps-example.toml")
    r = run(binary, "--check-job", path)
    ok = r.returncode == 0
    try:
        ok = ok and json.loads(r.stdout)[0]["worker"][1]["bit"] == [1]
    except (ValueError, IndexError, KeyError):
        ok = False
    check(ok, f"config/ps-example.toml resolves ({r.stderr.strip()})")


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="chkjob") as tmp:
        defaults(binary, tmp)
        switch_and_key(binary, tmp)
        several_and_errors(binary, tmp)
    example(binary)
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
