"""The lab on one machine: topology files, network namespaces, processes.

scripts/lab is the command line; these modules do one job each:
  topology   reads and checks a config/labs/*.toml file, computes the plan
             (addresses, ports, routes, per-job levels, bits and fan-in)
  render     writes each ina-switchd config and each job's PS/worker setup
  netns      namespaces, veth pairs, addresses, neighbours, hugepages, bpffs
  procs      starts processes inside namespaces, logs, stops them
  state      the run directory's state file, so `down` finds what `up` made
"""
import os
import sys

# The wire format's one Python definition, workerlib/python/ina/wire.py, as
# `import wire`: by path, because importing it as ina.wire would load the ina
# package and its compiled extension, which the lab does not need.
_WIRE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                         "workerlib", "python", "ina")
if _WIRE_DIR not in sys.path:
    sys.path.insert(0, _WIRE_DIR)
