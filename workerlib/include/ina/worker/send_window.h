/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The sliding window of one sender and its loss detection, without I/O.
 *
 * A sender numbers the fragments it sends 0, 1, 2, ... (the local index k;
 * the caller maps k to the fragment's job-wide sequence number). The
 * parameter packet of a fragment is its ACK. Loss is detected
 *   - by ACKs of later fragments (ATP §3.6-3.7: "all workers treat the
 *     stalled fragment as a loss"): an unACKed fragment with dupthresh (3)
 *     ACKed fragments sent after it is lost, the rule of RFC 6675, and - as
 *     RACK does (RFC 8985) - only once a fragment sent at least the reorder
 *     window after it has been ACKed. INA reorders by nature: the switch
 *     completes a fragment when its last worker's copy arrives, and
 *     fragments that fell back to the PS come back later than their
 *     neighbours; without the window each such reordering is a spurious
 *     retransmission, and a spurious resend flushes a switch aggregator
 *     that every worker then has to refill. All holes
 *     of a window are found this way at once, not one per round trip, which
 *     matters in INA: a hole is mostly a fragment stuck in a switch
 *     aggregator, and each one waits for every worker's retransmission.
 *     Each fragment is fast-retransmitted at most once; a lost
 *     retransmission is left to the timeout.
 *   - by timeout: a fragment unACKed for longer than the RTO since its last
 *     transmission.
 * ACKs of fragments already ACKed are duplicates and change nothing.
 */
#ifndef INA_WORKER_SEND_WINDOW_H
#define INA_WORKER_SEND_WINDOW_H

#include <cstdint>
#include <vector>

namespace ina {

class SendWindow {
public:
	/* capacity: most fragments between the lowest unACKed and the next
	 * new one (rounded up to a power of two). */
	explicit SendWindow(uint32_t capacity = 1u << 15, uint32_t dupthresh = 3);

	enum class AckKind {
		in_order,     /* ACK of the expected fragment */
		out_of_order, /* ACK of a later fragment */
		duplicate,    /* already ACKed, or below the window */
		unknown,      /* never sent */
	};
	struct AckOutcome {
		AckKind kind;
		uint64_t rtt_ns;  /* RTT sample, 0 when none (retransmitted: Karn) */
		uint32_t lost;    /* fragments this ACK declared lost: lost_at(0..lost-1) */
	};

	uint64_t base() const { return base_; }
	uint64_t next() const { return next_; }
	uint32_t in_flight() const { return in_flight_; }
	uint32_t in_flight_agg() const { return in_flight_agg_; }
	uint32_t capacity() const { return mask_ + 1; }
	bool has_room() const { return next_ - base_ <= mask_; }
	bool acked(uint64_t k) const;
	bool bypassed(uint64_t k) const;
	uint32_t transmissions(uint64_t k) const;

	/* Records the first transmission of next(); returns its index. */
	uint64_t send_new(uint64_t now_ns, bool bypass);
	/* Records a retransmission of k. */
	void resend(uint64_t k, uint64_t now_ns);
	/* Reorder window of the loss rule above (the sender keeps it at a
	 * fraction of the smoothed RTT); 0: the count alone decides. */
	void set_reorder_window(uint64_t ns) { reorder_window_ns_ = ns; }
	AckOutcome on_ack(uint64_t k, uint64_t now_ns);
	/* The i-th fragment the last on_ack() declared lost; the caller
	 * resends it. */
	uint64_t lost_at(uint32_t i) const { return lost_[i]; }
	/* Writes up to max indices of unACKed fragments last sent at least
	 * rto_ns ago; returns how many. */
	uint32_t collect_timeouts(uint64_t now_ns, uint64_t rto_ns, uint64_t *out, uint32_t max) const;

private:
	/* One fragment of the window, as sent. */
	struct SentFragment {
		uint64_t sent_ns;
		uint16_t transmissions;
		uint8_t acked;
		uint8_t fast_retx; /* already fast-retransmitted */
		uint8_t bypass;
	};
	SentFragment &slot(uint64_t k) { return slots_[k & mask_]; }
	const SentFragment &slot(uint64_t k) const { return slots_[k & mask_]; }
	/* Moves scan_ up over ACKed fragments and fragments the SACK rule
	 * declares lost (appended to lost_). */
	void scan_for_losses();

	std::vector<SentFragment> slots_;
	uint64_t mask_;
	uint32_t dupthresh_;
	uint64_t base_ = 0, next_ = 0;
	/* Every fragment below scan_ is ACKed or was declared lost;
	 * acked_above_scan_ counts the ACKed ones above it. */
	uint64_t scan_ = 0;
	uint32_t acked_above_scan_ = 0;
	std::vector<uint64_t> lost_; /* of the last on_ack(), capacity reserved */
	uint32_t in_flight_ = 0, in_flight_agg_ = 0;
	uint64_t reorder_window_ns_ = 0;
	uint64_t newest_acked_sent_ns_ = 0; /* latest (re)transmission ACKed */
};

} /* namespace ina */

#endif /* INA_WORKER_SEND_WINDOW_H */
