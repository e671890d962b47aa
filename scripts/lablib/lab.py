"""Bringing a topology up and down: the lab as one object.

up():   hugepages / bpffs, namespaces and links, configs, then one
        ina-switchd per switch (or a Linux bridge with --datapath kernel),
        waiting for each switchd's "ready" line.
down(): stops every process the lab started (by recorded id, then whatever
        is left inside the lab's namespaces), deletes the namespaces and
        DPDK run files. Idempotent; also cleans leftovers of a crashed run,
        found by the namespace name prefix.
"""

import glob
import json
import os
import re
import shutil
import time

from . import goat, metrics, netns, procs, render, telemetry, topology

PREFIX_RE = re.compile(r"^inalab[a-z0-9]{0,8}$")
LAB_ROOT = "/tmp/inalab"
# ina-switchd logs this line once its ports and lcores run.
READY_RE = re.compile(r"(^|\]\s)ready\s*$", re.M)


# Switch port drivers `--driver auto` tries, in order (the design's choice:
# AF_XDP, with AF_PACKET where XDP cannot attach).
AUTO_DRIVERS = ["af_xdp", "af_packet"]


class LabError(Exception):
    pass


def check_prefix(prefix):
    if not PREFIX_RE.match(prefix):
        raise LabError(f"prefix '{prefix}' must be 'inalab' followed by up to 8 letters/digits")
    return prefix


def default_run_dir(prefix):
    return os.path.join(LAB_ROOT, prefix)


def find_binary(build_dirs, name):
    for b in build_dirs:
        for sub in ("", "switchd", "ps", "workerlib", "workerlib/tools", "ps/tools", "tools", "goat"):
            p = os.path.join(b, sub, name)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    return None


class Lab:
    def __init__(self, prefix, run_dir=None, log=print):
        self.prefix = check_prefix(prefix)
        self.run = procs.RunDir(run_dir or default_run_dir(prefix))
        self.log = log
        self.plan = None
        self.procs = {}
        self.state = {}

    # ---- bring up -------------------------------------------------------

    def up(self, plan, datapath="switchd", driver="auto", huge="auto", build_dirs=(),
           switch_args=(), ready_timeout=30.0, capture=False):
        self.plan = plan
        self.down(quiet=True)  # leftovers of an earlier run with this prefix
        self.run.make()
        for f in glob.glob(os.path.join(self.run.logs, "*.log")):
            os.unlink(f)
        self.state = {"prefix": self.prefix, "run_dir": self.run.path, "topology": plan["path"],
                      "name": plan["name"], "datapath": datapath, "pids": {},
                      "file_prefixes": [], "started": time.time(), "capture": capture}
        self.run.save(self.state)
        self._assign_lcores(plan)
        netns.create(plan, self.prefix, self.log)
        if datapath == "kernel":
            netns.bridge_switches(plan, self.prefix)
            render.write_all(plan, self.run.conf, "af_packet")
            self.state["driver"] = "kernel bridge"
            self.run.save(self.state)
            return
        binary = find_binary(build_dirs, "ina-switchd")
        if not binary:
            raise LabError("ina-switchd not found in " + ", ".join(build_dirs) +
                           " (build it: meson setup build && ninja -C build)")
        netns.bpffs(self.log)
        hugedir = None
        if huge != "no":
            # 256 x 2 MB reserved machine-wide; each switch maps 128 MB of it.
            hugedir = netns.hugepages(max(256, 64 * len(plan["switches"]) + 64), self.log,
                                      need_free=64 * len(plan["switches"]))
            if hugedir is None and huge == "yes":
                raise LabError("hugepages requested (--huge) but none are available")
        try:
            goat.make_plans(plan, self.run.conf, find_binary(build_dirs, "ina-goat-plan"), self.log)
        except goat.GoatError as e:
            raise LabError(str(e))
        drivers = AUTO_DRIVERS if driver == "auto" else [driver]
        last_err = ""
        for drv in drivers:
            render.write_all(plan, self.run.conf, drv)
            ok, last_err = self._start_switches(plan, binary, drv, hugedir, switch_args,
                                                ready_timeout)
            if ok:
                ok, last_err = self.settle()
            if ok:
                self.state["driver"] = drv
                self.state["huge"] = bool(hugedir)
                self.run.save(self.state)
                self.log(f"lab: {len(plan['switches'])} ina-switchd on {drv} "
                         f"({'hugepages' if hugedir else '--no-huge'}), logs in {self.run.logs}")
                return
            self.log(f"lab: ina-switchd on {drv} did not start: {last_err}")
            self.stop_switches()
        raise LabError(f"ina-switchd did not start: {last_err}")

    def settle(self, timeout=30.0):
        """Waits until every host reaches the first host through the switches
        (the ports' XDP programs take a moment after "ready")."""
        import subprocess
        hosts = self.plan["hosts"]
        pairs = [(h, hosts[0]) for h in hosts[1:]] + ([(hosts[0], hosts[1])] if len(hosts) > 1 else [])
        deadline = time.monotonic() + timeout
        while pairs and time.monotonic() < deadline:
            running = [(a, b, subprocess.Popen(
                ["ip", "netns", "exec", netns.ns_name(self.prefix, a["name"]), "ping", "-n", "-q",
                 "-c", "1", "-W", "1", b["ip"]], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)) for a, b in pairs]
            pairs = [(a, b) for a, b, p in running if p.wait() != 0]
        if pairs:
            return False, "no connectivity through the switches: " + " ".join(
                f"{a['name']}->{b['name']}" for a, b in pairs)
        return True, ""

    def _assign_lcores(self, plan):
        cpus = sorted(os.sched_getaffinity(0))
        for i, s in enumerate(plan["switches"]):
            n = max(1, min(int(s["lcores"]), len(cpus)))
            s["lcore_list"] = [cpus[(i + 1 + k) % len(cpus)] for k in range(n)]

    def switch_file_prefix(self, name):
        return f"{self.prefix}{name}"

    def switch_command(self, binary, sw, hugedir, extra):
        fp = self.switch_file_prefix(sw["name"])
        if hugedir:
            # A captured switch keeps its hugepage files: dpdk-dumpcap, a
            # secondary process, maps them (capture.py; down removes them).
            unlink = [] if self.state.get("capture") else ["--huge-unlink=always"]
            eal = ["--huge-dir", hugedir] + unlink + ["-m", "128"]
        else:
            eal = ["--no-huge", "-m", "256"]
        eal += ["--file-prefix", fp, "--log-level", "lib.eal:warning"]
        # libxdp looks for bpffs in /sys/fs/bpf, which `ip netns exec` hides
        # behind a fresh /sys: it then loads its program without the
        # dispatcher, which is all a switch port needs.
        cmd = [binary] + eal + list(extra) + ["--", "--config",
                                              os.path.join(self.run.conf, f"{sw['name']}.toml")]
        nice = int(os.environ.get("INA_LAB_SWITCH_NICE", "0"))
        return (["nice", "-n", str(nice)] if nice else []) + cmd

    def start_switch(self, sw, binary, hugedir, extra):
        name = f"switchd-{sw['name']}"
        args = self.switch_command(binary, sw, hugedir, extra)
        log_path = os.path.join(self.run.logs, f"{name}.log")
        p = procs.Proc(name, netns.ns_name(self.prefix, sw["name"]), args, log_path)
        self.procs[name] = p
        self.state["pids"][name] = p.pid
        fp = self.switch_file_prefix(sw["name"])
        if fp not in self.state["file_prefixes"]:
            self.state["file_prefixes"].append(fp)
        self.state.setdefault("switch_cmd", {})[sw["name"]] = args
        self.run.save(self.state)
        return p

    def _start_switches(self, plan, binary, drv, hugedir, extra, timeout):
        started = [self.start_switch(sw, binary, hugedir, extra) for sw in plan["switches"]]
        for p in started:
            ok, why = self.wait_ready(p, timeout)
            if not ok:
                return False, why
        return True, ""

    def wait_ready(self, p, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if READY_RE.search(p.log_text()):
                return True, ""
            if p.poll() is not None:
                return False, f"{p.name} exited ({p.poll()}): {p.tail(3)}"
            time.sleep(0.1)
        return False, f"{p.name}: no 'ready' within {timeout:.0f} s: {p.tail(3)}"

    def restart_switch(self, name, timeout=30.0):
        """Starts switch `name` again with the command line of `up` (fault tests)."""
        args = self.state["switch_cmd"][name]
        pname = f"switchd-{name}"
        log_path = os.path.join(self.run.logs, f"{pname}.log")
        with open(log_path, "a") as f:
            f.write("\n--- restarted by the lab ---\n")
        p = procs.Proc(pname, netns.ns_name(self.prefix, name), args, log_path)
        self.procs[pname] = p
        self.state["pids"][pname] = p.pid
        self.run.save(self.state)
        ok, why = self.wait_ready_after_restart(p, timeout)
        if not ok:
            raise LabError(why)
        return p

    def wait_ready_after_restart(self, p, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = p.log_text().split("--- restarted by the lab ---")[-1]
            if READY_RE.search(text):
                return True, ""
            if p.poll() is not None:
                return False, f"{p.name} exited ({p.poll()}) after restart: {p.tail(3)}"
            time.sleep(0.1)
        return False, f"{p.name}: no 'ready' within {timeout:.0f} s after restart"

    def start(self, name, node, args, env=None):
        """Starts a process in node's namespace; output in logs/<name>.log."""
        log_path = os.path.join(self.run.logs, f"{name}.log")
        p = procs.Proc(name, netns.ns_name(self.prefix, node), args, log_path, env)
        self.procs[name] = p
        self.state.setdefault("pids", {})[name] = p.pid
        self.run.save(self.state)
        return p

    def stop_switches(self):
        for name in [n for n in self.procs if n.startswith("switchd-")]:
            self.procs[name].stop()
            self.state["pids"].pop(name, None)
            del self.procs[name]
        self.run.save(self.state)

    # ---- tear down ------------------------------------------------------

    def down(self, quiet=False):
        """Removes everything of this prefix. Safe to call any number of times."""
        state = self.run.load()
        for name, p in list(self.procs.items()):
            p.stop(grace=3.0)
        self.procs.clear()
        procs.stop_pids(list(state.get("pids", {}).values()))
        spaces = netns.list_namespaces(self.prefix)
        for ns in spaces:
            procs.stop_namespace_processes(ns)
        for ns in spaces:
            netns.delete_namespace(ns)
        prefixes = set(state.get("file_prefixes", []))
        prefixes.update(os.path.basename(d) for d in glob.glob(f"/var/run/dpdk/{self.prefix}*"))
        for fp in prefixes:
            if fp.startswith(self.prefix):
                shutil.rmtree(os.path.join("/var/run/dpdk", fp), ignore_errors=True)
                for f in glob.glob(f"/dev/hugepages/{fp}map_*"):
                    try:
                        os.unlink(f)
                    except OSError:
                        pass
        metrics.remove(self.run.path)
        if state:
            state["pids"] = {}
            state.pop("metrics", None)
            state["down"] = time.time()
            self.run.save(state)
        left = netns.list_namespaces(self.prefix)
        if left:
            raise LabError("could not delete namespaces: " + " ".join(left))
        if not quiet and (spaces or state):
            self.log(f"lab: down ({len(spaces)} namespaces removed, prefix {self.prefix})")

    # ---- inspect --------------------------------------------------------

    def status(self):
        state = self.run.load()
        spaces = netns.list_namespaces(self.prefix)
        out = {"prefix": self.prefix, "run_dir": self.run.path, "namespaces": spaces,
               "topology": state.get("name"), "datapath": state.get("datapath"),
               "driver": state.get("driver"), "processes": {}, "switches": {},
               "metrics": state.get("metrics")}
        for name, pid in state.get("pids", {}).items():
            out["processes"][name] = {"pid": pid, "alive": procs.pid_alive(pid)}
        for fp in state.get("file_prefixes", []):
            if os.path.exists(telemetry.socket_path(fp)):
                out["switches"][fp[len(self.prefix):]] = telemetry.snapshot(fp)
        return out

    def counters(self, switch_name):
        return telemetry.snapshot(self.switch_file_prefix(switch_name))

    def ping_all(self, count=1, timeout=2):
        """Every host pings every other host; returns a list of failed pairs."""
        import subprocess
        hosts = self.plan["hosts"] if self.plan else json.load(
            open(os.path.join(self.run.conf, "plan.json")))["hosts"]
        jobs = []
        for a in hosts:
            for b in hosts:
                if a is b:
                    continue
                cmd = ["ip", "netns", "exec", netns.ns_name(self.prefix, a["name"]), "ping", "-n",
                       "-q", "-c", str(count), "-W", str(timeout), "-i", "0.2", b["ip"]]
                jobs.append((a["name"], b["name"],
                             subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL)))
        failed = []
        for a, b, p in jobs:
            if p.wait() != 0:
                failed.append(f"{a}->{b}")
        return failed, len(jobs)


def load_plan(topo, labs_dir, overrides=None):
    """The topology's plan, checked for what the lab can build."""
    plan = topology.load(topology.resolve(topo, labs_dir), overrides)
    for s in plan["switches"]:
        if len(s["uplinks"]) > 1:
            raise topology.TopologyError(
                f"{plan['path']}: switch {s['name']} has {len(s['uplinks'])} uplinks: the lab builds trees "
                f"(one uplink per switch); several paths are for the ns-3 model (scripts/sim-plan, docs/sim.md)")
    for j in plan["jobs"]:
        for w in j["workers"]:
            if w["compute_us"] % 1000:
                raise topology.TopologyError(
                    f"{plan['path']}: job {j['id']}: worker {w['name']}: compute_us {w['compute_us']}: the lab's "
                    f"workers take whole milliseconds (ina-worker --compute-ms)")
    return plan


def sweep_all(log=print):
    """Removes every lab namespace and DPDK run dir on this machine (prefix inalab*)."""
    out = netns.run(["ip", "netns", "list"], check=False) or ""
    prefixes = set()
    for line in out.splitlines():
        name = line.split()[0] if line.strip() else ""
        if name.startswith("inalab") and "-" in name:
            prefixes.add(name.split("-", 1)[0])
    for p in sorted(prefixes):
        if PREFIX_RE.match(p):
            Lab(p, log=log).down()
    return sorted(prefixes)
