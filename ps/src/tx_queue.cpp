/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/ps.h"

namespace ina {

TxQueue::TxQueue(uint32_t capacity, uint32_t frame_bytes)
	: cap_(capacity), bytes_(frame_bytes), mem_(new uint8_t[size_t(capacity) * frame_bytes]),
	  len_(new uint32_t[capacity])
{
}

uint8_t *TxQueue::reserve()
{
	return n_ < cap_ ? data(n_) : nullptr;
}

void TxQueue::commit(uint32_t len)
{
	len_[n_++] = len;
}

const uint8_t *TxQueue::frame(uint32_t i, uint32_t *len) const
{
	*len = len_[i];
	return mem_.get() + size_t(i) * bytes_;
}

} /* namespace ina */
