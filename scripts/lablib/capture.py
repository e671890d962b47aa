"""Packet capture of a lab run (`scripts/lab run ... --pcap DIR`).

Every switch port: `dpdk-dumpcap`, a DPDK secondary process of that switch's
ina-switchd (rte_pdump), writes what the port receives and sends as
DIR/<switch>-<peer>.pcapng. A secondary process maps the switch's hugepage
files, so a capturing lab runs its switches on hugepages without
--huge-unlink (the lab removes the files at `down`).

Hosts on a kernel transport (`--host-transport udp` or `af_packet`): tcpdump
on the host's interface, DIR/<host>.pcap. A host on AF_XDP has no capture of
its own: on veth the kernel's taps do not see AF_XDP frames; its link is the
switch port's capture, the other end of the same veth.

Read them with tshark and tools/wireshark/ina.lua (docs/wire-tools.md).
"""
import os
import shutil
import signal
import time

from . import netns, procs, render


class CaptureError(Exception):
    pass


def start(lab, plan, pcap_dir, host_transport):
    """Starts one capture per switch port (and per kernel-transport host);
    returns the procs.Proc list, ready when this returns."""
    dumpcap = shutil.which("dpdk-dumpcap")
    if not dumpcap:
        raise CaptureError("--pcap needs dpdk-dumpcap (Debian package dpdk)")
    if not lab.state.get("huge"):
        raise CaptureError("--pcap needs the switches on hugepages (dpdk-dumpcap shares their "
                           "memory); this lab runs them with --no-huge")
    os.makedirs(pcap_dir, exist_ok=True)
    started = []
    drv = lab.state["driver"]
    # (stdbuf: dumpcap says "Capturing on" through buffered stdout.)
    # One secondary process at a time: each attaches to the switch through
    # DPDK's multi-process channel, which answers one request at a time and
    # times out attaches that arrive together on a loaded machine.
    for sw in plan["switches"]:
        fp = lab.switch_file_prefix(sw["name"])
        for i, p in enumerate(sw["ports"]):
            port = render.switch_device(sw, p, drv, i).split(",")[0]
            out = os.path.join(pcap_dir, f"{sw['name']}-{p['peer']}.pcapng")
            started.append(_ready(lab.start(f"capture-{sw['name']}-{p['peer']}", sw["name"],
                                            ["stdbuf", "-o0", dumpcap, "--file-prefix", fp, "-i", port, "-s", "9216",
                                             "-w", out])))
    if host_transport in ("udp", "af_packet"):
        tcpdump = shutil.which("tcpdump")
        for h in plan["hosts"]:
            out = os.path.join(pcap_dir, f"{h['name']}.pcap")
            started.append(_ready(lab.start(f"capture-{h['name']}", h["name"],
                                            [tcpdump, "-i", netns.HOST_IF, "-w", out, "-U", "-s", "0"])))
    return started


def _ready(proc, timeout=30.0):
    """Waits until the capture runs (packets before that are not in it)."""
    deadline = time.monotonic() + timeout
    while not _capturing(proc):
        if not proc.alive():
            raise CaptureError(f"{proc.name} exited: {_tail(proc)}")
        if time.monotonic() > deadline:
            proc.stop()
            raise CaptureError(f"{proc.name} did not start capturing in {timeout:.0f} s: {_tail(proc)}")
        time.sleep(0.05)
    return proc


def _capturing(proc):
    text = _tail(proc)
    return "Capturing on" in text or "listening on" in text


def _tail(proc):
    try:
        with open(proc.log_path, "rb") as f:
            f.seek(proc.log_start)
            return f.read().decode(errors="replace")[-400:]
    except OSError:
        return ""


def stop(lab, started):
    """Stops the captures (SIGINT: each writes its statistics and closes its
    file) before the switches stop."""
    for proc in started:
        proc.stop(grace=5.0, sig=signal.SIGINT)
        lab.procs.pop(proc.name, None)
        lab.state["pids"].pop(proc.name, None)
    lab.run.save(lab.state)
