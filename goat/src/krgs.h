/*
 * KRGS, Algorithm 1 of the GOAT paper, steps 2 and 3 (private to goat/).
 */
#pragma once

#include "gina_model.h"

#include <cstdint>
#include <random>

namespace ina::goat::detail {

struct Rounded {
	Assignment assignment;
	unsigned memory_repairs = 0; /* (g, s) taken off an overfull switch */
	unsigned moved = 0;          /* ... of which found room on another switch */
	unsigned unused_dropped = 0;
	unsigned filled = 0;         /* (g, s) added to free memory afterwards */
};

/* Round an LP optimum; the same seed gives the same plan. */
Rounded krgs_round(const Topology &topo, const Model &model, const Fractional &lp,
		   uint64_t seed);

/*
 * Put weights into k bins minimising the largest bin sum (line 7 of
 * Algorithm 1). Returns bins of indices into weights; bins may be empty only
 * when there are fewer positive weights than k.
 */
std::vector<std::vector<size_t>> min_max_bins(const std::vector<double> &weights, size_t k);

/*
 * Make every switch fit B(s) after step 2 (memory_repair.cpp). stand_in[g][s]
 * is the switch whose LP values step 3 uses for (g, s): s itself, or the
 * overfull switch that (g, s) was moved away from.
 */
struct Repair {
	unsigned dropped = 0;
	unsigned moved = 0;
	std::vector<std::vector<size_t>> stand_in;
};
Repair repair_memory(const Topology &topo, const Model &model, const Fractional &lp,
		     Assignment &a);

/* Give free switch memory to sub-models still sent to the PS; returns adds. */
unsigned fill_free_memory(const Topology &topo, const Model &model, Assignment &a);

/* A uniform double in [0, 1) from 53 bits: the same on every standard library. */
inline double unit_draw(std::mt19937_64 &rng) { return double(rng() >> 11) * 0x1.0p-53; }

} // namespace ina::goat::detail
