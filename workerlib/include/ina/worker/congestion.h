/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Congestion control of one sender (one worker thread's stream of fragments),
 * as pure state machines: they see ACK and loss events and answer with
 * windows; they do no I/O and read no clock, so tests drive them with worked
 * examples.
 *
 *   none  a fixed window.
 *   atp   ATP §3.7: AIMD on ECN and loss. The window starts at 200 packets,
 *         grows by one MTU (5 packets) per ACK below the slow-start
 *         threshold and by one MTU per window above it, and halves (setting
 *         the threshold to the new window) on an ECN-marked ACK or a loss,
 *         at most once per window: after a decrease, signals on ACKs of
 *         fragments sent before it (local index below the recovery point)
 *         are not acted on again, as in TCP's fast recovery.
 *   a2tp  A2TP §4.3: an aggregator window ACW inside a link window LCW.
 *         Fragments outside ACW bypass the switch. The workers of a job
 *         must agree on which fragments those are, or a fragment's sum is
 *         split between switch and PS; so the windows are a function of
 *         what every worker sees alike - the parameter packets' contents,
 *         taken in fragment order - and not of when each worker saw them.
 *         Rounds are ranges of the sender's fragment indices: round r
 *         holds LCW_r fragments, its first ACW_r use the switch, the rest
 *         bypass it. When every fragment of round r - 1 is ACKed (the
 *         boundary of round r), round r - 1 closes and round r + 1 is
 *         scheduled from it:
 *           h = ACKs with Col / ACKs of its switch fragments
 *           e = ECN ACKs / ACKs
 *           alpha = (1 - w) alpha + w h                          (1)
 *           beta  = (1 - g) beta + g e                           (2)
 *           gamma = n / LCW_round                                (3)
 *           p     = (alpha - H) / (1 - H) if alpha > H else 0
 *           ACW   = ACW (1 - d / 2) if p > 0, d = p^gamma        (4), (5)
 *           LCW   = LCW (1 - beta / 2) if the round saw ECN      (6)
 *         else LCW grows like ATP's window (one MTU per round) and ACW
 *         by as much; ACW <= LCW. n counts the ACKs that one round time
 *         brings at the round's pace; the pace is measured on the PS's
 *         clock, which every parameter packet carries (wire.h
 *         ina_ack_ps_clock), so it is the same at every worker whatever
 *         its own link. The round time is LCW_round ACKs at the job's best
 *         pace (over 128 ACKs) of the last 5 to 10 s (a2tp_round_ns fixes
 *         it instead): a job held up by a straggler reads gamma = best
 *         pace / pace well below 1, one that keeps its pace about 1.
 *         The pause between two tensors counts in no round. A timeout
 *         cuts a local cap on the in-flight count, not the schedule, and
 *         a suspected loss cuts nothing
 *         (docs/worker.md, "A2TP").
 */
#ifndef INA_WORKER_CONGESTION_H
#define INA_WORKER_CONGESTION_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ina {

enum class CcKind { none, atp, a2tp };

/* Parses "none", "atp", "a2tp"; false on anything else. */
bool parse_cc_kind(const std::string &s, CcKind *out);
const char *cc_kind_name(CcKind k);

struct CcConfig {
	CcKind kind = CcKind::atp;
	/* Windows in packets. */
	double initial_window = 200;
	double min_window = 1;
	/* Kept below the PS's fragment ring (docs/ps.md `window`, 4096 by
	 * default): a worker that lost an ACK must still find its fragment
	 * there when the others are a whole window ahead. */
	double max_window = 2048;
	/* ATP AIMD (also A2TP's link window growth). */
	double slow_start_increase = 5; /* packets per ACK below ssthresh */
	double avoidance_increase = 5;  /* packets per window above it */
	/* 0: the initial window. ATP leaves its threshold open; 200 packets is
	 * already about a bandwidth-delay product (ATP §3.7), and growing by 5
	 * per ACK past it put thousands of fragments in flight within a few
	 * RTTs on the lab: receive rings overflowed in the first round and
	 * the fragments lost there came back only by timeouts. */
	double initial_ssthresh = 0;
	/* A2TP (paper defaults: w = g = 1/16, H from eq. (14) with C_min = 0). */
	double a2tp_w = 1.0 / 16;       /* EWMA weight of the Col fraction */
	double a2tp_g = 1.0 / 16;       /* EWMA weight of the ECN fraction */
	double a2tp_h = -1;             /* threshold H; < 0: from eq. (14) */
	double a2tp_gamma_smoothing = 0; /* 0: gamma = n / LCW as eq. (3);
	                                    else EWMA weight for gamma */
	double initial_acw = 0;         /* 0: initial_window */
	/* A fixed round time T: gamma = n / LCW_round with n the ACKs of T
	 * (see above); 0: LCW_round ACKs at the job's best recent pace. */
	uint64_t a2tp_round_ns = 0;
};

/* H for which the minimum number of collisions of eq. (14) is zero:
 * M H / (1 - H) + N = 1/2 sqrt(2 M N / (1 - H)), for M aggregators shared by
 * N flows; 0 when no H in [0, 0.99] is needed. */
double a2tp_threshold(double aggregators, double flows);

/* An ACK that was not a duplicate. */
struct CcAck {
	uint64_t k;       /* sender-local index of the fragment */
	uint64_t next_k;  /* next local index the sender will use */
	bool ecn;         /* INA_F_ECN on the parameter packet: the aggregate
	                     saw congestion (the same at every worker) */
	bool col;         /* INA_F_COL on the parameter packet */
	uint64_t now_ns;
	uint64_t srtt_ns; /* 0 before the first RTT sample */
	uint32_t ps_clock = 0;     /* the PS's stamp (wire.h ina_ack_ps_clock) */
	bool tensor_start = false; /* k is its tensor's first fragment */
	bool local_ecn = false;    /* congestion on this worker's own path: IP CE
	                              on its copy, or an RTT past delay_target */
};

/* A loss: three out-of-order ACKs or a timeout. */
struct CcLoss {
	uint64_t k;
	uint64_t next_k;
	bool timeout;
};

class CongestionControl {
public:
	virtual ~CongestionControl() = default;
	virtual CcKind kind() const = 0;
	virtual void on_ack(const CcAck &a) = 0;
	virtual void on_loss(const CcLoss &l) = 0;
	/* Packets allowed in flight (A2TP: LCW). */
	virtual uint32_t window() const = 0;
	/* Packets in flight allowed to use switch aggregators (A2TP: ACW);
	 * the rest carry INA_F_BYPASS. Equal to window() except for a2tp. */
	virtual uint32_t agg_window() const { return window(); }
	/* Whether the sender's fragment k (first transmission) bypasses the
	 * switch. Only A2TP's schedule says yes. */
	virtual bool bypass(uint64_t /*k*/) const { return false; }
	/* Fragments below this local index may be sent (A2TP: the end of the
	 * rounds scheduled so far). */
	virtual uint64_t send_limit() const { return UINT64_MAX; }
	/* The job's straggling estimate: 1 when every worker keeps up, toward
	 * 0 the longer sent gradients wait for the others (A2TP's gamma, eq.
	 * (3)); 1 for the schemes that do not estimate it. */
	virtual double straggling() const { return 1.0; }
};

class FixedWindow final : public CongestionControl {
public:
	explicit FixedWindow(const CcConfig &c) : w_(c.initial_window) {}
	CcKind kind() const override { return CcKind::none; }
	void on_ack(const CcAck &) override {}
	void on_loss(const CcLoss &) override {}
	uint32_t window() const override { return static_cast<uint32_t>(w_); }

private:
	double w_;
};

/* Additive increase / multiplicative decrease of ATP. */
class AtpAimd final : public CongestionControl {
public:
	explicit AtpAimd(const CcConfig &c);
	CcKind kind() const override { return CcKind::atp; }
	void on_ack(const CcAck &a) override;
	void on_loss(const CcLoss &l) override;
	uint32_t window() const override { return static_cast<uint32_t>(cwnd_); }

	double cwnd() const { return cwnd_; }
	double ssthresh() const { return ssthresh_; }
	/* Increase for one unmarked ACK. */
	void grow();
	/* Multiplies the window by f (ATP: 0.5) unless already reduced in this
	 * window; returns whether it did. */
	bool reduce(double f, uint64_t k, uint64_t next_k);
	/* Multiplies the window by f unconditionally. */
	void scale(double f, uint64_t next_k);

private:
	CcConfig cfg_;
	double cwnd_;
	double ssthresh_;
	uint64_t recover_k_ = 0; /* reductions wait until ACKs reach this */
	bool reduced_ = false;
};

class A2tp final : public CongestionControl {
public:
	/* h: threshold H already resolved (a2tp_threshold when cfg.a2tp_h < 0);
	 * capacity: the sender's window capacity (most fragments between the
	 * oldest unACKed one and the next new one). */
	A2tp(const CcConfig &c, double h, uint32_t capacity = 1u << 15);
	CcKind kind() const override { return CcKind::a2tp; }
	void on_ack(const CcAck &a) override;
	void on_loss(const CcLoss &l) override;
	uint32_t window() const override;
	uint32_t agg_window() const override;
	bool bypass(uint64_t k) const override;
	uint64_t send_limit() const override;
	double straggling() const override { return gamma_; }

	double acw() const { return acw_; }
	double lcw() const { return lcw_; }
	double alpha() const { return alpha_; }
	double beta() const { return beta_; }
	double gamma() const { return gamma_; }
	double threshold() const { return h_; }
	/* Rounds closed so far. */
	uint64_t rounds() const { return closed_; }
	/* Fragments below this index have had their ACKs taken in order. */
	uint64_t cursor() const { return cursor_; }

private:
	/* A range of fragment indices sent under one pair of windows. */
	struct Round {
		uint64_t start = 0;
		uint32_t len = 0, acw = 0;
		uint32_t acks = 0, ecns = 0, switch_acks = 0, switch_cols = 0;
		/* gamma: PS clock between consecutive ACKs (in fragment order)
		 * of this round, and how many such gaps; a gap into a new
		 * tensor is the application's pause, not the job's pace. */
		uint64_t span = 0;
		uint32_t gaps = 0;
	};
	/* Rounds scheduled ahead of the cursor's: round r + kAhead is
	 * scheduled when round r closes, from what it saw. 2: the windows
	 * of the round after next (the paper's "last RTT" lag, one round
	 * more for the fragments still in flight); 8 measured no better in
	 * the lab's four-job Fig. 10 once the cap regrew per ACK. */
	static constexpr uint64_t kAhead = 2;
	Round &round(uint64_t r) { return rounds_[r % (kAhead + 2)]; }
	const Round &round(uint64_t r) const { return rounds_[r % (kAhead + 2)]; }
	/* The scheduled round holding fragment k, or nullptr. */
	const Round *round_of(uint64_t k) const;
	void take_in_order(uint8_t f, uint32_t clock);
	void note_pace(double pace, uint32_t clock);
	void close_round(const Round &r);
	void schedule_next();

	CcConfig cfg_;
	double h_;
	double lcw_, ssthresh_, acw_;
	double cap_;                  /* this worker's own cut of LCW: ECN as it
	                                 arrives, timeouts; max_window: none */
	uint64_t recover_k_ = 0;      /* cap_ is cut once per window */
	double alpha_ = 0, beta_ = 1, gamma_ = 1;
	bool clocked_ = false;        /* prev_clock_ holds an ACK's stamp */
	uint32_t prev_clock_ = 0;     /* stamp of the ACK before the cursor */
	/* Best pace (PS clock units per ACK) over a block of gaps, of the
	 * previous 5 s period and of this one, which ends at period_end_
	 * (0: no block yet); the block being measured. */
	double best_[2];
	uint32_t period_end_ = 0;
	uint64_t block_span_ = 0;
	uint32_t block_gaps_ = 0;
	Round rounds_[kAhead + 2];
	uint64_t cur_ = 0, last_ = kAhead - 1; /* the cursor's round, the last scheduled */
	uint64_t closed_ = 0;
	std::vector<uint8_t> acked_;  /* per fragment, by index & mask */
	std::vector<uint32_t> clock_; /* its ACK's PS stamp, likewise */
	uint64_t mask_;
	uint64_t cursor_ = 0;
};

/* Builds the controller a job asked for. aggregators and flows feed eq. (14)
 * when cfg.a2tp_h < 0; capacity is the sender's window capacity. */
std::unique_ptr<CongestionControl> make_congestion_control(const CcConfig &cfg, double aggregators, double flows,
							   uint32_t capacity = 1u << 15);

} /* namespace ina */

#endif /* INA_WORKER_CONGESTION_H */
