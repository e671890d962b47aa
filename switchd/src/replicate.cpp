/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Replicate: a job's parameter packet goes out once per port that leads to
 * its workers (computed at registration, jobs.cpp), and a flooded packet
 * out of every port but the one it came in on.
 */
#include <rte_ip.h>

#include "stages.h"

namespace switchd {

namespace {

constexpr uint32_t kEth = sizeof(struct ina_eth_hdr);
constexpr uint32_t kIpDst = kEth + 16;

void fix_ip_checksum(uint8_t *frame)
{
	auto *h = reinterpret_cast<struct rte_ipv4_hdr *>(frame + kEth);
	h->hdr_checksum = 0;
	h->hdr_checksum = rte_ipv4_cksum(h);
}

/* One copy toward t: a fresh header mbuf (Ethernet..INA header, addressed
 * to the group or to the port's single worker) chained to an indirect mbuf
 * that shares the original payload, or a flat copy where the port cannot
 * send chains; it carries the original's PacketDesc. Null (counted) if no
 * mbuf was left. */
rte_mbuf *copy_for(const ReplicateCtx &c, rte_mbuf *m, const McastTarget &t)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t len = m->data_len;
	const uint32_t hdr_len = len < INA_PAYLOAD_OFFSET ? len : INA_PAYLOAD_OFFSET;
	const bool flat = len > hdr_len && !c.port_multiseg[t.port];
	rte_mbuf *h = rte_pktmbuf_alloc(flat ? c.pool : c.hdr_pool);
	uint8_t *d = h ? reinterpret_cast<uint8_t *>(rte_pktmbuf_append(h, static_cast<uint16_t>(flat ? len : hdr_len))) : nullptr;
	if (!d)
		goto fail;
	memcpy(d, frame, flat ? len : hdr_len);
	memcpy(d, t.mac.data(), 6);
	if (ina_load32(d + kIpDst) != t.ip) {
		ina_store32(d + kIpDst, t.ip);
		fix_ip_checksum(d);
	}
	if (flat) {
		(*c.ctr)[LcoreCtr::multicast_flat_copies]++;
	} else if (len > hdr_len) {
		rte_mbuf *p = rte_pktmbuf_clone(m, c.ind_pool);
		if (!p)
			goto fail;
		rte_pktmbuf_adj(p, static_cast<uint16_t>(hdr_len));
		if (rte_pktmbuf_chain(h, p) != 0) {
			rte_pktmbuf_free(p);
			goto fail;
		}
	}
	*desc(h) = *desc(m); /* the copy's header is the original's */
	return h;
fail:
	rte_pktmbuf_free(h); /* null-safe */
	(*c.ctr)[LcoreCtr::multicast_alloc_drops]++;
	return nullptr;
}

/* Never back out of the port it came in on (split horizon): with several
 * switches registered for the same workers, a parameter packet would
 * otherwise loop between them. */
void multicast(const ReplicateCtx &c, const McastItem &it, TxBurst *tx)
{
	rte_mbuf *m = it.m;
	const PacketDesc &d = *desc(m);
	for (const McastTarget &t : it.job->mcast) {
		if (t.port == d.in_port) {
			(*c.ctr)[LcoreCtr::multicast_split_horizon]++;
			continue;
		}
		rte_mbuf *copy = copy_for(c, m, t);
		if (!copy)
			continue;
		(*c.ctr)[LcoreCtr::multicast_copies]++;
		tx->push(TxItem{copy, t.port});
	}
	rte_pktmbuf_free(m);
}

void flood(const ReplicateCtx &c, rte_mbuf *m, TxBurst *tx)
{
	const uint16_t n = c.ports;
	if (n < 2) { /* nowhere but back */
		(*c.ctr)[LcoreCtr::flood_no_port]++;
		rte_pktmbuf_free(m);
		return;
	}
	(*c.ctr)[LcoreCtr::flooded]++;
	/* The same mbuf goes out n-1 ports: one reference each. */
	rte_mbuf_refcnt_update(m, static_cast<int16_t>(n - 2));
	const uint16_t in_port = desc(m)->in_port;
	for (uint16_t p = 0; p < n; p++)
		if (p != in_port)
			tx->push(TxItem{m, p});
}

} /* namespace */

void replicate_burst(const ReplicateCtx &c, const McastBurst &mcast, uint32_t *mi, const ForwardBurst &flood_in,
		     uint32_t *fi, TxBurst *tx)
{
	for (; *mi < mcast.n && tx->room() >= mcast.v[*mi].job->mcast.size(); ++*mi)
		multicast(c, mcast.v[*mi], tx);
	for (; *fi < flood_in.n && tx->room() >= c.ports; ++*fi)
		flood(c, flood_in.v[*fi], tx);
}

} /* namespace switchd */
