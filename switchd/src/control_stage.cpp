/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Control: control messages for the switch leave the data path here, onto
 * the control thread's ring (multi-producer: every lcore sends).
 */
#include "stages.h"

namespace switchd {

void control_burst(rte_ring *ring, const Burst &in, LcoreCounters *ctr)
{
	const unsigned done = rte_ring_mp_enqueue_burst(ring, reinterpret_cast<void *const *>(in.v), in.n, nullptr);
	(*ctr)[LcoreCtr::control_received] += done;
	if (done < in.n) {
		(*ctr)[LcoreCtr::control_drops] += in.n - done;
		rte_pktmbuf_free_bulk(const_cast<rte_mbuf **>(in.v + done), in.n - done);
	}
}

} /* namespace switchd */
