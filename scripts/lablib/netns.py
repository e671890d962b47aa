"""Network namespaces, veth pairs, addresses and static neighbours.

Every host and every switch of a topology is a namespace named
<prefix>-<node>. A host has one interface, eth0; a switch namespace has one
interface per port, named after the peer (w0, ps0, sw2, ...), which
ina-switchd opens with net_af_xdp (or net_af_packet). Neighbour entries are
static, so no host ever needs ARP to reach another.
"""

import json
import os
import subprocess

import ina_wire as wire  # protocol/python/ina_wire.py (pythonpath.py)

HOST_IF = "eth0"


class NetError(Exception):
    pass


def run(args, check=True, quiet=False, timeout=20):
    """Runs a command; raises NetError with its stderr on failure."""
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    if check and p.returncode != 0:
        raise NetError(f"{' '.join(args)}: {p.stderr.strip() or 'exit ' + str(p.returncode)}")
    if not quiet and p.returncode != 0:
        return None
    return p.stdout


def ns_name(prefix, node):
    return f"{prefix}-{node}"


def list_namespaces(prefix):
    """Namespaces whose name starts with `prefix-`."""
    out = run(["ip", "netns", "list"], check=False) or ""
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    return [n for n in names if n.startswith(prefix + "-")]


def ns_pids(ns):
    out = run(["ip", "netns", "pids", ns], check=False, quiet=True) or ""
    return [int(x) for x in out.split() if x.isdigit()]


def ns_exec(ns, args, check=True, timeout=20):
    return run(["ip", "netns", "exec", ns] + list(args), check=check, timeout=timeout)


def link_counters(ns):
    """The kernel's counters of each interface of `ns` but lo, as
    {name: {rx_packets, rx_dropped, tx_packets, tx_dropped}}. On a switch's
    namespace they see what a port's driver never does: frames the veth or
    its XDP program dropped because the AF_XDP / AF_PACKET ring was full."""
    out = run(["ip", "-j", "-s", "-n", ns, "link", "show"], check=False, quiet=True) or "[]"
    links = {}
    for link in json.loads(out):
        st = link.get("stats64") or {}
        if link.get("ifname") == "lo" or not st:
            continue
        links[link["ifname"]] = {f"{d}_{k}": int(st.get(d, {}).get(k, 0))
                                 for d in ("rx", "tx") for k in ("packets", "dropped")}
    return links


def _sysctl(ns, key, value):
    ns_exec(ns, ["sysctl", "-q", "-w", f"{key}={value}"], check=False)


def _quiet_namespace(ns):
    # No IPv6 router solicitations or DAD packets wandering into the switch.
    _sysctl(ns, "net.ipv6.conf.all.disable_ipv6", 1)
    _sysctl(ns, "net.ipv6.conf.default.disable_ipv6", 1)
    run(["ip", "-n", ns, "link", "set", "lo", "up"])


def _no_offloads(ns, dev):
    # A frame captured by AF_XDP / AF_PACKET must be complete: no partial
    # checksums, no GSO super-frames.
    ns_exec(ns, ["ethtool", "-K", dev, "tx", "off", "rx", "off", "tso", "off", "gso", "off",
                 "gro", "off"], check=False)


def link_mtu(plan):
    """The IP MTU every lab link needs: 1500, or more when a fragment's frame
    (IPv4 + UDP + INA header + payload, wire.h) does not fit."""
    return max(1500, wire.frame_len(plan["elements"]) - wire.ETH_HDR.size)


def create(plan, prefix, log):
    """Builds the namespaces and links of `plan`. Raises NetError."""
    for s in plan["switches"]:
        ns = ns_name(prefix, s["name"])
        run(["ip", "netns", "add", ns])
        _quiet_namespace(ns)
    for h in plan["hosts"]:
        ns = ns_name(prefix, h["name"])
        run(["ip", "netns", "add", ns])
        _quiet_namespace(ns)
    made = set()
    for s in plan["switches"]:
        sw_ns = ns_name(prefix, s["name"])
        for p in s["ports"]:
            if p["peer_kind"] == "host":
                h = next(x for x in plan["hosts"] if x["name"] == p["peer"])
                peer_ns, peer_if, peer_mac = ns_name(prefix, h["name"]), HOST_IF, h["mac"]
            else:
                key = tuple(sorted((s["name"], p["peer"])))
                if key in made:
                    continue
                made.add(key)
                o = next(x for x in plan["switches"] if x["name"] == p["peer"])
                op = next(x for x in o["ports"] if x["peer"] == s["name"])
                peer_ns, peer_if, peer_mac = ns_name(prefix, o["name"]), s["name"], op["mac"]
            run(["ip", "link", "add", p["name"], "netns", sw_ns, "address", p["mac"],
                 "type", "veth", "peer", "name", peer_if, "netns", peer_ns, "address", peer_mac])
            for ns, dev in ((sw_ns, p["name"]), (peer_ns, peer_if)):
                # The switch side carries no IP: ina-switchd owns it.
                if ns == sw_ns or p["peer_kind"] == "switch":
                    _sysctl(ns, f"net.ipv4.conf.{dev}.arp_ignore", 8)
                _no_offloads(ns, dev)
                run(["ip", "-n", ns, "link", "set", dev, "mtu", str(link_mtu(plan)), "up"])
    everyone = [(h["ip"], h["mac"]) for h in plan["hosts"]] + \
               [(s["ip"], s["mac"]) for s in plan["switches"]]
    for h in plan["hosts"]:
        ns = ns_name(prefix, h["name"])
        run(["ip", "-n", ns, "addr", "add", f"{h['ip']}/{h['prefixlen']}", "dev", HOST_IF])
        for ip, mac in everyone:
            if ip != h["ip"]:
                run(["ip", "-n", ns, "neigh", "replace", ip, "lladdr", mac, "dev", HOST_IF,
                     "nud", "permanent"])
        # Parameter packets arrive for the jobs' multicast groups.
        run(["ip", "-n", ns, "route", "add", "239.18.0.0/16", "dev", HOST_IF], check=False)
    log(f"lab: {len(plan['switches'])} switch and {len(plan['hosts'])} host namespaces, "
        f"prefix {prefix}")


def bridge_switches(plan, prefix):
    """Kernel data path: a Linux bridge joins each switch's ports, for testing
    the lab (and end hosts) without ina-switchd. No aggregation."""
    for s in plan["switches"]:
        ns = ns_name(prefix, s["name"])
        run(["ip", "-n", ns, "link", "add", "br0", "type", "bridge"])
        for p in s["ports"]:
            run(["ip", "-n", ns, "link", "set", p["name"], "master", "br0"])
        run(["ip", "-n", ns, "link", "set", "br0", "up"])


def unbridge_switches(plan, prefix):
    for s in plan["switches"]:
        run(["ip", "-n", ns_name(prefix, s["name"]), "link", "del", "br0"], check=False, quiet=True)


def delete_namespace(ns):
    run(["ip", "netns", "del", ns], check=False, quiet=True)


def hugepages(want_pages, log, need_free=None):
    """Tries to have `want_pages` free 2 MB hugepages and hugetlbfs mounted.
    Returns the mount point, or None (then DPDK runs with --no-huge)."""
    try:
        with open("/proc/sys/vm/nr_hugepages") as f:
            have = int(f.read())
        if have < want_pages:
            with open("/proc/sys/vm/nr_hugepages", "w") as f:
                f.write(str(want_pages))
    except OSError as e:
        log(f"lab: hugepages: cannot set nr_hugepages ({e.strerror}), using --no-huge")
        return None
    free = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("HugePages_Free:"):
                free = int(line.split()[1])
    mount = None
    with open("/proc/mounts") as f:
        for line in f:
            parts = line.split()
            if parts[2] == "hugetlbfs":
                mount = parts[1]
                break
    if mount is None:
        mount = "/dev/hugepages"
        os.makedirs(mount, exist_ok=True)
        if subprocess.run(["mount", "-t", "hugetlbfs", "nodev", mount],
                          stderr=subprocess.DEVNULL).returncode != 0:
            log("lab: hugepages: cannot mount hugetlbfs, using --no-huge")
            return None
    need_free = want_pages // 2 if need_free is None else need_free
    if free < need_free:
        log(f"lab: hugepages: only {free} free 2 MB pages, using --no-huge")
        return None
    return mount


def bpffs(log):
    """AF_XDP programs are pinned in bpffs by libxdp; mount it if missing."""
    with open("/proc/mounts") as f:
        if any(line.split()[2] == "bpf" for line in f):
            return True
    os.makedirs("/sys/fs/bpf", exist_ok=True)
    if subprocess.run(["mount", "-t", "bpf", "bpf", "/sys/fs/bpf"],
                      stderr=subprocess.DEVNULL).returncode != 0:
        log("lab: cannot mount bpffs at /sys/fs/bpf (AF_XDP still works, without pinning)")
        return False
    return True
