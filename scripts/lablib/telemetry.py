"""Reads ina-switchd counters through DPDK telemetry (/ina/... commands).

The socket is /var/run/dpdk/<file-prefix>/dpdk_telemetry.v2 (SOCK_SEQPACKET):
on connect the server sends a JSON greeting; each command is answered with
one JSON object {"<command>": <value>}.
"""

import json
import os
import socket


def socket_path(file_prefix):
    return os.path.join("/var/run/dpdk", file_prefix, "dpdk_telemetry.v2")


class Telemetry:
    def __init__(self, file_prefix, timeout=2.0):
        self.path = socket_path(file_prefix)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(timeout)
        self.sock.connect(self.path)
        greeting = json.loads(self.sock.recv(16384).decode())
        self.max_len = int(greeting.get("max_output_len", 16384))

    def cmd(self, command):
        self.sock.send(command.encode())
        data = self.sock.recv(max(self.max_len, 16384) * 2)
        reply = json.loads(data.decode())
        # The reply's key is the command without its parameter.
        return next(iter(reply.values())) if isinstance(reply, dict) and reply else None

    def close(self):
        self.sock.close()


def snapshot(file_prefix):
    """All /ina/ counters of one switchd as a dict, or {"error": ...}."""
    try:
        t = Telemetry(file_prefix)
    except OSError as e:
        return {"error": f"telemetry {socket_path(file_prefix)}: {e.strerror or e}"}
    out = {}
    try:
        out["summary"] = t.cmd("/ina/summary")
        out["pipeline"] = t.cmd("/ina/pipeline")
        out["aggregators"] = t.cmd("/ina/aggregators")
        jobs = t.cmd("/ina/jobs") or []
        out["jobs"] = {str(j): t.cmd(f"/ina/job,{j}") for j in (jobs if isinstance(jobs, list) else [])}
        ports = t.cmd("/ina/ports") or []
        out["ports"] = {}
        if isinstance(ports, list):
            for i, name in enumerate(ports):
                out["ports"][str(name)] = t.cmd(f"/ina/port,{i}")
    except (OSError, ValueError) as e:
        out["error"] = f"telemetry: {e}"
    finally:
        t.close()
    return out
