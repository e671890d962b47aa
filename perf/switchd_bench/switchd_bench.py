#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""switchd line-rate benchmark over memif, one run of each:

  ceiling      ina-gen <-> ina-gen --forward (rx_burst -> tx_burst to the other
               port, one lcore, nothing else): the bare memif forwarding
               ceiling on this machine
  switchd xN   ina-gen <-> ina-switchd with N data-path lcores

ina-gen emulates W workers x J jobs (gradients on the workers' port, the PS's
ACKs on the PS port) and counts what comes back. `mpps_in` is the rate the
device under test took packets from the generator (memif TX is accepted only
when the peer has room, so this is the rate it keeps up with); `mpps_out`
what came back. ratio = switchd mpps_in / ceiling mpps_in.

    switchd_bench.py --switchd BUILD/switchd/ina-switchd --gen BUILD/perf/switchd_bench/ina-gen [--json]
"""
import argparse
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time



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


def switchd_config(tmp, args, lcores):
    w_ips = [f"10.1.{j}.{w + 1}" for j in range(args.jobs) for w in range(args.workers)]
    s = f"""[switch]
id = 1
ip = "10.1.255.254"
aggregators = {args.aggregators}
elements = {args.elements}
lcores = {lcores}
stats_interval_s = 0
steering = "auto"

[[port]]
device = "net_memif0,role=server,socket={tmp}/w.sock"
"""
    for j in range(args.jobs):
        for w in range(args.workers):
            s += f'[[port.neighbour]]\nip = "10.1.{j}.{w + 1}"\nmac = "02:00:00:{j:02x}:{w:02x}:01"\n'
    s += f"""
[[port]]
device = "net_memif1,role=server,socket={tmp}/ps.sock"
[[port.neighbour]]
ip = "10.1.255.100"
mac = "02:00:00:ff:00:64"
"""
    for j in range(args.jobs):
        s += f"""
[[job]]
id = {j + 1}
ps_ip = "10.1.255.100"
levels = 1
fan_in = [{args.workers}]
"""
        for w in range(args.workers):
            s += f'[[job.worker]]\nip = "10.1.{j}.{w + 1}"\nbit = [{w}]\n'
    path = os.path.join(tmp, "switchd.toml")
    with open(path, "w") as f:
        f.write(s)
    return path


def run(args, kind, lcores=None):
    with tempfile.TemporaryDirectory(prefix="swbench") as tmp:
        tag = f"{os.getpid()}{kind}{len(lcores or [])}"
        dut_log = open(os.path.join(tmp, "dut.log"), "w")
        if kind == "ceiling":
            dut = subprocess.Popen(
                [args.gen, "--no-huge", "-m", "256", "-l", str(args.dut_cpu), "--file-prefix",
                 f"f{tag}", "--no-pci", "--log-level", "*:error",
                 "--vdev", f"net_memif0,role=server,socket={tmp}/w.sock",
                 "--vdev", f"net_memif1,role=server,socket={tmp}/ps.sock", "--", "--forward",
                 "--rx-queues", "1"],
                stdout=dut_log, stderr=subprocess.STDOUT, text=True)
            prefix = None
        else:
            cfg = switchd_config(tmp, args, lcores)
            prefix = f"s{tag}"
            dut = subprocess.Popen(
                os.environ.get("SWITCHD_BENCH_WRAP", "").split() +
                [args.switchd, "--no-huge", "-m", "512", "--file-prefix", prefix,
                 "--log-level", "*:error", "--", "--config", cfg],
                stdout=dut_log, stderr=subprocess.STDOUT, text=True)
        # The generator (memif client) starts once the server is up.
        ready = "] ready" if prefix else "forwarding"
        deadline = time.time() + 60
        while ready not in open(dut_log.name).read():
            if dut.poll() is not None or time.time() > deadline:
                sys.exit(f"{kind}: the device under test did not start:\n"
                         f"{open(dut_log.name).read()[-2000:]}")
            time.sleep(0.1)
        gen = subprocess.Popen(
            [args.gen, "--no-huge", "-m", "256", "-l", str(args.gen_cpu), "--file-prefix", f"g{tag}",
             "--no-pci", "--log-level", "*:error",
             "--vdev", f"net_memif0,role=client,socket={tmp}/w.sock",
             "--vdev", f"net_memif1,role=client,socket={tmp}/ps.sock",
             "--", "--workers", str(args.workers), "--jobs", str(args.jobs),
             "--elements", str(args.elements), "--aggregators", str(args.aggregators),
             "--duration", str(args.duration), "--warmup", str(args.warmup), "--json",
             "--label", kind, "--rx-queues", str(len(lcores or [1])), "--hold"] +
            # The bare forwarder does not aggregate, so no result would earn an
            # ACK: it gets the same packet mix open loop.
            (["--open-loop"] if kind == "ceiling" else []),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        per_lcore = []
        try:
            time.sleep(args.warmup + 1.0)
            before = None
            if prefix:
                try:
                    before = [telemetry(prefix, f"/ina/lcore,{k}") for k in range(len(lcores))]
                except OSError:
                    before = None
            t0 = time.time()
            # The result line comes while ina-gen still holds its ports (--hold).
            out = ""
            deadline = time.time() + args.duration + args.warmup + 90
            while time.time() < deadline and gen.poll() is None:
                r, _, _ = select.select([gen.stdout], [], [], 0.2)
                if r:
                    out = gen.stdout.readline()
                    break
            dt = time.time() - t0
            if prefix and before:
                try:
                    after = [telemetry(prefix, f"/ina/lcore,{k}") for k in range(len(lcores))]
                except OSError as e:
                    sys.exit(f"telemetry of ina-switchd: {e} (running: {dut.poll() is None})\n"
                             f"{open(dut_log.name).read()[-3000:]}")
                for k in range(len(lcores)):
                    per_lcore.append({
                        "lcore": lcores[k],
                        "mpps_in": round((after[k]["packets"] - before[k]["packets"]) / dt / 1e6, 4),
                        "mpps_out": round((after[k]["tx_packets"] - before[k]["tx_packets"]) / dt / 1e6, 4),
                        "handoff_out": after[k]["handoff_out"],
                        "completed": after[k]["completed"],
                        "collision": after[k]["collision"],
                    })
        finally:
            # The device under test stops polling and closes first, then the generator.
            dut.send_signal(2)
            try:
                dut.wait(timeout=20)
            except subprocess.TimeoutExpired:
                dut.kill()
                dut.wait()
            dut_out = open(dut_log.name).read()
            gen.send_signal(2)
            try:
                err = gen.communicate(timeout=20)[1]
            except subprocess.TimeoutExpired:
                gen.kill()
                err = gen.communicate()[1]
        if dut.returncode != 0:
            sys.exit(f"{kind}: the device under test failed ({dut.returncode}):\n{dut_out[-2000:]}")
        if gen.returncode != 0 or not out.strip():
            sys.exit(f"{kind}: ina-gen failed: {err.strip()[-2000:]}\n{dut_out[-2000:]}")
        r = json.loads(out.strip().splitlines()[-1])
        r["per_lcore"] = per_lcore
        if prefix:
            for line in dut_out.splitlines():
                if "steering:" in line:
                    r["steering"] = line.split("steering: ", 1)[1]
        return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--switchd", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--elements", type=int, default=62)
    ap.add_argument("--aggregators", type=int, default=4096)
    ap.add_argument("--duration", type=float, default=5.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--gen-cpu", type=int, default=0)
    ap.add_argument("--dut-cpu", type=int, default=1)
    ap.add_argument("--lcores", default="1,2", help="switchd lcore counts to run")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each configuration (median kept)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("switchd_bench: needs root (DPDK memif sockets, telemetry)")
    ncpu = os.cpu_count()

    counts = [int(x) for x in args.lcores.split(",") if int(x) <= ncpu]
    # Runs are interleaved (ceiling, x1, x2, ceiling, ...) and the median
    # kept, so that a burst of other load on this shared machine hits every
    # configuration alike.
    ceilings, by_n = [], {n: [] for n in counts}
    for _ in range(args.repeat):
        ceilings.append(run(args, "ceiling"))
        for n in counts:
            # One lcore: the CPU the generator does not use. More: every CPU
            # from the DUT's on, then the generator's (they then compete).
            cpus = [(args.dut_cpu + i) % ncpu for i in range(n)]
            r = run(args, "switchd", cpus)
            r["lcore_cpus"] = cpus
            by_n[n].append(r)

    def median(runs):
        return sorted(runs, key=lambda r: r["mpps_in"])[len(runs) // 2]

    ceiling = median(ceilings)
    ceiling.update({"lcores": 1, "ceiling_mpps": ceiling["mpps_in"], "dut": "ina-gen --forward",
                    "runs_mpps_in": [c["mpps_in"] for c in ceilings]})
    results = []
    for n in counts:
        r = median(by_n[n])
        r.update({"lcores": n, "ceiling_mpps": ceiling["mpps_in"],
                  "ratio": round(r["mpps_in"] / ceiling["mpps_in"], 3) if ceiling["mpps_in"] else None,
                  "shares_cpu_with_generator": args.gen_cpu in r["lcore_cpus"],
                  "runs_mpps_in": [x["mpps_in"] for x in by_n[n]]})
        results.append(r)
    if args.json:
        print(json.dumps(ceiling))
        for r in results:
            print(json.dumps(r))
        return
    print(f"workers {args.workers} x jobs {args.jobs}, {args.elements} elements, "
          f"generator on CPU {args.gen_cpu}, {ncpu} CPUs")
    print(f"ceiling (bare memif forwarder): in {ceiling['mpps_in']:.3f} Mpps, out {ceiling['mpps_out']:.3f} Mpps"
          f" (runs {ceiling['runs_mpps_in']})")
    for r in results:
        print(f"switchd {r['lcores']} lcore(s) on CPUs {r['lcore_cpus']}"
              f"{' (shares a CPU with the generator)' if r['shares_cpu_with_generator'] else ''}: "
              f"in {r['mpps_in']:.3f} Mpps, out {r['mpps_out']:.3f} Mpps = {100 * r['ratio']:.1f}% "
              f"of the ceiling (runs {r['runs_mpps_in']}); steering: {r.get('steering', '?')}")
        for pl in r["per_lcore"]:
            print(f"    lcore {pl['lcore']}: in {pl['mpps_in']:.3f} Mpps, out {pl['mpps_out']:.3f} Mpps, "
                  f"handed off {pl['handoff_out']}")


if __name__ == "__main__":
    main()
