/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Forward: unicast by the neighbour table (IPv4 destination, else MAC),
 * broadcast and multicast destinations flooded, ARP for the switch's own
 * address answered.
 */
#include <rte_arp.h>
#include <rte_ether.h>

#include "lcore_loop.h"

namespace switchd {

void LcoreLoop::forward_ipv4(rte_mbuf *m, const PacketDesc &d)
{
	if ((d.dst_ip >> 28) == 0xE || d.dst_ip == 0xFFFFFFFFu)
		return flood(m, d);
	const NextHop *h = app_.fwd->by_ip(d.dst_ip);
	if (!h)
		return forward_l2(m, d);
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), h->mac.data(), 6);
	enqueue(h->port, m, ina_view(d));
}

void LcoreLoop::forward_l2(rte_mbuf *m, const PacketDesc &d)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	if (frame[0] & 1)
		return flood(m, d); /* broadcast or multicast MAC */
	const NextHop *h = app_.fwd->by_mac(frame);
	if (!h)
		return drop(m, LcoreCtr::no_route);
	enqueue(h->port, m, ina_view(d));
}

void LcoreLoop::answer_arp(rte_mbuf *m, const PacketDesc &d)
{
	if (m->data_len < sizeof(struct rte_ether_hdr) + sizeof(struct rte_arp_hdr))
		return drop(m, LcoreCtr::runt_drops);
	auto *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	auto *arp = reinterpret_cast<struct rte_arp_hdr *>(eth + 1);
	const uint32_t target = rte_be_to_cpu_32(arp->arp_data.arp_tip);
	if (target != app_.cfg.ip) {
		const NextHop *h = app_.fwd->by_ip(target);
		if (h)
			return enqueue(h->port, m, nullptr);
		return forward_l2(m, d);
	}
	if (arp->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST))
		return drop(m, LcoreCtr::to_switch_drops);
	const Mac &mine = app_.port_mac[d.in_port];
	rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
	memcpy(eth->src_addr.addr_bytes, mine.data(), 6);
	arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	arp->arp_data.arp_tha = arp->arp_data.arp_sha;
	arp->arp_data.arp_tip = arp->arp_data.arp_sip;
	memcpy(arp->arp_data.arp_sha.addr_bytes, mine.data(), 6);
	arp->arp_data.arp_sip = rte_cpu_to_be_32(app_.cfg.ip);
	lc_.ctr[LcoreCtr::arp_replies]++;
	enqueue(d.in_port, m, nullptr);
}

} /* namespace switchd */
