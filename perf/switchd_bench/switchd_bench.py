#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""switchd line-rate benchmark over memif. For each lcore count N:

  ceiling xN   ina-gen <-> ina-gen --forward --one-in W with N lcores, queue k
               of one port to queue k of the other (rx_burst -> tx_burst,
               nothing else; of the workers' side's packets one in W passes
               and the rest are freed, so it sends what a switch that
               aggregates W into one sends): the bare multi-queue memif
               ceiling for N
  switchd xN   ina-gen <-> ina-switchd with N data-path lcores

ina-gen emulates W workers x J jobs (gradients on the workers' port, the PS's
ACKs on the PS port) on N queue pairs per port (queue k carries the
aggregator indices i with i % N == k, the indices switchd's lcore k owns) and
counts what comes back; each run then checks that the path did its work
(check_run: results back and exact, no stall, no drop counter of the
switch above zero) and the benchmark exits 1 when one did not. `mpps_in`
is the rate the device under test took packets from the generator (memif TX is accepted only when the peer has
room, so this is the rate it keeps up with); `mpps_out` what came back.

switchd's telemetry gives, per data-path lcore, the packets it handled
(`lcore_pkts`) and the CPU time it spent in loop rounds that carried packets
(CLOCK_THREAD_CPUTIME_ID, so idle polls and time the OS gave to another
process do not count): `busy_ns_per_pkt` is their sums' ratio, printed beside
pipeline_bench's ns per packet for the same element count (one core, the
pipeline alone): the difference is the appliance's cost over its pipeline.

Runs are interleaved (ceiling x1, switchd x1, ceiling x2, ...) --repeat
times and the median of each kept, so that a burst of other load on a shared
machine hits every configuration alike.

    switchd_bench.py --switchd BUILD/switchd/ina-switchd --gen BUILD/perf/switchd_bench/ina-gen \\
        [--pipeline-bench BUILD/perf/pipeline_bench/pipeline_bench] [--lcores 1,2,4] [--json]
"""
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import pythonpath  # noqa: E402,F401  (the project's Python folders)
from lablib import cli  # noqa: E402


def telemetry(prefix, cmd):
    for attempt in range(5):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect(f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2")
            s.recv(16384)
            s.send(cmd.encode())
            r = json.loads(s.recv(65536).decode())
            s.close()
            return r[cmd.split(",")[0]]
        except OSError:
            if attempt == 4:
                raise
            time.sleep(0.2)


def thread_cpu_ms(pid, comm):
    """CPU time (ms, clock ticks) of process pid's threads named comm."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            if open(f"/proc/{pid}/task/{tid}/comm").read().strip() != comm:
                continue
            f = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(f[11]) + int(f[12])) * 1000 / os.sysconf("SC_CLK_TCK")
    return total


class Scraper:
    """tools/ina-exporter against one switch, scraped every `every_s`
    seconds from a thread, as Prometheus would (--scrape-s)."""

    def __init__(self, prefix, every_s, log, cpus):
        import threading
        import urllib.request
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        tool = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            "tools", "ina-exporter")
        # On the generator's CPUs, as an exporter would run on a housekeeping
        # core: what is measured is what the scrapes cost switchd itself.
        self.proc = subprocess.Popen([sys.executable, tool, "--metrics-port", str(self.port),
                                      "--switchd", prefix], stdout=log, stderr=subprocess.STDOUT,
                                     preexec_fn=lambda: os.sched_setaffinity(0, cpus))
        self.url = f"http://127.0.0.1:{self.port}/metrics"
        deadline = time.time() + 30
        while True:  # serving before the measured time starts
            try:
                urllib.request.urlopen(self.url, timeout=5).read()
                break
            except OSError:
                if time.time() > deadline or self.proc.poll() is not None:
                    sys.exit("scraped: ina-exporter did not serve within 30 s")
                time.sleep(0.1)
        self.every_s, self.scrapes, self.failures, self.lines = every_s, 0, 0, 0
        self.stop_ev = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        import urllib.request
        while not self.stop_ev.wait(self.every_s):
            try:
                with urllib.request.urlopen(self.url, timeout=5) as r:
                    body = r.read().decode()
                # A scrape that read the switch has its job counters.
                if "ina_switchd_job_aggregated_total{" in body:
                    self.scrapes += 1
                    self.lines = body.count("\n")
                else:
                    self.failures += 1
            except OSError:
                self.failures += 1

    def stop(self):
        self.stop_ev.set()
        self.thread.join()
        self.proc.terminate()
        self.proc.wait(timeout=10)


# ina-gen's addresses (perf/switchd_bench/gen.cpp): admission binds each
# worker and the PS to its MAC, so the configuration must name them.
PS_MAC = "02:00:00:ff:00:64"


def worker_mac(j, w):
    return f"02:00:00:{j:02x}:{w:02x}:01"


def switchd_config(tmp, args, cpus, idle_sleep_us):
    s = f"""[switch]
id = 1
ip = "10.1.255.254"
aggregators = {args.aggregators}
elements = {args.elements}
lcores = {cpus}
stats_interval_s = 0
steering = "auto"
idle_sleep_us = {idle_sleep_us}

[[port]]
device = "net_memif0,role=server,socket={tmp}/w.sock"
"""
    for j in range(args.jobs):
        for w in range(args.workers):
            s += f'[[port.neighbour]]\nip = "10.1.{j}.{w + 1}"\nmac = "{worker_mac(j, w)}"\n'
    s += f"""
[[port]]
device = "net_memif1,role=server,socket={tmp}/ps.sock"
[[port.neighbour]]
ip = "10.1.255.100"
mac = "{PS_MAC}"
"""
    for j in range(args.jobs):
        s += f"""
[[job]]
id = {j + 1}
ps_ip = "10.1.255.100"
ps_mac = "{PS_MAC}"
levels = 1
fan_in = [{args.workers}]
"""
        for w in range(args.workers):
            s += f'[[job.worker]]\nip = "10.1.{j}.{w + 1}"\nmac = "{worker_mac(j, w)}"\nbit = [{w}]\n'
    path = os.path.join(tmp, "switchd.toml")
    with open(path, "w") as f:
        f.write(s)
    return path


def placement(args, n):
    """CPUs of the device under test (N, from --dut-cpu on) and of the
    generator (as many lcores as the DUT, on CPUs the DUT does not use first,
    then on the DUT's: on a small machine each CPU then runs one DUT lcore
    and one generator lcore, and no DUT lcore is favoured)."""
    ncpu = os.cpu_count()
    dut = [(args.dut_cpu + i) % ncpu for i in range(n)]
    m = args.gen_lcores or min(n, ncpu)
    free = [c for c in range(ncpu) if c not in dut]
    gen = (free + dut)[:m] if args.gen_cpu is None else [(args.gen_cpu + i) % ncpu for i in range(m)]
    return dut, gen


def lcore_sample(prefix, n):
    return [telemetry(prefix, f"/ina/lcore,{k}") for k in range(n)]


def runtime_sample(prefix):
    """/ina/runtime summed over the lcores: stage -> (calls, packets, cycles)."""
    t = telemetry(prefix, "/ina/runtime")
    return t["tsc_hz"], {k: (v["calls"], v["packets"], v["cycles"]) for k, v in t.items() if isinstance(v, dict)}


def runtime_rows(before, after, busy_ns_per_pkt):
    """Per stage, over the measured window: calls, packets, ns per packet
    of the stage's own packets and ns per packet received (TSC time, which
    counts time the OS gave another thread too), the stage's share of the
    chain's TSC time, and that share of switchd's busy ns per packet (CPU
    time: the stage's part of what a packet costs)."""
    hz, b = before
    a = after[1]
    rx = a["rx"][1] - b["rx"][1]
    total = sum(a[k][2] - b[k][2] for k in a if k != "total")
    rows = {}
    for stage, (calls, pkts, cycles) in a.items():
        if stage == "total":
            continue
        dc, dp, dy = calls - b[stage][0], pkts - b[stage][1], cycles - b[stage][2]
        ns = dy * 1e9 / hz
        share = dy / total if total else 0.0
        rows[stage] = {"calls": dc, "packets": dp, "ns_per_pkt": round(ns / dp, 2) if dp else 0.0,
                       "ns_per_rx_pkt": round(ns / rx, 2) if rx else 0.0, "share": round(share, 4),
                       "busy_ns_per_rx_pkt": round(share * busy_ns_per_pkt, 2) if busy_ns_per_pkt else None}
    return rows


def print_runtime(label, rows):
    """The per-stage table of one run (VPP `show runtime` style), to stderr."""
    print(f"{label}: per stage, summed over lcores (TSC ns per packet of the stage / per packet "
          "received; share of the chain's TSC time; that share of busy ns/pkt)", file=sys.stderr)
    print(f"  {'stage':<10} {'calls':>10} {'packets':>11} {'pkts/call':>9} {'ns/pkt':>8} {'ns/rx pkt':>9} "
          f"{'share':>6} {'busy ns':>8}", file=sys.stderr)
    for stage, r in rows.items():
        per_call = r["packets"] / r["calls"] if r["calls"] else 0
        busy = r["busy_ns_per_rx_pkt"]
        print(f"  {stage:<10} {r['calls']:>10} {r['packets']:>11} {per_call:>9.1f} {r['ns_per_pkt']:>8.2f} "
              f"{r['ns_per_rx_pkt']:>9.2f} {r['share']:>6.3f} {busy if busy is not None else '-':>8}",
              file=sys.stderr)
    print(f"  {'chain':<10} {'':>10} {'':>11} {'':>9} {'':>8} "
          f"{sum(r['ns_per_rx_pkt'] for r in rows.values()):>9.2f}", file=sys.stderr)


# What a clean run of ina-gen's traffic never does: drop, refuse or detour a
# packet. Every *_drops counter, every malformed_* one, and the pipeline's
# and the lcores' other deviations from the aggregate-complete-ACK cycle.
DEVIATIONS = {"no_route", "flood_no_port", "unregistered_job", "malformed", "misrouted", "collision",
              "share_refusals", "duplicate", "ack_unmatched", "resend_merged", "resend_flushed",
              "resend_forwarded", "overflow", "past_levels", "bypass", "float_forwarded"}


def deviations(counters):
    """The non-zero counters of `counters` (a dict) that a clean run keeps at 0."""
    return {k: v for k, v in counters.items()
            if isinstance(v, int) and v and (k.endswith("_drops") or k.startswith("malformed")
                                            or k in DEVIATIONS)}


def check_run(kind, r, args, n, dut_out, counters):
    """Whether the run did the work it claims to measure: a list of problems
    (empty when it did). The generator's totals cover the whole run; what
    may still be on its way when the generator reports is at most a window
    of fragments per job and what the memif rings hold."""
    w, jobs = args.workers, args.jobs
    rings = 2 * 1024 * n  # memif rings of one direction, both hops
    p = []
    if kind == "ceiling":
        fwd = next((ln.split() for ln in dut_out.splitlines() if ln.startswith("forwarded ")), None)
        if not fwd:
            return ["the forwarder printed no totals"]
        # Open loop: the forwarder drops (and counts) what the return ring
        # has no room for; more than 1 % would make the ceiling a drop rate.
        # It passes one in W gradients, as a switch that aggregates W into one.
        fwd, drops = int(fwd[1]), int(fwd[3])
        r["forwarder_drops"] = drops
        if drops > 0.01 * (fwd + drops):
            p.append(f"the forwarder dropped {drops} of {fwd + drops} packets")
        back = r["total_rx_ps_side"] + r["total_rx_workers_side"] + drops
        sent = r["total_gradients"] // w + r["total_acks"]
        if back < sent - rings:
            p.append(f"{sent} packets due back (one in {w} gradients, every ACK), {back} came "
                     "back or were dropped")
        return p
    if not r["results"]:
        p.append("no result came back")
    if r["results_wrong"]:
        p.append(f"{r['results_wrong']} of {r['results']} results are not the exact sum")
    if r["window_stalls"]:
        p.append(f"{r['window_stalls']} window stalls (results lost)")
    if r["foreign_results"]:
        p.append(f"{r['foreign_results']} results on another queue than their fragment's")
    expected = r["total_gradients"] // w
    if r["results"] < expected - jobs * (args.window + 1):
        p.append(f"{r['results']} results for {r['total_gradients']} gradients of {w} workers "
                 f"(closed loop: at least {expected - jobs * (args.window + 1)})")
    # Every worker is behind the one workers' port: one copy per ACK, to the
    # job's group address (docs/switchd.md, "Multicast").
    if r["total_rx_workers_side"] < r["total_acks"] - rings:
        p.append(f"{r['total_rx_workers_side']} parameter copies came back for {r['total_acks']} ACKs")
    bad = {}
    for c in counters:
        for k, v in deviations(c).items():
            bad[k] = bad.get(k, 0) + v
    if bad:
        p.append("switch counters: " + " ".join(f"{k}={v}" for k, v in sorted(bad.items())))
    return p


def wait_ready(dut, log, text, kind):
    deadline = time.time() + 60
    while text not in open(log).read():
        if dut.poll() is not None or time.time() > deadline:
            sys.exit(f"{kind}: the device under test did not start:\n{open(log).read()[-2000:]}")
        time.sleep(0.1)


def stop(proc, timeout=20):
    proc.send_signal(2)
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()


def run(args, kind, n):
    """One run of `kind` ("ceiling", "switchd", or "scraped": switchd with
    ina-exporter scraped every --scrape-s seconds) with n lcores / queues."""
    dut_cpus, gen_cpus = placement(args, n)
    # Where the generator shares CPUs with the device under test, an idle
    # lcore of the DUT (switchd or the bare forwarder alike) yields its CPU
    # (idle_sleep_us) instead of spinning against the generator.
    idle_sleep = args.idle_sleep_us if set(dut_cpus) & set(gen_cpus) else 0
    eal = ["--no-huge", "--no-pci", "--log-level", "*:error"]
    with tempfile.TemporaryDirectory(prefix="swbench") as tmp:
        tag = f"{os.getpid()}{kind}{n}"
        log = os.path.join(tmp, "dut.log")
        with open(log, "w") as dut_log:
            if kind == "ceiling":
                prefix = None
                dut = subprocess.Popen(
                    [args.gen, "-m", "256", "-l", ",".join(map(str, dut_cpus)), "--file-prefix",
                     f"f{tag}"] + eal +
                    ["--vdev", f"net_memif0,role=server,socket={tmp}/w.sock",
                     "--vdev", f"net_memif1,role=server,socket={tmp}/ps.sock", "--", "--forward",
                     "--queues", str(n), "--idle-sleep-us", str(idle_sleep),
                     "--one-in", str(args.workers)], stdout=dut_log, stderr=subprocess.STDOUT, text=True)
            else:
                prefix = f"s{tag}"
                dut = subprocess.Popen(
                    os.environ.get("SWITCHD_BENCH_WRAP", "").split() +
                    [args.switchd, "-m", "512", "--file-prefix", prefix] + eal +
                    ["--", "--config", switchd_config(tmp, args, dut_cpus, idle_sleep)],
                    stdout=dut_log, stderr=subprocess.STDOUT, text=True)
        # The generator (memif client) starts once the server is up.
        wait_ready(dut, log, "] ready" if prefix else "forwarding", kind)
        scraper = Scraper(prefix, args.scrape_s, open(os.path.join(tmp, "exporter.log"), "w"), gen_cpus) \
            if kind == "scraped" else None
        # What the scrapes cost switchd: its telemetry thread answers them.
        tel_cpu0 = thread_cpu_ms(dut.pid, "telemetry-v2") if scraper else 0
        gen = subprocess.Popen(
            [args.gen, "-m", str(256 + 64 * n), "-l", ",".join(map(str, gen_cpus)), "--file-prefix",
             f"g{tag}"] + eal +
            ["--vdev", f"net_memif0,role=client,socket={tmp}/w.sock",
             "--vdev", f"net_memif1,role=client,socket={tmp}/ps.sock",
             "--", "--workers", str(args.workers), "--jobs", str(args.jobs),
             "--elements", str(args.elements), "--aggregators", str(args.aggregators),
             "--window", str(args.window), "--duration", str(args.duration),
             "--warmup", str(args.warmup), "--json", "--label", kind, "--queues", str(n), "--hold"] +
            # The bare forwarder does not aggregate, so no result would earn an
            # ACK: it gets the same packet mix open loop.
            (["--open-loop"] if kind == "ceiling" else []),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        before = after = None
        ports = []
        out = ""
        try:
            time.sleep(args.warmup + 0.5)
            if prefix:
                before = lcore_sample(prefix, n)
                rt_before = runtime_sample(prefix)
            # The result line comes while ina-gen still holds its ports (--hold).
            deadline = time.time() + args.duration + args.warmup + 90
            while time.time() < deadline and gen.poll() is None:
                if select.select([gen.stdout], [], [], 0.2)[0]:
                    out = gen.stdout.readline()
                    break
            if prefix:
                after = lcore_sample(prefix, n)
                rt_after = runtime_sample(prefix)
                ports = [telemetry(prefix, f"/ina/port,{k}") for k in range(2)]
        finally:
            if scraper:
                scraper.stop()
                tel_cpu = thread_cpu_ms(dut.pid, "telemetry-v2") - tel_cpu0
            # The device under test stops polling and closes first, then the generator.
            stop(dut)
            dut_out = open(log).read()
            err = stop(gen)[1]
        if dut.returncode != 0:
            sys.exit(f"{kind}: the device under test failed ({dut.returncode}):\n{dut_out[-2000:]}")
        if gen.returncode != 0 or not out.strip():
            sys.exit(f"{kind}: ina-gen failed: {err.strip()[-2000:]}\n{dut_out[-2000:]}")
        r = json.loads(out.strip().splitlines()[-1])
        r.update({"lcores": n, "dut_cpus": dut_cpus, "gen_cpus": gen_cpus, "idle_sleep_us": idle_sleep})
        r["problems"] = check_run(kind, r, args, n, dut_out, (after + ports) if prefix else [])
        if not prefix:
            # The forwarder's own busy clock (switchd's, busy_clock.h) over
            # the packets it received: the I/O's share of a packet.
            fwd = next((ln.split() for ln in dut_out.splitlines() if ln.startswith("forwarded ")), None)
            if fwd and len(fwd) >= 10 and int(fwd[7]):
                r["busy_ns_per_pkt"] = round(int(fwd[9]) / int(fwd[7]), 2)
        if scraper:
            # The scraper did its work: a scrape a second (at least half of
            # them in the measured time), each with the job counters.
            r["scrapes"], r["scrape_failures"], r["scrape_lines"] = \
                scraper.scrapes, scraper.failures, scraper.lines
            r["telemetry_cpu_ms"] = tel_cpu
            if scraper.scrapes < max(1, args.duration / args.scrape_s / 2) or scraper.failures:
                r["problems"].append(f"scraper: {scraper.scrapes} scrapes, {scraper.failures} failed")
        if prefix:
            d = [{k: a[k] - b[k] for k in ("packets", "busy_ns", "handoff_out")}
                 for a, b in zip(after, before)]
            pkts = sum(x["packets"] for x in d)
            r["lcore_pkts"] = [x["packets"] for x in d]
            r["lcore_handoff_out"] = [x["handoff_out"] for x in d]
            r["busy_ns_per_pkt"] = round(sum(x["busy_ns"] for x in d) / pkts, 2) if pkts else None
            r["runtime"] = runtime_rows(rt_before, rt_after, r["busy_ns_per_pkt"])
            print_runtime(f"switchd x{n}", r["runtime"])
            for line in dut_out.splitlines():
                if "steering:" in line:
                    r["steering"] = line.split("steering: ", 1)[1].strip()
        return r


def pipeline_ns(args):
    """pipeline_bench's ns per packet for the same element count, best SIMD path."""
    if not args.pipeline_bench:
        return None
    out = subprocess.run([args.pipeline_bench, "-w", str(args.workers), "-j", str(args.jobs),
                          "-a", str(args.aggregators), "-e", str(args.elements), "-t", "1", "--json"],
                         capture_output=True, text=True, check=True).stdout
    return min(r["ns_per_packet"] for r in json.loads(out))


def main():
    ap = cli.parser("switchd_bench.py", __doc__)
    ap.add_argument("--switchd", required=True, help="ina-switchd binary")
    ap.add_argument("--gen", required=True, help="ina-gen binary")
    ap.add_argument("--pipeline-bench", help="pipeline_bench binary: its ns/packet beside switchd's")
    ap.add_argument("--workers", type=int, default=4, help="workers per job (fan-in)")
    ap.add_argument("--jobs", type=int, default=2, help="jobs")
    ap.add_argument("--elements", type=int, default=62, help="int32 elements per packet")
    ap.add_argument("--aggregators", type=int, default=4096, help="switch aggregators")
    ap.add_argument("--window", type=int, default=256, help="fragments in flight per job")
    ap.add_argument("--duration", type=float, default=4.0, help="measured seconds per run")
    ap.add_argument("--warmup", type=float, default=1.0, help="seconds before measuring")
    ap.add_argument("--dut-cpu", type=int, default=1, help="first CPU of the device under test")
    ap.add_argument("--gen-cpu", type=int, help="first CPU of the generator (default: CPUs the DUT "
                    "does not use, then the DUT's)")
    ap.add_argument("--gen-lcores", type=int, help="generator lcores (default: N)")
    ap.add_argument("--idle-sleep-us", type=int, default=20,
                    help="the DUT's idle sleep (switchd's idle_sleep_us, the forwarder's "
                    "--idle-sleep-us) when it shares CPUs with the generator")
    ap.add_argument("--lcores", default="1,2", help="lcore counts to run (those above the CPU count are left out)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each configuration (median kept)")
    ap.add_argument("--scrape-s", type=float, default=0.0,
                    help="also run switchd scraped by tools/ina-exporter every this many seconds, "
                         "interleaved with the unscraped runs: `scrape_ratio` is scraped / unscraped "
                         "mpps_in (0: no scraped runs)")
    ap.add_argument("--json", action="store_true", help="one JSON object per line per configuration")
    args = ap.parse_args()
    if args.scrape_s < 0 or args.scrape_s != args.scrape_s:
        ap.error(f"--scrape-s {args.scrape_s}: want 0 or more seconds")
    if os.geteuid() != 0:
        sys.exit("switchd_bench: needs root (DPDK memif sockets, telemetry)")
    counts = [int(x) for x in args.lcores.split(",") if int(x) <= os.cpu_count()]

    kinds = ("ceiling", "switchd") + (("scraped",) if args.scrape_s else ())
    runs = {(k, n): [] for n in counts for k in kinds}
    for _ in range(args.repeat):
        for n in counts:
            for kind in kinds:
                runs[(kind, n)].append(run(args, kind, n))

    def median(rs):
        return sorted(rs, key=lambda r: r["mpps_in"])[len(rs) // 2]

    p_ns = pipeline_ns(args)
    results = []
    for n in counts:
        c, r = median(runs[("ceiling", n)]), median(runs[("switchd", n)])
        pk = sum(r["lcore_pkts"])
        r.update({"ceiling_mpps": c["mpps_in"],
                  "ceiling_busy_ns_per_pkt": c.get("busy_ns_per_pkt"),
                  "ratio": round(r["mpps_in"] / c["mpps_in"], 3) if c["mpps_in"] else None,
                  "lcore_share": [round(x / pk, 3) if pk else None for x in r["lcore_pkts"]],
                  "pipeline_ns_per_pkt": p_ns,
                  "runs_mpps_in": [x["mpps_in"] for x in runs[("switchd", n)]],
                  "runs_ceiling_mpps": [x["mpps_in"] for x in runs[("ceiling", n)]],
                  "runs_busy_ns_per_pkt": [x["busy_ns_per_pkt"] for x in runs[("switchd", n)]],
                  "runs_ceiling_busy_ns_per_pkt": [x.get("busy_ns_per_pkt") for x in runs[("ceiling", n)]]})
        # What switchd adds over the bare forwarder's I/O, and that against
        # the pipeline alone (the goal: at most 2x).
        if r["busy_ns_per_pkt"] is not None and r["ceiling_busy_ns_per_pkt"]:
            r["added_ns_per_pkt"] = round(r["busy_ns_per_pkt"] - r["ceiling_busy_ns_per_pkt"], 2)
            if p_ns:
                r["added_vs_pipeline"] = round(r["added_ns_per_pkt"] / p_ns, 2)
        if args.scrape_s:
            sc = median(runs[("scraped", n)])
            r.update({"scraped_mpps": sc["mpps_in"], "scrape_s": args.scrape_s, "scrapes": sc["scrapes"],
                      "scrape_ratio": round(sc["mpps_in"] / r["mpps_in"], 3) if r["mpps_in"] else None,
                      "scraped_busy_ns_per_pkt": sc["busy_ns_per_pkt"],
                      "telemetry_cpu_ms_per_scrape": round(sum(x["telemetry_cpu_ms"] for x in runs[("scraped", n)]) /
                                                           max(1, sum(x["scrapes"] for x in runs[("scraped", n)])), 3),
                      "runs_scraped_busy_ns_per_pkt": [x["busy_ns_per_pkt"] for x in runs[("scraped", n)]],
                      "runs_scraped_mpps": [x["mpps_in"] for x in runs[("scraped", n)]]})
        results.append(r)
    base = results[0] if results else None
    for r in results:
        if base and base["mpps_in"]:
            r["scaling_vs_1"] = round(r["mpps_in"] / base["mpps_in"], 3)
    failed = [f"{k} x{n} run {i + 1}: {p}" for (k, n), rs in runs.items() for i, r in enumerate(rs)
              for p in r["problems"]]
    if args.json:
        for r in results:
            print(json.dumps(r))
    else:
        print_table(args, p_ns, results)
    for f in failed:
        print(f"switchd_bench: FAILED {f}", file=sys.stderr)
    return 1 if failed else 0


def print_table(args, p_ns, results):
    print(f"workers {args.workers} x jobs {args.jobs}, {args.elements} elements, {os.cpu_count()} CPUs, "
          f"median of {args.repeat}; pipeline alone: "
          f"{p_ns if p_ns is not None else '(no --pipeline-bench)'} ns/pkt")
    print(f"{'lcores':>6} {'ceiling':>8} {'switchd':>8} {'ratio':>6} {'scale':>6} {'busy ns/pkt':>11} "
          f"{'ceiling ns':>10} {'added':>7} {'lcore shares':>16}  CPUs (dut | gen)")
    for r in results:
        print(f"{r['lcores']:>6} {r['ceiling_mpps']:>8.3f} {r['mpps_in']:>8.3f} {r['ratio']:>6.2f} "
              f"{r.get('scaling_vs_1', 0):>6.2f} {r['busy_ns_per_pkt']:>11} "
              f"{str(r.get('ceiling_busy_ns_per_pkt')):>10} {str(r.get('added_ns_per_pkt')):>7} "
              f"{' '.join(str(s) for s in r['lcore_share']):>16}  {r['dut_cpus']} | {r['gen_cpus']}")
        print(f"       steering: {r.get('steering', '?')}; handed off {r['lcore_handoff_out']}; "
              f"runs {r['runs_mpps_in']} vs ceiling {r['runs_ceiling_mpps']}")
        if "scrape_ratio" in r:
            print(f"       scraped every {r['scrape_s']} s ({r['scrapes']} scrapes; switchd's telemetry thread "
                  f"{r['telemetry_cpu_ms_per_scrape']} ms CPU per scrape): {r['scraped_mpps']:.3f} Mpps, "
                  f"{r['scrape_ratio']:.3f}x unscraped, busy ns/pkt {r['scraped_busy_ns_per_pkt']}; "
                  f"runs {r['runs_scraped_mpps']}, busy ns/pkt {r['runs_scraped_busy_ns_per_pkt']} "
                  f"(unscraped {r['runs_busy_ns_per_pkt']})")


if __name__ == "__main__":
    sys.exit(main())
