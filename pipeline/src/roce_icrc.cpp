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

#include "ina/netreduce.h"

namespace ina {

namespace {

constexpr uint32_t kIp = sizeof(struct ina_eth_hdr);
/* IPv4 (no options) + UDP + BTH, the part with masked fields. */
constexpr uint32_t kMasked = sizeof(struct ina_ipv4_hdr) + sizeof(struct ina_udp_hdr) + ROCE_BTH_LEN;
constexpr uint32_t kRest = kIp + kMasked;

} /* namespace */

uint32_t roce_icrc(const uint8_t *frame, uint32_t len)
{
	static const uint8_t kOnes[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
	uint8_t h[kMasked];
	std::memcpy(h, frame + kIp, kMasked);
	h[offsetof(struct ina_ipv4_hdr, tos)] = 0xFF;
	h[offsetof(struct ina_ipv4_hdr, ttl)] = 0xFF;
	h[offsetof(struct ina_ipv4_hdr, checksum)] = 0xFF;
	h[offsetof(struct ina_ipv4_hdr, checksum) + 1] = 0xFF;
	constexpr uint32_t udp = sizeof(struct ina_ipv4_hdr);
	h[udp + offsetof(struct ina_udp_hdr, checksum)] = 0xFF;
	h[udp + offsetof(struct ina_udp_hdr, checksum) + 1] = 0xFF;
	h[udp + sizeof(struct ina_udp_hdr) + offsetof(struct roce_bth, resv8a)] = 0xFF;

	uint32_t crc = crc32_gzip_refl(0, kOnes, sizeof(kOnes));
	crc = crc32_gzip_refl(crc, h, kMasked);
	return crc32_gzip_refl(crc, frame + kRest, len - kRest - ROCE_ICRC_LEN);
}

void roce_icrc_store(uint8_t *frame, uint32_t len)
{
	const uint32_t crc = roce_icrc(frame, len); /* the host is little endian */
	std::memcpy(frame + len - ROCE_ICRC_LEN, &crc, ROCE_ICRC_LEN);
}

} /* namespace ina */
