/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/hash.h"

#include <isa-l/crc.h>

#include "ina/wire.h"

namespace ina {

uint32_t crc32(const void *data, uint32_t len)
{
	/* crc32_gzip_refl applies the initial and final inversion itself. */
	return crc32_gzip_refl(0, static_cast<const unsigned char *>(data), len);
}

uint32_t aggregator_index(uint16_t job, uint32_t seq, uint32_t aggregators)
{
	uint8_t key[6];
	ina_store16(key, job);
	ina_store32(key + 2, seq);
	return crc32(key, sizeof(key)) % aggregators;
}

/* murmur3's fmix32: a bijection of 32-bit words whose every output bit
 * depends on every input bit, not linearly. */
static uint32_t fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

uint32_t aggregator_slot_index(uint16_t job, uint32_t slot, uint16_t salt, uint32_t aggregators)
{
	uint8_t key[8];
	ina_store16(key, job);
	ina_store32(key + 2, slot);
	ina_store16(key + 6, salt);
	return fmix32(crc32(key, sizeof(key))) % aggregators;
}

uint32_t aggregator_rehash(uint16_t job, uint32_t index, uint32_t aggregators)
{
	uint8_t key[6];
	ina_store16(key, job);
	ina_store32(key + 2, index);
	return fmix32(crc32(key, sizeof(key))) % aggregators;
}

} /* namespace ina */
