#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""`ina-switchd --check-config FILE`: the resolved configuration as JSON on
stdout (every default filled in, config/README.md), or one error line and
exit 2; `ina-switchd --gen-key FILE`: a new control key. Needs neither root
nor DPDK ports: nothing starts.

    check_config_test.py INA_SWITCHD
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
failures = 0


def check(cond, what):
    global failures
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures += 1


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=30)


MINIMAL = """\
[switch]
ip = "10.0.0.254"

[[port]]
device = "net_null0"

[[port]]
device = "net_null1"
ecn_threshold = 7
[[port.neighbour]]
ip = "10.0.0.100"
mac = "02:00:00:00:00:64"

[egress]
queue_capacity = 99

[[job]]
id = 3
ps_ip = "10.0.0.100"
levels = 2
fan_in = [2, 3]
[[job.worker]]
ip = "10.0.0.1"
bit = [1, 255]
"""


def defaults(binary, tmp):
    path = os.path.join(tmp, "minimal.toml")
    with open(path, "w") as f:
        f.write(MINIMAL)
    r = run(binary, "--check-config", path)
    check(r.returncode == 0 and r.stderr == "", f"minimal config: exit 0, nothing on stderr ({r.stderr.strip()})")
    try:
        c = json.loads(r.stdout)
    except ValueError as e:
        check(False, f"stdout is JSON ({e})")
        return
    sw = c["switch"]
    want = {"id": 1, "ip": "10.0.0.254", "mac": None, "aggregators": 4096, "elements": 62,
            "gc_timeout_ms": 1000, "sweep_slots": 16, "lease_refreshes": 3, "job_share": 1.0, "lcores": None, "stats_interval_s": 1, "idle_sleep_us": 0,
            "mbufs": 16383, "burst": 32, "rx_descriptors": 1024, "tx_descriptors": 1024,
            "handoff_ring_size": 4096, "steering": "auto", "control_key_file": None,
            "control_auth": True, "control_window_s": 30}
    check(sw == want, f"switch: every default filled in ({sw})")
    p0, p1 = c["port"]
    check(p0 == {"device": "net_null0", "name": "net_null0", "vdev": True, "rate_gbps": 0.0,
                 "queue_capacity": 99, "ecn_threshold": 0, "drop_rate": 0.0, "neighbour": []},
          f"port 0: [egress] folded in, defaults for the rest ({p0})")
    check(p1["ecn_threshold"] == 7 and p1["queue_capacity"] == 99, "port 1: its own override wins")
    check(p1["neighbour"] == [{"ip": "10.0.0.100", "mac": "02:00:00:00:00:64"}], "neighbours")
    j = c["job"][0]
    check(j == {"id": 3, "ps_ip": "10.0.0.100", "ps_mac": None, "levels": 2, "fan_in": [2, 3],
                "control": "deny", "max_aggregators": 4096,
                "worker": [{"ip": "10.0.0.1", "mac": None, "bit": [1, 255]}]},
          f"job: one fan_in and bit per level, unset MACs null, the default limit ({j})")
    check(list(c) == ["file", "switch", "port", "job"] and c["file"] == path,
          "top level in the file's order, with the file name")
    r2 = run(binary, "--", "--check-config", path)
    check(r2.returncode == 0 and r2.stdout == r.stdout, "the same after `--`")


def control_key(binary, tmp):
    """control_key_file: read relative to the config, its path printed, never the key."""
    key = "00112233445566778899aabbccddeeff" * 2
    with open(os.path.join(tmp, "ctl.key"), "w") as f:
        f.write(key + "\n")
    os.chmod(os.path.join(tmp, "ctl.key"), 0o600)
    path = os.path.join(tmp, "keyed.toml")
    with open(path, "w") as f:
        f.write(MINIMAL.replace('ip = "10.0.0.254"', 'ip = "10.0.0.254"\ncontrol_key_file = "ctl.key"'))
    r = run(binary, "--check-config", path)
    check(r.returncode == 0, f"config with a key file validates ({r.stderr.strip()})")
    sw = json.loads(r.stdout)["switch"]
    check(sw["control_key_file"] == os.path.join(tmp, "ctl.key") and key not in r.stdout,
          "the key file's path is printed, the key is not")
    for text, want in [("0011", "hex digits"), (key[:-2] + "zz", "hex digits only")]:
        with open(os.path.join(tmp, "ctl.key"), "w") as f:
            f.write(text)
        r = run(binary, "--check-config", path)
        check(r.returncode == 2 and "switch.control_key_file" in r.stderr and want in r.stderr,
              f"bad key file refused ({r.stderr.strip()})")
    with open(path, "w") as f:
        f.write(MINIMAL.replace('ip = "10.0.0.254"',
                                'ip = "10.0.0.254"\ncontrol_key_file = "ctl.key"\ncontrol_auth = false'))
    r = run(binary, "--check-config", path)
    check(r.returncode == 2 and "control_auth = false" in r.stderr, "a key and control_auth = false conflict")
    with open(path, "w") as f:
        f.write(MINIMAL.replace("fan_in = [2, 3]", 'fan_in = [2, 3]\ncontrol = "maybe"'))
    r = run(binary, "--check-config", path)
    check(r.returncode == 2 and "job[0].control" in r.stderr, "job control must be allow or deny")


def gen_key(binary, tmp):
    """--gen-key FILE: a new key, mode 0600, that a config's control_key_file
    takes; an existing file is never replaced."""
    key = os.path.join(tmp, "gen.key")
    r = run(binary, "--gen-key", key)
    check(r.returncode == 0 and os.path.exists(key) and key in r.stdout,
          f"--gen-key writes the file ({r.returncode}, {r.stderr.strip()})")
    if not os.path.exists(key):
        return
    check(os.stat(key).st_mode & 0o777 == 0o600, f"mode 0600 ({oct(os.stat(key).st_mode & 0o777)})")
    with open(key) as f:
        text = f.read()
    check(len(text) == 65 and text.endswith("\n") and all(c in "0123456789abcdef" for c in text[:-1]),
          f"one line of 64 hex digits ({len(text)} characters)")
    path = os.path.join(tmp, "genkeyed.toml")
    with open(path, "w") as f:
        f.write(MINIMAL.replace('ip = "10.0.0.254"', 'ip = "10.0.0.254"\ncontrol_key_file = "gen.key"'))
    r = run(binary, "--check-config", path)
    check(r.returncode == 0 and r.stderr == "" and json.loads(r.stdout)["switch"]["control_key_file"] == key,
          f"a config takes the generated key, no warning ({r.stderr.strip()})")
    r = run(binary, "--gen-key", key)
    with open(key) as f:
        check(r.returncode == 1 and "exists" in r.stderr and f.read() == text,
              f"an existing key file is left alone, exit 1 ({r.stderr.strip()})")
    r = run(binary, "--gen-key", os.path.join(tmp, "no", "such.key"))
    check(r.returncode == 1 and r.stderr.startswith("ina-switchd: error: ") and "cannot create" in r.stderr,
          f"an unwritable path: one error line ({r.stderr.strip()})")
    r = run(binary, "--gen-key", os.path.join(tmp, "x.key"), "--check-config", path)
    check(r.returncode == 2 and not os.path.exists(os.path.join(tmp, "x.key")),
          f"--gen-key goes alone ({r.returncode})")


def errors(binary, tmp):
    bad = os.path.join(tmp, "bad.toml")
    with open(bad, "w") as f:
        f.write(MINIMAL.replace('ip = "10.0.0.254"', 'ip = "10.0.0.254"\nfrobnicate = 1'))
    r = run(binary, "--check-config", bad)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2 and r.stdout == "" and len(lines) == 1 and
          lines[0] == f"ina-switchd: error: invalid config: {bad}:3:1: switch.frobnicate: unknown key",
          f"unknown key: exit 2, one error line ({r.returncode}, {r.stderr.strip()})")
    with open(bad, "w") as f:
        f.write(MINIMAL.replace("fan_in = [2, 3]", "fan_in = [2]"))
    r = run(binary, "--check-config", bad)
    check(r.returncode == 2 and r.stderr.startswith("ina-switchd: error: ") and
          "job[0].fan_in: needs one entry per level" in r.stderr and r.stdout == "",
          f"bad fan_in: exit 2 ({r.stderr.strip()})")
    with open(bad, "wb") as f:
        f.write(b"[switch]\nip = \"\xff\xfe\"\n")
    r = run(binary, "--check-config", bad)
    check(r.returncode == 2 and r.stderr.startswith("ina-switchd: error: ") and
          len(r.stderr.strip().splitlines()) == 1, f"invalid UTF-8: exit 2 ({r.stderr.strip()})")
    # Fair share (docs/security.md): job_share is a fraction above 0, a job's
    # max_aggregators at most the table; the default is job_share of it.
    for text, want in [
            (MINIMAL.replace('ip = "10.0.0.254"', 'ip = "10.0.0.254"\njob_share = 0'),
             "switch.job_share: must be above 0"),
            (MINIMAL.replace('ip = "10.0.0.254"', 'ip = "10.0.0.254"\njob_share = 1.5'),
             "switch.job_share: must be between 0 and 1"),
            (MINIMAL.replace("fan_in = [2, 3]", "fan_in = [2, 3]\nmax_aggregators = 4097"),
             "job[0].max_aggregators: above switch.aggregators (4096)"),
            (MINIMAL.replace("fan_in = [2, 3]", "fan_in = [2, 3]\nmax_aggregators = 0"),
             "job[0].max_aggregators: must be between 1 and")]:
        with open(bad, "w") as f:
            f.write(text)
        r = run(binary, "--check-config", bad)
        check(r.returncode == 2 and want in r.stderr and len(r.stderr.strip().splitlines()) == 1,
              f"{want}: exit 2, one line ({r.stderr.strip()})")
    with open(bad, "w") as f:
        f.write(MINIMAL.replace('ip = "10.0.0.254"', 'ip = "10.0.0.254"\njob_share = 0.25'))
    r = run(binary, "--check-config", bad)
    c = json.loads(r.stdout)
    check(c["switch"]["job_share"] == 0.25 and c["job"][0]["max_aggregators"] == 1024,
          f"job_share 0.25 of 4096: a job without max_aggregators may hold 1024 ({r.stdout[:0]}"
          f"{c['job'][0]['max_aggregators']})")
    with open(bad, "w") as f:
        f.write(MINIMAL.replace("fan_in = [2, 3]", "fan_in = [2, 3]\nmax_aggregators = 7"))
    r = run(binary, "--check-config", bad)
    check(json.loads(r.stdout)["job"][0]["max_aggregators"] == 7, "a job's own max_aggregators wins")
    missing = os.path.join(tmp, "no-such.toml")
    r = run(binary, "--check-config", missing)
    check(r.returncode == 2 and r.stderr.startswith(f"ina-switchd: error: invalid config: {missing}"),
          f"missing file: exit 2 ({r.stderr.strip()})")
    r = run(binary, "--", "--config", missing, "--check-config", missing)
    check(r.returncode != 0 and "excludes" in r.stderr and r.stdout == "",
          "--check-config with --config is refused")


def key_hints(binary, tmp):
    """An unknown key names its file:line and, when cheap, the key meant: a
    close spelling, or the new name of a renamed key (the PS's old ones)."""
    cases = [('[switch]\nip = "10.0.0.254"\nelemnts = 62\n',
              ":3:1: switch.elemnts: unknown key; did you mean `elements`?"),
             ('[switch]\nip = "10.0.0.254"\nkey_file = "k"\n',
              ":3:1: switch.key_file: unknown key; renamed: use `control_key_file`"),
             ('[switch]\nip = "10.0.0.254"\n[[job]]\nid = 1\nps_ip = "10.0.0.100"\nfan_in = [2]\n'
              '[[job.worker]]\nip = "10.0.0.1"\nbits = [0]\n',
              ":9:1: job[0].worker[0].bits: unknown key; renamed: use `bit`")]
    for i, (head, want) in enumerate(cases):
        path = os.path.join(tmp, f"hint{i}.toml")
        with open(path, "w") as f:
            f.write(head + '\n[[port]]\ndevice = "net_null0"\n')
        r = run(binary, "--check-config", path)
        check(r.returncode == 2 and r.stderr.strip() == f"ina-switchd: error: invalid config: {path}{want}",
              f"hint: {want} ({r.stderr.strip()})")


def examples(binary):
    cfg_dir = os.path.join(ROOT, "config")
    files = sorted(f for f in os.listdir(cfg_dir) if f.startswith("switchd") and f.endswith(".toml"))
    check(len(files) >= 2, "example configs present")
    for f in files:
        r = run(binary, "--check-config", os.path.join(cfg_dir, f))
        ok = r.returncode == 0
        try:
            ok = ok and json.loads(r.stdout)["port"] != []
        except ValueError:
            ok = False
        check(ok, f"example config/{f} resolves")


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="chkcfg") as tmp:
        defaults(binary, tmp)
        control_key(binary, tmp)
        gen_key(binary, tmp)
        errors(binary, tmp)
        key_hints(binary, tmp)
    examples(binary)
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
