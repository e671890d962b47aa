/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The message-level flow control of NetReduce's host (§3.1, §3.2 "Flow
 * Control"): gradient messages of one fixed size go out in order, at most N
 * of them between the oldest without a result and the newest posted, and
 * the switch's aggregator array holds 2N messages, message m in slot
 * m % 2N. A result message (from the ring predecessor) completes one
 * message; the window advances over the completed prefix.
 *
 * This class decides; it calls nothing. The roce transport (roce.cpp) asks
 * it which message to post, tells it what completed, and when; the same
 * calls are made by the unit tests without a device. Time is the caller's
 * (nanoseconds, any monotonic origin).
 *
 * Sequence numbers (seq) count messages from 0 and never wrap; the MsgID on
 * the wire is seq modulo the largest multiple of 2N that fits the MsgID
 * field, so that MsgID % 2N == seq % 2N across the field's wraparound.
 *
 * Going back N resends every message from the lost one on, those with a
 * result included: the switch finds the message of a packet that is not a
 * first packet from its PSN and the last first packet of the connection,
 * which holds only while MsgIDs follow each other in PSN order (a gap would
 * put the NIC's own retransmissions into the wrong slot). For the same
 * reason the caller goes back only while the NIC has no send outstanding.
 */
#ifndef INA_ROCE_WINDOW_H
#define INA_ROCE_WINDOW_H

#include <cstdint>
#include <string>
#include <vector>

namespace ina {

/* Bounds of the flow control. */
constexpr uint32_t kRoceMaxWindow = 4096;         /* N; the array is 2N messages */
constexpr uint32_t kRoceMaxMsgBytes = 1u << 20;    /* one message */
constexpr uint32_t kRoceMaxMsgPackets = 1024;      /* MsgLen, packets per message */

struct RoceWindowConfig {
	/* N: messages in flight (posted, result not back), 1..kRoceMaxWindow. */
	uint32_t window = 32;
	/* Bytes per message, the INA header included; a multiple of `mtu` so
	 * that every packet of every message is full and the switch's
	 * PSN - PSN0 addresses the same values at every rank. */
	uint32_t msg_bytes = 4096;
	/* RoCE path MTU (the BTH payload of one packet): 256, 512, 1024,
	 * 2048 or 4096. */
	uint32_t mtu = 1024;
	/* Bytes of the INA header at the front of each message, which the
	 * message must exceed (filled in by the transport from the wire
	 * layout). */
	uint32_t header_bytes = 16;
	/* Width of the MsgID field on the wire, 2..32 bits. */
	uint32_t msg_id_bits = 32;
	/* A message whose result is not back this long after it was posted is
	 * lost: go back N from it. */
	uint64_t timeout_ns = 100'000'000;
};

/* Checks a config; false with a one-line *error naming the field. */
bool roce_window_check(const RoceWindowConfig &cfg, std::string *error);

/* What a result message was. */
enum class RoceResult {
	kCompleted, /* completed a message in flight; copy its result out */
	kDuplicate, /* for a message already completed, still in the window */
	kStale,     /* for no message in the window (older, or never posted) */
};

struct RoceWindowStats {
	uint64_t posted = 0;      /* posts, resends included */
	uint64_t retransmits = 0; /* posts of a message posted before */
	uint64_t timeouts = 0;    /* go-back-N events */
	uint64_t completed = 0;
	uint64_t duplicates = 0;
	uint64_t stale = 0;
};

class RoceWindow {
public:
	/* cfg must have passed roce_window_check(). */
	explicit RoceWindow(const RoceWindowConfig &cfg);

	/* Makes `n` more messages available to post (the next tensor). */
	void add(uint64_t n) { end_ += n; }

	/* The message to post now, if any: a resend first (in order), else
	 * the next new one; none while the window is full. Does not change
	 * state: call posted() once the post went through. */
	bool next(uint64_t *seq) const;
	/* `seq` (from next()) was handed to the NIC at `now_ns`. */
	void posted(uint64_t seq, uint64_t now_ns);

	/* A result message carrying `msg_id` arrived; for kCompleted, *seq
	 * is the message it completes. */
	RoceResult on_result(uint32_t msg_id, uint64_t *seq);

	/* Goes back N from the oldest message without a result when that is
	 * overdue at now_ns; returns how many messages will be resent. */
	uint32_t on_timeout(uint64_t now_ns);

	/* When the oldest message in flight is due (UINT64_MAX: none). */
	uint64_t deadline() const;

	/* The oldest message without a result; all before it are complete. */
	uint64_t base() const { return base_; }
	/* Messages added so far; done() once all are complete. */
	uint64_t end() const { return end_; }
	bool done() const { return base_ == end_; }
	uint32_t in_flight() const;
	/* Whether next() will give a resend. */
	bool resending() const { return next_ < high_; }

	/* Wire values of a message. */
	uint32_t msg_id(uint64_t seq) const { return static_cast<uint32_t>(seq % id_modulus_); }
	/* The aggregator (and receive buffer) slot, MsgID % 2N. */
	uint32_t slot(uint64_t seq) const { return static_cast<uint32_t>(seq % (2ull * cfg_.window)); }
	/* The MsgID after which MsgIDs start over at 0. */
	uint64_t id_modulus() const { return id_modulus_; }
	/* MsgLen: packets per message. */
	uint32_t msg_packets() const { return cfg_.msg_bytes / cfg_.mtu; }

	/* Whether `seq`'s slot is free at the switch: message seq - 2N's
	 * aggregators are deallocated by the packets of seq - N (the
	 * "one window away" release of §3.1), so seq may go out only once
	 * seq - N is complete. next() never returns a seq without it. */
	bool slot_released(uint64_t seq) const;

	const RoceWindowStats &stats() const { return stats_; }
	const RoceWindowConfig &config() const { return cfg_; }

private:
	enum State : uint8_t { kIdle, kPosted, kDone };
	struct Msg {
		State state;
		uint64_t posted_ns;
	};
	Msg &at(uint64_t seq) { return ring_[seq % ring_.size()]; }
	const Msg &at(uint64_t seq) const { return ring_[seq % ring_.size()]; }
	void go_back(uint64_t from);
	void advance();

	RoceWindowConfig cfg_;
	uint64_t id_modulus_;
	std::vector<Msg> ring_; /* 2N, indexed by slot */
	uint64_t base_ = 0;     /* oldest incomplete */
	uint64_t next_ = 0;     /* next to post, <= high_ */
	uint64_t high_ = 0;     /* one past the newest ever posted */
	uint64_t end_ = 0;      /* one past the last added */
	RoceWindowStats stats_;
};

} /* namespace ina */

#endif /* INA_ROCE_WINDOW_H */
