/*
 * One topology of the paper's §IV-C with everything drawn from the seed
 * once: which switches are programmable, where the PS sits, the order in
 * which servers become workers, each server's sending rate and its ECMP path
 * to the PS. A worker count then takes the first servers of that order, so
 * the sweep adds workers to the same network instead of redrawing it.
 */
#pragma once

#include "ina/goat.h"
#include "network.h"

#include <cstdint>
#include <string>
#include <vector>

namespace goat_sim {

struct ScenarioConfig {
	std::string topology;                  /* "leaf-spine" or "fat-tree" */
	double programmable_share = 0.2;       /* of all switches */
	uint64_t switch_memory_bytes = 64000000;
	double rate_mean = 0.5, rate_sd = 0.2; /* ratio of the line rate, docs/goat.md */
	uint64_t seed = 1;
};

/* A worker count's view: what the planner and the schemes need. */
struct Instance {
	std::vector<int> programmable;      /* switch nodes, planner index order */
	int ps = -1;                        /* server node */
	std::vector<int> workers;           /* server nodes */
	std::vector<double> rate_ratio;     /* per worker, in (0, 1] */
	std::vector<std::vector<int>> path; /* per worker: ECMP path to the PS */
	std::vector<int> ps_distance;       /* per node: hops to the PS */
	std::vector<std::vector<int>> switch_distance; /* [s][node]: hops from switch s */
	uint64_t switch_memory_bytes = 0;
};

class Scenario {
public:
	/* Throws std::invalid_argument on an unknown topology name. */
	explicit Scenario(const ScenarioConfig &cfg);

	const std::string &topology() const { return cfg_.topology; }
	int max_workers() const { return int(order_.size()); }
	/* One line: switch and server counts, the programmable switches, the PS. */
	std::string describe() const;
	/* Throws std::invalid_argument when workers is not in 1..max_workers(). */
	Instance instance(int workers) const;

private:
	ScenarioConfig cfg_;
	Network net_;
	std::vector<int> programmable_;
	int ps_ = -1;
	std::vector<int> order_;                /* servers other than the PS */
	std::vector<double> ratio_;             /* per node (servers only) */
	std::vector<std::vector<int>> path_;    /* per node (servers only) */
	std::vector<int> ps_distance_;
	std::vector<std::vector<int>> switch_distance_;
};

/* The planner's view of an instance (D_w(s), D_s(alpha) in hops). */
ina::goat::Topology planner_topology(const Instance &in);

} // namespace goat_sim
