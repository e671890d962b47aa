"""Processes inside lab namespaces, and the run directory's state file.

A run directory holds conf/ (generated configs), logs/ (one file per
process) and state.json (namespaces and process ids), so that `down` can
always find and remove what `up` made, even from another shell.
"""

import json
import os
import signal
import subprocess
import time

from . import netns


class RunDir:
    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.conf = os.path.join(self.path, "conf")
        self.logs = os.path.join(self.path, "logs")
        self.state_file = os.path.join(self.path, "state.json")

    def make(self):
        os.makedirs(self.conf, exist_ok=True)
        os.makedirs(self.logs, exist_ok=True)

    def load(self):
        try:
            with open(self.state_file) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def save(self, state):
        tmp = self.state_file + ".tmp"
        with open(tmp, "w") as f:
            json.dump(state, f, indent=1)
        os.replace(tmp, self.state_file)


class Proc:
    """One process started in a namespace, output to logs/<name>.log."""

    def __init__(self, name, ns, args, log_path, env=None):
        self.name, self.ns, self.args, self.log_path = name, ns, list(args), log_path
        self.log_file = open(log_path, "ab")
        # The log is appended to by every process of this name (a job run
        # again on the same lab): this one's output starts here.
        self.log_start = self.log_file.tell()
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.popen = subprocess.Popen(["ip", "netns", "exec", ns] + self.args,
                                      stdin=subprocess.DEVNULL, stdout=self.log_file,
                                      stderr=subprocess.STDOUT, start_new_session=True,
                                      env=full_env)
        self.pid = self.popen.pid
        self.started = time.monotonic()

    def poll(self):
        return self.popen.poll()

    def wait(self, timeout):
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def alive(self):
        return self.popen.poll() is None

    def stop(self, grace=3.0, sig=signal.SIGTERM):
        """SIGTERM the process group, SIGKILL after `grace` seconds."""
        if self.popen.poll() is None:
            kill_group(self.pid, sig)
            if self.wait(grace) is None:
                kill_group(self.pid, signal.SIGKILL)
                self.wait(2.0)
        self.log_file.close()
        return self.popen.returncode

    def kill(self):
        """Abrupt end (fault injection): SIGKILL, no grace."""
        kill_group(self.pid, signal.SIGKILL)
        self.wait(2.0)
        return self.popen.returncode

    def log_text(self):
        """What this process wrote (not earlier processes of the same name)."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(self.log_start)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def tail(self, lines=5):
        return "\n".join(self.log_text().rstrip().splitlines()[-lines:])


def kill_group(pid, sig):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def stop_pids(pids, grace=3.0):
    """Stops processes recorded by an earlier `up` (by id, group first)."""
    pids = [p for p in pids if pid_alive(p)]
    for p in pids:
        kill_group(p, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(pid_alive(p) for p in pids):
        time.sleep(0.1)
    for p in pids:
        if pid_alive(p):
            kill_group(p, signal.SIGKILL)


def stop_namespace_processes(ns, grace=2.0):
    """Whatever still runs inside a lab namespace was started by the lab."""
    pids = netns.ns_pids(ns)
    for p in pids:
        try:
            os.kill(p, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(pid_alive(p) for p in pids):
        time.sleep(0.1)
    for p in netns.ns_pids(ns):
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


def last_json(text):
    """The last JSON object printed in a log (workers print one line, the PS
    a pretty-printed object at exit)."""
    end = text.rfind("}")
    while end >= 0:
        depth, i = 0, end
        while i >= 0:
            c = text[i]
            if c == "}":
                depth += 1
            elif c == "{":
                depth -= 1
                if depth == 0:
                    try:
                        return json.loads(text[i:end + 1])
                    except ValueError:
                        break
            i -= 1
        end = text.rfind("}", 0, end)
    return None
