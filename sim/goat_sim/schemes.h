/*
 * The three ways §IV-C aggregates a gradient, replayed on one instance:
 *   none - every worker sends everything to the PS (the paper's Geryon);
 *   atp  - each worker's first programmable switch on its path to the PS
 *          aggregates, slots shared by hashing, first come first served,
 *          collisions to the PS (ATP as the paper runs it);
 *   goat - the planner's LP + KRGS plan: each sub-model on its switch,
 *          exclusively, workers sending where the plan says.
 * Accounting (docs/goat.md): every worker's gradient byte either merges with
 * another worker's in a switch (ina_bytes) or reaches the PS to be aggregated
 * there (ps_bytes, the paper's "aggregation overhead of the PS").
 */
#pragma once

#include "aggregator_slots.h"
#include "ina/goat.h"
#include "scenario.h"

#include <string>

namespace goat_sim {

struct Outcome {
	std::string scheme;
	uint64_t total_bytes = 0;      /* workers x gradient */
	uint64_t ps_bytes = 0;         /* aggregated by the PS */
	uint64_t ina_bytes = 0;        /* aggregated in switches */
	uint64_t ps_rx_bytes = 0;      /* everything the PS receives, switch results included */
	double comm_byte_hops = 0;     /* Eq. (1): bytes x links crossed */
	uint64_t collisions = 0;       /* contributions that found their slot held */
	uint64_t max_switch_bytes = 0; /* aggregator memory used on the busiest switch */
	unsigned aggregating_switches = 0;
	double plan_seconds = 0;       /* LP + KRGS (goat only) */
	double lp_seconds = 0, krgs_seconds = 0;
};

struct SimParams {
	Fragments fragments;          /* gradient size and fragment size */
	double link_gbps = 10;        /* a worker sends at ratio x this */
	uint64_t seed = 1;            /* KRGS */
};

Outcome run_none(const Instance &in, const SimParams &p);
Outcome run_atp(const Instance &in, const SimParams &p);
/* Throws ina::goat::SolverError when GLPK fails. */
Outcome run_goat(const Instance &in, const ina::goat::Model &model, const SimParams &p);

} // namespace goat_sim
