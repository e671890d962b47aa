/* SPDX-License-Identifier: BSD-3-Clause
 * Builders and readers of INA frames for the PS tests. */
#ifndef INA_TEST_PS_UTIL_H
#define INA_TEST_PS_UTIL_H

#include <cstring>
#include <utility>
#include <vector>

#include "ina/codec.h"
#include "ina/hash.h"
#include "ina/ps.h"
#include "ina/wire.h"

namespace ina_test {

struct Pkt {
	uint16_t job = 1;
	uint32_t seq = 0;
	uint32_t index = 0;
	uint16_t flags = 0;
	uint8_t level = 0;
	uint8_t levels = 1;
	uint32_t bitmap[INA_MAX_LEVELS] = {0, 0, 0, 0};
	uint8_t fan_in[INA_MAX_LEVELS] = {0, 0, 0, 0};
	std::vector<int32_t> values;
	std::vector<float> floats; /* used instead of values with INA_F_FLOAT */
	uint32_t src_ip = 0x0A000001;
	uint32_t dst_ip = 0x0A0000FE;
	uint8_t tos = 0;
};

/* Worker w's own packet in a flat job (one level, bit w, 1000 aggregators). */
inline Pkt from_worker(uint16_t job, uint32_t seq, uint32_t w, std::vector<int32_t> v)
{
	Pkt p;
	p.job = job;
	p.seq = seq;
	p.index = ina::aggregator_index(job, seq, 1000);
	p.levels = 1;
	p.bitmap[0] = 1u << w;
	p.values = std::move(v);
	p.src_ip = 0x0A000001 + w;
	return p;
}

inline std::vector<uint8_t> build(const Pkt &p)
{
	uint16_t n = static_cast<uint16_t>((p.flags & INA_F_FLOAT) ? p.floats.size() : p.values.size());
	std::vector<uint8_t> f(INA_FRAME_LEN(n));
	ina::Endpoint src{{2, 0, 0, 0, 0, 1}, p.src_ip, ina::steering_src_port(p.index)};
	ina::Endpoint dst{{2, 0, 0, 0, 0, 0xFE}, p.dst_ip, INA_UDP_PORT};
	ina::InaHeader h;
	h.flags = p.flags;
	h.job_id = p.job;
	h.seq = p.seq;
	h.agg_index = p.index;
	h.elem_count = n;
	h.level = p.level;
	h.levels = p.levels;
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++) {
		h.bitmap[i] = p.bitmap[i];
		h.fan_in[i] = p.fan_in[i];
	}
	ina::write_ina_frame(f.data(), src, dst, h, p.tos);
	uint8_t *pl = f.data() + INA_PAYLOAD_OFFSET;
	for (uint16_t k = 0; k < n; k++) {
		uint32_t bits;
		if (p.flags & INA_F_FLOAT)
			memcpy(&bits, &p.floats[k], 4);
		else
			bits = static_cast<uint32_t>(p.values[k]);
		ina_store32(pl + 4 * k, bits);
	}
	return f;
}

/* A parsed frame the PS sent. */
struct Out {
	ina::Endpoint src, dst;
	uint16_t flags, job, elems;
	uint32_t seq, index, remap;
	uint8_t level, levels;
	uint32_t bitmap[INA_MAX_LEVELS];
	uint32_t ps_clock; /* an ACK's fan_in bytes (wire.h) */
	std::vector<int32_t> values;
	std::vector<float> floats;
};

inline Out parse(const uint8_t *f, uint32_t len)
{
	Out o{};
	uint32_t plen = 0;
	ina::parse_frame_headers(f, len, &o.src, &o.dst, &plen);
	ina::InaFrame fr;
	if (ina::parse_ina_frame(f, len, &fr) != ina::FrameVerdict::kOk)
		return o;
	const ina::InaHeader &h = fr.hdr;
	o.flags = h.flags;
	o.job = h.job_id;
	o.seq = h.seq;
	o.index = h.agg_index;
	o.remap = h.remap_index;
	o.elems = h.elem_count;
	o.level = h.level;
	o.levels = h.levels;
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++)
		o.bitmap[i] = h.bitmap[i];
	o.ps_clock = ina_ack_ps_clock(h.fan_in);
	for (uint16_t k = 0; k < o.elems; k++) {
		uint32_t bits = ina_load32(fr.payload + 4 * k);
		o.values.push_back(static_cast<int32_t>(bits));
		float fl;
		memcpy(&fl, &bits, 4);
		o.floats.push_back(fl);
	}
	return o;
}

inline std::vector<Out> drain(ina::TxQueue &tx)
{
	std::vector<Out> out;
	for (uint32_t i = 0; i < tx.size(); i++) {
		uint32_t len;
		const uint8_t *f = tx.frame(i, &len);
		out.push_back(parse(f, len));
	}
	tx.clear();
	return out;
}

} /* namespace ina_test */

#endif
