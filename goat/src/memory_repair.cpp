/*
 * KRGS keeps switch memory (1d) only within a factor, in expectation
 * (Theorem 6 of the paper); a plan that overflows a switch cannot be
 * installed. So, after step 2:
 *
 * 1. Drop. On an overfull switch, take sub-models off in order of expected
 *    gain per byte of switch memory, smallest first. With step 3's
 *    p(s) = y~/x~, the expected number of workers sending g to s is
 *    sum_w y~[w][g][s] / x~[g][s], so keeping (g, s) gains
 *    (that number - 1) * D_s(alpha) per byte (Eq. (4)). Equal gain: the
 *    smaller sub-model first, so a small overflow costs a small sub-model.
 *    Then put back, largest first, whatever fits again: the last drop may
 *    have freed more than needed.
 * 2. Move. A dropped (g, s) goes to the switch t with the largest D_t(alpha)
 *    that does not hold g and has room for b(g); its workers draw in step 3
 *    with the LP values of s (stand_in), since the LP gave t no share of g.
 *    Without this, rounding throws away memory the LP had filled.
 * Every dropped (g, s) counts as one repair, moved or not.
 */
#include "krgs.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ina::goat::detail {
namespace {

double expected_workers(const Fractional &lp, size_t g, size_t s)
{
	if (lp.x[g][s] <= 0)
		return 0;
	double n = 0;
	for (const auto &yw : lp.y)
		n += yw[g][s] / lp.x[g][s];
	return n;
}

} // namespace

Repair repair_memory(const Topology &topo, const Model &model, const Fractional &lp, Assignment &a)
{
	const size_t S = topo.switches.size(), G = model.submodels.size();
	auto bytes = [&](size_t g) { return model.submodels[g].bytes; };
	Repair r;
	r.stand_in.assign(G, std::vector<size_t>(S));
	for (auto &row : r.stand_in)
		std::iota(row.begin(), row.end(), size_t(0));

	std::vector<uint64_t> used = switch_load(model, a);
	std::vector<std::pair<size_t, size_t>> homeless; /* (g, original switch) */
	for (size_t s = 0; s < S; s++) {
		const uint64_t cap = topo.switches[s].memory_bytes;
		if (used[s] <= cap)
			continue;
		std::vector<size_t> held;
		for (size_t g = 0; g < G; g++)
			if (a.aggregates[g][s])
				held.push_back(g);
		auto per_byte = [&](size_t g) {
			return (expected_workers(lp, g, s) - 1.0) * topo.switches[s].distance_to_ps;
		};
		/* Gains within LP tolerance are equal: 7.9999999 and 8 workers
		 * should not decide which sub-model goes. */
		std::stable_sort(held.begin(), held.end(), [&](size_t l, size_t rr) {
			const double gl = per_byte(l), gr = per_byte(rr);
			if (std::abs(gl - gr) > 1e-6 * std::max({1.0, std::abs(gl), std::abs(gr)}))
				return gl < gr;
			return bytes(l) < bytes(rr);
		});
		std::vector<size_t> dropped;
		for (size_t g : held) {
			if (used[s] <= cap)
				break;
			a.aggregates[g][s] = false;
			used[s] -= bytes(g);
			dropped.push_back(g);
		}
		std::stable_sort(dropped.begin(), dropped.end(),
				 [&](size_t l, size_t rr) { return bytes(l) > bytes(rr); });
		for (size_t g : dropped) {
			if (used[s] + bytes(g) <= cap) {
				a.aggregates[g][s] = true;
				used[s] += bytes(g);
			} else {
				homeless.push_back({g, s});
			}
		}
	}

	/* Largest first: small sub-models fit into what is left. */
	std::stable_sort(homeless.begin(), homeless.end(),
			 [&](const auto &l, const auto &rr) { return bytes(l.first) > bytes(rr.first); });
	for (const auto &[g, from] : homeless) {
		r.dropped++;
		size_t best = S;
		for (size_t t = 0; t < S; t++) {
			if (a.aggregates[g][t] || used[t] + bytes(g) > topo.switches[t].memory_bytes)
				continue;
			if (best == S || topo.switches[t].distance_to_ps > topo.switches[best].distance_to_ps)
				best = t;
		}
		if (best == S || topo.switches[best].distance_to_ps <= 0)
			continue; /* nowhere useful: g's workers of `from` go to the PS */
		a.aggregates[g][best] = true;
		used[best] += bytes(g);
		r.stand_in[g][best] = from;
		r.moved++;
	}
	return r;
}

} // namespace ina::goat::detail
