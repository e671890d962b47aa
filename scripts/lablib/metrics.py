"""The lab's monitoring (scripts/lab up|run --metrics [--prometheus]).

One tools/ina-exporter per switch (its telemetry socket) and one per PS
host (the statistics file ina-ps writes with --stats-file), each on a free
port of 127.0.0.1; with --prometheus, Debian's prometheus server scraping
them every second, its data in the run directory. They run outside the
lab's namespaces (the telemetry socket and the files are on the machine's
file system), their ids recorded in the state file like every process of
the lab, so `down` stops them; down also removes Prometheus's data.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPORTER = os.path.join(ROOT, "tools", "ina-exporter")
PROMETHEUS = "/usr/bin/prometheus"
SCRAPE_S = 1


class MetricsError(Exception):
    pass


def free_port():
    """A TCP port of 127.0.0.1 nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ps_stats_path(lab, host):
    return os.path.join(lab.run.path, f"ps-{host}.stats.json")


def prometheus_dir(run_path):
    return os.path.join(run_path, "prometheus")


def _start(lab, name, args):
    log = open(os.path.join(lab.run.logs, f"{name}.log"), "ab")
    try:
        p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
    finally:
        log.close()
    lab.state.setdefault("pids", {})[name] = p.pid
    lab.run.save(lab.state)
    return p


def _wait_http(url, p, name, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if p.poll() is not None:
            raise MetricsError(f"{name} exited ({p.returncode}); see its log")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except (OSError, urllib.error.URLError):
            pass
        time.sleep(0.2)
    raise MetricsError(f"{name}: {url} did not answer within {timeout:.0f} s")


def start(lab, plan, prometheus=False, timeout=60.0):
    """Starts the exporters (and Prometheus); returns {target name: URL}
    and Prometheus's URL (or None), also kept in the state file."""
    try:
        import prometheus_client  # noqa: F401
    except ImportError:
        raise MetricsError("--metrics needs python3-prometheus-client (scripts/deps.sh)")
    if prometheus and not os.access(PROMETHEUS, os.X_OK):
        raise MetricsError(f"--prometheus needs {PROMETHEUS} (Debian package prometheus, scripts/deps.sh)")
    targets = {}
    started = []
    for sw in plan["switches"]:
        port = free_port()
        name = f"exporter-{sw['name']}"
        p = _start(lab, name, [sys.executable, EXPORTER, "--metrics-port", str(port),
                               "--switchd", f"{sw['name']}={lab.switch_file_prefix(sw['name'])}"])
        started.append((name, p, port))
        targets[sw["name"]] = f"127.0.0.1:{port}"
    for h in plan["hosts"]:
        if h.get("role") != "ps":
            continue
        port = free_port()
        name = f"exporter-ps-{h['name']}"
        p = _start(lab, name, [sys.executable, EXPORTER, "--metrics-port", str(port),
                               "--ps-stats", f"{h['name']}={ps_stats_path(lab, h['name'])}"])
        started.append((name, p, port))
        targets[f"ps-{h['name']}"] = f"127.0.0.1:{port}"
    for name, p, port in started:
        _wait_http(f"http://127.0.0.1:{port}/metrics", p, name, timeout)
    url = None
    if prometheus:
        url = _start_prometheus(lab, targets, timeout)
    lab.state["metrics"] = {"exporters": {k: f"http://{v}/metrics" for k, v in targets.items()},
                            "prometheus": url}
    lab.run.save(lab.state)
    return lab.state["metrics"]


def _start_prometheus(lab, targets, timeout):
    data = prometheus_dir(lab.run.path)
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    conf = os.path.join(lab.run.conf, "prometheus.yml")
    # honor_labels: the exporters' own `job` label (the INA job id) is kept;
    # without it Prometheus would rename it exported_job and put its scrape
    # job's name there.
    lines = ["global:", f"  scrape_interval: {SCRAPE_S}s", f"  evaluation_interval: {SCRAPE_S}s",
             "scrape_configs:", "  - job_name: ina", "    honor_labels: true", "    static_configs:"]
    for name, addr in sorted(targets.items()):
        lines += [f"      - targets: ['{addr}']", f"        labels: {{target: '{name}'}}"]
    with open(conf, "w") as f:
        f.write("\n".join(lines) + "\n")
    port = free_port()
    p = _start(lab, "prometheus", [PROMETHEUS, f"--config.file={conf}", f"--storage.tsdb.path={data}",
                                   f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"])
    url = f"http://127.0.0.1:{port}"
    _wait_http(url + "/-/ready", p, "prometheus", timeout)
    # Its first scrapes come a few seconds after "ready" (target discovery
    # is batched): wait for them, so that a job started next is seen whole.
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "/api/v1/targets", timeout=5) as r:
                active = json.load(r)["data"]["activeTargets"]
            if len(active) == len(targets) and all(t["health"] == "up" for t in active):
                return url
        except (OSError, ValueError, KeyError):
            pass
        if p.poll() is not None or time.monotonic() > deadline:
            raise MetricsError(f"prometheus: its targets were not all up within {timeout:.0f} s")
        time.sleep(0.5)


def describe(metrics):
    lines = [f"lab: metrics of {k}: {v}" for k, v in sorted(metrics["exporters"].items())]
    if metrics.get("prometheus"):
        lines.append(f"lab: Prometheus UI: {metrics['prometheus']} (scraping every {SCRAPE_S} s)")
    return "\n".join(lines)


def remove(run_path):
    """down: Prometheus's data (the processes are stopped with the lab's)."""
    shutil.rmtree(prometheus_dir(run_path), ignore_errors=True)

