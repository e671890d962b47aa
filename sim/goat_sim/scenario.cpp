/*
 * Scenario: the seeded draws of a §IV-C topology (scenario.h).
 */
#include "scenario.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace goat_sim {
namespace {

Network build(const std::string &topology)
{
	if (topology == "leaf-spine")
		return Network::leaf_spine(10, 10, 50);
	if (topology == "fat-tree")
		return Network::fat_tree(8, 6); /* 16 + 32 + 32 switches, 192 servers */
	throw std::invalid_argument("unknown topology '" + topology +
				    "' (leaf-spine or fat-tree)");
}

/* Fisher-Yates with the portable uniform_index. */
template <class T> void shuffle(std::vector<T> &v, std::mt19937_64 &rng)
{
	for (size_t i = v.size(); i > 1; i--)
		std::swap(v[i - 1], v[uniform_index(rng, i)]);
}

/* A standard normal by Box-Muller from 53-bit uniforms (portable). */
double standard_normal(std::mt19937_64 &rng)
{
	const double u1 = (double(rng() >> 11) + 1.0) * 0x1.0p-53; /* (0, 1] */
	const double u2 = double(rng() >> 11) * 0x1.0p-53;
	return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

/*
 * The paper: rate = ratio x 10 Gb/s, ratio in [0, 1] drawn from a normal
 * distribution, sd 0.2 by default. A normal confined to [0, 1] is centred at
 * 0.5 unless told otherwise; draws outside (0.01, 1] are drawn again (the
 * floor keeps a rate from being zero), so sd = 0 gives every worker the same
 * rate, the paper's case of no network dynamics.
 */
double sending_ratio(std::mt19937_64 &rng, double mean, double sd)
{
	for (int tries = 0; tries < 1000; tries++) {
		const double r = mean + sd * standard_normal(rng);
		if (r > 0.01 && r <= 1.0)
			return r;
	}
	return std::clamp(mean, 0.01, 1.0); /* only for a mean far outside [0, 1] */
}

} // namespace

Scenario::Scenario(const ScenarioConfig &cfg) : cfg_(cfg), net_(build(cfg.topology))
{
	/* One stream, fixed draw order: programmable switches, PS, worker
	 * order, rates, paths. */
	std::mt19937_64 rng(cfg.seed);
	std::vector<int> switches = net_.switches();
	shuffle(switches, rng);
	const size_t programmable =
		size_t(std::lround(cfg.programmable_share * double(switches.size())));
	programmable_.assign(switches.begin(), switches.begin() + long(programmable));
	std::sort(programmable_.begin(), programmable_.end());

	std::vector<int> servers = net_.servers();
	shuffle(servers, rng);
	ps_ = servers.front();
	order_.assign(servers.begin() + 1, servers.end());

	ps_distance_ = net_.distances_from(ps_);
	for (int s : programmable_)
		switch_distance_.push_back(net_.distances_from(s));
	ratio_.assign(size_t(net_.node_count()), 0.0);
	path_.assign(size_t(net_.node_count()), {});
	for (int w : order_)
		ratio_[size_t(w)] = sending_ratio(rng, cfg.rate_mean, cfg.rate_sd);
	for (int w : order_)
		path_[size_t(w)] = net_.ecmp_path(w, ps_, ps_distance_, rng);
}

std::string Scenario::describe() const
{
	std::string d = std::to_string(net_.switches().size()) + " switches, " +
			std::to_string(net_.servers().size()) + " servers; programmable:";
	for (int s : programmable_)
		d += " " + net_.name(s) + "(" + std::to_string(ps_distance_[size_t(s)]) + " hops to PS)";
	return d + "; PS on " + net_.name(ps_);
}

Instance Scenario::instance(int workers) const
{
	if (workers < 1 || workers > max_workers())
		throw std::invalid_argument(cfg_.topology + " has room for 1 to " +
					    std::to_string(max_workers()) + " workers, not " +
					    std::to_string(workers));
	Instance in;
	in.programmable = programmable_;
	in.ps = ps_;
	in.workers.assign(order_.begin(), order_.begin() + workers);
	for (int w : in.workers) {
		in.rate_ratio.push_back(ratio_[size_t(w)]);
		in.path.push_back(path_[size_t(w)]);
	}
	in.ps_distance = ps_distance_;
	in.switch_distance = switch_distance_;
	in.switch_memory_bytes = cfg_.switch_memory_bytes;
	return in;
}

ina::goat::Topology planner_topology(const Instance &in)
{
	ina::goat::Topology t;
	for (size_t s = 0; s < in.programmable.size(); s++) {
		ina::goat::Switch sw;
		sw.name = "s" + std::to_string(in.programmable[s]);
		sw.id = uint16_t(s + 1);
		sw.memory_bytes = in.switch_memory_bytes;
		sw.distance_to_ps = in.ps_distance[size_t(in.programmable[s])];
		t.switches.push_back(sw);
	}
	for (int w : in.workers) {
		ina::goat::Worker pw;
		pw.name = "w" + std::to_string(w);
		for (size_t s = 0; s < in.programmable.size(); s++)
			pw.distance_to_switch.push_back(in.switch_distance[s][size_t(w)]);
		pw.distance_to_ps = in.ps_distance[size_t(w)];
		t.workers.push_back(pw);
	}
	return t;
}

} // namespace goat_sim
