/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pipeline_bench --roce: ina::nr_process() (NetReduce over RoCEv2) on one
 * core, in process, beside the INA path.
 *
 * R rings of W ranks, each rank one RC connection, messages of L packets in
 * a window of N. A round sends N messages: for every packet position, the W
 * ranks' packets of every ring, interleaved as they would arrive. Each
 * packet's ICRC is checked; a completed slot writes the result into the
 * packet and makes the other W - 1 ranks' results (nr_result() into one
 * buffer, standing in for a new mbuf), each with a recomputed ICRC: one result
 * out per packet in, as on the wire. Between rounds (outside the timing)
 * the frames move on to the next N messages: new MsgIDs and PSNs, ICRC
 * rewritten, so every round claims, aggregates, completes and frees.
 */
#include "roce_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "ina/netreduce.h"
#include "ina/nr_codec.h"

namespace {

struct RoceTraffic {
	std::vector<uint8_t> frames; /* one 64-byte-aligned slot per frame */
	std::vector<uint32_t> offset;
	std::vector<uint32_t> len;
	std::vector<uint32_t> rank, ring, k, m; /* per frame */
	uint32_t slot = 0;
};

constexpr uint32_t kEthIpUdp = INA_L2L3L4_LEN;

uint32_t frame_len(uint32_t payload, uint32_t k)
{
	return kEthIpUdp + ROCE_BTH_LEN + (k == 0 ? ROCE_RETH_LEN : 0) + payload + ROCE_ICRC_LEN;
}

/* Writes frame i for message `msg` (headers, values, ICRC); the NetReduce
 * header through the protocol's codec, as the workers write it. */
void put_frame(RoceTraffic &t, size_t i, const RoceBenchOptions &o, uint32_t payload, uint32_t msg)
{
	uint8_t *f = &t.frames[t.offset[i]];
	const uint32_t r = t.rank[i], g = t.ring[i], k = t.k[i];
	const uint32_t len = t.len[i];
	std::memset(f, 0, len);
	const uint8_t op = o.msg_len == 1 ? ROCE_RC_WRITE_ONLY
			   : k == 0	  ? ROCE_RC_WRITE_FIRST
			   : k + 1 == o.msg_len ? ROCE_RC_WRITE_LAST
						: ROCE_RC_WRITE_MIDDLE;
	f[0] = 2, f[6] = 2, f[11] = 1;
	ina_store16(f + 12, 0x0800);
	uint8_t *ip = f + 14;
	ip[0] = 0x45;
	ina_store16(ip + 2, static_cast<uint16_t>(len - 14));
	ip[8] = 64;
	ip[9] = 17;
	ina_store32(ip + 12, 0x0A000000u + (g << 8) + r + 1);
	ina_store32(ip + 16, 0x0A000000u + (g << 8) + (r + 1) % o.ranks + 1);
	ina_store16(ip + 20 + 2, ROCE_UDP_PORT);
	ina_store16(ip + 20 + 4, static_cast<uint16_t>(len - 34));
	uint8_t *bth = f + ROCE_BTH_OFFSET;
	bth[0] = op;
	ina_store16(bth + 2, ROCE_DEFAULT_PKEY);
	ina_store24(bth + 5, 0x100 + r);
	ina_store24(bth + 9, (1000 * r + msg * o.msg_len + k) & ROCE_PSN_MASK);
	uint8_t *p = bth + ROCE_BTH_LEN;
	if (roce_ext_len(op)) {
		ina_store32(p + 12, o.msg_len * payload);
		p += ROCE_RETH_LEN;
	}
	uint32_t n = payload / 4;
	if (k == 0) {
		ina::NrHeader h;
		h.msg_id = msg;
		h.msg_len = static_cast<uint16_t>(o.msg_len);
		h.ring_id = static_cast<uint16_t>(g + 1);
		h.rank = static_cast<uint8_t>(r);
		h.dtype = NR_DTYPE_FLOAT32;
		ina::nr_hdr_write(h, p);
		p += NR_HDR_LEN;
		n -= NR_HDR_LEN / 4;
	}
	for (uint32_t e = 0; e < n; e++) {
		const float v = static_cast<float>((e + k + r) % 64) - 32.0f;
		std::memcpy(p + 4 * e, &v, 4);
	}
	ina::roce_icrc_store(f, len);
}

RoceTraffic build(const RoceBenchOptions &o, uint32_t payload)
{
	RoceTraffic t;
	t.slot = (frame_len(payload, 0) + 63) & ~63u;
	for (uint32_t m = 0; m < o.window; m++)
		for (uint32_t k = 0; k < o.msg_len; k++)
			for (uint32_t r = 0; r < o.ranks; r++)
				for (uint32_t g = 0; g < o.rings; g++) {
					t.offset.push_back(static_cast<uint32_t>(t.offset.size()) * t.slot);
					t.len.push_back(frame_len(payload, k));
					t.rank.push_back(r), t.ring.push_back(g), t.k.push_back(k), t.m.push_back(m);
				}
	t.frames.assign(size_t(t.offset.size()) * t.slot, 0);
	return t;
}

void next_round(RoceTraffic &t, const RoceBenchOptions &o, uint32_t payload, uint32_t round)
{
	for (size_t i = 0; i < t.offset.size(); i++)
		put_frame(t, i, o, payload, round * o.window + t.m[i]);
}

} /* namespace */

std::vector<RoceBenchRow> roce_bench(const RoceBenchOptions &o)
{
	std::vector<RoceBenchRow> rows;
	for (uint32_t payload : o.payloads) {
		ina::NrConfig cfg;
		for (uint32_t g = 0; g < o.rings; g++) {
			ina::NrRingConfig rc;
			rc.ring_id = static_cast<uint16_t>(g + 1);
			rc.ranks = static_cast<uint8_t>(o.ranks);
			rc.window = static_cast<uint16_t>(o.window);
			rc.msg_len = static_cast<uint16_t>(o.msg_len);
			rc.mtu = static_cast<uint16_t>(payload);
			rc.dtype = NR_DTYPE_FLOAT32;
			cfg.rings.push_back(rc);
		}
		cfg.connections = o.rings * o.ranks;
		cfg.check_icrc = o.check_icrc;
		ina::NrTable table(cfg);
		ina::NrCounters ctr;
		RoceTraffic t = build(o, payload);
		std::vector<uint8_t> copy(t.slot);

		using clock = std::chrono::steady_clock;
		std::vector<double> round_s;
		double busy = 0;
		uint64_t out = 0;
		for (uint32_t round = 0; busy < o.seconds || round_s.size() < 20; round++) {
			next_round(t, o, payload, round);
			auto r0 = clock::now();
			for (size_t i = 0; i < t.offset.size(); i++) {
				uint8_t *f = &t.frames[t.offset[i]];
				const ina::NrResult res = ina::nr_process(table, ctr, f, t.len[i], round);
				if (res.verdict != ina::NrVerdict::kComplete)
					continue;
				out++;
				for (uint32_t r = 0; r < o.ranks; r++) {
					if (r == res.rank)
						continue;
					out += ina::nr_result(table, res, static_cast<uint8_t>(r), copy.data(),
							      static_cast<uint32_t>(copy.size())) == t.len[i];
				}
			}
			const double s = std::chrono::duration<double>(clock::now() - r0).count();
			if (round > 0) /* the first round warms caches */
				round_s.push_back(s), busy += s;
		}
		std::vector<double> sorted = round_s;
		std::sort(sorted.begin(), sorted.end());
		const double per_round = double(t.offset.size());
		RoceBenchRow row;
		row.payload = payload;
		row.check_icrc = o.check_icrc;
		row.mpps = per_round / sorted[sorted.size() / 10] / 1e6;
		row.mpps_median = per_round / sorted[sorted.size() / 2] / 1e6;
		row.ns_per_packet = sorted[sorted.size() / 10] * 1e9 / per_round;
		row.frame_bytes = frame_len(payload, 1);
		row.rounds = round_s.size() + 1;
		row.completed = ctr[ina::NrCounter::roce_completed];
		row.results_out = out;
		row.expected_completed = uint64_t(row.rounds) * o.window * o.msg_len * o.rings;
		row.packets_in = uint64_t(row.rounds) * t.offset.size();
		row.icrc_bad = ctr[ina::NrCounter::roce_icrc_bad];
		rows.push_back(row);
	}
	return rows;
}
