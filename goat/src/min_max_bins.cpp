/*
 * The "knapsacks with min-max sum" of Algorithm 1, line 7: split the x-tilde
 * values of one sub-model into k(g) groups whose largest sum is small.
 *
 * Exact for up to kExactItems values (branch and bound over assignments, the
 * instances a real switch fabric gives: |S| is a few tens at most, and the
 * LP optimum has few fractional x per sub-model); longest-processing-time
 * greedy beyond that, which is within 4/3 of the optimum.
 */
#include "krgs.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace ina::goat::detail {
namespace {

constexpr size_t kExactItems = 12;

std::vector<size_t> by_weight_desc(const std::vector<double> &w)
{
	std::vector<size_t> order(w.size());
	std::iota(order.begin(), order.end(), 0);
	/* stable: equal weights keep switch order, so plans are reproducible */
	std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return w[a] > w[b]; });
	return order;
}

std::vector<size_t> greedy(const std::vector<double> &w, const std::vector<size_t> &order,
			   size_t k)
{
	std::vector<size_t> bin_of(w.size());
	std::vector<double> sum(k, 0.0);
	for (size_t i : order) {
		size_t best = size_t(std::min_element(sum.begin(), sum.end()) - sum.begin());
		bin_of[i] = best;
		sum[best] += w[i];
	}
	return bin_of;
}

double max_sum(const std::vector<double> &w, const std::vector<size_t> &bin_of, size_t k)
{
	std::vector<double> sum(k, 0.0);
	for (size_t i = 0; i < w.size(); i++)
		sum[bin_of[i]] += w[i];
	return *std::max_element(sum.begin(), sum.end());
}

} // namespace

std::vector<std::vector<size_t>> min_max_bins(const std::vector<double> &weights, size_t k)
{
	std::vector<std::vector<size_t>> bins(k);
	if (k == 0)
		return bins;
	const std::vector<size_t> order = by_weight_desc(weights);
	std::vector<size_t> best = greedy(weights, order, k);

	if (weights.size() <= kExactItems && k > 1) {
		double best_max = max_sum(weights, best, k);
		std::vector<size_t> bin_of(weights.size());
		std::vector<double> sum(k, 0.0);
		/* Heaviest first; a value goes into at most one empty bin (bins are
		 * interchangeable), and a branch stops once it cannot beat best. */
		std::function<void(size_t)> place = [&](size_t pos) {
			if (pos == order.size()) {
				double m = *std::max_element(sum.begin(), sum.end());
				if (m < best_max - 1e-12) {
					best_max = m;
					best = bin_of;
				}
				return;
			}
			size_t i = order[pos];
			bool tried_empty = false;
			for (size_t b = 0; b < k; b++) {
				if (sum[b] == 0.0) {
					if (tried_empty)
						continue;
					tried_empty = true;
				}
				if (sum[b] + weights[i] >= best_max - 1e-12)
					continue;
				sum[b] += weights[i];
				bin_of[i] = b;
				place(pos + 1);
				sum[b] -= weights[i];
			}
		};
		place(0);
	}
	for (size_t i : order) /* heaviest first inside a bin, for readable output */
		bins[best[i]].push_back(i);
	return bins;
}

} // namespace ina::goat::detail
