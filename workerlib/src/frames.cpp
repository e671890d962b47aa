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
    : src_(src), dst_(dst)
{
	t_.job_id = t.job_id;
	t_.flags = ina_flags_with_epoch(0, t.epoch);
	t_.agg_node = t.agg_node;
	t_.level = t.level;
	t_.levels = t.levels;
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++) {
		t_.bitmap[i] = t.bitmap[i];
		t_.fan_in[i] = t.fan_in[i];
	}
}

uint32_t FrameWriter::header(uint8_t *buf, uint32_t seq, uint32_t index, uint16_t flags, uint16_t n,
			     int agg_node) const
{
	Endpoint src = src_;
	src.port = steering_src_port(index);
	InaHeader h = t_;
	h.flags = ina_flags_with_epoch(flags, ina_flags_epoch(t_.flags));
	h.seq = seq;
	h.agg_index = index;
	h.elem_count = n;
	if (agg_node >= 0)
		h.agg_node = static_cast<uint16_t>(agg_node);
	return write_ina_frame(buf, src, dst_, h, kTosEct0);
}

uint32_t FrameWriter::gradient(uint8_t *buf, uint32_t seq, uint32_t index, uint16_t flags, const float *vals,
			       uint16_t n, double scale, uint32_t *saturated, int agg_node) const
{
	uint32_t len = header(buf, seq, index, flags, n, agg_node);
	*saturated += quantize_to_wire(vals, buf + INA_PAYLOAD_OFFSET, n, scale);
	return len;
}

uint32_t FrameWriter::floats(uint8_t *buf, uint32_t seq, uint32_t index, uint16_t flags, const float *vals,
			     uint16_t n, int agg_node) const
{
	uint32_t len = header(buf, seq, index, static_cast<uint16_t>(flags | INA_F_FLOAT), n, agg_node);
	floats_to_wire(vals, buf + INA_PAYLOAD_OFFSET, n);
	return len;
}

RxVerdict parse_from_ps(const uint8_t *frame, uint32_t len, uint16_t job, const uint32_t *ps_ips,
			size_t n_ps, PsMessage *out)
{
	InaFrame f;
	switch (parse_ina_frame(frame, len, &f)) {
	case FrameVerdict::kOk:
		break;
	case FrameVerdict::kNotIna:
		return RxVerdict::not_ina;
	case FrameVerdict::kMalformedType:
		return RxVerdict::not_for_worker;
	default:
		return RxVerdict::malformed;
	}
	const InaHeader &h = f.hdr;
	if (h.type != INA_TYPE_DATA)
		return RxVerdict::not_for_worker;
	if (h.elem_count > INA_MAX_ELEMENTS)
		return RxVerdict::malformed;
	if (h.job_id != job)
		return RxVerdict::other_job;
	size_t i = 0;
	while (i < n_ps && ps_ips[i] != f.src_ip)
		i++;
	if (i == n_ps)
		return RxVerdict::not_from_ps;
	out->flags = h.flags;
	out->seq = h.seq;
	out->agg_index = h.agg_index;
	out->remap_index = h.remap_index;
	out->elem_count = h.elem_count;
	out->level = h.level;
	out->levels = h.levels;
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++)
		out->bitmap[i] = h.bitmap[i];
	out->ps_clock = ina_ack_ps_clock(h.fan_in);
	out->ip_ce = (f.tos & 3) == 3;
	out->payload = f.payload;
	if (out->flags & INA_F_ACK)
		return RxVerdict::param;
	/* docs/ps.md: type DATA, ACK clear, OVERFLOW set, FLOAT clear. */
	if ((out->flags & (INA_F_OVERFLOW | INA_F_FLOAT)) == INA_F_OVERFLOW)
		return RxVerdict::overflow_request;
	/* RESEND, OVERFLOW and FLOAT clear: a split fragment's missing copy. */
	if ((out->flags & (INA_F_RESEND | INA_F_OVERFLOW | INA_F_FLOAT)) == INA_F_RESEND)
		return RxVerdict::resend_request;
	return RxVerdict::not_for_worker;
}

} /* namespace ina */
