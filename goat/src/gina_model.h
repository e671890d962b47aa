/*
 * The GINA problem of the GOAT paper as a GLPK model (private to goat/).
 * Switch index s in [0, |S|) is a programmable switch; index |S| is the PS
 * (alpha), so every per-node vector has |S| + 1 entries.
 */
#pragma once

#include "ina/goat.h"

#include <vector>

namespace ina::goat::detail {

/* An optimum of the LP relaxation: x-tilde and y-tilde of Algorithm 1. */
struct Fractional {
	std::vector<std::vector<double>> x;              /* [g][node] */
	std::vector<std::vector<std::vector<double>>> y; /* [w][g][node] */
	double value = 0;                                /* Eq. (4), bytes x hops */
};

struct IlpSolution {
	Assignment assignment;
	bool optimal = false;
};

/* Algorithm 1, step 1: the relaxed Eq. (4). Throws SolverError. */
Fractional solve_lp_relaxation(const Topology &topo, const Model &model);

/* Eq. (4) with binary x, y, by GLPK's branch and cut. Throws SolverError. */
IlpSolution solve_ilp(const Topology &topo, const Model &model, double time_limit_s);

} // namespace ina::goat::detail
