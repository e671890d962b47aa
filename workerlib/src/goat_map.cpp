/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/worker/goat_map.h"

#include <algorithm>

#include "ina/goat_wire.h"

namespace ina {

GoatMap::GoatMap(const std::vector<GoatRange> &ranges, uint32_t aggregators)
{
	for (const GoatRange &r : ranges)
		ends_.push_back(r.end_element);
	for (uint32_t g = 0; g < ranges.size(); g++) {
		Where w{ranges[g].agg_node, 0, 1};
		if (!goat_region(ends_.data(), static_cast<uint32_t>(ends_.size()), g, aggregators, &w.first,
				 &w.end))
			w.agg_node = INA_AGG_NODE_ANY; /* validate() refuses such plans */
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
