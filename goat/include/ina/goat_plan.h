/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A plan from ina-goat-plan as the data plane's installers read it
 * (docs/goat.md, "Installing a plan"): which switch aggregates which
 * sub-model for which worker, and the aggregator ranges that follow from it
 * on each switch. switchd (a [[goat]] plan), ina-ps (the control messages it
 * sends) and ina-worker (its fragments' agg_node and index) all derive their
 * part here, so the three agree. Needs no solver (GLPK).
 *
 * Worker i of the plan is the job's worker with level-0 bitmap bit i.
 */
#ifndef INA_GOAT_PLAN_H
#define INA_GOAT_PLAN_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ina/goat_wire.h"

namespace ina {

struct GoatPlan {
	struct Submodel {
		std::string name;
		uint64_t first = 0, end = 0; /* elements of a round */
	};
	struct Switch {
		std::string name;
		uint16_t id = 0;
		std::vector<std::string> submodels; /* those it holds */
	};
	std::vector<Submodel> submodels; /* in order, [0, round) without a gap */
	std::vector<Switch> switches;
	std::vector<std::string> workers;
	std::vector<std::vector<uint16_t>> node; /* node[w][g]: agg_node, 0 = the PS */
	uint64_t round() const { return submodels.empty() ? 0 : submodels.back().end; }
};

/* Reads ina-goat-plan's output (the whole object or its "plan") and checks
 * it: sub-models in order, unique switch ids, every worker with one range
 * per sub-model, each to the PS or to a switch that holds it. Empty string,
 * or the reason (prefixed with the path). */
std::string goat_plan_read(const std::string &path, GoatPlan *out);
std::string goat_plan_parse(const std::string &json_text, GoatPlan *out);

/* Switch `id`'s part: the sub-models it aggregates and the ranges it gives
 * the job within `given` (the job's aggregators there: sorted, disjoint).
 * Empty string, or the reason. */
struct GoatSwitchPart {
	std::vector<std::string> submodels;
	std::vector<GoatSlots> slots;
};
std::string goat_switch_part(const GoatPlan &plan, uint16_t id, const std::vector<GoatSlots> &given,
			     GoatSwitchPart *out);

/* Worker `w`'s route for each sub-model, in order: the node, and the
 * aggregators its fragments index ([first, end), from goat_index; first ==
 * end: keep the job's own index). `span_of(id)`: the job's aggregators at
 * switch `id` (one range, as the worker config's goat_aggregators). */
struct GoatRoute {
	uint64_t end_element = 0;
	uint16_t node = 0;
	uint32_t first = 0, end = 0;
};
std::string goat_worker_routes(const GoatPlan &plan, size_t w,
			       const std::function<GoatSlots(uint16_t id)> &span_of, std::vector<GoatRoute> *out);

} /* namespace ina */

#endif
