"""The lab on one machine: topology files, network namespaces, processes.

scripts/lab is the command line; these modules do one job each:
  topology   reads and checks a config/labs/*.toml file, computes the plan
             (addresses, ports, routes, per-job levels, bits and fan-in)
  render     writes each ina-switchd config and each job's PS/worker setup
  netns      namespaces, veth pairs, addresses, neighbours, hugepages, bpffs
  procs      starts processes inside namespaces, logs, stops them
  state      the run directory's state file, so `down` finds what `up` made

The wire format is protocol/python/ina_wire.py (`import ina_wire`): an entry
script puts it and this package on sys.path through pythonpath.py.
"""
