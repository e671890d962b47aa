"""Background traffic: non-aggregation flows sharing the lab's links.

Each [[background]] entry of a topology is one iperf3 flow from a host to
another, TCP (unlimited, or paced at rate_mbps) or UDP at rate_mbps. The
flows cross the switches like every other packet: ina-switchd forwards
IPv4 that is not INA by destination address (docs/switchd.md), through the
same egress queues and shapers as the jobs' packets, and the hosts' XDP
filters pass everything but INA's UDP port to the kernel. So a flow to a
worker competes with that worker's parameter packets at the switch port
facing it, a flow to the PS with the results of every job.

Times are on the clock of the jobs (0: the workers were released); a
negative start_s starts the flow that long before the workers, so a job
can start into a link that is already busy (ATP Fig. 16).
"""

import os
import shutil
import signal
import time

from . import netns
from .procs import last_json

# iperf3 runs this long when the flow has no stop time: it is interrupted
# (SIGINT) when the jobs end and still reports what it sent.
OPEN_ENDED_S = 86400
# The receiver's report interval: the rate while the jobs ran is read from
# these (an interrupted test reports its complete intervals only).
INTERVAL_S = 0.1


class BackgroundError(Exception):
    pass


def check_tool():
    """iperf3's path, or BackgroundError naming the package."""
    path = shutil.which("iperf3")
    if not path:
        raise BackgroundError("[[background]] needs iperf3, which is not installed "
                              "(Debian package iperf3; scripts/deps.sh installs it)")
    return path


def lead_s(plan):
    """How long before the workers the first flow starts (0: none starts
    before them)."""
    return max([0.0] + [-f["start_s"] for f in plan.get("background", [])])


class Flows:
    """The flows of a plan on a lab that is up: start them as their times
    come (tick), stop them (finish), report what each carried."""

    def __init__(self, lab, plan, log):
        self.lab, self.log = lab, log
        self.flows = [dict(f) for f in plan.get("background", [])]
        self.iperf = check_tool() if self.flows else None
        self.hosts = {h["name"]: h for h in plan["hosts"]}

    def serve(self):
        """One iperf3 server per flow, on its receiver, listening before
        any client starts."""
        for f in self.flows:
            to = self.hosts[f["to"]]
            f["server"] = self.lab.start(f"bg-{f['name']}-server", to["name"],
                                         [self.iperf, "-s", "-1", "-p", str(f["port"]), "-i", str(INTERVAL_S),
                                          "--json"])
        deadline = time.monotonic() + 10
        for f in self.flows:
            while not self._listening(f):
                if f["server"].poll() is not None or time.monotonic() > deadline:
                    raise BackgroundError(f"iperf3 server of background flow {f['name']} on "
                                          f"{f['to']} did not start: {f['server'].tail(2)}")
                time.sleep(0.05)

    def _listening(self, f):
        out = netns.run(["ip", "netns", "exec", f["server"].ns, "ss", "-Hltn",
                         f"sport = :{f['port']}"], check=False) or ""
        return bool(out.strip())

    def tick(self, now):
        """Starts the flows due at `now` (seconds on the jobs' clock) and
        stops those whose stop time has come."""
        for f in self.flows:
            if "client" not in f and now >= f["start_s"]:
                self._start(f, now)
            elif f.get("client") and f["stop_s"] and now >= f["stop_s"] and not f.get("stopped"):
                self._stop(f)

    def _start(self, f, now):
        to = self.hosts[f["to"]]
        dur = f["stop_s"] - f["start_s"] if f["stop_s"] else OPEN_ENDED_S
        cmd = [self.iperf, "-c", to["ip"], "-p", str(f["port"]), "-t", f"{dur:.3f}", "-i", "0",
               "-P", str(f["streams"]), "--json"]
        if f["protocol"] == "udp" or f["rate_mbps"]:
            cmd += ["-b", f"{f['rate_mbps']}M"]
        if f["protocol"] == "udp":
            cmd += ["-u", "-l", "1400"]
        if f["congestion"]:
            cmd += ["-C", f["congestion"]]
        if f["ecn"]:
            # Per namespace: only this host's TCP asks for ECN.
            netns.ns_exec(netns.ns_name(self.lab.prefix, f["from"]),
                          ["sysctl", "-q", "-w", "net.ipv4.tcp_ecn=1"])
        f["client"] = self.lab.start(f"bg-{f['name']}-client", f["from"], cmd)
        f["started_at_s"] = round(now, 2)
        self.log(f"lab: background {f['name']}: {f['from']} -> {f['to']} {f['protocol']} "
                 f"{f['rate_mbps'] or 'unlimited'} Mb/s from {now:.1f} s")

    def _stop(self, f):
        """SIGINT: iperf3 ends the test and prints its JSON so far."""
        p = f["client"]
        if p.poll() is None:
            # `ip netns exec` execs iperf3: the process is iperf3 itself.
            os.kill(p.pid, signal.SIGINT)
            if p.wait(5.0) is None:
                p.stop(grace=1.0)
        f["stopped"] = True

    def finish(self, jobs_s):
        """Stops every flow still running; each flow's report entry, with
        its rate over the whole flow and while the jobs ran (the first
        `jobs_s` seconds of the jobs' clock)."""
        for f in self.flows:
            if f.get("client") and not f.get("stopped"):
                self._stop(f)
        for f in self.flows:
            if f["server"].wait(3.0) is None:
                f["server"].stop(grace=1.0)
        return [self._entry(f, jobs_s) for f in self.flows]

    def _entry(self, f, jobs_s):
        out = {k: f[k] for k in ("name", "from", "to", "protocol", "rate_mbps", "streams",
                                 "congestion", "ecn", "start_s", "stop_s")}
        out["started_at_s"] = f.get("started_at_s")
        cli = last_json(f["client"].log_text()) if f.get("client") else None
        srv = last_json(f["server"].log_text()) or {}
        # The receiver's count where it wrote one (UDP loses what the
        # sender counted), else the sender's.
        recv = (srv.get("end") or {}).get("sum_received") or {}
        sent = ((cli or {}).get("end") or {}).get("sum_sent") or {}
        src = recv if recv.get("bytes") else sent
        out["bytes"] = src.get("bytes", 0)
        out["seconds"] = src.get("seconds", 0.0)
        out["gbps"] = 8 * out["bytes"] / out["seconds"] / 1e9 if out["seconds"] else 0.0
        out["measured_at"] = "receiver" if src is recv else "sender"
        out["retransmits"] = sent.get("retransmits")
        out["gbps_during_jobs"] = _rate_within(srv, f.get("started_at_s"), 0.0, jobs_s)
        out["error"] = None if cli else ("iperf3 client wrote no report" if f.get("client")
                                         else "not started: the jobs ended before start_s")
        if cli and cli.get("error") and not cli["error"].startswith("interrupt"):
            out["error"] = cli["error"]
        out["ok"] = out["error"] is None and out["bytes"] > 0
        return out


def _rate_within(srv, started_at, t_from, t_to):
    """Gb/s the receiver counted in its intervals that lie between t_from
    and t_to on the jobs' clock (the flow started at `started_at`); None
    when no interval does."""
    if started_at is None:
        return None
    got, secs = 0, 0.0
    for iv in srv.get("intervals") or []:
        s = iv.get("sum") or {}
        mid = started_at + (s.get("start", 0) + s.get("end", 0)) / 2
        if t_from <= mid <= t_to:
            got += s.get("bytes", 0)
            secs += s.get("seconds", 0.0)
    return 8 * got / secs / 1e9 if secs else None


def format_flows(entries):
    return [f"background {e['name']} ({e['from']} -> {e['to']}, {e['protocol']}, "
            f"{e['rate_mbps'] or 'unlimited'} Mb/s): {e['gbps']:.3f} Gb/s over {e['seconds']:.1f} s, "
            + ("-" if e["gbps_during_jobs"] is None else f"{e['gbps_during_jobs']:.3f}")
            + " Gb/s while the jobs ran"
            + (f"  ERROR {e['error']}" if e["error"] else "") for e in entries]
