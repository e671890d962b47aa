/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The aggregator index hash: CRC-32 (IEEE 802.3 / zlib), shared with the P4
 * build and the workers. Expected values were computed with zlib.crc32.
 */
#include <gtest/gtest.h>

#include <cstring>

#include "ina/hash.h"

namespace {

/* Bitwise reference CRC-32 (reflected 0xEDB88320), independent of ISA-L. */
uint32_t crc32_reference(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
	}
	return ~c;
}

TEST(Hash, Crc32CheckValue)
{
	EXPECT_EQ(ina::crc32("123456789", 9), 0xCBF43926u);
	EXPECT_EQ(ina::crc32("", 0), 0u);
}

TEST(Hash, Crc32MatchesBitwiseReference)
{
	uint8_t buf[300];
	uint32_t x = 12345;
	for (auto &b : buf) {
		x = x * 1103515245u + 12345u;
		b = static_cast<uint8_t>(x >> 16);
	}
	for (size_t n : {1u, 2u, 6u, 7u, 16u, 63u, 64u, 65u, 255u, 300u})
		EXPECT_EQ(ina::crc32(buf, static_cast<uint32_t>(n)), crc32_reference(buf, n)) << "length " << n;
}

TEST(Hash, AggregatorIndexKnownValues)
{
	/* CRC-32 over job (2 bytes BE) then seq (4 bytes BE), mod N. */
	EXPECT_EQ(ina::aggregator_index(7, 100, 4096), 2290u);
	EXPECT_EQ(ina::aggregator_index(1, 0, 4096), 2067u);
	EXPECT_EQ(ina::aggregator_index(65535, 0xFFFFFFFFu, 65536), 60672u);
	EXPECT_EQ(ina::aggregator_index(2, 123456, 1000), 394u);
	EXPECT_EQ(ina::aggregator_index(7, 100, 1), 0u);
	const uint8_t key[6] = {0x00, 0x07, 0x00, 0x00, 0x00, 0x64};
	EXPECT_EQ(ina::crc32(key, 6), 0x493DD8F2u);
}

TEST(Hash, RehashKnownValues)
{
	/* fmix32(zlib.crc32(struct.pack(">HI", job, index))) % n (murmur3 fmix32) */
	EXPECT_EQ(ina::aggregator_rehash(1, 5, 4096), 2003u);
	EXPECT_EQ(ina::aggregator_rehash(1, 4095, 4096), 1374u);
	EXPECT_EQ(ina::aggregator_rehash(2, 0, 64), 46u);
	EXPECT_NE(ina::aggregator_rehash(1, 5, 4096), ina::aggregator_rehash(2, 5, 4096));
}

TEST(Hash, IndexAlwaysInRange)
{
	for (uint32_t n : {1u, 7u, 62u, 4096u, 100000u})
		for (uint32_t seq = 0; seq < 2000; seq += 13) {
			EXPECT_LT(ina::aggregator_index(3, seq, n), n);
			EXPECT_LT(ina::aggregator_rehash(3, seq, n), n);
		}
}

} /* namespace */
