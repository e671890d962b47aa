/* SPDX-License-Identifier: BSD-3-Clause
 *
 * One lcore's egress queue toward one port: a FIFO of mbufs in front of the
 * lcore's own TX queue, with an optional token-bucket shaper (to emulate a
 * bottleneck link on veth), ECN marking above a depth threshold, tail drop
 * at capacity and optional random drop. Each lcore shapes at rate / lcores,
 * so the port as a whole sends at most the configured rate.
 */
#ifndef INA_SWITCHD_EGRESS_H
#define INA_SWITCHD_EGRESS_H

#include <cstdint>
#include <vector>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "config.h"
#include "ina/codec.h"
#include "stats.h"

namespace switchd {

/* Sets INA_F_ECN (for INA data frames) and IP CE. `v`: the frame's INA
 * header as classify decoded it, null if the frame is not INA traffic; its
 * flags are not updated here. Returns the INA job id of the frame, or 0 if
 * it is not INA or not IPv4 ECN-capable (then nothing is marked for non-INA
 * traffic). Returns -1 when nothing was marked. */
int ecn_mark(uint8_t *frame, uint32_t len, const ina::InaView *v);

class EgressQueue {
public:
	/* Longest wait of a partial TX burst on an unshaped port. */
	static constexpr double kTxDrainUs = 20.0;

	/* max_frame: the largest frame the port carries, in bytes (sizes
	 * the shaper's bucket). */
	void init(uint16_t port_id, uint16_t txq, const EgressConfig &cfg, unsigned n_lcores,
		  uint16_t burst, uint32_t max_frame, PortCounters *ctr);
	~EgressQueue();

	/* Frames another thread sends through this queue (the control plane's
	 * ACKs): an SPSC ring this queue drains before its own packets. */
	void set_inbox(rte_ring *r) { inbox_ = r; }

	uint32_t depth() const { return count_; }
	/* queue_depth as drain() leaves it, for a queue not drained (its port
	 * is down): the packet accounting counts what it holds. */
	void show_depth() { (*ctr_)[PortCtr::queue_depth] = count_; }
	bool above_threshold() const { return ecn_threshold_ && count_ >= ecn_threshold_; }

	/* Takes ownership of m; v is its decoded INA header (null: not INA).
	 * Returns false if it was dropped (counted), and then *job_dropped
	 * holds its INA job id (0 if not INA). */
	bool enqueue(rte_mbuf *m, const ina::InaView *v, uint64_t *rng, int *job_marked, uint16_t *job_dropped)
	{
		*job_marked = -1;
		if (drop_threshold_ && next_random(rng) < drop_threshold_) {
			(*ctr_)[PortCtr::random_drops]++;
			*job_dropped = v ? v->job : 0;
			rte_pktmbuf_free(m);
			return false;
		}
		if (count_ >= cap_) {
			(*ctr_)[PortCtr::egress_drops]++;
			*job_dropped = v ? v->job : 0;
			rte_pktmbuf_free(m);
			return false;
		}
		if (above_threshold()) {
			*job_marked = ecn_mark(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, v);
			if (*job_marked >= 0)
				(*ctr_)[PortCtr::ecn_marks]++;
		}
		uint32_t tail = head_ + count_;
		if (tail >= cap_)
			tail -= cap_;
		q_[tail] = m;
		count_++;
		return true;
	}

	/* Sends what the shaper allows. `now` in TSC cycles. Returns the
	 * packets sent. */
	uint32_t drain(uint64_t now)
	{
		if (inbox_ && !rte_ring_empty(inbox_))
			take_inbox();
		if (shaped_ && now > last_) {
			tokens_ += static_cast<double>(now - last_) * bytes_per_cycle_;
			if (tokens_ > bucket_)
				tokens_ = bucket_;
			last_ = now;
		}
		if (!count_) {
			(*ctr_)[PortCtr::queue_depth] = 0;
			return 0;
		}
		/* As l2fwd's BURST_TX_DRAIN_US: a TX call costs a PMD about as
		 * much for one packet as for a burst (memif makes a system call
		 * per call), so a partial burst waits a little for company. An
		 * idle queue sends at once: now - last_tx_ is large. */
		if (count_ < burst_ && now - last_tx_ < drain_cycles_) {
			(*ctr_)[PortCtr::queue_depth] = count_;
			return 0;
		}
		last_tx_ = now;
		uint32_t allowed = count_, total = 0;
		if (shaped_) {
			allowed = 0;
			double t = tokens_;
			uint32_t i = head_;
			while (allowed < count_ && allowed < burst_) {
				uint32_t len = q_[i]->pkt_len + kWireOverhead;
				if (t < len)
					break;
				t -= len;
				allowed++;
				if (++i == cap_)
					i = 0;
			}
			if (!allowed) {
				(*ctr_)[PortCtr::queue_depth] = count_;
				return 0;
			}
		}
		while (allowed) {
			uint32_t chunk = allowed;
			if (chunk > cap_ - head_)
				chunk = cap_ - head_;
			if (chunk > burst_)
				chunk = burst_;
			/* Lengths are read before the PMD may free the mbufs. */
			uint32_t lens[256];
			for (uint32_t k = 0; k < chunk; k++)
				lens[k] = q_[head_ + k]->pkt_len;
			uint16_t sent = rte_eth_tx_burst(port_, txq_, &q_[head_], static_cast<uint16_t>(chunk));
			uint64_t bytes = 0;
			for (uint32_t k = 0; k < sent; k++)
				bytes += lens[k];
			if (shaped_)
				tokens_ -= static_cast<double>(bytes + sent * kWireOverhead);
			(*ctr_)[PortCtr::tx_packets] += sent;
			(*ctr_)[PortCtr::tx_bytes] += bytes;
			head_ += sent;
			if (head_ == cap_)
				head_ = 0;
			count_ -= sent;
			allowed -= sent;
			total += sent;
			if (sent < chunk)
				break; /* TX ring full: keep the rest queued */
		}
		(*ctr_)[PortCtr::queue_depth] = count_;
		return total;
	}

	/* Frees whatever is still queued (shutdown). */
	void flush();

private:
	/* Preamble, start delimiter, FCS and inter-frame gap: what a packet costs on the wire. */
	static constexpr uint32_t kWireOverhead = 24;

	static uint64_t next_random(uint64_t *s)
	{
		uint64_t x = *s;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		*s = x;
		return x;
	}
	void take_inbox();

	std::vector<rte_mbuf *> qbuf_;
	rte_mbuf **q_ = nullptr;
	uint32_t cap_ = 0, head_ = 0, count_ = 0;
	uint32_t ecn_threshold_ = 0;
	uint64_t drop_threshold_ = 0;
	uint16_t port_ = 0, txq_ = 0, burst_ = 32;
	bool shaped_ = false;
	double bytes_per_cycle_ = 0, tokens_ = 0, bucket_ = 0;
	uint64_t last_ = 0;
	uint64_t last_tx_ = 0, drain_cycles_ = 0;
	PortCounters *ctr_ = nullptr;
	rte_ring *inbox_ = nullptr;
};

} /* namespace switchd */

#endif
