/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulated network of a plan: one ns-3 node per switch (SwitchNode)
 * and per host (WorkerApp, PsApp), point-to-point links of the plan's
 * ports, and the jobs' configurations for the worker library and the PS,
 * derived from the plan as the lab derives them.
 */
#ifndef INA_SIM_NETWORK_H
#define INA_SIM_NETWORK_H

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <ns3/node-container.h>

#include "background_flow.h"
#include "host_port.h"
#include "plan.h"
#include "ps_app.h"
#include "switch_node.h"
#include "worker_app.h"

namespace ina::sim {

struct SimOptions {
	double rate_gbps = 100;  /* links whose switch names no rate_gbps */
	/* A host's own transmitter, where > 0: the lab shapes only the switch's
	 * egress (rate_gbps), a host sends into its veth unshaped. */
	double host_rate_gbps = 0;
	uint64_t timer_jitter_ns = 1000; /* a worker's timer fires up to this late, at random */
	uint64_t delay_ns = 1000; /* propagation delay of every link */
	uint32_t elements = 0;    /* 0: the plan's */
	double drop = 0;          /* random loss on every link, per frame */
	uint32_t seed = 1;
	double max_time_s = 60;   /* simulated time limit */
	/* Worker library keys (ina::set_config_key()), for every worker. */
	std::vector<std::pair<std::string, std::string>> worker_keys;
};

struct JobHosts {
	const PlanJob *job = nullptr;
	std::vector<WorkerApp *> workers;
	PsApp *ps = nullptr;
};

class Network {
public:
	/* Builds the nodes, links and applications; false with *error. */
	bool build(const Plan &plan, const SimOptions &opt, std::string *error);
	/* Runs the simulation until every worker is done or the time limit. */
	void run();
	bool all_done() const;
	/* Per job and per switch; true when every result was exact. */
	bool report(std::ostream &text, std::ostream *json) const;
	double wall_seconds() const { return wall_s_; }

private:
	bool build_switches(std::string *error);
	bool link_switches(std::string *error);
	bool build_hosts(std::string *error);
	bool build_job(const PlanJob &j, std::string *error);
	bool build_background(std::string *error);
	void link_host(uint32_t si, uint32_t pi, const PlanHost &h, double switch_gbps);
	std::pair<ns3::Ptr<ns3::NetDevice>, ns3::Ptr<ns3::NetDevice>> link(ns3::Ptr<ns3::Node> a,
									     ns3::Ptr<ns3::Node> b, double gbps,
									     uint32_t queue);

	Plan plan_;
	SimOptions opt_;
	uint32_t elements_ = 0;
	std::vector<std::unique_ptr<SwitchNode>> switches_;
	std::map<std::string, ns3::Ptr<ns3::Node>> nodes_;
	std::map<std::string, ns3::Ptr<ns3::NetDevice>> host_devs_;
	std::map<std::string, std::unique_ptr<HostPort>> host_ports_;
	std::vector<std::unique_ptr<BackgroundFlow>> flows_;
	/* The jobs' clock: a flow may start before the workers (negative
	 * start_s), so they start at this time of the simulation's clock. */
	uint64_t t0_ns_ = 0;
	std::vector<std::unique_ptr<WorkerApp>> workers_;
	std::map<std::string, std::unique_ptr<PsApp>> ps_;
	std::vector<JobHosts> jobs_;
	double wall_s_ = 0;
};

} /* namespace ina::sim */

#endif /* INA_SIM_NETWORK_H */
