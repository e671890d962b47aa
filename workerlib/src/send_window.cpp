/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/worker/send_window.h"

namespace ina {

static uint64_t round_up_pow2(uint32_t v)
{
	uint64_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

SendWindow::SendWindow(uint32_t capacity, uint32_t dupthresh)
    : slots_(round_up_pow2(capacity < 2 ? 2 : capacity)), mask_(slots_.size() - 1), dupthresh_(dupthresh)
{
	lost_.reserve(slots_.size());
}

bool SendWindow::acked(uint64_t k) const
{
	if (k < base_)
		return true;
	if (k >= next_)
		return false;
	return slot(k).acked;
}

bool SendWindow::bypassed(uint64_t k) const
{
	return k >= base_ && k < next_ && slot(k).bypass;
}

uint32_t SendWindow::transmissions(uint64_t k) const
{
	return k >= base_ && k < next_ ? slot(k).transmissions : 0;
}

uint64_t SendWindow::send_new(uint64_t now_ns, bool bypass)
{
	uint64_t k = next_++;
	SentFragment &s = slot(k);
	s.sent_ns = now_ns;
	s.transmissions = 1;
	s.acked = 0;
	s.fast_retx = 0;
	s.bypass = bypass;
	in_flight_++;
	in_flight_agg_ += !bypass;
	return k;
}

void SendWindow::resend(uint64_t k, uint64_t now_ns)
{
	if (k < base_ || k >= next_)
		return;
	SentFragment &s = slot(k);
	if (s.acked)
		return;
	s.sent_ns = now_ns;
	if (s.transmissions < UINT16_MAX)
		s.transmissions++;
}

void SendWindow::scan_for_losses()
{
	while (scan_ < next_) {
		SentFragment &s = slot(scan_);
		if (!s.acked) {
			if (acked_above_scan_ < dupthresh_ ||
			    newest_acked_sent_ns_ < s.sent_ns + reorder_window_ns_)
				return;
			if (!s.fast_retx) {
				s.fast_retx = 1;
				lost_.push_back(scan_);
			}
		}
		scan_++;
		if (scan_ < next_ && slot(scan_).acked)
			acked_above_scan_--;
	}
}

SendWindow::AckOutcome SendWindow::on_ack(uint64_t k, uint64_t now_ns)
{
	AckOutcome out{AckKind::duplicate, 0, 0};
	lost_.clear();
	if (k >= next_) {
		out.kind = AckKind::unknown;
		return out;
	}
	if (k < base_ || slot(k).acked)
		return out;

	SentFragment &s = slot(k);
	s.acked = 1;
	if (s.sent_ns > newest_acked_sent_ns_)
		newest_acked_sent_ns_ = s.sent_ns;
	in_flight_--;
	in_flight_agg_ -= !s.bypass;
	if (s.transmissions == 1 && now_ns >= s.sent_ns)
		out.rtt_ns = now_ns - s.sent_ns;
	if (k > scan_)
		acked_above_scan_++;
	out.kind = k == base_ ? AckKind::in_order : AckKind::out_of_order;
	while (base_ < next_ && slot(base_).acked)
		base_++;
	scan_for_losses();
	out.lost = static_cast<uint32_t>(lost_.size());
	return out;
}

uint32_t SendWindow::collect_timeouts(uint64_t now_ns, uint64_t rto_ns, uint64_t *out, uint32_t max) const
{
	uint32_t n = 0;
	for (uint64_t k = base_; k < next_ && n < max; k++) {
		const SentFragment &s = slot(k);
		if (!s.acked && now_ns >= s.sent_ns + rto_ns)
			out[n++] = k;
	}
	return n;
}

} /* namespace ina */
