/* SPDX-License-Identifier: BSD-3-Clause
 *
 * NetReduce: a RoCEv2 packet runs through ina::nr_process() (the
 * target-neutral stage, docs/netreduce.md) on the one lcore that holds the
 * CLT and the rings. Ordinary RoCE traffic (ACKs, other connections) and
 * results leave by the IPv4 route of their destination; a completed slot
 * sends one result into every rank's connection, each a new mbuf written
 * with that rank's headers.
 */
#include "lcore_loop.h"

namespace switchd {

void LcoreLoop::netreduce(rte_mbuf *m, PacketDesc &d, uint64_t now)
{
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
	const ina::NrResult res = ina::nr_process(*lc_.nr, lc_.nr_ctr, frame, m->data_len, now);
	switch (res.verdict) {
	case ina::NrVerdict::kDrop:
		/* As for the pipeline (aggregate.cpp): a reason that is no drop
		 * is a contribution the slot took. */
		if (ina::nr_counter_kind(res.reason) != ina::CounterKind::kDrop)
			lc_.ctr[LcoreCtr::absorbed]++;
		rte_pktmbuf_free(m);
		return;
	case ina::NrVerdict::kPass:
	case ina::NrVerdict::kForward:
		return forward_ipv4(m, d);
	case ina::NrVerdict::kComplete:
		netreduce_results(m, res);
		return forward_ipv4(m, d);
	}
}

/* The other ranks' results: a new mbuf each (from the pool's per-lcore
 * cache), written whole by nr_result() with the rank's headers. */
void LcoreLoop::netreduce_results(rte_mbuf *m, const ina::NrResult &res)
{
	const uint8_t ranks = lc_.nr->config().rings[res.ring].ranks;
	for (uint8_t r = 0; r < ranks; r++) {
		if (r == res.rank)
			continue;
		rte_mbuf *c = rte_pktmbuf_alloc(app_.pool);
		if (!c) {
			lc_.ctr[LcoreCtr::netreduce_alloc_drops]++;
			continue;
		}
		uint8_t *f = rte_pktmbuf_mtod(c, uint8_t *);
		const uint32_t len = ina::nr_result(*lc_.nr, res, r, f, rte_pktmbuf_tailroom(c));
		if (len == 0) {
			drop(c, LcoreCtr::netreduce_result_drops);
			continue;
		}
		lc_.ctr[LcoreCtr::netreduce_results]++;
		c->data_len = static_cast<uint16_t>(len);
		c->pkt_len = len;
		PacketDesc &cd = *desc(c);
		cd = *desc(m);
		cd.src_ip = ina_load32(f + sizeof(struct ina_eth_hdr) + offsetof(struct ina_ipv4_hdr, src));
		cd.dst_ip = ina_load32(f + sizeof(struct ina_eth_hdr) + offsetof(struct ina_ipv4_hdr, dst));
		forward_ipv4(c, cd);
	}
}

/* Idle connections leave the CLT: a pass over it every tenth of the
 * timeout, between bursts. */
void LcoreLoop::netreduce_expire(uint64_t now)
{
	const uint64_t timeout = app_.nr_clt_timeout_cycles;
	if (timeout == 0 || now < lc_.nr_next_expiry)
		return;
	lc_.nr_next_expiry = now + timeout / 10;
	lc_.nr->expire(now, timeout, lc_.nr_ctr);
}

} /* namespace switchd */
