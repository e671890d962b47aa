/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Internal: one sender thread. It owns a transport, a sliding window, an RTT
 * estimator and a congestion controller, and the tensors the scheduler gave
 * it. Its loop: take new tensors, send what the window allows, receive
 * parameter packets, check timeouts. ACKs of fragments another thread owns
 * (a shared receive path) are passed to that thread through a
 * single-producer ring.
 */
#ifndef INA_WORKERLIB_SENDER_H
#define INA_WORKERLIB_SENDER_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ack_ring.h"
#include "ina/transport.h"
#include "ina/worker.h"
#include "ina/worker/congestion.h"
#include "ina/worker/frames.h"
#include "ina/worker/goat_map.h"
#include "ina/worker/remap.h"
#include "ina/worker/rtt.h"
#include "ina/worker/send_window.h"
#include "tensor.h"

namespace ina {

/* Counters of one thread: written by it alone (plain load + store, no
 * locked instruction), read by stats(). */
struct SenderCounters {
	std::atomic<uint64_t> v[32];
};

class WorkerImpl;

class Sender {
public:
	Sender(WorkerImpl *w, uint32_t id, std::unique_ptr<Transport> tx, const WorkerConfig &cfg, double flows);
	~Sender();
	void start();
	void stop();
	/* Driven by the caller's clock instead of a thread (a simulator,
	 * ina/worker/stepped.h): call before the first poll(), never with
	 * start(). */
	void set_stepped() { stepped_ = true; }
	/* One round of run()'s loop at time `now` (ns), repeated while
	 * frames came in: takes new tensors, sends what the window allows,
	 * handles the frames the transport holds, checks the timer. Never
	 * waits. Returns when the timer wants the next round, UINT64_MAX with
	 * nothing in flight. */
	uint64_t poll(uint64_t now);

	/* Scheduler side. */
	void give(std::shared_ptr<TensorState> t);
	uint64_t load() const { return load_.load(std::memory_order_relaxed); }
	/* Lowest job-wide fragment number this thread has not seen ACKed,
	 * including tensors waiting in its inbox; UINT64_MAX when idle. */
	uint64_t floor() const { return floor_.load(std::memory_order_relaxed); }
	AckRing &ring_from(uint32_t thread) { return *rings_[thread]; }
	void add_stats(WorkerStats *s) const;
	const char *transport_name() const { return tx_->name(); }

private:
	struct TxEntry {
		uint64_t k;
		bool fresh;
		bool bypass; /* INA_F_BYPASS written into the frame */
	};

	void run();
	/* One round of the loop with tensors active: send, receive (waiting
	 * in a thread, not when stepped), handle, timers. Returns the
	 * frames received. */
	uint32_t turn(uint64_t now);
	/* The thread's monotonic clock, or the stepped caller's time. */
	uint64_t clock() const;
	void take_new_tensors();
	TensorState *tensor_of_k(uint64_t k, uint32_t *frag);
	TensorState *tensor_of_seq(uint32_t seq);
	/* Sends what the window allows; true if the transport pushed back. */
	bool pump_send(uint64_t now);
	/* A received frame: parsed once, then handled here or handed to the
	 * sender thread whose fragment it acknowledges. */
	void handle_frame(const uint8_t *frame, uint32_t len, uint64_t now);
	void handle_message(TensorState *t, const PsMessage &m, uint64_t now);
	void handle_param(TensorState *t, const PsMessage &m, uint64_t now);
	void handle_overflow(TensorState *t, const PsMessage &m);
	void handle_resend_request(TensorState *t, const PsMessage &m);
	void queue_retransmit(uint64_t k);
	/* The congestion controller's windows and estimate, for stats(). */
	void publish_cc()
	{
		window_.store(cc_->window(), std::memory_order_relaxed);
		agg_window_.store(cc_->agg_window(), std::memory_order_relaxed);
		straggling_.store(cc_->straggling(), std::memory_order_relaxed);
	}
	bool window_full() const;
	uint32_t receive_wait_us(uint64_t now) const;
	bool coalesce(uint64_t now);
	void check_timeouts(uint64_t now);
	void retire_done();
	void update_floor();
	void fail_all(const std::string &why);
	void bump(uint32_t c, uint64_t n = 1);
	/* GOAT: where fragment f of t goes. Sets *node and, for a switch,
	 * *index in its sub-model's run; for the PS adds INA_F_BYPASS to
	 * *flags. No plan: the config's agg_node, *index unchanged. */
	void goat_route(const TensorState &t, uint32_t f, uint32_t seq, uint32_t *index, uint16_t *flags,
			int *node) const;

	WorkerImpl *w_;
	uint32_t id_;
	std::unique_ptr<Transport> tx_;
	RttMin rtt_min_; /* base RTT: delay_target_ns, A2TP's round time */
	WorkerConfig cfg_;
	std::vector<FrameWriter> writers_; /* one per PS */
	std::vector<uint32_t> ps_ips_;     /* the only sources of parameter packets */
	const FrameWriter &writer(uint32_t seq) const { return writers_[seq % writers_.size()]; }
	SendWindow win_;
	RttEstimator rtt_;
	std::unique_ptr<CongestionControl> cc_;
	GoatMap goat_;

	/* Tensors of this thread in stream order (front = oldest). */
	std::deque<std::shared_ptr<TensorState>> active_;
	uint64_t stream_end_ = 0; /* local index after the last tensor */
	uint64_t span_;           /* ps_window x PS count */
	/* Local indices waiting for a retransmission. */
	std::vector<uint64_t> retx_;
	std::vector<uint8_t> retx_queued_; /* by k & mask */
	bool acks_in_bursts_ = false; /* coalesce(): the last unslept wake-up found many */
	uint32_t coalesce_turns_ = 0;
	bool rx_backlog_ = false; /* the last receive filled its batch */
	uint64_t next_timer_ns_ = 0;
	uint64_t last_progress_ns_ = 0;
	/* A timeout's window cut waits for the next ACK (no ACK, nothing new
	 * is sent either): applied there when the ACKs stopped for at most
	 * twice the RTO cap, dropped after a longer silence, which was an
	 * outage (a PS restarted, a switch that was away), not a queue, and
	 * must not leave the job at half its window. */
	bool cut_deferred_ = false;
	CcLoss deferred_cut_{};
	/* Fragments below this were in flight during the last outage: their
	 * losses, found once the ACKs resume, cut nothing either. */
	uint64_t outage_end_k_ = 0;

	/* Inbox from the scheduler. */
	std::mutex inbox_m_;
	std::condition_variable inbox_cv_;
	std::deque<std::shared_ptr<TensorState>> inbox_;
	std::atomic<bool> inbox_nonempty_{false};
	std::atomic<uint64_t> load_{0};
	std::atomic<uint64_t> floor_{UINT64_MAX};

	/* ACKs forwarded by other threads: rings_[from]. */
	std::vector<std::unique_ptr<AckRing>> rings_;

	std::vector<uint8_t> txmem_, rxmem_;
	std::vector<FrameBuf> txbufs_, rxbufs_;
	std::vector<TxEntry> txent_;

	SenderCounters c_;
	std::atomic<uint32_t> window_{0}, agg_window_{0};
	std::atomic<double> straggling_{1.0};
	std::atomic<uint64_t> srtt_{0}, rto_{0};
	std::atomic<bool> stop_{false};
	bool stepped_ = false;
	uint64_t stepped_now_ = 0; /* poll()'s time */
	std::thread th_;
};

} /* namespace ina */

#endif /* INA_WORKERLIB_SENDER_H */
