/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/frame_ring.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace ina {

PsFrameRing::PsFrameRing(uint32_t capacity, uint32_t frame_bytes) : bytes_(frame_bytes)
{
	uint32_t c = 1;
	while (c < capacity)
		c <<= 1;
	mask_ = c - 1;
	mem_.reset(new uint8_t[size_t(c) * bytes_]);
	len_.reset(new uint32_t[c]());
	parsed_.reset(new RxFrame[c]());
}

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "futex word");

void Doorbell::wait(uint32_t timeout_us)
{
	struct timespec ts;
	ts.tv_sec = timeout_us / 1000000;
	ts.tv_nsec = long(timeout_us % 1000000) * 1000;
	/* Returns at once if ring() cleared the word since arm(). */
	syscall(SYS_futex, reinterpret_cast<uint32_t *>(&asleep_), FUTEX_WAIT_PRIVATE, 1u, &ts, nullptr, 0);
	asleep_.store(0, std::memory_order_relaxed);
}

void Doorbell::wake()
{
	syscall(SYS_futex, reinterpret_cast<uint32_t *>(&asleep_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

} /* namespace ina */
