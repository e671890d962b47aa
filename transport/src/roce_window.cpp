/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/roce_window.h"

namespace ina {

bool roce_window_check(const RoceWindowConfig &c, std::string *error)
{
	auto fail = [error](const std::string &m) {
		if (error)
			*error = m;
		return false;
	};
	if (c.window < 1 || c.window > kRoceMaxWindow)
		return fail("roce window must be 1.." + std::to_string(kRoceMaxWindow) + " messages, got " +
			    std::to_string(c.window));
	if (c.mtu != 256 && c.mtu != 512 && c.mtu != 1024 && c.mtu != 2048 && c.mtu != 4096)
		return fail("roce MTU must be 256, 512, 1024, 2048 or 4096, got " + std::to_string(c.mtu));
	if (c.msg_bytes <= c.header_bytes)
		return fail("roce message size " + std::to_string(c.msg_bytes) + " must exceed the INA header (" +
			    std::to_string(c.header_bytes) + " bytes)");
	if (c.msg_bytes > kRoceMaxMsgBytes)
		return fail("roce message size must be at most " + std::to_string(kRoceMaxMsgBytes) + " bytes, got " +
			    std::to_string(c.msg_bytes));
	if (c.msg_bytes % c.mtu != 0)
		return fail("roce message size " + std::to_string(c.msg_bytes) +
			    " is not a multiple of the MTU payload " + std::to_string(c.mtu));
	if (c.msg_bytes / c.mtu > kRoceMaxMsgPackets)
		return fail("roce message of " + std::to_string(c.msg_bytes / c.mtu) + " packets, at most " +
			    std::to_string(kRoceMaxMsgPackets));
	if ((c.msg_bytes - c.header_bytes) % 4 != 0)
		return fail("roce message size minus the INA header must be a whole number of 4-byte values");
	if (c.msg_id_bits < 2 || c.msg_id_bits > 32)
		return fail("roce MsgID width must be 2..32 bits, got " + std::to_string(c.msg_id_bits));
	if (2ull * c.window > (1ull << c.msg_id_bits))
		return fail("roce window " + std::to_string(c.window) + " needs 2N MsgIDs, more than a " +
			    std::to_string(c.msg_id_bits) + "-bit MsgID holds");
	if (c.timeout_ns == 0)
		return fail("roce timeout must be above 0");
	return true;
}

RoceWindow::RoceWindow(const RoceWindowConfig &cfg) : cfg_(cfg), ring_(2u * cfg.window, Msg{kIdle, 0})
{
	/* The largest multiple of 2N that the field holds: MsgID % 2N then
	 * equals seq % 2N on both sides of the wrap. */
	const uint64_t field = 1ull << cfg.msg_id_bits;
	const uint64_t two_n = 2ull * cfg.window;
	id_modulus_ = field / two_n * two_n;
}

bool RoceWindow::slot_released(uint64_t seq) const
{
	return seq < cfg_.window || seq - cfg_.window < base_;
}

bool RoceWindow::next(uint64_t *seq) const
{
	/* Go-back-N: resend, in order, everything posted from next_ on,
	 * results or not (see roce_window.h). */
	if (next_ < high_) {
		*seq = next_;
		return true;
	}
	if (high_ < end_ && high_ - base_ < cfg_.window && slot_released(high_)) {
		*seq = high_;
		return true;
	}
	return false;
}

void RoceWindow::posted(uint64_t seq, uint64_t now_ns)
{
	if (seq != next_ || seq >= end_ || seq >= base_ + cfg_.window)
		return; /* not the message next() returned */
	Msg &m = at(seq);
	if (seq == high_) {
		m = Msg{kPosted, now_ns};
		high_++;
	} else {
		if (m.state == kPosted)
			m.posted_ns = now_ns;
		stats_.retransmits++;
	}
	stats_.posted++;
	next_ = seq + 1;
}

void RoceWindow::advance()
{
	while (base_ < high_ && at(base_).state == kDone)
		base_++;
	if (next_ < base_)
		next_ = base_;
}

RoceResult RoceWindow::on_result(uint32_t id, uint64_t *seq)
{
	if (id >= id_modulus_) {
		stats_.stale++;
		return RoceResult::kStale;
	}
	const uint64_t d = (id + id_modulus_ - msg_id(base_)) % id_modulus_;
	const uint64_t s = base_ + d;
	if (d >= cfg_.window || s >= high_) {
		stats_.stale++;
		return RoceResult::kStale;
	}
	Msg &m = at(s);
	if (m.state != kPosted) {
		stats_.duplicates++;
		return RoceResult::kDuplicate;
	}
	m.state = kDone;
	stats_.completed++;
	if (seq)
		*seq = s;
	advance();
	return RoceResult::kCompleted;
}

void RoceWindow::go_back(uint64_t from)
{
	if (from < base_ || from >= high_)
		return;
	if (from < next_)
		next_ = from;
}

uint32_t RoceWindow::on_timeout(uint64_t now_ns)
{
	/* Only what went out since the last go-back can be overdue; what is
	 * already queued for resending waits its turn. */
	for (uint64_t s = base_; s < next_; s++) {
		const Msg &m = at(s);
		if (m.state == kPosted && now_ns - m.posted_ns >= cfg_.timeout_ns && now_ns >= m.posted_ns) {
			stats_.timeouts++;
			go_back(s);
			return static_cast<uint32_t>(high_ - next_);
		}
	}
	return 0;
}

uint64_t RoceWindow::deadline() const
{
	uint64_t d = UINT64_MAX;
	for (uint64_t s = base_; s < next_; s++) {
		const Msg &m = at(s);
		if (m.state == kPosted && m.posted_ns + cfg_.timeout_ns < d)
			d = m.posted_ns + cfg_.timeout_ns;
	}
	return d;
}

uint32_t RoceWindow::in_flight() const
{
	return static_cast<uint32_t>(high_ - base_);
}

} /* namespace ina */
