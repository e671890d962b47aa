/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/roce_msg.h"

#include <cstring>

namespace ina {

void roce_msg_build(const RoceRingParams &p, uint32_t msg_id, const void *data, uint32_t count, uint8_t *msg)
{
	ina_store32(msg + offsetof(struct nr_hdr, magic), NR_MAGIC);
	ina_store32(msg + offsetof(struct nr_hdr, msg_id), msg_id);
	ina_store16(msg + offsetof(struct nr_hdr, msg_len), p.msg_len);
	ina_store16(msg + offsetof(struct nr_hdr, ring_id), p.ring_id);
	msg[offsetof(struct nr_hdr, rank)] = p.rank;
	msg[offsetof(struct nr_hdr, dtype)] = p.dtype;
	ina_store16(msg + offsetof(struct nr_hdr, reserved), 0);
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
	if (ina_load32(msg + offsetof(struct nr_hdr, magic)) != NR_MAGIC)
		return RoceMsgError::kMagic;
	if (ina_load16(msg + offsetof(struct nr_hdr, msg_len)) != p.msg_len)
		return RoceMsgError::kMsgLen;
	if (ina_load16(msg + offsetof(struct nr_hdr, ring_id)) != p.ring_id)
		return RoceMsgError::kRing;
	if (msg[offsetof(struct nr_hdr, dtype)] != p.dtype)
		return RoceMsgError::kDtype;
	*msg_id = ina_load32(msg + offsetof(struct nr_hdr, msg_id));
	return RoceMsgError::kOk;
}

static const uint8_t kConnMagic[4] = {'N', 'R', 'Q', 'P'};
constexpr uint8_t kConnVersion = 1;

void roce_conn_info_write(const RoceConnInfo &c, uint8_t out[kRoceConnInfoLen])
{
	memset(out, 0, kRoceConnInfoLen);
	memcpy(out, kConnMagic, 4);
	out[4] = kConnVersion;
	out[5] = c.rank;
	ina_store16(out + 6, c.ring_id);
	ina_store32(out + 8, c.qpn & ROCE_QPN_MASK);
	ina_store32(out + 12, c.psn & ROCE_PSN_MASK);
	memcpy(out + 16, c.gid, 16);
	ina_store16(out + 32, c.mtu);
	ina_store32(out + 34, c.msg_bytes);
}

bool roce_conn_info_read(const uint8_t in[kRoceConnInfoLen], RoceConnInfo *out)
{
	if (memcmp(in, kConnMagic, 4) != 0 || in[4] != kConnVersion)
		return false;
	RoceConnInfo c;
	c.rank = in[5];
	c.ring_id = ina_load16(in + 6);
	c.qpn = ina_load32(in + 8);
	c.psn = ina_load32(in + 12);
	if (c.qpn > ROCE_QPN_MASK || c.psn > ROCE_PSN_MASK)
		return false;
	memcpy(c.gid, in + 16, 16);
	c.mtu = ina_load16(in + 32);
	c.msg_bytes = ina_load32(in + 34);
	*out = c;
	return true;
}

} /* namespace ina */
