/*
 * none: no switch aggregates; the PS receives and aggregates every byte.
 */
#include "schemes.h"

namespace goat_sim {

Outcome run_none(const Instance &in, const SimParams &p)
{
	Outcome o;
	o.scheme = "none";
	const uint64_t gradient = p.fragments.gradient_bytes;
	for (int w : in.workers) {
		o.total_bytes += gradient;
		o.ps_bytes += gradient;
		o.ps_rx_bytes += gradient;
		o.comm_byte_hops += double(in.ps_distance[size_t(w)]) * double(gradient);
	}
	return o;
}

} // namespace goat_sim
