/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Egress: each packet of the burst into the egress queue of its port
 * (egress.h: random and tail drop, the ECN mark above the threshold); the
 * queue counts per port, this stage per job.
 */
#include "stages.h"

namespace switchd {

void egress_burst(const EgressCtx &c, const TxBurst &in)
{
	for (uint32_t i = 0; i < in.n; i++) {
		const TxItem &t = in.v[i];
		int marked;
		uint16_t dropped_job = 0;
		if (!c.queues[t.port].enqueue(t.m, ina_view(*desc(t.m)), c.rng, &marked, &dropped_job)) {
			if (dropped_job)
				c.job_ctr[dropped_job][JobCtr::egress_drops]++;
		} else if (marked > 0) {
			c.job_ctr[marked][JobCtr::ecn_marks]++;
		}
	}
}

} /* namespace switchd */
