/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The RoCEv2 invariant CRC (IBTA vol. 1 annex A17.3.3): CRC-32 (IEEE, as
 * ISA-L's crc32_gzip_refl and zlib compute it) over 64 bits of 1s standing
 * for the absent InfiniBand LRH, then the IP, UDP and transport headers with
 * the fields routers may change set to 1s, then the payload. A software
 * switch can recompute it for every result packet, which the paper's
 * Tofino could not.
 *
 * The headers go through a carry-less multiply fold of our own, inline and
 * read-only: with the 8 bytes of 1s in front, IPv4 + UDP + BTH are three
 * 16-byte blocks, and each RETH or nr_hdr one more, so the masked fields are
 * an OR with constant blocks and no byte is copied or written. The payload
 * continues from that state in ISA-L (folded VPCLMUL kernels). A short ISA-L
 * call costs about as much as 300 bytes of payload, and masking the fields
 * in place for it stalls its loads on the stores just made.
 */
#include "ina/roce_icrc.h"

#include <cstring>

#include <isa-l/crc.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ina {

namespace {

constexpr uint32_t kIp = sizeof(struct ina_eth_hdr);
/* IPv4 (no options) + UDP + BTH, the part with masked fields. */
constexpr uint32_t kMasked = sizeof(struct ina_ipv4_hdr) + sizeof(struct ina_udp_hdr) + ROCE_BTH_LEN;
constexpr uint32_t kRest = kIp + kMasked;
/* The 8 bytes of 1s in front of the IPv4 header. */
constexpr uint32_t kOnes = 8;
constexpr uint32_t kBlocks = (kOnes + kMasked) / 16;
static_assert((kOnes + kMasked) % 16 == 0 && ROCE_RETH_LEN % 16 == 0 && NR_HDR_LEN % 16 == 0,
	      "the ICRC's headers are whole 16-byte blocks");

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

/* The blocks' OR mask: the 8 bytes of 1s, then the masked fields. */
struct OnesMask {
	uint8_t b[kOnes + kMasked];
};
constexpr OnesMask ones_mask()
{
	OnesMask m{};
	for (uint32_t i = 0; i < kOnes; i++)
		m.b[i] = 0xFF;
	for (uint32_t at : kMaskedAt)
		m.b[kOnes + at] = 0xFF;
	return m;
}
alignas(16) constexpr OnesMask kOnesMask = ones_mask();

#if defined(__x86_64__)
/*
 * CRC-32 of `blocks` 16-byte blocks from 8 bytes before the IPv4 header,
 * the first kBlocks ORed with kOnesMask. Folding by one block, then 128 ->
 * 64 bits and a Barrett reduction, with the reflected-domain constants of
 * Gopal et al., "Fast CRC Computation for Generic Polynomials Using
 * PCLMULQDQ" (Intel, 2009), as zlib's and Linux's crc32 use them.
 */
__attribute__((target("pclmul,sse4.1"))) uint32_t head_crc_clmul(const uint8_t *frame, uint32_t blocks)
{
	const uint8_t *p = frame + kIp - kOnes;
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124);
	const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
	const __m128i lo32 = _mm_setr_epi32(~0, 0, ~0, 0);

	/* Initial value ~0: the CRC's pre-inversion. */
	__m128i x = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)),
				 _mm_load_si128(reinterpret_cast<const __m128i *>(kOnesMask.b)));
	x = _mm_xor_si128(x, _mm_cvtsi32_si128(~0));
	for (uint32_t i = 1; i < blocks; i++) {
		__m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 16 * i));
		if (i < kBlocks)
			y = _mm_or_si128(y, _mm_load_si128(reinterpret_cast<const __m128i *>(kOnesMask.b + 16 * i)));
		const __m128i lo = _mm_clmulepi64_si128(x, k3k4, 0x00);
		x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k3k4, 0x11), lo), y);
	}
	/* 128 -> 64 bits. */
	__m128i t = _mm_clmulepi64_si128(x, k3k4, 0x10);
	x = _mm_xor_si128(_mm_srli_si128(x, 8), t);
	t = _mm_srli_si128(x, 4);
	x = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x, lo32), k5, 0x00), t);
	/* Barrett reduction to 32 bits. */
	t = _mm_clmulepi64_si128(_mm_and_si128(x, lo32), poly, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, lo32), poly, 0x00);
	x = _mm_xor_si128(x, t);
	return ~static_cast<uint32_t>(_mm_extract_epi32(x, 1)); /* the final inversion */
}

const bool kHavePclmul = [] {
	__builtin_cpu_init();
	return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}();
#endif

} /* namespace */

/* Without PCLMUL: the masked headers copied, one ISA-L call. */
uint32_t roce_icrc_head_copy(const uint8_t *frame, uint32_t head_len)
{
	uint8_t h[kMasked];
	std::memcpy(h, frame + kIp, kMasked);
	for (uint32_t at : kMaskedAt)
		h[at] = 0xFF;
	const uint32_t crc = crc32_gzip_refl(kOnesCrc, h, kMasked);
	return crc32_gzip_refl(crc, frame + kRest, head_len - kRest);
}

uint32_t roce_icrc_head(const uint8_t *frame, uint32_t head_len)
{
#if defined(__x86_64__)
	if (kHavePclmul)
		return head_crc_clmul(frame, (head_len - kIp + kOnes) / 16);
#endif
	return roce_icrc_head_copy(frame, head_len);
}

uint32_t roce_icrc(const uint8_t *frame, uint32_t len)
{
	return crc32_gzip_refl(roce_icrc_head(frame, kRest), frame + kRest, len - kRest - ROCE_ICRC_LEN);
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
	const uint32_t crc = roce_icrc(frame, len); /* the host is little endian */
	std::memcpy(frame + len - ROCE_ICRC_LEN, &crc, ROCE_ICRC_LEN);
}

} /* namespace ina */
