/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/roce_msg.h"

#include <cstring>

namespace ina {

void roce_msg_build(const RoceRingParams &p, uint32_t msg_id, const void *data, uint32_t count, uint8_t *msg)
{
	NrHeader h;
	h.msg_id = msg_id;
	h.msg_len = p.msg_len;
	h.ring_id = p.ring_id;
	h.rank = p.rank;
	h.dtype = p.dtype;
	nr_hdr_write(h, msg);
	/* Values in host order: an RDMA message lands in memory unchanged
	 * and the switch sums them little endian (ina/roce.h). */
	const size_t bytes = size_t(count) * 4;
	memcpy(msg + NR_HDR_LEN, data, bytes);
	memset(msg + NR_HDR_LEN + bytes, 0, p.msg_bytes - NR_HDR_LEN - bytes);
}

const char *roce_msg_error_name(RoceMsgError e)
{
	switch (e) {
	case RoceMsgError::kOk:
		return "ok";
	case RoceMsgError::kLength:
		return "wrong length";
	case RoceMsgError::kMagic:
		return "no InetTag";
	case RoceMsgError::kMsgLen:
		return "other MsgLen";
	case RoceMsgError::kRing:
		return "other ring";
	case RoceMsgError::kDtype:
		return "other element type";
	}
	return "?";
}

RoceMsgError roce_msg_check(const RoceRingParams &p, const uint8_t *msg, uint32_t len, uint32_t *msg_id)
{
	if (len != p.msg_bytes)
		return RoceMsgError::kLength;
	const NrHeader h = nr_hdr_read(msg);
	if (h.magic != NR_MAGIC)
		return RoceMsgError::kMagic;
	if (h.msg_len != p.msg_len)
		return RoceMsgError::kMsgLen;
	if (h.ring_id != p.ring_id)
		return RoceMsgError::kRing;
	if (h.dtype != p.dtype)
		return RoceMsgError::kDtype;
	*msg_id = h.msg_id;
	return RoceMsgError::kOk;
}

} /* namespace ina */
