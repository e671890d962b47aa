/*
 * Plan -> JSON (format in docs/goat.md). Workers get one entry per sub-model
 * with its element range and agg_node: the switch id, or 0 for the PS.
 * Note: on the wire agg_node 0 means "any switch" (INA_AGG_NODE_ANY); whoever
 * installs a plan sends the PS ranges with the bypass flag instead.
 */
#include "ina/goat.h"

namespace ina::goat {
namespace {

using nlohmann::json;

json assignment_json(const Topology &topo, const Model &model, const Assignment &a)
{
	const std::vector<uint64_t> load = switch_load(model, a);
	json switches = json::array();
	for (size_t s = 0; s < topo.switches.size(); s++) {
		json subs = json::array();
		for (size_t g = 0; g < model.submodels.size(); g++)
			if (a.aggregates[g][s])
				subs.push_back(model.submodels[g].name);
		switches.push_back({{"name", topo.switches[s].name},
				    {"id", topo.switches[s].id},
				    {"memory_bytes", topo.switches[s].memory_bytes},
				    {"used_bytes", load[s]},
				    {"submodels", subs}});
	}

	json submodels = json::array();
	for (size_t g = 0; g < model.submodels.size(); g++) {
		json by = json::array();
		for (size_t s = 0; s < topo.switches.size(); s++)
			if (a.aggregates[g][s])
				by.push_back(topo.switches[s].name);
		unsigned to_ps = 0;
		for (size_t w = 0; w < topo.workers.size(); w++)
			to_ps += a.node[w][g] == kToPs;
		const SubModel &sm = model.submodels[g];
		submodels.push_back({{"name", sm.name},
				     {"first_element", sm.first_element},
				     {"end_element", sm.first_element + sm.elements},
				     {"bytes", sm.bytes},
				     {"aggregated_by", by},
				     {"workers_to_ps", to_ps}});
	}

	json workers = json::array();
	for (size_t w = 0; w < topo.workers.size(); w++) {
		json ranges = json::array();
		for (size_t g = 0; g < model.submodels.size(); g++) {
			const SubModel &sm = model.submodels[g];
			const int n = a.node[w][g];
			ranges.push_back(
				{{"submodel", sm.name},
				 {"first_element", sm.first_element},
				 {"end_element", sm.first_element + sm.elements},
				 {"agg_node", n == kToPs ? 0 : topo.switches[size_t(n)].id},
				 {"aggregator",
				  n == kToPs ? topo.ps_name : topo.switches[size_t(n)].name}});
		}
		workers.push_back({{"name", topo.workers[w].name}, {"ranges", ranges}});
	}
	return {{"switches", switches}, {"submodels", submodels}, {"workers", workers}};
}

json values_json(const PlanValues &v)
{
	return {{"aggregated_traffic", v.aggregated_traffic},
		{"communication_overhead", v.communication_overhead}};
}

} // namespace

json plan_to_json(const Topology &topo, const Model &model, const Plan &plan, uint64_t seed)
{
	json j;
	j["model"] = model.name;
	j["seed"] = seed;
	j["units"] = "aggregated_traffic: Eq. (4), communication_overhead: Eq. (1); bytes x hops";
	j["lp_relaxation"] = {{"aggregated_traffic", plan.lp_value}};
	j["no_ina"] = {{"communication_overhead", plan.no_ina_overhead}};
	j["krgs"] = values_json(plan.krgs_values);
	j["krgs"]["memory_repairs"] = plan.memory_repairs;
	j["krgs"]["memory_moves"] = plan.memory_moves;
	j["krgs"]["unused_dropped"] = plan.unused_dropped;
	j["krgs"]["filled"] = plan.filled;
	j["time_s"] = {{"lp", plan.lp_seconds}, {"krgs", plan.krgs_seconds}};
	j["plan"] = assignment_json(topo, model, plan.krgs);
	if (plan.ilp) {
		j["ilp"] = values_json(*plan.ilp_values);
		j["ilp"]["optimal"] = plan.ilp_optimal;
		if (plan.ilp_values->aggregated_traffic > 0)
			j["krgs"]["over_ilp"] = plan.krgs_values.aggregated_traffic /
						plan.ilp_values->aggregated_traffic;
		j["time_s"]["ilp"] = plan.ilp_seconds;
		j["ilp_plan"] = assignment_json(topo, model, *plan.ilp);
	}
	return j;
}

} // namespace ina::goat
