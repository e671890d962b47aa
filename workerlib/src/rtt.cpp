/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/worker/rtt.h"

namespace ina {

uint64_t RttEstimator::clamp(uint64_t v) const
{
	if (v < cfg_.min_rto_ns)
		return cfg_.min_rto_ns;
	if (v > cfg_.max_rto_ns)
		return cfg_.max_rto_ns;
	return v;
}

void RttEstimator::sample(uint64_t r)
{
	if (r == 0)
		r = 1;
	if (srtt_ns_ == 0) {
		srtt_ns_ = r;
		rttvar_ns_ = r / 2;
	} else {
		uint64_t diff = srtt_ns_ > r ? srtt_ns_ - r : r - srtt_ns_;
		rttvar_ns_ = (3 * rttvar_ns_ + diff) / 4;
		srtt_ns_ = (7 * srtt_ns_ + r) / 8;
	}
	uint64_t var = 4 * rttvar_ns_;
	base_rto_ns_ = clamp(srtt_ns_ + (var > srtt_ns_ ? var : srtt_ns_));
	rto_ns_ = base_rto_ns_;
}

void RttEstimator::backoff()
{
	uint64_t cap = base_rto_ns_ * (cfg_.max_backoff ? cfg_.max_backoff : 1);
	uint64_t next = rto_ns_ * 2;
	rto_ns_ = clamp(next < cap ? next : cap);
}

} /* namespace ina */
