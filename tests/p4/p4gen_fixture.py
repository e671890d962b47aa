# SPDX-License-Identifier: BSD-3-Clause
"""The switch configuration the P4 control-plane tests feed p4gen: one job
with a worker and a PS on two ports, one port with an ECN threshold, and
(goat=True) a GOAT plan that splits the job's sub-model a, so that every
table p4gen writes gets entries. Resolved by ina-switchd, as p4gen requires."""

import json
import os
import subprocess

# Nothing but what p4gen needs is given: every default comes from ina-switchd.
TOML = """\
[switch]
ip = "10.0.0.254"
gc_timeout_ms = 500

[[port]]
device = "net_null0"
[[port.neighbour]]
ip = "10.0.0.1"
mac = "02:00:00:00:00:01"

[[port]]
device = "net_null1"
ecn_threshold = 4
[[port.neighbour]]
ip = "10.0.0.100"
mac = "02:00:00:00:00:64"

[[job]]
id = 9
ps_ip = "10.0.0.100"
ps_mac = "02:00:00:00:00:64"
fan_in = [1]
[[job.worker]]
ip = "10.0.0.1"
mac = "02:00:00:00:00:01"
bit = [0]
"""

# Sub-model a: w0 to this switch, w1 to the PS; b: both to this switch. The
# run of a carries the children (fan-in 1, bit 0); the whole run of b none.
GOAT_PLAN = {"plan": {
    "switches": [{"name": "s1", "id": 1, "submodels": ["a", "b"]}],
    "submodels": [{"name": "a", "first_element": 0, "end_element": 100},
                  {"name": "b", "first_element": 100, "end_element": 200}],
    "workers": [{"name": f"w{w}", "ranges": [
        {"submodel": "a", "first_element": 0, "end_element": 100, "agg_node": 1 - w},
        {"submodel": "b", "first_element": 100, "end_element": 200, "agg_node": 1}]}
        for w in range(2)]}}


def resolve(switchd, tmp, goat=False):
    """`ina-switchd --check-config` of the fixture: (exit code, JSON text, stderr)."""
    toml = os.path.join(tmp, "goat.toml" if goat else "sw.toml")
    with open(toml, "w") as f:
        f.write(TOML + ('\n[[goat]]\njob = 9\nplan = "plan.json"\n' if goat else ""))
    if goat:
        with open(os.path.join(tmp, "plan.json"), "w") as f:
            json.dump(GOAT_PLAN, f)
    r = subprocess.run([switchd, "--check-config", toml], capture_output=True, text=True, timeout=30)
    return r.returncode, r.stdout, r.stderr.strip()
