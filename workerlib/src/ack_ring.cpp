/* SPDX-License-Identifier: BSD-3-Clause */
#include "ack_ring.h"

#include <cstring>

namespace ina {

bool AckRing::push(const PsMessage &m, const uint8_t *frame, uint32_t len)
{
	uint32_t t = tail_.load(std::memory_order_relaxed);
	uint32_t h = head_.load(std::memory_order_acquire);
	if (t - h >= kSlots || len > kSlotBytes)
		return false;
	uint32_t s = t % kSlots;
	uint8_t *slot = &buf_[static_cast<size_t>(s) * kSlotBytes];
	memcpy(slot, frame, len);
	msg_[s] = m;
	msg_[s].payload = slot + (m.payload - frame);
	tail_.store(t + 1, std::memory_order_release);
	return true;
}

const PsMessage *AckRing::peek() const
{
	uint32_t h = head_.load(std::memory_order_relaxed);
	if (h == tail_.load(std::memory_order_acquire))
		return nullptr;
	return &msg_[h % kSlots];
}

void AckRing::pop()
{
	head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

} /* namespace ina */
