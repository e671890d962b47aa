/* SPDX-License-Identifier: BSD-3-Clause */
#include <gtest/gtest.h>

#include <set>

#include "ina/hash.h"
#include "ina/wire.h"
#include "ina/worker/remap.h"

using namespace ina;

TEST(Hash, Crc32CheckValue)
{
	EXPECT_EQ(crc32("123456789", 9), 0xCBF43926u);
}

TEST(Hash, IndexIsCrcOfJobAndSeqBigEndian)
{
	const uint8_t key[6] = {0x00, 0x07, 0x00, 0x00, 0x01, 0x02}; /* job 7, seq 258 */
	EXPECT_EQ(aggregator_index(7, 258, 1000), crc32(key, 6) % 1000);
	RemapTable t(7, 1000);
	EXPECT_EQ(t.original_index(258), crc32(key, 6) % 1000);
	EXPECT_EQ(t.index(258), t.original_index(258));
}

TEST(Hash, IndicesSpreadOverTheTable)
{
	RemapTable t(3, 64);
	std::set<uint32_t> seen;
	for (uint32_t s = 0; s < 1000; s++) {
		uint32_t i = t.index(s);
		ASSERT_LT(i, 64u);
		seen.insert(i);
	}
	EXPECT_EQ(seen.size(), 64u);
}

TEST(Remap, HintMovesEveryFragmentOfTheOriginalIndex)
{
	RemapTable t(5, 128);
	uint32_t seq = 17;
	uint32_t orig = t.original_index(seq);
	uint32_t moved = aggregator_rehash(orig, 128);
	ASSERT_NE(moved, orig);
	EXPECT_TRUE(t.apply_hint(seq, moved));
	EXPECT_EQ(t.index(seq), moved);
	EXPECT_FALSE(t.apply_hint(seq, moved)); /* already applied */
	/* Another seq with the same original index follows the remap. */
	uint32_t other = UINT32_MAX;
	for (uint32_t s = 18; s < 100000; s++)
		if (t.original_index(s) == orig) {
			other = s;
			break;
		}
	ASSERT_NE(other, UINT32_MAX);
	EXPECT_EQ(t.index(other), moved);
	/* Seqs with other indices are untouched. */
	for (uint32_t s = 0; s < 1000; s++) {
		if (t.original_index(s) != orig) {
			EXPECT_EQ(t.index(s), t.original_index(s));
		}
	}
	/* A second collision re-hashes again: the table follows. */
	uint32_t again = aggregator_rehash(moved, 128);
	EXPECT_TRUE(t.apply_hint(seq, again));
	EXPECT_EQ(t.index(other), again);
}

TEST(Remap, IgnoresNoRemapAndOutOfRange)
{
	RemapTable t(5, 128);
	uint32_t before = t.index(9);
	EXPECT_FALSE(t.apply_hint(9, INA_NO_REMAP));
	EXPECT_FALSE(t.apply_hint(9, 128));
	EXPECT_EQ(t.index(9), before);
}
