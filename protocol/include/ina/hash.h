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

/* Index of fragment <job, seq> as ATP's text writes it: CRC-32 over job
 * (2 bytes) then seq (4 bytes), both big endian, modulo the switch's
 * aggregator count. The workers hash their window slots instead
 * (aggregator_slot_index); tests and benchmarks use this one to spread
 * made-up fragments over a table. */
uint32_t aggregator_index(uint16_t job, uint32_t seq, uint32_t aggregators);

/* The worker's index of a job's window slot (ina/worker/remap.h): CRC-32
 * over job (2 bytes), slot (4 bytes) and salt (2 bytes), all big endian,
 * mixed by murmur3's 32-bit finalizer, modulo the aggregator count. The mix
 * is there because a CRC is affine over GF(2): modulo a power of two, the
 * slots 0..S-1 of two jobs map onto the same S aggregators or onto disjoint
 * ones, all or nothing (2 jobs x 256 slots on 512 aggregators met on every
 * slot), and a chain of rehashes stays in its coset. The finalizer's
 * multiplications are not linear, so jobs overlap as random sets do. */
uint32_t aggregator_slot_index(uint16_t job, uint32_t slot, uint16_t salt, uint32_t aggregators);

/* The PS's re-hash after a collision: CRC-32 over job (2 bytes) then the old
 * index (4 bytes), both big endian, mixed as aggregator_slot_index's, modulo
 * the aggregator count. ATP's text
 * hashes the index alone; the job is in the key because two jobs that meet
 * on an aggregator take turns there (the one that finds it free is not the
 * same every time), so both are told to move, and a rehash of the index
 * alone sent both to the same next aggregator, where they met again, chain
 * after chain. ATP's own end host draws the new index with the job in the
 * key as well. */
uint32_t aggregator_rehash(uint16_t job, uint32_t index, uint32_t aggregators);

} /* namespace ina */

#endif /* INA_HASH_H */
