/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The GOAT control message (ina/goat_wire.h): written by the PS, read by
 * switchd, both through these two functions.
 */
#include "ina/goat_wire.h"

#include <cstring>

namespace ina {

uint32_t goat_ctrl_payload(const std::vector<GoatSlots> &slots, uint32_t ps_ip, uint64_t counter, uint8_t *out,
			   uint32_t cap)
{
	if (slots.size() > 255)
		return 0;
	const uint32_t len = static_cast<uint32_t>(sizeof(ina_ctrl_hdr) + slots.size() * sizeof(ina_ctrl_goat_range) +
						   sizeof(ina_ctrl_auth));
	if (cap < len)
		return 0;
	memset(out, 0, len);
	out[offsetof(ina_ctrl_hdr, op)] = INA_CTRL_GOAT;
	out[offsetof(ina_ctrl_hdr, n_workers)] = static_cast<uint8_t>(slots.size());
	ina_store32(out + offsetof(ina_ctrl_hdr, ps_ip), ps_ip);
	uint8_t *r = out + sizeof(ina_ctrl_hdr);
	for (const GoatSlots &g : slots) {
		ina_store32(r + offsetof(ina_ctrl_goat_range, first), g.first);
		ina_store32(r + offsetof(ina_ctrl_goat_range, end), g.end);
		ina_store32(r + offsetof(ina_ctrl_goat_range, children), g.children);
		r[offsetof(ina_ctrl_goat_range, fan_in)] = g.fan_in;
		r += sizeof(ina_ctrl_goat_range);
	}
	ina_store64(r + offsetof(ina_ctrl_auth, counter), counter);
	return len;
}

std::string goat_ctrl_parse(const uint8_t *p, uint32_t len, std::vector<GoatSlots> *out, uint32_t *ps_ip,
			    uint64_t *counter)
{
	if (len < sizeof(ina_ctrl_hdr) || p[offsetof(ina_ctrl_hdr, op)] != INA_CTRL_GOAT)
		return "not a GOAT control message";
	const uint32_t n = p[offsetof(ina_ctrl_hdr, n_workers)];
	const uint32_t want = sizeof(ina_ctrl_hdr) + n * sizeof(ina_ctrl_goat_range) + sizeof(ina_ctrl_auth);
	if (len != want)
		return len < want ? "shorter than its header, ranges and trailer" : "bytes after the trailer";
	*ps_ip = ina_load32(p + offsetof(ina_ctrl_hdr, ps_ip));
	out->clear();
	const uint8_t *r = p + sizeof(ina_ctrl_hdr);
	for (uint32_t i = 0; i < n; i++, r += sizeof(ina_ctrl_goat_range)) {
		GoatSlots g;
		g.first = ina_load32(r + offsetof(ina_ctrl_goat_range, first));
		g.end = ina_load32(r + offsetof(ina_ctrl_goat_range, end));
		g.children = ina_load32(r + offsetof(ina_ctrl_goat_range, children));
		g.fan_in = r[offsetof(ina_ctrl_goat_range, fan_in)];
		out->push_back(g);
	}
	*counter = ina_load64(r + offsetof(ina_ctrl_auth, counter));
	return "";
}

uint32_t write_goat_ctrl_frame(uint8_t *frame, uint32_t cap, const Endpoint &src, const Endpoint &dst,
			       uint16_t job, const std::vector<GoatSlots> &slots, uint64_t counter)
{
	if (cap < INA_PAYLOAD_OFFSET)
		return 0;
	const uint32_t payload =
		goat_ctrl_payload(slots, src.ip, counter, frame + INA_PAYLOAD_OFFSET, cap - INA_PAYLOAD_OFFSET);
	if (!payload)
		return 0;
	write_frame_headers(frame, src, dst, INA_HDR_LEN + payload);
	InaHeader h;
	h.type = INA_TYPE_CONTROL;
	h.job_id = job;
	h.remap_index = 0;
	encode(h, frame + INA_HDR_OFFSET);
	return INA_PAYLOAD_OFFSET + payload;
}

} /* namespace ina */
