#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Bad input against the real programs (docs/security.md, "Bad input"): each
row is a command line, maybe with input files, and what must come of it: the
exit code and a piece of the one error line. Nothing here opens a port or a
socket: every row fails (or prints its help) before any I/O.

    bad_input_test.py PROGRAM BINARY     PROGRAM: switchd, ps, worker, goat, gen

Checked for every row: the exit code; for an error, stdout empty and stderr
exactly one line "PROG: error: ..." holding the expected text; for --help,
exit 0 and the usage on stdout. A row that takes longer than 20 s (a FIFO
read, a file that never ends) fails.
"""

import json
import os
import subprocess
import sys
import tempfile

TIMEOUT_S = 20

SWITCHD = """\
[switch]
ip = "10.0.0.254"
mac = "{switch_mac}"

[[port]]
device = "net_null0"
[[port.neighbour]]
ip = "{nb_ip}"
mac = "{nb_mac}"

[[job]]
id = 1
ps_ip = "{ps_ip}"
fan_in = [2]
[[job.worker]]
ip = "10.0.0.1"
bit = [0]
[[job.worker]]
ip = "{w1_ip}"
bit = [1]
"""
SWITCHD_OK = dict(switch_mac="02:00:00:00:00:fe", nb_ip="10.0.0.100", nb_mac="02:00:00:00:00:64",
                  ps_ip="10.0.0.100", w1_ip="10.0.0.2")

PS_JOB = """\
id = 1
levels = 1
fan_in = [2]
window = {window}

[switch]
ip = "10.0.0.254"
mac = "{switch_mac}"

[[worker]]
ip = "10.0.0.1"
mac = "{w0_mac}"
bit = [0]

[[worker]]
ip = "{w1_ip}"
bit = [1]
"""
PS_OK = dict(window=4096, switch_mac="02:00:00:00:00:fe", w0_mac="02:00:00:00:00:01", w1_ip="10.0.0.2")

# TOML's escape for a NUL inside a string: the value is "10.0.0.2<NUL>junk".
NUL_IP = "10.0.0.2\\u0000junk"
BIG = "# padding\n" * (1 << 17)  # 1.25 MiB of comments: valid TOML, too large


def switchd_file(**kw):
    return SWITCHD.format(**{**SWITCHD_OK, **kw})


def ps_file(**kw):
    return PS_JOB.format(**{**PS_OK, **kw})


# (name, args, {file name: content}, exit code, text in the error line)
# "{tmp}" in args is the scratch directory; "fifo" and "dir" exist there.
SWITCHD_ROWS = [
    ("unknown option", ["--frob"], {}, 2, "unknown option '--frob'"),
    ("unknown option after --", ["--", "--frob"], {}, 2, "unknown option '--frob'"),
    ("unknown option before a required one", ["--", "--frob", "1"], {}, 2, "unknown option '--frob'"),
    ("no --config", ["--"], {}, 2, "--config FILE is required"),
    ("--check-config without a file", ["--check-config"], {}, 2, "--check-config"),
    ("good config", ["--check-config", "{tmp}/c.toml"], {"c.toml": switchd_file()}, 0, None),
    ("MAC -1:-1:-1:-1:-1:-1", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file(nb_mac="-1:-1:-1:-1:-1:-1")}, 2, "neighbour[0].mac: not a MAC address"),
    ("MAC short form", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file(nb_mac="2:0:0:0:0:64")}, 2, "not a MAC address"),
    ("MAC trailing junk", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file(nb_mac="02:00:00:00:00:64:77")}, 2, "not a MAC address"),
    ("MAC with a 0x prefix", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file(nb_mac="0x2:00:00:00:00:64")}, 2, "not a MAC address"),
    ("zero MAC for a host", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file(nb_mac="00:00:00:00:00:00")}, 2, "not a host's MAC address"),
    ("multicast MAC for the switch", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file(switch_mac="01:00:5e:00:00:01")}, 2, "switch.mac: not a host's MAC"),
    ("broadcast MAC for a host", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file(nb_mac="ff:ff:ff:ff:ff:ff")}, 2, "not a host's MAC address"),
    ("IP with an embedded NUL", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file(w1_ip=NUL_IP)}, 2, "worker[1].ip: not an IPv4 address: '10.0.0.2\\x00junk'"),
    ("IP with trailing space", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file(nb_ip="10.0.0.100 ")}, 2, "not an IPv4 address"),
    ("job's PS is the switch", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file(ps_ip="10.0.0.254")}, 2, "job[0].ps_ip: is the switch's own address"),
    ("duplicate worker IPs", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file(w1_ip="10.0.0.1")}, 2, "listed twice"),
    ("config is a FIFO", ["--check-config", "{tmp}/fifo"], {}, 2, "is a FIFO, not a regular file"),
    ("config is a FIFO (--config)", ["--", "--config", "{tmp}/fifo"], {}, 2, "is a FIFO"),
    ("--config without \"--\"", ["--config", "{tmp}/c.toml"], {"c.toml": switchd_file()}, 2,
     "--config goes after \"--\": ina-switchd [EAL args] -- --config"),
    ("config is a directory", ["--check-config", "{tmp}/dir"], {}, 2, "is a directory"),
    ("config is /dev/zero", ["--check-config", "/dev/zero"], {}, 2, "is a device"),
    ("config over 1 MiB", ["--check-config", "{tmp}/big.toml"], {"big.toml": BIG}, 2, "over the limit"),
    ("config missing", ["--check-config", "{tmp}/none.toml"], {}, 2, "cannot open"),
    ("aggregators out of range", ["--check-config", "{tmp}/c.toml"],
     {"c.toml": switchd_file().replace('mac = "02:00:00:00:00:fe"',
                                       'mac = "02:00:00:00:00:fe"\naggregators = 16777217')},
     2, "switch.aggregators: must be between"),
    ("--help", ["--help"], {}, 0, None),
]

# A GOAT plan for the two workers of PS_JOB: one sub-model, at switch 1.
GOAT_PLAN = json.dumps({"plan": {
    "switches": [{"name": "s1", "id": 1, "submodels": ["a"]}],
    "submodels": [{"name": "a", "first_element": 0, "end_element": 100}],
    "workers": [{"name": f"w{w}", "ranges": [{"submodel": "a", "first_element": 0, "end_element": 100,
                                               "agg_node": 1}]} for w in range(2)]}})

PS_ROWS = [
    ("unknown option, no --job", ["--frob"], {}, 2, "unknown option '--frob'"),
    ("no --job", [], {}, 2, "--job is required"),
    ("job file /dev/zero", ["--job", "/dev/zero"], {}, 2, "/dev/zero: is a device"),
    ("job file is a FIFO", ["--job", "{tmp}/fifo"], {}, 2, "is a FIFO"),
    ("job file is a directory", ["--job", "{tmp}/dir"], {}, 2, "is a directory"),
    ("job file over 1 MiB", ["--job", "{tmp}/big.toml"], {"big.toml": BIG}, 2, "over the limit"),
    ("window 2^24", ["--job", "{tmp}/j.toml"], {"j.toml": ps_file(window=1 << 24)}, 2,
     "window: must be within 1..8388608"),
    ("window 2^23 of 2048 elements", ["--job", "{tmp}/j.toml"],
     {"j.toml": ps_file(window=f"{1 << 23}\nelements = 2048")}, 2, "window: job 1: window 8388608"),
    ("duplicate worker IPs", ["--job", "{tmp}/j.toml"], {"j.toml": ps_file(w1_ip="10.0.0.1")}, 2,
     "worker[1].ip: the same address as another worker"),
    ("worker IP is the switch's", ["--job", "{tmp}/j.toml"], {"j.toml": ps_file(w1_ip="10.0.0.254")}, 2,
     "worker[1].ip: the switch's own address"),
    ("worker IP with an embedded NUL", ["--job", "{tmp}/j.toml"], {"j.toml": ps_file(w1_ip=NUL_IP)}, 2,
     "worker[1].ip: must be an IPv4 address"),
    ("MAC -1:-1:-1:-1:-1:-1", ["--job", "{tmp}/j.toml"], {"j.toml": ps_file(w0_mac="-1:-1:-1:-1:-1:-1")},
     2, "worker[0].mac: must be a MAC address"),
    ("MAC with trailing junk", ["--job", "{tmp}/j.toml"], {"j.toml": ps_file(w0_mac="02:00:00:00:00:01 x")},
     2, "worker[0].mac: must be a MAC address"),
    ("broadcast switch MAC", ["--job", "{tmp}/j.toml"], {"j.toml": ps_file(switch_mac="ff:ff:ff:ff:ff:ff")},
     2, "switch.mac: must be a host's MAC address"),
    ("--ip with junk", ["--ip", "10.0.0.9x", "--job", "{tmp}/j.toml"], {"j.toml": ps_file()}, 2,
     "--ip: not an IPv4 address"),
    ("--ip is the job's switch", ["--ip", "10.0.0.254", "--job", "{tmp}/j.toml"], {"j.toml": ps_file()}, 2,
     "switch.ip: the PS's own address"),
    ("--host-drop nan", ["--host-drop", "nan", "--job", "{tmp}/j.toml"], {"j.toml": ps_file()}, 2, "--host-drop"),
    ("old --drop", ["--drop", "0.1", "--job", "{tmp}/j.toml"], {"j.toml": ps_file()}, 2,
     "--drop is no longer accepted: use --host-drop P"),
    ("old --eal-args", ["--eal-args", "--no-huge", "--job", "{tmp}/j.toml"], {"j.toml": ps_file()}, 2,
     "--eal-args is no longer accepted: EAL arguments go before \"--\""),
    ("EAL arguments without dpdk", ["--no-huge", "--", "--job", "{tmp}/j.toml"], {"j.toml": ps_file()}, 2,
     "are for --transport dpdk only"),
    ("--duration -1", ["--duration", "-1", "--job", "{tmp}/j.toml"], {"j.toml": ps_file()}, 2, "--duration"),
    ("--register-interval-ms -1", ["--register-interval-ms", "-1", "--job", "{tmp}/j.toml"],
     {"j.toml": ps_file()}, 2, "--register-interval-ms"),
    ("[goat] plan missing", ["--job", "{tmp}/j.toml"],
     {"j.toml": ps_file() + '\n[goat]\nplan = "none.json"\n'}, 2, "goat.plan: "),
    ("[goat] plan switch without an address", ["--job", "{tmp}/j.toml"],
     {"j.toml": ps_file() + '\n[goat]\nplan = "p.json"\n', "p.json": GOAT_PLAN}, 2,
     "goat.switch: the plan's switch 's1' (id 1) aggregates sub-models: give it a [[goat.switch]]"),
    ("[goat] plan not JSON", ["--job", "{tmp}/j.toml"],
     {"j.toml": ps_file() + '\n[goat]\nplan = "p.json"\n', "p.json": "{"}, 2, "not JSON"),
    ("--help", ["--help"], {}, 0, None),
]

WORKER_REQ = ["--job", "1", "--rank", "0", "--workers", "2", "--ps", "10.0.0.100"]
WORKER_ROCE = WORKER_REQ[:6] + ["--transport", "roce", "--set", "roce_next=10.0.0.2"]
WORKER_ROWS = [
    ("unknown option, nothing required given", ["--frob"], {}, 2, "unknown option '--frob'"),
    ("unknown option", WORKER_REQ + ["--frob", "3"], {}, 2, "unknown option '--frob'"),
    ("missing --ps", WORKER_REQ[:6], {}, 2, "--ps is required"),
    ("--size -1", WORKER_REQ + ["--size", "-1"], {}, 2, "--size"),
    ("--size 8G", WORKER_REQ + ["--size", "8G"], {}, 2, "--size"),
    ("--size nan", WORKER_REQ + ["--size", "nan"], {}, 2, "--size"),
    ("old --size-mb", WORKER_REQ + ["--size-mb", "1"], {}, 2, "--size-mb is no longer accepted: use --size"),
    ("old --set eal_args", WORKER_REQ + ["--set", "eal_args=--no-huge"], {}, 2,
     "--set eal_args is no longer accepted: EAL arguments go before \"--\""),
    ("--rounds -1", WORKER_REQ + ["--rounds", "-1"], {}, 2, "--rounds"),
    ("--tensors 0", WORKER_REQ + ["--tensors", "0"], {}, 2, "--tensors"),
    ("--workers 0", WORKER_REQ[:4] + ["--workers", "0", "--ps", "10.0.0.100"], {}, 2, "--workers"),
    ("--job 0", ["--job", "0"] + WORKER_REQ[2:], {}, 2, "--job"),
    ("--elements 100000", WORKER_REQ + ["--elements", "100000"], {}, 2, "--elements"),
    ("--aggregators 2^32-1", WORKER_REQ + ["--aggregators", "4294967295"], {}, 2, "--aggregators"),
    ("--scale 0", WORKER_REQ + ["--scale", "0"], {}, 2, "--scale"),
    ("--host-drop 2", WORKER_REQ + ["--host-drop", "2"], {}, 2, "--host-drop"),
    ("old --drop", WORKER_REQ + ["--drop", "0.1"], {}, 2, "--drop is no longer accepted: use --host-drop P"),
    ("PS MAC -1:-1:-1:-1:-1:-1", WORKER_REQ[:6] + ["--ps", "10.0.0.100/-1:-1:-1:-1:-1:-1"], {}, 2,
     "bad value '10.0.0.100/-1:-1:-1:-1:-1:-1' for worker config key 'ps'"),
    ("PS MAC multicast", WORKER_REQ[:6] + ["--ps", "10.0.0.100/01:00:5e:00:00:01"], {}, 2, "key 'ps'"),
    ("PS IP twice", WORKER_REQ[:6] + ["--ps", "10.0.0.100,10.0.0.100"], {}, 2, "key 'ps'"),
    ("PS IP with junk", WORKER_REQ[:6] + ["--ps", "10.0.0.100junk"], {}, 2, "key 'ps'"),
    ("next hop MAC zero", WORKER_REQ + ["--next-hop-mac", "00:00:00:00:00:00"], {}, 2, "key 'next_hop_mac'"),
    ("next hop MAC short", WORKER_REQ + ["--next-hop-mac", "2:0:0:0:0:1"], {}, 2, "key 'next_hop_mac'"),
    ("--ip with junk", WORKER_REQ + ["--ip", "10.0.0.1 x"], {}, 2, "key 'ip'"),
    ("--set aggregators=2^32-1", WORKER_REQ + ["--set", "aggregators=4294967295"], {}, 2, "key 'aggregators'"),
    ("--set drop=nan", WORKER_REQ + ["--set", "drop=nan"], {}, 2, "key 'drop'"),
    ("--set window_capacity=2^25", WORKER_REQ + ["--set", "window_capacity=33554432"], {}, 2,
     "key 'window_capacity'"),
    # roce (NetReduce): the ring config is checked, then the RDMA device is
    # looked for, before any socket. Without a device (or, on a host with
    # one, without this name) the one line names what is missing.
    ("roce without an RDMA device", WORKER_ROCE + ["--device", "nosuch_rdma0"], {}, 2,
     "roce transport: no RDMA device"),
    ("roce --set roce_window=0", WORKER_ROCE + ["--set", "roce_window=0"], {}, 2,
     "roce window must be 1..4096 messages, got 0"),
    ("roce --set roce_window=5000", WORKER_ROCE + ["--set", "roce_window=5000"], {}, 2, "got 5000"),
    ("roce message not a multiple of the MTU", WORKER_ROCE + ["--set", "roce_msg_bytes=3000"], {}, 2,
     "roce message size 3000 is not a multiple of the MTU payload 1024"),
    ("roce MTU 1500", WORKER_ROCE + ["--set", "roce_mtu=1500"], {}, 2, "roce MTU must be 256, 512, 1024"),
    ("roce without a successor", WORKER_REQ[:6] + ["--transport", "roce"], {}, 2,
     "roce ring needs the successor's address (roce_next)"),
    ("roce successor port 0", WORKER_ROCE + ["--set", "roce_next=10.0.0.2:0"], {}, 2, "key 'roce_next'"),
    ("roce rank 40", ["--job", "1", "--rank", "40", "--workers", "41", "--transport", "roce",
                      "--set", "roce_next=10.0.0.2"], {}, 2, "roce rank 40 must be below 32"),
    ("no --ps without roce", WORKER_REQ[:6], {}, 2, "--ps is required (except with --transport roce)"),
    ("--help", ["--help"], {}, 0, None),
]

GOAT_ROWS = [
    ("unknown option", ["--frob"], {}, 2, "unknown option '--frob'"),
    ("topology /dev/zero", ["--topology", "/dev/zero", "--model", "/dev/zero"], {}, 2,
     "topology: /dev/zero: is a device"),
    ("topology is a FIFO", ["--topology", "{tmp}/fifo", "--model", "{tmp}/fifo"], {}, 2, "is a FIFO"),
    ("topology is a directory", ["--topology", "{tmp}/dir", "--model", "{tmp}/dir"], {}, 2, "is a directory"),
    ("--help", ["--help"], {}, 0, None),
]

# ina-gen reads its own options (after "--") before it starts the EAL; the
# EAL arguments are those of a vdev-only EAL without hugepages, which needs
# no privileges, should one start.
GEN_EAL = ["--no-huge", "-m", "64", "--no-pci", "--no-telemetry", "--log-level", "0",
           "--vdev", "net_null0", "--vdev", "net_null1"]
GEN_ROWS = [
    ("unknown option", ["--frob"], {}, 2, "unknown option '--frob'"),
    ("--duration nan", ["--duration", "nan"], {}, 2, "--duration"),
    ("--workers 0", ["--workers", "0"], {}, 2, "--workers"),
    ("--help", ["--help"], {}, 0, None),
]

PROGRAMS = {
    "switchd": ("ina-switchd", SWITCHD_ROWS, []),
    "ps": ("ina-ps", PS_ROWS, []),
    "worker": ("ina-worker", WORKER_ROWS, []),
    "goat": ("ina-goat-plan", GOAT_ROWS, []),
    "gen": ("ina-gen", GEN_ROWS, GEN_EAL),
}


def run_row(binary, prog, prefix, tmp, row):
    """Returns None if the row holds, else what went wrong."""
    name, args, files, want_rc, want_text = row
    for fname, content in files.items():
        with open(os.path.join(tmp, fname), "w") as f:
            f.write(content)
    args = [a.replace("{tmp}", tmp) for a in args]
    if prog == "ina-gen":
        args = prefix + [f"--file-prefix=badin{os.getpid()}", "--"] + args
    try:
        r = subprocess.run([binary, *args], capture_output=True, text=True, timeout=TIMEOUT_S,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"still running after {TIMEOUT_S} s"
    finally:
        for fname in files:
            os.unlink(os.path.join(tmp, fname))
    # ina-gen's EAL may log on stdout and stderr before our parse; only our
    # own lines count there.
    err_lines = r.stderr.splitlines()
    if prog == "ina-gen":
        err_lines = [l for l in err_lines if l.startswith(prog + ":")]
    if r.returncode != want_rc:
        return f"exit {r.returncode}, want {want_rc}; stderr: {r.stderr.strip()[:300]!r}"
    if want_rc == 0:
        if "--help" in args and "Usage" not in r.stdout:
            return "no usage on stdout"
        if err_lines:
            return f"stderr not empty: {r.stderr.strip()[:300]!r}"
        return None
    if prog != "ina-gen" and r.stdout:
        return f"stdout not empty: {r.stdout[:200]!r}"
    if len(err_lines) != 1:
        return f"{len(err_lines)} lines on stderr, want 1: {r.stderr[:300]!r}"
    line = err_lines[0]
    if not line.startswith(prog + ": error: "):
        return f"no '{prog}: error: ' prefix: {line!r}"
    if want_text not in line:
        return f"{want_text!r} not in {line!r}"
    return None


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in PROGRAMS:
        print(__doc__)
        return 2
    prog, rows, prefix = PROGRAMS[sys.argv[1]]
    binary = sys.argv[2]
    failures = 0
    with tempfile.TemporaryDirectory(prefix="badin") as tmp:
        os.mkfifo(os.path.join(tmp, "fifo"))
        os.mkdir(os.path.join(tmp, "dir"))
        if prog == "ina-gen":
            probe = subprocess.run([binary, *prefix, f"--file-prefix=badin{os.getpid()}", "--", "--help"],
                                   capture_output=True, text=True, timeout=TIMEOUT_S)
            if probe.returncode != 0:
                print(f"SKIP: the EAL does not start here ({probe.stderr.strip()[-200:]})")
                return 77
        for row in rows:
            why = run_row(binary, prog, prefix, tmp, row)
            print(("ok    " if why is None else "FAIL  ") + f"{prog}: {row[0]}" + ("" if why is None else f": {why}"))
            failures += why is not None
    print(f"{len(rows)} rows, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
