/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The RoCEv2 invariant CRC (IBTA vol. 1 annex A17.3.3): CRC-32 (IEEE, as
 * ISA-L's crc32_gzip_refl and zlib compute it) over 64 bits of 1s standing
 * for the absent InfiniBand LRH, then the IP, UDP and transport headers with
 * the fields routers may change set to 1s, then the payload. A software
 * switch can recompute it for every result packet, which the paper's
 * Tofino could not.
 */
#include <cstring>

#include <isa-l/crc.h>

#include "nr_registers.h"

namespace ina {

namespace {

constexpr uint32_t kIp = sizeof(struct ina_eth_hdr);
/* IPv4 (no options) + UDP + BTH, the part with masked fields. */
constexpr uint32_t kMasked = sizeof(struct ina_ipv4_hdr) + sizeof(struct ina_udp_hdr) + ROCE_BTH_LEN;
constexpr uint32_t kRest = kIp + kMasked;

/* The CRC after the 8 bytes of 1s, the same for every packet: ISA-L's
 * crc32_gzip_refl(0, 8 x 0xFF), which zlib's crc32() gives too; the unit
 * test compares the result with a bitwise CRC of the whole input. */
constexpr uint32_t kOnesCrc = 0x2144DF1Cu;

/* Offsets, from the IPv4 header, of the bytes the ICRC sees as 1s. */
constexpr uint32_t kUdp = sizeof(struct ina_ipv4_hdr);
constexpr uint32_t kMaskedAt[] = {
	offsetof(struct ina_ipv4_hdr, tos),
	offsetof(struct ina_ipv4_hdr, ttl),
	offsetof(struct ina_ipv4_hdr, checksum),
	offsetof(struct ina_ipv4_hdr, checksum) + 1,
	kUdp + offsetof(struct ina_udp_hdr, checksum),
	kUdp + offsetof(struct ina_udp_hdr, checksum) + 1,
	kUdp + sizeof(struct ina_udp_hdr) + offsetof(struct roce_bth, resv8a),
};
constexpr uint32_t kMaskedN = sizeof(kMaskedAt) / sizeof(kMaskedAt[0]);

} /* namespace */

uint32_t roce_icrc(const uint8_t *frame, uint32_t len)
{
	uint8_t h[kMasked];
	std::memcpy(h, frame + kIp, kMasked);
	for (uint32_t i = 0; i < kMaskedN; i++)
		h[kMaskedAt[i]] = 0xFF;
	const uint32_t crc = crc32_gzip_refl(kOnesCrc, h, kMasked);
	return crc32_gzip_refl(crc, frame + kRest, len - kRest - ROCE_ICRC_LEN);
}

/* One CRC call instead of two: the masked bytes are set to 1s in place for
 * the call and put back (a short call costs as much as 300 bytes). */
uint32_t roce_icrc_inplace(uint8_t *frame, uint32_t len)
{
	uint8_t *ip = frame + kIp;
	uint8_t saved[kMaskedN];
	for (uint32_t i = 0; i < kMaskedN; i++) {
		saved[i] = ip[kMaskedAt[i]];
		ip[kMaskedAt[i]] = 0xFF;
	}
	const uint32_t crc = crc32_gzip_refl(kOnesCrc, ip, len - kIp - ROCE_ICRC_LEN);
	for (uint32_t i = 0; i < kMaskedN; i++)
		ip[kMaskedAt[i]] = saved[i];
	return crc;
}

uint32_t roce_icrc_head_inplace(uint8_t *frame, uint32_t head_len)
{
	uint8_t *ip = frame + kIp;
	uint8_t saved[kMaskedN];
	for (uint32_t i = 0; i < kMaskedN; i++) {
		saved[i] = ip[kMaskedAt[i]];
		ip[kMaskedAt[i]] = 0xFF;
	}
	const uint32_t crc = crc32_gzip_refl(kOnesCrc, ip, head_len - kIp);
	for (uint32_t i = 0; i < kMaskedN; i++)
		ip[kMaskedAt[i]] = saved[i];
	return crc;
}

namespace {

/* a x b modulo the CRC-32 polynomial, in the reflected representation
 * (bit 31 is x^0), as zlib's crc32_combine() computes it. */
uint32_t mulmod(uint32_t a, uint32_t b)
{
	uint32_t p = 0;
	for (int i = 31; i >= 0; i--) {
		if ((a >> i) & 1u)
			p ^= b;
		b = (b & 1u) ? (b >> 1) ^ 0xEDB88320u : b >> 1;
	}
	return p;
}

} /* namespace */

void crc_shift_init(CrcShift *s, uint32_t len)
{
	uint32_t k = 1u << 31; /* x^0 */
	for (uint32_t i = 0; i < len; i++)
		k = mulmod(1u << 23, k); /* times x^8 */
	s->len = len;
	for (uint32_t j = 0; j < 4; j++)
		for (uint32_t v = 0; v < 256; v++)
			s->t[j][v] = mulmod(v << (8 * j), k);
}

void roce_icrc_store(uint8_t *frame, uint32_t len)
{
	const uint32_t crc = roce_icrc_inplace(frame, len); /* the host is little endian */
	std::memcpy(frame + len - ROCE_ICRC_LEN, &crc, ROCE_ICRC_LEN);
}

} /* namespace ina */
