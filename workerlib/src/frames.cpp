/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/worker/frames.h"

#include <cstring>

#include "ina/worker/quantize.h"

namespace ina {

/* IPv4 TOS of gradient frames: ECN-capable transport, ECT(0), so a switch
 * may mark CE instead of dropping. */
static constexpr uint8_t kTosEct0 = 0x02;

void make_bitmaps(uint8_t start_level, uint8_t levels, const uint8_t bit[INA_MAX_LEVELS],
		  uint32_t out[INA_MAX_LEVELS])
{
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++) {
		if (i < start_level)
			out[i] = 0xFFFFFFFFu;
		else if (i < levels)
			out[i] = 1u << (bit[i] & 31);
		else
			out[i] = 0;
	}
}

FrameWriter::FrameWriter(const Endpoint &src, const Endpoint &dst, const GradientTemplate &t)
    : src_(src), dst_(dst), t_(t)
{
}

uint32_t FrameWriter::header(uint8_t *buf, uint32_t seq, uint32_t index, uint16_t flags, uint16_t n) const
{
	Endpoint src = src_;
	src.port = gradient_src_port(index);
	write_frame_headers(buf, src, dst_, INA_HDR_LEN + 4u * n, kTosEct0);
	auto *h = reinterpret_cast<ina_hdr *>(buf + INA_HDR_OFFSET);
	h->version = INA_VERSION;
	h->type = INA_TYPE_DATA;
	ina_store16(&h->flags, flags);
	ina_store16(&h->job_id, t_.job_id);
	ina_store16(&h->agg_node, t_.agg_node);
	ina_store32(&h->seq, seq);
	ina_store32(&h->agg_index, index);
	ina_store32(&h->remap_index, INA_NO_REMAP);
	ina_store16(&h->elem_count, n);
	h->level = t_.level;
	h->levels = t_.levels;
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++) {
		ina_store32(&h->bitmap[i], t_.bitmap[i]);
		h->fan_in[i] = t_.fan_in[i];
	}
	return INA_FRAME_LEN(n);
}

uint32_t FrameWriter::gradient(uint8_t *buf, uint32_t seq, uint32_t index, uint16_t flags, const float *vals,
			       uint16_t n, double scale, uint32_t *saturated) const
{
	uint32_t len = header(buf, seq, index, flags, n);
	*saturated += quantize_to_wire(vals, buf + INA_PAYLOAD_OFFSET, n, scale);
	return len;
}

uint32_t FrameWriter::floats(uint8_t *buf, uint32_t seq, uint32_t index, uint16_t flags, const float *vals,
			     uint16_t n) const
{
	uint32_t len = header(buf, seq, index, static_cast<uint16_t>(flags | INA_F_FLOAT), n);
	floats_to_wire(vals, buf + INA_PAYLOAD_OFFSET, n);
	return len;
}

RxVerdict parse_from_ps(const uint8_t *frame, uint32_t len, uint16_t job, PsMessage *out)
{
	Endpoint dst;
	uint32_t udp_payload;
	if (!parse_frame_headers(frame, len, nullptr, &dst, &udp_payload) || dst.port != INA_UDP_PORT)
		return RxVerdict::not_ina;
	if (udp_payload < INA_HDR_LEN)
		return RxVerdict::malformed;
	const auto *h = reinterpret_cast<const ina_hdr *>(frame + INA_HDR_OFFSET);
	if (h->version != INA_VERSION)
		return RxVerdict::malformed;
	if (h->type != INA_TYPE_DATA)
		return RxVerdict::not_for_worker;
	uint16_t n = ina_load16(&h->elem_count);
	if (udp_payload != INA_HDR_LEN + 4u * n || n > INA_MAX_ELEMENTS)
		return RxVerdict::malformed;
	if (ina_load16(&h->job_id) != job)
		return RxVerdict::other_job;
	out->flags = ina_load16(&h->flags);
	out->seq = ina_load32(&h->seq);
	out->agg_index = ina_load32(&h->agg_index);
	out->remap_index = ina_load32(&h->remap_index);
	out->elem_count = n;
	out->level = h->level;
	out->levels = h->levels;
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++)
		out->bitmap[i] = ina_load32(&h->bitmap[i]);
	out->payload = frame + INA_PAYLOAD_OFFSET;
	if (out->flags & INA_F_ACK)
		return RxVerdict::param;
	/* docs/ps.md: type DATA, ACK clear, OVERFLOW set, FLOAT clear. */
	if ((out->flags & (INA_F_OVERFLOW | INA_F_FLOAT)) == INA_F_OVERFLOW)
		return RxVerdict::overflow_request;
	return RxVerdict::not_for_worker;
}

} /* namespace ina */
