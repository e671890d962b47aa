"""Topologies in the lab's format (config/labs/README.md) for the networks
the ns-3 model runs at scale (docs/sim.md): a two-tier tree, a leaf-spine
and a k-ary fat-tree, as the tables of a topology file (the dict tomllib
reads), and the TOML text of such a dict. scripts/sim-topology writes
them; lablib.topology plans them as it plans the lab's files.
"""

KINDS = ("tree", "leaf-spine", "fat-tree")


def tree(racks):
    """`racks` ToRs below one core: (switches, rack names)."""
    tors = [{"name": f"tor{r}", "uplink": "core"} for r in range(racks)]
    return [{"name": "core"}] + tors, [t["name"] for t in tors]


def leaf_spine(tors, spines):
    """Every ToR linked to every spine: (switches, rack names)."""
    names = [f"spine{s}" for s in range(spines)]
    racks = [{"name": f"tor{t}", "uplinks": list(names)} for t in range(tors)]
    return racks + [{"name": n} for n in names], [t["name"] for t in racks]


def fat_tree(k):
    """The k-ary fat-tree: k pods of k/2 edge and k/2 aggregation switches,
    every edge switch linked to every aggregation switch of its pod,
    aggregation switch i of each pod to cores i*k/2 .. (i+1)*k/2 - 1,
    (k/2)^2 cores: (switches, rack names, the edge switches)."""
    half = k // 2
    edges, aggs = [], []
    for p in range(k):
        pod_aggs = [f"a{p}x{i}" for i in range(half)]
        edges += [{"name": f"e{p}x{i}", "uplinks": list(pod_aggs)} for i in range(half)]
        aggs += [{"name": a, "uplinks": [f"c{i * half + c}" for c in range(half)]}
                 for i, a in enumerate(pod_aggs)]
    cores = [{"name": f"c{c}"} for c in range(half * half)]
    return edges + aggs + cores, [e["name"] for e in edges]


def hosts_and_jobs(racks, hosts, jobs, ps_switch=None, spread=False):
    """`hosts` workers per rack (h<rack>x<i>) and `jobs` jobs, each with
    hosts/jobs workers in every rack; job j's PS on a host of its own
    (ps<j>, listed first) on `ps_switch`, or on rack j mod racks, or with
    `spread` on rack j * racks / jobs (a fat-tree's PSs in different pods):
    (host tables, [(ps, workers)])."""
    def ps_rack(j):
        return racks[j * len(racks) // jobs if spread else j % len(racks)]

    out = [{"name": f"ps{j}", "switch": ps_switch or ps_rack(j)} for j in range(jobs)]
    for r, rack in enumerate(racks):
        out += [{"name": f"h{r}x{h}", "switch": rack} for h in range(hosts)]
    per = hosts // jobs
    placed = [(f"ps{j}", [f"h{r}x{j * per + i}" for r in range(len(racks)) for i in range(per)])
              for j in range(jobs)]
    return out, placed


def mark_stragglers(host_tables, names, rate_gbps=0.0, compute_us=0):
    """Gives each host of `names` a slower link (its [[host]] rate_gbps)
    and/or a compute phase between iterations (compute_us): stragglers."""
    chosen = set(names)
    for h in host_tables:
        if h["name"] in chosen:
            if rate_gbps:
                h["rate_gbps"] = rate_gbps
            if compute_us:
                h["compute_us"] = compute_us
    return sorted(chosen)


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return repr(v)


def to_toml(raw):
    """The TOML text of a topology dict: top-level keys, then its arrays of
    tables ([[switch]], [[host]], [[job]], [[background]]) in that order."""
    tables = ("switch", "host", "job", "background")
    lines = [f"{k} = {_value(v)}" for k, v in raw.items() if k not in tables]
    for t in tables:
        for entry in raw.get(t, []):
            lines += ["", f"[[{t}]]"] + [f"{k} = {_value(v)}" for k, v in entry.items()]
    return "\n".join(lines) + "\n"
