/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Hand-off: each aggregator belongs to one lcore (index % lcores), the
 * NetReduce rings to one; a packet received on another lcore goes to its
 * owner's ring (the loop sends the bursts, lcore_loop.cpp).
 */
#include "stages.h"

namespace switchd {

uint32_t handoff_burst(const HandoffCtx &c, Burst *b, Burst *out)
{
	uint32_t kept = 0, handed = 0;
	for (uint32_t i = 0; i < b->n; i++) {
		rte_mbuf *m = b->v[i];
		const PacketDesc &d = *desc(m);
		unsigned owner = c.self;
		if (d.cls == PacketClass::kIna && d.ina.type == INA_TYPE_DATA)
			owner = d.ina.agg_index % c.lcores;
		/* One lcore holds the CLT and every ring's aggregators. */
		else if (d.cls == PacketClass::kRoce)
			owner = c.netreduce_lcore;
		if (owner == c.self) {
			b->v[kept++] = m;
		} else {
			out[owner].push(m);
			handed++;
		}
	}
	b->n = kept;
	return handed;
}

} /* namespace switchd */
