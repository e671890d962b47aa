#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/lab run single-rack --metrics --prometheus, checked through
Prometheus's HTTP API:

    metrics_test.py --build DIR

The lab runs the topology's job with the exporters (tools/ina-exporter) and
Debian's prometheus server, and is kept up (--keep) for the queries. Asserted:
the run succeeds and prints the exporters' and Prometheus's addresses; every
scrape target is up; /api/v1/query of the job's fragments completed in the
switch (ina_switchd_job_completed_total) and its gradients aggregated equal
what the switch's own telemetry (/ina/job,1) says, and are not 0; the drops by
reason series exist; with ina-ps --stats-file, the PS's completed fragments
equal those of its report. Then `scripts/lab down` must leave no exporter,
no prometheus, no data directory and no namespace. Exit 0 pass, 1 fail, 77
skip (not root, binaries or prometheus missing). Its own namespace prefix;
everything is removed also when it fails.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)
from lablib import metrics, procs, telemetry  # noqa: E402

SKIP = 77
PREFIX = f"inalabm{os.getpid() % 10000000}"
LAB = [sys.executable, os.path.join(ROOT, "scripts", "lab"), "--prefix", PREFIX]


class Failed(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failed(msg)
    print(f"ok    {msg}", flush=True)


def query(url, promql):
    q = urllib.parse.urlencode({"query": promql})
    with urllib.request.urlopen(f"{url}/api/v1/query?{q}", timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise Failed(f"{promql}: {body}")
    return body["data"]["result"]


def one_value(url, promql):
    res = query(url, promql)
    return float(res[0]["value"][1]) if len(res) == 1 else None


def wait_equal(url, promql, want, timeout=30.0):
    """Prometheus's latest sample of `promql` once it equals `want` (the
    scrape after the run's last packet may be a second away)."""
    deadline = time.monotonic() + timeout
    got = None
    while time.monotonic() < deadline:
        got = one_value(url, promql)
        if got == want:
            break
        time.sleep(0.5)
    return got


def run_test(build):
    run = subprocess.run(LAB + ["run", "single-rack", "--build", build, "--metrics", "--prometheus", "--keep",
                                "--json", "--size", "256K", "--iterations", "2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
    sys.stderr.write(run.stderr[-3000:])
    check(run.returncode == 0, f"scripts/lab run --metrics --prometheus exits 0 ({run.returncode})")
    report = json.loads(run.stdout)
    state = procs.RunDir(os.path.join("/tmp/inalab", PREFIX)).load()
    m = state.get("metrics") or {}
    url = m.get("prometheus")
    check(url and f"Prometheus UI: {url}" in run.stderr, f"the Prometheus UI address is printed ({url})")
    check(sorted(m.get("exporters", {})) == ["ps-ps0", "sw0"] and
          all(f"metrics of {k}: {v}" in run.stderr for k, v in m["exporters"].items()),
          f"one exporter per switch and PS, addresses printed ({m.get('exporters')})")
    with urllib.request.urlopen(f"{url}/api/v1/targets", timeout=10) as r:
        targets = json.load(r)["data"]["activeTargets"]
    check(len(targets) == 2 and all(t["health"] == "up" for t in targets),
          f"Prometheus scrapes both exporters ({[(t['scrapeUrl'], t['health']) for t in targets]})")

    tel = telemetry.snapshot(f"{PREFIX}sw0")
    t = telemetry.Telemetry(f"{PREFIX}sw0")
    try:
        job = t.cmd("/ina/job,1")
    finally:
        t.close()
    for counter in ("completed", "aggregated"):
        promql = f'ina_switchd_job_{counter}_total{{switch="sw0",job="1"}}'
        got = wait_equal(url, promql, float(job[counter]))
        check(job[counter] > 0 and got == job[counter],
              f"Prometheus's {promql} = {got}, the switch's /ina/job,1 {counter} = {job[counter]}")
    reasons = query(url, 'ina_switchd_drops_total{switch="sw0"}')
    check(len(reasons) > 5 and all("reason" in r["metric"] for r in reasons),
          f"drops by reason: {len(reasons)} series")
    summary_rx = tel["summary"]["rx_packets"]
    got = wait_equal(url, 'ina_switchd_rx_packets_total{switch="sw0"}', float(summary_rx))
    check(got == summary_rx, f"the switch's rx_packets: Prometheus {got}, /ina/summary {summary_rx}")

    # The PS side: ina-ps --stats-file, last written when it stopped.
    ps_completed = report["jobs"][0].get("ps_completed")
    got = wait_equal(url, 'ina_ps_job_completed_total{ps="ps0",job="1"}', float(ps_completed or -1))
    check(ps_completed and got == ps_completed,
          f"the PS's completed fragments: Prometheus {got}, ina-ps's report {ps_completed}")
    return state


def check_down(state):
    r = subprocess.run(LAB + ["down"], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"scripts/lab down exits 0 ({r.stderr.strip()[-300:]})")
    pids = {n: p for n, p in state.get("pids", {}).items() if n.startswith(("exporter", "prometheus"))}
    check(len(pids) == 3 and not [n for n, p in pids.items() if procs.pid_alive(p)],
          f"down stopped the exporters and Prometheus ({sorted(pids)})")
    check(not os.path.exists(metrics.prometheus_dir(state["run_dir"])),
          "down removed Prometheus's data")
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    check(PREFIX + "-" not in left, "no namespace of the lab is left")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True, help="meson build directory")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: needs root (namespaces)")
        return SKIP
    if not os.access(metrics.PROMETHEUS, os.X_OK):
        print(f"SKIP: no {metrics.PROMETHEUS} (scripts/deps.sh installs prometheus)")
        return SKIP
    state = {}
    try:
        state = run_test(os.path.abspath(args.build))
        check_down(state)
        print("PASS")
        return 0
    except (Failed, subprocess.TimeoutExpired, OSError, ValueError, KeyError) as e:
        print(f"FAIL: {e}", flush=True)
        log_dir = os.path.join("/tmp/inalab", PREFIX, "logs")
        for name in ("exporter-sw0", "exporter-ps-ps0", "prometheus"):
            p = os.path.join(log_dir, f"{name}.log")
            if os.path.exists(p):
                print(f"--- {name}.log\n" + open(p, errors="replace").read()[-1500:])
        return 1
    finally:
        subprocess.run(LAB + ["down"], capture_output=True, timeout=120)
        shutil.rmtree(os.path.join("/tmp/inalab", PREFIX), ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
