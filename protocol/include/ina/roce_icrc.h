/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The RoCEv2 invariant CRC (ICRC) of a frame of ina/roce.h, and the CRC-32
 * arithmetic that lets a switch compute a result's ICRC from its parts
 * (protocol/src/roce_icrc.cpp).
 */
#ifndef INA_ROCE_ICRC_H
#define INA_ROCE_ICRC_H

#include <cstdint>

#include "ina/roce.h"

namespace ina {

/* The RoCEv2 ICRC of a frame (Ethernet first, ICRC last): CRC-32 over 8
 * bytes of 1s, then IPv4 (TOS, TTL, checksum as 1s), UDP (checksum as 1s),
 * BTH (resv8a as 1s) and the rest up to the ICRC. It is stored least
 * significant byte first. len must cover the headers and the ICRC. */
uint32_t roce_icrc(const uint8_t *frame, uint32_t len);
/* Writes roce_icrc() into the last 4 bytes. */
void roce_icrc_store(uint8_t *frame, uint32_t len);

/* The ICRC's CRC over 8 bytes of 1s and the masked headers from IPv4 up to
 * head_len (54 + 16 k: BTH, RETH, nr_hdr), without writing the frame;
 * crc32_gzip_refl() continues it over the payload. */
uint32_t roce_icrc_head(const uint8_t *frame, uint32_t head_len);
/* The same for a CPU without PCLMUL: the masked headers copied for ISA-L. */
uint32_t roce_icrc_head_copy(const uint8_t *frame, uint32_t head_len);

/* CRC-32 of A || B from crc(A) and crc(B), for B of a fixed length: crc(A)
 * times x^(8 len(B)) modulo the polynomial (zlib's crc32_combine), by
 * tables. A result's ICRC is its headers' CRC combined with its values'
 * CRC, which is the same for every rank's copy: computed once per slot. */
struct CrcShift {
	uint32_t len;
	uint32_t t[4][256];
};
void crc_shift_init(CrcShift *s, uint32_t len);
inline uint32_t crc_combine(const CrcShift &s, uint32_t crc_a, uint32_t crc_b)
{
	return s.t[0][crc_a & 0xFF] ^ s.t[1][(crc_a >> 8) & 0xFF] ^ s.t[2][(crc_a >> 16) & 0xFF] ^
	       s.t[3][crc_a >> 24] ^ crc_b;
}

} /* namespace ina */

#endif /* INA_ROCE_ICRC_H */
