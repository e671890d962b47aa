/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/worker/congestion.h"

#include "ina/wire.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ina {

bool parse_cc_kind(const std::string &s, CcKind *out)
{
	if (s == "none")
		*out = CcKind::none;
	else if (s == "atp")
		*out = CcKind::atp;
	else if (s == "a2tp")
		*out = CcKind::a2tp;
	else
		return false;
	return true;
}

const char *cc_kind_name(CcKind k)
{
	switch (k) {
	case CcKind::none:
		return "none";
	case CcKind::atp:
		return "atp";
	case CcKind::a2tp:
		return "a2tp";
	}
	return "?";
}

double a2tp_threshold(double m, double n)
{
	/* f(H) = M H / (1 - H) + N - 1/2 sqrt(2 M N / (1 - H)) grows with H;
	 * find its root by bisection. */
	auto f = [m, n](double h) { return m * h / (1 - h) + n - 0.5 * std::sqrt(2 * m * n / (1 - h)); };
	if (m <= 0 || n <= 0 || f(0) >= 0)
		return 0;
	double lo = 0, hi = 0.99;
	if (f(hi) < 0)
		return hi;
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;
		if (f(mid) < 0)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* ---- ATP ---- */

AtpAimd::AtpAimd(const CcConfig &c)
    : cfg_(c), cwnd_(std::clamp(c.initial_window, c.min_window, c.max_window)),
      ssthresh_(c.initial_ssthresh > 0 ? c.initial_ssthresh : cwnd_)
{
}

void AtpAimd::grow()
{
	if (cwnd_ < ssthresh_)
		cwnd_ += cfg_.slow_start_increase;
	else
		cwnd_ += cfg_.avoidance_increase / cwnd_;
	cwnd_ = std::min(cwnd_, cfg_.max_window);
}

bool AtpAimd::reduce(double f, uint64_t k, uint64_t next_k)
{
	if (reduced_ && k < recover_k_)
		return false;
	scale(f, next_k);
	return true;
}

void AtpAimd::scale(double f, uint64_t next_k)
{
	cwnd_ = std::max(cfg_.min_window, cwnd_ * f);
	ssthresh_ = cwnd_;
	recover_k_ = next_k;
	reduced_ = true;
}

void AtpAimd::on_ack(const CcAck &a)
{
	if (a.ecn || a.local_ecn)
		reduce(0.5, a.k, a.next_k);
	else
		grow();
}

void AtpAimd::on_loss(const CcLoss &l)
{
	reduce(0.5, l.k, l.next_k);
}

/* ---- A2TP ---- */

namespace {
constexpr uint8_t kAcked = 1, kEcn = 2, kCol = 4, kTensorStart = 8;
/* The best pace is that of one or two periods of 5 s on the PS's clock
 * (units of INA_PS_CLOCK_NS): long enough to hold the pace a job had before
 * a straggler slowed it, short enough that a job whose path got slower for
 * good takes that as its pace. */
constexpr uint32_t kPeriod = 5000000000u / INA_PS_CLOCK_NS;
/* The best pace is measured over blocks of this many consecutive gaps,
 * whatever the rounds: a round of a few ACKs that the PS sent back to back
 * says little about the pace the job keeps. */
constexpr uint32_t kBlock = 128;
/* 1.6 us: a round shorter than this on the PS's clock (in units of 100 ns)
 * is not timed, its pace would be mostly rounding. */
constexpr uint64_t kMinSpan = 16;
}

A2tp::A2tp(const CcConfig &c, double h, uint32_t capacity)
    : cfg_(c), h_(h), lcw_(std::clamp(c.initial_window, c.min_window, c.max_window)),
      ssthresh_(c.initial_ssthresh > 0 ? c.initial_ssthresh : lcw_),
      acw_(c.initial_acw > 0 ? std::clamp(c.initial_acw, c.min_window, lcw_) : lcw_), cap_(c.max_window)
{
	uint64_t n = 2;
	while (n < capacity)
		n <<= 1;
	acked_.assign(n, 0);
	clock_.assign(n, 0);
	mask_ = n - 1;
	best_[0] = best_[1] = std::numeric_limits<double>::infinity();
	/* Rounds 0 to kAhead - 1 go out under the initial windows. */
	for (uint64_t r = 0; r < kAhead; r++) {
		Round &x = round(r);
		x.len = static_cast<uint32_t>(lcw_);
		x.acw = static_cast<uint32_t>(acw_);
		x.start = r * x.len;
	}
}

const A2tp::Round *A2tp::round_of(uint64_t k) const
{
	for (uint64_t r = cur_; r <= last_; r++) {
		const Round &x = round(r);
		if (k - x.start < x.len)
			return &x;
	}
	return nullptr;
}

bool A2tp::bypass(uint64_t k) const
{
	const Round *r = round_of(k);
	return r && k - r->start >= r->acw;
}

uint64_t A2tp::send_limit() const
{
	const Round &r = round(last_);
	return r.start + r.len;
}

uint32_t A2tp::window() const
{
	return static_cast<uint32_t>(std::min(lcw_, cap_));
}

uint32_t A2tp::agg_window() const
{
	return static_cast<uint32_t>(std::min(acw_, lcw_));
}

void A2tp::on_ack(const CcAck &a)
{
	if (a.k < cursor_ || a.k - cursor_ > mask_)
		return;
	uint8_t &f = acked_[a.k & mask_];
	if (f & kAcked)
		return;
	f = kAcked | (a.ecn ? kEcn : 0) | (a.col ? kCol : 0) | (a.tensor_start ? kTensorStart : 0);
	clock_[a.k & mask_] = a.ps_clock;
	/* Eq. (6) as the mark arrives, once per window: a round closes only
	 * when its every fragment is ACKed, and a queue that drops fragments
	 * would hold the round open for as long as their recovery takes. The
	 * cut is this worker's own (cap_); the round's close applies the
	 * job's marks to the job's LCW. A queue on this worker's path alone
	 * (local_ecn) cuts only the cap: the schedule is the job's. */
	if ((a.ecn || a.local_ecn) && a.k >= recover_k_) {
		cap_ = std::max(cfg_.min_window, std::min(lcw_, cap_) * (1 - beta_ / 2));
		recover_k_ = a.next_k;
	} else if (cap_ < lcw_) {
		/* The cap grows back as ATP's window does above its threshold,
		 * per ACK: one MTU per cap of ACKs. Per round it would take LCW
		 * round trips at a cap of one, and a straggler's cap of one
		 * keeps its leaders' fragments waiting past their RTO. */
		cap_ += cfg_.avoidance_increase / cap_;
		if (cap_ >= lcw_)
			cap_ = cfg_.max_window;
	}
	while (acked_[cursor_ & mask_] & kAcked) {
		uint8_t g = acked_[cursor_ & mask_];
		acked_[cursor_ & mask_] = 0;
		take_in_order(g, clock_[cursor_ & mask_]);
	}
}

/* The ACK of fragment cursor_, in fragment order. */
void A2tp::take_in_order(uint8_t f, uint32_t clock)
{
	Round &r = round(cur_);
	const uint64_t k = cursor_++;
	r.acks++;
	r.ecns += (f & kEcn) != 0;
	if (k - r.start < r.acw) {
		r.switch_acks++;
		r.switch_cols += (f & kCol) != 0;
	}
	/* The PS's clock from the previous fragment's ACK to this one's: the
	 * job's pace, the same at every worker. An ACK the PS sent before the
	 * previous one (a recovered fragment) adds nothing. */
	if (clocked_ && !(f & kTensorStart)) {
		int32_t gap = static_cast<int32_t>(clock - prev_clock_);
		const uint32_t g = gap > 0 ? static_cast<uint32_t>(gap) : 0;
		r.span += g;
		r.gaps++;
		block_span_ += g;
		if (++block_gaps_ == kBlock) {
			note_pace(static_cast<double>(block_span_) / kBlock, clock);
			block_span_ = 0;
			block_gaps_ = 0;
		}
	}
	if (!clocked_ || static_cast<int32_t>(clock - prev_clock_) > 0 || (f & kTensorStart))
		prev_clock_ = clock;
	clocked_ = true;
	if (cursor_ != r.start + r.len)
		return;
	/* Round cur_ is complete: the boundary of the next one. */
	cur_++;
	close_round(r);
	schedule_next();
}

/* A block's pace, into the best of the current and the previous period. */
void A2tp::note_pace(double pace, uint32_t clock)
{
	if (period_end_ == 0 || static_cast<int32_t>(clock - period_end_) >= 0) {
		best_[0] = period_end_ ? best_[1] : pace;
		best_[1] = std::numeric_limits<double>::infinity();
		period_end_ = clock + kPeriod;
		if (period_end_ == 0)
			period_end_ = 1;
	}
	best_[1] = std::min(best_[1], pace);
}

void A2tp::close_round(const Round &r)
{
	closed_++;
	double h = r.switch_acks ? static_cast<double>(r.switch_cols) / r.switch_acks : 0;
	double e = r.acks ? static_cast<double>(r.ecns) / r.acks : 0;
	alpha_ = (1 - cfg_.a2tp_w) * alpha_ + cfg_.a2tp_w * h; /* (1) */
	beta_ = (1 - cfg_.a2tp_g) * beta_ + cfg_.a2tp_g * e;   /* (2) */
	/* (3): gamma = n / LCW_round, n the ACKs of one round time. A round
	 * too short to time on the PS's clock (fewer than kMinSpan units)
	 * says nothing, nor does one made only of a tensor's pause. */
	if (r.gaps > 0 && r.span >= kMinSpan) {
		const double pace = static_cast<double>(r.span) / r.gaps;
		double g;
		if (cfg_.a2tp_round_ns) /* n = T / pace */
			g = static_cast<double>(cfg_.a2tp_round_ns) / INA_PS_CLOCK_NS / (pace * r.len);
		else if (period_end_) /* the round time: LCW_round ACKs at the best recent pace */
			g = std::min(best_[0], best_[1]) / pace;
		else /* no block timed yet: nothing to compare with */
			g = 1;
		g = std::min(1.0, g);
		if (cfg_.a2tp_gamma_smoothing > 0)
			gamma_ = (1 - cfg_.a2tp_gamma_smoothing) * gamma_ + cfg_.a2tp_gamma_smoothing * g;
		else
			gamma_ = g;
	}

	/* The link window: eq. (6) on ECN, else ATP's growth (one MTU per
	 * window above the threshold, one per ACK below it). */
	double grown = 0;
	if (r.ecns > 0) {
		lcw_ = std::max(cfg_.min_window, lcw_ * (1 - beta_ / 2));
		ssthresh_ = lcw_;
	} else {
		double before = lcw_;
		lcw_ += lcw_ < ssthresh_ ? cfg_.slow_start_increase * r.acks : cfg_.avoidance_increase;
		lcw_ = std::min(lcw_, cfg_.max_window);
		grown = lcw_ - before;
	}
	if (cap_ >= lcw_)
		cap_ = cfg_.max_window;

	/* The aggregator window: eqs. (4), (5) above the threshold, else it
	 * grows as the link window did. */
	double p = alpha_ > h_ ? (alpha_ - h_) / (1 - h_) : 0;
	if (p > 0)
		acw_ *= 1 - std::pow(p, gamma_) / 2;
	else if (acw_ >= lcw_ - grown)
		acw_ = lcw_; /* it was the whole link window, and stays so */
	else
		acw_ += grown;
	acw_ = std::clamp(acw_, cfg_.min_window, std::max(cfg_.min_window, lcw_));
}

void A2tp::schedule_next()
{
	const Round &prev = round(last_);
	last_++;
	Round &n = round(last_);
	n = Round{};
	n.start = prev.start + prev.len;
	n.len = std::max<uint32_t>(1, static_cast<uint32_t>(lcw_));
	n.acw = std::min(n.len, static_cast<uint32_t>(acw_));
}

/* A timeout halves what this worker keeps in flight, once per window (the
 * fragments sent before the cut time out together); a loss the ACKs
 * suggest (three later ACKs) cuts nothing: in INA it is mostly a fragment
 * waiting for a slower worker, and eq. (6) reacts to the ECN marks of real
 * congestion. */
void A2tp::on_loss(const CcLoss &l)
{
	if (!l.timeout || l.k < recover_k_)
		return;
	cap_ = std::max(cfg_.min_window, std::min(lcw_, cap_) / 2);
	recover_k_ = l.next_k;
}

std::unique_ptr<CongestionControl> make_congestion_control(const CcConfig &cfg, double aggregators, double flows,
							   uint32_t capacity)
{
	switch (cfg.kind) {
	case CcKind::none:
		return std::make_unique<FixedWindow>(cfg);
	case CcKind::atp:
		return std::make_unique<AtpAimd>(cfg);
	case CcKind::a2tp:
		return std::make_unique<A2tp>(cfg, cfg.a2tp_h >= 0 ? cfg.a2tp_h : a2tp_threshold(aggregators, flows),
					      capacity);
	}
	return nullptr;
}

} /* namespace ina */
