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
 * fragments in; the same 16 bytes as struct ina_ctrl_worker. fan_in 0: the
 * fragments' own fan-in and bitmap bits below it decide (every worker of
 * the job sends here); else the range aggregates the workers whose level
 * bits `children` names, fan_in of them (a sub-model the plan splits
 * between nodes, docs/goat.md "Split sub-models"). */
struct __attribute__((packed)) ina_ctrl_goat_range {
	uint32_t first;
	uint32_t end;
	uint32_t children;
	uint8_t fan_in;
	uint8_t reserved[3];
};

INA_STATIC_ASSERT(sizeof(struct ina_ctrl_goat_range) == sizeof(struct ina_ctrl_worker), "goat range");

#ifdef __cplusplus
#include <string>
#include <vector>

#include "ina/codec.h"

namespace ina {

/* A run of aggregators a switch gives a job, host order (struct
 * ina_ctrl_goat_range). */
struct GoatSlots {
	uint32_t first = 0;
	uint32_t end = 0;     /* exclusive */
	uint8_t fan_in = 0;   /* 0: the fragments' own */
	uint32_t children = 0; /* with fan_in: the bits that aggregate here */
};

/* Writes the payload of a GOAT control message (MAC zero: sign the frame
 * afterwards). Returns its length, 0 if cap is too small or there are more
 * than 255 ranges. No ranges: remove the job's assignment. */
uint32_t goat_ctrl_payload(const std::vector<GoatSlots> &slots, uint32_t ps_ip, uint64_t counter, uint8_t *out,
			   uint32_t cap);

/* The ranges, sender and counter of a GOAT control payload (an InaFrame's
 * payload whose first byte is INA_CTRL_GOAT). Checks the layout only;
 * empty string or the reason. */
std::string goat_ctrl_parse(const uint8_t *payload, uint32_t len, std::vector<GoatSlots> *out, uint32_t *ps_ip,
			    uint64_t *counter);

/* A whole GOAT control frame from `src` (the PS) to `dst` (the switch) for
 * `job`, MAC zero. Returns its length, 0 if cap is too small. */
uint32_t write_goat_ctrl_frame(uint8_t *frame, uint32_t cap, const Endpoint &src, const Endpoint &dst,
			       uint16_t job, const std::vector<GoatSlots> &slots, uint64_t counter);

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
