/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The plan of a simulated network: the lab's plan (scripts/lablib/
 * topology.py computes it from a config/labs/ TOML file; scripts/sim-plan
 * writes it as JSON), so that the simulator and the lab give a topology the
 * same addresses, ports, levels, bits and fan-in.
 */
#ifndef INA_SIM_PLAN_H
#define INA_SIM_PLAN_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ina::sim {

struct PlanPort {
	std::string peer;
	bool to_switch = false;
	/* Toward one of the switch's uplinks (a tree's parent, a leaf-spine's
	 * spine): parameter packets go up one such port only. */
	bool up = false;
	/* The hosts and switches the port leads to on a shortest path; an
	 * address behind several ports is reached over all of them (ECMP). */
	std::vector<uint32_t> neighbour_ips;
	std::vector<std::string> neighbour_names;
	double drop_rate = 0;
	double rate_gbps = 0; /* a host's [[host]] rate_gbps: its link's rate; 0: the switch's */
};

struct PlanSwitch {
	std::string name;
	uint16_t id = 0;
	uint32_t ip = 0;
	uint8_t mac[6] = {};
	uint32_t aggregators = 4096;
	uint32_t ecn_threshold = 0; /* packets in an egress queue; 0: no marks */
	double rate_gbps = 0;       /* 0: the simulation's link rate */
	uint32_t queue_capacity = 1024;
	std::vector<PlanPort> ports;
};

struct PlanHost {
	std::string name;
	std::string sw; /* the switch it hangs off */
	uint32_t ip = 0;
	uint8_t mac[6] = {};
};

struct PlanWorker {
	std::string host;
	uint32_t rank = 0;
	uint8_t start_level = 0;
	uint16_t agg_node = 0;
	uint8_t bit[4] = {0xFF, 0xFF, 0xFF, 0xFF};
	uint64_t compute_us = 0; /* compute phase between two iterations */
};

struct PlanJob {
	uint16_t id = 0;
	std::string name, mode, ps, cc;
	uint8_t levels = 1;
	uint8_t fan_in[4] = {};
	std::vector<PlanWorker> workers;
	std::vector<std::string> switches; /* those that aggregate for it */
	uint64_t tensor = 0;
	uint32_t iterations = 1;
	uint32_t window = 0;
	double start_delay_s = 0;
	/* The plan's own worker keys for this job ("worker_keys": {KEY: VALUE}),
	 * applied after --worker's: e.g. a static index range per job. */
	std::vector<std::pair<std::string, std::string>> worker_keys;
};

/* A [[background]] flow (docs/lab.md, "Background traffic"): the model
 * sends it as constant-rate UDP datagrams (docs/sim.md). */
struct PlanBackground {
	std::string name, from, to, protocol;
	double rate_mbps = 0;
	double start_s = 0, stop_s = 0; /* on the jobs' clock; stop 0: until they end */
	uint16_t port = 0;              /* UDP destination port */
};

struct Plan {
	std::string name;
	uint32_t elements = 0;
	uint32_t aggregators = 4096;
	uint64_t gc_timeout_ms = 1000;
	double job_share = 1.0;
	std::vector<PlanSwitch> switches;
	std::vector<PlanHost> hosts;
	std::vector<PlanJob> jobs;
	std::vector<PlanBackground> background;

	const PlanHost *host(const std::string &name) const;
	const PlanSwitch *sw(const std::string &name) const;
};

/* Reads the JSON plan at `path`; false with a one-line *error. */
bool read_plan(const std::string &path, Plan *out, std::string *error);

} /* namespace ina::sim */

#endif /* INA_SIM_PLAN_H */
