/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Classify: the one parse of a packet. Its class and the fields the later
 * stages need go into the PacketDesc in the mbuf's private area (an INA
 * header's as the codec's decoded view, ina::InaView), and the packet
 * goes to the burst of the stage its class names. A packet to the INA UDP port that
 * is not a valid INA packet is dropped here, counted under the switch
 * program's reason (malformed_short, malformed_version, malformed_job): it
 * must not reach a host as plain traffic, where a worker or the PS would
 * read it.
 */
#include <rte_ether.h>
#include <rte_prefetch.h>

#include "ina/codec.h"
#include "stages.h"

namespace switchd {

namespace {

constexpr uint32_t kEth = sizeof(struct ina_eth_hdr);

/* IPv4 without options, UDP to the RoCEv2 port: the NetReduce stage
 * checks the rest. */
bool is_rocev2(const uint8_t *frame, uint32_t len)
{
	return len >= ROCE_BTH_OFFSET && frame[kEth] == 0x45 &&
	       frame[kEth + offsetof(struct ina_ipv4_hdr, proto)] == 17 &&
	       ina_load16(frame + kEth + sizeof(struct ina_ipv4_hdr) + 2) == ROCE_UDP_PORT;
}

} /* namespace */

namespace {

/* One packet: false if it was dropped (counted, freed). */
bool classify_one(const ClassifyCtx &c, rte_mbuf *m)
{
	LcoreCounters &ctr = *c.ctr;
	ctr[LcoreCtr::packets]++;
	const int16_t in = m->port < c.port_ids ? c.port_index[m->port] : -1;
	LcoreCtr drop;
	if (in < 0) {
		drop = LcoreCtr::unknown_port_drops;
	} else if (m->nb_segs > 1) {
		drop = LcoreCtr::multiseg_drops;
	} else if (m->data_len < kEth) {
		drop = LcoreCtr::runt_drops;
	} else {
		const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
		const uint32_t len = m->data_len;
		PacketDesc &d = *desc(m);
		d.in_port = static_cast<uint16_t>(in);
		const uint16_t ether_type = ina_load16(frame + 12);
		if (ether_type == RTE_ETHER_TYPE_ARP) {
			d.cls = PacketClass::kArp;
			return true;
		}
		if (ether_type != RTE_ETHER_TYPE_IPV4 || len < kEth + sizeof(struct ina_ipv4_hdr)) {
			d.cls = PacketClass::kL2;
			return true;
		}
		d.src_ip = ina_load32(frame + kEth + 12);
		d.dst_ip = ina_load32(frame + kEth + 16);
		uint32_t off;
		if (!ina::find_ina_header(frame, len, &off)) {
			d.cls = c.roce && is_rocev2(frame, len) ? PacketClass::kRoce : PacketClass::kIpv4;
			return true;
		}
		/* The packet's one decode: every later stage reads d.ina. A
		 * header this switch does not speak (too short, another
		 * version, job 0) is dropped under the reason ina::process()
		 * would give it, so that each is told apart; the pipeline
		 * judges the rest. */
		ina::Counter bad = ina::Counter::kCount;
		if (!ina::decode_view(frame, len, off, &d.ina))
			bad = ina::Counter::malformed_short;
		else if (d.ina.version != INA_VERSION)
			bad = ina::Counter::malformed_version;
		else if (d.ina.job == 0)
			bad = ina::Counter::malformed_job;
		if (bad == ina::Counter::kCount) {
			d.cls = PacketClass::kIna;
			return true;
		}
		(*c.pipeline)[bad]++;
		rte_pktmbuf_free(m);
		return false;
	}
	ctr[drop]++;
	rte_pktmbuf_free(m);
	return false;
}

} /* namespace */

void classify_burst(const ClassifyCtx &c, rte_mbuf *const *pkts, uint32_t n, Burst *ina, Burst *roce,
		    ForwardBurst *fwd)
{
	for (uint32_t i = 0; i < n; i++) {
		rte_mbuf *m = pkts[i];
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		if (!classify_one(c, m))
			continue;
		const PacketDesc &d = *desc(m);
		switch (d.cls) {
		case PacketClass::kIna:
			ina->push(m);
			break;
		case PacketClass::kRoce:
			roce->push(m);
			break;
		case PacketClass::kIpv4:
			if (d.dst_ip == c.switch_ip) {
				(*c.ctr)[LcoreCtr::to_switch_drops]++;
				rte_pktmbuf_free(m);
				break;
			}
			fwd->push(m);
			break;
		case PacketClass::kArp:
		case PacketClass::kL2:
			fwd->push(m);
			break;
		}
	}
}

} /* namespace switchd */
