/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A worker's GOAT plan as the sender uses it (docs/goat.md, "Installing a
 * plan"): for an element's place in the round, the node that aggregates it
 * and, for a switch, the run of aggregator indices its sub-model owns there
 * (ina::goat_region, the rule the switches reserve by).
 */
#ifndef INA_WORKER_GOAT_MAP_H
#define INA_WORKER_GOAT_MAP_H

#include <cstdint>
#include <vector>

#include "ina/worker.h"

namespace ina {

class GoatMap {
public:
	struct Where {
		uint16_t agg_node; /* INA_AGG_NODE_ANY: the PS (sent with INA_F_BYPASS) */
		uint32_t first, end; /* the sub-model's aggregator indices */
	};

	/* `ranges` as WorkerConfig::goat (validated). */
	GoatMap(const std::vector<GoatRange> &ranges, uint32_t aggregators);
	bool empty() const { return ends_.empty(); }
	/* Elements in a round (the last range's end); 0 when empty. */
	uint64_t round() const { return ends_.empty() ? 0 : ends_.back(); }
	/* The node of element `elem` of the round (elem < round()). */
	const Where &at(uint64_t elem) const;
	/* Sub-model number of element `elem`. */
	uint32_t submodel(uint64_t elem) const;

private:
	std::vector<uint64_t> ends_;
	std::vector<Where> where_;
};

} /* namespace ina */

#endif
