/*
 * After step 3, switch memory the LP spread over sub-models too large for any
 * one switch stays empty: k(g) = floor(sum_s x~) can be 0, or the chosen
 * switch cannot hold g. This pass hands the free memory to what is left at
 * the PS: adding (g, t) and sending there every worker whose g still goes to
 * the PS gains (n_ps(g) - 1) * D_t(alpha) * b(g) in Eq. (4). Best gain per
 * byte first, only positive gains, only where b(g) fits. Not in the paper.
 */
#include "krgs.h"

namespace ina::goat::detail {

unsigned fill_free_memory(const Topology &topo, const Model &model, Assignment &a)
{
	const size_t S = topo.switches.size(), G = model.submodels.size();
	const size_t W = topo.workers.size();
	std::vector<uint64_t> used = switch_load(model, a);
	unsigned added = 0;
	for (;;) {
		double best_per_byte = 0;
		size_t best_g = G, best_t = S;
		for (size_t g = 0; g < G; g++) {
			size_t to_ps = 0;
			for (size_t w = 0; w < W; w++)
				to_ps += a.node[w][g] == kToPs;
			if (to_ps < 2)
				continue; /* one worker alone gains nothing from a switch */
			for (size_t t = 0; t < S; t++) {
				if (a.aggregates[g][t] ||
				    used[t] + model.submodels[g].bytes > topo.switches[t].memory_bytes)
					continue;
				double per_byte = double(to_ps - 1) * topo.switches[t].distance_to_ps;
				if (per_byte > best_per_byte) {
					best_per_byte = per_byte;
					best_g = g;
					best_t = t;
				}
			}
		}
		if (best_g == G)
			return added;
		a.aggregates[best_g][best_t] = true;
		used[best_t] += model.submodels[best_g].bytes;
		for (size_t w = 0; w < W; w++)
			if (a.node[w][best_g] == kToPs)
				a.node[w][best_g] = int(best_t);
		added++;
	}
}

} // namespace ina::goat::detail
