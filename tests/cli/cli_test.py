#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every program's command line follows one convention (docs/cli.md):

  cli_test.py BUILD_DIR SOURCE_ROOT VERSION

For every binary and script: --help and --version exit 0 at once, --version
prints the project's VERSION, --help shows defaults, and neither starts
anything (no DPDK runtime directory, nothing left running, well under the
time a start would take). Then each renamed option is refused with a
one-line hint naming what replaced it. Needs no root.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

PY = "/usr/bin/python3"
# CLI11 writes a default after the type: "--seed UINT=1".
DEFAULT_CLI11 = re.compile(r"^\s+-[-\w,]+ [A-Z]+[^ ]*=\S", re.MULTILINE)
TIMEOUT_S = 30


def programs(build, src):
    """name -> argv prefix."""
    bins = {
        "ina-switchd": [os.path.join(build, "switchd", "ina-switchd")],
        "ina-ps": [os.path.join(build, "ps", "ina-ps")],
        "ina-worker": [os.path.join(build, "workerlib", "ina-worker")],
        "ina-gen": [os.path.join(build, "perf", "switchd_bench", "ina-gen")],
        "ina-goat-plan": [os.path.join(build, "goat", "ina-goat-plan")],
        "ina-sim": [os.path.join(build, "sim", "ns3", "ina-sim")],
        "goat-sim": [os.path.join(build, "sim", "goat_sim", "goat-sim")],
        "pipeline_bench": [os.path.join(build, "perf", "pipeline_bench", "pipeline_bench")],
    }
    out = {k: v for k, v in bins.items() if os.path.exists(v[0])}
    scripts = {
        "scripts/lab": [PY, os.path.join(src, "scripts", "lab")],
        "demo.sh": ["bash", os.path.join(src, "scripts", "demo.sh")],
        "ddp-demo.sh": ["bash", os.path.join(src, "scripts", "ddp-demo.sh")],
        "test.sh": ["bash", os.path.join(src, "scripts", "test.sh")],
        "ina-trace": [PY, os.path.join(src, "tools", "ina-trace")],
        "ina-exporter": [PY, os.path.join(src, "tools", "ina-exporter")],
        "sim-plan": [PY, os.path.join(src, "scripts", "sim-plan")],
        "sim-topology": [PY, os.path.join(src, "scripts", "sim-topology")],
        "sim-leaf-spine": [PY, os.path.join(src, "scripts", "sim-leaf-spine")],
        "sim-vs-lab": [PY, os.path.join(src, "scripts", "sim-vs-lab")],
        "sim-a2tp-fig13": [PY, os.path.join(src, "scripts", "sim-a2tp-fig13")],
    }
    for rel in ("perf/e2e_bench/e2e_bench.py", "perf/e2e_bench/gloo_worker.py",
                "perf/switchd_bench/switchd_bench.py", "perf/lab_figures.py", "perf/host_bench/host_bench.py",
                "perf/figures/figures.py"):
        scripts[os.path.basename(rel)] = [PY, os.path.join(src, rel)]
    out.update(scripts)
    return out


# name, arguments, what stderr must say (exit 2, one line).
OLD_SPELLINGS = [
    ("ina-ps", ["--eal-args", "--no-huge", "--job", "j.toml"], "EAL arguments go before \"--\""),
    ("ina-ps", ["--drop", "0.1", "--job", "j.toml"], "use --host-drop"),
    ("ina-worker", ["--size-mb", "1"], "use --size"),
    ("ina-worker", ["--drop", "0.1"], "use --host-drop"),
    ("ina-worker", ["--job", "1", "--rank", "0", "--workers", "1", "--ps", "10.0.0.1", "--set", "eal_args=-m 64"],
     "EAL arguments go before \"--\""),
    ("ina-switchd", ["--config", "/nonexistent.toml"], "ina-switchd [EAL args] -- --config"),
    ("scripts/lab", ["run", "single-rack", "--switch-arg", "--no-huge"], "after \"--\": scripts/lab up TOPOLOGY"),
    ("scripts/lab", ["run", "single-rack", "--drop", "sw0=0.1"], "use --egress-drop"),
    ("scripts/lab", ["run", "single-rack", "--tensor", "1024"], "use --size"),
    ("host_bench.py", ["--size-mb", "4"], "use --size"),
]


def run(argv, env):
    t0 = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S, env=env,
                       stdin=subprocess.DEVNULL)
    return r, time.monotonic() - t0


def check_help_version(name, argv, version, env, runtime):
    errs = []
    r, took = run(argv + ["--version"], env)
    words = r.stdout.split()
    if r.returncode != 0 or len(words) < 2 or words[1] != version:
        errs.append(f"--version: exit {r.returncode}, want '{name} {version}', got {r.stdout.strip()!r} "
                    f"{r.stderr.strip()[:200]!r}")
    r, took_h = run(argv + ["--help"], env)
    if r.returncode != 0:
        errs.append(f"--help: exit {r.returncode}: {r.stderr.strip()[:300]!r}")
    elif "default" not in r.stdout.lower() and not DEFAULT_CLI11.search(r.stdout):
        errs.append("--help shows no defaults")
    if max(took, took_h) > 10:
        errs.append(f"took {max(took, took_h):.1f} s: something started")
    if os.listdir(runtime):
        errs.append(f"left {os.listdir(runtime)} in the runtime directory (the EAL started)")
    return errs


def check_old(name, argv, args, want, env):
    r, _ = run(argv + args, env)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 2 or len(lines) != 1 or "no longer accepted" not in lines[0] and "goes after" not in lines[0] \
            or want not in lines[0]:
        return [f"{' '.join(args)}: want exit 2 and one line with {want!r}, got exit {r.returncode}: {r.stderr!r}"]
    return []


# The offline checks of a configuration (docs/cli.md): JSON on stdout,
# exit 0, nothing started; written with the files they read.
OFFLINE_CHECKS = [
    ("ina-switchd", "switchd.toml", '[switch]\nip = "10.0.0.254"\n[[port]]\ndevice = "net_null0"\n',
     ["--check-config", "{file}"]),
    ("ina-ps", "job.toml", 'id = 1\nlevels = 1\nfan_in = [2]\n[[worker]]\nip = "10.0.0.1"\nbit = [0]\n',
     ["--check-job", "{file}"]),
    ("ina-worker", None, None,
     ["--check-config", "--job", "1", "--rank", "0", "--workers", "2", "--ps", "10.0.0.100",
      "--transport", "dpdk", "--device", "net_null0"]),
]


def check_offline(name, argv, args, env, runtime):
    r, took = run(argv + args, env)
    try:
        json.loads(r.stdout)
    except ValueError:
        return [f"{' '.join(args)}: exit {r.returncode}, want JSON on stdout: {r.stderr.strip()[:300]!r}"]
    if r.returncode != 0:
        return [f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[:300]!r}"]
    if took > 10 or os.listdir(runtime):
        return [f"{' '.join(args)}: took {took:.1f} s, left {os.listdir(runtime)}: something started"]
    return []


def check_python_units(src, version):
    """lablib.cli: the one parser of sizes and rates on the Python side."""
    sys.path.insert(0, src)
    import pythonpath  # noqa: F401  (the project's Python folders)
    from lablib import cli
    errs = []
    for text, want in (("4096", 4096), ("64K", 64 << 10), ("1M", 1 << 20), ("1.5G", 3 << 29), ("4MiB", 4 << 20)):
        if cli.parse_size(text) != want:
            errs.append(f"parse_size({text!r}) = {cli.parse_size(text)}, want {want}")
    for text in ("", "-1", "1e6", "1X", "0.5"):
        try:
            cli.parse_size(text)
            errs.append(f"parse_size({text!r}) accepted")
        except ValueError:
            pass
    for text, want in (("0.5", 0.5), ("0.5G", 0.5), ("500M", 0.5), ("10Gbps", 10.0)):
        if abs(cli.parse_rate_gbps(text) - want) > 1e-12:
            errs.append(f"parse_rate_gbps({text!r}) = {cli.parse_rate_gbps(text)}, want {want}")
    if cli.project_version() != version:
        errs.append(f"lablib.cli.project_version() = {cli.project_version()}, want {version}")
    print(f"{'FAIL' if errs else 'ok  '} lablib.cli sizes, rates, version")
    for e in errs:
        print(f"     {e}")
    return bool(errs)


def main():
    build, src, version = sys.argv[1:4]
    progs = programs(build, src)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="cli_test-") as tmp:
        runtime = os.path.join(tmp, "run")
        os.mkdir(runtime)
        # DPDK keeps its runtime files under XDG_RUNTIME_DIR when not root.
        env = dict(os.environ, XDG_RUNTIME_DIR=runtime, HOME=tmp)
        for name, argv in progs.items():
            errs = check_help_version(name, argv, version, env, runtime)
            print(f"{'FAIL' if errs else 'ok  '} {name} --help, --version")
            for e in errs:
                print(f"     {e}")
            failed += bool(errs)
        for name, args, want in OLD_SPELLINGS:
            if name not in progs:
                continue
            errs = check_old(name, progs[name], args, want, env)
            print(f"{'FAIL' if errs else 'ok  '} {name} {args[0] if args[0].startswith('-') else args[2]} refused")
            for e in errs:
                print(f"     {e}")
            failed += bool(errs)
        for name, file, text, args in OFFLINE_CHECKS:
            if name not in progs:
                continue
            if file:
                with open(os.path.join(tmp, file), "w", encoding="utf-8") as f:
                    f.write(text)
            args = [x.replace("{file}", os.path.join(tmp, file or "")) for x in args]
            errs = check_offline(name, progs[name], args, env, runtime)
            print(f"{'FAIL' if errs else 'ok  '} {name} {args[0]}")
            for e in errs:
                print(f"     {e}")
            failed += bool(errs)
    failed += check_python_units(src, version)
    if failed:
        print(f"{failed} failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
