/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A worker's GOAT plan as the sender uses it (docs/goat.md, "Installing a
 * plan"): for an element's place in the round, the node that aggregates it
 * and, for a switch, the aggregators that switch gives the job.
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
		uint32_t first, end; /* the aggregators its fragments index; empty:
				      * the job's own index (the PS) */
	};

	/* `ranges`, `aggregators_at` and `aggregators` as in WorkerConfig
	 * (goat, goat_aggregators, aggregators; validated). */
	GoatMap(const std::vector<GoatRange> &ranges, const std::vector<GoatAggregators> &aggregators_at,
		uint32_t aggregators);
	bool empty() const { return ends_.empty(); }
	/* Elements in a round (the last range's end); 0 when empty. */
	uint64_t round() const { return ends_.empty() ? 0 : ends_.back(); }
	/* Where element `elem` of the round goes (elem < round()). */
	const Where &at(uint64_t elem) const;
	/* Sub-model (range) number of element `elem`. */
	uint32_t submodel(uint64_t elem) const;

private:
	std::vector<uint64_t> ends_;
	std::vector<Where> where_;
};

} /* namespace ina */

#endif
