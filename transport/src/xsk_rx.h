/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Taking received frames off an AF_XDP socket's RX ring and giving their
 * buffers back on the fill ring, in one step.
 */
#ifndef INA_TRANSPORT_XSK_RX_H
#define INA_TRANSPORT_XSK_RX_H

#include <xdp/xsk.h>

#include <cstdint>

namespace ina {

/* Hands each of up to `max` descriptors waiting on `rx` to take(const
 * xdp_desc &), returns its buffer on `fill` and releases it from `rx`;
 * returns how many it took.
 *
 * The kernel publishes a received frame on the RX ring before it publishes
 * that it consumed the frame's fill entry, so for a moment the fill ring can
 * look fuller than it is. Only as many descriptors are taken as the fill
 * ring has room for now; the rest stay on the RX ring for the next call.
 * Those must be handed back to the ring (cancel), not just left peeked: a
 * descriptor peeked and never released keeps the ring's consumer behind its
 * producer for ever, so poll() reports POLLIN for ever while every later
 * peek finds nothing, and the caller spins at 100 % CPU. */
template <typename Take>
uint32_t xsk_take_rx(struct xsk_ring_cons *rx, struct xsk_ring_prod *fill, uint32_t max, Take take)
{
	uint32_t idx = 0;
	uint32_t got = xsk_ring_cons__peek(rx, max, &idx);
	if (!got)
		return 0;
	const uint32_t room = xsk_prod_nb_free(fill, got);
	if (room < got) {
		xsk_ring_cons__cancel(rx, got - room);
		got = room;
		if (!got)
			return 0;
	}
	uint32_t fidx = 0;
	xsk_ring_prod__reserve(fill, got, &fidx);
	for (uint32_t i = 0; i < got; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(rx, idx + i);
		take(*d);
		*xsk_ring_prod__fill_addr(fill, fidx + i) = xsk_umem__extract_addr(d->addr);
	}
	xsk_ring_prod__submit(fill, got);
	xsk_ring_cons__release(rx, got);
	return got;
}

} /* namespace ina */

#endif
