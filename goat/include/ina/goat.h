/*
 * GOAT planner: which switch aggregates which sub-model, and to which
 * aggregation node each worker sends each sub-model's gradient.
 *
 * It solves the GINA problem of the GOAT paper (§III-B/C) in its
 * maximisation form, Eq. (4): maximise the in-network aggregated traffic
 *   sum_g sum_{s in S} (sum_w y[w][g][s] - x[g][s]) * D_s(alpha) * b(g)
 * under the constraints of Eq. (1). The LP relaxation is solved with GLPK and
 * rounded with KRGS (Algorithm 1); an exact ILP (GLPK branch and cut) is
 * available for small instances. Units: sizes in bytes, distances in hops.
 *
 * Nothing here installs a plan on switches or workers; see docs/goat.md.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ina::goat {

/* Bad topology or model input; what() is one line naming the offending key. */
class InputError : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

/* The solver failed (not an input problem). */
class SolverError : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

struct Switch {
	std::string name;
	uint16_t id = 0;             /* 1..65535, the packet's agg_node value */
	uint64_t memory_bytes = 0;   /* B(s) */
	double distance_to_ps = 0;   /* D_s(alpha) */
};

struct Worker {
	std::string name;
	std::vector<double> distance_to_switch; /* D_w(s), indexed like switches */
	double distance_to_ps = 0;              /* D_w(alpha) */
};

struct Topology {
	std::string ps_name = "ps";
	std::vector<Switch> switches; /* S */
	std::vector<Worker> workers;  /* W */
};

struct SubModel {
	std::string name;
	uint64_t first_element = 0; /* where it starts in the flat gradient */
	uint64_t elements = 0;
	uint64_t bytes = 0;         /* b(g) = elements * element_bytes */
};

struct Model {
	std::string name;
	uint32_t element_bytes = 4;
	std::vector<SubModel> submodels; /* G, in gradient order */
};

/* Input formats: docs/goat.md. Throw InputError. */
Topology topology_from_json(const nlohmann::json &j);
Model model_from_json(const nlohmann::json &j);

/* Where a worker sends a sub-model: a switch index, or the PS. */
constexpr int kToPs = -1;

/* An integral plan (x-hat, y-hat of the paper). */
struct Assignment {
	/* aggregates[g][s]: switch s holds sub-model g (x_g^s = 1). */
	std::vector<std::vector<bool>> aggregates;
	/* node[w][g]: switch index or kToPs (y_{w,g}^s = 1). */
	std::vector<std::vector<int>> node;
};

struct PlanValues {
	double aggregated_traffic = 0;     /* Eq. (4) objective, maximised */
	double communication_overhead = 0; /* Eq. (1) objective */
};

struct Options {
	uint64_t seed = 1;          /* KRGS randomness (std::mt19937_64) */
	bool solve_ilp = false;     /* also solve the exact ILP */
	double ilp_time_limit_s = 60;
};

struct Plan {
	Assignment krgs;
	PlanValues krgs_values;
	double lp_value = 0;               /* Eq. (4) LP relaxation optimum */
	unsigned memory_repairs = 0;       /* (g, s) taken off a full switch */
	unsigned memory_moves = 0;         /* ... of which moved to another */
	unsigned unused_dropped = 0;       /* (g, s) that no worker picked */
	unsigned filled = 0;               /* (g, s) added to free memory */
	std::optional<Assignment> ilp;
	std::optional<PlanValues> ilp_values;
	bool ilp_optimal = false;          /* false: time limit, best found */
	double no_ina_overhead = 0;        /* Eq. (1) with every worker -> PS */
	double lp_seconds = 0, krgs_seconds = 0, ilp_seconds = 0;
};

/* LP, KRGS and (if asked) ILP. Throws SolverError. */
Plan make_plan(const Topology &topo, const Model &model, const Options &opt);

/* Bytes a plan puts on each switch: sum_g x_g^s * b(g). */
std::vector<uint64_t> switch_load(const Model &model, const Assignment &a);

/* Objective values of an integral plan. */
PlanValues evaluate(const Topology &topo, const Model &model, const Assignment &a);

/* The plan as JSON; format in docs/goat.md. */
nlohmann::json plan_to_json(const Topology &topo, const Model &model, const Plan &plan,
			    uint64_t seed);

} // namespace ina::goat
