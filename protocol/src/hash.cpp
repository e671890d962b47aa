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

uint32_t aggregator_rehash(uint32_t index, uint32_t aggregators)
{
	uint8_t key[4];
	ina_store32(key, index);
	return crc32(key, sizeof(key)) % aggregators;
}

} /* namespace ina */
