#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The end-host stack alone: one worker thread against one PS, no switch.

    sudo perf/host_bench/host_bench.py [--build DIR] [--transports udp,udp_gso,af_packet,af_xdp,dpdk]
                                       [--size 64M] [--elements 62,768] [--repeat 1]
                                       [--worker-arg ARG ...] [--json]

For every transport and fragment size, one `ina-worker` (one sender thread)
all-reduces a tensor with one `ina-ps` (a job of one worker, no in-network
level: every fragment goes to the PS and comes back as its parameter packet).
`udp_gso` is the udp transport with UDP GSO runs at both ends (its udp_gso
key). The kernel transports (udp, af_packet, af_xdp) run over a veth pair between
two network namespaces made for the run; `dpdk` runs both ends on DPDK over
a memif pair (shared memory, no kernel on the path).

Printed per run: fragments per second (the worker's fragments over its own
first-packet-to-last-result time), the worker's and the PS's CPU time per
fragment in microseconds (the worker: CPU time of all its threads over
its rounds, as it reports it; the PS: user + system over its whole life,
from wait4(), so an upper bound), and the retransmit count. `--json`: one object per line with
`transport`, `elements`, `fragments`, `seconds`, `fragments_per_s`,
`worker_cpu_us_per_fragment`, `ps_cpu_us_per_fragment`, `retransmits`,
`correct`.

What this measures is the host's own per-packet cost, which bounds what any
switch can do for it: ATP's host stack sends 46 Gb/s from 12 threads, about
1.5 M fragments/s per thread at its 306-byte frames.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
import pythonpath  # noqa: E402,F401  (the project's Python folders)
import ina_wire as wire  # noqa: E402
from lablib import cli  # noqa: E402

NS_W, NS_P = "inahbw", "inahbp"
IF_W, IF_P = "hbw0", "hbp0"
IP_W, IP_P = "10.19.0.1", "10.19.0.2"
MAC_W, MAC_P = "02:19:00:00:00:01", "02:19:00:00:00:02"


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def veth_up(mtu):
    veth_down()
    sh("ip", "netns", "add", NS_W)
    sh("ip", "netns", "add", NS_P)
    sh("ip", "link", "add", IF_W, "netns", NS_W, "type", "veth", "peer", "name", IF_P, "netns", NS_P)
    for ns, dev, ip, mac in ((NS_W, IF_W, IP_W, MAC_W), (NS_P, IF_P, IP_P, MAC_P)):
        sh("ip", "-n", ns, "link", "set", dev, "address", mac, "mtu", str(mtu))
        sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev)
        sh("ip", "-n", ns, "link", "set", dev, "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")
    # Static neighbours: no ARP on the path being measured.
    sh("ip", "-n", NS_W, "neigh", "replace", IP_P, "lladdr", MAC_P, "dev", IF_W)
    sh("ip", "-n", NS_P, "neigh", "replace", IP_W, "lladdr", MAC_W, "dev", IF_P)


def veth_down():
    for ns in (NS_W, NS_P):
        sh("ip", "netns", "del", ns, check=False)


def ps_job_file(path, elements, window):
    with open(path, "w") as f:
        f.write(f"id = 1\nelements = {elements}\naggregators = 4096\nwindow = {window}\n"
                "levels = 0\nack = \"unicast\"\n\n"
                f"[[worker]]\nip = \"{IP_W}\"\nmac = \"{MAC_W}\"\n")


def spawn(cmd, log):
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)


def cpu_seconds(proc):
    """Waits for proc; returns (exit code, user + system seconds)."""
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, ru.ru_utime + ru.ru_stime


def last_json(text):
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                return json.loads(line)
            except ValueError:
                pass
    # ina-ps prints one indented object
    start = text.rfind("\n{")
    if start >= 0:
        try:
            return json.loads(text[start + 1:])
        except ValueError:
            return None
    return None


def one_run(build, transport, elements, size, timeout, tmp, extra=()):
    job = os.path.join(tmp, "ps-job.toml")
    ps_job_file(job, elements, 4096)
    ps_bin = os.path.join(build, "ps", "ina-ps")
    w_bin = os.path.join(build, "workerlib", "ina-worker")
    worker_args = ["--job", "1", "--rank", "0", "--workers", "1", "--ps", f"{IP_P}/{MAC_P}",
                   "--levels", "0", "--bit", "0", "--fan-in", "1", "--elements", str(elements),
                   "--size", str(size), "--rounds", "1", "--json"] + list(extra)
    if transport == "dpdk":
        sock = os.path.join(tmp, "memif.sock")
        eal = "--no-huge -m 512 --no-pci --no-telemetry --file-prefix {p} --vdev=net_memif0,role={r},socket={s}"
        # DPDK's convention: EAL arguments before "--", the program's own after.
        ps_cmd = [ps_bin] + eal.format(p="inahbp", r="server", s=sock).split() + [
            "--", "--job", job, "--transport", "dpdk", "--device", "net_memif0", "--ip", IP_P,
            "--no-register", "--json"]
        w_cmd = [w_bin] + eal.format(p="inahbw", r="client", s=sock).split() + ["--"] + worker_args + [
            "--transport", "dpdk", "--device", "net_memif0", "--ip", IP_W]
    else:
        # udp_gso: the udp transport with UDP GSO runs at both ends.
        kind = "udp" if transport == "udp_gso" else transport
        gso = transport == "udp_gso"
        ps_cmd = ["ip", "netns", "exec", NS_P, ps_bin, "--job", job, "--transport", kind,
                  "--device", IF_P, "--ip", IP_P, "--no-register", "--json"] + (["--udp-gso"] if gso else [])
        w_cmd = ["ip", "netns", "exec", NS_W, w_bin] + worker_args + [
            "--transport", kind, "--device", IF_W, "--ip", IP_W] + (["--set", "udp_gso=1"] if gso else [])
    ps_log = open(os.path.join(tmp, "ps.log"), "w+")
    w_log = open(os.path.join(tmp, "worker.log"), "w+")
    ps = spawn(ps_cmd, ps_log)
    w = None
    try:
        deadline = time.monotonic() + 30
        while "serving" not in open(ps_log.name).read():
            if ps.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("ina-ps did not start: " + open(ps_log.name).read()[-400:])
            time.sleep(0.05)
        w = spawn(w_cmd, w_log)
        deadline = time.monotonic() + timeout
        while w.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if w.poll() is None:
            os.killpg(w.pid, signal.SIGKILL)
        # poll() reaped it: its rusage is now in this process's children total.
        ws = last_json(open(w_log.name).read())
        ps.send_signal(signal.SIGTERM)
        _, ps_cpu = cpu_seconds(ps)
        pj = last_json(open(ps_log.name).read())
    finally:
        for p in (w, ps):
            if p is not None and p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    if not ws:
        raise RuntimeError(f"ina-worker ({transport}) gave no result: " + open(w_log.name).read()[-400:])
    return ws, pj, ps_cpu


def main():
    ap = cli.parser("host_bench.py", __doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="meson build directory")
    ap.add_argument("--transports", default="udp,udp_gso,af_packet,af_xdp,dpdk", help="transports to run")
    ap.add_argument("--elements", default="62,768", help="values per fragment, comma separated")
    ap.add_argument("--size", type=cli.size_arg, default="64M",
                    help="tensor bytes per round (K, M, G = KiB, MiB, GiB)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each configuration")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    ap.add_argument("--worker-arg", action="append", default=[], metavar="ARG",
                    help="extra ina-worker argument (repeatable), e.g. --worker-arg=--set --worker-arg=max_window=4096")
    ap.add_argument("--json", action="store_true", help="one JSON object per line")
    cli.refuse_old("host_bench.py", sys.argv[1:], {"--size-mb": "use --size BYTES (--size 64M)"})
    a = ap.parse_args()
    transports = a.transports.split(",")
    bad = [t for t in transports if t not in ("udp", "udp_gso", "af_packet", "af_xdp", "dpdk")]
    try:
        elements = [int(e) for e in a.elements.split(",")]
    except ValueError:
        elements = [0]
    if bad or any(not 1 <= e <= 2048 for e in elements) or not 0 < a.size <= 4096 << 20 or not 1 <= a.repeat <= 100:
        print("host_bench: error: transports from udp,udp_gso,af_packet,af_xdp,dpdk; elements 1..2048; "
              "size up to 4G; repeat 1..100", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("host_bench: error: needs root (network namespaces)", file=sys.stderr)
        return 2
    rows = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="host_bench-") as tmp:
        try:
            for e in elements:
                veth_up(wire.frame_len(e) - wire.ETH_HDR.size)  # the IP MTU of e elements
                for t in transports:
                    for _ in range(a.repeat):
                        # The worker's CPU time: the children's rusage grows by
                        # exactly the worker once it has been reaped.
                        before = os.times()
                        try:
                            ws, pj, ps_cpu = one_run(a.build, t, e, a.size, a.timeout, tmp, a.worker_arg)
                        except RuntimeError as err:
                            print(f"host_bench: {t}, {e} elements: {err}", file=sys.stderr)
                            ok = False
                            continue
                        after = os.times()
                        # The worker's own figure covers its rounds only (no
                        # EAL or socket set-up); the PS's is its whole life.
                        w_cpu = ws.get("cpu_seconds")
                        if w_cpu is None:
                            w_cpu = (after.children_user + after.children_system
                                     - before.children_user - before.children_system) - ps_cpu
                        frags = ws.get("fragments") or 0
                        secs = ws.get("seconds") or 0
                        row = {"transport": t, "elements": e, "fragments": frags, "seconds": secs,
                               "fragments_per_s": frags / secs if secs else None,
                               "worker_cpu_us_per_fragment": w_cpu * 1e6 / frags if frags else None,
                               "ps_cpu_us_per_fragment": ps_cpu * 1e6 / frags if frags else None,
                               "retransmits": ws.get("retransmits"),
                               "correct": bool(ws.get("within_bound"))}
                        if not (row["correct"] and frags):
                            print(f"host_bench: FAILED {t}, {e} elements: {frags} fragments, "
                                  f"result {'exact' if row['correct'] else 'not the exact sum'}",
                                  file=sys.stderr)
                            ok = False
                        rows.append(row)
                        if a.json:
                            print(json.dumps(row), flush=True)
        finally:
            veth_down()
    if not a.json:
        print(f"{'transport':<10}{'elements':>9}{'fragments/s':>13}{'Gb/s':>7}{'worker us/frag':>16}"
              f"{'PS us/frag':>12}{'retx':>7}  correct")
        for r in rows:
            fps = r["fragments_per_s"] or 0
            print(f"{r['transport']:<10}{r['elements']:>9}{fps:>13.0f}{fps * r['elements'] * 32 / 1e9:>7.2f}"
                  f"{r['worker_cpu_us_per_fragment'] or 0:>16.2f}{r['ps_cpu_us_per_fragment'] or 0:>12.2f}"
                  f"{r['retransmits'] or 0:>7}  {r['correct']}")
    return 0 if ok and rows else 1


if __name__ == "__main__":
    sys.exit(main())
