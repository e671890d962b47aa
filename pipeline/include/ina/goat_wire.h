/* SPDX-License-Identifier: BSD-3-Clause
 *
 * GOAT on the wire and in the aggregator index space (docs/goat.md,
 * "Installing a plan"): the control message that installs a switch's
 * assignment for a job, and the rule that gives every sub-model of a plan
 * its own run of aggregator indices. Workers and switches apply the same
 * rule to the same plan, so a worker's agg_index for a sub-model falls in
 * the range its switch reserved for it.
 */
#ifndef INA_GOAT_WIRE_H
#define INA_GOAT_WIRE_H

#include <stdint.h>

#include "ina/wire.h"

/* Control op (struct ina_ctrl_hdr `op`, next to enum ina_ctrl_op): install
 * the sending PS's job's GOAT assignment on this switch. n_workers counts
 * the struct ina_ctrl_goat_range entries that follow the header instead of
 * workers; levels, fan_in, refresh_ms are 0; ps_ip is the sender. 0 ranges:
 * remove the assignment. Answered with an INA_CTRL_ACK like a
 * registration. */
#define INA_CTRL_GOAT 4u

/* One aggregator index range [first, end) the switch aggregates the job's
 * fragments in; the same 16 bytes as struct ina_ctrl_worker. */
struct __attribute__((packed)) ina_ctrl_goat_range {
	uint32_t first;
	uint32_t end;
	uint8_t reserved[8];
};

INA_STATIC_ASSERT(sizeof(struct ina_ctrl_goat_range) == sizeof(struct ina_ctrl_worker), "goat range");

#ifdef __cplusplus
namespace ina {

/*
 * The aggregator indices of sub-model g of a plan whose sub-models end at
 * ends[0] < ends[1] < ... < ends[n-1] elements (ends[n-1] the model's
 * size), in a switch of `aggregators` indices (>= n): [*first, *end), at
 * least one index, in proportion to the sub-model's elements. False when the
 * plan does not fit (more sub-models than indices, an empty sub-model).
 */
inline bool goat_region(const uint64_t *ends, uint32_t n, uint32_t g, uint32_t aggregators,
			uint32_t *first, uint32_t *end)
{
	if (g >= n || n > aggregators || ends[n - 1] == 0)
		return false;
	const uint64_t spare = aggregators - n; /* shared in proportion */
	const uint64_t total = ends[n - 1];
	const uint64_t lo = g ? ends[g - 1] : 0;
	if (ends[g] <= lo)
		return false;
	/* 128-bit products: spare (< 2^24) x elements (< 2^64). */
	*first = g + static_cast<uint32_t>(static_cast<unsigned __int128>(spare) * lo / total);
	*end = g + 1 + static_cast<uint32_t>(static_cast<unsigned __int128>(spare) * ends[g] / total);
	return true;
}

/* The index of fragment `seq` in its sub-model's region: consecutive
 * fragments take consecutive slots, so a window no larger than the region
 * never collides with itself. */
inline uint32_t goat_index(uint32_t seq, uint32_t first, uint32_t end)
{
	return first + seq % (end - first);
}

} /* namespace ina */
#endif

#endif /* INA_GOAT_WIRE_H */
