/*
 * goat: plan with the planner library (LP relaxation + KRGS, docs/goat.md),
 * then replay the plan on the same aggregator slots as ATP. A switch gives
 * each sub-model it holds its own run of slots (exclusive, so no two
 * fragments share a slot while the plan fits the switch's memory); the
 * replay would count the collisions if it did not.
 */
#include "schemes.h"

#include <algorithm>
#include <stdexcept>

namespace goat_sim {

Outcome run_goat(const Instance &in, const ina::goat::Model &model, const SimParams &p)
{
	Outcome o;
	o.scheme = "goat";
	const Fragments &fr = p.fragments;
	const uint64_t slots = in.switch_memory_bytes / fr.fragment_bytes;
	const ina::goat::Topology topo = planner_topology(in);

	ina::goat::Options opt;
	opt.seed = p.seed;
	const ina::goat::Plan plan = ina::goat::make_plan(topo, model, opt);
	o.lp_seconds = plan.lp_seconds;
	o.krgs_seconds = plan.krgs_seconds;
	o.plan_seconds = plan.lp_seconds + plan.krgs_seconds;
	const ina::goat::Assignment &a = plan.krgs;

	std::vector<double> period;
	for (double r : in.rate_ratio)
		period.push_back(double(fr.fragment_bytes) * 8.0 / (r * p.link_gbps * 1e9));

	const size_t S = in.programmable.size(), G = model.submodels.size();
	for (size_t w = 0; w < in.workers.size(); w++) {
		o.total_bytes += fr.gradient_bytes;
		for (size_t g = 0; g < G; g++) {
			const uint64_t b = model.submodels[g].bytes;
			const int n = a.node[w][g];
			if (n == ina::goat::kToPs) {
				o.ps_bytes += b;
				o.ps_rx_bytes += b;
				o.comm_byte_hops += double(in.ps_distance[size_t(in.workers[w])]) * double(b);
			} else {
				if (!a.aggregates[g][size_t(n)])
					throw std::logic_error("plan sends a worker to a switch that does not hold its sub-model");
				o.comm_byte_hops += double(in.switch_distance[size_t(n)][size_t(in.workers[w])]) * double(b);
			}
		}
	}

	for (size_t s = 0; s < S; s++) {
		std::vector<SlotStream> streams;
		uint64_t next_slot = 0;
		for (size_t g = 0; g < G; g++) {
			if (!a.aggregates[g][s])
				continue;
			SlotStream st;
			/* Sub-models start on a fragment boundary (model_partition.h). */
			st.first = model.submodels[g].first_element * model.element_bytes / fr.fragment_bytes;
			st.end = (model.submodels[g].first_element + model.submodels[g].elements) *
					 model.element_bytes / fr.fragment_bytes +
				 (g + 1 == G && fr.gradient_bytes % fr.fragment_bytes != 0);
			st.slot_base = next_slot;
			next_slot += st.end - st.first;
			for (size_t w = 0; w < in.workers.size(); w++)
				if (a.node[w][g] == int(s))
					st.seconds_per_fragment.push_back(period[w]);
			streams.push_back(std::move(st));
		}
		if (streams.empty())
			continue;
		const SlotTally t = replay_slots(slots, streams, fr);
		o.ina_bytes += t.merged_bytes;
		o.ps_bytes += t.alone_bytes + t.bypass_bytes;
		o.ps_rx_bytes += t.output_bytes + t.bypass_bytes;
		o.collisions += t.collisions;
		o.comm_byte_hops += double(in.ps_distance[size_t(in.programmable[s])]) *
				    double(t.output_bytes + t.bypass_bytes);
		o.max_switch_bytes = std::max(o.max_switch_bytes, next_slot * fr.fragment_bytes);
		o.aggregating_switches += t.merged_bytes > 0;
	}
	return o;
}

} // namespace goat_sim
