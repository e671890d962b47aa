#!/usr/bin/python3
"""End-to-end lab tests: real namespaces, veth pairs, ina-switchd, ina-ps and
ina-worker processes, driven by scripts/lab (the same tool users run).

  lab_test.py --build DIR tool                 lab tool: up/ping/status/down, cleanup, errors
  lab_test.py --build DIR topology NAME        NAME aggregates exactly through switchd
  lab_test.py --build DIR two-level-ratio      PS bytes: rack-scale / two-level >= 2.5
  lab_test.py --build DIR loss RATE            random drop at a switch port, exact results
  lab_test.py --build DIR kill-worker          GC frees a dead job's aggregators, other job ends
  lab_test.py --build DIR restart-switch       switchd killed and restarted mid-job
  lab_test.py --build DIR restart-ps           ina-ps killed and started again mid-job
  lab_test.py --build DIR spoof                another job's id from a foreign host
  lab_test.py --build DIR hoard                a job's worker hoards aggregators: job_share
  lab_test.py --build DIR forge                1 M forged results for another job
  lab_test.py --build DIR hijack               forged control messages for another job
  lab_test.py --build DIR jumbo                768-element fragments (3158-byte frames)
  lab_test.py --build DIR jumbo_shaped         the same through 0.2 Gb/s links with ECN
  lab_test.py --build DIR background           TCP and UDP iperf3 flows beside a job, through switchd
  lab_test.py --build DIR goat-vs-atp          GOAT plan over two switches vs ATP's first switch
  lab_test.py --build DIR goat-split           GOAT plan splitting sub-models between nodes
  lab_test.py --build DIR udp-hosts            workers and PS on kernel UDP sockets
  lab_test.py --build DIR e2e-bench            perf/e2e_bench's three modes, one after another

Exit 0 pass, 1 fail, 77 skip with the reason (not root, or ina-switchd not
built: a build without DPDK). Each test
uses its own namespace prefix and removes everything it made, also when it
fails or is interrupted.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LAB = os.path.join(ROOT, "scripts", "lab")
SKIP = 77
# scripts/lablib/topology.py AUTO_ELEMENTS: the switches' size where a
# topology names none.
AUTO_ELEMENTS = 768

PREFIX = f"inalabt{os.getpid() % 10000000}"
DRIVER = os.environ.get("INA_LAB_DRIVER", "auto")


class Failed(Exception):
    pass


class Skipped(Exception):
    """The test cannot run here (the reason): exit 77, never a pass."""


def check(cond, msg):
    if not cond:
        raise Failed(msg)


def lab(*args, timeout=300, check_rc=True):
    """Runs scripts/lab with this test's prefix; returns (rc, stdout, stderr)."""
    cmd = ["/usr/bin/python3", LAB, "--prefix", PREFIX] + list(args)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    if check_rc and p.returncode != 0:
        raise Failed(f"scripts/lab {' '.join(args)} exited {p.returncode}: "
                     f"{(p.stderr.strip().splitlines() or [''])[-1]}")
    return p.returncode, p.stdout, p.stderr


def run(topology, build, *extra, timeout=120):
    """scripts/lab run ... --json; returns the report. `timeout` is a deadline
    for the jobs, generous: a loaded machine makes them slow, not wrong."""
    rc, out, err = lab("run", topology, "--build", build, "--driver", DRIVER, "--json",
                       "--timeout", str(timeout), *extra, timeout=timeout + 60, check_rc=False)
    try:
        report = json.loads(out)
    except ValueError:
        raise Failed(f"scripts/lab run {topology} printed no report (exit {rc}): "
                     f"{(err.strip().splitlines() or [''])[-1]}")
    for line in err.splitlines():
        if line.startswith(("lab: fault", "lab: timeout", "lab: job ")):
            print(line)
    return report


def show(report):
    for j in report["jobs"]:
        print(f"  job {j['id']} {j['name']}: finished {j['finished']}, exits {j['exits']}, "
              f"max error {j['max_abs_error']} (bound {j['error_bound']}), in switch "
              f"{j['share_switch']}, PS packets {j['ps_packets']} (resent {j['ps_retransmits']}), "
              f"collisions {j['collisions_switch']}, retransmits {j['retransmits']}, "
              f"admission drops {j['admission_drops']}, GC frees {j['gc_frees']}")
    for name, s in report["switches"].items():
        print(f"  switch {name}: {json.dumps(s)}")


def assert_exact(report, job=None):
    for j in report["jobs"]:
        if job is not None and j["id"] != job:
            continue
        check(j["finished"], f"job {j['id']} did not finish: {j.get('errors')}")
        check(j["within_bound"] and j["max_abs_error"] is not None and
              j["max_abs_error"] <= j["error_bound"],
              f"job {j['id']}: largest error {j['max_abs_error']} above the quantization "
              f"bound {j['error_bound']}")


def _job_counter(report, switch, job, key):
    return ((report["switches"][switch].get("jobs") or {}).get(str(job)) or {}).get(key)


def namespaces():
    out = subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(PREFIX + "-")]


# ---- tests ---------------------------------------------------------------

def t_tool(build):
    # A bad topology is one clear line, and nothing is left behind.
    bad = os.path.join("/tmp", f"{PREFIX}-bad.toml")
    with open(bad, "w") as f:
        f.write('[[switch]]\nname = "sw0"\nspeed = 3\n')
    rc, _, err = lab("up", bad, "--datapath", "kernel", check_rc=False)
    os.unlink(bad)
    check(rc == 1 and "unknown key 'speed'" in err and len(err.strip().splitlines()) == 1,
          f"bad topology: want one error line naming the key, got rc {rc}: {err!r}")
    check(not namespaces(), "namespaces left after a failed up")

    # Plain veth + Linux bridge: every host reaches every other host.
    lab("up", "two-level", "--datapath", "kernel")
    check(len(namespaces()) == 10, f"two-level: want 10 namespaces, got {namespaces()}")
    rc, out, _ = lab("ping")
    check("all 42 host pairs" in out, f"kernel data path ping: {out.strip()}")
    rc, out, _ = lab("status", "--json")
    st = json.loads(out)
    check(st["topology"] == "two-level" and len(st["namespaces"]) == 10, f"status: {st}")
    # down is idempotent.
    lab("down")
    lab("down")
    check(not namespaces(), f"namespaces left after down: {namespaces()}")

    # Through ina-switchd. Without it the test has checked only half of what
    # it names, so it is a skip, not a pass.
    if not os.path.exists(os.path.join(build, "switchd", "ina-switchd")):
        raise Skipped("ina-switchd not built (a build without DPDK): the kernel data path "
                      "passed, the switchd half did not run")
    # EAL arguments for every switch follow "--" (docs/lab.md).
    lab("up", "single-rack", "--build", build, "--driver", DRIVER, "--", "--log-level=lib.eal:notice")
    rc, out, _ = lab("ping")
    check("all 20 host pairs" in out, f"ping through ina-switchd: {out.strip()}")
    rc, out, _ = lab("status", "--json")
    st = json.loads(out)
    snap = st["switches"].get("sw0", {})
    check("summary" in snap and snap["summary"].get("rx_packets", 0) >= 40,
          f"switch telemetry: {snap}")
    pid = st["processes"]["switchd-sw0"]["pid"]

    # A run interrupted by SIGINT cleans up after itself (a crashed run's
    # leftovers are removed by the next up/down with the prefix).
    p = subprocess.Popen(["/usr/bin/python3", LAB, "--prefix", PREFIX, "up", "single-rack",
                          "--build", build, "--driver", DRIVER],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(0.8)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    check(p.returncode in (0, 130), f"interrupted up exited {p.returncode}: {err}")
    if p.returncode == 130:
        check(not namespaces(), f"namespaces left after SIGINT: {namespaces()}")
    lab("down")
    check(not namespaces(), "namespaces left after down")
    try:
        os.kill(pid, 0)
        raise Failed(f"ina-switchd {pid} still runs after down")
    except ProcessLookupError:
        pass


def t_topology(build, name):
    extra = []
    if name == "multi-tenant":
        extra = ["--size", "1M"]
    r = run(name, build, "--iterations", "2", *extra)
    show(r)
    assert_exact(r)
    # No `elements` in these topologies: the PS sized each job from its
    # interface and the switch's ACK, the workers asked the PS
    # (docs/lab.md, "Fragment size").
    for j in r["jobs"]:
        check(j["elements"] == AUTO_ELEMENTS,
              f"job {j['id']}: fragments of {j['elements']} elements, want the path's {AUTO_ELEMENTS}")
    # Alone on its switches a job completes most fragments in the network; two
    # jobs fighting over 256 aggregators split them first come, first served,
    # so there each only has to get some.
    least = 0.0 if name == "multi-tenant" else 0.3
    for j in r["jobs"]:
        check(j["share_switch"] is not None and j["share_switch"] > least,
              f"job {j['id']}: {j['share_switch']} of the fragments aggregated in the switch, "
              f"want more than {least}")
    if name == "multi-tenant":
        check(sum(j["collisions_switch"] for j in r["jobs"]) > 0,
              "multi-tenant: no collisions although the jobs want more aggregators than exist")


def t_jumbo(build):
    # A size the topology names is every party's: 62 (a Tofino's) on a lab
    # whose default is 768.
    r = run("single-rack", build, "--iterations", "2", "--elements", "62")
    show(r)
    assert_exact(r)
    j = r["jobs"][0]
    check(j["elements"] == 62, f"fragments of {j['elements']} elements with --elements 62")
    check(j["share_switch"] is not None and j["share_switch"] > 0.3,
          f"{j['share_switch']} of the 62-element fragments aggregated in the switch")


def t_af_packet(build):
    # The fallback driver carries the path's fragments too: net_af_packet's
    # default 2048-byte ring frames cut 768 elements' 3158-byte frames short
    # (every fragment a malformed drop); the lab sizes its ring for the
    # links' MTU (scripts/lablib/render.py, af_packet_ring).
    r = run("single-rack", build, "--iterations", "2", "--driver", "af_packet")
    show(r)
    assert_exact(r)
    j = r["jobs"][0]
    check(j["elements"] == AUTO_ELEMENTS,
          f"fragments of {j['elements']} elements on af_packet ports, want the path's {AUTO_ELEMENTS}")
    sw = r["switches"]["sw0"]
    check(sw["malformed"] == 0, f"{sw['malformed']} malformed drops: frames cut short by the ring")
    check(j["share_switch"] is not None and j["share_switch"] > 0.3,
          f"{j['share_switch']} of the fragments aggregated in the switch on af_packet ports")


def t_worker_trace(build):
    # A job's trace_ms: every worker's counters sampled on that grid
    # (ina-worker --trace), in the report as the job's traces.
    src = os.path.join(ROOT, "config", "labs", "single-rack.toml")
    with open(src) as f:
        text = f.read().replace("iterations = 2", "iterations = 1\ntrace_ms = 20\ncc = \"a2tp\"")
    with tempfile.TemporaryDirectory() as d:
        topo = os.path.join(d, "single-rack-trace.toml")
        with open(topo, "w") as f:
            f.write(text)
        r = run(topo, build, "--size", "8M")
    show(r)
    assert_exact(r)
    j = r["jobs"][0]
    check(j.get("trace_ms") == 20 and set(j.get("traces", {})) == {"w0", "w1", "w2", "w3"},
          f"traces of {sorted(j.get('traces', {}))} at {j.get('trace_ms')} ms, want w0-w3 at 20 ms")
    for w, t in j["traces"].items():
        check(len(t) >= 3, f"{w}: {len(t)} samples")
        ts = [x["t_ms"] for x in t]
        check(ts == sorted(ts), f"{w}: samples out of time order")
        # On the grid (ina-worker's StatsTrace): at most one sample in each
        # 20 ms interval from the start, bar the last (written when the run
        # ends). A sample written late in its interval does not move the
        # grid, so the next one may follow it by less than 20 ms.
        cells = [int(t // 20) for t in ts[:-1]]
        check(all(b > a for a, b in zip(cells, cells[1:])),
              f"{w}: two samples in one 20 ms interval of the grid: {ts}")
        acks = [x["acks"] for x in t]
        check(acks == sorted(acks), f"{w}: acks fell between samples")
        check(acks[-1] == j["fragments"], f"{w}: last sample {acks[-1]} acks, the job has {j['fragments']} fragments")
        # Eq. (3): 0 <= gamma <= 1 (0: no ACK of a round came in time).
        check(all(0.0 <= x["straggling"] <= 1.0 for x in t), f"{w}: a straggling estimate outside [0, 1]")


def t_udp_hosts(build):
    # Workers and PS on kernel UDP sockets (the workers sending GSO runs of
    # datagrams, kernel checksums) through switchd: the switch rewrites every packet, so it
    # must leave UDP checksum 0 or the PS's kernel drops each result.
    r = run("single-rack", build, "--iterations", "2", "--host-transport", "udp",
            "--worker-arg=--set", "--worker-arg=udp_gso=1")
    show(r)
    assert_exact(r)
    j = r["jobs"][0]
    check(j["share_switch"] is not None and j["share_switch"] > 0.3,
          f"{j['share_switch']} of the fragments aggregated in the switch over UDP hosts")


def t_jumbo_shaped(build):
    # The same fragments through links shaped to 0.2 Gb/s with ECN marking:
    # the shaper must release frames larger than two standard ones, and
    # ATP's window must keep the queues short enough that nothing is lost.
    with open(os.path.join(ROOT, "config", "labs", "single-rack.toml")) as f:
        text = f.read().replace('name = "sw0"\n', 'name = "sw0"\nrate_gbps = 0.2\necn_threshold = 20\n', 1)
    with tempfile.NamedTemporaryFile("w", suffix=".toml", prefix="shaped-") as t:
        t.write(text)
        t.flush()
        r = run(t.name, build, "--iterations", "1", "--elements", "768")
    show(r)
    assert_exact(r)
    j = r["jobs"][0]
    check(j["ecn_marks"] is not None and j["ecn_marks"] > 0,
          f"the shaped ports marked ECN ({j['ecn_marks']} marks): the queue built up at the switch")


BACKGROUND_TOPOLOGY = """
description = "one job of two workers beside two iperf3 flows, 0.2 Gb/s links"
[[switch]]
name = "sw0"
rate_gbps = 0.2
ecn_threshold = 20
[[host]]
name = "ps0"
switch = "sw0"
[[host]]
name = "w0"
switch = "sw0"
[[host]]
name = "w1"
switch = "sw0"
[[host]]
name = "bg0"
switch = "sw0"
[[job]]
id = 1
ps = "ps0"
workers = ["w0", "w1"]
tensor = 1048576
iterations = 1
cc = "atp"
[[background]]
name = "tcp"
from = "bg0"
to = "w0"
congestion = "cubic"
ecn = true
start_s = -1.0
[[background]]
name = "udp"
from = "bg0"
to = "ps0"
protocol = "udp"
rate_mbps = 20.0
start_s = -1.0
"""


def t_background(build):
    # Non-aggregation traffic crosses ina-switchd's ports with the job's: a
    # TCP flow into w0's port (its parameter packets' port) and a UDP flow
    # into the PS's, both started before the workers. The job stays exact,
    # both flows carry traffic while it runs.
    with tempfile.NamedTemporaryFile("w", suffix=".toml", prefix="background-") as t:
        t.write(BACKGROUND_TOPOLOGY.replace('to = "ps0"', 'to = "nohost"'))
        t.flush()
        rc, _, err = lab("gen", t.name, "--out", tempfile.mkdtemp(prefix="bg-gen-"), check_rc=False)
        check(rc != 0 and "background[1]: to 'nohost' is not a [[host]]" in err,
              f"a flow to an unknown host is refused naming it (exit {rc}: {err.strip()})")
    with tempfile.NamedTemporaryFile("w", suffix=".toml", prefix="background-") as t:
        t.write(BACKGROUND_TOPOLOGY)
        t.flush()
        r = run(t.name, build)
    show(r)
    assert_exact(r)
    flows = {f["name"]: f for f in r.get("background", [])}
    for f in flows.values():
        print(f"  background {f['name']}: {f['gbps']:.3f} Gb/s over {f['seconds']:.2f} s, "
              f"{f['gbps_during_jobs']} Gb/s while the job ran, error {f['error']}")
    check(set(flows) == {"tcp", "udp"}, f"the report names both flows: {sorted(flows)}")
    for f in flows.values():
        check(f["ok"], f"flow {f['name']} ran: {f['error']}")
    tcp, udp = flows["tcp"], flows["udp"]
    check(0.02 < tcp["gbps"] <= 0.21, f"TCP through a 0.2 Gb/s port: {tcp['gbps']:.3f} Gb/s")
    check(tcp["gbps_during_jobs"] is not None and tcp["gbps_during_jobs"] > 0.005,
          f"TCP carried traffic while the job ran: {tcp['gbps_during_jobs']}")
    check(0.01 < udp["gbps"] <= 0.025, f"UDP at 20 Mb/s arrived at about 20 Mb/s: {udp['gbps']:.4f} Gb/s")


def fixed_window_args(window):
    """Workers with a fixed window and a patient retransmission timer: the
    bytes at the PS then show the allocation, not how a busy machine delays
    packets."""
    wargs = ["--worker-arg=--cc", "--worker-arg=none"]
    for kv in (f"initial_window={window}", f"max_window={window}", "min_rto_us=100000",
               "initial_rto_us=300000", "max_rto_us=1000000"):
        wargs += ["--worker-arg=--set", f"--worker-arg={kv}"]
    return wargs


def t_two_level_ratio(build):
    # Few fragments in flight and a patient retransmission timer: the bytes the
    # PS receives then show what aggregation leaves for it, not how a busy
    # machine delays packets.
    wargs = fixed_window_args(16)
    tree = run("two-level", build, "--mode", "tree", "--size", "512K", "--iterations", "1",
               *wargs)
    show(tree)
    assert_exact(tree)
    rack = run("two-level", build, "--mode", "rack", "--size", "512K", "--iterations", "1",
               *wargs)
    show(rack)
    assert_exact(rack)
    t, k = tree["jobs"][0], rack["jobs"][0]
    ratio = k["ps_bytes"] / max(1, t["ps_bytes"])
    first = k["ps_first_bytes"] / max(1, t["ps_first_bytes"])
    print(f"PS received {t['ps_bytes']} B two-level, {k['ps_bytes']} B rack-scale: {ratio:.2f}x "
          f"(without resent packets {first:.2f}x; ATP §5.2.2: 3x)")
    check(t["share_switch"] > 0.5, f"two-level: only {t['share_switch']} complete in the network")
    check(ratio >= 2.5, f"rack-scale / two-level PS bytes {ratio:.2f}x, want >= 2.5x")


def t_goat_vs_atp(build):
    """goat-chain (docs/goat.md, "In the lab"): the same four workers, once
    following the plan of ina-goat-plan (sub-models split between sw0 and
    sw1, each switch's aggregators exclusive to its own), once with ATP's
    dynamic allocation (rack mode: the first switch on the path, aggregators
    by hash, collisions to the PS). Both exact; both switches aggregate under
    GOAT; the PS receives no more than 1.1 x ATP's bytes under GOAT: with one
    job whose window fits one switch, ATP's window slots take distinct
    aggregators and both send the PS about one result per fragment."""
    # GLPK is required at configure time, so every build has ina-goat-plan.
    check(os.path.exists(os.path.join(build, "goat", "ina-goat-plan")),
          f"ina-goat-plan not in {build}/goat (ninja -C {build} builds it)")
    # A fixed window of 256 fragments (half a switch's 512 aggregators) and
    # a patient retransmission timer, as in two-level-ratio: the PS's bytes
    # then show the allocation, not how a busy machine delays packets.
    wargs = fixed_window_args(256)
    g = run("goat-chain", build, *wargs)
    show(g)
    assert_exact(g)
    a = run("goat-chain", build, "--mode", "rack", *wargs)
    show(a)
    assert_exact(a)
    gj, aj = g["jobs"][0], a["jobs"][0]
    check(gj["mode"] == "goat" and aj["mode"] == "rack", "modes goat and rack")
    done = {s: _job_counter(g, s, 1, "completed") or 0 for s in ("sw0", "sw1")}
    check(done["sw0"] > 0 and done["sw1"] > 0,
          f"GOAT: both switches aggregate their sub-models (completed {done})")
    # The plan reached the switches only by ina-ps's control messages (the
    # lab's switch configs have no [[goat]] table), and every fragment that
    # named a switch fell in the ranges it installed.
    for s in ("sw0", "sw1"):
        lines = g["switches"][s].get("goat_assignments") or []
        check(lines and all("(control message from" in x for x in lines) and
              "aggregates aggregators [0, 512)" in lines[0],
              f"GOAT: {s}'s assignment came from the PS's control message: {lines}")
        check((_job_counter(g, s, 1, "goat_passed") or 0) == 0,
              f"GOAT: nothing passed {s} outside its assignment "
              f"({_job_counter(g, s, 1, 'goat_passed')})")
    check((_job_counter(a, "sw1", 1, "completed") or 0) == 0,
          "ATP: only the first switch on the path aggregates")
    print(f"PS bytes GOAT {gj['ps_bytes']} vs ATP {aj['ps_bytes']} "
          f"({aj['ps_bytes'] / max(1, gj['ps_bytes']):.2f}x); job time GOAT {gj['seconds']:.2f} s "
          f"vs ATP {aj['seconds']:.2f} s; switch collisions GOAT {gj['collisions_switch']} "
          f"vs ATP {aj['collisions_switch']}")
    # A window below the switch's range never wraps it; a straggler that
    # reclaims a slot after a resend flushed its fragment still can.
    check(gj["collisions_switch"] * 10 < max(1, aj["collisions_switch"]),
          f"GOAT's switch collisions {gj['collisions_switch']} under a tenth of ATP's "
          f"{aj['collisions_switch']}")
    check(gj["ps_bytes"] <= 1.1 * aj["ps_bytes"],
          f"GOAT's PS bytes {gj['ps_bytes']} above 1.1 x ATP's {aj['ps_bytes']}")


def t_goat_split(build):
    """goat-split (docs/goat.md, "Split sub-models"): a hand-written plan
    splits part1 between sw0 (w0, w1) and sw1 (w2, w3) and part3 between
    sw1 (w0-w2) and the PS (w3). ina-ps installs it by control message;
    each switch aggregates its workers of a split sub-model with their
    fan-in, the PS adds the partial sums: exact results, and each switch
    completes (at most) one result per fragment of every sub-model it has
    workers for."""
    # A window below the 170 aggregators a split's run gets (512 / 3).
    wargs = fixed_window_args(128)
    r = run("goat-split", build, *wargs)
    show(r)
    assert_exact(r)
    # The same plan from the switches' configs ([[goat]] plan = ...): the
    # same layout, derived by each switch from the plan itself.
    c = run("goat-split", build, "--goat-install", "config", *wargs)
    show(c)
    assert_exact(c)
    def ranges(line):
        return line.split(" aggregates ")[1].split(" sub-models ")[0]

    for s in ("sw0", "sw1"):
        lines = c["switches"][s].get("goat_assignments") or []
        by_ps = r["switches"][s].get("goat_assignments") or [" aggregates ?"]
        check(lines and "(config)" in lines[0] and ranges(lines[0]) == ranges(by_ps[0]),
              f"{s}: the config path installs the ranges the PS sent: {lines[:1]} vs {by_ps[:1]}")
    with open(os.path.join(ROOT, "config", "labs", "goat-split-plan.json")) as f:
        plan = json.load(f)["plan"]
    elements, tensor, iterations = 62, 49152, 10
    planned = {}
    for s, sid in (("sw0", 1), ("sw1", 2)):
        n = 0
        for frag in range((tensor + elements - 1) // elements):
            g = next(i for i, sm in enumerate(plan["submodels"])
                     if sm["first_element"] <= frag * elements < sm["end_element"])
            n += any(w["ranges"][g]["agg_node"] == sid for w in plan["workers"])
        planned[s] = n * iterations
    for s, want in (("sw0", ["[0, 170) for 2 workers (bits 0x3)", "[341, 512)"]),
                    ("sw1", ["[0, 170) for 2 workers (bits 0xc)", "[170, 341) for 3 workers (bits 0x7)",
                             "[341, 512)"])):
        lines = r["switches"][s].get("goat_assignments") or []
        check(lines and "(control message from" in lines[0] and all(x in lines[0] for x in want),
              f"{s}: the PS installed its split ranges: {lines[:1]}")
        done = _job_counter(r, s, 1, "completed") or 0
        print(f"{s}: completed {done} of {planned[s]} planned")
        check(planned[s] // 2 <= done <= planned[s],
              f"{s} aggregates its part: completed {done}, planned {planned[s]}")
        check((_job_counter(r, s, 1, "goat_passed") or 0) == 0, f"{s}: nothing outside its ranges")


def t_loss(build, rate):
    # 62-element fragments: the drop counts below are for that many packets
    # (the path's 768 would send twelve times fewer, and a run with no drop
    # at all would become likely: about 3 expected at 0.01 %).
    if rate >= 0.005:
        # 1%: at the switch ports toward the PS and toward one worker.
        drops = ["--egress-drop", f"sw0:ps0={rate}", "--egress-drop", f"sw0:w1={rate}"]
        size = ["--size", "256K", "--iterations", "2", "--elements", "62"]
    else:
        # 0.01%: at every port of the switch, over enough packets (~170000
        # leave the switch) that about 17 are dropped.
        drops = ["--egress-drop", f"sw0={rate}"]
        size = ["--size", "4M", "--iterations", "2", "--elements", "62"]
    r = run("single-rack", build, *drops, *size)
    show(r)
    assert_exact(r)
    dropped = r["switches"]["sw0"]["random_drops"]
    print(f"switch random drops: {dropped}")
    check(dropped and dropped > 0, f"drop rate {rate}: no packet was dropped")
    check(r["jobs"][0]["retransmits"] > 0, "packets dropped but nothing retransmitted")


def t_kill_worker(build):
    # job-a dies mid-job, PS and workers at once, once it has completed 3000
    # fragments in the switch: ina-ps first, then its three workers, all
    # signalled in the same round. The aggregators of job-a's window are
    # then held (partial sums, and complete ones whose parameter packet will
    # never come), and nobody is left to complete, resend or release them.
    # The switch frees them by itself: each lcore's idle sweep frees any
    # aggregator idle past gc_timeout_ms (100 ms here), and job-a's lease
    # (3 x the PS's 500 ms re-registration) expires, which removes the job
    # and purges what it still holds. job-b starts once the switch has seen
    # no gradient of job-a for 0.5 s and job-a's lease has expired; the lab
    # records what the switch holds at that moment. Every step waits for a
    # state of the switch or of the processes, not for a time: a loaded
    # machine sees the same sequence as an idle one, only slower.
    with open(os.path.join(ROOT, "config", "labs", "multi-tenant.toml")) as f:
        topo = f.read()
    old, new = "gc_timeout_ms = 500", "gc_timeout_ms = 100"
    check(old in topo, f"multi-tenant.toml: {old} not found")
    topo = topo.replace(old, new)
    # ... and while it holds aggregators: on a loaded machine the workers can
    # be off their CPUs while the PS answers every fragment in flight, and a
    # job killed holding nothing leaves the switch nothing to free.
    mid = "completed:1>=3000&aggregators_in_use>=8"
    faults = [f"--fault=kill-ps:ps1@{mid}"] + \
        [f"--fault=kill-worker:{h}@{mid}" for h in ("a0", "a1", "a2")]
    dead = "killed:ps1&killed:a0&killed:a1&killed:a2&quiet:1>=0.5&lease_expiries>=1"
    with tempfile.NamedTemporaryFile("w", suffix=".toml", prefix="multi-tenant-gc-") as t:
        t.write(topo)
        t.flush()
        # 62-element fragments: the counts above are of those (at the
        # lab's default 768, job-a ends before its 3000th).
        r = run(t.name, build, "--size", "4M", "--iterations", "2", "--elements", "62",
                "--start-delay", f"2={dead}", *faults, timeout=150)
    show(r)
    a, b = r["jobs"][0], r["jobs"][1]
    check(a["killed_workers"] == 3 and r["faults"].get("killed_ps") == ["ps1"] and
          not a["finished"], f"job-a: {a['killed_workers']} workers and PS "
          f"{r['faults'].get('killed_ps')} killed, finished {a['finished']}: want all killed "
          "mid-job")
    start = next((s for s in r.get("starts", []) if s["job"] == b["id"]), None)
    check(start is not None, "job-b never started (job-a not killed, or the switch kept "
          "counting job-a's gradients)")
    at_start = start["switches"]["sw0"]
    held = at_start["aggregators_in_use"]
    freed = (at_start.get("sweep_frees") or 0) + (at_start.get("purge_frees") or 0)
    print(f"job-b started at {start['at_s']} s; dead job-a's aggregators: {held} still held, "
          f"{at_start.get('sweep_frees')} freed by the sweep, {at_start.get('purge_frees')} by a purge")
    check(freed > 0, "the switch freed none of the dead job's aggregators by itself")
    check(held == 0, f"{held} aggregators still held {0.5} s after job-a's last gradient "
          "(gc_timeout_ms 100): the sweep did not free them")
    assert_exact(r, job=b["id"])
    sw = r["switches"]["sw0"]
    check((sw.get("lease_expiries") or 0) >= 1,
          f"job-a's registration did not expire after its PS died ({sw.get('lease_expiries')})")
    print(f"lease expiries {sw.get('lease_expiries')}, purge frees {sw.get('purge_frees')}, "
          f"sweep frees {sw.get('sweep_frees')}; job-b exact ({b['seconds']:.1f} s)")


def t_restart_switch(build):
    # The restart follows the job's progress (5000 of its ~68000 fragments
    # completed in the switch), so it is mid-job on any machine. Mid-job is
    # checked on the switch's state, not on clocks: the killed instance had
    # completed fewer fragments than the job has, and the restarted one
    # aggregated the rest of them. The job's deadline is generous: on a
    # loaded machine the workers' recovery from the lost aggregators is slow,
    # not wrong; exactness is what is asserted.
    # 62-element fragments, whose count the threshold is in.
    r = run("single-rack", build, "--size", "4M", "--iterations", "4", "--elements", "62",
            "--fault", "restart-switch:sw0@completed:1>=5000", timeout=240)
    show(r)
    restarts = r["faults"]["switch_restarts"]
    check(restarts, "switch was not restarted")
    assert_exact(r)
    j = r["jobs"][0]
    before = ((restarts[0].get("jobs_before") or {}).get(str(j["id"])) or {}).get("completed")
    after = _job_counter(r, "sw0", j["id"], "completed")
    print(f"switch restarted at {restarts[0]['at_s']} s (down {restarts[0]['down_s']} s): "
          f"{before} fragments completed in it before, {after} in the new instance, "
          f"{j['fragments']} in the job")
    check(before is not None and before < j["fragments"],
          f"the killed switch had completed {before} of the job's {j['fragments']} fragments: "
          "restart not mid-job")
    check(after and after > 0, "the restarted switch aggregated nothing of the job")


def attack(build, fault, after, tensor):
    """The multi-tenant lab with `fault` (from b0, a worker of job 2); both
    jobs start once the switch's counters satisfy `after`, so the attacker
    is sending while they run, however slowly it starts. Both jobs must end
    exact. Returns the report."""
    r = run("multi-tenant", build, "--size", str(tensor * 4), "--iterations", "2",
            "--fault", fault, "--start-delay", f"1={after}", "--start-delay", f"2={after}")
    show(r)
    assert_exact(r)
    return r


def reached_switch(r, sent):
    """How many of the `sent` frames b0 flooded the switch with it read, at
    least. Those b0's switch port had no ring room for never reach switchd:
    the kernel counts them on the port's veth (`links`, rx_dropped), and on a
    loaded machine they are over half. The count includes b0's own frames,
    hence at least."""
    lost = r["switches"]["sw0"]["links"]["b0"]["rx_dropped"]
    print(f"b0's switch port dropped {lost} frames before switchd read them")
    return sent - lost


def t_spoof(build):
    # b0 (a worker of job 2) sends gradient packets with job 1's id; the
    # jobs start once the switch has refused 200 of them.
    r = attack(build, "spoof:b0:1@0", "admission_drops:1>=200", 262144)
    sent = r["faults"].get("spoof_frames_sent", 0)
    drops = r["jobs"][0]["admission_drops"]
    reached = reached_switch(r, sent)
    print(f"spoofed frames sent {sent}, {reached} or more reached the switch, job 1 admission "
          f"drops {drops}")
    check(sent > 100, f"the spoofing host sent only {sent} frames")
    check(reached > 100, f"only {reached} of {sent} spoofed frames reached the switch")
    check(drops >= 0.9 * reached and drops <= sent,
          f"admission drops {drops} for at least {reached} spoofed frames the switch read")
    check(r["jobs"][1]["admission_drops"] == 0, "job 2's own packets were dropped at admission")


def t_e2e_bench(build):
    """perf/e2e_bench runs ina, ps and gloo one after another on one lab: each
    run must meet a switch and a PS in the state its mode asks for (ps: the
    job unknown to the switch, whatever the ina run before it registered;
    the workers stamping the epoch of their own run's PS), and end exact."""
    bench = os.path.join(ROOT, "perf", "e2e_bench", "e2e_bench.py")
    p = subprocess.run(["/usr/bin/python3", bench, "--build", build, "--sizes", "1M",
                        "--modes", "ina,ps,gloo,ina", "--repeat", "2", "--timeout", "120", "--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    for r in rows:
        print(json.dumps(r))
    check(p.returncode == 0, f"e2e_bench exited {p.returncode}: "
          f"{(p.stderr.strip().splitlines() or [''])[-1]}")
    check([r["mode"] for r in rows] == ["ina", "ps", "gloo", "ina"], f"modes run: {rows}")
    for r in rows:
        check(r["correct"], f"{r['mode']}: result not correct")
        check(r["seconds"] < 60, f"{r['mode']}: {r['seconds']} s for 1 MB")
        # --repeat 2: two runs each, interleaved; the median of two is their mean.
        check(len(r["runs"]) == 2 and abs(r["seconds"] - sum(r["runs"]) / 2) < 1e-9,
              f"{r['mode']}: runs {r['runs']}, reported {r['seconds']}")
    # The shares say which switch each mode met; how much an ina run keeps
    # in the switch depends on the machine's load (resends flush aggregators).
    ina, ps = rows[0], rows[1]
    check(ina["share_switch"] > 0, "ina: nothing aggregated in the switch")
    check(ps["share_switch"] == 0.0, f"ps: {ps['share_switch']} aggregated in the switch")
    check(rows[3]["share_switch"] > 0, "ina after ps: nothing aggregated in the switch")


def t_forge(build):
    """Forged results (docs/security.md, "Data plane"): b0, a worker of job
    2, sends 10^6 parameter packets of job 1 in the name of job 1's PS (its
    IP and MAC, the run's epoch) from its own port, as fast as it can. Both
    jobs start once the switch has dropped 200000 of them, so the forger is
    sending while they run. Every forged result the switch reads is dropped
    (forged_result_drops, job 1's), none frees an aggregator or reaches a
    worker: both jobs exact."""
    r = attack(build, "forge:b0:1@0", "forged_result_drops:1>=200000", 1048576)
    sent = r["faults"].get("forge_frames_sent", 0)
    drops = r["jobs"][0]["forged_result_drops"]
    print(f"forged results sent {sent}, dropped by the switch {drops}; job 1 in switch "
          f"{r['jobs'][0]['share_switch']}, job 2 {r['jobs'][1]['share_switch']}")
    check(sent >= 200000, f"the forger sent only {sent} frames")
    reached = reached_switch(r, sent)
    check(drops >= 0.9 * reached and drops <= sent,
          f"forged_result_drops {drops} for at least {reached} forged results the switch read")
    check(r["jobs"][1]["forged_result_drops"] == 0, "job 2's own parameter packets were dropped")


def t_hijack(build):
    """Control hijack (docs/security.md, "Control plane"): b0, a worker of job
    2, sends control messages for job 1 to the switch, 20,000 a second:
    registrations that make b0 job 1's only worker and unregistrations, every
    other one with job 1's PS's IP and MAC as its source, each with a fresh
    counter and an HMAC under a key b0 has to guess. Both jobs start once the
    switch has dropped 20,000 of them, so the hijacker is sending while they
    run. Unauthenticated, one such registration took a job over (its workers
    failed) and an unregistration cut its in-switch share from 87 % to 15 %,
    with a log line per rejected message. Every one is dropped
    (control_auth_drops), job 1 stays registered and aggregating in the
    switch, both jobs exact, and the switch's log stays short."""
    r = attack(build, "hijack:b0:1@0", "control_auth_drops>=20000", 1048576)
    sent = r["faults"].get("hijack_frames_sent", 0)
    sw = r["switches"]["sw0"]
    a, b = r["jobs"][0], r["jobs"][1]
    print(f"control messages sent {sent}, dropped on their MAC {sw['control_auth_drops']}, "
          f"accepted {sw['control_accepted']}; job 1 in switch {a['share_switch']}, job 2 "
          f"{b['share_switch']}; {sw['control_log_lines']} lines about control messages in the "
          f"switch's log over {r['wall_s']} s")
    check(sent >= 20000, f"the hijacker sent only {sent} messages")
    reached = reached_switch(r, sent)
    check(sw["control_auth_drops"] >= 0.9 * reached and sw["control_auth_drops"] <= sent,
          f"control_auth_drops {sw['control_auth_drops']} for at least {reached} forged "
          "control messages the switch read")
    check("1" in (sw.get("jobs") or {}), "job 1 is no longer registered at the switch")
    check(a["share_switch"] is not None and a["share_switch"] > 0.3,
          f"job 1 aggregated only {a['share_switch']} of its fragments in the switch")
    # Rejections are logged at most once a second per reason.
    check(sw["control_log_lines"] <= 10 + 3 * r["wall_s"],
          f"{sw['control_log_lines']} log lines about control messages for {sent} rejected ones")


def t_hoard(build):
    """Aggregator hoarding (docs/security.md, "Fair share"): b0, a worker of
    job 2, sends from its own address, with its own job id, bit and epoch,
    one fragment per aggregator index over and over (spoof.py --cover). Each
    claims its aggregator when it is free and, as a duplicate, keeps it
    fresh, so neither the GC nor the idle sweep frees it. Both jobs start once
    the hoarder has claimed 100 aggregators, and run under the attack twice:
    with no limit (job_share 1.0: job 2 may end up holding all 256) and with
    job_share 0.5 (each job at most 128). The victim, job 1, must keep far
    more of its fragments in the switch with the limit; job 2's claims beyond
    its share are refused and counted; both jobs stay exact."""
    when = "aggregated:2>=100+1"
    runs = {}
    for share in (1.0, 0.5):
        r = run("multi-tenant", build, "--size", "1M", "--iterations", "2",
                "--job-share", str(share), "--fault", "hoard:b0@0",
                "--start-delay", f"1={when}", "--start-delay", f"2={when}")
        show(r)
        assert_exact(r)
        sent = r["faults"].get("hoard_frames_sent", 0)
        check(sent > 1000, f"job_share {share}: the hoarder sent only {sent} frames")
        runs[share] = r
    limited = runs[0.5]
    victim = {k: r["jobs"][0]["share_switch"] or 0.0 for k, r in runs.items()}
    held = {k: _job_counter(r, "sw0", 2, "aggregators_held") for k, r in runs.items()}
    refused = {k: r["jobs"][1]["share_refusals"] for k, r in runs.items()}
    print(f"victim job 1 in-switch share under hoarding: {victim[1.0]:.3f} without a limit, "
          f"{victim[0.5]:.3f} with job_share 0.5; job 2 holds {held[1.0]} / {held[0.5]} "
          f"aggregators at the end, share_refusals {refused[1.0]} / {refused[0.5]}")
    check(refused[1.0] == 0, f"no limit, yet {refused[1.0]} claims were refused")
    check(refused[0.5] > 0, "job_share 0.5: no claim of job 2 was refused")
    check(_job_counter(limited, "sw0", 2, "max_aggregators") == 128,
          f"job 2's limit is {_job_counter(limited, 'sw0', 2, 'max_aggregators')}, want 128")
    check(held[0.5] is not None and held[0.5] <= 128, f"job 2 holds {held[0.5]} of its 128")
    # The hoarder still sits on the 128 indices it holds, and the victim's
    # fragments that hash there go to the PS: with the limit the victim can
    # keep about the other half of its fragments in the switch (0.47 measured,
    # docs/security.md), without it none.
    check(victim[0.5] >= 0.3, f"with the limit the victim keeps only {victim[0.5]:.3f} in the switch")
    check(victim[0.5] >= victim[1.0] + 0.25,
          f"the limit did not help the victim: {victim[0.5]:.3f} vs {victim[1.0]:.3f} without it")

CAPTURE_FIELDS = ("ip.src", "ip.dst", "ina.type", "ina.job", "ina.seq", "ina.agg_index", "ina.bitmap",
                  "ina.level", "ina.flags.ack", "ina.elem_count", "ina.value", "_ws.expert")


def decode_capture(path):
    """The INA frames of a capture, decoded by tshark with tools/wireshark/ina.lua:
    one dict per frame (bitmap: the first level's; value: a list of ints)."""
    cmd = ["tshark", "-n", "-X", "lua_script:" + os.path.join(ROOT, "tools", "wireshark", "ina.lua"),
           "-r", path, "-Y", "ina", "-T", "fields", "-E", "separator=\t", "-E", "aggregator=,",
           "-E", "occurrence=a"]
    for f in CAPTURE_FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    check(out.returncode == 0, f"tshark {path}: {out.stderr.strip()[-300:]}")
    frames = []
    for line in out.stdout.splitlines():
        f = dict(zip(CAPTURE_FIELDS, line.split("\t")))
        nums = lambda k: [int(x, 0) for x in f.get(k, "").split(",") if x]
        frames.append({"src": f["ip.src"], "dst": f["ip.dst"], "type": int(f["ina.type"]),
                       "job": int(f["ina.job"]), "seq": int(f["ina.seq"]),
                       "index": int(f["ina.agg_index"]), "bitmap": nums("ina.bitmap")[0],
                       "level": int(f["ina.level"]), "ack": f["ina.flags.ack"] in ("1", "True"),
                       "elements": int(f["ina.elem_count"]), "values": nums("ina.value"),
                       "malformed": bool(f.get("_ws.expert"))})
    return frames


def t_capture(build):
    """A run captured on every switch port (--pcap: dpdk-dumpcap) and decoded
    with tshark and the dissector: each fragment's gradients, its result
    toward the PS and its parameter packets are on the wire as the protocol
    says and the report counts them, and the values of the result are the
    exact sum of the gradients; w0's malformed frames show as malformed."""
    import shutil
    if not shutil.which("tshark"):
        raise Skipped("tshark is not installed (scripts/deps.sh installs it)")
    with tempfile.TemporaryDirectory(prefix="inacap") as d:
        try:
            r = run("single-rack", build, "--size", "64K", "--iterations", "2", "--pcap", d,
                    "--fault", "malformed:w0:1@0", "--start-delay", "1=malformed>=10")
        except Failed as e:
            if "needs the switches on hugepages" in str(e):
                raise Skipped(f"no hugepages for the lab's switches: {e}")
            raise
        show(r)
        assert_exact(r)
        j = r["jobs"][0]
        check(j["retransmits"] == 0, f"a run without loss ({j['retransmits']} retransmits)")
        files = sorted(os.listdir(d))
        print("captures:", " ".join(files))
        ps = decode_capture(os.path.join(d, "sw0-ps0.pcapng"))
        workers = {f[4:-7]: decode_capture(os.path.join(d, f)) for f in files if f.startswith("sw0-w")}
    check(len(workers) == 4, f"a capture per worker port ({files})")
    check_capture(j, ps, workers, r["faults"].get("malformed_frames_sent"))


def check_capture(j, ps, workers, malformed_sent):
    n = j["fragments"]
    sums = {}
    grads = {}
    for name, frames in workers.items():
        mine = [f for f in frames if f["type"] == 0 and not f["ack"] and not f["malformed"]]
        check(len(mine) == n and len({f["seq"] for f in mine}) == n,
              f"{name}: {len(mine)} gradients on the wire, {n} fragments in the report")
        for f in mine:
            grads.setdefault(f["seq"], []).append(f)
            acc = sums.setdefault(f["seq"], [0] * len(f["values"]))
            for i, v in enumerate(f["values"]):
                acc[i] += v
        acks = [f for f in frames if f["ack"]]
        check(len({f["seq"] for f in acks}) == n, f"{name}: a parameter packet of every fragment")
    for seq, fs in grads.items():
        bits = [f["bitmap"] for f in fs]
        check(len(fs) == 4 and len({f["index"] for f in fs}) == 1 and all(f["level"] == 0 for f in fs)
              and all(f["job"] == j["id"] for f in fs) and sorted(bits) == [1, 2, 4, 8],
              f"seq {seq}: four gradients of job {j['id']}, one index, level 0, one bit each ({bits})")
    results = [f for f in ps if f["type"] == 0 and not f["ack"]]
    check(len(results) == j["ps_packets"],
          f"{len(results)} results reach the PS, its log says {j['ps_packets']}")
    for f in results:
        check(f["job"] == j["id"] and f["bitmap"] == 0xF and f["values"] == sums[f["seq"]],
              f"seq {f['seq']}: the result is the exact sum of the four gradients")
    params = {f["seq"]: f["values"] for f in ps if f["ack"]}
    check(all(params.get(s) == v for s, v in sums.items()), "every parameter packet carries the sum")
    bad = sum(f["malformed"] for f in workers["w0"])
    print(f"fragments {n}, results at the PS {len(results)}, malformed frames seen {bad}")
    check(bad == malformed_sent and bad > 0,
          f"{bad} frames shown malformed in w0's capture, {malformed_sent} sent")


def t_restart_ps(build):
    # The PS of single-rack's job is killed (SIGKILL) once 3000 of the job's
    # ~68000 fragments completed in the switch, and started again 2 s later
    # with the same job file and --resume JOB=EPOCH (scripts/lab's
    # restart-ps). The job must finish exactly, and take at most the time
    # the PS was down plus twice the workers' RTO cap more than the same job
    # without the fault. The down time is from the kill to the restarted
    # PS's "serving" line (its start-up and registration count as down).
    # Runs with and without the fault alternate, three of each, and the
    # bound must hold for the smallest of the three differences: on a
    # loaded two-core machine one run can take a second more than its twin
    # (the median is printed too). Before the workers kept their window
    # across the outage, every difference exceeded the bound by 0.2-0.6 s.
    size = ["--size", "4M", "--iterations", "4", "--elements", "62"]
    rto_cap_s = 0.05  # docs/worker.md: max_rto_us 50000, the workers' default
    extras, bounds = [], []
    for i in range(3):
        base = run("single-rack", build, *size, timeout=240)
        assert_exact(base)
        r = run("single-rack", build, *size, "--fault", "restart-ps:ps0@completed:1>=3000+2", timeout=240)
        if i == 0:
            show(r)
        restarts = r["faults"].get("ps_restarts") or []
        check(len(restarts) == 1, f"want one PS restart, the report has {restarts}")
        rs = restarts[0]
        check(rs["serving_at_s"] is not None and rs["serving_at_s"] > 0,
              f"the restarted PS never served: {rs}")
        assert_exact(r)
        j, b = r["jobs"][0], base["jobs"][0]
        ps_completed = j["ps_completed"] or 0
        down = rs["serving_at_s"] - rs["killed_at_s"]
        extras.append(j["seconds"] - b["seconds"])
        bounds.append(down + 2 * rto_cap_s)
        print(f"run {i + 1}: PS killed at {rs['killed_at_s']} s, serving again at {rs['serving_at_s']} s "
              f"(down {down:.2f} s); job {j['seconds']:.2f} s against {b['seconds']:.2f} s without the "
              f"fault: {extras[-1]:+.2f} s, bound {bounds[-1]:.2f} s; the restarted PS completed "
              f"{ps_completed} of {j['fragments']} fragments")
        check(0 < ps_completed < j["fragments"],
              f"the restarted PS completed {ps_completed} of the job's {j['fragments']} fragments: "
              "the restart was not mid-job")
        check(r["switches"]["sw0"]["stale_epoch_drops"] == 0,
              f"the switch dropped {r['switches']['sw0']['stale_epoch_drops']} packets of an old epoch: "
              "the restarted PS did not continue the run")
    i = min(range(3), key=lambda k: extras[k] - bounds[k])
    print(f"median {sorted(extras)[1]:+.2f} s more than without the fault; the least over its bound: "
          f"{extras[i]:+.2f} s, bound {bounds[i]:.2f} s")
    check(extras[i] <= bounds[i], f"the job took {extras[i]:.2f} s more than without the fault (the best of "
          f"three pairs), more than the PS's down time plus twice the RTO cap ({bounds[i]:.2f} s)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("test")
    ap.add_argument("arg", nargs="?")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: lab tests need root (network namespaces)")
        return SKIP
    # Every build has ina-ps and ina-worker; ina-switchd only one with DPDK.
    for b in ("ps/ina-ps", "workerlib/ina-worker"):
        if a.test != "tool" and not os.path.exists(os.path.join(a.build, b)):
            print(f"FAIL {a.test}: {b} not in {a.build} (ninja -C {a.build} builds it)")
            return 1
    if a.test != "tool" and not os.path.exists(os.path.join(a.build, "switchd", "ina-switchd")):
        print(f"SKIP {a.test}: ina-switchd not built (a build without DPDK)")
        return SKIP
    tests = {"tool": t_tool, "topology": t_topology, "two-level-ratio": t_two_level_ratio,
             "loss": t_loss, "kill-worker": t_kill_worker, "restart-switch": t_restart_switch,
             "restart-ps": t_restart_ps,
             "spoof": t_spoof, "hoard": t_hoard, "forge": t_forge, "hijack": t_hijack, "jumbo": t_jumbo,
             "jumbo_shaped": t_jumbo_shaped, "goat-vs-atp": t_goat_vs_atp, "goat-split": t_goat_split,
             "udp-hosts": t_udp_hosts, "background": t_background, "af-packet": t_af_packet, "e2e-bench": t_e2e_bench,
             "capture": t_capture, "worker-trace": t_worker_trace}
    if a.test not in tests:
        print(f"unknown test {a.test}")
        return 2
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    t0 = time.monotonic()
    try:
        fn = tests[a.test]
        if a.arg is not None:
            fn(a.build, float(a.arg) if a.test == "loss" else a.arg)
        else:
            fn(a.build)
        print(f"PASS {a.test} {a.arg or ''} ({time.monotonic() - t0:.1f} s)")
        return 0
    except Failed as e:
        print(f"FAIL {a.test} {a.arg or ''}: {e}")
        return 1
    except Skipped as e:
        print(f"SKIP {a.test} {a.arg or ''}: {e}")
        return SKIP
    except (KeyboardInterrupt, subprocess.TimeoutExpired) as e:
        print(f"FAIL {a.test}: interrupted ({type(e).__name__})")
        return 1
    finally:
        subprocess.run(["/usr/bin/python3", LAB, "--prefix", PREFIX, "down"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


if __name__ == "__main__":
    sys.exit(main())
