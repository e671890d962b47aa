/* SPDX-License-Identifier: BSD-3-Clause
 *
 * NetReduce: a RoCEv2 packet runs through ina::nr_process() (the
 * target-neutral stage, docs/netreduce.md) on the one lcore that holds the
 * CLT and the rings. Ordinary RoCE traffic (ACKs, other connections) and
 * results leave by the IPv4 route of their destination; a completed slot
 * sends one result into every rank's connection, each a new mbuf written
 * with that rank's headers.
 */
#include "stages.h"

namespace switchd {

namespace {

/* The other ranks' results: a new mbuf each (from the pool's per-lcore
 * cache), written whole by nr_result() with the rank's headers. */
void results(const NetreduceCtx &c, rte_mbuf *m, const ina::NrResult &res, ForwardBurst *fwd)
{
	LcoreCounters &ctr = *c.ctr;
	const uint8_t ranks = c.nr->config().rings[res.ring].ranks;
	for (uint8_t r = 0; r < ranks; r++) {
		if (r == res.rank)
			continue;
		rte_mbuf *copy = rte_pktmbuf_alloc(c.pool);
		if (!copy) {
			ctr[LcoreCtr::netreduce_alloc_drops]++;
			continue;
		}
		uint8_t *f = rte_pktmbuf_mtod(copy, uint8_t *);
		const uint32_t len = ina::nr_result(*c.nr, res, r, f, rte_pktmbuf_tailroom(copy));
		if (len == 0) {
			ctr[LcoreCtr::netreduce_result_drops]++;
			rte_pktmbuf_free(copy);
			continue;
		}
		ctr[LcoreCtr::netreduce_results]++;
		copy->data_len = static_cast<uint16_t>(len);
		copy->pkt_len = len;
		PacketDesc &cd = *desc(copy);
		cd = *desc(m);
		cd.src_ip = ina_load32(f + sizeof(struct ina_eth_hdr) + offsetof(struct ina_ipv4_hdr, src));
		cd.dst_ip = ina_load32(f + sizeof(struct ina_eth_hdr) + offsetof(struct ina_ipv4_hdr, dst));
		fwd->push(copy);
	}
}

} /* namespace */

uint32_t netreduce_burst(const NetreduceCtx &c, const Burst &in, uint32_t first, ForwardBurst *fwd)
{
	uint32_t i = first;
	/* A packet and its copies for every other rank. */
	for (; i < in.n && fwd->room() >= NR_MAX_RANKS; i++) {
		rte_mbuf *m = in.v[i];
		uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
		const ina::NrResult res = ina::nr_process(*c.nr, *c.nr_ctr, frame, m->data_len, c.now);
		switch (res.verdict) {
		case ina::NrVerdict::kDrop:
			/* As for the pipeline (pipeline_stage.cpp): a reason
			 * that is no drop is a contribution the slot took. */
			if (ina::nr_counter_kind(res.reason) != ina::CounterKind::kDrop)
				(*c.ctr)[LcoreCtr::absorbed]++;
			rte_pktmbuf_free(m);
			break;
		case ina::NrVerdict::kPass:
		case ina::NrVerdict::kForward:
			fwd->push(m);
			break;
		case ina::NrVerdict::kComplete:
			results(c, m, res, fwd);
			fwd->push(m);
			break;
		}
	}
	return i - first;
}

} /* namespace switchd */
