/* SPDX-License-Identifier: BSD-3-Clause */
#include "egress.h"

#include <algorithm>
#include <cstddef>
#include <cmath>

#include "ina/codec.h"
#include "ina/pipeline.h"

namespace switchd {

/* Sets the INA header's ECN flag. A packet that went through the switch
 * program left it with UDP checksum 0; one the switch only routes (a job it
 * does not aggregate) may still carry its sender's checksum, which is updated
 * for the changed word (RFC 1624) so that the receiver's kernel keeps it. */
static void mark_ina_header(uint8_t *frame, uint32_t ina_offset)
{
	static_assert(offsetof(struct ina_hdr, flags) % 2 == 0, "flags is a word of the UDP checksum");
	uint8_t *flags = frame + ina_offset + offsetof(struct ina_hdr, flags);
	uint8_t *udp_check = frame + ina_offset - sizeof(struct ina_udp_hdr) + offsetof(struct ina_udp_hdr, checksum);
	uint16_t before = ina_load16(flags);
	ina::add_flags(frame + ina_offset, INA_F_ECN);
	uint16_t after = ina_load16(flags);
	uint16_t check = ina_load16(udp_check);
	if (check == 0 || before == after)
		return;
	uint32_t sum = static_cast<uint16_t>(~check) + static_cast<uint32_t>(static_cast<uint16_t>(~before)) + after;
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	check = static_cast<uint16_t>(~sum);
	ina_store16(udp_check, check ? check : 0xFFFF); /* 0 would mean "no checksum" */
}

int ecn_mark(uint8_t *frame, uint32_t len, const ina::InaView *v)
{
	if (len < sizeof(struct ina_eth_hdr) + sizeof(struct ina_ipv4_hdr) ||
	    ina_load16(frame + 12) != 0x0800)
		return -1;
	uint8_t *ip = frame + sizeof(struct ina_eth_hdr);
	if ((ip[0] >> 4) != 4)
		return -1;
	int job = -1;
	/* A multicast copy's first segment holds the headers only: the INA
	 * header is marked where it lies in it. A parameter packet keeps its
	 * INA flag as the PS set it (the aggregate saw congestion: the same
	 * word for every worker, which A2TP's job-wide windows need); the
	 * queue toward this one worker marks only its copy's IP CE. */
	if (v && v->type == INA_TYPE_DATA && v->ina_offset + INA_HDR_LEN <= len) {
		if (!(v->flags & INA_F_ACK))
			mark_ina_header(frame, v->ina_offset);
		job = v->job;
	} else if ((ip[1] & 3) == 0) {
		return -1; /* not ECN-capable transport: nothing to mark */
	} else {
		job = 0;
	}
	struct rte_ipv4_hdr *h = reinterpret_cast<struct rte_ipv4_hdr *>(ip);
	if ((h->type_of_service & 3) != 3) {
		h->type_of_service |= 3;
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	}
	return job;
}

void EgressQueue::init(uint16_t port_id, uint16_t txq, const EgressConfig &cfg, unsigned n_lcores,
		       uint16_t burst, uint32_t max_frame, PortCounters *ctr)
{
	port_ = port_id;
	txq_ = txq;
	burst_ = burst;
	ctr_ = ctr;
	cap_ = cfg.queue_capacity;
	qbuf_.assign(cap_, nullptr);
	q_ = qbuf_.data();
	ecn_threshold_ = cfg.ecn_threshold;
	drop_threshold_ = cfg.drop_rate >= 1.0 ? UINT64_MAX
						 : static_cast<uint64_t>(std::ldexp(cfg.drop_rate, 64));
	shaped_ = cfg.rate_gbps > 0;
	if (shaped_) {
		double bytes_per_s = cfg.rate_gbps * 1e9 / 8.0 / n_lcores;
		bytes_per_cycle_ = bytes_per_s / static_cast<double>(rte_get_tsc_hz());
		/* Two of the largest frames the port carries: enough to not
		 * starve (a bucket smaller than one frame would never release
		 * it), small enough that the queue (and so ECN) builds up as
		 * soon as input exceeds the rate. */
		bucket_ = 2.0 * (std::max<uint32_t>(max_frame, RTE_ETHER_MAX_LEN) + kWireOverhead);
		tokens_ = bucket_;
	}
	last_ = rte_rdtsc();
	/* Batching is off where it would change behaviour: a shaped port
	 * releases by tokens, and a queue held back for a burst must not cross
	 * the ECN threshold by itself. */
	const bool batch = !shaped_ && !(ecn_threshold_ && ecn_threshold_ <= burst_);
	drain_cycles_ = batch ? static_cast<uint64_t>(kTxDrainUs * 1e-6 *
							 static_cast<double>(rte_get_tsc_hz()))
			      : 0;
}

EgressQueue::~EgressQueue() { flush(); }

void EgressQueue::flush()
{
	while (count_) {
		rte_pktmbuf_free(q_[head_]);
		if (++head_ == cap_)
			head_ = 0;
		count_--;
	}
}

void EgressQueue::take_inbox()
{
	rte_mbuf *in[32];
	const unsigned n = rte_ring_sc_dequeue_burst(inbox_, reinterpret_cast<void **>(in), 32, nullptr);
	for (unsigned i = 0; i < n; i++) {
		if (count_ >= cap_) {
			(*ctr_)[PortCtr::egress_drops]++;
			rte_pktmbuf_free(in[i]);
			continue;
		}
		uint32_t tail = head_ + count_;
		if (tail >= cap_)
			tail -= cap_;
		q_[tail] = in[i];
		count_++;
	}
}

} /* namespace switchd */
