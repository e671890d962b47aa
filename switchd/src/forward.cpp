/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Forward: unicast by the neighbour table (IPv4 destination, else MAC),
 * broadcast and multicast destinations to the flood, ARP for the switch's
 * own address answered.
 */
#include <rte_arp.h>
#include <rte_ether.h>

#include "stages.h"

namespace switchd {

namespace {

void drop(const ForwardCtx &c, rte_mbuf *m, LcoreCtr why)
{
	(*c.ctr)[why]++;
	rte_pktmbuf_free(m);
}

void forward_l2(const ForwardCtx &c, rte_mbuf *m, TxBurst *tx, ForwardBurst *flood)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	if (frame[0] & 1)
		return flood->push(m); /* broadcast or multicast MAC */
	const NextHop *h = c.fwd->by_mac(frame);
	if (!h)
		return drop(c, m, LcoreCtr::no_route);
	tx->push(TxItem{m, h->port});
}

void forward_ipv4(const ForwardCtx &c, rte_mbuf *m, const PacketDesc &d, TxBurst *tx, ForwardBurst *flood)
{
	if ((d.dst_ip >> 28) == 0xE || d.dst_ip == 0xFFFFFFFFu)
		return flood->push(m);
	const NextHop *h = c.fwd->by_ip(d.dst_ip);
	if (!h)
		return forward_l2(c, m, tx, flood);
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), h->mac.data(), 6);
	tx->push(TxItem{m, h->port});
}

void answer_arp(const ForwardCtx &c, rte_mbuf *m, const PacketDesc &d, TxBurst *tx, ForwardBurst *flood)
{
	if (m->data_len < sizeof(struct rte_ether_hdr) + sizeof(struct rte_arp_hdr))
		return drop(c, m, LcoreCtr::runt_drops);
	auto *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	auto *arp = reinterpret_cast<struct rte_arp_hdr *>(eth + 1);
	const uint32_t target = rte_be_to_cpu_32(arp->arp_data.arp_tip);
	if (target != c.switch_ip) {
		const NextHop *h = c.fwd->by_ip(target);
		if (h)
			return tx->push(TxItem{m, h->port});
		return forward_l2(c, m, tx, flood);
	}
	if (arp->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST))
		return drop(c, m, LcoreCtr::to_switch_drops);
	const Mac &mine = c.port_mac[d.in_port];
	rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
	memcpy(eth->src_addr.addr_bytes, mine.data(), 6);
	arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	arp->arp_data.arp_tha = arp->arp_data.arp_sha;
	arp->arp_data.arp_tip = arp->arp_data.arp_sip;
	memcpy(arp->arp_data.arp_sha.addr_bytes, mine.data(), 6);
	arp->arp_data.arp_sip = rte_cpu_to_be_32(c.switch_ip);
	(*c.ctr)[LcoreCtr::arp_replies]++;
	tx->push(TxItem{m, d.in_port});
}

} /* namespace */

void forward_burst(const ForwardCtx &c, const ForwardBurst &in, TxBurst *tx, ForwardBurst *flood)
{
	for (uint32_t i = 0; i < in.n; i++) {
		rte_mbuf *m = in.v[i];
		const PacketDesc &d = *desc(m);
		switch (d.cls) {
		case PacketClass::kArp:
			answer_arp(c, m, d, tx, flood);
			break;
		case PacketClass::kL2:
			forward_l2(c, m, tx, flood);
			break;
		default:
			forward_ipv4(c, m, d, tx, flood);
			break;
		}
	}
}

} /* namespace switchd */
