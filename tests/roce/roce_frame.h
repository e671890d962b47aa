/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Builds RoCEv2 RC frames for the NetReduce and RoCE transport tests, with
 * a bitwise CRC-32 of its own for the ICRC (independent of ISA-L and of
 * roce_icrc()). The NetReduce header comes from the protocol's codec
 * (ina/nr_codec.h), whose layout nr_codec_layout checks byte by byte, so
 * that its wire layout is written in one place.
 */
#ifndef TESTS_ROCE_FRAME_H
#define TESTS_ROCE_FRAME_H

#include <cstdint>
#include <cstring>
#include <vector>

#include "ina/nr_codec.h"
#include "ina/roce.h"

namespace roce_test {

/* CRC-32 (IEEE, reflected 0xEDB88320), continued from `crc` (0 to start). */
inline uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

/* ICRC per IBTA annex A17: 8 x 0xFF, IPv4 with TOS/TTL/checksum as 1s, UDP
 * checksum as 1s, BTH byte 4 (resv8a) as 1s, the rest up to the ICRC. */
inline uint32_t icrc_reference(const uint8_t *f, size_t len)
{
	if (len < 58)
		return 0;
	std::vector<uint8_t> m(8 + len - 18);
	std::memset(m.data(), 0xFF, 8);
	std::memcpy(m.data() + 8, f + 14, len - 18);
	uint8_t *ip = m.data() + 8;
	ip[1] = 0xFF;
	ip[8] = 0xFF;
	ip[10] = ip[11] = 0xFF;
	ip[26] = ip[27] = 0xFF;
	ip[28 + 4] = 0xFF;
	return crc32_bitwise(0, m.data(), m.size());
}

inline uint32_t icrc_in(const uint8_t *f, size_t len)
{
	return static_cast<uint32_t>(f[len - 4]) | f[len - 3] << 8 | f[len - 2] << 16 |
	       static_cast<uint32_t>(f[len - 1]) << 24;
}

/* One rank's connection to its successor. */
struct Conn {
	uint32_t src_ip, dst_ip, dqpn;
	uint8_t rank;
	uint16_t ring;
};

struct Msg {
	uint32_t msg_id;
	uint16_t msg_len;
	uint8_t dtype;
};

/* The frame of packet `k` (0 .. msg_len-1) of a message sent as one RDMA
 * WRITE; `values` are the packet's 4-byte elements (host order). */
inline std::vector<uint8_t> frame(const Conn &c, const Msg &m, uint32_t k, uint32_t psn,
				  const std::vector<uint32_t> &values)
{
	uint8_t op;
	if (m.msg_len == 1)
		op = ROCE_RC_WRITE_ONLY;
	else if (k == 0)
		op = ROCE_RC_WRITE_FIRST;
	else if (k + 1 == m.msg_len)
		op = ROCE_RC_WRITE_LAST;
	else
		op = ROCE_RC_WRITE_MIDDLE;
	const bool first = k == 0;
	const size_t ext = roce_ext_len(op) + (first ? NR_HDR_LEN : 0);
	const size_t len = 14 + 20 + 8 + 12 + ext + 4 * values.size() + 4;
	std::vector<uint8_t> f(len, 0);
	uint8_t *p = f.data();
	const uint8_t dmac[6] = {2, 0, 0, 0, 0, 2}, smac[6] = {2, 0, 0, 0, 0, 1};
	std::memcpy(p, dmac, 6);
	std::memcpy(p + 6, smac, 6);
	ina_store16(p + 12, 0x0800);
	uint8_t *ip = p + 14;
	ip[0] = 0x45;
	ip[1] = 0x02; /* ECT(0), as RoCE NICs send */
	ina_store16(ip + 2, static_cast<uint16_t>(len - 14));
	ina_store16(ip + 4, static_cast<uint16_t>(psn));
	ina_store16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	ina_store32(ip + 12, c.src_ip);
	ina_store32(ip + 16, c.dst_ip);
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += ina_load16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	ina_store16(ip + 10, static_cast<uint16_t>(~sum));
	uint8_t *udp = ip + 20;
	ina_store16(udp, static_cast<uint16_t>(49152 + c.rank));
	ina_store16(udp + 2, ROCE_UDP_PORT);
	ina_store16(udp + 4, static_cast<uint16_t>(len - 34));
	uint8_t *bth = udp + 8;
	bth[0] = op;
	ina_store16(bth + 2, ROCE_DEFAULT_PKEY);
	ina_store24(bth + 5, c.dqpn);
	bth[8] = roce_opcode_last(op) ? ROCE_BTH_ACKREQ : 0;
	ina_store24(bth + 9, psn);
	uint8_t *q = bth + 12;
	if (roce_ext_len(op)) {
		ina_store64(q, 0x7f0000000000ull + 0x10000ull * c.rank + 4096ull * m.msg_id);
		ina_store32(q + 8, 0x1234 + c.rank);
		ina_store32(q + 12, 4096);
		q += 16;
	}
	if (first) {
		ina::NrHeader h;
		h.msg_id = m.msg_id;
		h.msg_len = m.msg_len;
		h.ring_id = c.ring;
		h.rank = c.rank;
		h.dtype = m.dtype;
		ina::nr_hdr_write(h, q);
		q += NR_HDR_LEN;
	}
	std::memcpy(q, values.data(), 4 * values.size());
	const uint32_t crc = icrc_reference(p, len);
	std::memcpy(p + len - 4, &crc, 4);
	return f;
}

/* Values of a frame built above (after the nr_hdr on a first packet). */
inline std::vector<uint32_t> values_of(const std::vector<uint8_t> &f)
{
	const uint8_t op = f[42];
	size_t off = 54 + roce_ext_len(op) + (roce_opcode_first(op) ? NR_HDR_LEN : 0);
	std::vector<uint32_t> v((f.size() - 4 - off) / 4);
	std::memcpy(v.data(), f.data() + off, 4 * v.size());
	return v;
}

inline uint32_t f2u(float x)
{
	uint32_t u;
	std::memcpy(&u, &x, 4);
	return u;
}
inline float u2f(uint32_t u)
{
	float x;
	std::memcpy(&x, &u, 4);
	return x;
}

} /* namespace roce_test */

#endif /* TESTS_ROCE_FRAME_H */
