/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/worker/congestion.h"

#include <algorithm>
#include <cmath>

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
	if (a.ecn)
		reduce(0.5, a.k, a.next_k);
	else
		grow();
}

void AtpAimd::on_loss(const CcLoss &l)
{
	reduce(0.5, l.k, l.next_k);
}

/* ---- A2TP ---- */

A2tp::A2tp(const CcConfig &c, double h)
    : cfg_(c), h_(h), lcw_(c), acw_(c.initial_acw > 0 ? std::clamp(c.initial_acw, c.min_window, lcw_.cwnd()) : lcw_.cwnd())
{
}

uint32_t A2tp::agg_window() const
{
	return static_cast<uint32_t>(std::min(acw_, lcw_.cwnd()));
}

void A2tp::on_ack(const CcAck &a)
{
	if (!round_open_) {
		round_open_ = true;
		round_start_ns_ = a.now_ns;
		round_lcw_ = lcw_.cwnd();
	}
	acks_++;
	cols_ += a.col;
	ecns_ += a.ecn;
	/* The link window grows like ATP's on unmarked ACKs; ECN shrinks it
	 * once per round by eq. (6). */
	if (!a.ecn)
		lcw_.grow();
	uint64_t round_ns = std::max(a.srtt_ns, cfg_.min_round_ns);
	if (a.now_ns - round_start_ns_ >= round_ns)
		end_round(a.now_ns, a.next_k);
}

void A2tp::end_round(uint64_t now_ns, uint64_t next_k)
{
	rounds_++;
	if (acks_ > 0) {
		double h = static_cast<double>(cols_) / acks_;
		double e = static_cast<double>(ecns_) / acks_;
		alpha_ = (1 - cfg_.a2tp_w) * alpha_ + cfg_.a2tp_w * h; /* (1) */
		beta_ = (1 - cfg_.a2tp_g) * beta_ + cfg_.a2tp_g * e;   /* (2) */
	}
	double lcw_round = round_lcw_ > 0 ? round_lcw_ : lcw_.cwnd();
	double g = std::min(1.0, acks_ / lcw_round); /* (3) */
	if (cfg_.a2tp_gamma_smoothing > 0)
		gamma_ = (1 - cfg_.a2tp_gamma_smoothing) * gamma_ + cfg_.a2tp_gamma_smoothing * g;
	else
		gamma_ = g;

	double p = alpha_ > h_ ? (alpha_ - h_) / (1 - h_) : 0;
	if (p > 0) {
		double d = std::pow(p, gamma_); /* (5) */
		acw_ *= 1 - d / 2;             /* (4) */
	} else {
		acw_ += cfg_.acw_increase;
	}
	if (ecns_ > 0) {
		/* (6), DCTCP-like: once per round, ignoring the per-window guard. */
		lcw_.scale(1 - beta_ / 2, next_k);
	}
	acw_ = std::clamp(acw_, cfg_.min_window, std::max(cfg_.min_window, lcw_.cwnd()));

	round_start_ns_ = now_ns;
	round_lcw_ = lcw_.cwnd();
	acks_ = cols_ = ecns_ = 0;
}

void A2tp::on_loss(const CcLoss &l)
{
	lcw_.reduce(0.5, l.k, l.next_k);
	acw_ = std::min(acw_, lcw_.cwnd());
}

bool bypass_by_hash(uint32_t seq, uint32_t acw, uint32_t lcw)
{
	if (acw >= lcw || lcw == 0)
		return false;
	uint32_t share = static_cast<uint32_t>(16ull * acw / lcw); /* 0..15 */
	uint32_t slot = (seq * 0x9E3779B1u) >> 28;                /* 0..15 */
	return slot >= share;
}

std::unique_ptr<CongestionControl> make_congestion_control(const CcConfig &cfg, double aggregators, double flows)
{
	switch (cfg.kind) {
	case CcKind::none:
		return std::make_unique<FixedWindow>(cfg);
	case CcKind::atp:
		return std::make_unique<AtpAimd>(cfg);
	case CcKind::a2tp:
		return std::make_unique<A2tp>(cfg, cfg.a2tp_h >= 0 ? cfg.a2tp_h : a2tp_threshold(aggregators, flows));
	}
	return nullptr;
}

} /* namespace ina */
