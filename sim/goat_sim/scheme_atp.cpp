/*
 * atp: the paper's ATP baseline (§IV-A "Benchmarks"): a worker's gradient
 * takes its ECMP shortest path to the PS and is aggregated in the first
 * programmable switch on it. That switch expects every worker whose path
 * meets it first (ATP's configured fan-in) and maps fragment f to slot
 * f mod slots (§II-A); all of its memory is one job's aggregator slots.
 */
#include "schemes.h"

#include <algorithm>
#include <map>

namespace goat_sim {

Outcome run_atp(const Instance &in, const SimParams &p)
{
	Outcome o;
	o.scheme = "atp";
	const Fragments &fr = p.fragments;
	const uint64_t gradient = fr.gradient_bytes;
	const uint64_t slots = in.switch_memory_bytes / fr.fragment_bytes;

	std::vector<int> is_programmable(in.ps_distance.size(), -1);
	for (size_t s = 0; s < in.programmable.size(); s++)
		is_programmable[size_t(in.programmable[s])] = int(s);

	/* switch index -> its workers' seconds per fragment */
	std::map<int, std::vector<double>> fan_in;
	for (size_t w = 0; w < in.workers.size(); w++) {
		o.total_bytes += gradient;
		int first = -1;
		for (int node : in.path[w])
			if (is_programmable[size_t(node)] >= 0) {
				first = is_programmable[size_t(node)];
				break;
			}
		if (first < 0) {
			/* No programmable switch on the way: straight to the PS. */
			o.ps_bytes += gradient;
			o.ps_rx_bytes += gradient;
			o.comm_byte_hops += double(in.ps_distance[size_t(in.workers[w])]) * double(gradient);
			continue;
		}
		const double rate_bps = in.rate_ratio[w] * p.link_gbps * 1e9;
		fan_in[first].push_back(double(fr.fragment_bytes) * 8.0 / rate_bps);
		o.comm_byte_hops += double(in.switch_distance[size_t(first)][size_t(in.workers[w])]) *
				    double(gradient);
	}

	for (const auto &[s, periods] : fan_in) {
		SlotStream stream;
		stream.seconds_per_fragment = periods;
		stream.end = fr.count();
		const SlotTally t = replay_slots(slots, {stream}, fr);
		o.ina_bytes += t.merged_bytes;
		o.ps_bytes += t.alone_bytes + t.bypass_bytes;
		o.ps_rx_bytes += t.output_bytes + t.bypass_bytes;
		o.collisions += t.collisions;
		/* Results and collided fragments go on from s to the PS. */
		o.comm_byte_hops += double(in.ps_distance[size_t(in.programmable[size_t(s)])]) *
				    double(t.output_bytes + t.bypass_bytes);
		o.max_switch_bytes = std::max(o.max_switch_bytes, std::min(slots, fr.count()) * fr.fragment_bytes);
		o.aggregating_switches += t.merged_bytes > 0;
	}
	return o;
}

} // namespace goat_sim
