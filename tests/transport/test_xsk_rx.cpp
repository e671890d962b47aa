/* SPDX-License-Identifier: BSD-3-Clause
 * xsk_take_rx (transport/src/xsk_rx.h) against rings laid out as the kernel
 * shares them, with this test playing the kernel: in particular the moment
 * when a frame is on the RX ring but the kernel has not yet published that
 * it took the frame's fill entry. */
#include <gtest/gtest.h>

#include <vector>

#include "xsk_rx.h"

using namespace ina;

namespace {

constexpr uint32_t kSize = 8;
constexpr uint64_t kChunk = 4096;

/* One RX ring and one fill ring of kSize entries, kSize buffers, all on the
 * fill ring at the start, as the transport sets them up. */
struct Rings {
	uint32_t rx_prod = 0, rx_cons = 0, fill_prod = 0, fill_cons = 0, flags = 0;
	std::vector<struct xdp_desc> rx_descs = std::vector<struct xdp_desc>(kSize);
	std::vector<uint64_t> fill_addrs = std::vector<uint64_t>(kSize);
	struct xsk_ring_cons rx = {};
	struct xsk_ring_prod fill = {};
	uint32_t kernel_fill_cons = 0; /* what the kernel took, published or not */

	Rings()
	{
		rx = {0, 0, kSize - 1, kSize, &rx_prod, &rx_cons, rx_descs.data(), &flags};
		fill = {0, kSize, kSize - 1, kSize, &fill_prod, &fill_cons, fill_addrs.data(), &flags};
		uint32_t idx = 0;
		EXPECT_EQ(xsk_ring_prod__reserve(&fill, kSize, &idx), kSize);
		for (uint32_t i = 0; i < kSize; i++)
			*xsk_ring_prod__fill_addr(&fill, idx + i) = i * kChunk;
		xsk_ring_prod__submit(&fill, kSize);
	}

	/* The kernel receives a frame of len bytes into the next fill buffer
	 * and publishes it on the RX ring, but not (yet) its fill consumer. */
	void kernel_receive(uint32_t len)
	{
		const uint64_t addr = fill_addrs[kernel_fill_cons++ & (kSize - 1)];
		rx_descs[rx_prod & (kSize - 1)] = {addr, len, 0};
		rx_prod++;
	}
	void kernel_publish_fill() { fill_cons = kernel_fill_cons; }
};

std::vector<uint64_t> take(Rings &r, uint32_t max)
{
	std::vector<uint64_t> got;
	xsk_take_rx(&r.rx, &r.fill, max, [&](const struct xdp_desc &d) { got.push_back(d.addr); });
	return got;
}

} /* namespace */

TEST(XskTakeRx, TakesWhatTheRingHolds)
{
	Rings r;
	for (uint32_t i = 0; i < 3; i++)
		r.kernel_receive(100 + i);
	r.kernel_publish_fill();
	EXPECT_EQ(take(r, 64), (std::vector<uint64_t>{0, kChunk, 2 * kChunk}));
	EXPECT_EQ(r.rx_cons, r.rx_prod);
	EXPECT_EQ(r.fill_prod, kSize + 3); /* the three buffers are back */
	EXPECT_TRUE(take(r, 64).empty());
}

TEST(XskTakeRx, LeavesFramesOnTheRingWhileTheFillRingLooksFull)
{
	Rings r;
	for (uint32_t i = 0; i < 4; i++)
		r.kernel_receive(100);
	/* The fill consumer is not published: no room to give buffers back. */
	EXPECT_TRUE(take(r, 64).empty());
	EXPECT_EQ(r.rx_cons, 0u);
	EXPECT_EQ(r.fill_prod, kSize);
	/* Half of it published: two frames, the other two stay. */
	r.fill_cons = 2;
	EXPECT_EQ(take(r, 64), (std::vector<uint64_t>{0, kChunk}));
	EXPECT_EQ(r.rx_cons, 2u);
	/* The rest: the same frames, none lost. With the frames left peeked
	 * instead, this call found nothing and the RX consumer stayed behind
	 * the producer for ever (poll() ready, nothing to read). */
	r.kernel_publish_fill();
	EXPECT_EQ(take(r, 64), (std::vector<uint64_t>{2 * kChunk, 3 * kChunk}));
	EXPECT_EQ(r.rx_cons, r.rx_prod);
	EXPECT_EQ(r.fill_prod, kSize + 4);
}

TEST(XskTakeRx, BuffersGoRoundTheRings)
{
	/* Ten times the ring: every buffer comes back and is received again. */
	Rings r;
	uint64_t taken = 0;
	for (uint32_t round = 0; round < 10 * kSize / 4; round++) {
		for (uint32_t i = 0; i < 4; i++)
			r.kernel_receive(64);
		/* From the second round on, the fill ring is full until the
		 * kernel publishes what it took. */
		if (round > 0) {
			EXPECT_TRUE(take(r, 64).empty());
		}
		r.kernel_publish_fill();
		const std::vector<uint64_t> got = take(r, 64);
		ASSERT_EQ(got.size(), 4u);
		for (uint32_t i = 0; i < 4; i++)
			EXPECT_EQ(got[i], ((round * 4 + i) % kSize) * kChunk);
		taken += got.size();
		EXPECT_EQ(r.rx_cons, r.rx_prod);
	}
	EXPECT_EQ(taken, 10 * kSize);
}
