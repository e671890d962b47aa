/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/worker/goat_map.h"

#include <algorithm>

namespace ina {

GoatMap::GoatMap(const std::vector<GoatRange> &ranges, const std::vector<GoatAggregators> &aggregators_at,
		 uint32_t aggregators)
{
	for (const GoatRange &r : ranges) {
		Where w{r.agg_node, 0, r.agg_node == INA_AGG_NODE_ANY ? 0 : aggregators};
		for (const GoatAggregators &a : aggregators_at)
			if (a.agg_node == r.agg_node)
				w.first = a.first, w.end = a.end;
		if (r.index_end > r.index_first)
			w.first = r.index_first, w.end = r.index_end;
		ends_.push_back(r.end_element);
		where_.push_back(w);
	}
}

uint32_t GoatMap::submodel(uint64_t elem) const
{
	return static_cast<uint32_t>(std::upper_bound(ends_.begin(), ends_.end(), elem) - ends_.begin());
}

const GoatMap::Where &GoatMap::at(uint64_t elem) const
{
	const uint32_t g = submodel(elem);
	return where_[g < where_.size() ? g : where_.size() - 1];
}

} /* namespace ina */
