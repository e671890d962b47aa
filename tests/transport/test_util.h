/* SPDX-License-Identifier: BSD-3-Clause
 * Frame builders shared by the transport and PS tests. */
#ifndef INA_TEST_TRANSPORT_UTIL_H
#define INA_TEST_TRANSPORT_UTIL_H

#include <chrono>
#include <cstring>
#include <vector>

#include "ina/frame.h"
#include "ina/transport.h"
#include "ina/wire.h"

namespace ina_test {

/* A frame buffer with its own storage. */
struct Buf {
	std::vector<uint8_t> mem = std::vector<uint8_t>(2048);
	ina::FrameBuf fb{mem.data(), 0, 2048};
};

/* An INA gradient frame with `n` payload elements, element k = seq * 1000 + k. */
inline uint32_t make_ina_frame(uint8_t *f, const ina::Endpoint &src, const ina::Endpoint &dst,
			       uint16_t job, uint32_t seq, uint16_t n)
{
	uint32_t ina_len = INA_HDR_LEN + 4u * n;
	ina::write_frame_headers(f, src, dst, ina_len);
	uint8_t *h = f + INA_HDR_OFFSET;
	memset(h, 0, INA_HDR_LEN);
	auto *ih = reinterpret_cast<ina_hdr *>(h);
	ih->version = INA_VERSION;
	ih->type = INA_TYPE_DATA;
	ina_store16(&ih->job_id, job);
	ina_store32(&ih->seq, seq);
	ina_store32(&ih->remap_index, INA_NO_REMAP);
	ina_store16(&ih->elem_count, n);
	for (uint16_t k = 0; k < n; k++)
		ina_store32(f + INA_PAYLOAD_OFFSET + 4u * k, seq * 1000u + k);
	return INA_FRAME_LEN(n);
}

inline uint32_t frame_seq(const uint8_t *f) { return ina_load32(f + INA_HDR_OFFSET + 8); }

/* Receives until `want` frames arrived or `ms` passed; appends their seqs. */
inline uint32_t recv_seqs(ina::Transport &t, std::vector<uint32_t> *seqs, uint32_t want, int ms)
{
	std::vector<Buf> bufs(32);
	std::vector<ina::FrameBuf> fbs;
	for (auto &b : bufs)
		fbs.push_back(b.fb);
	auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
	uint32_t got = 0;
	while (got < want && std::chrono::steady_clock::now() < until) {
		uint32_t r = t.recv(fbs.data(), static_cast<uint32_t>(fbs.size()), 10000);
		for (uint32_t i = 0; i < r; i++)
			seqs->push_back(frame_seq(fbs[i].data));
		got += r;
	}
	return got;
}

} /* namespace ina_test */

#endif
