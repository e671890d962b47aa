/* SPDX-License-Identifier: BSD-3-Clause
 * Frame builders shared by the transport and PS tests. */
#ifndef INA_TEST_TRANSPORT_UTIL_H
#define INA_TEST_TRANSPORT_UTIL_H

#include <chrono>
#include <cstring>
#include <vector>

#include "ina/codec.h"
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
	ina::InaHeader h;
	h.job_id = job;
	h.seq = seq;
	h.elem_count = n;
	uint32_t len = ina::write_ina_frame(f, src, dst, h);
	for (uint16_t k = 0; k < n; k++)
		ina_store32(f + INA_PAYLOAD_OFFSET + 4u * k, seq * 1000u + k);
	return len;
}

inline uint32_t frame_seq(const uint8_t *f)
{
	ina::InaHeader h;
	ina::decode(f + INA_HDR_OFFSET, &h);
	return h.seq;
}

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
