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
 *         the threshold to the new window) on an ECN-marked ACK or a loss.
 *   a2tp  A2TP §4.3: an aggregator window ACW and a link window LCW.
 *         Per round (one smoothed RTT) it computes the Col fraction h, the
 *         ECN fraction e and the ACK count n, then
 *           alpha = (1 - w) alpha + w h                          (1)
 *           beta  = (1 - g) beta + g e                           (2)
 *           gamma = n / LCW_round                                (3)
 *           p     = (alpha - H) / (1 - H) if alpha > H else 0
 *           ACW   = ACW (1 - d / 2) if p > 0, d = p^gamma        (4), (5)
 *           LCW   = LCW (1 - beta / 2) if the round saw ECN      (6)
 *         and otherwise grows ACW by `acw_increase` per round and LCW like
 *         ATP. ACW <= LCW. Packets beyond ACW bypass the switch.
 *
 * Decreases happen at most once per window: after a decrease, signals on ACKs
 * of fragments sent before it (local index below the recovery point) are not
 * acted on again, as in TCP's fast recovery.
 */
#ifndef INA_WORKER_CONGESTION_H
#define INA_WORKER_CONGESTION_H

#include <cstdint>
#include <memory>
#include <string>

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
	double acw_increase = 1;        /* packets per round (the model of eq. (8)) */
	double initial_acw = 0;         /* 0: initial_window */
	/* Which fragments bypass the switch when ACW < LCW:
	 *   false (paper): those sent while ACW fragments already use
	 *     aggregators. Each worker decides from its own in-flight count,
	 *     so workers of a job may decide differently for one fragment;
	 *     the one that used the switch then waits there until a resend.
	 *   true: fragment seq bypasses iff mix(seq) mod 16 >= 16 ACW / LCW,
	 *     the same decision at every worker whose windows agree to 1/16. */
	bool bypass_by_hash = false;
	uint64_t min_round_ns = 100'000; /* a round lasts max(srtt, this) */
};

/* H for which the minimum number of collisions of eq. (14) is zero:
 * M H / (1 - H) + N = 1/2 sqrt(2 M N / (1 - H)), for M aggregators shared by
 * N flows; 0 when no H in [0, 0.99] is needed. */
double a2tp_threshold(double aggregators, double flows);

/* An ACK that was not a duplicate. */
struct CcAck {
	uint64_t k;       /* sender-local index of the fragment */
	uint64_t next_k;  /* next local index the sender will use */
	bool ecn;         /* INA_F_ECN on the parameter packet */
	bool col;         /* INA_F_COL on the parameter packet */
	uint64_t now_ns;
	uint64_t srtt_ns; /* 0 before the first RTT sample */
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

/* Additive increase / multiplicative decrease of ATP; A2TP's LCW reuses it. */
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
	/* Multiplies the window by f unconditionally (A2TP eq. (6)). */
	void scale(double f, uint64_t next_k);
	void cap(double max) { cwnd_ = cwnd_ > max ? max : cwnd_; }

private:
	CcConfig cfg_;
	double cwnd_;
	double ssthresh_;
	uint64_t recover_k_ = 0; /* reductions wait until ACKs reach this */
	bool reduced_ = false;
};

class A2tp final : public CongestionControl {
public:
	/* h: threshold H already resolved (a2tp_threshold when cfg.a2tp_h < 0). */
	A2tp(const CcConfig &c, double h);
	CcKind kind() const override { return CcKind::a2tp; }
	void on_ack(const CcAck &a) override;
	void on_loss(const CcLoss &l) override;
	uint32_t window() const override { return lcw_.window(); }
	uint32_t agg_window() const override;
	double straggling() const override { return gamma_; }

	double acw() const { return acw_; }
	double lcw() const { return lcw_.cwnd(); }
	double alpha() const { return alpha_; }
	double beta() const { return beta_; }
	double gamma() const { return gamma_; }
	double threshold() const { return h_; }
	uint64_t rounds() const { return rounds_; }

	/* Closes the current round now (normally done by on_ack after one
	 * srtt); exposed so tests can step rounds. */
	void end_round(uint64_t now_ns, uint64_t next_k);

private:
	CcConfig cfg_;
	double h_;
	AtpAimd lcw_;
	double acw_;
	double alpha_ = 0, beta_ = 0, gamma_ = 1;
	/* Counts of the current round. */
	uint64_t round_start_ns_ = 0;
	bool round_open_ = false;
	double round_lcw_ = 0;
	uint32_t acks_ = 0, cols_ = 0, ecns_ = 0;
	uint64_t rounds_ = 0;
};

/* The bypass_by_hash rule: true if fragment seq should bypass the switch
 * with aggregator window acw and link window lcw. */
bool bypass_by_hash(uint32_t seq, uint32_t acw, uint32_t lcw);

/* Builds the controller a job asked for. aggregators and flows feed eq. (14)
 * when cfg.a2tp_h < 0. */
std::unique_ptr<CongestionControl> make_congestion_control(const CcConfig &cfg, double aggregators, double flows);

} /* namespace ina */

#endif /* INA_WORKER_CONGESTION_H */
