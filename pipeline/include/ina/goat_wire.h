/* SPDX-License-Identifier: BSD-3-Clause
 *
 * GOAT on the wire and in the aggregator index space (docs/goat.md,
 * "Installing a plan"): the control message that installs a switch's
 * assignment for a job, and where a worker puts a fragment in the range of
 * aggregators that switch gives the job.
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

/* The index of fragment `seq` in the job's range [first, end) of a
 * switch: consecutive fragments take consecutive slots, so a window of no
 * more than end - first fragments never collides with itself (ATP's hash
 * would, by chance, at any window). */
inline uint32_t goat_index(uint32_t seq, uint32_t first, uint32_t end)
{
	return first + seq % (end - first);
}

} /* namespace ina */
#endif

#endif /* INA_GOAT_WIRE_H */
