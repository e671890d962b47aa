/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Aggregator index hashing, shared by the worker library, the PS and the P4
 * build. The hash is CRC-32 as in IEEE 802.3 / zlib (reflected polynomial
 * 0xEDB88320, initial value and final xor 0xFFFFFFFF; crc32("123456789") =
 * 0xCBF43926), which is Tofino's HashAlgorithm_t.CRC32 and BMv2's crc32.
 */
#ifndef INA_HASH_H
#define INA_HASH_H

#include <cstdint>

namespace ina {

/* CRC-32 of a byte string (ISA-L's crc32_gzip_refl). */
uint32_t crc32(const void *data, uint32_t len);

/* Index of fragment <job, seq>: CRC-32 over job (2 bytes) then seq
 * (4 bytes), both big endian, modulo the switch's aggregator count. */
uint32_t aggregator_index(uint16_t job, uint32_t seq, uint32_t aggregators);

/* The PS's re-hash after a collision: CRC-32 over the old index (4 bytes,
 * big endian) modulo the aggregator count. */
uint32_t aggregator_rehash(uint32_t index, uint32_t aggregators);

} /* namespace ina */

#endif /* INA_HASH_H */
