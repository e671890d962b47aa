/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ina-sim: runs a lab topology in the ns-3 model (docs/sim.md). The plan is
 * the lab's (scripts/sim-plan writes it from a config/labs/ TOML file):
 * the switches run the project's switch program, the hosts the worker
 * library and the PS. Prints per job the iteration times, the share of
 * fragments aggregated in the network, retransmissions and whether every
 * result is the exact sum, and per switch its aggregator occupancy. Exit 0
 * when every job finished with exact results, 1 otherwise.
 */
#include <fstream>
#include <iostream>

#include <ns3/simulator.h>

#include "ina/cli.h"
#include "network.h"
#include "plan.h"

namespace {

constexpr const char *kProg = "ina-sim";

bool split_keys(const std::vector<std::string> &in, ina::sim::SimOptions *opt, std::string *error)
{
	for (const std::string &kv : in) {
		const size_t eq = kv.find('=');
		if (eq == std::string::npos || eq == 0) {
			*error = "--worker " + kv + ": expected KEY=VALUE";
			return false;
		}
		opt->worker_keys.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
	}
	return true;
}

} /* namespace */

int main(int argc, char **argv)
{
	CLI::App app{"Runs a lab topology's jobs in the ns-3 model: the project's switch program, worker "
		     "library and PS on simulated links."};
	ina::add_standard_options(app, kProg);
	std::string plan_path, json_path;
	std::vector<std::string> worker_keys;
	ina::sim::SimOptions opt;
	app.add_option("plan", plan_path, "the plan, JSON (scripts/sim-plan LAB.toml)")->required();
	app.add_option("--rate-gbps", opt.rate_gbps, "link rate where the topology names none")
		->check(ina::finite_range(0.001, 10000));
	app.add_option("--host-rate-gbps", opt.host_rate_gbps,
		       "a host's own transmit rate (0: its link's), e.g. the lab's unshaped veth")
		->check(ina::finite_range(0, 10000));
	app.add_option("--timer-jitter-ns", opt.timer_jitter_ns,
		       "a worker's timer fires up to this late, uniformly at random (host noise)");
	app.add_option("--delay-ns", opt.delay_ns, "propagation delay of every link");
	app.add_option("--elements", opt.elements, "values per fragment (0: the plan's)")
		->check(CLI::Range(0u, static_cast<unsigned>(INA_MAX_ELEMENTS)));
	app.add_option("--drop", opt.drop, "random loss per frame on every link")->check(ina::finite_range(0, 0.5));
	app.add_option("--seed", opt.seed, "the simulator's random seed")->check(CLI::Range(1u, UINT32_MAX));
	app.add_option("--max-time-s", opt.max_time_s, "simulated time limit")->check(ina::finite_range(0.001, 3600));
	app.add_option("--worker", worker_keys, "a worker library key for every worker, KEY=VALUE (repeatable)");
	app.add_option("--json", json_path, "also write the results as JSON here");
	if (const int rc = ina::parse_cli(kProg, app, argc, argv); rc >= 0)
		return rc;

	std::string err;
	ina::sim::Plan plan;
	if (!split_keys(worker_keys, &opt, &err) || !ina::sim::read_plan(plan_path, &plan, &err)) {
		ina::print_error(kProg, err);
		return ina::kExitUsage;
	}
	ina::sim::Network net;
	if (!net.build(plan, opt, &err)) {
		ina::print_error(kProg, err);
		return ina::kExitUsage;
	}
	net.run();
	std::ofstream json_file;
	if (!json_path.empty()) {
		json_file.open(json_path);
		if (!json_file) {
			ina::print_error(kProg, json_path + ": cannot write");
			return 1;
		}
	}
	const bool ok = net.report(std::cout, json_path.empty() ? nullptr : &json_file);
	ns3::Simulator::Destroy();
	return ok ? 0 : 1;
}
