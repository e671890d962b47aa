"""Reads a lab topology file (config/labs/*.toml) and computes the plan.

The topology file is the one thing a user edits. Everything else -- each
ina-switchd config, each parameter server's job description, each worker's
command line, addresses, MACs and routes -- is derived here, so the parts can
never disagree. config/labs/README.md documents every key.
"""

import ipaddress
import os
import re
import tomllib

import ina_wire as wire  # protocol/python/ina_wire.py (pythonpath.py)

NOT_AT_LEVEL = 0xFF

# The switches' `elements` where the topology names none: the largest
# fragment both AF_XDP ends of a lab link carry (docs/lab.md, "Fragment
# size"). The PS and the workers are then given no size: the PS learns it
# from its interface and the switch's registration ACK, the workers from the
# PS (docs/protocol.md).
AUTO_ELEMENTS = 768

NAME_RE = re.compile(r"^[a-z][a-z0-9]{0,9}$")


class TopologyError(Exception):
    """A topology file that does not validate; str() is one line."""


# Keys each table accepts, with their defaults (None: required).
LAB_KEYS = {
    "name": "",
    "description": "",
    "subnet": "10.18.0.0/16",
    "elements": None,  # None: the switches get AUTO_ELEMENTS and the jobs size from the path
    "aggregators": 4096,
    "gc_timeout_ms": 1000,
    "job_share": 1.0,  # ina-switchd job_share: the fraction of aggregators one job may hold
    "mbufs": 8191,
    "lcores": 1,
    "idle_sleep_us": 20,
    "switch": [],
    "host": [],
    "job": [],
    "background": [],
}
SWITCH_KEYS = {
    "name": None,
    "uplink": "",
    # Several parents (a leaf-spine's spines, a fat-tree's aggregation or
    # core switches): a multi-path network, for the ns-3 model only
    # (docs/sim.md); the lab runs trees (lablib/lab.py refuses it).
    "uplinks": [],
    "aggregators": None,  # default: the lab's
    "lcores": None,       # data-path lcores; default: the lab's
    "drop_rate": 0.0,     # random drop on every egress port of this switch
    "ecn_threshold": 0,
    "rate_gbps": 0.0,
    "queue_capacity": 1024,
}
OPTIONAL_NONE = ("aggregators", "lcores", "elements")
HOST_KEYS = {
    "name": None,
    "switch": None,
    "drop_rate": 0.0,  # random drop at the switch port facing this host (egress)
    "worker_args": [],  # extra arguments of the worker on this host, after its job's
    "rate_gbps": 0.0,  # the switch port facing this host sends at this rate (0: the switch's)
    "compute_us": 0,   # the worker's compute phase between two iterations (0: its job's)
}
# [[background]]: one iperf3 flow (lablib/background.py).
BACKGROUND_KEYS = {
    "name": "",
    "from": None,
    "to": None,
    "protocol": "tcp",
    "rate_mbps": 0.0,  # 0: TCP as fast as it goes (UDP needs a rate)
    "streams": 1,
    "congestion": "",  # TCP congestion control (iperf3 -C); "": the kernel's default
    "ecn": False,      # TCP: negotiate ECN, so the switches' CE marks slow the flow
    "start_s": 0.0,    # on the jobs' clock; negative: before the workers start
    "stop_s": 0.0,     # 0: until the jobs end
}
JOB_KEYS = {
    "id": None,
    "name": "",
    "ps": None,
    "workers": None,
    "mode": "tree",          # tree: every switch on the path aggregates; rack: rack-scale
    "tensor": 262144,        # float elements per worker and iteration
    "iterations": 2,
    "window": 0,             # fragments in flight per worker; 0: the worker's default
    "cc": "",                # congestion control: "" (worker default), atp, a2tp, none
    "scale": 0.0,            # quantization scale; 0: default (1e8)
    "value_range": 1.0,      # worker tensors are uniform in [-value_range, value_range)
    "start_delay_s": 0.0,
    "compute_us": 0,         # each worker's compute phase between two iterations, microseconds
    # Each worker's counters every trace_ms (ina-worker --trace), in the
    # report as the job's "traces"; 0: none.
    "trace_ms": 0,
    "worker_args": [],
    "ps_args": [],
    # mode "goat" (docs/goat.md, "In the lab"): the tensor cut into this many
    # equal sub-models, the planner's seed, and each switch's memory B(s) for
    # the planner (0: its aggregator registers, aggregators x elements x 4).
    "goat_submodels": 8,
    "goat_seed": 1,
    "goat_memory_bytes": 0,
    # Who installs the plan on the switches: "ps" (ina-ps sends each switch
    # its part by control message, [goat] of its job file) or "config" (each
    # switch's [[goat]] table names the plan).
    "goat_install": "ps",
    # A plan written by hand (relative to the topology file) instead of
    # ina-goat-plan's: worker i of the plan is the job's i-th worker, the
    # switch ids those of the lab.
    "goat_plan_file": "",
}


def _check_keys(table, allowed, where):
    """Rejects unknown keys and values of the wrong type; fills defaults."""
    if not isinstance(table, dict):
        raise TopologyError(f"{where}: must be a table")
    for k in table:
        if k not in allowed:
            raise TopologyError(f"{where}: unknown key '{k}' (known: {', '.join(sorted(allowed))})")
    out = {}
    for k, default in allowed.items():
        if k not in table:
            if default is None and k not in OPTIONAL_NONE:
                raise TopologyError(f"{where}: '{k}' is required")
            out[k] = default
            continue
        v = table[k]
        if default is not None:
            want = type(default)
            ok = isinstance(v, want) or (want is float and isinstance(v, int))
            if isinstance(v, bool) and want is not bool:
                ok = False
            if not ok:
                raise TopologyError(f"{where}: '{k}' must be of type {want.__name__}, got {v!r}")
        elif k in OPTIONAL_NONE and (isinstance(v, bool) or not isinstance(v, int)):
            raise TopologyError(f"{where}: '{k}' must be an integer, got {v!r}")
        out[k] = v
    return out


def _name(v, where):
    if not isinstance(v, str) or not NAME_RE.match(v):
        raise TopologyError(f"{where}: name {v!r} must be 1-10 lower-case letters/digits, starting with a letter")
    return v


def _mac(*b):
    return ":".join(f"{x:02x}" for x in b)


def load(path, overrides=None):
    """Parses and checks `path`, applies `overrides`, returns the plan (a dict)."""
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except FileNotFoundError:
        raise TopologyError(f"{path}: no such topology file")
    except tomllib.TOMLDecodeError as e:
        raise TopologyError(f"{path}: {e}")
    return build_plan(raw, path, overrides or {})


def resolve(name_or_path, labs_dir):
    """A topology name (single-rack) or a path to a .toml file."""
    if os.sep in name_or_path or name_or_path.endswith(".toml"):
        return name_or_path
    return os.path.join(labs_dir, name_or_path + ".toml")


def build_plan(raw, path, overrides):
    lab, name, net = _lab_settings(raw, path, overrides)
    switches, by_switch = _plan_switches(lab, net, path, overrides)
    hosts, by_host = _plan_hosts(lab, net, path, by_switch)
    adj = _switch_graph(switches, by_switch, path)
    _plan_ports(switches, hosts, by_switch, overrides)
    _plan_neighbours(switches, hosts, adj)
    jobs = _plan_jobs(lab, path, by_switch, by_host, adj, overrides)
    background = _plan_background(lab, path, by_host)
    return {"background": background, "name": name, "description": lab["description"], "path": os.path.abspath(path),
            "subnet": str(net), "elements": lab["elements"], "elements_named": lab["elements_named"],
            "gc_timeout_ms": lab["gc_timeout_ms"],
            "job_share": lab["job_share"],
            "mbufs": lab["mbufs"], "idle_sleep_us": lab["idle_sleep_us"], "switches": switches, "hosts": hosts, "jobs": jobs}


def _lab_settings(raw, path, overrides):
    """The top-level table, checked, with the command line's overrides:
    (lab, name, subnet)."""
    lab = _check_keys(raw, LAB_KEYS, path)
    name = lab["name"] or os.path.splitext(os.path.basename(path))[0]
    try:
        net = ipaddress.ip_network(lab["subnet"])
    except ValueError as e:
        raise TopologyError(f"{path}: subnet: {e}")
    if net.version != 4 or net.prefixlen > 16:
        raise TopologyError(f"{path}: subnet: must be an IPv4 /16 or larger, got {lab['subnet']}")
    for k in ("elements", "aggregators", "gc_timeout_ms", "mbufs", "lcores", "idle_sleep_us", "job_share"):
        if k in overrides:
            lab[k] = overrides[k]
    lab["elements_named"] = lab["elements"] is not None
    if not lab["elements_named"]:
        lab["elements"] = AUTO_ELEMENTS
    if isinstance(lab["elements"], bool) or not isinstance(lab["elements"], int) or \
            not 1 <= lab["elements"] <= 2048:
        raise TopologyError(f"{path}: elements: must be 1..2048, got {lab['elements']}")
    if not 0.0 < lab["job_share"] <= 1.0:
        raise TopologyError(f"{path}: job_share: must be above 0 and at most 1, got {lab['job_share']}")
    return lab, name, net


def _plan_switches(lab, net, path, overrides):
    """Each [[switch]] with its id, address and MAC: (switches, by name)."""
    switches = []
    for i, t in enumerate(lab["switch"]):
        where = f"{path}: switch[{i}]"
        s = _check_keys(t, SWITCH_KEYS, where)
        _name(s["name"], where)
        s["aggregators"] = s["aggregators"] if s["aggregators"] is not None else lab["aggregators"]
        s["lcores"] = s["lcores"] if s["lcores"] is not None else lab["lcores"]
        if "aggregators" in overrides:
            s["aggregators"] = overrides["aggregators"]
        s["index"] = i
        s["id"] = i + 1
        s["ip"] = str(net.network_address + (i + 1))
        s["mac"] = _mac(0x02, 0x18, 0x00, 0x00, 0x00, i + 1)
        s["ports"] = []
        switches.append(s)
    if not switches:
        raise TopologyError(f"{path}: at least one [[switch]] is required")
    by_switch = {s["name"]: s for s in switches}
    if len(by_switch) != len(switches):
        raise TopologyError(f"{path}: two switches with the same name")
    return switches, by_switch


def _plan_hosts(lab, net, path, by_switch):
    """Each [[host]] with its address and MAC: (hosts, by name)."""
    hosts = []
    for i, t in enumerate(lab["host"]):
        where = f"{path}: host[{i}]"
        h = _check_keys(t, HOST_KEYS, where)
        _name(h["name"], where)
        if h["switch"] not in by_switch:
            raise TopologyError(f"{where}: switch '{h['switch']}' is not a [[switch]]")
        if h["name"] in by_switch:
            raise TopologyError(f"{where}: '{h['name']}' is also a switch name")
        # 250 hosts per /24 from .1.1 on: the lab's hosts, and the ns-3
        # model's (docs/sim.md) larger ones.
        block, k = divmod(i, 250)
        if block >= 250 or 256 * (block + 2) > net.num_addresses:
            raise TopologyError(f"{where}: subnet {net} holds at most {250 * min(250, net.num_addresses // 256 - 1)} hosts")
        if not 0 <= h["rate_gbps"] <= 1000:
            raise TopologyError(f"{where}: rate_gbps must be 0..1000")
        if not 0 <= h["compute_us"] <= 60_000_000:
            raise TopologyError(f"{where}: compute_us must be 0..60000000 (microseconds)")
        h["index"] = i
        h["ip"] = str(net.network_address + 256 * (block + 1) + (k + 1))
        h["mac"] = _mac(0x02, 0x18, 0x00, 0x01, block, k + 1)
        h["prefixlen"] = net.prefixlen
        hosts.append(h)
    by_host = {h["name"]: h for h in hosts}
    if len(by_host) != len(hosts):
        raise TopologyError(f"{path}: two hosts with the same name")
    return hosts, by_host


def _uplinks_of(s, by_switch, path):
    """A [[switch]]'s parents: `uplink` or `uplinks`, checked."""
    where = f"{path}: switch {s['name']}"
    if s["uplink"] and s["uplinks"]:
        raise TopologyError(f"{where}: name 'uplink' or 'uplinks', not both")
    ups = [s["uplink"]] if s["uplink"] else list(s["uplinks"])
    for u in ups:
        if not isinstance(u, str) or u not in by_switch or u == s["name"]:
            raise TopologyError(f"{where}: uplink {u!r} is not another [[switch]]")
    if len(set(ups)) != len(ups):
        raise TopologyError(f"{where}: an uplink is named twice")
    return ups


def _switch_graph(switches, by_switch, path):
    """The switches' neighbours over their uplinks, {name: [names]}, checked:
    connected, no switch above itself, and one tree where no switch names
    several uplinks."""
    adj = {s["name"]: [] for s in switches}
    for s in switches:
        s["uplinks"] = _uplinks_of(s, by_switch, path)
        s["uplink"] = s["uplinks"][0] if s["uplinks"] else ""
        for u in s["uplinks"]:
            adj[s["name"]].append(u)
            adj[u].append(s["name"])
    seen, stack = set(), [switches[0]["name"]]
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(adj[n])
    if len(seen) != len(switches):
        raise TopologyError(f"{path}: switches and uplinks must connect every switch")
    # Uplinks point up: following them never comes back (no cycle).
    state = {}

    def climb(n):
        state[n] = 1
        for u in by_switch[n]["uplinks"]:
            if state.get(u) == 1 or (u not in state and climb(u)):
                return True
        state[n] = 2
        return False

    if any(n not in state and climb(n) for n in by_switch):
        raise TopologyError(f"{path}: uplinks form a cycle (a switch is above itself)")
    return adj


def is_multipath(plan):
    """Whether some switch has several uplinks (several paths between two
    switches): the ns-3 model's networks, not the lab's."""
    return any(len(s["uplinks"]) > 1 for s in plan["switches"])


def _plan_ports(switches, hosts, by_switch, overrides):
    """Links: host <-> its switch, switch <-> each of its uplinks, with their
    drop rates (the topology's, then --egress-drop). Switch-side interface
    names are the peer's name, so `ip -n <sw> link` reads like the topology.
    A port toward an uplink is `up` (the ns-3 model's multicast sends one
    copy up, over one of them)."""
    def add_port(sw, peer, peer_kind, drop_rate, up=False):
        p = {"name": peer, "peer": peer, "peer_kind": peer_kind, "index": len(sw["ports"]),
             "mac": _mac(0x02, 0x18, 0x10 + sw["index"], 0x00, 0x00, len(sw["ports"]) + 1),
             "drop_rate": drop_rate, "up": up, "neighbours": []}
        sw["ports"].append(p)
        return p

    for h in hosts:
        add_port(by_switch[h["switch"]], h["name"], "host", h["drop_rate"])["rate_gbps"] = h["rate_gbps"]
    for s in switches:
        for u in s["uplinks"]:
            add_port(s, u, "switch", s["drop_rate"], up=True)
            add_port(by_switch[u], s["name"], "switch", by_switch[u]["drop_rate"])
    for s in switches:
        for p in s["ports"]:
            if s["drop_rate"] and not p["drop_rate"]:
                p["drop_rate"] = s["drop_rate"]
    for spec, rate in overrides.get("drop", {}).items():
        sw_name, _, port = spec.partition(":")
        if sw_name not in by_switch:
            raise TopologyError(f"--egress-drop {spec}: no switch '{sw_name}'")
        ports = [p for p in by_switch[sw_name]["ports"] if p["name"] == port or not port]
        if not ports:
            raise TopologyError(f"--egress-drop {spec}: switch {sw_name} has no port '{port}'")
        for p in ports:
            p["drop_rate"] = rate


def _distances(adj):
    """Hops between every two switches, {a: {b: n}} (BFS from each)."""
    out = {}
    for src in adj:
        d, queue = {src: 0}, [src]
        for n in queue:
            for m in adj[n]:
                if m not in d:
                    d[m] = d[n] + 1
                    queue.append(m)
        out[src] = d
    return out


def _plan_neighbours(switches, hosts, adj):
    """Every port's neighbours: the hosts and switches it leads to on a
    shortest path. In a tree one port per address; where several
    neighbours are equally close (a multi-path network) each of their
    ports lists it (the ns-3 model spreads over them, ECMP)."""
    dist = _distances(adj)
    for s in switches:
        me = s["name"]
        port_of = {p["name"]: p for p in s["ports"]}

        def via(target):
            return [n for n in adj[me] if dist[n][target] == dist[me][target] - 1]

        for h in hosts:
            entry = {"ip": h["ip"], "mac": h["mac"], "name": h["name"]}
            for n in ([h["name"]] if h["switch"] == me else via(h["switch"])):
                port_of[n]["neighbours"].append(entry)
        for o in switches:
            if o is not s:
                for n in via(o["name"]):
                    port_of[n]["neighbours"].append({"ip": o["ip"], "mac": o["mac"], "name": o["name"]})
        s["depth_from"] = {}


def _plan_jobs(lab, path, by_switch, by_host, adj, overrides):
    """Each [[job]]'s plan, and the hosts' roles (worker of one job, or the
    PS of some)."""
    jobs = [plan_job(_check_keys(t, JOB_KEYS, f"{path}: job[{i}]"), f"{path}: job[{i}]",
                     by_switch, by_host, adj, overrides)
            for i, t in enumerate(lab["job"])]
    ids = [j["id"] for j in jobs]
    if len(set(ids)) != len(ids):
        raise TopologyError(f"{path}: two jobs with the same id")
    used = {}
    for j in jobs:
        for w in j["workers"]:
            if w["name"] in used:
                raise TopologyError(f"{path}: host {w['name']} is a worker of jobs {used[w['name']]} and {j['id']}")
            used[w["name"]] = j["id"]
            by_host[w["name"]]["role"] = "worker"
            by_host[w["name"]]["job"] = j["id"]
    for j in jobs:
        if j["ps"]["name"] in used:
            raise TopologyError(f"{path}: host {j['ps']['name']} is both a PS and a worker")
        ps = by_host[j["ps"]["name"]]
        ps["role"] = "ps"
        ps.setdefault("ps_jobs", []).append(j["id"])
    return jobs


def _plan_background(lab, path, by_host):
    """Each [[background]] flow, checked, with its name and server port."""
    flows = []
    for i, t in enumerate(lab["background"]):
        where = f"{path}: background[{i}]"
        f = _check_keys(t, BACKGROUND_KEYS, where)
        f["name"] = f["name"] or f"bg{i + 1}"
        _name(f["name"], where)
        for k in ("from", "to"):
            if f[k] not in by_host:
                raise TopologyError(f"{where}: {k} '{f[k]}' is not a [[host]]")
        if f["from"] == f["to"]:
            raise TopologyError(f"{where}: from and to are the same host")
        if f["protocol"] not in ("tcp", "udp"):
            raise TopologyError(f"{where}: protocol must be \"tcp\" or \"udp\", got {f['protocol']!r}")
        if f["rate_mbps"] < 0 or (f["protocol"] == "udp" and not f["rate_mbps"]):
            raise TopologyError(f"{where}: rate_mbps must be >= 0 (0: unlimited, TCP only)")
        if f["congestion"] and not NAME_RE.match(f["congestion"]):
            raise TopologyError(f"{where}: congestion {f['congestion']!r} is not a congestion control name")
        if not 1 <= f["streams"] <= 16:
            raise TopologyError(f"{where}: streams must be 1..16")
        if f["stop_s"] and f["stop_s"] <= f["start_s"]:
            raise TopologyError(f"{where}: stop_s must be after start_s (or 0: until the jobs end)")
        f["port"] = 5201 + i
        flows.append(f)
    if len({f["name"] for f in flows}) != len(flows):
        raise TopologyError(f"{path}: two background flows with the same name")
    return flows


def _tree_hops(a, b, parent, depth):
    """Links between switches a and b of the tree rooted at the PS's switch."""
    n = 0
    while a != b:
        if depth[a] >= depth[b]:
            a = parent[a]
        else:
            b = parent[b]
        n += 1
    return n


def plan_job(j, where, by_switch, by_host, adj, overrides):
    """Levels, fan-in and each worker's bits for one job (docs/protocol.md)."""
    where, mode = _check_job(j, where, by_host, overrides)
    root = by_host[j["ps"]]["switch"]
    parent, depth = _tree_from(root, adj)
    _check_one_path(j, where, mode, root, adj, by_host)
    workers = [by_host[w] for w in j["workers"]]

    def path_of(w):
        out, n = [], w["switch"]
        while n is not None:
            out.append(n)
            n = parent[n]
        return out

    # Switches that aggregate for this job: every switch on a worker's path.
    on_path = set()
    for w in workers:
        n = w["switch"]
        while n is not None:
            on_path.add(n)
            n = parent[n]
    order = {name: s["index"] for name, s in by_switch.items()}
    children = {}
    for n in sorted(on_path, key=order.get):
        kids = [c for c in sorted(on_path, key=order.get) if parent[c] == n]
        kids += [w["name"] for w in workers if w["switch"] == n]
        children[n] = kids

    result = {"id": j["id"], "name": j["name"] or f"job{j['id']}", "mode": mode,
              "ps": {"name": j["ps"], "ip": by_host[j["ps"]]["ip"], "mac": by_host[j["ps"]]["mac"]},
              "group": wire.ip_text(wire.job_group(j["id"])),
              "switches": sorted(on_path, key=order.get)}
    for k in ("tensor", "iterations", "window", "cc", "scale", "value_range", "start_delay_s", "trace_ms",
              "worker_args", "ps_args", "goat_submodels", "goat_seed", "goat_memory_bytes", "goat_install", "goat_plan_file"):
        result[k] = j[k]

    if mode == "none":
        levels, fan_in, wl = _flat_levels(workers)
    elif mode == "goat":
        levels, fan_in, wl = _goat_levels(j, where, workers, on_path, parent, depth, by_switch, result)
    elif mode == "tree":
        levels, fan_in, wl = _tree_levels(where, workers, on_path, parent, depth, children)
    else:
        levels, fan_in, wl = _rack_levels(where, workers, on_path, order, by_switch)
    for w, entry in zip(workers, wl):
        entry["path"] = path_of(w)
        entry["compute_us"] = w["compute_us"] or j["compute_us"]
    if levels > wire.INA_MAX_LEVELS:
        raise TopologyError(f"{where}: {levels} levels, at most {wire.INA_MAX_LEVELS}")
    if any(f > wire.INA_BITMAP_BITS for f in fan_in):
        raise TopologyError(f"{where}: fan-in above {wire.INA_BITMAP_BITS}")
    result["levels"] = levels
    result["fan_in"] = fan_in
    result["workers"] = wl
    return result


def _check_job(j, where, by_host, overrides):
    """Checks a [[job]] table and applies the command line's overrides to
    it: (where, for messages naming the job, and its mode)."""
    if not isinstance(j["id"], int) or not 1 <= j["id"] <= 65535:
        raise TopologyError(f"{where}: id must be 1..65535")
    where = f"{where} (job {j['id']})"
    if j["ps"] not in by_host:
        raise TopologyError(f"{where}: ps '{j['ps']}' is not a [[host]]")
    if not isinstance(j["workers"], list) or not j["workers"]:
        raise TopologyError(f"{where}: workers must be a non-empty list of host names")
    for w in j["workers"]:
        if w not in by_host:
            raise TopologyError(f"{where}: worker '{w}' is not a [[host]]")
    if len(set(j["workers"])) != len(j["workers"]):
        raise TopologyError(f"{where}: a worker is listed twice")
    mode = overrides.get("mode", {}).get(j["id"], overrides.get("mode_all", j["mode"]))
    if mode not in ("tree", "rack", "none", "goat"):
        raise TopologyError(f"{where}: mode must be \"tree\", \"rack\", \"none\" or \"goat\", got {mode!r}")
    for k in ("tensor", "iterations", "window", "goat_install"):
        if k in overrides:
            j[k] = overrides[k]
    if j["id"] in overrides.get("start_delay", {}):
        j["start_delay_s"] = overrides["start_delay"][j["id"]]
    if not 0 <= j["compute_us"] <= 60_000_000:
        raise TopologyError(f"{where}: compute_us must be 0..60000000 (microseconds)")
    if not isinstance(j["trace_ms"], int) or not 0 <= j["trace_ms"] <= 60000:
        raise TopologyError(f"{where}: trace_ms must be 0..60000 (milliseconds; 0: no trace)")
    return where, mode


def _check_one_path(j, where, mode, root, adj, by_host):
    """Modes tree and goat aggregate along the one path from each worker to
    the PS; in a multi-path network that holds only for some jobs (all in
    the PS's rack, say). Rack-scale jobs aggregate in the workers' own
    switches and take any path from there."""
    if mode not in ("tree", "goat"):
        return
    paths, queue = {root: 1}, [root]
    dist = {root: 0}
    for n in queue:
        for m in adj[n]:
            if m not in dist:
                dist[m] = dist[n] + 1
                paths[m] = 0
                queue.append(m)
            if dist[m] == dist[n] + 1:
                paths[m] += paths[n]
    for w in j["workers"]:
        if paths[by_host[w]["switch"]] > 1:
            raise TopologyError(f"{where}: mode {mode} needs one path from each worker to the PS, and "
                                f"{w} has {paths[by_host[w]['switch']]} (several uplinks); use mode = \"rack\"")


def _tree_from(root, adj):
    """The switch tree rooted at `root` (the PS's switch): (parent, depth)."""
    parent, depth = {root: None}, {root: 0}
    queue = [root]
    while queue:
        n = queue.pop(0)
        for m in adj[n]:
            if m not in parent:
                parent[m], depth[m] = n, depth[n] + 1
                queue.append(m)
    return parent, depth


def _worker_entry(w, rank, start_level, bits, agg_node):
    return {"name": w["name"], "ip": w["ip"], "mac": w["mac"], "rank": rank,
            "start_level": start_level, "bit": bits, "agg_node": agg_node,
            "worker_args": list(w.get("worker_args", []))}


def _flat_levels(workers):
    """One level, every worker a bit of it: (levels, fan_in, workers). Mode
    none: no switch aggregates (the job is registered nowhere), the PS does
    it all."""
    return 1, [len(workers)], [_worker_entry(w, i, 0, [i], 0) for i, w in enumerate(workers)]


def _goat_levels(j, where, workers, on_path, parent, depth, by_switch, result):
    """GOAT: one level, every switch on the path registers the job with all
    of its workers; the plan (lablib/goat.py) names per sub-model the one
    switch that aggregates it, the others forward. Adds the switches' hops
    and ids to `result`."""
    if not 1 <= j["goat_submodels"] <= min(j["tensor"], 255):
        raise TopologyError(f"{where}: goat_submodels must be 1..255 and at most tensor")
    if j["goat_install"] not in ("ps", "config"):
        raise TopologyError(f"{where}: goat_install must be \"ps\" or \"config\"")
    plan = _flat_levels(workers)
    result["hops_to_ps"] = {n: depth[n] + 1 for n in on_path}
    result["switch_hops"] = {a: {b: _tree_hops(a, b, parent, depth) for b in on_path}
                             for a in on_path}
    result["switch_ids"] = {n: by_switch[n]["id"] for n in on_path}
    return plan


def _tree_levels(where, workers, on_path, parent, depth, children):
    """Every switch on the path aggregates its children, one level per depth
    of the tree: (levels, fan_in, workers)."""
    levels = max(depth[n] for n in on_path) + 1
    level_of = {n: levels - 1 - depth[n] for n in on_path}
    fan_in = [0] * levels
    for n, kids in children.items():
        l = level_of[n]
        if fan_in[l] and fan_in[l] != len(kids):
            raise TopologyError(f"{where}: switches at level {l} have different fan-in "
                                f"({fan_in[l]} and {len(kids)}: {n}); one fan-in per level")
        fan_in[l] = len(kids)
    wl = []
    for i, w in enumerate(workers):
        bits = [NOT_AT_LEVEL] * levels
        node, n = w["name"], w["switch"]
        start = level_of[n]
        while n is not None:
            bits[level_of[n]] = children[n].index(node)
            node, n = n, parent[n]
        wl.append(_worker_entry(w, i, start, bits, 0))
    return levels, fan_in, wl


def _rack_levels(where, workers, on_path, order, by_switch):
    """Rack-scale (ATP §5.2.2's RSS): each worker's own switch aggregates its
    rack at level 0 and nothing else aggregates. Level 1 only names the
    rack, so the PS can tell the racks' partial results apart; the GOAT
    field pins each fragment to its rack switch, so the switches above
    forward the partial results untouched. (levels, fan_in, workers)."""
    racks = [n for n in sorted(on_path, key=order.get)
             if any(w["switch"] == n for w in workers)]
    per_rack = {n: [w for w in workers if w["switch"] == n] for n in racks}
    sizes = {len(v) for v in per_rack.values()}
    if len(sizes) != 1:
        raise TopologyError(f"{where}: rack mode needs the same number of workers in every rack")
    levels = 1 if len(racks) == 1 else 2
    fan_in = [sizes.pop()] + ([len(racks)] if levels == 2 else [])
    wl = []
    for i, w in enumerate(workers):
        bits = [per_rack[w["switch"]].index(w)]
        if levels == 2:
            bits.append(racks.index(w["switch"]))
        wl.append(_worker_entry(w, i, 0, bits, by_switch[w["switch"]]["id"] if levels == 2 else 0))
    return levels, fan_in, wl
