/* SPDX-License-Identifier: BSD-3-Clause
 *
 * NetReduce's one codec: the INA header at the front of every message
 * (struct nr_hdr of ina/roce.h) and the connection information two ring
 * neighbours exchange before their RC queue pairs can talk. The worker's
 * RoCE transport (transport/src/roce_msg.cpp) and the switch's RoCE stage
 * (pipeline/src/nr_process.cpp) read and write these bytes only through this
 * file, and so do the tests' frames (tests/roce/roce_frame.h) and the bench's
 * (perf/pipeline_bench/roce_bench.cpp); tests/protocol/test_nr_codec.cpp
 * checks the layout byte by byte.
 *
 * The header's codec is inline, with no allocation and no system calls: the
 * switch reads it on its per-packet path.
 */
#ifndef INA_NR_CODEC_H
#define INA_NR_CODEC_H

#include <cstddef>
#include <cstdint>

#include "ina/roce.h"

namespace ina {

/* struct nr_hdr's fields, host order. */
struct NrHeader {
	uint32_t magic = NR_MAGIC; /* the InetTag */
	uint32_t msg_id = 0;
	uint16_t msg_len = 0; /* packets per message */
	uint16_t ring_id = 0;
	uint8_t rank = 0;
	uint8_t dtype = 0; /* enum nr_dtype */
};

/* Writes NR_HDR_LEN bytes at out, big endian, the reserved field 0. */
inline void nr_hdr_write(const NrHeader &h, uint8_t *out)
{
	ina_store32(out + offsetof(struct nr_hdr, magic), h.magic);
	ina_store32(out + offsetof(struct nr_hdr, msg_id), h.msg_id);
	ina_store16(out + offsetof(struct nr_hdr, msg_len), h.msg_len);
	ina_store16(out + offsetof(struct nr_hdr, ring_id), h.ring_id);
	out[offsetof(struct nr_hdr, rank)] = h.rank;
	out[offsetof(struct nr_hdr, dtype)] = h.dtype;
	ina_store16(out + offsetof(struct nr_hdr, reserved), 0);
}

/* Reads the NR_HDR_LEN bytes at in (the caller checked they are there). */
inline NrHeader nr_hdr_read(const uint8_t *in)
{
	NrHeader h;
	h.magic = ina_load32(in + offsetof(struct nr_hdr, magic));
	h.msg_id = ina_load32(in + offsetof(struct nr_hdr, msg_id));
	h.msg_len = ina_load16(in + offsetof(struct nr_hdr, msg_len));
	h.ring_id = ina_load16(in + offsetof(struct nr_hdr, ring_id));
	h.rank = in[offsetof(struct nr_hdr, rank)];
	h.dtype = in[offsetof(struct nr_hdr, dtype)];
	return h;
}

/* What a ring neighbour needs to bring an RC QP to RTR towards us: our QP
 * number, first PSN, GID and path MTU, plus who we are, so that a wiring
 * mistake (two rings crossed, the wrong neighbour) is a clear error. */
struct RoceConnInfo {
	uint32_t qpn = 0;    /* 24 bits */
	uint32_t psn = 0;    /* 24 bits */
	uint8_t gid[16] = {};
	uint16_t ring_id = 0;
	uint8_t rank = 0;
	uint16_t mtu = 0;    /* bytes */
	uint32_t msg_bytes = 0;
};

/* The exchange message on the wire (TCP, before the QPs exist): "NRQP",
 * version 1, then the fields, big endian, 40 bytes. */
struct __attribute__((packed)) nr_conn_info {
	uint8_t magic[4]; /* "NRQP" */
	uint8_t version;  /* kRoceConnVersion */
	uint8_t rank;
	uint16_t ring_id;
	uint32_t qpn; /* 24 bits used */
	uint32_t psn; /* 24 bits used */
	uint8_t gid[16];
	uint16_t mtu;
	uint32_t msg_bytes;
	uint8_t reserved[2]; /* 0 */
};
constexpr size_t kRoceConnInfoLen = sizeof(struct nr_conn_info);
static_assert(kRoceConnInfoLen == 40, "nr_conn_info");
constexpr uint8_t kRoceConnVersion = 1;

void roce_conn_info_write(const RoceConnInfo &c, uint8_t out[kRoceConnInfoLen]);
/* False on a bad magic/version or a QPN/PSN beyond 24 bits. */
bool roce_conn_info_read(const uint8_t in[kRoceConnInfoLen], RoceConnInfo *out);

} /* namespace ina */

#endif /* INA_NR_CODEC_H */
