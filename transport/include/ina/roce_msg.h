/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The bytes of NetReduce's host side that are not verbs calls: the message
 * (its INA header written and read by ina/nr_codec.h), the checks of a
 * result message, and where message `seq` of a tensor takes and puts its
 * values. Pure functions, tested without a device.
 */
#ifndef INA_ROCE_MSG_H
#define INA_ROCE_MSG_H

#include <cstddef>
#include <cstdint>

#include "ina/nr_codec.h"
#include "ina/roce.h"

namespace ina {

/* What every message of one ring shares. */
struct RoceRingParams {
	uint32_t msg_bytes = 4096; /* nr_hdr + values, msg_len x mtu */
	uint16_t msg_len = 4;      /* packets per message (MsgLen) */
	uint16_t ring_id = 0;
	uint8_t rank = 0;
	uint8_t dtype = NR_DTYPE_FLOAT32;
};

/* Values (4-byte elements) per message. */
inline uint32_t roce_msg_values(const RoceRingParams &p) { return (p.msg_bytes - NR_HDR_LEN) / 4; }

/* Writes message `msg_id`: the header, then values [first, first + count)
 * of `data` (count <= roce_msg_values), the rest of the message zero (the
 * last message of a tensor is padded: every message has msg_len packets). */
void roce_msg_build(const RoceRingParams &p, uint32_t msg_id, const void *data, uint32_t count, uint8_t *msg);

/* Why a received message was refused. */
enum class RoceMsgError {
	kOk,
	kLength,   /* not msg_bytes long */
	kMagic,    /* no InetTag */
	kMsgLen,   /* another MsgLen than the ring's */
	kRing,     /* another ring */
	kDtype,    /* another element type */
};
const char *roce_msg_error_name(RoceMsgError e);

/* Checks a result message against the ring; on kOk, *msg_id is its MsgID. */
RoceMsgError roce_msg_check(const RoceRingParams &p, const uint8_t *msg, uint32_t len, uint32_t *msg_id);

/* Message k of a tensor of n values: which values it carries. */
inline void roce_msg_span(const RoceRingParams &p, size_t n, uint64_t k, size_t *first, uint32_t *count)
{
	const size_t per = roce_msg_values(p);
	const size_t f = static_cast<size_t>(k) * per;
	*first = f < n ? f : n;
	*count = static_cast<uint32_t>(n - *first < per ? n - *first : per);
}
/* Messages for a tensor of n values. */
inline uint64_t roce_msg_count(const RoceRingParams &p, size_t n)
{
	const size_t per = roce_msg_values(p);
	return (n + per - 1) / per;
}

/* The connection parameters two ring neighbours exchange (RoceConnInfo,
 * roce_conn_info_write(), roce_conn_info_read()) are ina/nr_codec.h's. */

} /* namespace ina */

#endif /* INA_ROCE_MSG_H */
