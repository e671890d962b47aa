/*
 * KRGS steps 2 and 3 (Algorithm 1 of the GOAT paper), plus the changes
 * needed for a plan that can be installed (docs/goat.md):
 *  - memory repair between steps 2 and 3: drop, then move to a switch with
 *    room (memory_repair.cpp);
 *  - in step 3, when the p(s) = y~/x~ of the chosen switches sum to more
 *    than 1 (possible: x~ of two switches can share one knapsack's mass),
 *    they are scaled to sum to 1 and the PS gets p = 0;
 *  - afterwards, a (g, s) that no worker picked is dropped: it would hold
 *    memory and, by Eq. (4), cost D_s(alpha) * b(g) for nothing.
 * Draw order is fixed (sub-models, then their knapsacks, then workers by
 * sub-model), so one seed always gives one plan.
 */
#include "krgs.h"

#include <cmath>

namespace ina::goat::detail {
namespace {

/* LP values below this are solver noise, not a fraction of a switch. */
constexpr double kZero = 1e-9;

/* Index i with probability weights[i] / sum(weights); weights >= 0, sum > 0. */
size_t draw(std::mt19937_64 &rng, const std::vector<double> &weights)
{
	double total = 0;
	for (double w : weights)
		total += w;
	double u = unit_draw(rng) * total;
	size_t last_positive = 0;
	for (size_t i = 0; i < weights.size(); i++) {
		if (weights[i] <= 0)
			continue;
		last_positive = i;
		if (u < weights[i])
			return i;
		u -= weights[i];
	}
	return last_positive; /* rounding left u at the top end */
}

/* Step 2 for one sub-model: the switches S(g) that aggregate it. */
std::vector<bool> choose_switches(const std::vector<double> &x, size_t S, std::mt19937_64 &rng)
{
	std::vector<size_t> candidate;
	std::vector<double> weight;
	double sum = 0;
	for (size_t s = 0; s < S; s++)
		if (x[s] > kZero) {
			candidate.push_back(s);
			weight.push_back(x[s]);
			sum += x[s];
		}
	/* k(g) = floor(sum_s x~); the tolerance keeps 0.9999999999 from meaning 0. */
	const size_t k = size_t(std::floor(sum + 1e-6));
	std::vector<bool> chosen(S, false);
	for (const std::vector<size_t> &bin : min_max_bins(weight, k)) {
		if (bin.empty())
			continue;
		std::vector<double> in_bin;
		for (size_t i : bin)
			in_bin.push_back(weight[i]);
		chosen[candidate[bin[draw(rng, in_bin)]]] = true;
	}
	return chosen;
}

} // namespace

Rounded krgs_round(const Topology &topo, const Model &model, const Fractional &lp, uint64_t seed)
{
	const size_t S = topo.switches.size(), PS = S;
	const size_t G = model.submodels.size(), W = topo.workers.size();
	std::mt19937_64 rng(seed);
	Rounded r;
	Assignment &a = r.assignment;

	/* Step 2 (lines 5-13). */
	a.aggregates.resize(G);
	for (size_t g = 0; g < G; g++)
		a.aggregates[g] = choose_switches(lp.x[g], S, rng);

	const Repair repair = repair_memory(topo, model, lp, a);
	r.memory_repairs = repair.dropped;
	r.moved = repair.moved;

	/* Step 3 (lines 14-18): p(s) = y~/x~ over S(g), the rest to the PS. */
	a.node.assign(W, std::vector<int>(G, kToPs));
	for (size_t w = 0; w < W; w++)
		for (size_t g = 0; g < G; g++) {
			std::vector<double> p(S + 1, 0.0);
			double switches = 0;
			for (size_t s = 0; s < S; s++) {
				const size_t v = repair.stand_in[g][s];
				if (a.aggregates[g][s] && lp.x[g][v] > kZero) {
					p[s] = lp.y[w][g][v] / lp.x[g][v];
					switches += p[s];
				}
			}
			p[PS] = std::max(0.0, 1.0 - switches);
			if (switches + p[PS] <= 0)
				continue; /* nothing to draw from: the PS */
			size_t n = draw(rng, p);
			a.node[w][g] = n == PS ? kToPs : int(n);
		}

	/* Switches that ended up with no worker give their memory back. */
	for (size_t g = 0; g < G; g++)
		for (size_t s = 0; s < S; s++) {
			if (!a.aggregates[g][s])
				continue;
			bool used = false;
			for (size_t w = 0; w < W && !used; w++)
				used = a.node[w][g] == int(s);
			if (!used) {
				a.aggregates[g][s] = false;
				r.unused_dropped++;
			}
		}

	r.filled = fill_free_memory(topo, model, a);
	return r;
}

} // namespace ina::goat::detail
